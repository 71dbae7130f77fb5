"""Kubernetes objects as `kubectl get -o yaml` prints them (dicts, dumped by the pack writer).

Names follow Kubernetes' own rules: ReplicaSets are `<deployment>-<pod-template-hash>`, Pods
`<replicaset>-<5 chars>` from the same safe alphabet, Events `<object>.<hex unix nanos>`.
A `Workload` holds a Deployment's revisions and live pods and renders the Deployment, one
ReplicaSet per revision (the real diff is in each template) and the Pods.
"""

from __future__ import annotations

import copy
import hashlib
import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .series import iso

SAFE = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand alphanums

Obj = dict[str, Any]


def safe_string(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(SAFE) for _ in range(k))


def template_hash(rng: random.Random) -> str:
    return safe_string(rng, rng.choice([9, 10]))


def new_uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def container_id(rng: random.Random) -> str:
    return "containerd://" + "".join(rng.choice("0123456789abcdef") for _ in range(64))


# -- nodes -----------------------------------------------------------------------------------------
@dataclass
class Node:
    name: str
    internal_ip: str
    zone: str
    instance_type: str
    gpu_product: str | None = None
    gpu_count: int = 0
    cpu: int = 192
    memory_mi: int = 2_097_152
    created: datetime | None = None
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[dict[str, Any]] = field(default_factory=list)
    unschedulable: bool = False
    allocatable_gpu: int | None = None
    ready: str = "True"  # "True" | "False" | "Unknown"
    ready_since: datetime | None = None
    heartbeat: datetime | None = None
    not_ready_since: datetime | None = None
    kubelet_version: str = "v1.30.4"
    runtime: str = "containerd://1.7.20"
    os_image: str = "Ubuntu 22.04.4 LTS"
    kernel: str = "5.15.0-1068-aws"
    driver: str = "550.90.07"
    uid: str = ""
    pod_cidr: str = ""

    def object(self, as_of: datetime) -> Obj:
        labels = {
            "kubernetes.io/hostname": self.name,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "node.kubernetes.io/instance-type": self.instance_type,
            "topology.kubernetes.io/zone": self.zone,
            "topology.kubernetes.io/region": self.zone[:-1] if self.zone[-1].isalpha() else self.zone,
        }
        if self.gpu_product:
            labels.update(
                {
                    "nvidia.com/gpu.present": "true",
                    "nvidia.com/gpu.product": self.gpu_product.replace(" ", "-"),
                    "nvidia.com/gpu.count": str(self.gpu_count),
                    "nvidia.com/cuda.driver.major": self.driver.split(".")[0],
                }
            )
        labels.update(self.labels)
        capacity = {"cpu": str(self.cpu), "memory": f"{self.memory_mi}Mi", "pods": "110"}
        allocatable = {
            "cpu": f"{self.cpu * 1000 - 500}m",
            "memory": f"{self.memory_mi - 14_336}Mi",
            "pods": "110",
        }
        if self.gpu_count:
            capacity["nvidia.com/gpu"] = str(self.gpu_count)
            alloc = self.gpu_count if self.allocatable_gpu is None else self.allocatable_gpu
            allocatable["nvidia.com/gpu"] = str(alloc)
        heartbeat = self.heartbeat or (as_of - timedelta(seconds=37))
        since = self.ready_since or (as_of - timedelta(days=6, hours=3))
        conditions: list[Obj] = []
        if self.ready == "Unknown":
            for ctype in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready"):
                conditions.append(
                    {
                        "type": ctype,
                        "status": "Unknown",
                        "lastHeartbeatTime": iso(heartbeat),
                        "lastTransitionTime": iso(self.not_ready_since or heartbeat),
                        "reason": "NodeStatusUnknown",
                        "message": "Kubelet stopped posting node status.",
                    }
                )
        else:
            for ctype, reason, message in (
                ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ):
                conditions.append(
                    {
                        "type": ctype,
                        "status": "False",
                        "lastHeartbeatTime": iso(heartbeat),
                        "lastTransitionTime": iso(since),
                        "reason": reason,
                        "message": message,
                    }
                )
            ready = self.ready == "True"
            conditions.append(
                {
                    "type": "Ready",
                    "status": self.ready,
                    "lastHeartbeatTime": iso(heartbeat),
                    "lastTransitionTime": iso(since if ready else (self.not_ready_since or since)),
                    "reason": "KubeletReady" if ready else "KubeletNotReady",
                    "message": "kubelet is posting ready status"
                    if ready
                    else "container runtime network not ready: NetworkReady=false",
                }
            )
        spec: Obj = {"podCIDR": self.pod_cidr, "podCIDRs": [self.pod_cidr], "providerID": self.provider_id()}
        if self.taints:
            spec["taints"] = copy.deepcopy(self.taints)
        if self.unschedulable:
            spec["unschedulable"] = True
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "uid": self.uid,
                "resourceVersion": "1",
                "creationTimestamp": iso(self.created or (as_of - timedelta(days=41))),
                "labels": labels,
                "annotations": {
                    "node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                },
            },
            "spec": spec,
            "status": {
                "addresses": [
                    {"type": "InternalIP", "address": self.internal_ip},
                    {"type": "Hostname", "address": self.name},
                ],
                "capacity": capacity,
                "allocatable": allocatable,
                "conditions": conditions,
                "nodeInfo": {
                    "architecture": "amd64",
                    "containerRuntimeVersion": self.runtime,
                    "kernelVersion": self.kernel,
                    "kubeletVersion": self.kubelet_version,
                    "kubeProxyVersion": self.kubelet_version,
                    "operatingSystem": "linux",
                    "osImage": self.os_image,
                },
            },
        }

    def provider_id(self) -> str:
        if self.name.startswith("ip-"):
            return f"aws:///{self.zone}/i-0{stable(self.name) % 16**16:016x}"
        if self.name.startswith("gke-"):
            return f"gce://ml-platform-prod/{self.zone}/{self.name}"
        if self.name.startswith("aks-"):
            return f"azure:///subscriptions/0/resourceGroups/mc_ml/providers/vmss/{self.name}"
        return f"metal://{self.name}"


