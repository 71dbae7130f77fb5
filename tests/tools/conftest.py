"""Fixtures for the evidence tools: a pack served by a real Prometheus and stand-ins.

The example is the KV-cache surge (old vLLM metric names, preemption warnings, one route); the
rollout pack raises max-num-seqs in a config rollout shortly before its alert.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.prometheus import PrometheusRunner
from bot.sandbox.server import ServerThread
from tests.conftest import ROOT
from tools.kubernetes import KubeTool, api_client

EXAMPLE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"
ROLLOUT = ROOT / "scenarios" / "cuda-oom-after-max-num-seqs-rollout"


@pytest.fixture(scope="session")
def example() -> Pack:
    return load_pack(EXAMPLE)


@pytest.fixture(scope="session")
def example_prometheus(example: Pack) -> Iterator[str]:
    assert example.metrics is not None
    with PrometheusRunner(example.metrics) as prom:
        yield prom.url


@pytest.fixture(scope="session")
def rollout_pack() -> Pack:
    return load_pack(ROLLOUT)


def kube_tool(pack: Pack) -> Iterator[KubeTool]:
    standin = KubernetesStandIn(pack.objects, now=lambda: pack.meta.as_of)
    with ServerThread(standin.app) as server:
        api = api_client(server.url)
        yield KubeTool(api, timeout=5)
        api.close()


@pytest.fixture
def example_kube(example: Pack) -> Iterator[KubeTool]:
    yield from kube_tool(example)


@pytest.fixture
def rollout_kube(rollout_pack: Pack) -> Iterator[KubeTool]:
    yield from kube_tool(rollout_pack)
