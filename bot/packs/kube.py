"""k8s.yaml: the objects of the incident's namespace that the triage reads, as the API serves them.

The triage's own topology read (`KubeTool.topology`: HTTPRoutes into the namespace, Services,
Pods, ReplicaSets, Deployments, Ingresses, Nodes) and the core/v1 Events of the namespace and of
the nodes its pods run on. Only the nodes that run the namespace's pods (or that the scope names)
are kept; Secrets and ConfigMaps are never read. Each object is redacted (bot.packs.redaction)
and given the `apiVersion` and `kind` a list's items leave out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client as k8s

from bot.packs.redaction import kube_object
from tools.kubernetes import KubeTool
from tools.result import Gap

GATEWAY_V1 = "gateway.networking.k8s.io/v1"


def read(
    api: k8s.ApiClient, namespace: str, nodes: list[str], *, timeout: float
) -> list[dict[str, Any]] | Gap:
    """Every object to export, or the gap that stopped the topology read."""
    topology = KubeTool(api, timeout=timeout).topology(namespace)
    if isinstance(topology, Gap):
        return topology
    kept_nodes = set(nodes) | {
        str((p.get("spec") or {}).get("nodeName"))
        for p in topology.pods
        if (p.get("spec") or {}).get("nodeName")
    }
    groups: list[tuple[str, str, list[dict[str, Any]]]] = [
        ("v1", "Node", [n for n in topology.nodes if n["metadata"]["name"] in kept_nodes]),
        (GATEWAY_V1, "HTTPRoute", topology.routes),
        ("networking.k8s.io/v1", "Ingress", topology.ingresses),
        ("v1", "Service", topology.services),
        ("apps/v1", "Deployment", topology.deployments),
        ("apps/v1", "ReplicaSet", topology.replicasets),
        ("v1", "Pod", topology.pods),
        ("v1", "Event", _events(api, namespace, kept_nodes, timeout=timeout)),
    ]
    out = []
    for version, kind, items in groups:
        for item in items:
            cleaned = kube_object({**item, "apiVersion": item.get("apiVersion") or version, "kind": kind})
            if cleaned is not None:
                out.append(cleaned)
    return out


def _events(api: k8s.ApiClient, namespace: str, nodes: set[str], *, timeout: float) -> list[dict[str, Any]]:
    """core/v1 Events of the namespace, and those of the kept nodes (the format packs hold)."""
    core = k8s.CoreV1Api(api)

    def items(response: Any) -> list[dict[str, Any]]:
        return list(json.loads(response.data or b"{}").get("items") or [])

    own = items(core.list_namespaced_event(namespace, _request_timeout=timeout, _preload_content=False))
    if not nodes:
        return own
    of_nodes = items(
        core.list_event_for_all_namespaces(
            field_selector="involvedObject.kind=Node", _request_timeout=timeout, _preload_content=False
        )
    )
    seen = {(e["metadata"].get("namespace"), e["metadata"]["name"]) for e in own}
    return own + [
        e
        for e in of_nodes
        if (e.get("involvedObject") or {}).get("name") in nodes
        and (e["metadata"].get("namespace"), e["metadata"]["name"]) not in seen
    ]


def write(objects: list[dict[str, Any]], path: Path) -> None:
    """Multi-document YAML, one object a document."""
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False, allow_unicode=True), encoding="utf-8")
