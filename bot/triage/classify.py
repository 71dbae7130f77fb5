"""Classify: from findings and symptoms to one category, code and layer, by the taxonomy's rules.

Order of reasoning (spec/taxonomy.md):
1. A rollout that changed the model artifact and preceded the symptoms is the cause (model_config):
   5xx from the rollout minute, or silent quality loss.
2. Routing imbalance: errors or queueing on one backend while its peers idle (operational).
3. The earliest-cause rule over cause-grade findings: the fault first on the timeline wins; near
   ties go to the lower layer (infrastructure wins).
4. Caller errors (BIZ) only win when they dominate the error volume: an SLO burning on them is an
   operational incident.
5. Symptom rules when nothing specific was seen: timeouts split on GPU utilisation (> 90%:
   INF_GPU_OVERLOAD, else ENG_TIMEOUT), status-code shortcuts, TTFT vs inter-token latency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.domain import Category
from bot.triage.findings import Finding, abnormal, kind, signal
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy
from tools.result import Evidence, Source

TIE = timedelta(minutes=2)
FAR_FUTURE = datetime.max.replace(tzinfo=UTC)
ROLLOUT_LEAD = timedelta(minutes=30)
MODEL_FLAGS = re.compile(
    r"--(model|served-model-name|revision|tokenizer|tokenizer-revision|chat-template|"
    r"quantization|dtype|kv-cache-dtype|load-format|model-id|model-repository|"
    r"hf-overrides)\b|\b(MODEL|MODEL_ID|MODEL_PATH|CHECKPOINT|HF_MODEL|TOKENIZER)\b",
    re.I,
)
QUANT_FLAGS = re.compile(r"--(quantization|dtype|kv-cache-dtype)\b|\b(QUANTIZE|QUANTIZATION|DTYPE)\b", re.I)
TOKENIZER_FLAGS = re.compile(
    r"--(tokenizer|chat-template|tokenizer-revision)\b|\b(TOKENIZER|CHAT_TEMPLATE)\b", re.I
)
GENERIC_BIZ = "BIZ_PARAM_INVALID"
TIMEOUT_CODES = {"ENG_TIMEOUT", "GW_TIMEOUT", "DEP_EXTERNAL_TIMEOUT"}
# The codes these rules name themselves; the taxonomy must declare each (checked at load).
DECISION_CODES = frozenset(
    {GENERIC_BIZ, *TIMEOUT_CODES, "INF_GPU_OVERLOAD", "ENG_KV_CACHE", "ENG_QUEUE_FULL"}
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


def decide(
    findings: list[Finding], evidence: list[Evidence], *, alert_start: datetime, taxonomy: Taxonomy
) -> Decision:
    """The cause, by the rules in the order of the module docstring."""
    rollout = _rollout(evidence)

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
        )

    symptoms_start = _symptoms_start(evidence, alert_start)
    model_rollout = _model_rollout(rollout, findings, symptoms_start, taxonomy)
    if model_rollout is not None:
        return model_rollout
    imbalance = _routing_imbalance(evidence)
    if imbalance is not None:
        return decided(
            imbalance,
            "routing imbalance (429 shortcut)",
            [
                "routing imbalance: traffic is skewed onto one backend, which throttles (429) or queues "
                "while its peers have room"
            ],
        )
    biz = [f for f in findings if taxonomy.caller_error(f.code)]
    if biz and _biz_dominates(biz, findings, taxonomy):
        return decided(_most_specific_biz(biz), "SLO burning on caller errors")
    others = [f for f in findings if not taxonomy.caller_error(f.code) and f.code not in TIMEOUT_CODES]
    specific = [f for f in others if not f.symptom] or others
    if specific:
        return decided(_timeout_split(earliest(specific, taxonomy), evidence), "earliest cause")
    symptom = _symptom_rule([f for f in findings if f.code in TIMEOUT_CODES], evidence, taxonomy)
    if symptom is not None:
        return decided(symptom, "symptom rule")
    return Decision(
        code=UNATTRIBUTED,
        category=_fallback_category(evidence, taxonomy),
        layer=None,
        cause=None,
        findings=findings,
        rollout=rollout,
        rule="nothing specific found",
    )


def earliest(findings: list[Finding], taxonomy: Taxonomy) -> Finding:
    """The earliest-cause rule: first onset wins; within a tie window the lower layer, then strength."""
    dated = sorted((f for f in findings if f.onset is not None), key=_onset_key)
    if not dated:
        return max(findings, key=lambda f: (-taxonomy.rank(f.layer), f.strength))
    first = dated[0].onset
    assert first is not None
    contenders = [f for f in dated if f.onset is not None and f.onset - first <= TIE and f.strength >= 0.1]
    contenders = contenders or dated[:1]
    return min(contenders, key=lambda f: (taxonomy.rank(f.layer), -f.strength))


def _onset_key(item: Finding | Evidence) -> datetime:
    return item.onset or FAR_FUTURE


def _rollout(evidence: list[Evidence]) -> Evidence | None:
    rollouts = sorted((e for e in kind(evidence, "rollout") if e.onset), key=_onset_key)
    return rollouts[-1] if rollouts else None


def _symptoms_start(evidence: list[Evidence], alert_start: datetime) -> datetime:
    """When things started going wrong: the alert expression's onset, or the alert's start."""
    fired = next((e for e in evidence if e.id == "prom:alert" and e.onset is not None), None)
    return min(alert_start, fired.onset) if fired and fired.onset else alert_start


def _model_rollout(
    rollout: Evidence | None, findings: list[Finding], symptoms_start: datetime, taxonomy: Taxonomy
) -> Decision | None:
    """A rollout that touched the model artifact right before the symptoms is the earliest cause."""
    if rollout is None or rollout.onset is None:
        return None
    changes = rollout.labels.get("changes", "")
    touched_model = bool(MODEL_FLAGS.search(changes))
    mod_findings = [f for f in findings if taxonomy.category_of(f.code) is Category.MODEL_CONFIG]
    if not touched_model and not mod_findings:
        return None
    if not (rollout.onset - timedelta(minutes=1) <= symptoms_start <= rollout.onset + ROLLOUT_LEAD):
        return None
    earlier_infra = [
        f
        for f in findings
        if taxonomy.category_of(f.code) is Category.INFRASTRUCTURE and f.onset and f.onset < rollout.onset
    ]
    if earlier_infra:
        return None
    if QUANT_FLAGS.search(changes) or any(f.code == "MOD_QUALITY_REGRESSION" for f in mod_findings):
        code, why = "MOD_QUALITY_REGRESSION", "precision or quantization changed by the rollout"
    elif TOKENIZER_FLAGS.search(changes) or any(f.code == "MOD_TOKENIZER" for f in mod_findings):
        code, why = "MOD_TOKENIZER", "tokenizer or chat template changed by the rollout"
    elif mod_findings:
        code = earliest(mod_findings, taxonomy).code
        why = "model-layer errors right after the rollout"
    elif any(f.code == "MOD_LOAD_FAILED" for f in findings):
        code, why = "MOD_LOAD_FAILED", "the new model failed to load"
    else:
        code, why = "MOD_CONFIG_MISMATCH", "the rollout changed the model artifact and errors began with it"
    cause = next((f for f in mod_findings if f.code == code), None)
    if cause is None:
        cause = Finding(
            code=code,
            onset=rollout.onset,
            strength=0.7,
            evidence=[rollout.id],
            source=Source.KUBERNETES,
            note=rollout.summary,
        )
    elif rollout.id not in cause.evidence:
        cause.evidence.insert(0, rollout.id)
    cause.add_target("deployment", rollout.labels.get("deployment", ""))
    return Decision(
        code=code,
        category=taxonomy.category_of(code),
        layer=cause.layer,
        cause=cause,
        findings=findings,
        rollout=rollout,
        rule="model rollout before symptoms",
        reasons=[why],
    )


def _routing_imbalance(evidence: list[Evidence]) -> Finding | None:
    """429s (or errors) from one backend of a route while its peers are clean, or skewed weights."""
    by_backend = [
        e
        for e in signal(evidence, "status_by_backend")
        if e.labels.get("envoy_response_code") == "429"
        and isinstance(e.value, int | float)
        and e.value > 0.05
    ]
    routes = kind(evidence, "route")
    skewed = [
        r
        for r in routes
        if r.labels.get("backends", "").count("=") >= 2
        and isinstance(r.value, int | float)
        and r.value >= 0.75
    ]
    throttled = [
        e
        for e in signal(evidence, "status_codes")
        if e.labels.get("code") == "429" and e.labels.get("abnormal") == "true"
    ]
    log_429 = [
        e
        for e in kind(evidence, "status")
        if e.labels.get("code") == "429" and float(e.labels.get("share", "0")) > 0.02
    ]
    hot_pods = _one_hot_pod(evidence)
    if not (throttled or log_429 or by_backend):
        return None
    if not (skewed or hot_pods or (len({e.labels.get("backend") for e in by_backend}) == 1 and by_backend)):
        return None
    items = [*skewed, *throttled, *log_429, *by_backend]
    onsets = [e.onset for e in items if e.onset is not None]
    finding = Finding(
        code="GW_ROUTING",
        onset=min(onsets) if onsets else None,
        strength=0.7,
        evidence=[e.id for e in items],
        source=Source.PROMETHEUS,
        note=(skewed[0].summary if skewed else items[0].summary),
    )
    for route in skewed or routes[:1]:
        finding.add_target("route", route.labels.get("route", ""))
    return finding


def _one_hot_pod(evidence: list[Evidence]) -> bool:
    waiting = signal(evidence, "requests_waiting")
    hot = [e for e in waiting if e.labels.get("abnormal") == "true"]
    return len(waiting) >= 2 and len(hot) == 1


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
    """GPU utilisation above 90% on the scope's nodes (DCGM or NVML); None when unknown."""
    readings = [
        float(e.value) for e in signal(evidence, "gpu_utilization") if isinstance(e.value, int | float)
    ]
    readings += [
        float(e.labels["utilization"])
        for e in evidence
        if e.source is Source.GPU and "utilization" in e.labels
    ]
    if not readings:
        return None
    return max(readings) > 90


def _timeout_split(cause: Finding, evidence: list[Evidence]) -> Finding:
    if cause.code not in TIMEOUT_CODES:
        return cause
    if _gpu_busy(evidence):
        cause.code = "INF_GPU_OVERLOAD"
    return cause


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
        base.code = "INF_GPU_OVERLOAD" if _gpu_busy(evidence) else "ENG_TIMEOUT"
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
