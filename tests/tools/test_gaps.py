"""A backend that is down or slow becomes a named gap within the tool's timeout, never an exception."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.gpuagent.agent import GpuAgent
from bot.gpuagent.app import build_app
from bot.sandbox.nvml import FakeNvml
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread, free_port
from tools.gpu import GpuTool, StaticAgents
from tools.kubernetes import KubeTool, api_client
from tools.logs import LogScope, LogTool
from tools.logs import connect as es_connect
from tools.prometheus import PrometheusTool
from tools.prometheus import connect as prom_connect
from tools.result import Gap, Status, Window
from tools.signals import Scope, load_catalog

SLOW_SECONDS = 10.0
TIMEOUT = 0.5
WINDOW = Window(start=datetime(2026, 6, 1, 9, 0, tzinfo=UTC), as_of=datetime(2026, 6, 1, 10, 7, tzinfo=UTC))


async def _stall(request: Request) -> JSONResponse:
    await asyncio.sleep(SLOW_SECONDS)
    return JSONResponse({}, headers={"X-Elastic-Product": "Elasticsearch"})


@pytest.fixture
def slow_server() -> Iterator[str]:
    app = Starlette(routes=[Route("/{path:path}", _stall, methods=["GET", "POST", "HEAD"])])
    with ServerThread(app) as server:
        yield server.url


def dead_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


def prom_gap(url: str) -> tuple[Gap, float]:
    tool = PrometheusTool(prom_connect(url, timeout=TIMEOUT), load_catalog(), link_base=url, timeout=TIMEOUT)
    started = time.monotonic()
    result = tool.read_signal("kv_cache_usage", Scope(namespace="llm-serving"), WINDOW)
    assert result.status is Status.ERROR and result.gap is not None
    return result.gap, time.monotonic() - started


def test_prometheus_down_and_slow(slow_server: str) -> None:
    gap, _ = prom_gap(dead_url())
    assert str(gap).startswith("prometheus: signal kv_cache_usage: ") and "connection refused" in str(gap)
    gap, elapsed = prom_gap(slow_server)
    assert gap.reason == "no answer within 0.5 s"
    assert elapsed < SLOW_SECONDS / 2  # it did not wait for the slow server


def kube_gap(url: str) -> tuple[Gap, float]:
    api = api_client(url)
    started = time.monotonic()
    got = KubeTool(api, timeout=TIMEOUT).topology("llm-serving")
    elapsed = time.monotonic() - started
    api.close()
    assert isinstance(got, Gap)
    return got, elapsed


def test_kubernetes_down_and_slow(slow_server: str) -> None:
    gap, _ = kube_gap(dead_url())
    assert gap.source.value == "kubernetes" and gap.reason == "connection refused"
    gap, elapsed = kube_gap(slow_server)
    assert gap.reason == "no answer within 0.5 s"
    assert elapsed < SLOW_SECONDS / 2


def es_gap(url: str) -> tuple[Gap, float]:
    client = es_connect(url, timeout=TIMEOUT)
    started = time.monotonic()
    result = LogTool(client, index="logs-inference", timeout=TIMEOUT).error_signatures(LogScope(), WINDOW)
    elapsed = time.monotonic() - started
    client.close()
    assert result.status is Status.ERROR and result.gap is not None
    return result.gap, elapsed


def test_elasticsearch_down_and_slow(slow_server: str) -> None:
    gap, _ = es_gap(dead_url())
    assert str(gap) == "elasticsearch: error signatures: connection refused"
    gap, elapsed = es_gap(slow_server)
    assert gap.reason == "no answer within 0.5 s"
    assert elapsed < SLOW_SECONDS / 2


class StuckNvml(FakeNvml):
    """A driver call that hangs (a GPU that fell off the bus can do that)."""

    def nvmlDeviceGetUtilizationRates(self, handle: Any) -> Any:
        time.sleep(SLOW_SECONDS)
        return super().nvmlDeviceGetUtilizationRates(handle)


def test_gpu_slow(example: Pack) -> None:
    """The agent on the node is stuck in NVML: the tool's deadline turns it into a gap."""
    readings = next(iter(example.gpus.values()))
    agent = GpuAgent(StuckNvml(readings), "gpu-node-1", clock=lambda: WINDOW.as_of, wait_ms=50)
    with agent, ServerThread(build_app(agent)) as server:
        tool = GpuTool(StaticAgents({"gpu-node-1": server.url}), timeout=TIMEOUT)
        started = time.monotonic()
        result = tool.read(["gpu-node-1"], as_of=WINDOW.as_of)
        assert time.monotonic() - started < SLOW_SECONDS / 2
        tool.close()
    assert (
        result.gap is not None and str(result.gap) == "gpu: agent on node gpu-node-1: no answer within 0.5 s"
    )


# What a misconfigured proxy, a captive portal or a half-upgraded backend answers instead of the API.
GARBAGE: dict[str, tuple[int, str, bytes]] = {
    "html": (200, "text/html", b"<html><body>Sign in to continue</body></html>"),
    "truncated json": (200, "application/json", b'{"status": "success", "data": {"resultType": "matr'),
    "wrong shape": (
        200,
        "application/json",
        b'{"status": "success", "data": {"resultType": "matrix", "result": [{"metric": 7, "values": '
        b'[["noon", "many"], null]}]}, "hits": {"hits": [{"_source": 3}]}, "items": "none", "kind": 5}',
    ),
    "error page": (502, "text/html", b"<html>502 Bad Gateway</html>"),
}


def garbage_server(kind: str) -> ServerThread:
    status, media, body = GARBAGE[kind]

    async def answer(request: Request) -> Response:
        return Response(
            body, status_code=status, media_type=media, headers={"X-Elastic-Product": "Elasticsearch"}
        )

    return ServerThread(Starlette(routes=[Route("/{path:path}", answer, methods=["GET", "POST", "HEAD"])]))


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_a_backend_that_answers_garbage_is_a_named_gap(kind: str) -> None:
    """Not an exception and not evidence: each tool names the backend and what was wrong."""
    with garbage_server(kind) as server:
        said = "502" if kind == "error page" else "the answer is not"
        gap, _ = prom_gap(server.url)
        assert gap.source.value == "prometheus" and said in gap.reason, gap
        gap, _ = kube_gap(server.url)
        assert gap.source.value == "kubernetes" and said in gap.reason, gap
        gap, _ = es_gap(server.url)
        assert gap.source.value == "elasticsearch" and gap.reason, gap
        tool = GpuTool(StaticAgents({"gpu-node-1": server.url}), timeout=TIMEOUT)
        result = tool.read(["gpu-node-1"], as_of=WINDOW.as_of)
        tool.close()
        assert result.gap is not None and str(result.gap).startswith("gpu: agent on node gpu-node-1: "), (
            result
        )
