"""The pack's GPU nodes as a cluster has them: one GPU agent per node, and the DaemonSet's pods.

Each agent is the production `GpuAgent` with a `FakeNvml` of the node's recorded readings behind
it, served on 127.0.0.1 on a port of its own; its pod (label, nodeName, podIP, the port named
`http`) goes into the Kubernetes stand-in, so the bot finds it as it would in a cluster.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.gpuagent.agent import GpuAgent
from bot.gpuagent.app import build_app
from bot.sandbox.nvml import FakeNvml
from bot.sandbox.pack import GpuReading
from bot.sandbox.server import ServerThread
from tools.gpu.agents import DEFAULT_NAMESPACE, PORT_NAME

NAME = "incident-bot-gpu-agent"
LABELS = {"app.kubernetes.io/name": NAME}
IMAGE = "incident-bot:latest"  # as in deploy/kubernetes/gpu-agent.yaml
DAEMONSET_UID = "5e1f0c3a-6b7d-4e2a-9c1b-00000000a9e7"


@dataclass
class NodeAgent:
    node: str
    nvml: FakeNvml
    agent: GpuAgent
    url: str
    port: int


def start_agents(
    gpus: dict[str, list[GpuReading]], stack: ExitStack, *, as_of: datetime
) -> dict[str, NodeAgent]:
    """One running agent per GPU node, stopped with `stack` (all at once: each stop waits on its
    server's and watcher's next tick); its clock is the pack's `as_of`."""
    started: dict[str, NodeAgent] = {}
    agents: list[GpuAgent] = []
    servers: list[ServerThread] = []
    stack.callback(_stop_all, agents, servers)
    for node, readings in gpus.items():
        nvml = FakeNvml(readings)
        agent = GpuAgent(nvml, node, clock=lambda: as_of, wait_ms=50)
        agents.append(agent.start())
        server = ServerThread(build_app(agent), name=f"sandbox-gpu-agent-{node}")
        servers.append(server.start())
        started[node] = NodeAgent(node=node, nvml=nvml, agent=agent, url=server.url, port=server.port)
    return started


def _stop_all(agents: list[GpuAgent], servers: list[ServerThread]) -> None:
    """The servers first (no reading in flight), then the agents (NVML shut down)."""
    with ThreadPoolExecutor(max_workers=max(1, len(servers), len(agents))) as pool:
        list(pool.map(lambda server: server.stop(), servers))
        list(pool.map(lambda agent: agent.stop(), agents))


def agent_objects(agents: dict[str, NodeAgent], *, as_of: datetime) -> list[dict[str, Any]]:
    """The DaemonSet and its Running, Ready pod on each node, as `kubectl get -o yaml` prints them."""
    stamp = as_of.strftime("%Y-%m-%dT%H:%M:%SZ")
    daemonset = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": NAME, "namespace": DEFAULT_NAMESPACE, "uid": DAEMONSET_UID, "labels": LABELS},
        "spec": {
            "selector": {"matchLabels": LABELS},
            # one port here; the sandbox's pods each have their own, on one host
            "template": {
                "metadata": {"labels": LABELS},
                "spec": {"containers": [{"name": "gpu-agent", "image": IMAGE}]},
            },
        },
        "status": {
            "currentNumberScheduled": len(agents),
            "desiredNumberScheduled": len(agents),
            "numberMisscheduled": 0,
            "numberReady": len(agents),
        },
    }
    return [daemonset, *(_pod(a, stamp) for a in agents.values())]


def _pod(agent: NodeAgent, stamp: str) -> dict[str, Any]:
    suffix = hashlib.sha1(agent.node.encode()).hexdigest()[:5]
    ready = [
        {"type": kind, "status": "True", "lastTransitionTime": stamp}
        for kind in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{NAME}-{suffix}",
            "namespace": DEFAULT_NAMESPACE,
            "labels": LABELS,
            "creationTimestamp": stamp,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "name": NAME,
                    "uid": DAEMONSET_UID,
                    "controller": True,
                }
            ],
        },
        "spec": {
            "nodeName": agent.node,
            "containers": [
                {
                    "name": "gpu-agent",
                    "image": IMAGE,
                    "args": ["gpu-agent", "--port", str(agent.port)],
                    "ports": [{"name": PORT_NAME, "containerPort": agent.port, "protocol": "TCP"}],
                }
            ],
        },
        "status": {
            "phase": "Running",
            "podIP": "127.0.0.1",
            "podIPs": [{"ip": "127.0.0.1"}],
            "hostIP": "127.0.0.1",
            "startTime": stamp,
            "conditions": ready,
            "containerStatuses": [
                {
                    "name": "gpu-agent",
                    "image": IMAGE,
                    "imageID": f"{IMAGE}@sha256:{'0' * 64}",
                    "ready": True,
                    "started": True,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": stamp}},
                }
            ],
        },
    }
