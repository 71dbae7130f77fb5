"""Every catalog query against a real Prometheus loaded from the example pack."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from bot.sandbox.pack import Pack
from tests.tools.conftest import EXAMPLE
from tools.prometheus import PrometheusTool, connect
from tools.result import Source, Status, Window
from tools.signals import Scope, load_catalog

AS_OF = datetime(2026, 6, 16, 19, 5, tzinfo=UTC)
POD = "vllm-llama31-8b-support-wjlzdcvg4h-gn466"
KV = "vllm:gpu_cache_usage_perc"  # vLLM before 0.10 names it so; the catalog reads both names


def sample(metric: str, pod: str, at: datetime) -> float | None:
    """The pack's own sample of the series at `at`, if it recorded one."""
    pattern = re.compile(rf'^{re.escape(metric)}\{{[^}}]*pod="{pod}"[^}}]*\}} (\S+) {int(at.timestamp())}$')
    for line in (EXAMPLE / "metrics.om").read_text().splitlines():
        if m := pattern.match(line):
            return float(m.group(1))
    return None


def recorded(metric: str, pod: str, at: datetime) -> float:
    found = sample(metric, pod, at)
    assert found is not None, f"{metric} {pod} {at} not in the pack"
    return found


def tool(url: str) -> PrometheusTool:
    return PrometheusTool(connect(url), load_catalog(), link_base="http://prometheus.example:9090")


def scope() -> Scope:
    return Scope(
        namespace="support-bot",
        route="support-chat",
        pod_patterns=["vllm-llama31-8b-support-.+"],
        nodes=[f"aks-gpua100-28391047-vmss00000{n}" for n in (2, 4, 5)],
    )


def window(example: Pack) -> Window:
    return Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)


def test_every_catalog_query_is_valid_promql(example_prometheus: str, example: Pack) -> None:
    """Each signal's every engine query runs without a Prometheus error (data or not)."""
    results = tool(example_prometheus).read_signals(load_catalog().names, scope(), window(example))
    failed = [str(r.gap) for r in results if r.status is Status.ERROR]
    assert failed == []


def test_kv_cache_value_hour_before_and_onset(example_prometheus: str, example: Pack) -> None:
    result = tool(example_prometheus).read_signal("kv_cache_usage", scope(), window(example))
    ours = next(e for e in result.evidence if e.labels.get("pod") == POD)
    assert ours.value == recorded(KV, POD, AS_OF)
    assert float(ours.labels["hour_before"]) == round(recorded(KV, POD, AS_OF.replace(hour=18)), 3)
    assert ours.onset is not None
    # The onset is the first minute the pack's series is above 0.95 (and stays there).
    # Steps end at as_of itself, so the first one in the window is the first whole minute after its start.
    first = int(AS_OF.timestamp()) - (int(AS_OF.timestamp() - window(example).start.timestamp()) // 60) * 60
    grid = [datetime.fromtimestamp(t, UTC) for t in range(first, int(AS_OF.timestamp()) + 1, 60)]
    series = [(t.timestamp(), v) for t in grid if (v := sample(KV, POD, t)) is not None]
    first_above = next(t for i, (t, v) in enumerate(series) if v > 0.95 and series[i + 1][1] > 0.95)
    assert ours.onset == datetime.fromtimestamp(first_above, UTC)
    assert ours.layer == "ENG" and ours.source is Source.PROMETHEUS
    assert ours.link is not None and ours.link.startswith("http://prometheus.example:9090/graph?g0.expr=")
    assert KV in ours.query and 'pod=~"vllm-llama31-8b-support-.+"' in ours.query


def test_old_and_new_vllm_names_and_histograms(example_prometheus: str, example: Pack) -> None:
    itl = tool(example_prometheus).read_signal("itl_p99", scope(), window(example))
    engines = {e.labels["engine"] for e in itl.evidence}
    assert engines == {"vllm"}  # one query reads the new name or, as here (this pack), the old one
    ttft = tool(example_prometheus).read_signal("ttft_p99", scope(), window(example)).evidence[0]
    assert isinstance(ttft.value, float) and ttft.value > 2  # the alert's threshold
    assert ttft.onset is not None and ttft.onset < example.alert.alerts[0].startsAt


def test_signal_without_data_is_no_data_not_error(example_prometheus: str, example: Pack) -> None:
    result = tool(example_prometheus).read_signal("canary_pass_rate", scope(), window(example))
    assert result.status is Status.NO_DATA and result.gap is None


def test_alert_expression_and_free_promql(example_prometheus: str, example: Pack) -> None:
    prom = tool(example_prometheus)
    expr = example.alert.alerts[0].query
    assert expr is not None
    fired = prom.alert_expression(expr, window(example)).evidence[0]
    assert fired.onset is not None and fired.onset <= example.alert.alerts[0].startsAt
    assert isinstance(fired.value, float) and fired.value > 0.08  # the expression's own threshold
    free = prom.promql(f'{KV}{{pod="{POD}"}}', AS_OF)
    assert free.evidence[0].value == recorded(KV, POD, AS_OF)
