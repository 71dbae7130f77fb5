"""The classifier's rules, each on the smallest evidence that exercises it (taxonomy.md §1-§5).

Built from real domain objects (Evidence, Finding), so each rule is shown to hold on its own,
whatever pack it later meets.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.triage.classify import decide, earliest
from bot.triage.findings import Finding
from bot.triage.taxonomy import default_taxonomy
from tools.result import Evidence, Source

TAXONOMY = default_taxonomy()
T0 = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
ALERT = T0 + timedelta(minutes=10)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def finding(code: str, minutes: float | None, strength: float = 0.5, **kw: object) -> Finding:
    return Finding(
        code=code,
        onset=None if minutes is None else at(minutes),
        strength=strength,
        evidence=[f"ev:{code}"],
        source=Source.ELASTICSEARCH,
        **kw,
    )  # type: ignore[arg-type]


def signal(
    name: str, value: float, *, onset: float | None = None, abnormal: bool = True, **labels: str
) -> Evidence:
    return Evidence(
        id=f"prom:{name}:{sorted(labels.items())}",
        source=Source.PROMETHEUS,
        query=name,
        summary=name,
        value=value,
        at=ALERT,
        onset=None if onset is None else at(onset),
        labels={"signal": name, "abnormal": str(abnormal).lower(), **labels},
    )


def rollout(minutes: float, changes: str) -> Evidence:
    return Evidence(
        id="k8s:rollout",
        source=Source.KUBERNETES,
        query="rs",
        summary="rollout",
        value=2,
        at=at(minutes),
        onset=at(minutes),
        labels={"kind": "rollout", "deployment": "vllm", "changes": changes},
    )


def test_earliest_cause_wins_over_the_loudest_symptom() -> None:
    """A bad node that surfaces as engine timeouts is infrastructure."""
    found = [finding("ENG_QUEUE_FULL", 5, strength=0.9), finding("INF_NODE_NOT_READY", 2, strength=0.3)]
    decision = decide(found, [], alert_start=ALERT, taxonomy=TAXONOMY)
    assert (decision.category, decision.code) == ("infrastructure", "INF_NODE_NOT_READY")


def test_infrastructure_wins_a_tie() -> None:
    """An OOM and an over-long input starting together: infrastructure."""
    assert (
        earliest([finding("ENG_KV_CACHE", 3.0), finding("INF_GPU_OOM", 3.5)], TAXONOMY).code == "INF_GPU_OOM"
    )
    assert (
        earliest([finding("ENG_KV_CACHE", 3.0), finding("INF_GPU_OOM", 8.0)], TAXONOMY).code == "ENG_KV_CACHE"
    )


def test_a_rule_wins_a_tie_against_the_learned_stages_guess() -> None:
    """The engine's own "EngineCore encountered a fatal error" (a rule) and, in the same second, a
    traceback line the learned stage reads as a config mismatch: the rule's code is the cause,
    though the guess's layer ranks lower. Had a rule said MOD too, the lower layer would win."""
    crash, guess = finding("ENG_CRASH", 3.0), finding("MOD_CONFIG_MISMATCH", 3.0, learned=True)
    assert earliest([guess, crash], TAXONOMY).code == "ENG_CRASH"
    assert earliest([finding("MOD_CONFIG_MISMATCH", 3.0), crash], TAXONOMY).code == "MOD_CONFIG_MISMATCH"
    # a guess clearly first on the timeline (beyond the tie window) still competes by its time
    assert earliest([finding("MOD_CONFIG_MISMATCH", 0.0, learned=True), crash], TAXONOMY).code == (
        "MOD_CONFIG_MISMATCH"
    )
    # weak findings only (a line or two each, as when one replica's engine dies): the same order
    weak = [finding("MOD_CONFIG_MISMATCH", 3.0, strength=0.01, learned=True), finding("ENG_CRASH", 3.5, 0.01)]
    assert earliest(weak, TAXONOMY).code == "ENG_CRASH"
    assert earliest([weak[0], finding("ENG_CRASH", 6.0, 0.01)], TAXONOMY).code == "MOD_CONFIG_MISMATCH"
    # the same code said by a rule and guessed by the model: no longer only a guess
    merged = finding("MOD_CONFIG_MISMATCH", 3.0, learned=True)
    merged.merge(finding("MOD_CONFIG_MISMATCH", 3.0))
    assert not merged.learned and earliest([merged, crash], TAXONOMY).code == "MOD_CONFIG_MISMATCH"


def test_timeouts_split_on_gpu_utilisation() -> None:
    busy = [signal("gpu_utilization", 97, node="n1")]
    idle = [signal("gpu_utilization", 55, abnormal=False, node="n1")]
    timeout = [finding("ENG_TIMEOUT", 3)]
    assert decide(timeout, busy, alert_start=ALERT, taxonomy=TAXONOMY).code == "INF_GPU_OVERLOAD"
    assert (
        decide([finding("ENG_TIMEOUT", 3)], idle, alert_start=ALERT, taxonomy=TAXONOMY).code == "ENG_TIMEOUT"
    )


