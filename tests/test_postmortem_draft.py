"""The postmortem draft's review of the machine, case by case: what it says when the triage was
right and its action ran, and what it asks for when a backend, a rule or a runbook was missing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.actions.catalog import ActionKind
from bot.domain import (
    ActionProposal,
    Alert,
    AlertStatus,
    Category,
    EventKind,
    Incident,
    IncidentDetail,
    IncidentStatus,
    IncidentSummary,
    ProposedAction,
    Severity,
    StoredTriage,
    TimelineEvent,
    TriageResult,
)
from bot.postmortem.draft import Offer, draft
from bot.postmortem.model import Gap
from bot.postmortem.render import markdown
from bot.postmortem.scorecard import scorecard

T0 = datetime(2026, 11, 30, 3, 0, tzinfo=UTC)
ROUTE = "httproute/llama-chat"


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def incident(code: str | None, category: Category | None) -> Incident:
    return Incident(
        id=7,
        title="llama-chat TTFT burn",
        status=IncidentStatus.RESOLVED,
        severity=Severity.CRITICAL,
        category=category,
        code=code,
        group_key="{}:{alertname=x}",
        service="llama-chat",
        model="llama",
        namespace="llm-serving",
        alertname="TTFTBurn",
        query=None,
        value=None,
        started_at=at(0),
        opened_at=at(1),
        acknowledged_at=None,
        acknowledged_by=None,
        resolved_at=at(40),
        resolved_by="U0BOB",
        resolution="rerouted; replica b healthy",
        labels={},
    )


def triage(code: str, gaps: list[str], unattributed: list[dict[str, object]]) -> StoredTriage:
    result = TriageResult(
        incident=IncidentSummary(service="llama-chat"),
        category=Category.INFERENCE_ENGINE,
        code=code,
        layer="ENG",
        hypothesis="the KV cache of replica a filled",
        confidence=0.8,
        evidence=[{"source": "prometheus", "summary": "kv cache 0.99 on replica a"}],
        blast_radius="half the traffic of llama-chat",
        actions=[],
        runbook="runbooks/kv-cache-exhaustion.md",
        gaps=gaps,
        attribution={"top_unattributed": unattributed},
    )
    return StoredTriage(incident_id=7, run=1, created_at=at(2), posted_at=at(2), result=result)


def event(i: int, minutes: float, kind: EventKind, **data: object) -> TimelineEvent:
    return TimelineEvent(id=i, at=at(minutes), actor="incident-bot", kind=kind, text=kind.value, data=data)


def detail(
    code: str | None, category: Category | None, *, ran: bool
) -> tuple[IncidentDetail, list[ActionProposal]]:
    events = [
        event(1, 1, EventKind.OPENED),
        event(2, 2, EventKind.TRIAGED, run=1),
        event(3, 2.5, EventKind.TRIAGE_POSTED, run=1),
    ]
    outcome: dict[str, object] = {}
    if ran:
        events += [
            event(4, 6, EventKind.ACTION_EXECUTED, proposal_id=11),
            event(5, 8, EventKind.ACTION_VERIFIED, proposal_id=11, verified=True),
        ]
        outcome = {"summary": "weights 50/50", "verified": True}
    events.append(event(6, 40, EventKind.RESOLVED))
    alert = Alert(
        id=1,
        fingerprint="f",
        status=AlertStatus.RESOLVED,
        alertname="TTFTBurn",
        labels={},
        annotations={},
        starts_at=at(0),
        ends_at=at(20),
        generator_url="",
        query=None,
        value=None,
        first_received_at=at(1),
        last_received_at=at(20),
        notifications=3,
    )
    proposal = ActionProposal(
        id=11,
        incident_id=7,
        run=1,
        position=0,
        action=ProposedAction(kind=ActionKind.REROUTE, target=ROUTE),
        status="done" if ran else "expired",
        decided_by="U0BOB" if ran else None,
        outcome=outcome,
    )
    return IncidentDetail(incident=incident(code, category), alerts=[alert], timeline=events), [proposal]


def test_a_right_triage_whose_action_ran_leaves_nothing_to_do() -> None:
    found, proposals = detail("ENG_KV_CACHE", Category.INFERENCE_ENGINE, ran=True)
    offer = Offer(
        runbook="runbooks/kv-cache-exhaustion.md", actions=[("reroute", "httproute/{route}", "always")]
    )
    pm = draft(found, [triage("ENG_KV_CACHE", [], [])], proposals, offer, now=at(41))
    assert (pm.tag.category_ok, pm.tag.code_ok) == (True, True)
    assert pm.findings == [] and pm.action_items == []
    clocks = {d.name: d.seconds for d in pm.durations}
    assert clocks == {"detect": 60, "triage": 90, "first action": 300, "mitigate": 1200, "resolve": 2400}
    assert "ran reroute httproute/llama-chat after U0BOB's approval (verified)" in pm.machine_did
    text = markdown(pm)
    assert "nothing found" in text and "| mitigate | alert started | alerts resolved | 20m00s |" in text
    assert scorecard([pm]).total.action_ok.right == 1


def test_each_gap_becomes_a_finding_and_an_action_item() -> None:
    found, proposals = detail("INF_NODE_NOT_READY", Category.INFRASTRUCTURE, ran=False)
    first = triage(
        "ENG_KV_CACHE", ["logs: Elasticsearch unreachable"], [{"count": 42, "signature": "NCCL WARN <*>"}]
    )
    pm = draft(found, [first], proposals, Offer(runbook=None), now=at(41))
    gaps = [f.gap for f in pm.findings]
    assert gaps == [Gap.SIGNAL, Gap.RULE, Gap.RULE, Gap.RUNBOOK]
    assert "Elasticsearch unreachable" in pm.findings[0].text
    assert "the final code is INF_NODE_NOT_READY" in pm.findings[1].text
    assert "42 error lines" in pm.findings[2].text and "NCCL WARN" in pm.findings[2].action_item
    assert "Write a runbook for INF_NODE_NOT_READY" in pm.findings[3].action_item
    assert (pm.tag.category_ok, pm.tag.code_ok) == (False, False)
    assert {d.name: d.seconds for d in pm.durations}["first action"] is None
    card = scorecard([pm])
    assert (
        card.total.offered_unused == 1
        and card.total.action_ok.of == 0
        and card.total.code_ok.text() == "0/1 (0%)"
    )


def test_an_offered_kind_no_run_proposed_is_named() -> None:
    found, proposals = detail("ENG_KV_CACHE", Category.INFERENCE_ENGINE, ran=False)
    offer = Offer(
        runbook="runbooks/kv-cache-exhaustion.md",
        actions=[
            ("reroute", "httproute/{route}", "always"),
            ("add_replica", "deployment/{deployment}", "always"),
        ],
    )
    pm = draft(found, [triage("ENG_KV_CACHE", [], [])], proposals, offer, now=at(41))
    texts = [f.text for f in pm.findings if f.gap is Gap.ACTION]
    assert any("offers add_replica deployment/{deployment}" in t for t in texts)
    assert any(t.startswith("no offered action was approved: reroute") for t in texts)
