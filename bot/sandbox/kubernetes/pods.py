"""Pods as the kubelet and the scheduler leave them: created from a template, bound or not, started.

Pure functions over pod objects, so the controllers only decide *when*: a pod made from a
ReplicaSet's template starts Pending, is bound to a node (PodScheduled) or left Unschedulable with
the scheduler's message, and turns Running and Ready when its containers come up. Ownership and
readiness are read the way the controllers read them (the controller ownerReference, the Ready
condition).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from bot.sandbox.kubernetes.resources import Obj

GPU = "nvidia.com/gpu"
_TERMINAL = ("Succeeded", "Failed")


def controller_uid(obj: Mapping[str, Any]) -> str | None:
    """The uid of the object's managing controller (the ownerReference with controller: true)."""
    refs = (obj.get("metadata") or {}).get("ownerReferences") or []
    return next((str(ref.get("uid")) for ref in refs if ref.get("controller")), None)


def owner_ref(owner: Mapping[str, Any]) -> Obj:
    meta = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_ready(pod: Mapping[str, Any]) -> bool:
    """The Ready condition; a recorded pod without conditions is ready when running with ready containers."""
    status = pod.get("status") or {}
    ready = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
    if ready is not None:
        return bool(ready.get("status") == "True")
    containers = status.get("containerStatuses") or []
    return status.get("phase") == "Running" and bool(containers) and all(c.get("ready") for c in containers)


def is_active(pod: Mapping[str, Any]) -> bool:
    """Counted by its controller: not finished and not on its way out."""
    terminating = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    return not terminating and (pod.get("status") or {}).get("phase") not in _TERMINAL


def gpu_request(pod: Mapping[str, Any]) -> int:
    """GPUs the pod's containers ask for (an extended resource: the request, else the limit)."""
    total = 0
    for container in (pod.get("spec") or {}).get("containers") or []:
        resources = container.get("resources") or {}
        asked = (resources.get("requests") or {}).get(GPU, (resources.get("limits") or {}).get(GPU, 0))
        total += quantity(asked)
    return total


def quantity(value: Any) -> int:
    """A whole-number quantity ("8", 8); anything else counts as none."""
    try:
        return int(float(str(value)))
    except ValueError:
        return 0


def new_pod(rs: Mapping[str, Any], name: str, uid: str, now: str) -> Obj:
    """A pod of the ReplicaSet's template, as the ReplicaSet controller posts it: Pending, unbound."""
    template = copy.deepcopy(rs["spec"].get("template") or {})
    template_meta = template.get("metadata") or {}
    meta: Obj = {
        "name": name,
        "generateName": f"{rs['metadata']['name']}-",
        "namespace": rs["metadata"]["namespace"],
        "uid": uid,
        "creationTimestamp": now,
        "labels": dict(template_meta.get("labels") or {}),
        "ownerReferences": [owner_ref(rs)],
    }
    if template_meta.get("annotations"):
        meta["annotations"] = dict(template_meta["annotations"])
    spec = template.get("spec") or {}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Pending"}}


def bind(pod: Obj, node: str, now: str) -> None:
    """Scheduled to `node`: the containers are being created."""
    pod["spec"]["nodeName"] = node
    waiting = {"waiting": {"reason": "ContainerCreating"}}
    pod["status"] = {
        "phase": "Pending",
        "conditions": [_condition("PodScheduled", "True", now)],
        "containerStatuses": [_container(c, ready=False, state=waiting) for c in _containers(pod)],
        "qosClass": "Burstable",
    }


def unschedulable(pod: Obj, message: str, now: str) -> None:
    scheduled = _condition("PodScheduled", "False", now) | {"reason": "Unschedulable", "message": message}
    pod["status"] = {"phase": "Pending", "conditions": [scheduled], "qosClass": "Burstable"}


def start(pod: Obj, now: str, ip: str, host_ip: str | None) -> None:
    """The kubelet's report once every container runs and passes its readiness probe."""
    running = {"running": {"startedAt": now}}
    kinds = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
    status: Obj = {
        "phase": "Running",
        "conditions": [_condition(kind, "True", now) for kind in kinds],
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": now,
        "containerStatuses": [_container(c, ready=True, state=running) for c in _containers(pod)],
        "qosClass": "Burstable",
    }
    if host_ip:
        status |= {"hostIP": host_ip, "hostIPs": [{"ip": host_ip}]}
    pod["status"] = status


def _containers(pod: Mapping[str, Any]) -> list[Obj]:
    return list((pod.get("spec") or {}).get("containers") or [])


def _container(container: Mapping[str, Any], *, ready: bool, state: Obj) -> Obj:
    return {
        "name": container.get("name", ""),
        "image": container.get("image", ""),
        "imageID": "",
        "ready": ready,
        "started": ready,
        "restartCount": 0,
        "state": state,
    }


def _condition(kind: str, status: str, now: str) -> Obj:
    return {"type": kind, "status": status, "lastProbeTime": None, "lastTransitionTime": now}
