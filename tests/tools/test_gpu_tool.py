"""The GPU tool finds the agents through the Kubernetes stand-in (the real kubernetes client) and
reads them over HTTP: evidence per GPU, and a named gap per node it could not read."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bot.sandbox.gpuagents import NodeAgent, agent_objects, start_agents
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import GpuReading, Pack
from bot.sandbox.server import ServerThread, free_port
from tools.gpu import GpuTool, PodAgents, StaticAgents, parse_agent_urls
from tools.gpu.readings import Health
from tools.kubernetes import api_client
from tools.result import Gap, Status

AS_OF = datetime(2026, 6, 1, 10, 7, tzinfo=UTC)
NODE = "aks-gpua100-28391047-vmss000004"
SLOW_SECONDS = 10.0


def reading(index: int, **extra: object) -> GpuReading:
    base = {
        "index": index,
        "uuid": f"GPU-{index}",
        "name": "NVIDIA H100 80GB HBM3",
        "memory_total_mib": 81559,
        "memory_used_mib": 0,
        "utilization_gpu": 0,
        "temperature_c": 40,
        "power_w": 80,
    }
    return GpuReading.model_validate({**base, **extra})


class Cluster:
    """GPU agents on 127.0.0.1 and the Kubernetes stand-in holding their DaemonSet's pods."""

    def __init__(
        self, gpus: dict[str, list[GpuReading]], extra_pods: list[dict[str, Any]] | None = None
    ) -> None:
        self.stack = ExitStack()
        self.agents: dict[str, NodeAgent] = start_agents(gpus, self.stack, as_of=AS_OF)
        objects = [*agent_objects(self.agents, as_of=AS_OF), *(extra_pods or [])]
        standin = KubernetesStandIn(objects, now=lambda: AS_OF)
        self.url = self.stack.enter_context(ServerThread(standin.app)).url
        self.api = api_client(self.url)
        self.stack.callback(self.api.close)

    def tool(self, timeout: float = 5.0) -> GpuTool:
        tool = GpuTool(PodAgents(self.api), timeout=timeout)
        self.stack.callback(tool.close)
        return tool


@pytest.fixture
def cluster_of(request: pytest.FixtureRequest) -> Iterator[Any]:
    made: list[Cluster] = []

    def make(gpus: dict[str, list[GpuReading]], extra_pods: list[dict[str, Any]] | None = None) -> Cluster:
        made.append(Cluster(gpus, extra_pods))
        return made[-1]

    yield make
    for cluster in made:
        cluster.stack.close()


def test_readings_become_evidence(example: Pack, cluster_of: Any) -> None:
    result = cluster_of(example.gpus).tool().read([NODE], as_of=AS_OF)
    assert result.status is Status.OK and len(result.evidence) == 1 and result.gap is None
    gpu = result.evidence[0]
    recorded = example.gpus[NODE][0]
    assert gpu.id == f"gpu:{NODE}:{recorded.index}"
    assert gpu.labels["utilization"] == str(recorded.utilization_gpu)
    assert f"memory {recorded.memory_used_mib}/{recorded.memory_total_mib} MiB" in gpu.summary
    assert f"{recorded.power_w:.0f} W" in gpu.summary and gpu.labels["faulty"] == "false"
    assert "not read" not in gpu.summary


def test_xid_79_is_reported_with_its_time(cluster_of: Any) -> None:
    xid = reading(3, xid_events=[{"xid": 79, "at": "2026-06-01T09:58:12Z"}])
    gpu = cluster_of({"gpu-node-3": [xid]}).tool().read(["gpu-node-3"], as_of=AS_OF).evidence[0]
    assert "Xid 79 (GPU has fallen off the bus) at 09:58:12Z" in gpu.summary
    assert gpu.onset == datetime(2026, 6, 1, 9, 58, 12, tzinfo=UTC)
    assert (
        gpu.labels["faulty"] == "true" and gpu.labels["xids"] == "79" and gpu.labels["app_fault"] == "false"
    )


def test_an_application_xid_is_the_application_s(cluster_of: Any) -> None:
    xid = reading(0, xid_events=[{"xid": 31, "at": "2026-06-01T09:58:12Z"}])
    gpu = cluster_of({"n": [xid]}).tool().read(["n"], as_of=AS_OF).evidence[0]
    assert gpu.labels["faulty"] == "false" and gpu.labels["app_fault"] == "true"


