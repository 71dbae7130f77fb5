"""A Deployment's pods in stores that know only names (metrics, logs) are matched by the names the
ReplicaSet gives them, `<deploy>-<hash>-<suffix>`: a `<deploy>-canary` Deployment's pods are not
the stable one's. Through the real Prometheus and the Elasticsearch client."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from bot.sandbox.elasticsearch import ElasticsearchStandIn
from bot.sandbox.pack import Pack
from bot.sandbox.prometheus import PrometheusRunner
from bot.sandbox.server import ServerThread
from bot.triage.gather import prometheus_scope
from bot.triage.scope import IncidentScope
from tests.tools.fixtures.families import AS_OF, Metrics, pod
from tools.logs import LogScope, LogTool, connect
from tools.prometheus import connect as prom_connect
from tools.result import Window

STABLE = "vllm-llama31-8b-support"
STABLE_POD = f"{STABLE}-wjlzdcvg4h-gn466"
CANARY_POD = f"{STABLE}-canary-6f9c7d8b5-x2v7q"


def test_prometheus_scope_takes_the_deployments_pods_and_not_its_canary(tmp_path: Path) -> None:
    metrics = Metrics()
    for name in (STABLE_POD, f"{STABLE}-5d8f7c9b4-k8s2p", CANARY_POD, "other-7c9b4-k8s2p"):
        metrics.gauge("vllm:num_requests_running", pod(name), lambda t: 1.0)
    scope = prometheus_scope(IncidentScope(namespace="fam", deployments=[STABLE]))
    query = scope.render('count by (pod) (vllm:num_requests_running{namespace="$ns",pod=~"$pods"})')
    assert query is not None
    with PrometheusRunner(metrics.write(tmp_path / "m.om")) as prom:
        got = prom_connect(prom.url).custom_query(query, params={"time": AS_OF.timestamp()})
    assert sorted(r["metric"]["pod"] for r in got) == sorted([STABLE_POD, f"{STABLE}-5d8f7c9b4-k8s2p"])


@pytest.mark.parametrize("strings", ["ecs", "default"])  # keyword fields; text with a .keyword
def test_log_scope_takes_the_deployments_pods_and_not_its_canary(example: Pack, strings: str) -> None:
    ours = [d for d in example.logs if d["kubernetes"]["pod"]["name"].startswith(f"{STABLE}-")]
    canary = copy.deepcopy(ours[: len(ours) // 2])
    for doc in canary:
        doc["kubernetes"]["pod"]["name"] = CANARY_POD
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of)
    standin.index_documents("logs-x", [*example.logs, *canary], strings=strings)
    window = Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)
    with ServerThread(standin.app) as server:
        client = connect(server.url)
        tool = LogTool(client, index="logs-x")
        found = tool.error_volume(LogScope(namespace="support-bot", deployments=[STABLE]), window)
        client.close()
    pods = {e.labels["pod"] for e in found.evidence if e.labels.get("pod")}
    assert pods and CANARY_POD not in pods
    assert all(p.startswith(f"{STABLE}-") for p in pods)
