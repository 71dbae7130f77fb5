# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""NCCL over InfiniBand fails in a two-node SGLang group: one node's IB port keeps going down.

DeepSeek-R1-0528 served by SGLang 0.5.3 with `--tp 16 --nnodes 2` in a LeaderWorkerSet of two groups
(leader + one worker each, one HGX H100 node per pod, `hostNetwork`, rail-optimised NDR InfiniBand,
`mlx5_0..7`). The transceiver of `mlx5_3` on the *worker* node of group 0 (`dal3-h100-s14-n06`) fails
twice: at 02:23:40 the kernel logs `Port module event[error]: module 0, Cable error, Bad or shorted
cable/module`, node-exporter's `node_infiniband_state_id{device="mlx5_3"}` drops from 4 (active) to 1
(down) and `node_infiniband_physical_state_id` to 2 (polling), `link_downed_total` increments. NCCL on
that node reports `NET/IB : mlx5_3:1 Got async event : port error`; the TP all-reduces of the group
stop, ~140 s later both nodes log `NET/IB: Got completion from peer ... with
status=IBV_WC_RETRY_EXC_ERR(12)` (each names the *other* node as peer), and at 02:28:40 SGLang's
scheduler watchdog fires on both nodes (`Scheduler watchdog timeout (self.watchdog_timeout=300,
self.soft=False)`), SIGQUIT, exit. The LeaderWorkerSet (RecreateGroupOnPodRestart) recreates both pods
of the group on the same two nodes; the port comes back at 02:29:52 (`Cable plugged`), the group
loads the model again and serves from 02:38:35. At 02:49:31 the port drops again and the same chain
repeats; at `as_of` the recreated group is still loading and the port is still down.

While group 0 hangs, the TCP readiness probe keeps it in the endpoints, so its requests time out at
the route's 240 s limit (504 UT at the Istio gateway) or are reset when the process dies (503 UC);
while it reloads, group 1 carries everything, queues and times out as well. Group 1's nodes, the
healthy peer node `n05` (which logs the same NCCL and watchdog lines), GPUs (no Xid) and the other
tenants' nodes are fine. Logs are shipped by Vector with an ECS remap; kernel and kubelet lines come
from journald with only the host/node name. The alert is an Istio 5xx ratio on the leader service.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from . import kube
from .common import gpu_node, klog_stamp, request_id
from .exporters import Gpu, dcgm_labels
from .lib import (
    OM,
    Clock,
    Logs,
    Obj,
    Prom,
    current_firing,
    event_obj,
    hexid,
    httproute_obj,
    iso,
    node_conditions,
    owner,
    service_obj,
    uid,
    utc,
    webhook,
    within,
    write_pack,
)

NAME = "nccl-ib-port-down-multinode"
ENGINE = "SGLang 0.5.3, --tp 16 --nnodes 2 on LeaderWorkerSet, NCCL 2.27 over NDR InfiniBand"


# ---------------------------------------------------------------------------------------------------------------
# log shippers other than Filebeat: Vector (kubernetes_logs + journald, ECS remap) and Fluent Bit
# (tail + kubernetes filter + systemd, ECS-mapped). p11/p12 reuse these.
# ---------------------------------------------------------------------------------------------------------------
class ShipperLogs(Logs):
    """ECS documents as a Vector or Fluent Bit pipeline with an ECS remap writes them."""

    def __init__(self, shipper: str, version: str, cluster: str) -> None:
        super().__init__()
        self.shipper = shipper
        self.version = version
        self.cluster = cluster

    def _agent(self, node: str) -> Obj:
        name = f"{self.shipper}-{hexid(random.Random(node), 5)}"
        return {"type": self.shipper, "version": self.version, "name": name}

    def pod(
        self,
        ts: datetime,
        message: str,
        *,
        ns: str,
        pod: str,
        pod_uid: str,
        node: str,
        container: str,
        image: str,
        service: str,
        level: str = "info",
        stream: str = "stderr",
        status: int | None = None,
        error_type: str | None = None,
        error_message: str | None = None,
        labels: dict[str, str] | None = None,
    ) -> None:
        d: Obj = {"@timestamp": iso(ts, ms=True), "message": message, "log": {"level": level}}
        cid = hexid(random.Random(pod_uid + container), 64)
        if self.shipper == "vector":
            d["log"]["file"] = {"path": f"/var/log/pods/{ns}_{pod}_{pod_uid}/{container}/0.log"}
            d["event"] = {"dataset": "kubernetes.container_logs", "module": "kubernetes"}
        else:
            d["log"]["file"] = {"path": f"/var/log/containers/{pod}_{ns}_{container}-{cid}.log"}
            d["event"] = {"dataset": "kubernetes.container", "module": "kubernetes"}
            d["stream"] = stream
        d["service"] = {"name": service}
        kube_: Obj = {
            "namespace": ns,
            "pod": {"name": pod, "uid": pod_uid},
            "node": {"name": node},
            "container": {"name": container},
        }
        if labels:
            kube_["labels"] = labels
        d["kubernetes"] = kube_
        d["container"] = {
            "name": container,
            "id": cid,
            "image": {"name": image},
        }
        d["host"] = {"name": node}
        d["orchestrator"] = {"cluster": {"name": self.cluster}}
        d["agent"] = self._agent(node)
        if error_type or error_message:
            d["error"] = {k: v for k, v in (("type", error_type), ("message", error_message)) if v}
        if status is not None:
            d["http"] = {"response": {"status_code": status}}
        self.docs.append(d)

    def node(
        self,
        ts: datetime,
        message: str,
        *,
        node: str,
        ident: str,
        level: str = "info",
        pid: int | None = None,
        error_type: str | None = None,
        error_message: str | None = None,
    ) -> None:
        """A journald record (kernel or a systemd unit) of the node: no namespace, no pod."""
        prio = {"debug": 7, "info": 6, "notice": 5, "warn": 4, "error": 3, "critical": 2}[level]
        d: Obj = {
            "@timestamp": iso(ts, ms=True),
            "message": message,
            "log": {
                "level": level,
                "syslog": {
                    "appname": ident,
                    "priority": prio,
                    "facility": {"name": "kern" if ident == "kernel" else "daemon"},
                },
            },
            "service": {"name": ident},
            "process": {"name": ident, **({"pid": pid} if pid else {})},
            "host": {"name": node, "hostname": node},
            "kubernetes": {"node": {"name": node}},
            "event": {"dataset": "journald" if self.shipper == "vector" else "systemd.journal"},
            "orchestrator": {"cluster": {"name": self.cluster}},
            "agent": self._agent(node),
        }
        if self.shipper == "vector":
            d["data_stream"] = {"type": "logs", "dataset": "journald", "namespace": "node"}
        if error_type or error_message:
            d["error"] = {k: v for k, v in (("type", error_type), ("message", error_message)) if v}
        self.docs.append(d)