def test_row_remapping_makes_a_card_faulty_and_lifetime_ecc_is_context(cluster_of: Any) -> None:
    gpus = {
        "n": [
            reading(0, remapped_rows={"uncorrectable": 2, "failure": True}),
            reading(1, remapped_rows={"pending": True}),
            reading(2, ecc_aggregate_uncorrected=7),
        ]
    }
    failed, pending, old = cluster_of(gpus).tool().read(["n"], as_of=AS_OF).evidence
    assert failed.labels["faulty"] == "true" and failed.labels["remap"] == "failure"
    assert "row remapping failed (the card needs an RMA)" in failed.summary
    assert "2 rows remapped for uncorrectable errors" in failed.summary
    assert pending.labels["faulty"] == "true" and pending.labels["remap"] == "pending"
    assert "row remap pending (the card needs a reset)" in pending.summary
    assert old.labels["faulty"] == "false" and old.labels["ecc_aggregate_uncorrected"] == "7"
    assert "7 uncorrected ECC errors over the card's life" in old.summary


def test_a_partial_reading_is_evidence_that_names_what_was_not_read(cluster_of: Any) -> None:
    mig = reading(
        0,
        mig_devices=[
            {"uuid": "MIG-a", "gpu_instance_id": 1, "compute_instance_id": 0, "memory_total_mib": 40192}
        ],
        no_permission=["nvmlDeviceGetPowerUsage"],
    )
    result = cluster_of({"n": [mig]}).tool().read(["n"], as_of=AS_OF)
    assert result.status is Status.OK and result.gap is None
    gpu = result.evidence[0]
    assert (
        "util n/a" in gpu.summary and "power n/a" in gpu.summary and "MIG enabled, 1 instances" in gpu.summary
    )
    assert "not read: utilization (NotSupported), power (NoPermission)" in gpu.summary
    assert "utilization" not in gpu.labels and gpu.labels["unsupported"] == "utilization,power"
    assert gpu.labels["mig"] == "true"


