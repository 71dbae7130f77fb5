"""doctor's GPU check: the agents found through the Kubernetes stand-in (the real client), each asked
over HTTP; a MIG card, an agent that is down, and a cluster with no agent deployed."""

from __future__ import annotations

from contextlib import ExitStack
from datetime import UTC, datetime

from bot.config import BotConfig
from bot.doctor.gpu import check_gpu
from bot.doctor.report import Verdict
from bot.sandbox.gpuagents import agent_objects, start_agents
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import GpuReading
from bot.sandbox.server import ServerThread
from bot.settings import Settings

AS_OF = datetime(2026, 6, 1, 10, 7, tzinfo=UTC)
MIG = [
    {"uuid": "MIG-a", "gpu_instance_id": 1, "compute_instance_id": 0, "memory_total_mib": 40192},
    {"uuid": "MIG-b", "gpu_instance_id": 2, "compute_instance_id": 0, "memory_total_mib": 40192},
]


def reading(index: int, **extra: object) -> GpuReading:
    base = {
        "index": index,
        "uuid": f"GPU-{index}",
        "name": "NVIDIA A100-SXM4-80GB",
        "memory_total_mib": 81920,
        "temperature_c": 41,
        "power_w": 90,
    }
    return GpuReading.model_validate({**base, "memory_used_mib": 0, "utilization_gpu": 0, **extra})


def test_a_mig_card_and_an_agent_that_is_down() -> None:
    with ExitStack() as stack:
        agents = start_agents({"gpu-a": [reading(0, mig_devices=MIG), reading(1)]}, stack, as_of=AS_OF)
        with ExitStack() as gone:  # gpu-b's pod stays Ready; its agent stops
            agents |= start_agents({"gpu-b": [reading(0)]}, gone, as_of=AS_OF)
        objects = agent_objects(agents, as_of=AS_OF)
        standin = KubernetesStandIn(objects, now=lambda: AS_OF)
        url = stack.enter_context(ServerThread(standin.app)).url
        report = check_gpu(Settings(kubernetes_api_url=url), BotConfig(), timeout=3)
    assert report.verdict is Verdict.LIMITED, report
    assert report.summary == "1 of 2 agents answer"
    texts = {f.text: f.ok for f in report.findings}
    assert texts["gpu-a: 2 GPUs (NVIDIA A100-SXM4-80GB), watching Xid events"] is True
    assert texts["gpu-a GPU 0 (NVIDIA A100-SXM4-80GB): MIG on, 2 instances"] is None
    assert any(t.startswith("gpu-a GPU 0 (NVIDIA A100-SXM4-80GB): not read: utilization") for t in texts)
    assert texts["gpu-b: connection refused"] is False


def test_every_agent_down_is_unusable_and_a_misnamed_node_is_said() -> None:
    with ExitStack() as stack:
        agents = start_agents({"gpu-a": [reading(0)]}, stack, as_of=AS_OF)
        misnamed = check_gpu(Settings(gpu_agent_urls=f"node-1={agents['gpu-a'].url}"), BotConfig(), timeout=3)
    assert misnamed.verdict is Verdict.LIMITED
    assert any(
        f.text == "node-1: its agent says it runs on gpu-a: is the node named right?"
        for f in misnamed.findings
    )
    down = check_gpu(Settings(gpu_agent_urls="gpu-a=http://127.0.0.1:9"), BotConfig(), timeout=3)
    assert down.verdict is Verdict.UNUSABLE and down.summary == "0 of 1 agents answer"


def test_no_agent_deployed_and_no_way_to_find_one() -> None:
    standin = KubernetesStandIn([])
    with ServerThread(standin.app) as server:
        none = check_gpu(Settings(kubernetes_api_url=server.url), BotConfig(), timeout=3)
    assert none.verdict is Verdict.LIMITED and none.summary == "no agents found"
    alone = check_gpu(Settings(kubernetes_in_cluster=False), BotConfig(), timeout=3)
    assert alone.verdict is Verdict.NOT_CONFIGURED
    bad = check_gpu(Settings(gpu_agent_urls="gpu-a"), BotConfig(), timeout=3)
    assert bad.verdict is Verdict.UNUSABLE and "GPU_AGENT_URLS" in bad.summary
