"""Server-side printing: the meta.k8s.io/v1 `Table` kubectl asks for to print `kubectl get`.

kubectl sends `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` and prints the columns the
server chooses; without a Table it falls back to NAME and AGE only. The columns follow the API
server's printers for pods (READY, STATUS, RESTARTS), Deployments, ReplicaSets and Nodes; every
other kind gets NAME and AGE, as a custom resource without printer columns does. Ages are counted
from the stand-in's `now`. Rows carry the object's metadata (`includeObject=Metadata`, the
default), the whole object (`Object`) or nothing (`None`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bot.sandbox.kubernetes.patch import selector_text
from bot.sandbox.kubernetes.resources import Obj

Column = tuple[str, str, int]  # name, type, priority (1: only with -o wide)
_NAME: Column = ("Name", "string", 0)
_AGE: Column = ("Age", "string", 0)


def wants_table(accept: str) -> bool:
    return "as=table" in accept.lower().replace(" ", "")


def table(kind: str, objects: list[Obj], meta: Obj, include: str, now: datetime) -> Obj:
    """The Table of `objects` (all of one kind), with `meta` as its list metadata."""
    columns, cells = _PRINTERS.get(kind, (_DEFAULT, _default_cells))
    definitions = [
        {
            "name": name,
            "type": type_,
            "format": "name" if column == _NAME else "",
            "description": "",
            "priority": rank,
        }
        for column in columns
        for name, type_, rank in [column]
    ]
    rows: list[Obj] = []
    for obj in objects:
        row: Obj = {"cells": cells(obj, now)}
        if include != "None":
            row["object"] = _row_object(obj, include)
        rows.append(row)
    body: Obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta}
    return body | {"columnDefinitions": definitions, "rows": rows}


def _row_object(obj: Obj, include: str) -> Obj:
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}


def human_duration(seconds: float) -> str:
    """duration.HumanDuration, as kubectl's AGE column shows it."""
    total = int(seconds)
    if total < -1:
        return "<invalid>"
    if total < 120:
        return f"{max(total, 0)}s"
    minutes, hours, days = total // 60, total // 3600, total // 86400
    if minutes < 10:
        return f"{minutes}m{total % 60}s" if total % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    if hours < 24 * 365 * 8:
        return f"{days // 365}y{days % 365}d" if days % 365 else f"{days // 365}y"
    return f"{days // 365}y"


def _since(stamp: Any, now: datetime) -> str:
    if not isinstance(stamp, str) or not stamp:
        return "<unknown>"
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    aware = now if now.tzinfo else now.replace(tzinfo=UTC)
    return human_duration((aware - moment).total_seconds())


def _age(obj: Obj, now: datetime) -> str:
    return _since(obj["metadata"].get("creationTimestamp"), now)


# --- printers --------------------------------------------------------------------------------------

_DEFAULT: list[Column] = [_NAME, _AGE]


def _default_cells(obj: Obj, now: datetime) -> list[Any]:
    return [obj["metadata"]["name"], _age(obj, now)]


def _pod_cells(pod: Obj, now: datetime) -> list[Any]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    reason = status.get("reason") or status.get("phase") or "Unknown"
    ready, restarts, running, last_restart = 0, 0, False, ""
    for container in reversed(status.get("containerStatuses") or []):
        restarts += int(container.get("restartCount", 0))
        state = container.get("state") or {}
        finished = ((container.get("lastState") or {}).get("terminated") or {}).get("finishedAt") or ""
        last_restart = max(last_restart, finished)
        waiting, terminated = state.get("waiting") or {}, state.get("terminated")
        if waiting.get("reason"):
            reason = waiting["reason"]
        elif terminated is not None and terminated.get("reason"):
            reason = terminated["reason"]
        elif terminated is not None:
            code = terminated.get("signal") or terminated.get("exitCode", 0)
            reason = f"Signal:{code}" if terminated.get("signal") else f"ExitCode:{code}"
        elif container.get("ready") and "running" in state:
            running, ready = True, ready + 1
    if reason == "Completed" and running:
        reason = "Running"
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Terminating"
    shown_restarts = (
        f"{restarts} ({_since(last_restart, now)} ago)" if restarts and last_restart else str(restarts)
    )
    return [
        pod["metadata"]["name"],
        f"{ready}/{len(spec.get('containers') or [])}",
        reason,
        shown_restarts,
        _age(pod, now),
        status.get("podIP") or "<none>",
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        "<none>",
    ]


