"""Classify: from findings and symptoms to one category, code and layer, by the taxonomy's rules.

Order of reasoning (spec/taxonomy.md):
1. A rollout of the failing deployment that changed the model, with the symptoms starting at it, is
   the cause (model_config) — unless a fault it cannot have caused shows first (rollout_rule).
2. Routing imbalance, when the split explains the throttling (routing) and no infrastructure fault
   started before it.
3. Caller errors (BIZ) win when they dominate the error volume and no cause-grade fault started
   before them: an SLO burning on them is an operational incident.
4. The earliest-cause rule over cause-grade findings: the fault first on the timeline wins; near
   ties go to what a rule or signal said before the learned stage's guesses, then to the lower
   layer (infrastructure wins). A decisive line (an Xid, an NCCL failure)
   competes by its time, however small its share of the error volume.
5. Symptom rules when nothing specific was seen: timeouts split on the scope's GPU utilisation
   (> 90%: INF_GPU_OVERLOAD), then on whether the engine got slower (ENG_TIMEOUT) or only the
   gateway cut requests that were no slower than before (GW_TIMEOUT); status-code shortcuts; TTFT
   versus inter-token latency.

When another cause is plausible (a cause-grade finding of another code that started close to the
chosen one), the decision keeps it as the alternative, and the confidence says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.domain import Category
from bot.triage.findings import TIE, Finding, abnormal, kind, signal
from bot.triage.rollout_rule import failing_rollout, model_rollout
from bot.triage.routing import routing_imbalance
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy
from tools.result import Evidence, Source

RIVAL = timedelta(minutes=10)  # another cause this close to the chosen one is a plausible alternative
FAR_FUTURE = datetime.max.replace(tzinfo=UTC)
GENERIC_BIZ = "BIZ_PARAM_INVALID"
MODEL_RULE = "model rollout before symptoms"
# Timeouts that say where the time went only once the GPUs and the engine's latency are read.
TIMEOUT_CODES = {"ENG_TIMEOUT", "GW_TIMEOUT"}
# The codes these rules name themselves; the taxonomy must declare each (checked at load).
DECISION_CODES = frozenset(
    {
        GENERIC_BIZ,
        *TIMEOUT_CODES,
        "DEP_EXTERNAL_TIMEOUT",
        "INF_GPU_OVERLOAD",
        "ENG_KV_CACHE",
        "ENG_QUEUE_FULL",
    }
    | {"GW_RATE_LIMIT", "GW_ROUTING", "GW_UPSTREAM"}
    | {"MOD_CONFIG_MISMATCH", "MOD_LOAD_FAILED", "MOD_QUALITY_REGRESSION", "MOD_TOKENIZER"}
)


@dataclass
class Decision:
    """The classifier's answer and what it rests on."""

    code: str
    category: Category
    layer: str | None  # None when nothing was attributed
    cause: Finding | None
    findings: list[Finding]
    rollout: Evidence | None = None
    rule: str = ""
    reasons: list[str] = field(default_factory=list)
    alternative: Finding | None = None  # another plausible cause, with its own evidence


def decide(
    findings: list[Finding],
    evidence: list[Evidence],
    *,
    alert_start: datetime,
    taxonomy: Taxonomy,
    window_start: datetime | None = None,
    related: Collection[str] = (),
) -> Decision:
    """The cause, by the rules in the order of the module docstring (`related`: the other
    deployments of the incident's application, see IncidentScope)."""
    rollout = failing_rollout(evidence, findings, related)
    since = window_start or alert_start - timedelta(hours=1)

    def decided(cause: Finding, rule: str, reasons: list[str] | None = None) -> Decision:
        return Decision(
            code=cause.code,
            category=taxonomy.category_of(cause.code),
            layer=cause.layer,
            cause=cause,
            findings=findings,
            rollout=rollout,
            rule=rule,
            reasons=reasons or [],
            alternative=_alternative(cause, findings, taxonomy),
        )

    symptoms_start = _symptoms_start(evidence, alert_start)
    by_rollout = model_rollout(rollout, findings, symptoms_start, taxonomy, evidence=evidence)
    if by_rollout is not None:
        by_rollout.cause.code = by_rollout.code
        return decided(by_rollout.cause, MODEL_RULE, [by_rollout.why])
    causes = [f for f in findings if not f.symptom]
    imbalance = routing_imbalance(evidence, since)
    if imbalance is not None and not _infra_before(imbalance, causes, taxonomy):
        return decided(
            imbalance,
            "routing imbalance",
            [
                "the route's split puts the traffic on one backend, which throttles (429) while another has room"
            ],
        )
    biz = [f for f in findings if taxonomy.caller_error(f.code)]
    if biz and _biz_dominates(biz, findings, taxonomy) and not _cause_before(biz, causes, taxonomy):
        return decided(_most_specific_biz(biz), "SLO burning on caller errors")
    others = [f for f in findings if not taxonomy.caller_error(f.code) and f.code not in TIMEOUT_CODES]
    specific = [f for f in others if not f.symptom]
    if specific:
        return decided(earliest(specific, taxonomy), "earliest cause")
    symptom = _symptom_rule([f for f in findings if f.code in TIMEOUT_CODES], evidence, taxonomy)
    if symptom is not None:
        return decided(symptom, "symptom rule")
    if others:  # only unhealthy-says-not-why findings (probes, back-off): still the best there is
        return decided(earliest(others, taxonomy), "earliest symptom")
    return Decision(
        code=UNATTRIBUTED,
        category=_fallback_category(evidence, taxonomy),
        layer=None,
        cause=None,
        findings=findings,
        rollout=rollout,
        rule="nothing specific found",
    )


