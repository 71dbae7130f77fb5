"""Where the GPU agents are: the DaemonSet's pods through the Kubernetes API, or a static map.

The bot does not run on the GPU nodes, so it asks the agent on each node in scope. In a cluster the
agent is a DaemonSet: its Running and Ready pod on a node is that node's agent, at the pod's IP and
its container port named `http` (read from the pod spec, so agents on one host can differ in port,
as in the sandbox). Clusters where the bot may not list pods give `GPU_AGENT_URLS` instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from kubernetes import client as k8s

DEFAULT_SELECTOR = "app.kubernetes.io/name=incident-bot-gpu-agent"
DEFAULT_NAMESPACE = "incident-bot"
PORT_NAME = "http"
GPU_RESOURCE = "nvidia.com/gpu"
GPU_LABEL = "nvidia.com/gpu.present"  # GPU Feature Discovery's, the DaemonSet's node selector


class AgentDirectory(Protocol):
    """For each GPU node of `nodes`, its agent's base URL, or None when it has none (a gap); a node
    left out has no GPUs, so there is nothing to read there. Raises when it cannot be asked."""

    def locate(self, nodes: list[str], *, timeout: float) -> dict[str, str | None]: ...

    def every(self, *, timeout: float) -> dict[str, str]:
        """Every node's Ready agent (for a health check of the whole DaemonSet)."""
        ...

    def describe(self) -> str: ...


def parse_agent_urls(text: str) -> dict[str, str]:
    """`node=url,node=url` (GPU_AGENT_URLS) as a map; ValueError naming the entry that is wrong."""
    found: dict[str, str] = {}
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        node, sep, url = entry.partition("=")
        if not sep or not node.strip() or not url.strip().startswith(("http://", "https://")):
            raise ValueError(f"{entry!r} is not node=http://host:port")
        found[node.strip()] = url.strip().rstrip("/")
    return found


@dataclass(frozen=True)
class StaticAgents:
    urls: Mapping[str, str]

    def locate(self, nodes: list[str], *, timeout: float) -> dict[str, str | None]:
        """The listed nodes are the GPU nodes: the others are left out."""
        return {n: self.urls[n] for n in nodes if n in self.urls}

    def every(self, *, timeout: float) -> dict[str, str]:
        return dict(self.urls)

    def describe(self) -> str:
        return "GPU_AGENT_URLS"


class PodAgents:
    """The agent DaemonSet's pods, listed in its namespace by label (read-only: list pods)."""

    def __init__(
        self, api: k8s.ApiClient, *, namespace: str = DEFAULT_NAMESPACE, selector: str = DEFAULT_SELECTOR
    ) -> None:
        self._core = k8s.CoreV1Api(api)
        self.namespace = namespace
        self.selector = selector

    def describe(self) -> str:
        return f"pods {self.selector} in {self.namespace}"

    def every(self, *, timeout: float) -> dict[str, str]:
        response: Any = self._core.list_namespaced_pod(  # raw JSON: no typed models needed
            self.namespace, label_selector=self.selector, _request_timeout=timeout, _preload_content=False
        )
        found: dict[str, str] = {}
        for pod in json.loads(response.data or b"{}").get("items") or []:
            node, url = (pod.get("spec") or {}).get("nodeName"), agent_url(pod)
            if node and url is not None:
                found.setdefault(node, url)
        return found

    def locate(self, nodes: list[str], *, timeout: float) -> dict[str, str | None]:
        """The Ready agent pod of each node; a node without one is a GPU node (None) only if the
        Node says so (nvidia.com/gpu capacity or the nvidia.com/gpu.present label)."""
        ready = self.every(timeout=timeout)
        found: dict[str, str | None] = {n: ready[n] for n in nodes if n in ready}
        for node in nodes:
            if node not in found and self._has_gpus(node, timeout):
                found[node] = None
        return found

    def _has_gpus(self, node: str, timeout: float) -> bool:
        """Whether a node has GPUs; one that cannot be read is assumed to (its gap is then named)."""
        try:
            response: Any = self._core.read_node(node, _request_timeout=timeout, _preload_content=False)
        except k8s.ApiException:
            return True
        return has_gpus(json.loads(response.data or b"{}"))


def has_gpus(node: Mapping[str, Any]) -> bool:
    labels = (node.get("metadata") or {}).get("labels") or {}
    status = node.get("status") or {}
    counts = [(status.get(k) or {}).get(GPU_RESOURCE, "0") for k in ("capacity", "allocatable")]
    return labels.get(GPU_LABEL) == "true" or any(str(c).strip() not in ("", "0") for c in counts)


def agent_url(pod: Mapping[str, Any]) -> str | None:
    """http://podIP:port of a Running, Ready, not terminating pod with a port named `http`."""
    status = pod.get("status") or {}
    if status.get("phase") != "Running" or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return None
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or []
    )
    ip = status.get("podIP")
    port = next(
        (
            p.get("containerPort")
            for c in (pod.get("spec") or {}).get("containers") or []
            for p in c.get("ports") or []
            if p.get("name") == PORT_NAME
        ),
        None,
    )
    if not ready or not ip or not port:
        return None
    host = f"[{ip}]" if ":" in str(ip) else ip
    return f"http://{host}:{port}"
