"""The log tool through the official Elasticsearch client against the stand-in, on the example's logs:
aggregations answer what the pack's own lines say."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import datetime

import pytest

from bot.sandbox.elasticsearch import ElasticsearchStandIn
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from tests.tools.conftest import EXAMPLE
from tools.logs import LogScope, LogTool, connect
from tools.result import Status, Window


@pytest.fixture
def logs(example: Pack) -> Iterator[tuple[LogTool, ElasticsearchStandIn]]:
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of)
    standin.index_documents(example.meta.logs_index, example.logs)
    with ServerThread(standin.app) as server:
        client = connect(server.url)
        yield LogTool(client, index=example.meta.logs_index, kibana_url="https://kibana.example"), standin
        client.close()


def lines() -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (EXAMPLE / "logs.ndjson").read_text().splitlines() if line.strip()]


def window(example: Pack) -> Window:
    return Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)


def scope() -> LogScope:
    return LogScope(namespace="support-bot", deployments=["vllm-llama31-8b-support"])


def test_signatures_are_aggregated_by_elasticsearch(
    example: Pack, logs: tuple[LogTool, ElasticsearchStandIn]
) -> None:
    tool, standin = logs
    result = tool.error_signatures(scope(), window(example))
    assert result.status is Status.OK
    warnings = [d for d in lines() if d["log"]["level"] in ("warn", "error")]
    top = result.evidence[0]
    assert top.value == len(warnings)  # the preemption warnings differ only in ids and times
    assert "preempted by PreemptionMode.RECOMPUTE" in top.labels["sample"]
    assert set(top.labels["pods"].split(",")) == {d["kubernetes"]["pod"]["name"] for d in warnings}
    assert top.onset == min(datetime.fromisoformat(d["@timestamp"]) for d in warnings)
    assert top.link is not None and top.link.startswith("https://kibana.example/app/discover#/")
    request = standin.requests[-1]
    assert request["size"] == 0 and "categorize_text" in json.dumps(request["aggs"])  # no documents pulled


def test_volume_status_codes_and_search(example: Pack, logs: tuple[LogTool, ElasticsearchStandIn]) -> None:
    tool, _ = logs
    w = window(example)
    in_scope = [d for d in lines() if d["kubernetes"]["pod"]["name"].startswith("vllm-llama31-8b-support-")]
    in_window = [d for d in in_scope if w.start <= datetime.fromisoformat(d["@timestamp"]) <= w.as_of]
    codes = Counter(str(d["http"]["response"]["status_code"]) for d in in_window if "http" in d)
    status = {e.labels["code"]: e.value for e in tool.status_codes(scope(), w).evidence}
    assert status == dict(codes)
    volume = tool.error_volume(scope(), w).evidence
    per_pod = {e.labels["pod"]: e.value for e in volume if "pod" in e.labels}
    expected = Counter(
        d["kubernetes"]["pod"]["name"] for d in in_window if d["log"]["level"] in ("warn", "error")
    )
    assert per_pod == dict(expected)
    hits = tool.search("preempted", scope(), w, size=3).evidence
    assert len(hits) == 3 and all("preempted" in h.summary for h in hits)
    stamps = [h.at for h in hits]
    assert stamps == sorted(stamps, reverse=True)  # newest first


def test_node_level_lines_of_the_scopes_nodes_reach_the_triage(example: Pack) -> None:
    """A kernel or kubelet line has a node and no namespace: those of the incident's nodes are read,
    another node's and another namespace's are not."""
    at = example.meta.as_of.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def doc(message: str, *, node: str, namespace: str | None = None, pod: str | None = None) -> dict:  # type: ignore[type-arg]
        kube: dict = {"node": {"name": node}}  # type: ignore[type-arg]
        if namespace:
            kube |= {"namespace": namespace, "pod": {"name": pod}}
        return {
            "@timestamp": at,
            "message": message,
            "log": {"level": "error"},
            "kubernetes": kube,
            "host": {"name": node},
        }

    documents = [
        doc("NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.", node="gpu-1"),
        doc("NVRM: Xid (PCI:0000:18:00): 48, pid=2, double bit error", node="gpu-9-other-team"),
        doc("CUDA error: unspecified launch failure", node="gpu-1", namespace="chat", pod="vllm-a-1"),
        doc("OOM in the other team's trainer", node="gpu-1", namespace="research", pod="trainer-0"),
    ]
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of)
    standin.index_documents("logs-inference", documents)
    with ServerThread(standin.app) as server:
        client = connect(server.url)
        tool = LogTool(client, index="logs-inference")
        mine = LogScope(namespace="chat", pods=["vllm-a-1"], nodes=["gpu-1"])
        samples = {e.labels["sample"] for e in tool.error_signatures(mine, window(example)).evidence}
        client.close()
    assert samples == {documents[0]["message"], documents[2]["message"]}