def pod_plain(
    name: str,
    ns: str,
    *,
    uid_: str,
    labels: dict[str, str],
    owner: Obj,
    node: str,
    host_ip: str,
    pod_ip: str,
    created: datetime,
    containers: list[Obj],
    statuses: list[Obj],
    ready: bool,
    ready_since: datetime,
    annotations: dict[str, str] | None = None,
    host_network: bool = False,
    phase: str = "Running",
    extra_spec: Obj | None = None,
    qos: str = "Burstable",
) -> Obj:
    """A Pod owned by something other than a Deployment (StatefulSet, DaemonSet, Job...)."""
    unready = ", ".join(s["name"] for s in statuses if not s.get("ready"))
    md: Obj = {
        "name": name,
        "namespace": ns,
        "uid": uid_,
        "creationTimestamp": iso(created),
        "labels": labels,
        "ownerReferences": [owner],
    }
    if annotations:
        md["annotations"] = annotations
    spec: Obj = {
        "containers": containers,
        "nodeName": node,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirstWithHostNet" if host_network else "ClusterFirst",
        **(extra_spec or {}),
    }
    if host_network:
        spec["hostNetwork"] = True

    def cond(typ: str, ok: bool, at: datetime) -> Obj:
        c: Obj = {
            "type": typ,
            "status": "True" if ok else "False",
            "lastProbeTime": None,
            "lastTransitionTime": iso(at),
        }
        if not ok:
            c["reason"] = "ContainersNotReady"
            c["message"] = f"containers with unready status: [{unready}]"
        return c

    sched = created + timedelta(seconds=1)
    status: Obj = {
        "phase": phase,
        "conditions": [
            {
                "type": "PodReadyToStartContainers",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": iso(sched + timedelta(seconds=3)),
            },
            {
                "type": "Initialized",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": iso(sched),
            },
            cond("Ready", ready, ready_since),
            cond("ContainersReady", ready, ready_since),
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": iso(sched),
            },
        ],
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": iso(sched),
        "containerStatuses": statuses,
        "qosClass": qos,
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def sglang_ts(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%d %H:%M:%S")


# ---------------------------------------------------------------------------------------------------------------
def build(root):
    rng = random.Random(10110)
    as_of = utc("2026-10-14T03:06:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "sim-agents"
    lws = "sgl-dsr1-agents"
    model = "deepseek-r1-0528"
    leader_svc = f"{lws}-leader"
    route = "agent-sim-llm"
    gw_name, gw_ns = "sim-gw", "sim-mesh-gw"
    gw_workload = f"{gw_name}-istio"
    gw_pod = f"{gw_workload}-6d8c9b7f4d-w2xkq"
    gw_node, gw_ip = "dal3-cpu-m7-n02", "10.244.9.37"
    image = "lmsysorg/sglang:v0.5.3-cu129"
    driver = "570.172.08"
    cluster_name = "dal3-gpu-prod"
    route_timeout = 240.0

    # ---------------------------------------------------------------- timeline
    down1 = t("02:23:40") + timedelta(milliseconds=312)
    cerr1 = t("02:26:02") + timedelta(milliseconds=441)
    wd1 = t("02:28:40") + timedelta(milliseconds=903)
    recreate1 = wd1 + timedelta(seconds=6)
    start1 = t("02:29:21")
    portup1 = t("02:29:52") + timedelta(milliseconds=77)
    ready1 = t("02:38:35")
    down2 = t("02:57:39") + timedelta(milliseconds=688)
    cerr2 = t("03:00:01") + timedelta(milliseconds=120)
    wd2 = t("03:02:40") + timedelta(milliseconds=925)
    recreate2 = wd2 + timedelta(seconds=6)
    start2 = t("03:03:19")

    def g0_state(ts: datetime) -> str:
        if ts < down1:
            return "ok"
        if ts < wd1:
            return "hung"
        if ts < start1:
            return "gone"
        if ts < ready1:
            return "loading"
        if ts < down2:
            return "ok"
        if ts < wd2:
            return "hung"
        if ts < start2:
            return "gone"
        return "loading"

    def port_up(ts: datetime) -> bool:
        return ts < down1 or portup1 <= ts < down2

    # ---------------------------------------------------------------- nodes
    ib_nodes = {
        "dal3-h100-s14-n05": "10.61.14.5",
        "dal3-h100-s14-n06": "10.61.14.6",
        "dal3-h100-s14-n07": "10.61.14.7",
        "dal3-h100-s14-n08": "10.61.14.8",
    }
    other_gpu = {"dal3-h100-s15-n01": "10.61.15.1", "dal3-h100-s15-n02": "10.61.15.2"}
    cpu_nodes = {"dal3-cpu-m7-n02": "10.61.7.2", "dal3-cpu-m7-n03": "10.61.7.3"}
    bad, peer = "dal3-h100-s14-n06", "dal3-h100-s14-n05"
    g1_leader_node, g1_worker_node = "dal3-h100-s14-n07", "dal3-h100-s14-n08"
    node_objs = []
    for k, (name, ip) in enumerate({**ib_nodes, **other_gpu}.items()):
        pool = "h100-ib" if name in ib_nodes else "h100-batch"
        node_objs.append(
            gpu_node(
                rng,
                name,
                as_of=as_of,
                created=utc("2026-04-02T17:20:11Z") + timedelta(minutes=13 * k),
                ready_since=utc("2026-09-29T06:41:52Z") + timedelta(minutes=7 * k),
                ip=ip,
                pod_cidr=f"10.244.{40 + k}.0/24",
                product="NVIDIA H100 80GB HBM3",
                gpu_count=8,
                gpu_mem_mib=81559,
                instance_type="PowerEdge-XE9680",
                zone="dal3-s14" if name in ib_nodes else "dal3-s15",
                region="dal3",
                cpu=224,
                mem_ki=2113412480,
                kubelet="v1.31.9",
                runtime="containerd://1.7.27",
                kernel="5.15.0-143-generic",
                os_image="Ubuntu 22.04.5 LTS",
                driver_major="570",
                extra_labels={
                    "node-pool": pool,
                    "feature.node.kubernetes.io/rdma.available": "true",
                    "feature.node.kubernetes.io/pci-15b3.present": "true",
                    "network.nvidia.com/operator.mofed.wait": "false",
                    "topology.kubernetes.io/rack": "s14" if name in ib_nodes else "s15",
                },
                taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            )
        )
    for k, (name, ip) in enumerate(cpu_nodes.items()):
        node_objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "uid": uid(rng),
                    "creationTimestamp": "2026-03-11T09:02:47Z",
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "kubernetes.io/os": "linux",
                        "kubernetes.io/arch": "amd64",
                        "node-pool": "system",
                        "node.kubernetes.io/instance-type": "PowerEdge-R660",
                        "topology.kubernetes.io/region": "dal3",
                        "topology.kubernetes.io/zone": "dal3-m7",
                    },
                    "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                },
                "spec": {"podCIDR": f"10.244.{9 + k}.0/24", "podCIDRs": [f"10.244.{9 + k}.0/24"]},
                "status": {
                    "addresses": [
                        {"type": "InternalIP", "address": ip},
                        {"type": "Hostname", "address": name},
                    ],
                    "capacity": {
                        "cpu": "64",
                        "memory": "527951620Ki",
                        "pods": "110",
                        "ephemeral-storage": "936837696Ki",
                    },
                    "allocatable": {
                        "cpu": "63500m",
                        "memory": "515134080Ki",
                        "pods": "110",
                        "ephemeral-storage": "863393778Ki",
                    },
                    "conditions": node_conditions(as_of, utc("2026-09-29T05:58:03Z")),
                    "nodeInfo": {
                        "architecture": "amd64",
                        "operatingSystem": "linux",
                        "kernelVersion": "5.15.0-143-generic",
                        "osImage": "Ubuntu 22.04.5 LTS",
                        "kubeletVersion": "v1.31.9",
                        "kubeProxyVersion": "v1.31.9",
                        "containerRuntimeVersion": "containerd://1.7.27",
                        "machineID": hexid(rng, 32),
                        "systemUUID": uid(rng).upper(),
                        "bootID": uid(rng),
                    },
                },
            }
        )

    # ---------------------------------------------------------------- the LeaderWorkerSet and its pods
    lws_uid = uid(rng)
    rev_hash = "7c9d5b8f6d"
    sts_leader_uid = uid(rng)
    group_key = {0: hexid(rng, 40), 1: hexid(rng, 40)}
    sts_worker_uid = {
        0: uid(rng),
        1: uid(rng),
    }  # the group-0 worker StatefulSet was recreated with its leader

    def sglang_cmd(rank: str) -> str:
        return (
            "python3 -m sglang.launch_server --model-path /models/DeepSeek-R1-0528 --served-model-name "
            f"{model} --tp 16 --dist-init-addr $(LWS_LEADER_ADDRESS):20000 --nnodes $(LWS_GROUP_SIZE) "
            f"--node-rank {rank} --trust-remote-code --mem-fraction-static 0.88 --max-running-requests 48 "
            "--context-length 65536 --enable-metrics --watchdog-timeout 300 --host 0.0.0.0 --port 40000"
        )

    env = [
        {"name": "NCCL_DEBUG", "value": "WARN"},
        {"name": "NCCL_IB_HCA", "value": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"},
        {"name": "NCCL_IB_TIMEOUT", "value": "22"},
        {"name": "NCCL_SOCKET_IFNAME", "value": "bond0"},
        {"name": "GLOO_SOCKET_IFNAME", "value": "bond0"},
        {"name": "SGLANG_ENABLE_JIT_DEEPGEMM", "value": "1"},
    ]

    def ctr(rank: str) -> Obj:
        c_: Obj = {
            "name": "sglang",
            "image": image,
            "imagePullPolicy": "IfNotPresent",
            "command": ["sh", "-c", sglang_cmd(rank)],
            "env": env,
            "resources": {
                "limits": {"nvidia.com/gpu": "8", "rdma/ib": "8", "memory": "1600Gi"},
                "requests": {"nvidia.com/gpu": "8", "rdma/ib": "8", "cpu": "96", "memory": "1200Gi"},
            },
            "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
            "volumeMounts": [
                {"name": "models", "mountPath": "/models", "readOnly": True},
                {"name": "dshm", "mountPath": "/dev/shm"},
            ],
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
        if rank == "0":
            c_["ports"] = [{"name": "http", "containerPort": 40000, "hostPort": 40000, "protocol": "TCP"}]
            c_["readinessProbe"] = {
                "tcpSocket": {"port": 40000},
                "initialDelaySeconds": 15,
                "periodSeconds": 10,
                "timeoutSeconds": 1,
                "successThreshold": 1,
                "failureThreshold": 3,
            }
        return c_

    pod_extra = {
        "volumes": [
            {"name": "models", "hostPath": {"path": "/raid/models", "type": "Directory"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}},
        ],
        "nodeSelector": {"node-pool": "h100-ib"},
        "tolerations": kube.DEFAULT_TOLERATIONS,
        "serviceAccountName": "default",
        "enableServiceLinks": True,
        "priority": 0,
        "subdomain": lws,
    }

    def lws_labels(group: int, worker: int) -> dict[str, str]:
        lab = {
            "app.kubernetes.io/name": "sglang",
            "app.kubernetes.io/instance": lws,
            "leaderworkerset.sigs.k8s.io/name": lws,
            "leaderworkerset.sigs.k8s.io/group-index": str(group),
            "leaderworkerset.sigs.k8s.io/worker-index": str(worker),
            "leaderworkerset.sigs.k8s.io/group-key": group_key[group],
            "leaderworkerset.sigs.k8s.io/template-revision-hash": rev_hash,
            "role": "leader" if worker == 0 else "worker",
        }
        if worker == 0:
            lab["apps.kubernetes.io/pod-index"] = str(group)
            lab["statefulset.kubernetes.io/pod-name"] = f"{lws}-{group}"
            lab["controller-revision-hash"] = f"{lws}-{hexid(random.Random(7), 10)}"
        else:
            lab["apps.kubernetes.io/pod-index"] = str(worker)
            lab["statefulset.kubernetes.io/pod-name"] = f"{lws}-{group}-{worker}"
            lab["controller-revision-hash"] = f"{lws}-{group}-{hexid(random.Random(group), 10)}"
        return lab

    def lws_ann(group: int, worker: int) -> dict[str, str]:
        a = {"leaderworkerset.sigs.k8s.io/size": "2"}
        if worker:
            a["leaderworkerset.sigs.k8s.io/leader-name"] = f"{lws}-{group}"
        return a

    pods: dict[str, dict] = {}
    for group, (ln, wn) in {0: (peer, bad), 1: (g1_leader_node, g1_worker_node)}.items():
        for worker, node in ((0, ln), (1, wn)):
            name = f"{lws}-{group}" if worker == 0 else f"{lws}-{group}-1"
            pods[name] = {
                "name": name,
                "group": group,
                "worker": worker,
                "node": node,
                "ip": ib_nodes[node],
                "uids": [uid(rng), uid(rng), uid(rng)] if group == 0 else [uid(rng)],
            }
    g0l, g0w = pods[f"{lws}-0"], pods[f"{lws}-0-1"]
    g1l, g1w = pods[f"{lws}-1"], pods[f"{lws}-1-1"]

    def pod_uid_at(p: dict, ts: datetime) -> str:
        if p["group"] != 0 or ts < recreate1:
            return p["uids"][0]
        if ts < recreate2:
            return p["uids"][1]
        return p["uids"][2]

    # ---------------------------------------------------------------- traffic: 10 s fluid simulation of both groups
    tick = 10
    t0 = c.start - timedelta(minutes=10)
    n_ticks = int((as_of - t0).total_seconds() // tick)
    cap = 48.0
    to_ticks = route_timeout / tick
    per_min = {g: {k: [0.0] * N for k in ("ok", "ut", "uc", "run", "queue", "arr")} for g in (0, 1)}
    cohorts: dict[int, list[list[float]]] = {
        0: [],
        1: [],
    }  # [arrival_tick, count, start_tick or -1, service_ticks]
    ts_of = [t0 + timedelta(seconds=tick * k) for k in range(n_ticks + 1)]
    for k in range(1, n_ticks + 1):
        now = ts_of[k]
        i = c.idx(now - timedelta(microseconds=1)) + 1  # interval index containing (now-tick, now]
        minute_of_hour = (now - c.start).total_seconds() / 60
        a = 52.0 * (1 + 0.05 * ((minute_of_hour % 23) / 23 - 0.5)) * rng.uniform(0.9, 1.1) / 6
        # watchdog: what is still pending on group 0 is reset when its processes die
        for wd in (wd1, wd2):
            if now - timedelta(seconds=tick) < wd <= now:
                per_min[0]["uc"][c.idx(wd) + 1] += sum(x[1] for x in cohorts[0])
                cohorts[0] = []
        st0 = g0_state(now)
        routable = {0: st0 in ("ok", "hung"), 1: True}
        if st0 == "hung":
            share = {0: 0.27, 1: 0.73}
        elif routable[0]:
            share = {0: 0.5, 1: 0.5}
        else:
            share = {0: 0.0, 1: 1.0}
        for g in (0, 1):
            st = st0 if g == 0 else "ok"
            lst = cohorts[g]
            if st in ("gone", "loading"):
                lst.clear()
                continue
            if share[g] > 0:
                lst.append([k, a * share[g], -1.0, rng.uniform(5.4, 7.6)])
                if 0 <= i < N:
                    per_min[g]["arr"][i] += a * share[g]
            done = ut = 0.0
            if st == "ok":
                running = sum(x[1] for x in lst if x[2] >= 0)
                for x in lst:
                    if x[2] < 0 and running < cap:
                        take = min(x[1], cap - running)
                        if take < x[1]:
                            lst.append([x[0], x[1] - take, -1.0, x[3]])
                            x[1] = take
                        x[2] = k
                        running += take
                keep = []
                for x in sorted(lst, key=lambda y: y[0]):
                    if x[2] >= 0 and k - x[2] >= x[3]:
                        done += x[1]
                    elif k - x[0] >= to_ticks:
                        ut += x[1]
                    else:
                        keep.append(x)
                cohorts[g] = keep
            else:  # hung: nothing progresses; the gateway gives up at 240 s
                keep = []
                for x in lst:
                    if k - x[0] >= to_ticks:
                        ut += x[1]
                    else:
                        keep.append(x)
                cohorts[g] = keep
            if 0 <= i < N:
                per_min[g]["ok"][i] += done
                per_min[g]["ut"][i] += ut
                # gauges sampled at the end of the minute (the last tick of the interval)
                if now == c.at(i):
                    per_min[g]["run"][i] = sum(x[1] for x in cohorts[g] if x[2] >= 0)
                    per_min[g]["queue"][i] = sum(x[1] for x in cohorts[g] if x[2] < 0)
    codes = {
        "200": [round(per_min[0]["ok"][i] + per_min[1]["ok"][i]) for i in range(N)],
        "504": [round(per_min[0]["ut"][i] + per_min[1]["ut"][i]) for i in range(N)],
        "503": [round(per_min[0]["uc"][i]) for i in range(N)],
    }

    om = OM(c)

    # ---------------------------------------------------------------- Istio gateway (reporter=source)
    ilab = {
        "connection_security_policy": "unknown",
        "destination_app": "unknown",
        "destination_canonical_revision": "latest",
        "destination_canonical_service": "unknown",
        "destination_cluster": "Kubernetes",
        "destination_principal": "unknown",
        "destination_service": f"{leader_svc}.{ns}.svc.cluster.local",
        "destination_service_name": leader_svc,
        "destination_service_namespace": ns,
        "destination_version": "unknown",
        "destination_workload": "unknown",
        "destination_workload_namespace": "unknown",
        "grpc_response_status": "",
        "instance": f"{gw_ip}:15020",
        "job": "istio-gateways",
        "namespace": gw_ns,
        "pod": gw_pod,
        "reporter": "source",
        "request_protocol": "http",
        "source_app": gw_workload,
        "source_canonical_revision": "latest",
        "source_canonical_service": gw_workload,
        "source_cluster": "Kubernetes",
        "source_principal": "unknown",
        "source_version": "unknown",
        "source_workload": gw_workload,
        "source_workload_namespace": gw_ns,
    }
    for code, flags, init in (("200", "-", 2_841_377), ("503", "UC", 1_204), ("504", "UT", 3_916)):
        om.counter(
            "istio_requests",
            "Total requests.",
            {**ilab, "response_code": code, "response_flags": flags},
            codes[code],
            initial=init,
        )

    # ---------------------------------------------------------------- SGLang (leaders only expose /metrics)
    def present_leader(p: dict, ts: datetime) -> bool:
        if p["group"] == 1:
            return True
        return g0_state(ts) in ("ok", "hung")

    for p in (g0l, g1l):
        g = p["group"]
        lab = {
            "container": "sglang",
            "endpoint": "http",
            "instance": f"{p['ip']}:40000",
            "job": f"{ns}/{lws}-leader",
            "model_name": model,
            "namespace": ns,
            "pod": p["name"],
        }
        pres = [present_leader(p, c.at(i)) for i in range(N)]
        resets = [i for i in range(1, N) if pres[i] and not pres[i - 1]]
        run, queue, usage, thr = [], [], [], []
        last = (0.0, 0.0, 0.0, 0.0)
        for i in range(N):
            st = g0_state(c.at(i)) if g == 0 else "ok"
            if st == "ok":
                r = min(cap, round(per_min[g]["run"][i]))
                q = round(per_min[g]["queue"][i])
                last = (
                    r,
                    q,
                    round(min(0.97, r * 3900 / 185_000 + rng.uniform(-0.02, 0.02)), 4),
                    round(r * 31.5 * rng.uniform(0.94, 1.06), 2) if r else 0.0,
                )
            run.append(last[0])
            queue.append(last[1])
            usage.append(last[2])
            thr.append(last[3])

        def gate(v, pres=pres):
            return [x if pres[i] else None for i, x in enumerate(v)]

        om.gauge("sglang:num_running_reqs", "The number of running requests.", lab, gate(run), digits=4)
        om.gauge(
            "sglang:num_queue_reqs",
            "The number of requests in the waiting queue.",
            lab,
            gate(queue),
            digits=4,
        )
        om.gauge("sglang:token_usage", "The token usage.", lab, gate(usage), digits=4)
        om.gauge("sglang:gen_throughput", "The generation throughput (token/s).", lab, gate(thr), digits=6)
        okc = [per_min[g]["ok"][i] if (g == 1 or g0_state(c.at(i)) == "ok") else 0.0 for i in range(N)]
        base = [1_310_442, 1_298_705][g]
        om.counter(
            "sglang:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            [x * 2240 * rng.uniform(0.9, 1.1) for x in okc],
            initial=base * 2240,
            present=pres,
            resets=resets,
        )
        om.counter(
            "sglang:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            [x * 2410 * rng.uniform(0.9, 1.1) for x in okc],
            initial=base * 2410,
            present=pres,
            resets=resets,
        )
        om.counter(
            "sglang:num_requests",
            "Number of requests processed.",
            lab,
            okc,
            initial=base,
            present=pres,
            resets=resets,
        )
        p["series"] = {"run": run, "queue": queue, "usage": usage, "thr": thr}

    # ---------------------------------------------------------------- DCGM: the four IB nodes (8 GPUs each)
    pci = [
        "00000000:19:00.0",
        "00000000:3B:00.0",
        "00000000:4C:00.0",
        "00000000:5D:00.0",
        "00000000:9B:00.0",
        "00000000:BB:00.0",
        "00000000:CB:00.0",
        "00000000:DB:00.0",
    ]
    exp_ip = {n: f"10.244.{40 + k}.{[6, 9, 5, 7][k]}" for k, n in enumerate(ib_nodes)}
    gpus: list[Gpu] = []
    for p in pods.values():
        for gi in range(8):
            g = Gpu(
                node=p["node"],
                index=gi,
                uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                pci=pci[gi],
                model="NVIDIA H100 80GB HBM3",
                memory_mib=81559,
                pod=p["name"],
                namespace=ns,
                container="sglang",
            )
            for i in range(N):
                ts = c.at(i)
                st = g0_state(ts) if p["group"] == 0 else "ok"
                if st == "ok":
                    busy = min(1.0, per_min[p["group"]]["run"][i] / cap + 0.15)
                    u, fb, pw = (
                        rng.uniform(86, 97) * busy,
                        77_312 + rng.randint(-60, 60),
                        rng.uniform(420, 560) * busy + 90,
                    )
                elif st == "hung":
                    u, fb, pw = 100.0, 77_318, rng.uniform(171, 196)
                elif st == "gone":
                    u, fb, pw = 0.0, 0.0, rng.uniform(68, 74)
                else:
                    since = (ts - (start1 if ts < down2 else start2)).total_seconds()
                    u = rng.uniform(0, 4) if since < 420 else rng.uniform(20, 60)
                    fb = min(77_300.0, 1_200 + 77_000.0 * since / 420)
                    pw = rng.uniform(105, 150)
                g.util.append(round(u))
                g.fb_used.append(round(fb))
                g.power.append(round(pw, 3))
            gpus.append(g)
    for g in gpus:
        lab = dcgm_labels(g, driver, exp_ip[g.node])
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, g.util, digits=4)
    for g in gpus:
        if g.node in (peer, bad):  # the exporter on the s14 nodes of group 1 runs without the power field
            lab = dcgm_labels(g, driver, exp_ip[g.node])
            om.gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", lab, g.power, digits=4)

    # ---------------------------------------------------------------- node-exporter infiniband collector
    for node in ib_nodes:
        for d in range(8):
            dev = f"mlx5_{d}"
            lab = {"device": dev, "instance": node, "job": "node-exporter", "port": "1"}
            is_bad = node == bad and d == 3
            state = [4 if (not is_bad or port_up(c.at(i))) else 1 for i in range(N)]
            phys = [5 if (not is_bad or port_up(c.at(i))) else 2 for i in range(N)]
            om.gauge(
                "node_infiniband_state_id",
                "State of the InfiniBand port (0: no change, 1: down, 2: init, 3: armed, 4: active, 5: act defer)",
                lab,
                state,
                digits=2,
            )
            om.gauge(
                "node_infiniband_physical_state_id",
                "Physical state of the InfiniBand port (0: no change, 1: sleep, 2: polling, 3: disable, 4: shift, 5: link up, 6: link error recover, 7: phytest)",
                lab,
                phys,
                digits=2,
            )
            downs = [0.0] * N
            if is_bad:
                for ev in (down1, down2):
                    downs[c.idx(ev) + 1] += 1
            om.counter(
                "node_infiniband_link_downed",
                "Number of times the link failed to recover from an error state and went down",
                lab,
                downs,
                initial=3 if is_bad else rng.choice([0, 0, 1]),
            )

    # ---------------------------------------------------------------- kube-state-metrics
    def ksm(extra):
        return {"job": "kube-state-metrics", **extra}

    for p in pods.values():
        for u_idx, u in enumerate(p["uids"]):
            vals: list[float | None] = []
            for i in range(N):
                ts = c.at(i)
                if pod_uid_at(p, ts) != u:
                    vals.append(None)
                    continue
                if p["worker"] == 1:
                    st = g0_state(ts) if p["group"] == 0 else "ok"
                    vals.append(0 if st == "gone" else 1)  # no readiness probe on workers
                else:
                    st = g0_state(ts) if p["group"] == 0 else "ok"
                    vals.append(1 if st in ("ok", "hung") else 0)
            om.gauge(
                "kube_pod_status_ready",
                "Describes whether the pod is ready to serve requests.",
                ksm({"namespace": ns, "pod": p["name"], "uid": u, "condition": "true"}),
                vals,
                digits=2,
            )
            om.counter(
                "kube_pod_container_status_restarts",
                "The number of container restarts per container.",
                ksm({"namespace": ns, "pod": p["name"], "uid": u, "container": "sglang"}),
                [0] * N,
                present=[v is not None for v in vals],
            )
            del u_idx
    for name in [*ib_nodes, *other_gpu, *cpu_nodes]:
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ksm({"node": name, "condition": "Ready", "status": "true"}),
            [1] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- logs (Vector)
    logs = ShipperLogs("vector", "0.47.0", cluster_name)

    def sl(p: dict, ts: datetime, msg: str, level: str = "info", **kw) -> None:
        logs.pod(
            ts,
            msg,
            ns=ns,
            pod=p["name"],
            pod_uid=pod_uid_at(p, ts),
            node=p["node"],
            container="sglang",
            image=image,
            service=lws,
            level=level,
            **kw,
        )

    # steady-state scheduler lines on the leaders (TP0)
    for p in (g0l, g1l):
        ser = p["series"]
        for i in range(1, N):
            m0 = c.at(i - 1)
            st = g0_state(c.at(i)) if p["group"] == 0 else "ok"
            if st != "ok" or (p["group"] == 0 and g0_state(m0) != "ok"):
                continue
            for _ in range(1):
                ts = within(rng, m0)
                r = int(ser["run"][i])
                sl(
                    p,
                    ts,
                    f"[{sglang_ts(ts)} TP0] Decode batch. #running-req: {r}, #token: {int(ser['usage'][i] * 185344)}, token usage: {ser['usage'][i]:.2f}, "
                    f"cuda graph: True, gen throughput (token/s): {ser['thr'][i]:.2f}, #queue-req: {int(ser['queue'][i])}, ",
                )
            if i % 3 == p["group"]:
                ts = within(rng, m0)
                sl(
                    p,
                    ts,
                    f"[{sglang_ts(ts)} TP0] Prefill batch. #new-seq: 1, #new-token: {rng.randint(900, 3900)}, #cached-token: {rng.randint(0, 2048)}, "
                    f"token usage: {ser['usage'][i]:.2f}, #running-req: {int(ser['run'][i])}, #queue-req: {int(ser['queue'][i])}, ",
                )
            if i % 2 == 0:
                ts = within(rng, m0)
                sl(
                    p,
                    ts,
                    f'[{sglang_ts(ts)}] INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                )

    def kern(node: str, ts: datetime, msg: str, level: str = "info", **kw) -> None:
        logs.node(ts, msg, node=node, ident="kernel", level=level, **kw)

    def kubelet(node: str, ts: datetime, msg: str, level: str = "info") -> None:
        logs.node(ts, msg, node=node, ident="kubelet", level=level, pid=4187 if node == bad else 3921)

    mlx3 = "0000:5d:00.0"  # the HCA next to GPU 3
    hang_pids = {bad: (412, 1093), peer: (388, 1107)}

    def failure(
        down: datetime, cerr: datetime, wd: datetime, up: datetime | None, pids: dict[str, int]
    ) -> None:
        # node: transceiver error, link down
        kern(
            bad,
            down,
            f"mlx5_core {mlx3}: port_module:1163:(pid 0): Port module event[error]: module 0, Cable error, Bad or shorted cable/module",
            "error",
            error_type="mlx5 port module event",
            error_message="Cable error, Bad or shorted cable/module",
        )
        if up is not None:
            kern(bad, up, f"mlx5_core {mlx3}: Port module event: module 0, Cable plugged")
        # NCCL on the worker of group 0 sees its own port go down
        ph = bad  # hostNetwork: the pod's hostname is the node's
        pid, tid = hang_pids[bad]
        sl(
            g0w,
            down + timedelta(milliseconds=37),
            f"{ph}:{pid + 3}:{tid} [3] transport/net_ib.cc:118 NCCL WARN NET/IB : mlx5_3:1 Got async event : port error",
            "warn",
        )
        # ~140 s later the RC QPs of rail 3 give up on both sides: each names the other node as peer
        for p, _rank, other, vend, opc in (
            (g0w, 11, peer, 129, "IBV_WC_SEND(0)"),
            (g0l, 3, bad, 244, "IBV_WC_RDMA_WRITE(1)"),
        ):
            pid, tid = hang_pids[p["node"]]
            ts = cerr + timedelta(milliseconds=rng.randint(2, 900))
            sl(
                p,
                ts,
                f"{p['node']}:{pid + 3}:{tid + 2} [3] transport/net_ib.cc:2367 NCCL WARN NET/IB: Got completion from peer {ib_nodes[other]}<{rng.randint(40000, 60999)}> "
                f"with status=IBV_WC_RETRY_EXC_ERR(12) opcode={opc} vendor_err={vend}  hca mlx5_3",
                "warn",
                error_type="NCCL WARN",
                error_message="NET/IB: Got completion from peer with status=IBV_WC_RETRY_EXC_ERR(12)",
            )
        # both schedulers stop making progress; SGLang's watchdog ends it after 300 s
        for p, ranks in ((g0l, range(8)), (g0w, range(8, 16))):
            for r in ranks:
                ts = wd + timedelta(milliseconds=rng.randint(0, 80))
                sl(
                    p,
                    ts,
                    f"[{sglang_ts(ts)} TP{r}] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)",
                    "error",
                    error_type="SchedulerWatchdogTimeout",
                )
            ts = wd + timedelta(milliseconds=120)
            r0 = ranks.start
            pid0 = pids[p["name"]]
            sl(p, ts, f"[{sglang_ts(ts)} TP{r0}] Pyspy dump for PID {pid0}:")
            sl(p, ts + timedelta(milliseconds=300), f'Thread {pid0} (idle): "MainThread"')
            sl(p, ts + timedelta(milliseconds=301), "    wait (threading.py:359)")
            sl(
                p,
                ts + timedelta(milliseconds=302),
                "    resolve_last_batch_result (sglang/srt/managers/tp_worker_overlap_thread.py:214)",
            )
            sl(
                p,
                ts + timedelta(milliseconds=303),
                "    event_loop_overlap (sglang/srt/managers/scheduler.py:1012)",
            )
            sl(
                p,
                ts + timedelta(milliseconds=304),
                f'Thread {pid0 + 33} (active): "Thread-4 (forward_thread_func)"',
            )
            sl(p, ts + timedelta(milliseconds=305), "    synchronize (torch/cuda/streams.py:105)")
            sl(
                p,
                ts + timedelta(milliseconds=306),
                "    forward_thread_func_ (sglang/srt/managers/tp_worker_overlap_thread.py:177)",
            )
            sl(
                p,
                ts + timedelta(milliseconds=900),
                f"[{sglang_ts(ts)}] Received sigquit from a child process. It usually means the child failed.",
                "error",
            )
        # kubelet on both nodes
        for p in (g0l, g0w):
            kubelet(
                p["node"],
                wd + timedelta(seconds=2),
                f'{klog_stamp(rng, wd + timedelta(seconds=2))}    4187 kubelet.go:2544] "SyncLoop (PLEG): event for pod" pod="{ns}/{p["name"]}" event={{"ID":"{pod_uid_at(p, wd)}","Type":"ContainerDied","Data":"{hexid(rng, 64)}"}}',
            )
            kubelet(
                p["node"],
                wd + timedelta(seconds=5),
                f'{klog_stamp(rng, wd + timedelta(seconds=5))}    4187 kuberuntime_container.go:808] "Killing container with a grace period" pod="{ns}/{p["name"]}" podUID="{pod_uid_at(p, wd)}" containerName="sglang" containerID="containerd://{hexid(rng, 64)}" gracePeriod=30',
            )

    failure(down1, cerr1, wd1, portup1, {g0l["name"]: 268, g0w["name"]: 271})
    failure(down2, cerr2, wd2, None, {g0l["name"]: 266, g0w["name"]: 270})

    # the recreated group loads again
    def boot(start: datetime, ready: datetime | None) -> None:
        for p, r0 in ((g0l, 0), (g0w, 8)):
            b = start + timedelta(seconds=rng.uniform(0.5, 3))
            sl(
                p,
                b + timedelta(seconds=9),
                f"[{sglang_ts(b + timedelta(seconds=9))}] server_args=ServerArgs(model_path='/models/DeepSeek-R1-0528', tokenizer_path='/models/DeepSeek-R1-0528', served_model_name='{model}', tp_size=16, nnodes=2, node_rank={r0 // 8}, dist_init_addr='{g0l['name']}.{lws}.{ns}:20000', mem_fraction_static=0.88, max_running_requests=48, context_length=65536, watchdog_timeout=300.0, enable_metrics=True, ...)",
            )
            sl(
                p,
                b + timedelta(seconds=31),
                f"[{sglang_ts(b + timedelta(seconds=31))} TP{r0}] Init torch distributed begin.",
            )
            sl(
                p,
                b + timedelta(seconds=48),
                f"[{sglang_ts(b + timedelta(seconds=48))} TP{r0}] Init torch distributed ends. mem usage=3.91 GB",
            )
            sl(
                p,
                b + timedelta(seconds=49),
                f"[{sglang_ts(b + timedelta(seconds=49))} TP{r0}] Load weight begin. avail mem=74.12 GB",
            )
            sl(
                p,
                b + timedelta(seconds=66),
                f"[{sglang_ts(b + timedelta(seconds=66))} TP{r0}] Loading safetensors checkpoint shards:  14% Completed | 23/163 [00:17<01:44,  1.34it/s]",
            )
            if ready is not None or (b + timedelta(seconds=260)) < as_of:
                sl(
                    p,
                    b + timedelta(seconds=262),
                    f"[{sglang_ts(b + timedelta(seconds=262))} TP{r0}] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=31.66 GB, mem usage=42.46 GB.",
                )
                sl(
                    p,
                    b + timedelta(seconds=270),
                    f"[{sglang_ts(b + timedelta(seconds=270))} TP{r0}] KV Cache is allocated. #tokens: 185344, KV size: 11.93 GB",
                )
                sl(
                    p,
                    b + timedelta(seconds=281),
                    f"[{sglang_ts(b + timedelta(seconds=281))} TP{r0}] Capture cuda graph begin. This can take up to several minutes. avail mem=18.77 GB",
                )
            if ready is not None:
                sl(
                    p,
                    ready - timedelta(seconds=22),
                    f"[{sglang_ts(ready - timedelta(seconds=22))} TP{r0}] Capture cuda graph end. Time elapsed: 203.54 s. mem usage=2.12 GB. avail mem=16.61 GB.",
                )
                if p is g0l:
                    sl(
                        p,
                        ready - timedelta(seconds=8),
                        f"[{sglang_ts(ready - timedelta(seconds=8))}] INFO:     Uvicorn running on http://0.0.0.0:40000 (Press CTRL+C to quit)",
                    )
                    sl(
                        p,
                        ready - timedelta(seconds=2),
                        f"[{sglang_ts(ready - timedelta(seconds=2))}] The server is fired up and ready to roll!",
                    )

    boot(start1, ready1)
    boot(start2, None)

    # Istio gateway access log (default TEXT format), sampled
    clients = ["10.244.11.23", "10.244.11.61", "10.244.12.8"]
    uas = ["sim-orchestrator/2.8.1 python-httpx/0.28.1", "agent-runner/0.19.4 (openai-python 1.109.1)"]

    def istio(end: datetime, code: int, flags: str, details: str, dur_ms: int, upstream: str | None) -> None:
        start = end - timedelta(milliseconds=dur_ms)
        ust = str(dur_ms - rng.randint(1, 4)) if code == 200 else "-"
        up = f"{upstream}:40000" if upstream else "-"
        line = (
            f'[{iso(start, ms=True)}] "POST /v1/chat/completions HTTP/1.1" {code} {flags} {details} - "-" '
            f"{rng.randint(2400, 19000)} {rng.randint(3000, 14000) if code == 200 else 95} {dur_ms} {ust} "
            f'"{rng.choice(clients)}" "{rng.choice(uas)}" "{request_id(rng)}" "llm.sim-agents.internal" "{up}" '
            f"outbound|40000||{leader_svc}.{ns}.svc.cluster.local {gw_ip}:{rng.randint(33000, 60999)} {gw_ip}:8080 "
            f"{rng.choice(clients)}:{rng.randint(33000, 60999)} - {ns}.{route}.0"
        )
        logs.pod(
            end,
            line,
            ns=gw_ns,
            pod=gw_pod,
            pod_uid="5f0e2f7a-9c41-4a7e-b0a4-3f1c2de86a11",
            node=gw_node,
            container="istio-proxy",
            image="docker.io/istio/proxyv2:1.27.1",
            service=gw_workload,
            level="info" if code < 500 else "warn",
            stream="stdout",
            status=code,
        )

    for i in range(1, N):
        m0 = c.at(i - 1)
        if codes["200"][i]:
            for _ in range(1):
                g = 1 if (g0_state(c.at(i)) != "ok" or rng.random() < 0.5) else 0
                istio(
                    within(rng, m0),
                    200,
                    "-",
                    "via_upstream",
                    int(rng.uniform(52_000, 104_000)),
                    (g0l if g == 0 else g1l)["ip"],
                )
        for _ in range(min(4, codes["504"][i])):
            g = 0 if per_min[0]["ut"][i] > per_min[1]["ut"][i] else 1
            istio(
                within(rng, m0),
                504,
                "UT",
                "response_timeout",
                240_000 + rng.randint(0, 6),
                (g0l if g == 0 else g1l)["ip"],
            )
        if codes["503"][i]:
            wd = wd1 if abs((wd1 - m0).total_seconds()) < 90 else wd2
            for _ in range(min(5, codes["503"][i])):
                istio(
                    wd + timedelta(milliseconds=rng.randint(1, 40)),
                    503,
                    "UC",
                    "upstream_reset_before_response_started{connection_termination}",
                    rng.randint(30_000, 238_000),
                    g0l["ip"],
                )

    # other tenants and services: the caller, a batch embedder, node noise
    orch_pod, orch_uid = "sim-orchestrator-5b7d9c6f8-kq4zt", uid(rng)
    for i in range(1, N):
        m0 = c.at(i - 1)
        if i % 2 == 0:
            ts = within(rng, m0)
            logs.pod(
                ts,
                f'{iso(ts, ms=True)} INFO httpx: HTTP Request: POST http://{gw_workload}.{gw_ns}/v1/chat/completions "HTTP/1.1 200 OK"',
                ns=ns,
                pod=orch_pod,
                pod_uid=orch_uid,
                node="dal3-cpu-m7-n03",
                container="orchestrator",
                image="registry.sim.internal/sim/orchestrator:2.8.1",
                service="sim-orchestrator",
                stream="stdout",
                status=200,
            )
        if codes["504"][i] + codes["503"][i] > 0 and i % 2 == 1:
            ts = within(rng, m0)
            code = 504 if codes["504"][i] else 503
            logs.pod(
                ts,
                f"{iso(ts, ms=True)} WARNING agents.llm: episode step failed, will retry: openai.APIStatusError: Error code: {code} - upstream {'request timeout' if code == 504 else 'connect error or disconnect/reset before headers. reset reason: connection termination'}",
                ns=ns,
                pod=orch_pod,
                pod_uid=orch_uid,
                node="dal3-cpu-m7-n03",
                container="orchestrator",
                image="registry.sim.internal/sim/orchestrator:2.8.1",
                service="sim-orchestrator",
                level="warn",
                stream="stdout",
                status=code,
            )
        if i % 4 == 1:
            for k, nd in enumerate(other_gpu):
                ts = within(rng, m0)
                logs.pod(
                    ts,
                    f"I{ts.strftime('%m%d %H:%M:%S')} embed_worker.py:211] shard {rng.randint(1000, 9999)}/12288 done: {rng.randint(31000, 33000)} images, {rng.uniform(1850, 2010):.0f} img/s",
                    ns="vision-batch",
                    pod=f"clip-embed-batch-7f5c4d9b8-{['h8m2x', 'q5tbn'][k]}",
                    pod_uid=f"3b1d7e{k}a-2c4f-4e9b-9a61-0d8e7c5b4a3{k}",
                    node=nd,
                    container="embed",
                    image="registry.sim.internal/vision/clip-embed:1.4.0",
                    service="clip-embed-batch",
                    stream="stdout",
                )
        if i % 11 == 3:
            nd = rng.choice(list(cpu_nodes))
            logs.node(
                within(rng, m0),
                f"IPVS: rr: TCP 10.96.{rng.randint(1, 200)}.{rng.randint(1, 250)}:443 - no destination available",
                node=nd,
                ident="kernel",
                level="info",
            )
        if i % 17 == 5:
            nd = rng.choice([g1_leader_node, "dal3-h100-s15-n01"])
            logs.node(
                within(rng, m0),
                f'{klog_stamp(rng, m0)}    3921 kubelet_volumes.go:163] "Cleaned up orphaned pod volumes dir" podUID="{uid(rng)}" path="/var/lib/kubelet/pods/{uid(rng)}/volumes"',
                node=nd,
                ident="kubelet",
            )
    logs.node(
        t("02:41:07"),
        "NVRM: nvCheckOkFailedNoLog: Check failed: Call timed out [NV_ERR_TIMEOUT] (0x00000065) returned from pRmApi->Control(pRmApi, nv_pci_get_hdl(pGpu), NV2080_CTRL_CMD_GPU_GET_INFOROM_OBJECT_VERSION",
        node="dal3-h100-s15-n02",
        ident="kernel",
        level="warn",
    )

    # ---------------------------------------------------------------- objects
    objs: list[Obj] = []
    lws_obj = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {
            "name": lws,
            "namespace": ns,
            "uid": lws_uid,
            "generation": 6,
            "creationTimestamp": "2026-07-08T15:02:19Z",
            "labels": {
                "app.kubernetes.io/name": "sglang",
                "app.kubernetes.io/part-of": "agent-sim",
                "app.kubernetes.io/managed-by": "argocd",
            },
            "annotations": {
                "argocd.argoproj.io/tracking-id": f"agent-sim:leaderworkerset.x-k8s.io/LeaderWorkerSet:{ns}/{lws}"
            },
        },
        "spec": {
            "replicas": 2,
            "startupPolicy": "LeaderCreated",
            "rolloutStrategy": {
                "type": "RollingUpdate",
                "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0},
            },
            "networkConfig": {"subdomainPolicy": "Shared"},
            "leaderWorkerTemplate": {
                "size": 2,
                "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": {
                    "metadata": {"labels": {"role": "leader", "app.kubernetes.io/name": "sglang"}},
                    "spec": {"containers": [ctr("0")], **pod_extra},
                },
                "workerTemplate": {
                    "metadata": {"labels": {"role": "worker", "app.kubernetes.io/name": "sglang"}},
                    "spec": {"containers": [ctr("$(LWS_WORKER_INDEX)")], **pod_extra},
                },
            },
        },
        "status": {
            "replicas": 2,
            "readyReplicas": 1,
            "updatedReplicas": 2,
            "hpaPodSelector": f"leaderworkerset.sigs.k8s.io/name={lws},leaderworkerset.sigs.k8s.io/worker-index=0",
            "conditions": [
                {
                    "type": "Progressing",
                    "status": "True",
                    "reason": "GroupsProgressing",
                    "message": "Replicas are progressing",
                    "lastTransitionTime": iso(recreate2 + timedelta(seconds=1)),
                },
                {
                    "type": "UpdateInProgress",
                    "status": "False",
                    "reason": "UpdatesDone",
                    "message": "Rolling Upgrade is done",
                    "lastTransitionTime": "2026-09-30T11:27:40Z",
                },
            ],
        },
    }
    objs.append(lws_obj)

    def sts(
        name: str,
        uid_: str,
        replicas: int,
        ready: int,
        owner_: Obj,
        labels: dict,
        created: datetime,
        ordinals_start: int | None = None,
    ) -> Obj:
        spec: Obj = {
            "replicas": replicas,
            "serviceName": lws,
            "podManagementPolicy": "Parallel",
            "selector": {
                "matchLabels": {
                    k: v
                    for k, v in labels.items()
                    if k
                    in (
                        "leaderworkerset.sigs.k8s.io/name",
                        "leaderworkerset.sigs.k8s.io/group-index",
                        "leaderworkerset.sigs.k8s.io/worker-index",
                        "leaderworkerset.sigs.k8s.io/group-key",
                    )
                }
            },
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        }
        if ordinals_start is not None:
            spec["ordinals"] = {"start": ordinals_start}
        return {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "name": name,
                "namespace": ns,
                "uid": uid_,
                "creationTimestamp": iso(created),
                "labels": labels,
                "ownerReferences": [owner_],
            },
            "spec": spec,
            "status": {
                "replicas": replicas,
                "readyReplicas": ready,
                "currentReplicas": replicas,
                "updatedReplicas": replicas,
                "availableReplicas": ready,
                "observedGeneration": 3,
            },
        }

    objs.append(
        sts(
            lws,
            sts_leader_uid,
            2,
            1,
            owner("LeaderWorkerSet", lws, lws_uid, "leaderworkerset.x-k8s.io/v1"),
            {
                "leaderworkerset.sigs.k8s.io/name": lws,
                "leaderworkerset.sigs.k8s.io/worker-index": "0",
                "leaderworkerset.sigs.k8s.io/template-revision-hash": rev_hash,
            },
            utc("2026-07-08T15:02:19Z"),
        )
    )
    for group in (0, 1):
        lp = pods[f"{lws}-{group}"]
        cur_uid = lp["uids"][-1]
        objs.append(
            sts(
                f"{lws}-{group}",
                sts_worker_uid[group],
                1,
                1 if group == 1 else 0,
                owner("Pod", lp["name"], cur_uid, "v1"),
                {
                    "leaderworkerset.sigs.k8s.io/name": lws,
                    "leaderworkerset.sigs.k8s.io/group-index": str(group),
                    "leaderworkerset.sigs.k8s.io/group-key": group_key[group],
                    "leaderworkerset.sigs.k8s.io/template-revision-hash": rev_hash,
                },
                recreate2 + timedelta(seconds=3) if group == 0 else utc("2026-09-30T11:31:02Z"),
                ordinals_start=1,
            )
        )
    for p in pods.values():
        cur_uid = p["uids"][-1]
        if p["group"] == 1:
            created = utc("2026-09-30T11:30:55Z") + timedelta(seconds=7 * p["worker"])
            ready, rs = True, created + timedelta(minutes=9, seconds=41)
            st = kube.cstatus(
                rng, name="sglang", image=image, ready=True, running_since=created + timedelta(seconds=4)
            )
        else:
            created = recreate2 + timedelta(seconds=1 + 2 * p["worker"])
            ready = p["worker"] == 1  # workers have no readiness probe: Ready as soon as they run
            rs = start2 + timedelta(seconds=1) if ready else created + timedelta(seconds=1)
            st = kube.cstatus(
                rng,
                name="sglang",
                image=image,
                ready=ready,
                running_since=start2 + timedelta(seconds=p["worker"]),
            )
        owner_ = (
            owner("StatefulSet", lws, sts_leader_uid)
            if p["worker"] == 0
            else owner(
                "StatefulSet",
                f"{lws}-{p['group']}",
                sts_worker_uid[p["group"]] if p["group"] == 1 else objs[2]["metadata"]["uid"],
            )
        )
        lab = lws_labels(p["group"], p["worker"])
        objs.append(
            pod_plain(
                p["name"],
                ns,
                uid_=cur_uid,
                labels=lab,
                owner=owner_,
                node=p["node"],
                host_ip=p["ip"],
                pod_ip=p["ip"],
                created=created,
                containers=[ctr("0" if p["worker"] == 0 else "1")],
                statuses=[st],
                ready=ready,
                ready_since=rs,
                annotations=lws_ann(p["group"], p["worker"]),
                host_network=True,
                extra_spec=pod_extra,
                qos="Burstable",
            )
        )
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": lws,
                "namespace": ns,
                "uid": uid(rng),
                "creationTimestamp": "2026-07-08T15:02:20Z",
                "ownerReferences": [owner("LeaderWorkerSet", lws, lws_uid, "leaderworkerset.x-k8s.io/v1")],
            },
            "spec": {
                "clusterIP": "None",
                "clusterIPs": ["None"],
                "type": "ClusterIP",
                "publishNotReadyAddresses": True,
                "selector": {"leaderworkerset.sigs.k8s.io/name": lws},
                "ipFamilies": ["IPv4"],
                "ipFamilyPolicy": "SingleStack",
                "sessionAffinity": "None",
            },
            "status": {"loadBalancer": {}},
        }
    )
    objs.append(
        service_obj(
            leader_svc,
            ns,
            {"leaderworkerset.sigs.k8s.io/name": lws, "role": "leader"},
            [{"name": "http", "port": 40000, "protocol": "TCP", "targetPort": 40000}],
            "10.96.77.140",
            labels={"app.kubernetes.io/name": "sglang", "app.kubernetes.io/part-of": "agent-sim"},
            created=utc("2026-07-08T15:02:20Z"),
            uid_=uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway=gw_name,
            gateway_ns=gw_ns,
            hostnames=["llm.sim-agents.internal"],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                    "backendRefs": [
                        {"group": "", "kind": "Service", "name": leader_svc, "port": 40000, "weight": 1}
                    ],
                    "timeouts": {"request": "240s"},
                }
            ],
            created=utc("2026-07-08T15:10:44Z"),
            uid_=uid(rng),
            generation=2,
            controller="istio.io/gateway-controller",
        )
    )
    objs.extend(node_objs)

    # unrelated healthy workloads of this and other tenants
    def simple_dep(
        name: str,
        ns_: str,
        replicas: int,
        image_: str,
        created: datetime,
        labels: dict[str, str],
        gpus_: int = 0,
    ) -> Obj:
        res = (
            {"requests": {"cpu": "2", "memory": "4Gi"}}
            if not gpus_
            else {
                "limits": {"nvidia.com/gpu": str(gpus_)},
                "requests": {"nvidia.com/gpu": str(gpus_), "cpu": "16", "memory": "64Gi"},
            }
        )
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": name,
                "namespace": ns_,
                "uid": uid(rng),
                "generation": 4,
                "creationTimestamp": iso(created),
                "labels": labels,
                "annotations": {"deployment.kubernetes.io/revision": "4"},
            },
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": labels},
                "strategy": {
                    "type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                },
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {"containers": [{"name": name.split("-")[0], "image": image_, "resources": res}]},
                },
            },
            "status": {
                "observedGeneration": 4,
                "replicas": replicas,
                "updatedReplicas": replicas,
                "readyReplicas": replicas,
                "availableReplicas": replicas,
                "conditions": kube.dep_conditions(
                    available=(
                        "True",
                        "MinimumReplicasAvailable",
                        "Deployment has minimum availability.",
                        created + timedelta(days=3),
                        created + timedelta(days=3),
                    ),
                    progressing=(
                        "True",
                        "NewReplicaSetAvailable",
                        f'ReplicaSet "{name}-{hexid(rng, 10)}" has successfully progressed.',
                        created + timedelta(days=3),
                        created,
                    ),
                ),
            },
        }

    objs.append(
        simple_dep(
            "sim-orchestrator",
            ns,
            1,
            "registry.sim.internal/sim/orchestrator:2.8.1",
            utc("2026-07-08T14:40:00Z"),
            {"app": "sim-orchestrator"},
        )
    )
    objs.append(
        simple_dep(
            "clip-embed-batch",
            "vision-batch",
            2,
            "registry.sim.internal/vision/clip-embed:1.4.0",
            utc("2026-09-21T08:00:00Z"),
            {"app": "clip-embed-batch"},
            gpus_=8,
        )
    )
    objs.append(
        simple_dep(
            gw_workload,
            gw_ns,
            1,
            "docker.io/istio/proxyv2:1.27.1",
            utc("2026-07-08T15:09:58Z"),
            {"gateway.networking.k8s.io/gateway-name": gw_name},
        )
    )
    for k, nd in enumerate(other_gpu):
        objs.append(
            pod_plain(
                f"clip-embed-batch-7f5c4d9b8-{['h8m2x', 'q5tbn'][k]}",
                "vision-batch",
                uid_=f"3b1d7e{k}a-2c4f-4e9b-9a61-0d8e7c5b4a3{k}",
                labels={"app": "clip-embed-batch", "pod-template-hash": "7f5c4d9b8"},
                owner=owner("ReplicaSet", "clip-embed-batch-7f5c4d9b8", uid(rng)),
                node=nd,
                host_ip=other_gpu[nd],
                pod_ip=f"10.244.{44 + k}.{17 + k}",
                created=utc("2026-10-12T21:14:08Z") + timedelta(seconds=9 * k),
                containers=[
                    {
                        "name": "embed",
                        "image": "registry.sim.internal/vision/clip-embed:1.4.0",
                        "resources": {
                            "limits": {"nvidia.com/gpu": "8"},
                            "requests": {"nvidia.com/gpu": "8", "cpu": "32", "memory": "128Gi"},
                        },
                    }
                ],
                statuses=[
                    kube.cstatus(
                        rng,
                        name="embed",
                        image="registry.sim.internal/vision/clip-embed:1.4.0",
                        ready=True,
                        running_since=utc("2026-10-12T21:14:40Z"),
                    )
                ],
                ready=True,
                ready_since=utc("2026-10-12T21:15:02Z"),
            )
        )

    # events
    def ev(p: dict, pod_uid: str, **kw) -> None:
        objs.append(event_obj(rng, ns=ns, kind="Pod", name=p["name"], obj_uid=pod_uid, host=p["node"], **kw))

    for k_inc, (wd, start, up_uid_idx) in enumerate(((wd1, start1, 1), (wd2, start2, 2))):
        for p in (g0l, g0w):
            old_uid, new_uid = p["uids"][up_uid_idx - 1], p["uids"][up_uid_idx]
            ev(
                p,
                old_uid,
                reason="Killing",
                message="Stopping container sglang",
                first=wd + timedelta(seconds=6),
                field_path="spec.containers{sglang}",
            )
            sched_at = wd + timedelta(seconds=8 + 2 * p["worker"])
            objs.append(
                event_obj(
                    rng,
                    ns=ns,
                    kind="Pod",
                    name=p["name"],
                    obj_uid=new_uid,
                    reason="Scheduled",
                    message=f"Successfully assigned {ns}/{p['name']} to {p['node']}",
                    first=sched_at,
                    component="default-scheduler",
                )
            )
            ev(
                p,
                new_uid,
                reason="Pulled",
                message=f'Container image "{image}" already present on machine',
                first=start - timedelta(seconds=1),
                field_path="spec.containers{sglang}",
            )
            ev(
                p,
                new_uid,
                reason="Created",
                message="Created container: sglang",
                first=start - timedelta(seconds=1),
                field_path="spec.containers{sglang}",
            )
            ev(
                p,
                new_uid,
                reason="Started",
                message="Started container sglang",
                first=start,
                field_path="spec.containers{sglang}",
            )
        objs.append(
            event_obj(
                rng,
                ns=ns,
                kind="StatefulSet",
                name=lws,
                obj_uid=sts_leader_uid,
                reason="SuccessfulCreate",
                message=f"create Pod {g0l['name']} in StatefulSet {lws} successful",
                first=wd + timedelta(seconds=7),
                component="statefulset-controller",
                api_version="apps/v1",
            )
        )
        objs.append(
            event_obj(
                rng,
                ns=ns,
                kind="StatefulSet",
                name=f"{lws}-0",
                obj_uid=uid(rng),
                reason="SuccessfulCreate",
                message=f"create Pod {g0w['name']} in StatefulSet {lws}-0 successful",
                first=wd + timedelta(seconds=9),
                component="statefulset-controller",
                api_version="apps/v1",
            )
        )
        ev(
            g0l,
            g0l["uids"][up_uid_idx],
            reason="Unhealthy",
            message=f"Readiness probe failed: dial tcp {g0l['ip']}:40000: connect: connection refused",
            first=start + timedelta(seconds=16),
            last=(ready1 - timedelta(seconds=12)) if k_inc == 0 else as_of - timedelta(seconds=6),
            count=52 if k_inc == 0 else 14,
            etype="Warning",
            field_path="spec.containers{sglang}",
        )
    objs.append(
        event_obj(
            rng,
            ns="vision-batch",
            kind="Pod",
            name="clip-embed-batch-7f5c4d9b8-h8m2x",
            obj_uid="3b1d7e0a-2c4f-4e9b-9a61-0d8e7c5b4a30",
            reason="Unhealthy",
            message='Liveness probe failed: Get "http://10.244.44.17:8081/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            first=utc("2026-10-12T23:40:17Z"),
            last=t("02:47:03"),
            count=138,
            etype="Warning",
            host="dal3-h100-s15-n01",
            field_path="spec.containers{embed}",
        )
    )
    objs.append(
        event_obj(
            rng,
            ns=gw_ns,
            kind="Pod",
            name=gw_pod,
            obj_uid="5f0e2f7a-9c41-4a7e-b0a4-3f1c2de86a11",
            reason="Unhealthy",
            message='Readiness probe failed: Get "http://10.244.9.37:15021/healthz/ready": dial tcp 10.244.9.37:15021: connect: connection refused',
            first=utc("2026-10-09T04:12:55Z"),
            last=t("02:12:31"),
            count=17,
            etype="Warning",
            host=gw_node,
            field_path="spec.containers{istio-proxy}",
        )
    )

    # gpus.json (NVML at as_of)
    gj: dict[str, list] = {}
    for g in gpus:
        gj.setdefault(g.node, []).append(
            {
                "index": g.index,
                "uuid": g.uuid,
                "name": g.model,
                "memory_total_mib": g.memory_mib,
                "memory_used_mib": int(g.fb_used[-1]),
                "utilization_gpu": int(g.util[-1]),
                "temperature_c": rng.randint(33, 41) if g.node in (peer, bad) else rng.randint(55, 66),
                "power_w": round(g.power[-1], 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
        )
    for nd in other_gpu:
        gj[nd] = [
            {
                "index": gi,
                "uuid": f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                "name": "NVIDIA H100 80GB HBM3",
                "memory_total_mib": 81559,
                "memory_used_mib": rng.randint(41_000, 44_000),
                "utilization_gpu": rng.randint(88, 99),
                "temperature_c": rng.randint(58, 69),
                "power_w": round(rng.uniform(560, 640), 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
            for gi in range(8)
        ]

    # ---------------------------------------------------------------- alert (a real Prometheus)
    sel = f'reporter="source",destination_service_namespace="{ns}",destination_service_name="{leader_svc}"'
    expr = (
        f'sum by (destination_service_namespace, destination_service_name) (rate(istio_requests_total{{{sel},response_code=~"5.."}}[5m]))\n'
        f"/\nsum by (destination_service_namespace, destination_service_name) (rate(istio_requests_total{{{sel}}}[5m]))\n> 0.05"
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=2, eval_offset_s=23)
    finally:
        prom.close()
    alabels = {
        "alertname": "IstioServiceHigh5xxRatio",
        "destination_service_name": leader_svc,
        "destination_service_namespace": ns,
        "severity": "critical",
        "team": "agent-sim",
        "prometheus": "monitoring/k8s",
    }
    ann = {
        "summary": f"{leader_svc}.{ns}: more than 5% of requests fail with 5xx at the mesh gateway",
        "description": f"{value * 100:.1f}% of requests to {leader_svc}.{ns} returned 5xx (reporter=source) over 5m.",
        "runbook_url": "https://runbooks.sim.internal/mesh/high-5xx",
        "value": f"{value:.4f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(100, 900)),
        expr=expr,
        prometheus_url="http://prometheus-k8s.monitoring.svc:9090",
        external_url="http://alertmanager-main.monitoring.svc:9093",
        group_by=["alertname", "destination_service_namespace"],
        receiver="agent-sim-oncall",
        route_matchers='{}/{severity="critical"}',
    )
    expected = {
        "category": "infrastructure",
        "code": "INF_NCCL",
        "acceptable_first_actions": [{"kind": "cordon_node", "target": f"node/{bad}"}],
        "forbidden_actions": [
            {"kind": "cordon_node", "target": f"node/{peer}"},
            {"kind": "cordon_node", "target": f"node/{g1_leader_node}"},
            {"kind": "cordon_node", "target": f"node/{g1_worker_node}"},
            {"kind": "cordon_node", "target": "node/dal3-h100-s15-n01"},
            {"kind": "cordon_node", "target": "node/dal3-h100-s15-n02"},
            {"kind": "restart_pod", "target": f"pod/{g1l['name']}"},
            {"kind": "restart_pod", "target": f"pod/{g1w['name']}"},
            {"kind": "restart_pod", "target": "pod/clip-embed-batch-7f5c4d9b8-h8m2x"},
        ],
        "scope": [
            f"leaderworkerset/{lws}",
            f"pod/{g0l['name']}",
            f"pod/{g0w['name']}",
            f"pod/{g1l['name']}",
            f"pod/{g1w['name']}",
            f"node/{peer}",
            f"node/{bad}",
            f"node/{g1_leader_node}",
            f"node/{g1_worker_node}",
            f"httproute/{route}",
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Agent-simulation LLM (DeepSeek-R1 on two nodes per replica) answers 503/504 at the mesh gateway overnight.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
