"""The inference SLO dashboard (deploy/grafana/inference-slo.json): a valid Grafana dashboard, with
the variables the example configuration's link sets, and every PromQL expression in it and in the
rules accepted by a real Prometheus."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import yaml

from bot.config import load_config
from bot.sandbox.prometheus import PrometheusRunner
from tests.conftest import ROOT

DASHBOARD = ROOT / "deploy" / "grafana" / "inference-slo.json"
EXAMPLE = ROOT / "deploy" / "config.example.yaml"
RULE_FILES = sorted((ROOT / "deploy" / "prometheus").glob("*.rules.yaml"))
# What Grafana puts in place of its variables when it runs a query.
GRAFANA_VALUES = {
    "__rate_interval": "5m",
    "__interval": "1m",
    "__range": "6h",
    "namespace": "llm-serving",
    "service": "llama-chat",
    "model": "llama",
}
# One sample, so the TSDB exists; parsing and evaluating the queries needs no data.
METRICS = (
    "# TYPE vllm:num_requests_running gauge\n"
    'vllm:num_requests_running{namespace="llm-serving",pod="llama-0",model_name="llama"} 1 1700000000\n'
    "# EOF\n"
)


def dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for panel in board["panels"]:
        found.append(panel)
        found += panel.get("panels", [])  # a collapsed row keeps its panels inside
    return found


def variables(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in board["templating"]["list"]}


def dashboard_exprs() -> list[str]:
    board = dashboard()
    exprs = [t["expr"] for p in panels(board) for t in p.get("targets", [])]
    for var in variables(board).values():
        if var["type"] == "query":
            query = var["query"]["query"]
            # label_values(selector, label) is Grafana's; Prometheus is asked for the selector
            found = re.fullmatch(r"label_values\((.*),\s*\w+\)", query)
            exprs.append(found.group(1) if found else query)
    return exprs


def rule_exprs() -> list[str]:
    return [
        rule["expr"]
        for path in RULE_FILES
        for group in yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
        for rule in group["rules"]
    ]


def substitute(expr: str) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        assert name in GRAFANA_VALUES, f"unknown Grafana variable ${name} in {expr}"
        return GRAFANA_VALUES[name]

    return re.sub(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)", value, expr)


def test_it_is_a_valid_dashboard() -> None:
    board = dashboard()
    assert board["uid"] == "inference-slo" and board["title"]
    assert isinstance(board["schemaVersion"], int) and board["schemaVersion"] >= 36
    ids = [p["id"] for p in panels(board)]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    data = [p for p in panels(board) if p["type"] != "row"]
    assert data
    for panel in data:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"], panel["title"]
        assert all(t["expr"].strip() and t["refId"] for t in panel["targets"]), panel["title"]
        assert {"h", "w", "x", "y"} <= panel["gridPos"].keys()


def test_it_shows_every_signal() -> None:
    text = " ".join(dashboard_exprs())
    for sli in ("availability", "ttft", "itl"):
        assert f'sloth_slo="{sli}"' in text
    for series in (
        "slo:error_budget:ratio",
        "inference:kv_cache_usage:max",
        "inference:generation_tokens:rate5m",
        "inference:generation_tokens:rate30m_baseline",
        "nv_inference_queue_duration_us",
        "nv_inference_compute_infer_duration_us",
    ):
        assert series in text, series


def test_it_has_the_variables_the_example_link_sets() -> None:
    found = variables(dashboard())
    assert found["datasource"]["type"] == "datasource" and found["datasource"]["query"] == "prometheus"
    assert {"namespace", "service", "model"} <= found.keys()
    links = [
        board.url
        for service in load_config(EXAMPLE).services
        for board in service.dashboards
        if "/d/inference-slo/" in board.url
    ]
    assert links, "the example configuration links no inference-slo dashboard"
    for link in links:
        query = parse_qs(urlsplit(link).query)
        set_vars = {key.removeprefix("var-") for key in query if key.startswith("var-")}
        assert set_vars and set_vars <= found.keys(), link
        assert {"from", "to"} <= query.keys()


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    metrics = tmp_path_factory.mktemp("slo-prom") / "metrics.om"
    metrics.write_text(METRICS, encoding="utf-8")
    with PrometheusRunner(metrics) as prom:
        yield prom.url


@pytest.mark.parametrize("source", ["dashboard", "rules"])
def test_a_real_prometheus_accepts_every_expression(prometheus: str, source: str) -> None:
    exprs = [substitute(e) for e in dashboard_exprs()] if source == "dashboard" else rule_exprs()
    assert exprs
    refused = {}
    with httpx.Client(base_url=prometheus, timeout=10) as client:
        for expr in exprs:
            answer = client.get("/api/v1/query", params={"query": expr, "time": "1700000000"})
            if answer.status_code != 200 or answer.json().get("status") != "success":
                refused[expr] = answer.text[:300]
    assert refused == {}
