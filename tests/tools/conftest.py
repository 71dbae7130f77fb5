"""Fixtures for the evidence tools: the example pack served by a real Prometheus and stand-ins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.prometheus import PrometheusRunner
from bot.sandbox.server import ServerThread
from tests.conftest import SHARED
from tools.kubernetes import KubeTool, api_client

EXAMPLE = SHARED / "examples" / "kv-cache-exhaustion-after-deploy"


@pytest.fixture(scope="session")
def example() -> Pack:
    return load_pack(EXAMPLE)


@pytest.fixture(scope="session")
def example_prometheus(example: Pack) -> Iterator[str]:
    assert example.metrics is not None
    with PrometheusRunner(example.metrics) as prom:
        yield prom.url


@pytest.fixture
def example_kube(example: Pack) -> Iterator[KubeTool]:
    standin = KubernetesStandIn(example.objects, now=lambda: example.meta.as_of)
    with ServerThread(standin.app) as server:
        api = api_client(server.url)
        yield KubeTool(api, timeout=5)
        api.close()