def _infra_before(finding: Finding, causes: list[Finding], taxonomy: Taxonomy) -> bool:
    """An infrastructure fault that started before (or with) `finding`: the earlier cause wins."""
    if finding.onset is None:
        return False
    return any(
        taxonomy.category_of(f.code) is Category.INFRASTRUCTURE and f.onset and f.onset <= finding.onset + TIE
        for f in causes
    )


def _cause_before(biz: list[Finding], causes: list[Finding], taxonomy: Taxonomy) -> bool:
    """A cause-grade fault (not the callers', not the gateway's echo of them) that began before the
    caller errors: a flood of 400s after a GPU OOM does not make the OOM the callers' fault."""
    first = min((f.onset for f in biz if f.onset), default=None)
    if first is None:
        return False
    return any(
        f.onset is not None
        and f.onset < first - TIE
        and not taxonomy.caller_error(f.code)
        and taxonomy.category_of(f.code) is not Category.OPERATIONAL
        and (f.code in taxonomy.decisive or f.strength >= 0.3)
        for f in causes
    )


def _alternative(cause: Finding, findings: list[Finding], taxonomy: Taxonomy) -> Finding | None:
    """The strongest other cause-grade finding of another category that started near the chosen
    cause: two faults at once are told as two, the primary first."""
    if cause.onset is None:
        return None
    chosen = taxonomy.category_of(cause.code)
    rivals = [
        f
        for f in findings
        if f.code != cause.code
        and not f.symptom
        and not taxonomy.caller_error(f.code)
        and f.code not in TIMEOUT_CODES
        and taxonomy.category_of(f.code) is not chosen
        and f.onset is not None
        and abs(f.onset - cause.onset) <= RIVAL
        and (f.strength >= 0.3 or f.code in taxonomy.decisive)
        and not (f.onset >= cause.onset and _same_place(f, cause))  # its consequence, not a rival
    ]
    return max(rivals, key=lambda f: f.strength, default=None)


def _same_place(a: Finding, b: Finding) -> bool:
    """Whether two findings name a pod in common (a crash on the pod whose GPU failed)."""
    return bool(a.targets.get("pod", set()) & b.targets.get("pod", set()))


def earliest(findings: list[Finding], taxonomy: Taxonomy) -> Finding:
    """The earliest-cause rule: first onset wins; within a tie window the lower layer, then strength."""
    # A rare decisive line competes by its time: a single Xid beats the flood of errors it causes.
    dated = sorted(
        (f for f in findings if f.onset is not None and (f.strength >= 0.1 or f.code in taxonomy.decisive)),
        key=_onset_key,
    ) or sorted((f for f in findings if f.onset is not None), key=_onset_key)
    if not dated:
        return max(findings, key=lambda f: (-taxonomy.rank(f.layer), f.strength))
    first = dated[0].onset
    assert first is not None
    contenders = [
        f
        for f in dated
        if f.onset is not None
        and f.onset - first <= TIE
        and (f.strength >= 0.1 or f.code in taxonomy.decisive)
    ]
    # A rule's word before the learned stage's guess, whatever their layers: a line the model reads
    # as a config mismatch does not outrank the engine's own "EngineCore encountered a fatal error".
    if contenders:
        return min(contenders, key=lambda f: (f.learned, taxonomy.rank(f.layer), -f.strength))
    # Only weak findings: the first on the timeline, a rule's before a guess in the same window.
    near = [f for f in dated if f.onset is not None and f.onset - first <= TIE]
    return min(near, key=lambda f: (f.learned, _onset_key(f)))


def _onset_key(item: Finding | Evidence) -> datetime:
    return item.onset or FAR_FUTURE


def _symptoms_start(evidence: list[Evidence], alert_start: datetime) -> datetime:
    """When things started going wrong: the alert expression's onset, or the alert's start."""
    fired = next((e for e in evidence if e.id == "prom:alert" and e.onset is not None), None)
    return min(alert_start, fired.onset) if fired and fired.onset else alert_start


def _biz_dominates(biz: list[Finding], findings: list[Finding], taxonomy: Taxonomy) -> bool:
    biz_share = sum(f.strength for f in biz)
    # Caller errors compete only with causes outside the operational layers (a gateway's own
    # errors are how caller errors often surface).
    other = [f for f in findings if taxonomy.category_of(f.code) is not Category.OPERATIONAL]
    other_share = max((f.strength for f in other), default=0.0)
    return biz_share >= 0.4 and other_share < biz_share / 2


