"""The triage post: its tag and root-cause code, the hypothesis with its confidence, the evidence
with links, the blast radius, what could not be seen, and each proposed action with its buttons.

Every text is cut to Block Kit's limits (a long evidence list ends with how many were left out);
block ids carry the run, so an update of the message gets fresh ones, as Slack asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.domain import ActionProposal, Incident, StoredTriage
from bot.slack.blocks.proposals import proposal_blocks
from bot.slack.blocks.text import FIELD, HEADER, SECTION, cut, escape, inline, link, plain

MAX_EVIDENCE = 8
MAX_ACTIONS = 8  # a refused eviction adds its delete as one more
CATEGORY_MARK = {
    "infrastructure": ":building_construction:",
    "model_config": ":package:",
    "inference_engine": ":gear:",
    "operational": ":traffic_light:",
}


def triage_text(incident: Incident, triage: StoredTriage) -> str:
    r = triage.result
    return cut(
        f"Incident {incident.id} triage: {r.category} / {escape(r.code)} ({r.confidence:.0%}) — "
        + escape(r.hypothesis),
        400,
    )


def _evidence_line(item: dict[str, Any]) -> str:
    summary = cut(str(item.get("summary", "")), 240)
    target = item.get("link")
    source = inline(str(item.get("source", "")), 60)
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        return f"• {source} {link(target, summary)}"
    if isinstance(target, str) and target.strip():  # an object's command: shown to copy, not linked
        return f"• {source} {escape(summary)} · {inline(target)}"
    return f"• {source} {escape(summary)}"


MORE = "\n… and {left} more (`incident-bot incidents show`)"


def evidence_section(evidence: Sequence[dict[str, Any]]) -> SectionBlock:
    """Whole lines only: cutting inside one would leave a link's `<url|label` open, shown raw."""
    head, room = "*Evidence*\n", SECTION - len(MORE.format(left=len(evidence)))
    lines: list[str] = []
    for item in evidence[:MAX_EVIDENCE]:
        line = _evidence_line(item)
        if len(head) + sum(len(x) + 1 for x in lines) + len(line) > room:
            break
        lines.append(line)
    left = len(evidence) - len(lines)
    text = head + ("\n".join(lines) if lines else "_none_")
    return SectionBlock(text=MarkdownTextObject(text=text + (MORE.format(left=left) if left else "")))


def triage_blocks(
    incident: Incident,
    triage: StoredTriage,
    proposals: Sequence[ActionProposal],
    *,
    runbook_url: str | None = None,
) -> list[Block]:
    r = triage.result
    mark = CATEGORY_MARK.get(r.category.value, ":mag:")
    label = "Triage" if triage.run == 1 else f"Triage run {triage.run}"
    fields = [
        f"*Category*\n{mark} `{r.category.value}`",
        f"*Root cause*\n{inline(r.code)}",
        f"*Confidence*\n{r.confidence:.0%} ({r.engine})",
        f"*Runbook*\n{link(runbook_url, r.runbook.rsplit('/', 1)[-1]) if r.runbook else '-'}",
    ]
    blocks: list[Block] = [
        HeaderBlock(text=plain(f"{label}: {r.category.value} · {r.code}", HEADER)),
        SectionBlock(text=MarkdownTextObject(text=cut(escape(r.hypothesis), SECTION))),
        SectionBlock(fields=[MarkdownTextObject(text=cut(f, FIELD)) for f in fields]),
        evidence_section(r.evidence),
        SectionBlock(text=MarkdownTextObject(text=cut("*Blast radius*\n" + escape(r.blast_radius), SECTION))),
    ]
    if r.gaps:
        gaps = "; ".join(escape(g) for g in r.gaps)
        blocks.append(
            ContextBlock(elements=[MarkdownTextObject(text=cut(f":eyes: Not seen: {gaps}", SECTION))])
        )
    blocks.append(DividerBlock())
    if proposals:
        blocks.append(
            SectionBlock(
                text=PlainTextObject(
                    text="Proposed first moves (each reversible; nothing runs without approval):"
                )
            )
        )
        for number, proposal in enumerate(proposals[:MAX_ACTIONS], start=1):
            blocks += proposal_blocks(proposal, triage.run, number=number)
    else:
        blocks.append(
            SectionBlock(text=PlainTextObject(text="No action of the catalog helps here: see the runbook."))
        )
    total = r.timings_ms.get("total")
    took = f" in {total / 1000:.1f} s" if total else ""
    blocks.append(
        ContextBlock(
            elements=[MarkdownTextObject(text=f"Incident {incident.id} · triage run {triage.run}{took}")]
        )
    )
    return blocks
