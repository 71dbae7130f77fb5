"""doctor's Prometheus check against a real Prometheus holding each family's series as its exporter
names them (vLLM, SGLang, TGI, DCGM with either host label, Istio, ingress-nginx, Contour, KServe)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.config import BotConfig
from bot.doctor.prometheus import check_prometheus
from bot.doctor.report import Verdict
from bot.sandbox.prometheus import PrometheusRunner
from bot.settings import Settings
from tests.tools.fixtures.families import AS_OF, Metrics, build, pod


@pytest.fixture(scope="module")
def families_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with PrometheusRunner(build().write(tmp_path_factory.mktemp("doctor") / "metrics.om")) as prom:
        yield prom.url


def test_each_family_scraped_is_named_and_the_missing_ones_listed(families_url: str) -> None:
    report = check_prometheus(
        Settings(prometheus_url=families_url, triage_as_of=AS_OF), BotConfig(), timeout=5
    )
    assert report.verdict is Verdict.OK, report
    assert report.summary.startswith("Prometheus ")
    assert report.summary.endswith(f"(series counted at TRIAGE_AS_OF {AS_OF:%Y-%m-%d %H:%M}Z)")
    engines = report.summary.split("engines: ")[1].split(" (")[0].split(", ")
    assert {"vllm", "sglang", "tgi"} <= set(engines) and "triton" not in engines
    text = "\n".join(f.text for f in report.findings)
    for family in ("gpu dcgm", "gateway istio", "gateway ingress-nginx", "gateway contour", "gateway kserve"):
        assert f"{family}: " in text and "series (e.g. " in text.split(f"{family}: ")[1].splitlines()[0], text
    silent = next(f.text for f in report.findings if f.text.startswith("engine families with no series"))
    assert "triton" in silent


def test_a_prometheus_without_engines_is_limited_and_one_that_is_down_unusable(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    bare = Metrics()
    bare.gauge("up", pod("x", job="kubelet"), lambda t: 1.0)
    with PrometheusRunner(bare.write(tmp_path_factory.mktemp("bare") / "metrics.om")) as prom:
        report = check_prometheus(
            Settings(prometheus_url=prom.url, triage_as_of=AS_OF), BotConfig(), timeout=5
        )
    assert report.verdict is Verdict.LIMITED
    assert "engines: none" in report.summary
    missing = [f.text for f in report.findings if f.ok is False]
    assert any("no inference engine" in m for m in missing) and any("DCGM" in m for m in missing)
    down = check_prometheus(Settings(prometheus_url="http://127.0.0.1:9"), BotConfig(), timeout=2)
    assert down.verdict is Verdict.UNUSABLE and "connection refused" in down.summary
    assert check_prometheus(Settings(), BotConfig(), timeout=2).verdict is Verdict.NOT_CONFIGURED
