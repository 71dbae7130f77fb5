"""A pack's metrics in a real Prometheus, answering PromQL with the pack's own values."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from prometheus_api_client import PrometheusConnect

from bot.sandbox.prometheus import PrometheusError, PrometheusRunner
from tests.conftest import ROOT

METRICS = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge" / "metrics.om"
AS_OF = 1781636700  # the pack's as_of, 2026-06-16T19:05:00Z
KV = "vllm:gpu_cache_usage_perc"


def recorded(metric: str, pod: str, at: int) -> float:
    """The sample the pack file holds for `metric` of `pod` at `at` (read from the file itself)."""
    pattern = re.compile(rf'^{re.escape(metric)}\{{[^}}]*pod="{re.escape(pod)}"[^}}]*\}} (\S+) {at}$')
    for line in METRICS.read_text().splitlines():
        match = pattern.match(line)
        if match:
            return float(match.group(1))
    raise AssertionError(f"{metric} of {pod} at {at} not in the pack")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def test_pack_metrics_answer_promql_with_the_pack_values() -> None:
    pod = "vllm-llama31-8b-support-wjlzdcvg4h-gn466"
    with PrometheusRunner(METRICS) as prom:
        client = PrometheusConnect(url=prom.url)
        at = {"time": str(AS_OF)}
        kv = client.custom_query(f'{KV}{{pod="{pod}"}}', params=at)
        assert float(kv[0]["value"][1]) == recorded(KV, pod, AS_OF)
        an_hour_before = client.custom_query(f'{KV}{{pod="{pod}"}}', params={"time": str(AS_OF - 3600)})
        assert float(an_hour_before[0]["value"][1]) == recorded(KV, pod, AS_OF - 3600)
        increase = client.custom_query(f'increase(vllm:num_preemptions_total{{pod="{pod}"}}[10m])', params=at)
        assert float(increase[0]["value"][1]) > 0
        p95 = client.custom_query(
            "histogram_quantile(0.95, sum by (le) (rate(vllm:time_per_output_token_seconds_bucket[5m])))",
            params=at,
        )
        assert float(p95[0]["value"][1]) > 0.08  # the alert's threshold was crossed at as_of
        pid = prom.pid
        assert pid is not None and alive(pid)
        root = prom.root
    assert not alive(pid)  # torn down: no orphan process
    assert not root.exists()


def test_broken_metrics_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "metrics.om"
    broken.write_text('# TYPE x gauge\nx{a="1" 1 1781636700\n# EOF\n')  # unterminated label set
    with pytest.raises(PrometheusError, match=r"metrics\.om: promtool could not backfill it"):
        PrometheusRunner(broken).start()
