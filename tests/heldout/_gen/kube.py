"""Deployments, ReplicaSets and Pods as `kubectl get -o yaml` prints them (the parts that matter)."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .lib import Obj, container_id, image_id, iso, kname, owner, uid

DEFAULT_TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
    {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
]


def probe_http(
    path: str, port: int | str, period: int = 10, failure: int = 3, initial: int = 0, timeout: int = 1
) -> Obj:
    return {
        "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
        "initialDelaySeconds": initial,
        "periodSeconds": period,
        "timeoutSeconds": timeout,
        "successThreshold": 1,
        "failureThreshold": failure,
    }


def probe_tcp(port: int | str, period: int = 10, failure: int = 3, initial: int = 0) -> Obj:
    return {
        "tcpSocket": {"port": port},
        "initialDelaySeconds": initial,
        "periodSeconds": period,
        "timeoutSeconds": 1,
        "successThreshold": 1,
        "failureThreshold": failure,
    }


@dataclass
class Revision:
    number: int
    hash: str
    created: datetime
    template: Obj  # pod template (metadata + spec)
    change_cause: str | None = None
    uid: str = ""
    replicas: int = 0  # desired replicas of this ReplicaSet at as_of
    ready: int = 0
    available: int = 0
    fully_labeled: int | None = None


@dataclass
class Workload:
    name: str
    namespace: str
    labels: dict[str, str]  # selector labels (also on the Deployment)
    replicas: int
    created: datetime
    uid: str
    strategy: Obj
    revisions: list[Revision] = field(default_factory=list)
    extra_labels: dict[str, str] = field(default_factory=dict)
    progress_deadline: int = 600
    conditions: list[Obj] = field(default_factory=list)
    status: Obj = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def current(self) -> Revision:
        return max(self.revisions, key=lambda r: r.number)

    def template_for(self, rev: Revision) -> Obj:
        t = copy.deepcopy(rev.template)
        t.setdefault("metadata", {}).setdefault("labels", {})
        t["metadata"]["labels"] = {**self.labels, **t["metadata"]["labels"]}
        return t

    def deployment(self) -> Obj:
        cur = self.current
        tmpl = self.template_for(cur)
        ann = {"deployment.kubernetes.io/revision": str(cur.number), **self.annotations}
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "uid": self.uid,
                "generation": cur.number + 1,
                "creationTimestamp": iso(self.created),
                "labels": {**self.labels, **self.extra_labels},
                "annotations": ann,
            },
            "spec": {
                "replicas": self.replicas,
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": self.progress_deadline,
                "selector": {"matchLabels": dict(self.labels)},
                "strategy": self.strategy,
                "template": tmpl,
            },
            "status": {"observedGeneration": cur.number + 1, **self.status, "conditions": self.conditions},
        }

    def replicaset(self, rev: Revision) -> Obj:
        tmpl = self.template_for(rev)
        tmpl["metadata"]["labels"]["pod-template-hash"] = rev.hash
        surge = self.strategy.get("rollingUpdate", {}).get("maxSurge", 0)
        surge_n = surge if isinstance(surge, int) else -(-self.replicas * int(str(surge).rstrip("%")) // 100)
        ann = {
            "deployment.kubernetes.io/desired-replicas": str(self.replicas),
            "deployment.kubernetes.io/max-replicas": str(self.replicas + surge_n),
            "deployment.kubernetes.io/revision": str(rev.number),
        }
        if rev.change_cause:
            ann["kubernetes.io/change-cause"] = rev.change_cause
        status: Obj = {"replicas": rev.replicas, "observedGeneration": 2 if rev.replicas else 3}
        if rev.fully_labeled is not None or rev.replicas:
            status["fullyLabeledReplicas"] = rev.replicas if rev.fully_labeled is None else rev.fully_labeled
        if rev.ready:
            status["readyReplicas"] = rev.ready
        if rev.available:
            status["availableReplicas"] = rev.available
        return {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{self.name}-{rev.hash}",
                "namespace": self.namespace,
                "uid": rev.uid,
                "generation": 2 if rev.replicas else 3,
                "creationTimestamp": iso(rev.created),
                "labels": {**self.labels, "pod-template-hash": rev.hash},
                "annotations": ann,
                "ownerReferences": [owner("Deployment", self.name, self.uid)],
            },
            "spec": {
                "replicas": rev.replicas,
                "selector": {"matchLabels": {**self.labels, "pod-template-hash": rev.hash}},
                "template": tmpl,
            },
            "status": status,
        }


def cstatus(
    rng: random.Random,
    *,
    name: str,
    image: str,
    ready: bool,
    restart_count: int = 0,
    running_since: datetime | None = None,
    waiting: tuple[str, str] | None = None,
    last_terminated: Obj | None = None,
    pulled: bool = True,
) -> Obj:
    st: Obj = {"name": name, "image": image}
    if pulled:
        st["imageID"] = image_id(image)
        st["containerID"] = container_id(rng)
    else:
        st["imageID"] = ""
    st["ready"] = ready
    st["restartCount"] = restart_count
    st["started"] = running_since is not None
    if running_since is not None:
        st["state"] = {"running": {"startedAt": iso(running_since)}}
    elif waiting is not None:
        st["state"] = {"waiting": {"reason": waiting[0], "message": waiting[1]}}
    st["lastState"] = {"terminated": last_terminated} if last_terminated else {}
    return st


def terminated(
    rng: random.Random,
    *,
    reason: str,
    exit_code: int,
    started: datetime,
    finished: datetime,
    message: str | None = None,
) -> Obj:
    t: Obj = {
        "containerID": container_id(rng),
        "exitCode": exit_code,
        "reason": reason,
        "startedAt": iso(started),
        "finishedAt": iso(finished),
    }
    if message:
        t["message"] = message
    return t


def pod_obj(
    w: Workload,
    rev: Revision,
    *,
    name: str,
    uid_: str,
    node: str | None,
    created: datetime,
    pod_ip: str | None,
    host_ip: str | None,
    phase: str,
    ready: bool,
    container_statuses: list[Obj],
    scheduled_at: datetime | None = None,
    ready_since: datetime | None = None,
    containers_ready_since: datetime | None = None,
    qos: str = "Burstable",
    extra_conditions: list[Obj] | None = None,
) -> Obj:
    tmpl = w.template_for(rev)
    spec = copy.deepcopy(tmpl["spec"])
    if node:
        spec["nodeName"] = node
    labels = {**tmpl["metadata"]["labels"], "pod-template-hash": rev.hash}
    md: Obj = {
        "name": name,
        "generateName": f"{w.name}-{rev.hash}-",
        "namespace": w.namespace,
        "uid": uid_,
        "creationTimestamp": iso(created),
        "labels": labels,
        "ownerReferences": [owner("ReplicaSet", f"{w.name}-{rev.hash}", rev.uid)],
    }
    if tmpl["metadata"].get("annotations"):
        md["annotations"] = dict(tmpl["metadata"]["annotations"])
    unready = ", ".join(c["name"] for c in container_statuses if not c["ready"])
    sched = scheduled_at or created
    rs = ready_since or sched
    crs = containers_ready_since or rs
    conds = [
        {
            "type": "PodReadyToStartContainers",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": iso(sched + timedelta(seconds=2)),
        },
        {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": iso(sched)},
        {
            "type": "Ready",
            "status": "True" if ready else "False",
            "lastProbeTime": None,
            "lastTransitionTime": iso(rs),
            **(
                {}
                if ready
                else {
                    "reason": "ContainersNotReady",
                    "message": f"containers with unready status: [{unready}]",
                }
            ),
        },
        {
            "type": "ContainersReady",
            "status": "True" if ready else "False",
            "lastProbeTime": None,
            "lastTransitionTime": iso(crs),
            **(
                {}
                if ready
                else {
                    "reason": "ContainersNotReady",
                    "message": f"containers with unready status: [{unready}]",
                }
            ),
        },
        {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": iso(sched)},
    ]
    if extra_conditions:
        conds.extend(extra_conditions)
    status: Obj = {"phase": phase, "conditions": conds}
    if host_ip:
        status["hostIP"] = host_ip
        status["hostIPs"] = [{"ip": host_ip}]
    if pod_ip:
        status["podIP"] = pod_ip
        status["podIPs"] = [{"ip": pod_ip}]
    status["startTime"] = iso(sched)
    status["containerStatuses"] = container_statuses
    status["qosClass"] = qos
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def pod_name(rng: random.Random, w: Workload, rev: Revision) -> str:
    return f"{w.name}-{rev.hash}-{kname(rng, 5)}"


def rs_hash(rng: random.Random, k: int = 10) -> str:
    return kname(rng, k)


def new_uid(rng: random.Random) -> str:
    return uid(rng)


def dep_conditions(
    *,
    available: tuple[str, str, str, datetime, datetime],
    progressing: tuple[str, str, str, datetime, datetime],
) -> list[Obj]:
    out = []
    for typ, (st, reason, msg, upd, trans) in (("Available", available), ("Progressing", progressing)):
        out.append(
            {
                "type": typ,
                "status": st,
                "reason": reason,
                "message": msg,
                "lastUpdateTime": iso(upd),
                "lastTransitionTime": iso(trans),
            }
        )
    return out


def any_(x: Any) -> Any:
    return x
