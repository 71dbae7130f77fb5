"""Build the postmortem draft from what the store holds: the timeline, the triage runs, the proposals.

A pure function of its inputs (the caller reads them), so the same incident always drafts the same
text, and a test can build one from a real incident's records. The draft quotes alerts, logs and the
cluster; it is redacted whole (bot.triage.redact) before anyone reads it, in Slack or through the API.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.domain import ActionProposal, EventKind, IncidentDetail, StoredTriage, TimelineEvent
from bot.postmortem.model import AFTERWORD, ActionRecord, Duration, Finding, Gap, Postmortem, TagCheck
from bot.triage.redact import redact_value

UNATTRIBUTED = "UNATTRIBUTED"


@dataclass(frozen=True)
class Offer:
    """What the runbook of the final code offers: its file and its actions (kind, target, when)."""

    runbook: str | None
    actions: list[tuple[str, str, str]] = field(default_factory=list)


def draft(
    detail: IncidentDetail,
    triages: Sequence[StoredTriage],
    proposals: Sequence[ActionProposal],
    offer: Offer | None,
    *,
    now: datetime,
) -> Postmortem:
    """The draft of one incident; `offer` is None when there is no final code to look a runbook up by."""
    first = min(triages, key=lambda t: t.run) if triages else None
    events = [e for e in detail.timeline if e.kind not in AFTERWORD]
    tag = _tag(detail, first, len(triages))
    actions = [_action(p, detail.timeline) for p in proposals]
    findings = _findings(detail, first, tag, proposals, offer)
    result = first.result if first else None
    built = Postmortem(
        incident=detail.incident,
        built_at=now,
        events=len(events),
        summary=_summary(detail, tag),
        tag=tag,
        hypothesis=result.hypothesis if result else "",
        blast_radius=result.blast_radius if result else "",
        evidence=list(result.evidence) if result else [],
        gaps=list(result.gaps) if result else [],
        timeline=events,
        actions=actions,
        durations=durations(detail),
        machine_did=_did(detail, first, actions),
        findings=findings,
        action_items=[f.action_item for f in findings],
    )
    return Postmortem.model_validate(redact_value(built.model_dump(mode="json")))


def _tag(detail: IncidentDetail, first: StoredTriage | None, runs: int) -> TagCheck:
    incident, result = detail.incident, first.result if first else None
    final_category, final_code = incident.category, incident.code
    return TagCheck(
        triage_category=result.category if result else None,
        triage_code=result.code if result else None,
        triage_engine=result.engine if result else None,
        triage_confidence=result.confidence if result else None,
        final_category=final_category,
        final_code=final_code,
        category_ok=(result.category == final_category) if result and final_category else None,
        code_ok=(result.code == final_code) if result and final_code else None,
        runs=runs,
    )


def _first(events: Sequence[TimelineEvent], kind: EventKind, **data: object) -> TimelineEvent | None:
    return next(
        (e for e in events if e.kind == kind and all(e.data.get(k) == v for k, v in data.items())), None
    )


def _seconds(start: datetime | None, end: datetime | None) -> float | None:
    return (end - start).total_seconds() if start and end and end >= start else None


def durations(detail: IncidentDetail) -> list[Duration]:
    """The incident's clocks: how long the bot took to open and triage, and the humans to act and close.

    Mitigated is when every alert had resolved (the SLO stopped burning), else the first action
    whose effect verify saw.
    """
    incident, events = detail.incident, detail.timeline
    posted = _first(events, EventKind.TRIAGE_POSTED, run=1) or _first(events, EventKind.TRIAGED, run=1)
    executed = _first(events, EventKind.ACTION_EXECUTED)
    verified = _first(events, EventKind.ACTION_VERIFIED, verified=True)
    alerts = detail.alerts
    calm = (
        max((a.ends_at or a.last_received_at) for a in alerts)
        if alerts and all(a.status.value == "resolved" for a in alerts)
        else None
    )
    mitigated = calm or (verified.at if verified else None)
    start, opened = incident.started_at, incident.opened_at
    return [
        Duration(
            name="detect", start="alert started", end="incident opened", seconds=_seconds(start, opened)
        ),
        Duration(
            name="triage",
            start="incident opened",
            end="first triage posted",
            seconds=_seconds(opened, posted.at if posted else None),
        ),
        Duration(
            name="first action",
            start="incident opened",
            end="first approved action applied",
            seconds=_seconds(opened, executed.at if executed else None),
        ),
        Duration(
            name="mitigate",
            start="alert started",
            end="alerts resolved" if calm else "first action verified",
            seconds=_seconds(start, mitigated),
        ),
        Duration(
            name="resolve",
            start="alert started",
            end="incident resolved",
            seconds=_seconds(start, incident.resolved_at),
        ),
    ]


def _action(proposal: ActionProposal, events: Sequence[TimelineEvent]) -> ActionRecord:
    mine = [e for e in events if e.data.get("proposal_id") == proposal.id]
    executed = next((e for e in mine if e.kind == EventKind.ACTION_EXECUTED), None)
    undone = next((e for e in mine if e.kind == EventKind.ACTION_UNDONE), None)
    outcome = proposal.outcome
    return ActionRecord(
        proposal_id=proposal.id,
        run=proposal.run,
        kind=proposal.action.kind.value,
        target=proposal.action.target,
        status=proposal.status,
        proposed_at=proposal.created_at,
        decided_by=proposal.decided_by,
        decided_at=proposal.decided_at,
        executed_at=executed.at if executed else None,
        effect=str(outcome.get("summary") or ""),
        diff=[str(d) for d in outcome.get("diff") or []],
        verified=outcome.get("verified"),
        undone_at=undone.at if undone else None,
    )


def _summary(detail: IncidentDetail, tag: TagCheck) -> str:
    incident = detail.incident
    scope = " / ".join(x for x in (incident.namespace, incident.service, incident.model) if x) or "no scope"
    said = f"{incident.severity.value} incident on {scope}, started {incident.started_at:%Y-%m-%d %H:%M} UTC"
    if incident.resolved_at:
        said += (
            f", resolved {incident.resolved_at:%H:%M} UTC by {incident.resolved_by}: {incident.resolution}"
        )
    final = (
        f"{tag.final_category.value if tag.final_category else 'untagged'} / {tag.final_code or 'no code'}"
    )
    if tag.triage_code is None:
        return f"{incident.title}: {said}. Final tag {final}; no triage was stored."
    verdict = {True: "right", False: "wrong", None: "not checked (no final code)"}[tag.code_ok]
    triage = f"{tag.triage_category.value if tag.triage_category else '?'} / {tag.triage_code}"
    return f"{incident.title}: {said}. Final tag {final}; the first triage said {triage} ({verdict})."


def _did(detail: IncidentDetail, first: StoredTriage | None, actions: Sequence[ActionRecord]) -> list[str]:
    clocks = {d.name: d for d in durations(detail)}
    did = [f"opened the incident {clocks['detect'].text()} after the alert started"]
    if first is not None:
        r = first.result
        did.append(
            f"posted a first triage {clocks['triage'].text()} after opening ({r.engine}): "
            f"{r.category.value} / {r.code}, confidence {r.confidence:.0%}, {len(r.evidence)} evidence items"
        )
    offered = [a for a in actions if a.run == 1]
    if offered:
        did.append("offered " + ", ".join(f"{a.kind} {a.target}" for a in offered) + " as approval buttons")
    for a in actions:
        if a.executed_at is not None:
            held = {True: "verified", False: "not verified", None: "no verify"}[a.verified]
            did.append(f"ran {a.kind} {a.target} after {a.decided_by}'s approval ({held})")
    return did


def _findings(
    detail: IncidentDetail,
    first: StoredTriage | None,
    tag: TagCheck,
    proposals: Sequence[ActionProposal],
    offer: Offer | None,
) -> list[Finding]:
    incident_id, found = detail.incident.id, []
    if first is None:
        return [
            Finding(gap=Gap.SIGNAL, text="no triage was stored", action_item="Find why the triage never ran")
        ]
    result = first.result
    for gap in result.gaps:
        found.append(
            Finding(
                gap=Gap.SIGNAL,
                text=f"the first triage could not read: {gap}",
                action_item=f"Make this readable by the bot's read-only tools: {gap}",
            )
        )
    if tag.code_ok is False or result.code == UNATTRIBUTED:
        said = f"the first triage said {result.code}" + (
            f", the final code is {tag.final_code}" if tag.final_code else ""
        )
        found.append(
            Finding(
                gap=Gap.RULE,
                text=said,
                action_item=(
                    f"Record the incident as an eval pack (`incident-bot incidents export-pack {incident_id} DIR`) "
                    f"and add the signal or attribution rule that points at {tag.final_code or 'the cause'}"
                ),
            )
        )
    for line in result.attribution.get("top_unattributed") or []:
        signature, count = str(line.get("signature", "")), int(line.get("count", 0))
        found.append(
            Finding(
                gap=Gap.RULE,
                text=f"{count} error lines matched no attribution rule: {signature[:200]}",
                action_item=f"Write an attribution rule for `{signature[:120]}` (`incident-bot attribute --report`)",
            )
        )
    found += _action_findings(tag, proposals, offer)
    return found


def _action_findings(
    tag: TagCheck, proposals: Sequence[ActionProposal], offer: Offer | None
) -> list[Finding]:
    if offer is None:
        return []
    if offer.runbook is None:
        return [
            Finding(
                gap=Gap.RUNBOOK,
                text=f"no runbook covers {tag.final_code}",
                action_item=f"Write a runbook for {tag.final_code} and check it with `incident-bot runbooks check`",
            )
        ]
    kinds = {p.action.kind.value for p in proposals}
    found = [
        Finding(
            gap=Gap.ACTION,
            text=f"{offer.runbook} offers {kind} {target} (when {when}); no triage run offered it",
            action_item=f"Find why {kind} was not offered: its condition `{when}` or its target did not hold",
        )
        for kind, target, when in offer.actions
        if kind not in kinds
    ]
    used = [p for p in proposals if p.status not in ("proposed", "rejected", "expired")]
    if proposals and not used:
        found.append(
            Finding(
                gap=Gap.ACTION,
                text="no offered action was approved: "
                + ", ".join(f"{p.action.kind.value} {p.action.target}" for p in proposals),
                action_item=f"Review whether {offer.runbook}'s first actions fit {tag.final_code}",
            )
        )
    return found