def _most_specific_biz(biz: list[Finding]) -> Finding:
    """A bare "400 Bad Request" only says the caller erred (BIZ_PARAM_INVALID); the error lines that
    say why (input too long, auth) are the same requests told better, so they win when present."""
    strongest = max(f.strength for f in biz)
    specific = [f for f in biz if f.code != GENERIC_BIZ and f.strength >= strongest * 0.2]
    return max(specific or biz, key=lambda f: f.strength)


def _gpu_busy(evidence: list[Evidence]) -> bool | None:
    """Whether the scope's GPUs are saturated (above 90%): the median of its pods' cards (DCGM with
    pod mapping, Triton), else of its nodes' DCGM readings, else of the NVML readings of its GPUs that
    hold memory (an idle card of the node is not ours).
    None when nothing was read; one hot GPU of another tenant does not make a capacity incident."""
    gpu = signal(evidence, "gpu_utilization")
    # The cards the exporter maps to the incident's pods, when it does: a node's other cards may
    # be another tenant's.
    own = [e for e in gpu if e.labels.get("pod")]
    readings = [float(e.value) for e in own or gpu if isinstance(e.value, int | float)]
    if not readings:
        readings = [
            float(e.labels["utilization"])
            for e in evidence
            if e.source is Source.GPU
            and "utilization" in e.labels
            and float(e.labels.get("memory_used_ratio", "1")) > 0.1
        ]
    if not readings:
        return None
    return statistics.median(readings) > 90


ENGINE_LATENCY = ("e2e_p99", "ttft_p99", "itl_p99", "requests_waiting")


def _timeout_code(evidence: list[Evidence]) -> str:
    """Where a timeout's time went: saturated GPUs (capacity), a slower engine, or only the gateway
    cutting requests that take no longer than they did an hour before (its timeout)."""
    if _gpu_busy(evidence):
        return "INF_GPU_OVERLOAD"
    latency = [e for name in ENGINE_LATENCY for e in signal(evidence, name)]
    if latency and not any(e.labels.get("abnormal") == "true" for e in latency):
        return "GW_TIMEOUT"
    return "ENG_TIMEOUT"


def _symptom_rule(timeouts: list[Finding], evidence: list[Evidence], taxonomy: Taxonomy) -> Finding | None:
    codes = {
        e.labels.get("code") for e in signal(evidence, "status_codes") if e.labels.get("abnormal") == "true"
    }
    codes |= {
        e.labels.get("code") for e in kind(evidence, "status") if float(e.labels.get("share", "0")) > 0.01
    }
    timed_out = bool(timeouts) or bool(codes & {"408", "504"})
    if timed_out:
        base = (
            earliest(timeouts, taxonomy)
            if timeouts
            else _symptom_finding("ENG_TIMEOUT", evidence, ("408", "504"))
        )
        base.code = _timeout_code(evidence)
        return base
    if "503" in codes:
        return _symptom_finding("ENG_QUEUE_FULL", evidence, ("503",))
    if "429" in codes:
        return _symptom_finding("GW_RATE_LIMIT", evidence, ("429",))
    if codes & {"500", "502"}:
        return _symptom_finding("GW_UPSTREAM", evidence, ("500", "502"))
    itl = abnormal(evidence, "itl_p99")
    if itl:
        return _from_signal("ENG_KV_CACHE", itl)
    ttft = abnormal(evidence, "ttft_p99")
    if ttft:
        return _from_signal("ENG_QUEUE_FULL", ttft)
    return None


def _symptom_finding(code: str, evidence: list[Evidence], codes: tuple[str, ...]) -> Finding:
    items = [
        e
        for e in [*signal(evidence, "status_codes"), *kind(evidence, "status")]
        if e.labels.get("code") in codes
    ]
    onsets = [e.onset for e in items if e.onset is not None]
    return Finding(
        code=code,
        onset=min(onsets) if onsets else None,
        strength=0.4,
        evidence=[e.id for e in items],
        source=Source.PROMETHEUS,
        note=items[0].summary if items else f"HTTP {'/'.join(codes)}",
    )


def _from_signal(code: str, items: list[Evidence]) -> Finding:
    return Finding(
        code=code,
        onset=items[0].onset,
        strength=0.3,
        evidence=[e.id for e in items],
        source=Source.PROMETHEUS,
        note=items[0].summary,
    )


def _fallback_category(evidence: list[Evidence], taxonomy: Taxonomy) -> Category:
    """Nothing attributed: the category of the first abnormal reading's layer (operational if none)."""
    first = min(
        (
            e
            for e in evidence
            if e.labels.get("abnormal") == "true" and e.layer in taxonomy.layers and e.onset
        ),
        key=_onset_key,
        default=None,
    )
    return taxonomy.layers[first.layer].incident_category if first and first.layer else Category.OPERATIONAL
