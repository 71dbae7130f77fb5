"""The catalog's engine, GPU and gateway families against a real Prometheus holding their series."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from bot.sandbox.prometheus import PrometheusRunner
from bot.sandbox.server import free_port
from tests.tools.fixtures.families import ALERT, AS_OF, NS, XID_AT, build
from tools.prom_probe import BuildInfo, build_info, probe_families
from tools.prometheus import PrometheusTool, connect
from tools.result import Evidence, Gap, Status, ToolResult, Window
from tools.signals import Scope, load_catalog

WINDOW = Window.around(ALERT, AS_OF)
SCOPE = Scope(namespace=NS, nodes=["gpu-old", "gpu-new", "gpu-mid"])


@pytest.fixture(scope="module")
def prom_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    metrics = build().write(tmp_path_factory.mktemp("families") / "metrics.om")
    with PrometheusRunner(metrics) as prom:
        yield prom.url


@pytest.fixture(scope="module")
def prom(prom_url: str) -> PrometheusTool:
    return PrometheusTool(connect(prom_url), load_catalog(), link_base="http://prometheus.example:9090")


def read(prom: PrometheusTool, name: str, scope: Scope = SCOPE) -> list[Evidence]:
    result = prom.read_signal(name, scope, WINDOW)
    assert result.status is not Status.ERROR, result.gap
    return result.evidence


def by_engine(items: list[Evidence], engine: str) -> list[Evidence]:
    return [e for e in items if e.labels["engine"] == engine]


def test_sglang_preemptions_read_the_counter_not_the_gauge(prom: PrometheusTool) -> None:
    items = {e.labels["pod"]: e for e in by_engine(read(prom, "preemptions"), "sglang")}
    # The gauge of sglang-a flickers 0/5 every minute: rate() on it would read ~0.1/s.
    assert items["sglang-a-1"].value == 0 and items["sglang-a-1"].labels["abnormal"] == "false"
    assert items["sglang-b-1"].value == pytest.approx(0.2)
    assert items["sglang-b-1"].onset is not None and ALERT <= items["sglang-b-1"].onset <= ALERT + timedelta(
        minutes=3
    )
    assert "sglang:num_retracted_requests_total" in items["sglang-b-1"].query


def test_dcgm_reads_both_spellings_of_the_node_label(prom: PrometheusTool) -> None:
    found = by_engine(read(prom, "gpu_utilization"), "dcgm")
    items = {e.labels["node"]: e for e in found}
    assert len(found) == 3 and set(items) == {"gpu-old", "gpu-new", "gpu-mid"}  # Hostname; hostname (#655)
    assert items["gpu-old"].value == 40 and items["gpu-new"].value == 97
    # Upgraded at 12:45: one series across the rename, reading the old label before and the new after.
    assert items["gpu-mid"].value == 70 and items["gpu-mid"].labels["hour_before"] == "60"
    assert items["gpu-new"].labels["abnormal"] == "true" and items["gpu-old"].labels["abnormal"] == "false"


def test_an_old_xid_is_not_current_a_new_one_is_with_its_onset(prom: PrometheusTool) -> None:
    items = {e.labels["node"]: e for e in by_engine(read(prom, "xid_errors"), "dcgm")}
    stale, fresh = items["gpu-old"], items["gpu-new"]
    assert stale.value == 0 and stale.labels["abnormal"] == "false" and stale.onset is None
    assert fresh.value == 48 and fresh.labels["abnormal"] == "true" and fresh.labels["gpu"] == "1"
    assert fresh.onset == XID_AT  # the step that first saw the change


def test_tgi_failure_ratio_counts_only_server_side_errors(prom: PrometheusTool) -> None:
    [ratio] = by_engine(read(prom, "error_ratio_5xx"), "tgi")
    # 3.05 failures/s of 10 requests/s, but only `generation` (0.05/s) is the server's own.
    assert ratio.value == pytest.approx(0.005)
    assert ratio.labels["abnormal"] == "false"
    [rejected] = by_engine(read(prom, "engine_rejected"), "tgi")
    assert rejected.value == pytest.approx(1.0) and rejected.labels["pod"] == "tgi-1"


def test_vllm_old_and_new_names_give_one_evidence_per_pod(prom: PrometheusTool) -> None:
    items = by_engine(read(prom, "kv_cache_usage"), "vllm")
    assert sorted(e.labels["pod"] for e in items) == ["vllm-a-1", "vllm-b-1"]
    values = {e.labels["pod"]: e.value for e in items}
    assert values == {"vllm-a-1": 0.6, "vllm-b-1": 0.97}  # the new name wins where both exist


@pytest.mark.parametrize(
    ("engine", "ratio"),
    [("istio", 2 / 12), ("ingress-nginx", 2 / 12), ("contour", 2 / 12), ("kserve", 2 / 12)],
)
def test_gateway_families_error_ratio(prom: PrometheusTool, engine: str, ratio: float) -> None:
    [item] = by_engine(read(prom, "error_ratio_5xx"), engine)
    assert item.value == pytest.approx(ratio, abs=1e-6) and item.layer == "GW"  # values keep 6 places
    assert item.labels["abnormal"] == "true"
    assert item.onset is not None and ALERT <= item.onset <= ALERT + timedelta(minutes=3)


@pytest.mark.parametrize("engine", ["istio", "ingress-nginx", "kserve"])
def test_gateway_families_latency(prom: PrometheusTool, engine: str) -> None:
    [item] = by_engine(read(prom, "gateway_latency_p99"), engine)
    # All requests within 100 ms before 13:00, within 1 s after: p99 interpolates to 0.99 s.
    assert item.value == pytest.approx(0.99, rel=0.01)
    assert float(item.labels["hour_before"]) == pytest.approx(0.099, rel=0.01)
    assert item.labels["abnormal"] == "true" and item.onset is not None


def test_gateway_backends_and_codes(prom: PrometheusTool) -> None:
    backends = {(e.labels["engine"], e.labels["backend"]) for e in read(prom, "requests_by_backend")}
    assert {
        ("contour", "api"),
        ("istio", "chat"),
        ("ingress-nginx", "web"),
        ("kserve", "predictor"),
    } <= backends
    codes = {(e.labels["engine"], e.labels["code"]) for e in read(prom, "status_codes")}
    assert {("istio", "503"), ("ingress-nginx", "502"), ("contour", "503"), ("kserve", "500")} <= codes


def gaps(results: list[ToolResult]) -> list[Gap]:
    return [r.gap for r in results if r.gap is not None]


def test_an_engine_that_runs_the_pods_but_has_no_series_is_a_gap(prom: PrometheusTool) -> None:
    names = ["kv_cache_usage", "requests_waiting", "e2e_p99"]
    triton = Scope(namespace=NS, images=["nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3"])
    [gap] = gaps(prom.read_signals(names, triton, WINDOW))
    assert gap.what == "triton metrics"
    assert gap.reason.startswith("no series for this family in the scope")
    assert "no triton series in Prometheus at all" in gap.reason and "8002" in gap.reason

    elsewhere = Scope(namespace="other", images=["vllm/vllm-openai:v0.10.1"])
    [gap] = gaps(prom.read_signals(names, elsewhere, WINDOW))
    assert "vllm series exist, but none with namespace='other'" in gap.reason

    wrong_pods = Scope(namespace=NS, pods=["sglang-z-9"], images=["lmsysorg/sglang:v0.5.2"])
    [gap] = gaps(prom.read_signals(["preemptions"], wrong_pods, WINDOW))
    assert "sglang series exist in namespace fam, but none for the incident's pods" in gap.reason


def test_engines_that_answer_or_run_nothing_in_scope_give_no_gap(prom: PrometheusTool) -> None:
    names = ["kv_cache_usage", "requests_waiting"]
    serving = Scope(namespace=NS, images=["vllm/vllm-openai:v0.10.1"])
    assert gaps(prom.read_signals(names, serving, WINDOW)) == []
    # TGI has no kv_cache_usage series anywhere, but no pod of the scope runs TGI: no noise.
    unrelated = Scope(namespace=NS, images=["registry.example/app/api:1.2"])
    assert gaps(prom.read_signals(names, unrelated, WINDOW)) == []


def test_probe_families_counts_each_family(prom_url: str) -> None:
    found = {p.family: p for p in probe_families(connect(prom_url), load_catalog(), timeout=5, at=AS_OF)}
    assert found["vllm"].kind == "engine" and found["vllm"].series == 4
    assert found["vllm"].example == "vllm:gpu_cache_usage_perc"  # its most numerous metric
    assert found["dcgm"].kind == "gpu" and found["dcgm"].series == 5  # gpu-mid's old series is stale by now
    assert found["sglang"].series == 4 and found["tgi"].series == 4
    assert (found["istio"].kind, found["istio"].series) == ("gateway", 2)
    assert found["contour"].series == 2 and found["envoy-gateway"].series == 0
    assert found["kserve"].series == 2 and found["ingress-nginx"].series == 2
    assert found["triton"].series == 0 and found["triton"].example is None
    assert {p.kind for p in found.values()} == {"engine", "gpu", "gateway"}  # no cluster or app families


def test_probe_families_and_build_info_never_raise() -> None:
    down = connect(f"http://127.0.0.1:{free_port()}", timeout=2)
    found = probe_families(down, load_catalog(), timeout=2)
    assert found and all(p.series == -1 and p.error == "connection refused" for p in found)
    assert build_info(down, timeout=2) == Gap(
        source="prometheus", what="build info", reason="connection refused"
    )


def test_build_info_through_the_client(prom_url: str) -> None:
    info = build_info(connect(prom_url), timeout=5)
    assert isinstance(info, BuildInfo)
    major, minor = (int(part) for part in info.version.split(".")[:2])
    assert (major, minor) >= (2, 0) and info.go_version is not None and info.go_version.startswith("go")
