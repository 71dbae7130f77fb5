"""What the channel reads when the incident resolves: the summary (final tag against the triage's,
the clocks, the actions run), with the postmortem draft attached in its thread."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.postmortem.model import Postmortem
from bot.slack.blocks.text import FIELD, HEADER, SECTION, cut, escape, inline


def summary_text(pm: Postmortem) -> str:
    """The notification text (and what a client without blocks shows)."""
    i = pm.incident
    return cut(
        f"Incident {i.id} resolved by {escape(i.resolved_by or '')}: {escape(i.resolution or '')}", SECTION
    )


def _tag_line(pm: Postmortem) -> str:
    tag = pm.tag
    category = tag.final_category.value if tag.final_category else "untagged"
    final = f"`{category}` / {inline(tag.final_code or 'no code')}"
    if tag.triage_code is None:
        return f"*Final tag* {final} (no triage was stored)"
    mark = {True: ":white_check_mark:", False: ":x:", None: ":grey_question:"}[tag.code_ok]
    triage = f"`{tag.triage_category.value if tag.triage_category else '?'}` / {inline(tag.triage_code)}"
    return f"*Final tag* {final} · *first triage* {triage} {mark}"


def summary_blocks(pm: Postmortem) -> list[Block]:
    i = pm.incident
    by = i.resolved_by or ""
    who = f"<@{by}>" if by[:1] in ("U", "W") and by.isalnum() else escape(by)
    clocks = " · ".join(f"{d.name} {d.text()}" for d in pm.durations)
    ran = [a for a in pm.actions if a.executed_at is not None]
    actions = (
        "\n".join(
            f"• {inline(a.kind)} {escape(a.target)}: {escape(cut(a.effect or a.status, 200))}"
            f" (approved by {escape(a.decided_by or '?')})"
            for a in ran
        )
        if ran
        else "No action was run through the bot."
    )
    items = len(pm.action_items)
    return [
        HeaderBlock(text=cut(f"Resolved: incident {i.id}", HEADER)),
        SectionBlock(
            text=MarkdownTextObject(text=cut(f"Resolved by {who}: {escape(i.resolution or '')}", SECTION))
        ),
        SectionBlock(text=MarkdownTextObject(text=cut(_tag_line(pm), SECTION))),
        SectionBlock(
            fields=[
                MarkdownTextObject(text=cut(f"*Clocks*\n{clocks}", FIELD)),
                MarkdownTextObject(text=cut(f"*Actions run*\n{actions}", FIELD)),
            ]
        ),
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=f"Postmortem draft in the thread: {items} action item{'s' if items != 1 else ''} "
                    "from what the machine could have done. "
                    f"`incident-bot incidents postmortem {i.id}` prints it."
                )
            ]
        ),
    ]
