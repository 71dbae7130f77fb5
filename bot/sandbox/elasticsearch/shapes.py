"""A pack's ECS log documents re-shaped as other shippers write them, to test the field presets.

`fluentbit` is what Fluent Bit's Kubernetes filter (with `Merge_Log`) sends: the line in `log`, the
metadata under `kubernetes.namespace_name`, `pod_name`, `host`, `container_name`; a node's own line
(kernel, kubelet) keeps only the host. `flat` is what a shipper without a schema sends: top-level
`namespace`, `pod`, `node`, `message`, `level`, `status`, `error_type`, or ECS names as dotted keys.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def _get(doc: Json, path: str) -> Any:
    node: Any = doc
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def fluentbit(doc: Json) -> Json:
    """One ECS document as Fluent Bit's Kubernetes filter would have sent it."""
    kube: Json = {}
    if _get(doc, "kubernetes.namespace") is not None:
        kube = {
            "namespace_name": _get(doc, "kubernetes.namespace"),
            "pod_name": _get(doc, "kubernetes.pod.name"),
            "container_name": _get(doc, "container.name") or "server",
        }
    host = _get(doc, "kubernetes.node.name") or _get(doc, "host.name")
    if host is not None:
        kube["host"] = host
    out: Json = {"@timestamp": doc["@timestamp"], "log": doc.get("message", ""), "stream": "stderr"}
    if kube:
        out["kubernetes"] = kube
    for name, path in (("level", "log.level"), ("status", "http.response.status_code")):
        if _get(doc, path) is not None:
            out[name] = _get(doc, path)
    if isinstance(doc.get("error"), dict):  # an application's JSON keys, merged by Merge_Log
        out["error"] = doc["error"]
    return out


def flat(doc: Json, *, dotted: bool = False) -> Json:
    """One ECS document with flat keys (`namespace`, `pod`, `node`...), or ECS names as dotted keys."""
    if dotted:
        return {path: value for path, value in _leaves(doc)}
    out: Json = {"@timestamp": doc["@timestamp"], "message": doc.get("message", "")}
    for name, path in (
        ("namespace", "kubernetes.namespace"),
        ("pod", "kubernetes.pod.name"),
        ("node", "kubernetes.node.name"),
        ("level", "log.level"),
        ("status", "http.response.status_code"),
        ("service", "service.name"),
        ("error_type", "error.type"),
        ("error_message", "error.message"),
    ):
        if _get(doc, path) is not None:
            out[name] = _get(doc, path)
    if "node" not in out and _get(doc, "host.name") is not None:
        out["node"] = _get(doc, "host.name")
    return out


def _leaves(doc: Json, prefix: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for key, value in doc.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            found += _leaves(value, f"{path}.")
        else:
            found.append((path, value))
    return found