def _pod(name: str, node: str, *, port: int, ready: bool = True) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "incident-bot",
            "labels": {"app.kubernetes.io/name": "incident-bot-gpu-agent"},
        },
        "spec": {
            "nodeName": node,
            "containers": [{"name": "a", "ports": [{"name": "http", "containerPort": port}]}],
        },
        "status": {
            "phase": "Running",
            "podIP": "127.0.0.1",
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def _node(name: str, gpus: str | None) -> dict[str, Any]:
    capacity = {"cpu": "16"} | ({"nvidia.com/gpu": gpus} if gpus else {})
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": {"capacity": capacity}}


def test_nodes_without_an_agent_or_with_one_down_are_gaps_and_the_others_are_read(cluster_of: Any) -> None:
    """A GPU node without a Ready agent pod, or whose agent is down, is a gap naming it; a node
    without GPUs (no nvidia.com/gpu capacity) has nothing to read and is no gap."""
    objects = [
        _pod("agent-down", "node-down", port=free_port()),
        _pod("agent-starting", "node-starting", port=free_port(), ready=False),
        _node("node-missing", "8"),
        _node("cpu-node", None),
    ]
    cluster = cluster_of({"node-ok": [reading(0), reading(1)]}, objects)
    tool = cluster.tool()
    nodes = ["node-down", "node-ok", "cpu-node", "node-missing", "node-starting"]
    per_node = tool.read_nodes(nodes, as_of=AS_OF)
    assert [str(r.gap) if r.gap else len(r.evidence) for r in per_node] == [
        "gpu: agent on node node-down: connection refused",
        2,
        "gpu: no agent on node node-missing: DaemonSet pod missing or not ready",
        "gpu: no agent on node node-starting: DaemonSet pod missing or not ready",
    ]
    merged = tool.read(nodes, as_of=AS_OF)
    assert merged.status is Status.OK and len(merged.evidence) == 2 and merged.gap is not None
    assert "node-down: connection refused" in merged.gap.reason and "node-missing" in merged.gap.reason


async def _stall(request: Request) -> JSONResponse:
    await asyncio.sleep(SLOW_SECONDS)
    return JSONResponse({})


def test_an_agent_past_the_deadline_is_a_gap(cluster_of: Any) -> None:
    with ServerThread(Starlette(routes=[Route("/v1/gpus", _stall)])) as slow:
        cluster = cluster_of({"node-ok": [reading(0)]}, [_pod("agent-slow", "node-slow", port=slow.port)])
        started = time.monotonic()
        results = cluster.tool(timeout=0.5).read_nodes(["node-slow", "node-ok"], as_of=AS_OF)
        assert time.monotonic() - started < SLOW_SECONDS / 2  # it did not wait for the slow agent
    assert str(results[0].gap) == "gpu: agent on node node-slow: no answer within 0.5 s"
    assert len(results[1].evidence) == 1


def test_discovery_that_fails_is_one_named_gap() -> None:
    api = api_client(f"http://127.0.0.1:{free_port()}")
    tool = GpuTool(PodAgents(api), timeout=0.5)
    result = tool.read(["n"], as_of=AS_OF)
    tool.close()
    api.close()  # type: ignore[no-untyped-call]
    assert result.status is Status.ERROR and result.gap is not None
    assert str(result.gap) == (
        "gpu: agent discovery (pods app.kubernetes.io/name=incident-bot-gpu-agent in incident-bot): "
        "connection refused"
    )


def test_static_agent_urls(cluster_of: Any) -> None:
    cluster = cluster_of({"n1": [reading(0)]})
    urls = parse_agent_urls(f" n1={cluster.agents['n1'].url}/ , ")
    assert urls == {"n1": cluster.agents["n1"].url}
    tool = GpuTool(StaticAgents(urls), timeout=5)
    got = tool.read_nodes(["n1", "n2"], as_of=AS_OF)  # the map names the GPU nodes: n2 has none
    tool.close()
    assert len(got) == 1 and len(got[0].evidence) == 1
    with pytest.raises(ValueError, match="'n1' is not node=http://host:port"):
        parse_agent_urls("n1")


def test_the_sandbox_serves_a_pack_s_gpus_through_agents_found_like_in_a_cluster() -> None:
    """The pack's recorded Xid reaches its node's agent as an event from before the read, and the
    bot built from the sandbox's settings finds that agent through its DaemonSet pod."""
    from bot.config import BotConfig
    from bot.sandbox.pack import load_pack
    from bot.sandbox.replay import replay_settings
    from bot.sandbox.up import Sandbox
    from bot.triage.backends import live_backends
    from bot.triage.knowledge import Knowledge
    from tests.conftest import ROOT

    pack = load_pack(ROOT / "scenarios" / "gpu-xid79-fell-off-bus")
    node = "ip-10-40-13-88.us-west-2.compute.internal"
    with Sandbox(pack) as sandbox:
        backends = live_backends(
            replay_settings(sandbox, "sqlite:///unused.db"), BotConfig(), Knowledge.load().catalog
        )
        api = k8s_config.new_client_from_config(config_file=sandbox.env["KUBECONFIG"])
        try:
            assert backends.gpu is not None and "GPU_AGENT_URLS" not in sandbox.env
            result = backends.gpu.read([node], as_of=pack.meta.as_of)
            pods = k8s.CoreV1Api(api).list_namespaced_pod(
                "incident-bot", label_selector="app.kubernetes.io/name=incident-bot-gpu-agent"
            )
            daemonset = k8s.AppsV1Api(api).read_namespaced_daemon_set(
                "incident-bot-gpu-agent", "incident-bot"
            )
        finally:
            backends.close()
            api.close()
    assert {p.spec.node_name for p in pods.items} == set(pack.gpus)
    assert daemonset.status.number_ready == len(pack.gpus)
    assert all(p.status.pod_ip == "127.0.0.1" for p in pods.items)
    (gpu,) = result.evidence
    assert gpu.labels["faulty"] == "true" and gpu.labels["xids"] == "79"
    assert gpu.onset is not None and gpu.onset < pack.meta.as_of


def test_the_health_of_every_agent(cluster_of: Any) -> None:
    """What `doctor` asks: each Ready agent pod's /healthz, a gap for one that does not answer."""
    cluster = cluster_of({"n1": [reading(0), reading(1)]}, [_pod("agent-down", "n2", port=free_port())])
    health = cluster.tool().health()
    assert isinstance(health, dict) and set(health) == {"n1", "n2"}
    ok, down = health["n1"], health["n2"]
    assert isinstance(ok, Health) and ok.gpus == 2 and ok.node == "n1" and ok.watching_xids
    assert isinstance(down, Gap) and str(down) == "gpu: agent on node n2: connection refused"


async def _unavailable(request: Request) -> JSONResponse:
    return JSONResponse({"detail": "NVML is reloading"}, status_code=503)


def test_an_agent_that_answers_an_error_is_a_gap(cluster_of: Any) -> None:
    with ServerThread(Starlette(routes=[Route("/v1/gpus", _unavailable)])) as broken:
        cluster = cluster_of({}, [_pod("agent-broken", "node-broken", port=broken.port)])
        (result,) = cluster.tool().read_nodes(["node-broken"], as_of=AS_OF)
    assert str(result.gap) == f"gpu: agent on node node-broken: HTTP 503 from {broken.url}"
