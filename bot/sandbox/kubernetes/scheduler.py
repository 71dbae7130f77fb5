"""Where a new pod goes: the scheduler's filter reduced to what decides it on a GPU cluster.

A node fits when it is Ready, not cordoned, and has enough `nvidia.com/gpu` left after the pods
already bound to it; among those the one with the most GPUs free wins (the default scorer spreads
load). Nothing fits → the pod stays Pending with the scheduler's count of why, e.g. "0/3 nodes are
available: 3 Insufficient nvidia.com/gpu." Node selectors, affinity and taints are not weighed:
packs record nodes without every label the pods select on, and the pods tolerate the GPU taint.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from bot.sandbox.kubernetes.pods import GPU, gpu_request, is_active, quantity


def place(
    pod: Mapping[str, Any], nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]
) -> str:
    """The node to bind to, or ValueError carrying the Unschedulable message."""
    nodes = list(nodes)
    used: Counter[str] = Counter()
    for other in pods:
        node_name = (other.get("spec") or {}).get("nodeName")
        if node_name and is_active(other):
            used[node_name] += gpu_request(other)
    wanted = gpu_request(pod)
    why: Counter[str] = Counter()
    free: dict[str, int] = {}
    for node in nodes:
        name = node["metadata"]["name"]
        left = quantity(((node.get("status") or {}).get("allocatable") or {}).get(GPU, 0)) - used[name]
        if not _node_ready(node):
            why["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"] += 1
        elif (node.get("spec") or {}).get("unschedulable"):
            why["node(s) were unschedulable"] += 1
        elif wanted > left:
            why[f"Insufficient {GPU}"] += 1
        else:
            free[name] = left
    if free:
        return max(sorted(free), key=lambda name: free[name])
    reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(why.items()))
    raise ValueError(
        f"0/{len(nodes)} nodes are available: {reasons}."
        if reasons
        else "no nodes available to schedule pods"
    )


def _node_ready(node: Mapping[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    ready = next((c for c in conditions if c.get("type") == "Ready"), None)
    return ready is not None and ready.get("status") == "True"


def node_ip(node: Mapping[str, Any] | None) -> str | None:
    addresses = ((node or {}).get("status") or {}).get("addresses") or []
    return next((str(a["address"]) for a in addresses if a.get("type") == "InternalIP"), None)
