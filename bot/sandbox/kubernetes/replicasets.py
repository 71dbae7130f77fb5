"""The ReplicaSet controller, with the scheduler and kubelet it needs: pods made, placed and started.

A ReplicaSet keeps as many active pods as spec.replicas (its own by controller ownerReference,
adopting matching orphans as the real controller does): missing pods are created from its
template and scheduled at once (or left Pending, Unschedulable), surplus ones deleted not-Ready
first, newest first. A scheduled pod turns Running and Ready `pod_ready_seconds` later. Pods it
could not place are tried again when a node changes or a pod goes away. Its status counts follow.
"""

from __future__ import annotations

import functools
import random
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from bot.sandbox.kubernetes.clock import Clocked
from bot.sandbox.kubernetes.objects import mark_terminating
from bot.sandbox.kubernetes.pods import (
    bind,
    controller_uid,
    is_active,
    is_ready,
    new_pod,
    owner_ref,
    start,
    unschedulable,
)
from bot.sandbox.kubernetes.resources import RESOURCES, Obj
from bot.sandbox.kubernetes.scheduler import node_ip, place
from bot.sandbox.kubernetes.selectors import selects

_BY_KIND = {res.kind: res for res in RESOURCES}
POD, NODE, RS = _BY_KIND["Pod"], _BY_KIND["Node"], _BY_KIND["ReplicaSet"]
# The suffix alphabet of generateName (no vowels, no look-alikes), as the API server draws it.
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class ReplicaSets(Clocked):
    """Pods for ReplicaSets; `_waiting` holds the pods it made that no node could take yet."""

    def __init__(
        self, objects: Iterable[Mapping[str, Any]], *, now: Callable[[], datetime], **knobs: Any
    ) -> None:
        super().__init__(objects, now=now, **knobs)
        self._waiting: set[tuple[str, str]] = set()
        self._born: dict[str, int] = {}  # uid -> creation order, for pods the stand-in made
        self._random = random.Random()

    def _sync_replicaset(self, rs: Obj) -> None:
        meta = rs["metadata"]
        pods = self._claim_pods(rs)
        wanted = int((rs.get("spec") or {}).get("replicas", 1))
        pods += [self._create_pod(rs) for _ in range(wanted - len(pods))]
        for pod in self._deletion_order(pods)[: max(len(pods) - wanted, 0)]:
            self._delete_pod(pod)
            pods.remove(pod)
        template_labels = (((rs.get("spec") or {}).get("template") or {}).get("metadata") or {}).get(
            "labels"
        ) or {}
        labeled = sum(
            1 for pod in pods if template_labels.items() <= (pod["metadata"].get("labels") or {}).items()
        )
        ready = sum(1 for pod in pods if is_ready(pod))
        status = dict(rs.get("status") or {}) | {"replicas": len(pods)}
        for field, count in (
            ("fullyLabeledReplicas", labeled),
            ("readyReplicas", ready),
            ("availableReplicas", ready),
        ):
            if count:
                status[field] = count
            else:
                status.pop(field, None)
        status["observedGeneration"] = meta.get("generation", 1)
        self._put(RS, rs | {"status": status})

    def _claim_pods(self, rs: Obj) -> list[Obj]:
        """The active pods the ReplicaSet controls, orphans its selector matches adopted on the way."""
        uid, selector = rs["metadata"]["uid"], (rs.get("spec") or {}).get("selector")
        owned = []
        for pod in self._objects(POD, rs["metadata"]["namespace"]):
            if not is_active(pod):
                continue
            if controller_uid(pod) is None and selector and selects(selector, pod["metadata"].get("labels")):
                pod["metadata"]["ownerReferences"] = [
                    *(pod["metadata"].get("ownerReferences") or []),
                    owner_ref(rs),
                ]
                pod = self._put(POD, pod) or pod
            if controller_uid(pod) == uid:
                owned.append(pod)
        return owned

    def _deletion_order(self, pods: list[Obj]) -> list[Obj]:
        """Not-Ready before Ready, and newest first within each."""
        newest = sorted(
            pods,
            key=lambda p: (
                p["metadata"].get("creationTimestamp") or "",
                self._born.get(p["metadata"]["uid"], -1),
            ),
            reverse=True,
        )
        return sorted(newest, key=is_ready)

    def _create_pod(self, rs: Obj) -> Obj:
        taken = {p["metadata"]["name"] for p in self._objects(POD, rs["metadata"]["namespace"])}
        name = ""
        while not name or name in taken:
            name = f"{rs['metadata']['name']}-" + "".join(self._random.choices(SUFFIX_ALPHABET, k=5))
        pod = new_pod(rs, name, str(uuid.uuid4()), self._stamp())
        self._born[pod["metadata"]["uid"]] = len(self._born)
        self._place(pod)
        stored = self._put(POD, pod)
        assert stored is not None  # a new name: always a change
        return stored

    def _delete_pod(self, pod: Obj) -> None:
        grace = int((pod.get("spec") or {}).get("terminationGracePeriodSeconds", 30))
        mark_terminating(pod, grace, self._now())
        self._drop(POD, pod)

    def _place(self, pod: Obj) -> bool:
        """Bind the pod to a node and start its clock, or leave it Unschedulable and waiting."""
        key = (pod["metadata"]["namespace"], pod["metadata"]["name"])
        try:
            node = place(pod, self._objects(NODE), self._objects(POD))
        except ValueError as why:
            unschedulable(pod, str(why), self._stamp())
            self._waiting.add(key)
            return False
        bind(pod, node, self._stamp())
        self._waiting.discard(key)
        self._later(self._pod_ready_seconds, functools.partial(self._start_pod, *key, pod["metadata"]["uid"]))
        return True

    def _start_pod(self, namespace: str, name: str, uid: str) -> None:
        """The kubelet's part: the bound pod's containers are up and ready."""
        pod = self._find(POD, namespace, name)
        if (
            pod is None
            or pod["metadata"]["uid"] != uid
            or (pod.get("status") or {}).get("phase") != "Pending"
        ):
            return
        order = self._born.get(uid, 0)
        address = f"10.244.{order // 250 % 250}.{order % 250 + 2}"
        start(pod, self._stamp(), address, node_ip(self._find(NODE, None, pod["spec"]["nodeName"])))
        self._put(POD, pod)

    def _schedule_waiting(self) -> None:
        """Try the pods no node could take again (a node changed, or a pod freed its GPUs)."""
        for namespace, name in sorted(self._waiting):
            pod = self._find(POD, namespace, name)
            if pod is None or (pod.get("spec") or {}).get("nodeName"):
                self._waiting.discard((namespace, name))
                continue
            if self._place(pod):
                self._put(POD, pod)
