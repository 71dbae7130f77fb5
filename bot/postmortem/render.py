"""The postmortem draft as Markdown: the file posted to the channel and printed by the CLI."""

from __future__ import annotations

from datetime import datetime

from bot.postmortem.model import Postmortem
from bot.triage.redact import redact

NONE = "-"


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return " ".join(text.split()).replace("|", "\\|")[:300]


def _at(value: datetime | None) -> str:
    return f"{value:%Y-%m-%d %H:%M:%S}" if value else NONE


def _table(head: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def markdown(pm: Postmortem) -> str:
    """Every section, in the order a review reads them; empty sections say so rather than vanish."""
    i, tag = pm.incident, pm.tag
    out = [
        f"# Postmortem draft: incident {i.id}: {_cell(i.title)}",
        "",
        f"_Drafted by incident-bot at {_at(pm.built_at)} UTC from {pm.events} timeline events. "
        "A draft: review and edit it before it is shared._",
        "",
        "## Summary",
        "",
        pm.summary,
        "",
        "## Impact",
        "",
        pm.blast_radius or "Not stated by the triage.",
        "",
        "## Triage tag against the final tag",
        "",
        *_table(
            ["", "category", "code"],
            [
                [
                    "first triage",
                    tag.triage_category.value if tag.triage_category else NONE,
                    tag.triage_code or NONE,
                ],
                ["final", tag.final_category.value if tag.final_category else NONE, tag.final_code or NONE],
                ["match", _ok(tag.category_ok), _ok(tag.code_ok)],
            ],
        ),
        "",
        f"Triage runs: {tag.runs}; the first by the {tag.triage_engine or NONE} engine"
        + (f", confidence {tag.triage_confidence:.0%}." if tag.triage_confidence is not None else "."),
        "",
        "## Hypothesis and evidence",
        "",
        pm.hypothesis or "No hypothesis was stored.",
        "",
    ]
    out += [
        f"- {_cell(e.get('summary') or e.get('query') or e)} ({_cell(e.get('source'))})" for e in pm.evidence
    ]
    out += [f"- gap: {_cell(g)}" for g in pm.gaps]
    if not pm.evidence and not pm.gaps:
        out.append("- none")
    out += ["", "## Actions", ""]
    if pm.actions:
        rows: list[list[object]] = [
            [
                f"{a.kind} {a.target}",
                a.run,
                a.status,
                a.decided_by or NONE,
                _at(a.executed_at),
                a.effect or NONE,
                _ok(a.verified),
                _at(a.undone_at),
            ]
            for a in pm.actions
        ]
        out += _table(
            ["action", "run", "status", "decided by", "applied", "effect", "verified", "undone"], rows
        )
    else:
        out.append("No action was proposed.")
    out += ["", "## Durations", ""]
    out += _table(["clock", "from", "to", "took"], [[d.name, d.start, d.end, d.text()] for d in pm.durations])
    out += ["", "## Timeline (UTC)", ""]
    out += _table(["at", "who", "what"], [[_at(e.at), e.actor, e.text] for e in pm.timeline])
    out += ["", "## What the machine did", ""]
    out += [f"- {_cell(d)}" for d in pm.machine_did] or ["- nothing"]
    out += ["", "## What the machine could have done", ""]
    out += [f"- **{f.gap.value.replace('_', ' ')}**: {_cell(f.text)}" for f in pm.findings] or [
        "- nothing found: the triage was right, with its evidence, and its first action was offered"
    ]
    out += ["", "## Action items", ""]
    out += [f"- [ ] {_cell(item)}" for item in pm.action_items] or ["- [ ] none from the machine's review"]
    return redact("\n".join(out) + "\n")  # a draft stored before a redaction rule came is caught too


def _ok(value: bool | None) -> str:
    return {True: "yes", False: "no", None: NONE}[value]