# -- workloads -------------------------------------------------------------------------------------
@dataclass
class Revision:
    """One Deployment revision = one ReplicaSet with its own pod template."""

    number: int
    hash: str
    created: datetime
    image: str
    args: list[str]
    env: list[dict[str, Any]] = field(default_factory=list)
    change_cause: str | None = None
    replicas: int = 0  # desired replicas of this ReplicaSet at as_of
    uid: str = ""
    command: list[str] | None = None


@dataclass
class PodInfo:
    """A pod that exists at `as_of` (pods deleted earlier only live on in metrics and logs)."""

    name: str
    revision: Revision
    node: str | None
    ip: str | None
    host_ip: str | None
    created: datetime
    uid: str = ""
    started: datetime | None = None
    ready: bool = True
    ready_since: datetime | None = None
    restarts: int = 0
    last_terminated: dict[str, Any] | None = None
    waiting: tuple[str, str] | None = None  # (reason, message) when the container is waiting
    running_since: datetime | None = None
    phase: str = "Running"
    container_id: str = ""
    unschedulable_message: str | None = None  # Pending with PodScheduled=False
    deletion: datetime | None = None  # marked for deletion (terminating)
    gpu_uuids: list[str] = field(default_factory=list)


@dataclass
class Workload:
    name: str
    namespace: str
    container: str
    port: int
    labels: dict[str, str]
    revisions: list[Revision]
    pods: list[PodInfo]
    created: datetime
    replicas: int
    gpus: int = 1
    cpu: str = "16"
    memory: str = "160Gi"
    memory_limit: str = "200Gi"
    readiness: dict[str, Any] | None = None
    liveness: dict[str, Any] | None = None
    startup: dict[str, Any] | None = None
    max_surge: int | str = 1
    max_unavailable: int | str = 0
    service_account: str = "inference"
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(
        default_factory=lambda: [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    )
    volumes: list[dict[str, Any]] = field(default_factory=list)
    volume_mounts: list[dict[str, Any]] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)
    pod_annotations: dict[str, str] = field(default_factory=dict)
    uid: str = ""
    progressing: tuple[str, str, datetime] | None = None  # (status, reason, since) override
    metrics_port: int | None = None
    extra_ports: list[dict[str, Any]] = field(default_factory=list)
    sidecars: list[dict[str, Any]] = field(default_factory=list)  # extra containers, always running
    service_target: str = "http"  # the named port the Service sends traffic to
    generation: int | None = None  # metadata.generation (default: revision + 3)
    cluster_ip: str = "10.96.0.10"

    @property
    def current(self) -> Revision:
        return max(self.revisions, key=lambda r: r.number)

    def selector(self) -> dict[str, str]:
        return dict(self.labels)

    def pod_labels(self, rev: Revision) -> dict[str, str]:
        return {**self.labels, "pod-template-hash": rev.hash}

    def container_spec(self, rev: Revision) -> Obj:
        spec: Obj = {"name": self.container, "image": rev.image}
        if rev.command:
            spec["command"] = list(rev.command)
        spec["args"] = list(rev.args)
        if rev.env:
            spec["env"] = copy.deepcopy(rev.env)
        ports = [{"containerPort": self.port, "name": "http", "protocol": "TCP"}]
        if self.metrics_port:
            ports.append({"containerPort": self.metrics_port, "name": "metrics", "protocol": "TCP"})
        ports.extend(self.extra_ports)
        spec["ports"] = ports
        limits: Obj = {"memory": self.memory_limit}
        requests: Obj = {"cpu": self.cpu, "memory": self.memory}
        if self.gpus:
            limits["nvidia.com/gpu"] = str(self.gpus)
            requests["nvidia.com/gpu"] = str(self.gpus)
        spec["resources"] = {"limits": limits, "requests": requests}
        for key, probe in (
            ("startupProbe", self.startup),
            ("readinessProbe", self.readiness),
            ("livenessProbe", self.liveness),
        ):
            if probe:
                spec[key] = copy.deepcopy(probe)
        if self.volume_mounts:
            spec["volumeMounts"] = copy.deepcopy(self.volume_mounts)
        spec["terminationMessagePath"] = "/dev/termination-log"
        spec["terminationMessagePolicy"] = "File"
        spec["imagePullPolicy"] = "IfNotPresent"
        return spec

    def pod_spec(self, rev: Revision) -> Obj:
        spec: Obj = {
            "serviceAccountName": self.service_account,
            "containers": [self.container_spec(rev), *copy.deepcopy(self.sidecars)],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 120,
            "schedulerName": "default-scheduler",
        }
        if self.node_selector:
            spec["nodeSelector"] = dict(self.node_selector)
        if self.tolerations:
            spec["tolerations"] = copy.deepcopy(self.tolerations)
        if self.volumes:
            spec["volumes"] = copy.deepcopy(self.volumes)
        return spec

    def template(self, rev: Revision) -> Obj:
        meta: Obj = {"labels": self.pod_labels(rev) if rev else dict(self.labels)}
        if self.pod_annotations:
            meta["annotations"] = dict(self.pod_annotations)
        return {"metadata": meta, "spec": self.pod_spec(rev)}

    # -- objects -------------------------------------------------------------------------------
    def deployment(self, as_of: datetime) -> Obj:
        cur = self.current
        live = [p for p in self.pods if p.deletion is None]
        updated = [p for p in live if p.revision is cur]
        ready = [p for p in live if p.ready]
        available = len(ready)
        unavailable = max(0, self.replicas - available)
        template = self.template(cur)
        template["metadata"]["labels"] = dict(self.labels)
        avail_ok = available >= self.replicas - (
            self.max_unavailable if isinstance(self.max_unavailable, int) else 0
        )
        if self.progressing:
            prog_status, prog_reason, prog_since = self.progressing
        else:
            prog_status, prog_reason, prog_since = "True", "NewReplicaSetAvailable", cur.created
        prog_message = {
            "NewReplicaSetAvailable": f'ReplicaSet "{self.name}-{cur.hash}" has successfully progressed.',
            "ReplicaSetUpdated": f'ReplicaSet "{self.name}-{cur.hash}" is progressing.',
            "ProgressDeadlineExceeded": f'ReplicaSet "{self.name}-{cur.hash}" has timed out progressing.',
        }.get(prog_reason, "")
        status: Obj = {
            "observedGeneration": self.generation or cur.number + 3,
            "replicas": len(live),
            "updatedReplicas": len(updated),
            "readyReplicas": len(ready),
            "availableReplicas": available,
        }
        if unavailable:
            status["unavailableReplicas"] = unavailable
        status["conditions"] = [
            {
                "type": "Available",
                "status": "True" if avail_ok else "False",
                "reason": "MinimumReplicasAvailable" if avail_ok else "MinimumReplicasUnavailable",
                "message": "Deployment has minimum availability."
                if avail_ok
                else "Deployment does not have minimum availability.",
                "lastUpdateTime": iso(cur.created),
                "lastTransitionTime": iso(cur.created if avail_ok else as_of - timedelta(minutes=5)),
            },
            {
                "type": "Progressing",
                "status": prog_status,
                "reason": prog_reason,
                "message": prog_message,
                "lastUpdateTime": iso(prog_since),
                "lastTransitionTime": iso(prog_since),
            },
        ]
        annotations = {"deployment.kubernetes.io/revision": str(cur.number), **self.annotations}
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "uid": self.uid,
                "generation": self.generation or cur.number + 3,
                "resourceVersion": str(880_000 + cur.number * 7),
                "creationTimestamp": iso(self.created),
                "labels": dict(self.labels),
                "annotations": annotations,
            },
            "spec": {
                "replicas": self.replicas,
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": 900,
                "selector": {"matchLabels": self.selector()},
                "strategy": {
                    "type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": self.max_surge, "maxUnavailable": self.max_unavailable},
                },
                "template": template,
            },
            "status": status,
        }

    def replicasets(self) -> list[Obj]:
        out = []
        for rev in sorted(self.revisions, key=lambda r: r.number):
            pods = [p for p in self.pods if p.revision is rev and p.deletion is None]
            ready = [p for p in pods if p.ready]
            annotations = {
                "deployment.kubernetes.io/desired-replicas": str(self.replicas),
                "deployment.kubernetes.io/max-replicas": str(
                    self.replicas + (self.max_surge if isinstance(self.max_surge, int) else 1)
                ),
                "deployment.kubernetes.io/revision": str(rev.number),
            }
            if rev.change_cause:
                annotations["kubernetes.io/change-cause"] = rev.change_cause
            status: Obj = {"replicas": len(pods), "observedGeneration": 2}
            if pods:
                status["fullyLabeledReplicas"] = len(pods)
                status["readyReplicas"] = len(ready)
                status["availableReplicas"] = len(ready)
            out.append(
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "metadata": {
                        "name": f"{self.name}-{rev.hash}",
                        "namespace": self.namespace,
                        "uid": rev.uid,
                        "generation": 2,
                        "creationTimestamp": iso(rev.created),
                        "labels": self.pod_labels(rev),
                        "annotations": annotations,
                        "ownerReferences": [
                            {
                                "apiVersion": "apps/v1",
                                "kind": "Deployment",
                                "name": self.name,
                                "uid": self.uid,
                                "controller": True,
                                "blockOwnerDeletion": True,
                            }
                        ],
                    },
                    "spec": {
                        "replicas": rev.replicas,
                        "selector": {"matchLabels": self.pod_labels(rev)},
                        "template": self.template(rev),
                    },
                    "status": status,
                }
            )
        return out

    def pod_objects(self) -> list[Obj]:
        out = []
        for p in self.pods:
            rev = p.revision
            meta: Obj = {
                "name": p.name,
                "generateName": f"{self.name}-{rev.hash}-",
                "namespace": self.namespace,
                "uid": p.uid,
                "creationTimestamp": iso(p.created),
                "labels": self.pod_labels(rev),
                "ownerReferences": [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "name": f"{self.name}-{rev.hash}",
                        "uid": rev.uid,
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            }
            if self.pod_annotations:
                meta["annotations"] = dict(self.pod_annotations)
            if p.deletion is not None:
                meta["deletionTimestamp"] = iso(p.deletion)
                meta["deletionGracePeriodSeconds"] = 120
            spec = self.pod_spec(rev)
            if p.node:
                spec["nodeName"] = p.node
            out.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": meta,
                    "spec": spec,
                    "status": self._pod_status(p),
                }
            )
        return out

    def _pod_status(self, p: PodInfo) -> Obj:
        if p.unschedulable_message:
            return {
                "phase": "Pending",
                "qosClass": "Burstable",
                "conditions": [
                    {
                        "type": "PodScheduled",
                        "status": "False",
                        "reason": "Unschedulable",
                        "message": p.unschedulable_message,
                        "lastProbeTime": None,
                        "lastTransitionTime": iso(p.created),
                    }
                ],
            }
        started = p.started or p.created + timedelta(seconds=4)
        ready_since = p.ready_since or started
        cond_ready = "True" if p.ready else "False"
        conditions = [
            {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": iso(started)},
            {"type": "Initialized", "status": "True", "lastTransitionTime": iso(started)},
            {
                "type": "Ready",
                "status": cond_ready,
                "lastTransitionTime": iso(ready_since),
                **({} if p.ready else {"reason": "ContainersNotReady"}),
                **({} if p.ready else {"message": f"containers with unready status: [{self.container}]"}),
            },
            {
                "type": "ContainersReady",
                "status": cond_ready,
                "lastTransitionTime": iso(ready_since),
                **({} if p.ready else {"reason": "ContainersNotReady"}),
                **({} if p.ready else {"message": f"containers with unready status: [{self.container}]"}),
            },
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": iso(p.created)},
        ]
        cstatus: Obj = {
            "name": self.container,
            "image": p.revision.image,
            "imageID": f"{p.revision.image.split(':')[0]}@sha256:{_digest(p.revision.image)}",
            "containerID": p.container_id,
            "ready": p.ready,
            "restartCount": p.restarts,
            "started": p.waiting is None,
        }
        if p.waiting:
            cstatus["state"] = {"waiting": {"reason": p.waiting[0], "message": p.waiting[1]}}
        else:
            cstatus["state"] = {"running": {"startedAt": iso(p.running_since or started)}}
        if p.last_terminated:
            cstatus["lastState"] = {"terminated": dict(p.last_terminated)}
        else:
            cstatus["lastState"] = {}
        status: Obj = {
            "phase": p.phase,
            "qosClass": "Burstable",
            "conditions": conditions,
            "hostIP": p.host_ip,
            "hostIPs": [{"ip": p.host_ip}],
            "podIP": p.ip,
            "podIPs": [{"ip": p.ip}],
            "startTime": iso(started),
            "containerStatuses": [cstatus, *self._sidecar_statuses(p, started)],
        }
        return status

    def _sidecar_statuses(self, p: PodInfo, started: datetime) -> list[Obj]:
        return [
            {
                "name": sc["name"],
                "image": sc["image"],
                "imageID": f"{sc['image'].split(':')[0]}@sha256:{_digest(sc['image'])}",
                "containerID": "containerd://" + _digest(p.name + sc["name"]),
                "ready": True,
                "restartCount": 0,
                "started": True,
                "state": {"running": {"startedAt": iso(started + timedelta(seconds=1))}},
                "lastState": {},
            }
            for sc in self.sidecars
        ]

    def service(self) -> Obj:
        ports = [{"name": "http", "port": self.port, "protocol": "TCP", "targetPort": self.service_target}]
        if self.metrics_port:
            ports.append(
                {"name": "metrics", "port": self.metrics_port, "protocol": "TCP", "targetPort": "metrics"}
            )
        return {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "labels": dict(self.labels),
                "creationTimestamp": iso(self.created),
            },
            "spec": {
                "type": "ClusterIP",
                "clusterIP": self.cluster_ip,
                "clusterIPs": [self.cluster_ip],
                "internalTrafficPolicy": "Cluster",
                "ipFamilies": ["IPv4"],
                "ports": ports,
                "selector": self.selector(),
                "sessionAffinity": "None",
            },
            "status": {"loadBalancer": {}},
        }

    def objects(self, as_of: datetime) -> list[Obj]:
        return [self.deployment(as_of), *self.replicasets(), self.service(), *self.pod_objects()]