def test_status_code_shortcuts_when_nothing_specific_is_seen() -> None:
    def codes(code: str) -> list[Evidence]:
        return [
            signal("status_codes", 3.0, onset=4, code=code),
            signal("gpu_utilization", 40, abnormal=False),
        ]

    assert decide([], codes("408"), alert_start=ALERT, taxonomy=TAXONOMY).code == "ENG_TIMEOUT"
    assert decide([], codes("503"), alert_start=ALERT, taxonomy=TAXONOMY).code == "ENG_QUEUE_FULL"
    assert decide([], codes("429"), alert_start=ALERT, taxonomy=TAXONOMY).code == "GW_RATE_LIMIT"
    assert decide([], codes("500"), alert_start=ALERT, taxonomy=TAXONOMY).category == "operational"


def test_inter_token_latency_points_at_decode_and_ttft_at_prefill() -> None:
    assert (
        decide([], [signal("itl_p99", 0.4, onset=3)], alert_start=ALERT, taxonomy=TAXONOMY).code
        == "ENG_KV_CACHE"
    )
    assert (
        decide([], [signal("ttft_p99", 9.0, onset=3)], alert_start=ALERT, taxonomy=TAXONOMY).code
        == "ENG_QUEUE_FULL"
    )


def test_a_model_rollout_before_the_symptoms_is_model_config() -> None:
    evidence = [rollout(1, "--model /models/a → /models/b"), signal("error_ratio_5xx", 0.3, onset=1.5)]
    decision = decide([finding("INF_CUDA_ERROR", 1.5)], evidence, alert_start=at(4), taxonomy=TAXONOMY)
    assert (decision.category, decision.code) == ("model_config", "MOD_CONFIG_MISMATCH")
    quant = decide([], [rollout(1, "--quantization fp8 added")], alert_start=at(5), taxonomy=TAXONOMY)
    assert quant.code == "MOD_QUALITY_REGRESSION"
    template = decide(
        [], [rollout(1, "--chat-template /t/a.jinja → /t/b.jinja")], alert_start=at(5), taxonomy=TAXONOMY
    )
    assert template.code == "MOD_TOKENIZER"


def test_an_engine_config_rollout_keeps_the_failure_code() -> None:
    """--max-num-seqs is engine configuration: the OOM it causes stays INF_GPU_OOM (its fix is the rollback)."""
    decision = decide(
        [finding("INF_GPU_OOM", 2)],
        [rollout(1, "--max-num-seqs 128 → 512")],
        alert_start=at(4),
        taxonomy=TAXONOMY,
    )
    assert decision.code == "INF_GPU_OOM" and decision.rollout is not None


def test_infrastructure_before_a_model_rollout_wins() -> None:
    evidence = [rollout(5, "--model /models/a → /models/b")]
    decision = decide([finding("INF_GPU_XID", 1)], evidence, alert_start=at(6), taxonomy=TAXONOMY)
    assert decision.code == "INF_GPU_XID"


def test_caller_errors_only_win_when_they_dominate() -> None:
    biz = [finding("BIZ_INPUT_TOO_LONG", 2, strength=0.4), finding("BIZ_PARAM_INVALID", 2, strength=0.6)]
    decision = decide(biz, [], alert_start=ALERT, taxonomy=TAXONOMY)
    assert (decision.category, decision.code) == ("operational", "BIZ_INPUT_TOO_LONG")  # the specific one
    mixed = decide(
        [*biz, finding("DEP_VECTOR_DB", 3, strength=0.7)], [], alert_start=ALERT, taxonomy=TAXONOMY
    )
    assert mixed.code == "DEP_VECTOR_DB"


def test_symptom_reasons_never_name_the_cause_alone() -> None:
    probe = finding("ENG_CRASH", 0, strength=0.3, symptom=True)
    decision = decide([probe, finding("DEP_STORAGE", 4)], [], alert_start=ALERT, taxonomy=TAXONOMY)
    assert decision.code == "DEP_STORAGE"
    alone = decide([finding("ENG_CRASH", 0, symptom=True)], [], alert_start=ALERT, taxonomy=TAXONOMY)
    assert alone.code == "ENG_CRASH"  # with nothing better, the symptom is still reported


def test_routing_imbalance_from_429s_after_the_route_was_reweighted() -> None:
    route = Evidence(
        id="k8s:route",
        source=Source.KUBERNETES,
        query="route",
        summary="route",
        value=0.9,
        labels={
            "kind": "route",
            "route": "chat",
            "backends": "a=90,b=10",
            "changed_at": "2026-06-01T10:02:30Z",
        },
    )
    evidence = [route, signal("status_codes", 2.0, onset=3, code="429", hour_before="0")]
    decision = decide(
        [finding("ENG_QUEUE_FULL", 4)], evidence, alert_start=ALERT, taxonomy=TAXONOMY, window_start=T0
    )
    assert (decision.category, decision.code) == ("operational", "GW_ROUTING")
    assert decision.cause is not None and decision.cause.targets["route"] == {"chat"}


def test_nothing_attributed_is_said_plainly() -> None:
    decision = decide([], [], alert_start=ALERT, taxonomy=TAXONOMY)
    assert decision.code == "UNATTRIBUTED" and decision.layer is None and decision.cause is None
