"""The triage result as plain text for a terminal."""

from __future__ import annotations

from bot.domain import TriageResult


def render(result: TriageResult) -> str:
    lines = [
        f"{result.category} / {result.code} (layer {result.layer}, confidence {result.confidence:.0%}, "
        f"engine {result.engine})",
        "",
        result.hypothesis,
        "",
        f"Blast radius: {result.blast_radius}",
        f"Runbook: {result.runbook or '-'}",
        "",
        "Proposed actions (none runs without approval):"
        if result.actions
        else "Proposed actions: none from the catalog",
    ]
    for index, action in enumerate(result.actions, start=1):
        lines.append(
            f"  {index}. {action.kind} {action.target} — {action.rationale or '-'} (undo: {action.undo})"
        )
    lines += ["", "Evidence:"]
    lines += [f"  [{e['id']}] {e['summary']}" for e in result.evidence]
    if result.timeline:
        lines += ["", "Onset timeline:"]
        lines += [f"  {t.at:%H:%M:%S}Z {t.layer or '-':3} {t.what}" for t in result.timeline[:15]]
    if result.gaps:
        lines += ["", "Gaps (not seen):"] + [f"  {g}" for g in result.gaps]
    lines += ["", f"timings: {', '.join(f'{k} {v:.0f} ms' for k, v in result.timings_ms.items())}"]
    return "\n".join(lines)