def _digest(image: str) -> str:
    return hashlib.sha256(image.encode()).hexdigest()


def stable(text: str) -> int:
    """A process-independent hash (Python's `hash` of a str changes between runs)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# -- other kinds -------------------------------------------------------------------------------------
def event(
    *,
    namespace: str,
    kind: str,
    name: str,
    uid: str,
    reason: str,
    message: str,
    first: datetime,
    last: datetime | None = None,
    count: int = 1,
    warning: bool = True,
    component: str = "kubelet",
    host: str | None = None,
    field_path: str | None = None,
    api_version: str = "v1",
) -> Obj:
    last = last or first
    involved: Obj = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}
    if kind != "Node":
        involved["namespace"] = namespace
    if field_path:
        involved["fieldPath"] = field_path
    source: Obj = {"component": component}
    if host:
        source["host"] = host
    nanos = int(first.timestamp()) * 1_000_000_000 + stable(name + reason + message) % 999_999_937
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{nanos:x}",
            "namespace": namespace,
            "creationTimestamp": iso(first),
        },
        "involvedObject": involved,
        "reason": reason,
        "message": message,
        "source": source,
        "firstTimestamp": iso(first),
        "lastTimestamp": iso(last),
        "count": count,
        "type": "Warning" if warning else "Normal",
        "eventTime": None,
        "reportingComponent": component,
        "reportingInstance": host or "",
    }


def httproute(
    *,
    name: str,
    namespace: str,
    gateway: str,
    gateway_namespace: str,
    hostnames: list[str],
    backends: list[tuple[str, int, int]],
    created: datetime,
    changed: datetime | None = None,
    generation: int = 1,
    controller: str = "gateway.envoyproxy.io/gatewayclass-controller",
    path: str = "/v1",
    annotations: dict[str, str] | None = None,
    timeouts: dict[str, str] | None = None,
) -> Obj:
    """An HTTPRoute with one rule whose weighted backendRefs are (service, port, weight)."""
    since = changed or created
    rule: Obj = {
        "matches": [{"path": {"type": "PathPrefix", "value": path}}],
        "backendRefs": [
            {"group": "", "kind": "Service", "name": svc, "port": port, "weight": weight}
            for svc, port, weight in backends
        ],
    }
    if timeouts:
        rule["timeouts"] = dict(timeouts)
    meta: Obj = {
        "name": name,
        "namespace": namespace,
        "generation": generation,
        "creationTimestamp": iso(created),
    }
    if annotations:
        meta["annotations"] = dict(annotations)
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": meta,
        "spec": {
            "parentRefs": [
                {
                    "group": "gateway.networking.k8s.io",
                    "kind": "Gateway",
                    "name": gateway,
                    "namespace": gateway_namespace,
                }
            ],
            "hostnames": list(hostnames),
            "rules": [rule],
        },
        "status": {
            "parents": [
                {
                    "parentRef": {
                        "group": "gateway.networking.k8s.io",
                        "kind": "Gateway",
                        "name": gateway,
                        "namespace": gateway_namespace,
                    },
                    "controllerName": controller,
                    "conditions": [
                        {
                            "type": "Accepted",
                            "status": "True",
                            "reason": "Accepted",
                            "message": "Route is accepted",
                            "observedGeneration": generation,
                            "lastTransitionTime": iso(since),
                        },
                        {
                            "type": "ResolvedRefs",
                            "status": "True",
                            "reason": "ResolvedRefs",
                            "message": "Resolved all the Object references for the Route",
                            "observedGeneration": generation,
                            "lastTransitionTime": iso(since),
                        },
                    ],
                }
            ]
        },
    }


def configmap(
    *,
    name: str,
    namespace: str,
    data: dict[str, str],
    created: datetime,
    labels: dict[str, str] | None = None,
) -> Obj:
    meta: Obj = {"name": name, "namespace": namespace, "creationTimestamp": iso(created)}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": dict(data)}


def crashloop_message(container: str, pod: str, namespace: str, uid: str, backoff: str) -> str:
    return f"back-off {backoff} restarting failed container={container} pod={pod}_{namespace}({uid})"