def _workload_extras(obj: Obj) -> list[Any]:
    spec = obj.get("spec") or {}
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    return [
        ",".join(c.get("name", "") for c in containers),
        ",".join(c.get("image", "") for c in containers),
        selector_text(spec.get("selector") or {}) or "<none>",
    ]


def _deployment_cells(deployment: Obj, now: datetime) -> list[Any]:
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    ready = f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}"
    counts = [status.get("updatedReplicas", 0), status.get("availableReplicas", 0)]
    return [
        deployment["metadata"]["name"],
        ready,
        *counts,
        _age(deployment, now),
        *_workload_extras(deployment),
    ]


def _replicaset_cells(rs: Obj, now: datetime) -> list[Any]:
    spec, status = rs.get("spec") or {}, rs.get("status") or {}
    counts = [spec.get("replicas", 1), status.get("replicas", 0), status.get("readyReplicas", 0)]
    return [rs["metadata"]["name"], *counts, _age(rs, now), *_workload_extras(rs)]


def _node_cells(node: Obj, now: datetime) -> list[Any]:
    spec, status = node.get("spec") or {}, node.get("status") or {}
    ready = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
    state = "Unknown" if ready is None or ready.get("status") == "Unknown" else "Ready"
    state = "NotReady" if ready is not None and ready.get("status") == "False" else state
    if spec.get("unschedulable"):
        state += ",SchedulingDisabled"
    labels = node["metadata"].get("labels") or {}
    roles = sorted(key.split("/", 1)[1] for key in labels if key.startswith("node-role.kubernetes.io/"))
    info = status.get("nodeInfo") or {}
    addresses = {a.get("type"): a.get("address") for a in status.get("addresses") or []}
    return [
        node["metadata"]["name"],
        state,
        ",".join(roles) or "<none>",
        _age(node, now),
        info.get("kubeletVersion", ""),
        addresses.get("InternalIP") or "<none>",
        addresses.get("ExternalIP") or "<none>",
        info.get("osImage") or "<unknown>",
        info.get("kernelVersion") or "<unknown>",
        info.get("containerRuntimeVersion") or "<unknown>",
    ]


_WORKLOAD_WIDE: list[Column] = [
    ("Containers", "string", 1),
    ("Images", "string", 1),
    ("Selector", "string", 1),
]
_PRINTERS: dict[str, tuple[list[Column], Callable[[Obj, datetime], list[Any]]]] = {
    "Pod": (
        [
            _NAME,
            ("Ready", "string", 0),
            ("Status", "string", 0),
            ("Restarts", "string", 0),
            _AGE,
            ("IP", "string", 1),
            ("Node", "string", 1),
            ("Nominated Node", "string", 1),
            ("Readiness Gates", "string", 1),
        ],
        _pod_cells,
    ),
    "Deployment": (
        [
            _NAME,
            ("Ready", "string", 0),
            ("Up-to-date", "integer", 0),
            ("Available", "integer", 0),
            _AGE,
            *_WORKLOAD_WIDE,
        ],
        _deployment_cells,
    ),
    "ReplicaSet": (
        [
            _NAME,
            ("Desired", "integer", 0),
            ("Current", "integer", 0),
            ("Ready", "integer", 0),
            _AGE,
            *_WORKLOAD_WIDE,
        ],
        _replicaset_cells,
    ),
    "Node": (
        [
            _NAME,
            ("Status", "string", 0),
            ("Roles", "string", 0),
            _AGE,
            ("Version", "string", 0),
            ("Internal-IP", "string", 1),
            ("External-IP", "string", 1),
            ("OS-Image", "string", 1),
            ("Kernel-Version", "string", 1),
            ("Container-Runtime", "string", 1),
        ],
        _node_cells,
    ),
}
