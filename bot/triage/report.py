"""Report: the triage result a responder reads in a minute — hypothesis, confidence, evidence,
blast radius, the onset timeline across layers, gaps, and the proposed first moves.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.domain import Alternative, Category, IncidentSummary, ProposedAction, TimelineEntry, TriageResult
from bot.triage.citing import diverse, folded, noteworthy
from bot.triage.classify import Decision
from bot.triage.findings import Finding
from bot.triage.gather import Gathered
from bot.triage.request import TriageRequest
from bot.triage.runbooks import Runbook
from tools.result import Evidence, Source

MAX_EVIDENCE = 15


def incident_summary(request: TriageRequest, gathered: Gathered) -> IncidentSummary:
    """The incident's own values (as intake and the configuration set them), then the scope's."""
    incident = request.incident
    return IncidentSummary(
        service=incident.service or gathered.scope.service,
        model=incident.model or gathered.scope.model,
        namespace=incident.namespace
        or (None if gathered.scope.namespace_assumed else gathered.scope.namespace),
        started_at=request.started_at,
        severity=incident.severity.value,
    )


def timeline(evidence: list[Evidence]) -> list[TimelineEntry]:
    """Every onset the tools saw, oldest first: the material of the earliest-cause rule."""
    entries = [
        TimelineEntry(at=e.onset, layer=e.layer, what=e.summary[:200], evidence=e.id)
        for e in evidence
        if e.onset is not None
        and e.labels.get("abnormal", "true") == "true"
        and not (e.labels.get("kind") == "status" and e.labels.get("code", "").startswith(("1", "2", "3")))
    ]
    return sorted(entries, key=lambda t: t.at)[:40]


def confidence(decision: Decision, gathered: Gathered) -> float:
    """Corroboration raises it, gaps and a bare symptom rule lower it."""
    if decision.cause is None:
        return 0.2
    sources = {_source(eid, gathered.evidence) for eid in decision.cause.evidence}
    agreeing = [f for f in decision.findings if f.code == decision.code]
    sources |= {f.source for f in agreeing}
    score = 0.45 + 0.12 * (len(sources) - 1) + min(decision.cause.strength, 1.0) * 0.2
    if decision.rule == "symptom rule":
        score -= 0.15
    if decision.alternative is not None:  # two plausible causes: say the doubt
        score -= 0.15
    if gathered.scope.unresolved:  # the evidence could not be tied to the incident's own pods
        score -= 0.15
    if decision.rule == "earliest cause":
        rivals = [
            f
            for f in decision.findings
            if f.code != decision.code
            and f.onset
            and decision.cause.onset
            and abs((f.onset - decision.cause.onset).total_seconds()) < 120
        ]
        score -= 0.05 * len(rivals)
    score -= 0.05 * len(gathered.gaps)
    return round(max(0.1, min(0.95, score)), 2)


def _source(evidence_id: str, evidence: list[Evidence]) -> Source | None:
    return next((e.source for e in evidence if e.id == evidence_id), None)


def hypothesis(decision: Decision, meaning: Callable[[str], str]) -> str:
    cause = decision.cause
    if cause is None:
        return (
            "No specific fault stands out in the evidence: the symptoms are visible but nothing attributes "
            "them yet; see the timeline and the gaps."
        )
    when = f" since {cause.onset:%H:%M:%S}Z" if cause.onset else ""
    where = _where(cause)
    text = f"{meaning(decision.code)}{where}{when}"
    reasons = "; ".join(decision.reasons)
    if reasons:
        text += f" — {reasons}"
    text += "."
    if decision.rollout is not None and decision.rollout.onset is not None:
        text += f" A rollout preceded it: {decision.rollout.summary}."
    if cause.note and cause.note not in text:
        text += f" First sign: {cause.note[:220]}"
    other = decision.alternative
    if other is not None:
        text += f" Also plausible: {meaning(other.code)}{_where(other)}."
    return text


def alternatives(
    decision: Decision, meaning: Callable[[str], str], category: Callable[[str], Category]
) -> list[Alternative]:
    other = decision.alternative
    if other is None:
        return []
    when = f" since {other.onset:%H:%M:%S}Z" if other.onset else ""
    text = f"{meaning(other.code)}{_where(other)}{when}."
    if other.note:
        text += f" First sign: {other.note[:200]}"
    return [
        Alternative(
            code=other.code, category=category(other.code), hypothesis=text, evidence=other.evidence[:5]
        )
    ]


def _where(cause: Finding) -> str:
    parts = []
    for kind in ("node", "pod", "deployment", "route"):
        names = sorted(cause.targets.get(kind, set()))
        if names:
            parts.append(f"{kind} {', '.join(names[:3])}{'…' if len(names) > 3 else ''}")
    return f" on {'; '.join(parts)}" if parts else ""


def blast_radius(decision: Decision, gathered: Gathered) -> str:
    scope = gathered.scope
    cause = decision.cause
    bad_pods = sorted(cause.targets.get("pod", set()) & set(scope.pods)) if cause else []
    bad_nodes = sorted(cause.targets.get("node", set())) if cause else []
    parts = []
    if scope.routes:
        parts.append(
            f"endpoint{'s' if len(scope.routes) > 1 else ''} {', '.join('httproute/' + r for r in scope.routes)}"
        )
    if scope.pods:
        affected = len(bad_pods) if bad_pods else len(scope.pods)
        parts.append(
            f"{affected} of {len(scope.pods)} replicas of {', '.join(scope.deployments) or 'the service'}"
        )
    if bad_nodes:
        parts.append(f"node{'s' if len(bad_nodes) > 1 else ''} {', '.join(bad_nodes)}")
    elif scope.nodes:
        parts.append(f"{len(scope.nodes)} node{'s' if len(scope.nodes) > 1 else ''}")
    share = _error_share(gathered.evidence)
    if share is not None:
        at = f"{gathered.window.as_of:%H:%M}Z"
        parts.append(f"{share:.1%} of requests failing (5xx) at {at}" if share else f"no 5xx at {at}")
    return "; ".join(parts) or "unknown (no topology)"


def _error_share(evidence: list[Evidence]) -> float | None:
    ratios = [
        float(e.value)
        for e in evidence
        if e.labels.get("signal") == "error_ratio_5xx" and isinstance(e.value, int | float)
    ]
    return max(ratios) if ratios else None


def cited_evidence(decision: Decision, gathered: Gathered) -> list[Evidence]:
    """The evidence the decision rests on first (and its alternative's), then the other abnormal
    readings; redundant series folded, every backend that saw something abnormal heard."""
    by_id = {e.id: e for e in gathered.evidence}
    ordered: list[Evidence] = []
    if decision.cause is not None:
        ordered.extend(by_id[i] for i in decision.cause.evidence if i in by_id)
    if decision.rollout is not None:
        ordered.append(decision.rollout)
    if decision.alternative is not None:
        ordered.extend(by_id[i] for i in decision.alternative.evidence[:3] if i in by_id)
    for finding in decision.findings:
        ordered.extend(by_id[i] for i in finding.evidence if i in by_id)
    ordered.extend(e for e in gathered.evidence if e.id == "prom:alert")
    ordered.extend(e for e in gathered.evidence if noteworthy(e))
    unique = list({e.id: e for e in ordered}.values())
    return diverse(folded(unique), MAX_EVIDENCE)


def _scope(decision: Decision, gathered: Gathered) -> dict[str, object]:
    """The scope as stored; a related deployment the decision names as the cause (the model server
    whose rollout broke the API that alerted) becomes one of the incident's, so that its rollback
    passes the executors' scope check."""
    scope = gathered.scope.public()
    named = decision.cause.targets.get("deployment", set()) if decision.cause else set()
    promoted = [d for d in gathered.scope.related if d in named]
    if promoted:
        scope["deployments"] = sorted({*gathered.scope.deployments, *promoted})
        scope["related"] = [d for d in gathered.scope.related if d not in promoted]
    return scope


def build(
    request: TriageRequest,
    gathered: Gathered,
    decision: Decision,
    book: Runbook | None,
    actions: list[ProposedAction],
    *,
    meaning: Callable[[str], str],
    confidence_value: float,
    category: Callable[[str], Category],
) -> TriageResult:
    return TriageResult(
        incident=incident_summary(request, gathered),
        category=decision.category,
        code=decision.code,
        layer=decision.layer,
        hypothesis=hypothesis(decision, meaning),
        confidence=confidence_value,
        evidence=[e.public() for e in cited_evidence(decision, gathered)],
        blast_radius=blast_radius(decision, gathered),
        actions=actions,
        runbook=book.relative() if book else None,
        engine="rules",
        timings_ms=dict(gathered.timings_ms),
        gaps=[str(g) for g in gathered.gaps],
        timeline=timeline(gathered.evidence),
        scope=_scope(decision, gathered),
        notes=[f"rule: {decision.rule}", *gathered.scope.notes],
        as_of=gathered.window.as_of,
        onset=decision.cause.onset if decision.cause else None,
        alternatives=alternatives(decision, meaning, category),
    )
