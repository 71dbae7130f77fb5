# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""Another team's batch job squeezes the GPU memory of the vLLM replicas that share its GPUs (time-slicing).

AKS cluster, GPU Operator with the NVIDIA device plugin's time-slicing config (`replicas: 2`,
`renameByDefault: false`): every A100 80GB PCIe of the `a100ts` pool is advertised twice, so the
nodes carry `nvidia.com/gpu: 8` for 4 physical cards and `nvidia.com/gpu.product=...-SHARED`. Time-slicing
gives no memory isolation. The chat team runs vLLM 0.11.0 (Granite 3.3 8B, `--gpu-memory-utilization 0.45`,
`--enforce-eager`) on that pool. Since 06:30 the search team's indexed Job `docs-embed-backfill-20261104`
(namespace `embed-batch`, BGE-M3, `--max-seq-length 8192 --sort-by-length asc`) runs four workers on the same
pool. Two of them landed on the same physical GPUs as vLLM replicas (the device plugin spreads replicas, and
the batch pods came last). As the corpus reaches longer documents, the workers' caching allocators grow from
~22 GiB to ~44 GiB (DCGM `DCGM_FI_DEV_FB_USED` climbs from 09:24 on the two co-tenanted GPUs, and the workers' own
logs show `cuda_reserved` rising). Under the normal morning peak, the vLLM replica on
`aks-a100ts-31874215-vmss000000` GPU 0 fails an allocation at 09:45:52 (`torch.OutOfMemoryError: CUDA out of
memory. Tried to allocate 400.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 221.75 MiB is free.
Process 1847302 has 42.84 GiB memory in use. Including non-PyTorch memory, this process has 36.09 GiB ...`).
The EngineCore dies, the API server logs `EngineDeadError` (bait: the engine "crash" follows the OOM) and
exits, and every restart then fails in the startup memory check (`ValueError: Free memory on device cuda:0
(35.33/79.15 GiB) on startup is less than desired GPU memory utilization (0.45, 35.62 GiB)`), so the pod
is in CrashLoopBackOff. The replica on `...vmss000001` GPU 1 follows at 09:52:20. The two replicas whose GPUs
hold no growing worker stay healthy but take the whole peak: they run full batches, their waiting queues
grow, and requests past the 60 s route timeout come back as 504 (UT) from Contour's Envoy. This is bait for
INF_GPU_OVERLOAD, but it comes later on the timeline. The alert is a Pyrra `ErrorBudgetBurn` on the route's
Envoy cluster: its labels carry `slo`, `envoy_cluster_name`, `short`/`long`/`exhaustion` and no service or model.

Answer: `infrastructure` / `INF_GPU_OOM`, from the earliest cause (a co-tenant process took the GPU memory;
no Xid, no ECC, no rollout in the window). Only `add_replica` of the chat deployment helps with the catalog:
the pool still has free slices on GPUs that hold no growing worker. Restarting the crash-looping pods does not help
while the worker holds the memory. Rolling back (0.10.2 -> 0.11.0 a week ago) does not help either, and the
batch job belongs to another team.
"""

from __future__ import annotations

import copy
import math
import random
from datetime import datetime, timedelta

from . import exporters as ex
from . import kube
from .common import envoy_text, gpu_node, klog_stamp
from .lib import (
    OM,
    Clock,
    Logs,
    Obj,
    Prom,
    configmap_obj,
    current_firing,
    event_obj,
    hexid,
    httproute_obj,
    iso,
    kname,
    owner,
    ramp,
    service_obj,
    utc,
    webhook,
    within,
    write_pack,
)

KSM_INSTANCE = "10.244.1.14:8080"
NAME = "batch-job-gpu-memory-squeeze"
ENGINE = "vLLM 0.11.0 (V1), Granite-3.3-8B, A100 80GB PCIe time-sliced (device plugin replicas: 2), Contour"


# ---------------------------------------------------------------------------------------------------------------
# small helpers (also imported by p8/p9)
# ---------------------------------------------------------------------------------------------------------------
def simple_pod(
    rng: random.Random,
    *,
    name: str,
    ns: str,
    labels: dict[str, str],
    owner_ref: Obj | None,
    node: str,
    node_ip: str,
    pod_ip: str,
    created: datetime,
    containers: list[Obj],
    statuses: list[Obj],
    ready: bool = True,
    phase: str = "Running",
    annotations: dict[str, str] | None = None,
    extra_spec: Obj | None = None,
    qos: str = "Burstable",
) -> Obj:
    """A Pod owned by anything (Job, DaemonSet, StatefulSet) or nothing, as `kubectl get -o yaml` prints it."""
    md: Obj = {
        "name": name,
        "namespace": ns,
        "uid": kube.new_uid(rng),
        "creationTimestamp": iso(created),
        "labels": labels,
    }
    if annotations:
        md["annotations"] = annotations
    if owner_ref:
        md["ownerReferences"] = [owner_ref]
    spec: Obj = {
        "containers": containers,
        "nodeName": node,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        **(extra_spec or {}),
    }
    unready = ", ".join(s["name"] for s in statuses if not s["ready"])
    cond_ready = {"type": "Ready", "status": "True" if ready else "False", "lastProbeTime": None}
    if not ready:
        cond_ready.update(
            {"reason": "ContainersNotReady", "message": f"containers with unready status: [{unready}]"}
        )
    conds = [
        {
            "type": "PodReadyToStartContainers",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": iso(created + timedelta(seconds=3)),
        },
        {
            "type": "Initialized",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": iso(created + timedelta(seconds=1)),
        },
        {**cond_ready, "lastTransitionTime": iso(created + timedelta(seconds=40))},
        {
            **{k: v for k, v in cond_ready.items() if k != "type"},
            "type": "ContainersReady",
            "lastTransitionTime": iso(created + timedelta(seconds=40)),
        },
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": iso(created),
        },
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": md,
        "spec": spec,
        "status": {
            "phase": phase,
            "conditions": conds,
            "hostIP": node_ip,
            "hostIPs": [{"ip": node_ip}],
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}],
            "startTime": iso(created),
            "containerStatuses": statuses,
            "qosClass": qos,
        },
    }


def running_status(rng: random.Random, name: str, image: str, since: datetime, restarts: int = 0) -> Obj:
    return kube.cstatus(rng, name=name, image=image, ready=True, restart_count=restarts, running_since=since)


def window_ratio(
    errs: list[float], tot: list[float], i: int, minutes: int, pre_rate: float, pre_err: float
) -> float:
    """Error ratio over the last `minutes` one-minute increments ending at sample i (before the pack: a baseline)."""
    inside = min(i, minutes)
    e = sum(errs[i - j] for j in range(inside))
    n = sum(tot[i - j] for j in range(inside))
    outside = minutes - inside
    e += outside * pre_rate * pre_err
    n += outside * pre_rate
    return e / n if n else 0.0


def evaluate_group(
    prom: Prom, expr: str, clock: Clock, for_minutes: int, offset_s: int, key: str | None = None
):
    """Evaluate a rule every minute; return {key-label-value or '': (startsAt, value, metric)} firing at as_of."""
    pending: dict[str, tuple[datetime, dict]] = {}
    firing: dict[str, tuple[datetime, float, dict]] = {}
    for i in range(clock.n):
        at = clock.at(i) + timedelta(seconds=offset_s)
        if at > clock.as_of:
            break
        seen = set()
        for r in prom.query(expr, at):
            k = r["metric"].get(key, "") if key else ""
            seen.add(k)
            pending.setdefault(k, (at, r["metric"]))
            if k not in firing and at - pending[k][0] >= timedelta(minutes=for_minutes):
                firing[k] = (at, float(r["value"][1]), r["metric"])
        for k in list(pending):
            if k not in seen:
                pending.pop(k)
                firing.pop(k, None)
    now = {(r["metric"].get(key, "") if key else "") for r in prom.query(expr, clock.as_of)}
    return {k: v for k, v in firing.items() if k in now}


def ksm(extra: dict[str, str], instance: str) -> dict[str, str]:
    """kube-state-metrics series as kube-prometheus-stack scrapes them, with this cluster's KSM pod address."""
    return {**ex.ksm_labels(extra, True), "instance": instance}


# ---------------------------------------------------------------------------------------------------------------
def build(root):
    rng = random.Random(9707)
    as_of = utc("2026-11-04T10:08:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "chat-serving"
    bns = "embed-batch"
    gw_ns = "chat-edge"
    dep = "vllm-granite-8b-chat"
    guard = "vllm-granite-guardian"
    model = "granite-3.3-8b-chat"
    route = "granite-chat"
    image = "vllm/vllm-openai:v0.11.0"
    old_image = "vllm/vllm-openai:v0.10.2"
    cluster = f"{ns}_{dep}_8000"  # Contour's alt_stat_name: namespace_service_port
    driver = "570.172.08"
    job = "docs-embed-backfill-20261104"
    job_image = "acrsearchprod.azurecr.io/search/doc-embedder:2.14.0"
    crash_a, crash_d = t("09:45:52"), t("09:52:20")
    grow_a0, grow_d0 = t("09:24:00"), t("09:31:00")

    # ---------------------------------------------------------------- nodes (AKS)
    sub = "3f6a1c2e-8b4d-4e1f-9a7c-5d2b8e6f0a41"
    rg = "MC_rg-chat-prod_aks-chat-prod_westeurope"
    ts_nodes = [
        ("aks-a100ts-31874215-vmss000000", "10.224.0.14"),
        ("aks-a100ts-31874215-vmss000001", "10.224.0.15"),
    ]
    ded_node = ("aks-a100ded-31874215-vmss000000", "10.224.0.21")
    sys_nodes = [(f"aks-system-31874215-vmss00000{k}", f"10.224.0.{4 + k}") for k in range(3)]
    common_node = dict(
        as_of=as_of,
        created=utc("2026-05-19T08:14:52Z"),
        ready_since=utc("2026-10-21T02:11:37Z"),
        pod_cidr=None,
        gpu_mem_mib=81920,
        instance_type="Standard_NC96ads_A100_v4",
        zone="westeurope-1",
        region="westeurope",
        cpu=96,
        mem_ki=922_364_964,
        kubelet="v1.32.7",
        runtime="containerd://1.7.28-1",
        kernel="5.15.0-1092-azure",
        os_image="Ubuntu 22.04.5 LTS",
        driver_major="570",
        taints=[{"key": "sku", "value": "gpu", "effect": "NoSchedule"}],
    )
    node_objs = []
    for k, (n, ip) in enumerate(ts_nodes):
        node_objs.append(
            gpu_node(
                rng,
                n,
                ip=ip,
                product="NVIDIA A100 80GB PCIe SHARED",
                gpu_count=4,
                allocatable_gpus=8,
                provider_id=f"azure:///subscriptions/{sub}/resourceGroups/{rg.lower()}/providers/Microsoft.Compute/virtualMachineScaleSets/aks-a100ts-31874215-vmss/virtualMachines/{k}",
                extra_labels={
                    "agentpool": "a100ts",
                    "kubernetes.azure.com/agentpool": "a100ts",
                    "kubernetes.azure.com/cluster": rg,
                    "kubernetes.azure.com/mode": "user",
                    "kubernetes.azure.com/node-image-version": "AKSUbuntu-2204gen2containerd-202510.07.0",
                    "nvidia.com/device-plugin.config": "a100-80gb-ts2",
                    "nvidia.com/gpu.replicas": "2",
                    "nvidia.com/gpu.sharing-strategy": "time-slicing",
                    "nvidia.com/gpu.family": "ampere",
                    "nvidia.com/mig.capable": "true",
                    "gpu-pool": "a100-shared",
                },
                **common_node,
            )
        )
        node_objs[-1]["status"]["capacity"]["nvidia.com/gpu"] = "8"
    node_objs.append(
        gpu_node(
            rng,
            ded_node[0],
            ip=ded_node[1],
            product="NVIDIA A100 80GB PCIe",
            gpu_count=4,
            provider_id=f"azure:///subscriptions/{sub}/resourceGroups/{rg.lower()}/providers/Microsoft.Compute/virtualMachineScaleSets/aks-a100ded-31874215-vmss/virtualMachines/0",
            extra_labels={
                "agentpool": "a100ded",
                "kubernetes.azure.com/agentpool": "a100ded",
                "kubernetes.azure.com/cluster": rg,
                "kubernetes.azure.com/mode": "user",
                "kubernetes.azure.com/node-image-version": "AKSUbuntu-2204gen2containerd-202510.07.0",
                "nvidia.com/gpu.replicas": "1",
                "nvidia.com/gpu.sharing-strategy": "none",
                "nvidia.com/gpu.family": "ampere",
                "nvidia.com/mig.capable": "true",
                "gpu-pool": "a100-dedicated",
            },
            **common_node,
        )
    )
    for k, (n, ip) in enumerate(sys_nodes):
        no = gpu_node(
            rng,
            n,
            ip=ip,
            product="none",
            gpu_count=0,
            provider_id=f"azure:///subscriptions/{sub}/resourceGroups/{rg.lower()}/providers/Microsoft.Compute/virtualMachineScaleSets/aks-system-31874215-vmss/virtualMachines/{k}",
            extra_labels={
                "agentpool": "system",
                "kubernetes.azure.com/agentpool": "system",
                "kubernetes.azure.com/cluster": rg,
                "kubernetes.azure.com/mode": "system",
                "kubernetes.azure.com/node-image-version": "AKSUbuntu-2204gen2containerd-202510.07.0",
            },
            **{
                **common_node,
                "instance_type": "Standard_D16ds_v5",
                "cpu": 16,
                "mem_ki": 65_838_428,
                "taints": None,
            },
        )
        for key in list(no["metadata"]["labels"]):
            if key.startswith("nvidia.com/"):
                del no["metadata"]["labels"][key]
        for part in ("capacity", "allocatable"):
            no["status"][part].pop("nvidia.com/gpu", None)
        node_objs.append(no)
    n1, n2 = ts_nodes[0][0], ts_nodes[1][0]

    # ---------------------------------------------------------------- the chat deployment
    labels = {"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": dep}
    args = [
        "--model",
        "/models/granite-3.3-8b-instruct",
        "--served-model-name",
        model,
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.45",
        "--max-num-seqs",
        "48",
        "--max-num-batched-tokens",
        "8192",
        "--enforce-eager",
        "--enable-prefix-caching",
        "--port",
        "8000",
    ]
    tolerations = [
        {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
        *kube.DEFAULT_TOLERATIONS[1:],
    ]

    def vllm_template(img: str) -> Obj:
        return {
            "metadata": {
                "labels": {
                    "app.kubernetes.io/component": "inference",
                    "app.kubernetes.io/part-of": "granite-chat",
                },
                "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "8000"},
            },
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": img,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["vllm", "serve"],
                        "args": args,
                        "env": [
                            {"name": "HF_HUB_OFFLINE", "value": "1"},
                            {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
                        ],
                        "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1", "memory": "96Gi"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "8", "memory": "64Gi"},
                        },
                        "startupProbe": kube.probe_http("/health", "http", period=10, failure=60),
                        "readinessProbe": kube.probe_http("/health", "http", period=5, failure=2),
                        "livenessProbe": kube.probe_http("/health", "http", period=15, failure=4, timeout=5),
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/models", "readOnly": True},
                            {"name": "dshm", "mountPath": "/dev/shm"},
                        ],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "volumes": [
                    {
                        "name": "models",
                        "persistentVolumeClaim": {"claimName": "chat-models-azurefile", "readOnly": True},
                    },
                    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
                ],
                "nodeSelector": {"gpu-pool": "a100-shared"},
                "tolerations": tolerations,
                "serviceAccountName": "vllm",
                "terminationGracePeriodSeconds": 60,
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
            },
        }

    w = kube.Workload(
        name=dep,
        namespace=ns,
        labels=labels,
        replicas=4,
        created=utc("2026-06-11T12:20:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        extra_labels={"app.kubernetes.io/part-of": "granite-chat", "app.kubernetes.io/managed-by": "Helm"},
        annotations={"meta.helm.sh/release-name": "granite-chat", "meta.helm.sh/release-namespace": ns},
    )
    r7 = kube.Revision(
        7,
        kube.rs_hash(rng),
        utc("2026-10-28T13:05:41Z"),
        vllm_template(image),
        uid=kube.new_uid(rng),
        replicas=4,
        ready=2,
        available=2,
        change_cause="helm upgrade granite-chat: vLLM 0.11.0",
    )
    r6 = kube.Revision(
        6,
        kube.rs_hash(rng),
        utc("2026-09-22T09:40:02Z"),
        vllm_template(old_image),
        uid=kube.new_uid(rng),
        change_cause="helm upgrade granite-chat: vLLM 0.10.2",
    )
    w.revisions = [r6, r7]
    w.status = {
        "replicas": 4,
        "updatedReplicas": 4,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "unavailableReplicas": 2,
    }
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            crash_d + timedelta(seconds=14),
            utc("2026-10-28T13:19:20Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{r7.hash}" has successfully progressed.',
            utc("2026-10-28T13:19:20Z"),
            utc("2026-06-11T12:20:00Z"),
        ),
    )
    # A: n1 GPU0 (with worker 0), B: n1 GPU1, C: n2 GPU0, D: n2 GPU1 (with worker 2)
    placement = [
        (n1, ts_nodes[0][1], "10.244.3", 0),
        (n1, ts_nodes[0][1], "10.244.3", 1),
        (n2, ts_nodes[1][1], "10.244.4", 0),
        (n2, ts_nodes[1][1], "10.244.4", 1),
    ]
    pods = []
    for k, (node, nip, pre, gidx) in enumerate(placement):
        pods.append(
            {
                "name": kube.pod_name(rng, w, r7),
                "uid": kube.new_uid(rng),
                "node": node,
                "node_ip": nip,
                "ip": f"{pre}.{[17, 41, 23, 58][k]}",
                "gpu": gidx,
                "created": r7.created + timedelta(minutes=3 * k + 1, seconds=7 * k + 2),
            }
        )
    crash_of = {0: crash_a, 3: crash_d}

    # ---------------------------------------------------------------- memory of the processes (MiB)
    VLLM_MIB = 36_956  # 36.09 GiB: 0.45 x 79.15 GiB budget + non-torch memory
    TOTAL_TORCH_MIB = 81_049  # 79.15 GiB as PyTorch sees an A100 80GB PCIe

    def worker_mem(i_t: datetime, start: datetime, crash: datetime, base: float, noise: float) -> float:
        # grows from `start` and reaches the size that leaves vLLM 221 MiB at `crash`, then keeps creeping
        at_crash = 43_871.0 if crash == crash_a else 43_950.0
        if i_t <= start:
            return base + noise
        if i_t <= crash:
            x = (i_t - start).total_seconds() / (crash - start).total_seconds()
            return base + (at_crash - base) * (x**1.35) + noise
        return at_crash + 7800.0 * (1 - math.exp(-(i_t - crash).total_seconds() / 360)) + noise

    wmem = {
        0: [worker_mem(c.at(i), grow_a0, crash_a, 22_418, rng.uniform(-40, 40)) for i in range(N)],
        1: [
            worker_mem(c.at(i), t("09:20:00"), t("09:55:00"), 21_907, rng.uniform(-40, 40)) for i in range(N)
        ],
        2: [worker_mem(c.at(i), grow_d0, crash_d, 22_120, rng.uniform(-40, 40)) for i in range(N)],
        3: [
            worker_mem(c.at(i), t("09:33:00"), t("10:02:00"), 21_760, rng.uniform(-40, 40)) for i in range(N)
        ],
    }

    def wmem_at(k: int, ts: datetime) -> float:
        i = max(0, min(N - 1, c.idx(ts)))
        j = min(N - 1, i + 1)
        frac = (ts - c.at(i)).total_seconds() / 60
        return wmem[k][i] + (wmem[k][j] - wmem[k][i]) * frac

    # ---------------------------------------------------------------- restarts (crash loop after the OOM)
    def crash_loop(crash: datetime, wk: int):
        """(restart times, attempt windows, free GiB at each start): exit 3 s after the crash, then back-off."""
        attempts = []
        end = crash + timedelta(seconds=3, milliseconds=rng.randint(100, 800))
        backoff = 10
        while True:
            start = end + timedelta(seconds=backoff, milliseconds=rng.randint(150, 900))
            fail = start + timedelta(seconds=rng.uniform(13.5, 16.0))
            if fail >= as_of - timedelta(seconds=2):
                break  # the kubelet has not restarted it again yet
            free = (TOTAL_TORCH_MIB - wmem_at(wk, fail) - 530) / 1024
            attempts.append((start, fail, free))
            end = fail
            backoff = min(300, backoff * 2)
        return crash + timedelta(seconds=3), attempts

    loops = {0: crash_loop(crash_a, 0), 3: crash_loop(crash_d, 2)}

    # ---------------------------------------------------------------- traffic and serving
    arrivals = [(285 + 255 * ramp(c, i, t("09:22"), t("09:58"))) * rng.uniform(0.96, 1.04) for i in range(N)]
    CAP = 205.0
    per = [
        {
            "ok": [0.0] * N,
            "run": [None] * N,
            "wait": [None] * N,
            "kv": [None] * N,
            "lat": [10.5] * N,
            "to": [0.0] * N,
        }
        for _ in range(4)
    ]
    codes = {200: [0.0] * N, 400: [0.0] * N, 500: [0.0] * N, 503: [0.0] * N, 504: [0.0] * N}
    connect_fail = [0.0] * N
    healthy = [4] * N
    backlog = [0.0] * 4
    for i in range(N):
        lo, hi = c.at(i) - timedelta(minutes=1), c.at(i)
        alive = [k for k in range(4) if k not in crash_of or crash_of[k] > hi]
        dying = [k for k in crash_of if lo < crash_of[k] <= hi]
        healthy[i] = len(alive)
        a = arrivals[i]
        n_endpoints = len(alive) + len(dying)
        for k in range(4):
            if k in dying:
                frac = (crash_of[k] - lo).total_seconds() / 60
                share = a / n_endpoints
                per[k]["ok"][i] = round(share * frac)
                inflight = round(share * 10.5 / 60 * rng.uniform(1.1, 1.3) + backlog[k])
                codes[500][i] += inflight
                uf = round(share * rng.uniform(11, 14) / 60)
                codes[503][i] += uf
                connect_fail[i] += uf
                codes[200][i] += per[k]["ok"][i]
                continue
            if k not in alive:
                continue
            share = a / n_endpoints
            if dying:
                share += sum(
                    a / n_endpoints * (1 - (crash_of[d] - lo).total_seconds() / 60) for d in dying
                ) / len(alive)
            cotenant = k in (0, 3)
            cap = CAP * (0.55 if cotenant else 1.0)
            offered = share + backlog[k]
            served = min(cap, offered)
            left = offered - served
            timeouts = max(0.0, left - cap * 0.78)
            left -= timeouts
            backlog[k] = left
            served = round(served * rng.uniform(0.985, 1.0))
            per[k]["ok"][i] = served
            per[k]["to"][i] = round(timeouts)
            codes[200][i] += served
            codes[504][i] += round(timeouts)
            base_lat = 14.2 if cotenant else 10.5
            q = left / cap * 60 if cap else 0
            per[k]["lat"][i] = base_lat + q + (2.0 if served > 0.92 * cap else 0.0)
            run = min(48, round(served * (per[k]["lat"][i] - q) / 60 * rng.uniform(0.93, 1.05)))
            per[k]["run"][i] = run
            per[k]["wait"][i] = round(left * rng.uniform(0.9, 1.04))
            per[k]["kv"][i] = round(min(0.93, 0.035 + 0.0128 * run + rng.uniform(-0.01, 0.01)), 4)
        codes[400][i] = 1 if rng.random() < 0.15 else 0
    # scrape presence of the vLLM endpoints
    present = [[k not in crash_of or c.at(i) < crash_of[k] for i in range(N)] for k in range(4)]

    om = OM(c)
    # ---------------------------------------------------------------- vLLM metrics (ServiceMonitor on the headless Service)
    for k, p in enumerate(pods):
        s = per[k]
        pr = present[k]
        lab = ex.vllm_labels(
            pod=p["name"], ns=ns, model=model, ip=p["ip"], job=dep, service=dep, container="vllm"
        )

        def g(vals, pr=pr):
            return [v if pr[i] else None for i, v in enumerate(vals)]

        base = [2_118_402, 2_130_977, 2_124_511, 2_109_830][k]
        om.gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            lab,
            g(s["run"]),
            digits=4,
        )
        om.gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            lab,
            g(s["wait"]),
            digits=4,
        )
        om.gauge(
            "vllm:kv_cache_usage_perc",
            "KV-cache usage. 1 means 100 percent usage.",
            lab,
            g(s["kv"]),
            digits=4,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "stop"},
            [round(x * 0.96) for x in s["ok"]],
            initial=round(base * 0.96),
            present=pr,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "length"},
            [x - round(x * 0.96) for x in s["ok"]],
            initial=round(base * 0.04),
            present=pr,
        )
        om.counter(
            "vllm:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            [x * 338 * rng.uniform(0.95, 1.05) for x in s["ok"]],
            initial=base * 338,
            present=pr,
        )
    glab = ex.vllm_labels(
        pod="",
        ns=ns,
        model="granite-guardian-3.3-8b",
        ip="10.244.3.66",
        job=guard,
        service=guard,
        container="vllm",
    )
    guard_pod = f"{guard}-{kname(rng, 10)}-{kname(rng, 5)}"
    glab["pod"] = guard_pod
    om.gauge(
        "vllm:num_requests_running",
        "Number of requests in model execution batches.",
        glab,
        [round(arrivals[i] * 0.9 * 0.7 / 60 * rng.uniform(0.8, 1.2)) for i in range(N)],
        digits=4,
    )
    om.gauge(
        "vllm:num_requests_waiting", "Number of requests waiting to be processed.", glab, [0] * N, digits=4
    )

    # ---------------------------------------------------------------- DCGM (dcgm-exporter 4.x, --kubernetes-virtual-gpus)
    gpu_rows = []  # (node, index, uuid, pci, attached[(ns, pod, container)], fb[], util[], xid)
    pcis = ["00000001:00:00.0", "00000002:00:00.0", "00000003:00:00.0", "00000004:00:00.0"]
    exporter_ip = {n1: "10.244.3.5", n2: "10.244.4.5", ded_node[0]: "10.244.5.5"}
    workers = []
    for wk, (node, nip, pre, gidx) in enumerate(
        [
            (n1, ts_nodes[0][1], "10.244.3", 0),
            (n1, ts_nodes[0][1], "10.244.3", 3),
            (n2, ts_nodes[1][1], "10.244.4", 1),
            (n2, ts_nodes[1][1], "10.244.4", 2),
        ]
    ):
        workers.append(
            {
                "name": f"{job}-{wk}-{kname(rng, 5)}",
                "node": node,
                "node_ip": nip,
                "ip": f"{pre}.{[92, 95, 88, 97][wk]}",
                "gpu": gidx,
                "index": wk,
                "pid": [1847302, 1851177, 2291044, 2290931][wk],
            }
        )
    nb_pod = "jupyter-lrossi"
    fraud_hash = kname(rng, 10)
    fraud_pods = [f"triton-fraud-gbm-{fraud_hash}-{kname(rng, 5)}" for _ in range(2)]
    attach = {
        (n1, 0): [("A", 0), ("W", 0)],
        (n1, 1): [("A", 1)],
        (n1, 2): [("G", 0)],
        (n1, 3): [("W", 1)],
        (n2, 0): [("A", 2)],
        (n2, 1): [("A", 3), ("W", 2)],
        (n2, 2): [("W", 3)],
        (n2, 3): [("N", 0)],
        (ded_node[0], 0): [("F", 0)],
        (ded_node[0], 1): [("F", 1)],
        (ded_node[0], 2): [],
        (ded_node[0], 3): [],
    }
    who_name = {
        "A": lambda j: (ns, pods[j]["name"], "vllm"),
        "W": lambda j: (bns, workers[j]["name"], "embedder"),
        "G": lambda j: (ns, guard_pod, "vllm"),
        "N": lambda j: ("ds-notebooks", nb_pod, "notebook"),
        "F": lambda j: ("fraud-scoring", fraud_pods[j], "triton"),
    }
    for (node, gidx), who in attach.items():
        fb, util = [], []
        for i in range(N):
            m = 0.0
            u = 0.0
            for kind, j in who:
                if kind == "A":
                    alive = present[j][i]
                    if alive:
                        m += VLLM_MIB + rng.uniform(-6, 6)
                        u += 40 + 1.2 * (per[j]["run"][i] or 0)
                    else:
                        m += rng.choice([0, 0, 0, 2210])  # a restart attempt holding its CUDA context
                elif kind == "W":
                    m += wmem[j][i]
                    u += 78
                elif kind == "G":
                    m += 32_904 + rng.uniform(-4, 4)
                    u += 22 + rng.uniform(-4, 4)
                elif kind == "N":
                    m += 9_812
                    u += rng.choice([0, 0, 3, 11])
                elif kind == "F":
                    m += 21_530 + rng.uniform(-20, 20)
                    u += 31 + rng.uniform(-5, 5)
            fb.append(round(min(m, 81_049)))
            util.append(round(min(100.0, u + rng.uniform(-2, 2))) if u else 0)
        uu = f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}"
        gpu_rows.append(
            {
                "node": node,
                "index": gidx,
                "uuid": uu,
                "pci": pcis[gidx],
                "who": [who_name[kd](j) for kd, j in who],
                "shared": node in (n1, n2),
                "fb": fb,
                "util": util,
            }
        )
    for gr in gpu_rows:
        base = {
            "DCGM_FI_DRIVER_VERSION": driver,
            "Hostname": gr["node"],
            "UUID": gr["uuid"],
            "device": f"nvidia{gr['index']}",
            "gpu": str(gr["index"]),
            "instance": f"{exporter_ip[gr['node']]}:9400",
            "job": "nvidia-dcgm-exporter",
            "modelName": "NVIDIA A100 80GB PCIe",
            "pci_bus_id": gr["pci"],
        }
        sets = []
        if gr["who"]:
            for v, (pns, pod, cont) in enumerate(gr["who"]):
                lab = {**base, "namespace": pns, "pod": pod, "container": cont}
                if gr["shared"]:
                    lab["vgpu"] = str(v)
                sets.append(lab)
        else:
            sets.append(base)
        for lab in sets:
            om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, gr["fb"], digits=8)
            om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, gr["util"], digits=4)
            om.gauge(
                "DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.", lab, [0] * N, digits=4
            )

    # ---------------------------------------------------------------- kube-state-metrics
    restarts_at = {}
    for k, (_exit_t, attempts) in loops.items():
        restarts_at[k] = [a[0] for a in attempts]
    for k, p in enumerate(pods):
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        rs = restarts_at.get(k, [])
        inc = [0] * N
        for rt in rs:
            inc[min(N - 1, c.idx(rt) + 1)] += 1
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ksm({**plab, "container": "vllm"}, KSM_INSTANCE),
            inc,
            initial=0,
        )
        ready = [1 if present[k][i] else 0 for i in range(N)]
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ksm({**plab, "condition": "true"}, KSM_INSTANCE),
            ready,
            digits=2,
        )
        if k in loops:
            exit_t, attempts = loops[k]

            def waiting(ts, attempts=attempts, exit_t=exit_t):
                if ts < exit_t:
                    return None
                for st, fl, _ in attempts:
                    if st <= ts < fl:
                        return None
                return 1

            om.gauge(
                "kube_pod_container_status_waiting_reason",
                "Describes the reason the container is currently in waiting state.",
                ksm({**plab, "container": "vllm", "reason": "CrashLoopBackOff"}, KSM_INSTANCE),
                [waiting(c.at(i)) if c.at(i) > attempts[0][1] else None for i in range(N)],
                digits=2,
            )
            om.gauge(
                "kube_pod_container_status_last_terminated_reason",
                "Describes the last reason the container was in terminated state.",
                ksm({**plab, "container": "vllm", "reason": "Completed"}, KSM_INSTANCE),
                [1 if exit_t <= c.at(i) < attempts[0][1] else None for i in range(N)],
                digits=2,
            )
            om.gauge(
                "kube_pod_container_status_last_terminated_reason",
                "Describes the last reason the container was in terminated state.",
                ksm({**plab, "container": "vllm", "reason": "Error"}, KSM_INSTANCE),
                [1 if c.at(i) >= attempts[0][1] else None for i in range(N)],
                digits=2,
            )
    avail = [sum(1 for k in range(4) if present[k][i]) for i in range(N)]
    dlab = ksm({"namespace": ns, "deployment": dep}, KSM_INSTANCE)
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [4] * N, digits=3
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        avail,
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_replicas_unavailable",
        "The number of unavailable replicas per deployment.",
        dlab,
        [4 - a for a in avail],
        digits=3,
    )
    om.gauge(
        "kube_job_status_active",
        "The number of actively running pods.",
        ksm({"namespace": bns, "job_name": job}, KSM_INSTANCE),
        [4] * N,
        digits=3,
    )
    for n in (n1, n2, ded_node[0]):
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ksm({"node": n, "condition": "Ready", "status": "true"}, KSM_INSTANCE),
            [1] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- Contour's Envoy (PodMonitor on envoy-chat-edge)
    envoy_pods = [f"envoy-chat-edge-{kname(rng, 5)}" for _ in range(3)]
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": "10.244.0.31:8002",
        "job": f"{gw_ns}/envoy-chat-edge",
        "namespace": gw_ns,
        "pod": envoy_pods[0],
    }
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes=codes,
        initial={200: 9_842_117, 400: 2_204, 500: 318, 503: 1_022, 504: 611},
        timeouts=codes[504],
        healthy=healthy,
        connect_fail=connect_fail,
    )
    gcodes = {200: [round(arrivals[i] * 0.9 * rng.uniform(0.97, 1.03)) for i in range(N)]}
    ex.envoy_cluster(
        om,
        cluster=f"{ns}_{guard}_8000",
        proxy=proxy,
        codes=gcodes,
        initial={200: 8_611_440},
        healthy=[1] * N,
        members=[1] * N,
    )

    # ---------------------------------------------------------------- Pyrra recording rules (SLO chat-serving-availability, 99.9 % / 4w)
    slo = "chat-serving-availability"
    errs = [codes[500][i] + codes[503][i] + codes[504][i] for i in range(N)]
    tot = [sum(codes[cd][i] for cd in codes) for i in range(N)]
    pre_rate, pre_err = 282.0, 0.00021
    rlab = {"envoy_cluster_name": cluster, "slo": slo}
    for win, m in (("5m", 5), ("30m", 30), ("1h", 60), ("2h", 120), ("6h", 360), ("1d", 1440), ("4d", 5760)):
        om.gauge(
            f"envoy_cluster_upstream_rq_xx:burnrate{win}",
            "",
            rlab,
            [round(window_ratio(errs, tot, i, m, pre_rate, pre_err), 8) for i in range(N)],
            digits=8,
        )
    for cls, share_pre in (("2", 0.99939), ("4", 0.0004), ("5", pre_err)):
        vals = []
        for i in range(N):
            inside = sum(
                (codes[200][j] if cls == "2" else codes[400][j] if cls == "4" else errs[j])
                for j in range(i + 1)
            )
            vals.append(round(share_pre * pre_rate * (40320 - i) + inside))
        om.gauge(
            "envoy_cluster_upstream_rq_xx:increase4w",
            "",
            {**rlab, "envoy_response_code_class": cls},
            vals,
            digits=10,
        )
    om.gauge("pyrra_objective", "", {"slo": slo}, [0.999] * N, digits=4)
    om.gauge("pyrra_window", "", {"slo": slo}, [2_419_200] * N, digits=8)

    # ---------------------------------------------------------------- logs
    logs = Logs()

    def vl(p, ts, msg, level="info", proc="(APIServer pid=1)", **kw):
        lvl = {"info": "INFO", "warn": "WARNING", "error": "ERROR", "debug": "DEBUG"}[level]
        logs.add(
            ts,
            f"{proc} {lvl} {ts.month:02d}-{ts.day:02d} {ts.strftime('%H:%M:%S')} {msg}",
            service=dep,
            ns=ns,
            pod=p["name"],
            node=p["node"],
            container="vllm",
            level=level,
            **kw,
        )

    def raw(p, ts, msg, level="info", **kw):
        logs.add(
            ts, msg, service=dep, ns=ns, pod=p["name"], node=p["node"], container="vllm", level=level, **kw
        )

    envoy_ip = "10.244.0.31"
    for k, p in enumerate(pods):
        s = per[k]
        for i in range(1, N):
            minute = c.at(i - 1)
            if not present[k][i - 1]:
                continue
            if i % 2 == k % 2 and s["run"][i] is not None:
                ts = within(rng, minute, 0, 30)
                if k in crash_of and ts >= crash_of[k]:
                    continue
                gt = s["ok"][i] * 338 / 60 * rng.uniform(0.9, 1.1)
                pt = s["ok"][i] * 1650 / 60 * rng.uniform(0.9, 1.1)
                vl(
                    p,
                    ts,
                    f"[loggers.py:127] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
                    f"Running: {s['run'][i]} reqs, Waiting: {s['wait'][i]} reqs, GPU KV cache usage: {s['kv'][i] * 100:.1f}%, Prefix cache hit rate: {rng.uniform(38, 47):.1f}%",
                    logger="vllm.v1.metrics.loggers",
                )
            ts = within(rng, minute)
            if (k in crash_of and ts >= crash_of[k]) or i % 2 != (k + 1) % 2:
                continue
            raw(
                p,
                ts,
                f'(APIServer pid=1) INFO:     {envoy_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                status=200,
            )

    # the two OOMs
    eng = "(EngineCore_DP0 pid=287)"
    site = "/usr/local/lib/python3.12/dist-packages"
    for k, wk in ((0, 0), (3, 2)):
        p = pods[k]
        cr = crash_of[k]
        wpid = workers[wk]["pid"]
        free = 221.75 if k == 0 else 143.75
        other = 42.84 if k == 0 else 42.92
        msg = (
            f"CUDA out of memory. Tried to allocate 400.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which {free:.2f} MiB is free. "
            f"Process {wpid} has {other:.2f} GiB memory in use. Including non-PyTorch memory, this process has 36.09 GiB memory in use. "
            "Of the allocated memory 34.97 GiB is allocated by PyTorch, and 412.27 MiB is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
            "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
        )
        tb = [
            "[core.py:780] EngineCore encountered a fatal error.",
            "[core.py:780] Traceback (most recent call last):",
            f'[core.py:780]   File "{site}/vllm/v1/engine/core.py", line 771, in run_engine_core',
            "[core.py:780]     engine_core.run_busy_loop()",
            f'[core.py:780]   File "{site}/vllm/v1/engine/core.py", line 798, in run_busy_loop',
            "[core.py:780]     self._process_engine_step()",
            f'[core.py:780]   File "{site}/vllm/v1/engine/core.py", line 823, in _process_engine_step',
            "[core.py:780]     outputs, model_executed = self.step_fn()",
            f'[core.py:780]   File "{site}/vllm/v1/engine/core.py", line 305, in step',
            "[core.py:780]     model_output = self.execute_model_with_error_logging(",
            f'[core.py:780]   File "{site}/vllm/v1/engine/core.py", line 291, in execute_model_with_error_logging',
            "[core.py:780]     raise err",
            f'[core.py:780]   File "{site}/vllm/v1/engine/core.py", line 282, in execute_model_with_error_logging',
            "[core.py:780]     return model_fn(scheduler_output)",
            f'[core.py:780]   File "{site}/vllm/v1/executor/abstract.py", line 103, in execute_model',
            '[core.py:780]     output = self.collective_rpc("execute_model",',
            f'[core.py:780]   File "{site}/vllm/executor/uniproc_executor.py", line 83, in collective_rpc',
            "[core.py:780]     return [run_method(self.driver_worker, method, args, kwargs)]",
            f'[core.py:780]   File "{site}/vllm/v1/worker/gpu_worker.py", line 484, in execute_model',
            "[core.py:780]     output = self.model_runner.execute_model(scheduler_output,",
            f'[core.py:780]   File "{site}/vllm/v1/worker/gpu_model_runner.py", line 2204, in execute_model',
            "[core.py:780]     model_output = self.model(",
            f'[core.py:780]   File "{site}/vllm/model_executor/models/granite.py", line 421, in forward',
            "[core.py:780]     model_output = self.model(input_ids, positions, intermediate_tensors,",
            f'[core.py:780]   File "{site}/vllm/model_executor/models/granite.py", line 319, in forward',
            "[core.py:780]     hidden_states = layer(positions, hidden_states)",
            f'[core.py:780]   File "{site}/vllm/model_executor/models/granite.py", line 246, in forward',
            "[core.py:780]     hidden_states = self.mlp(hidden_states)",
            f'[core.py:780]   File "{site}/vllm/model_executor/models/granite.py", line 96, in forward',
            "[core.py:780]     x, _ = self.gate_up_proj(x)",
            f'[core.py:780]   File "{site}/vllm/model_executor/layers/linear.py", line 565, in forward',
            "[core.py:780]     output_parallel = self.quant_method.apply(self, input_, bias)",
            f'[core.py:780]   File "{site}/vllm/model_executor/layers/linear.py", line 226, in apply',
            "[core.py:780]     return dispatch_unquantized_gemm()(layer, x, layer.weight, bias)",
            f'[core.py:780]   File "{site}/vllm/model_executor/layers/utils.py", line 103, in default_unquantized_gemm',
            "[core.py:780]     return torch.nn.functional.linear(x, weight, bias)",
            f"[core.py:780] torch.OutOfMemoryError: {msg}",
        ]
        for j, line in enumerate(tb):
            ts = cr + timedelta(milliseconds=3 * j)
            extra = (
                {"error_type": "torch.OutOfMemoryError", "error_message": msg}
                if "OutOfMemoryError" in line
                else {}
            )
            vl(p, ts, line, level="error", proc=eng, **extra)
        t2 = cr + timedelta(milliseconds=140)
        vl(p, t2, "[async_llm.py:485] AsyncLLM output_handler failed.", level="error")
        api_tb = [
            "[async_llm.py:485] Traceback (most recent call last):",
            f'[async_llm.py:485]   File "{site}/vllm/v1/engine/async_llm.py", line 444, in output_handler',
            "[async_llm.py:485]     outputs = await engine_core.get_output_async()",
            f'[async_llm.py:485]   File "{site}/vllm/v1/engine/core_client.py", line 877, in get_output_async',
            "[async_llm.py:485]     raise self._format_exception(outputs) from None",
            "[async_llm.py:485] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
        ]
        for j, line in enumerate(api_tb):
            extra = (
                {
                    "error_type": "vllm.v1.engine.exceptions.EngineDeadError",
                    "error_message": "EngineCore encountered an issue. See stack trace (above) for the root cause.",
                }
                if "EngineDeadError" in line
                else {}
            )
            vl(p, t2 + timedelta(milliseconds=1 + j), line, level="error", **extra)
        for j in range(6):
            raw(
                p,
                t2 + timedelta(milliseconds=40 + 9 * j),
                f'(APIServer pid=1) INFO:     {envoy_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
                status=500,
                level="error",
            )
        t3 = cr + timedelta(seconds=2, milliseconds=310)
        for j, line in enumerate(
            [
                "INFO:     Shutting down",
                "INFO:     Waiting for application shutdown.",
                "INFO:     Application shutdown complete.",
                "INFO:     Finished server process [1]",
            ]
        ):
            raw(p, t3 + timedelta(milliseconds=60 * j), f"(APIServer pid=1) {line}")
        # every restart fails the startup memory check
        for st, fl, fr in loops[k][1]:
            epid = rng.randint(150, 260)
            ep = f"(EngineCore_DP0 pid={epid})"
            vl(
                p,
                st + timedelta(seconds=4, milliseconds=212),
                "[api_server.py:1839] vLLM API server version 0.11.0",
            )
            vl(
                p,
                st + timedelta(seconds=4, milliseconds=230),
                "[utils.py:233] non-default args: {'model_tag': '/models/granite-3.3-8b-instruct', 'model': '/models/granite-3.3-8b-instruct', "
                f"'max_model_len': 16384, 'served_model_name': ['{model}'], 'enforce_eager': True, 'gpu_memory_utilization': 0.45, "
                "'enable_prefix_caching': True, 'max_num_batched_tokens': 8192, 'max_num_seqs': 48}",
            )
            vl(
                p,
                st + timedelta(seconds=9, milliseconds=48),
                "[model.py:547] Resolved architecture: GraniteForCausalLM",
            )
            vl(
                p,
                st + timedelta(seconds=12, milliseconds=601),
                "[core.py:644] Waiting for init message from front-end.",
                proc=ep,
            )
            vl(
                p,
                st + timedelta(seconds=13, milliseconds=420),
                "[parallel_state.py:1208] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
                proc=ep,
            )
            fmsg = (
                f"Free memory on device cuda:0 ({fr:.2f}/79.15 GiB) on startup is less than desired GPU memory utilization "
                "(0.45, 35.62 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
            )
            stb = [
                "[core.py:708] EngineCore failed to start.",
                "[core.py:708] Traceback (most recent call last):",
                f'[core.py:708]   File "{site}/vllm/v1/engine/core.py", line 699, in run_engine_core',
                "[core.py:708]     engine_core = EngineCoreProc(*args, **kwargs)",
                f'[core.py:708]   File "{site}/vllm/v1/engine/core.py", line 498, in __init__',
                "[core.py:708]     super().__init__(vllm_config, executor_class, log_stats,",
                f'[core.py:708]   File "{site}/vllm/v1/engine/core.py", line 83, in __init__',
                "[core.py:708]     self.model_executor = executor_class(vllm_config)",
                f'[core.py:708]   File "{site}/vllm/executor/executor_base.py", line 54, in __init__',
                "[core.py:708]     self._init_executor()",
                f'[core.py:708]   File "{site}/vllm/executor/uniproc_executor.py", line 54, in _init_executor',
                '[core.py:708]     self.collective_rpc("init_device")',
                f'[core.py:708]   File "{site}/vllm/v1/worker/gpu_worker.py", line 195, in init_device',
                "[core.py:708]     raise ValueError(",
                f"[core.py:708] ValueError: {fmsg}",
            ]
            for j, line in enumerate(stb):
                extra = {"error_type": "ValueError", "error_message": fmsg} if "ValueError:" in line else {}
                vl(p, fl - timedelta(milliseconds=200 - 4 * j), line, level="error", proc=ep, **extra)
            rmsg = "Engine core initialization failed. See root cause above. Failed core proc(s): {}"
            for j, line in enumerate(
                [
                    "Traceback (most recent call last):",
                    '  File "/usr/local/bin/vllm", line 10, in <module>',
                    "    sys.exit(main())",
                    f'  File "{site}/vllm/entrypoints/cli/main.py", line 54, in main',
                    "    args.dispatch_function(args)",
                    f'  File "{site}/vllm/entrypoints/cli/serve.py", line 57, in cmd',
                    "    uvloop.run(run_server(args))",
                    f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1884, in run_server',
                    "    await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)",
                    f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 1902, in run_server_worker',
                    "    async with build_async_engine_client(",
                    f'  File "{site}/vllm/entrypoints/openai/api_server.py", line 225, in build_async_engine_client_from_engine_args',
                    "    async_llm = AsyncLLM.from_vllm_config(",
                    f'  File "{site}/vllm/v1/engine/core_client.py", line 448, in __init__',
                    "    with launch_core_engines(vllm_config, executor_class,",
                    '  File "/usr/lib/python3.12/contextlib.py", line 144, in __exit__',
                    "    next(self.gen)",
                    f'  File "{site}/vllm/v1/engine/utils.py", line 732, in launch_core_engines',
                    "    wait_for_engine_startup(",
                    f'  File "{site}/vllm/v1/engine/utils.py", line 785, in wait_for_engine_startup',
                    '    raise RuntimeError("Engine core initialization failed. "',
                    f"RuntimeError: {rmsg}",
                ]
            ):
                extra = (
                    {"error_type": "RuntimeError", "error_message": rmsg}
                    if line.startswith("RuntimeError")
                    else {}
                )
                raw(
                    p,
                    fl + timedelta(milliseconds=30 + 2 * j),
                    f"(APIServer pid=1) {line}",
                    level="error",
                    **extra,
                )
            # kubelet on the node
            j_att = loops[k][1].index((st, fl, fr))
            nb_s = min(300, 10 * 2 ** (j_att + 1))
            nb_txt = f"{nb_s // 60}m{nb_s % 60}s" if nb_s >= 60 else f"{nb_s}s"
            kt = fl + timedelta(milliseconds=rng.randint(700, 1400))
            logs.add(
                kt,
                f'{klog_stamp(rng, kt, "E")}    3121 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"vllm\\" with CrashLoopBackOff: '
                f'\\"back-off {nb_txt} restarting failed container=vllm pod={p["name"]}_{ns}({p["uid"]})\\"" pod="{ns}/{p["name"]}" podUID="{p["uid"]}"',
                service="kubelet",
                node=p["node"],
                level="error",
                dataset="kubelet",
            )
    # batch workers: progress lines with their allocator's size
    for wk, wp in enumerate(workers):
        shard = [23, 61, 41, 79][wk]
        for i in range(1 + wk % 2, N, 2):
            ts = within(rng, c.at(i - 1))
            reserved = wmem[wk][i] / 1024 - 0.55
            maxlen = min(8192, int(1024 + 7168 * max(0.0, (reserved - 21.4) / 23.0)) // 128 * 128)
            logs.add(
                ts,
                f"{ts.strftime('%Y-%m-%d %H:%M:%S')},{ts.microsecond // 1000:03d} INFO embedder.run: shard {shard}/96 batch {1180 + 9 * i}/2400 "
                f"docs=512 max_tokens={maxlen} docs_per_s={rng.uniform(340, 420) * (1 - 0.45 * max(0, reserved - 22) / 24):.1f} "
                f"cuda_allocated={reserved - rng.uniform(1.2, 2.4):.1f}GiB cuda_reserved={reserved:.1f}GiB",
                service="doc-embedder",
                ns=bns,
                pod=wp["name"],
                node=wp["node"],
                container="embedder",
            )
    # Contour's Envoy access log (text format), a sample of successes and the errors
    uas = ["granite-chat-web/4.7.1", "granite-chat-bff/2.3.0 (httpx/0.27.2)", "okhttp/4.12.0"]
    for i in range(1, N):
        minute = c.at(i - 1)
        for _ in range(2):
            k = rng.choice([kk for kk in range(4) if present[kk][i - 1]] or [1])
            ts = within(rng, minute)
            if k in crash_of and ts >= crash_of[k]:
                k = 1
            envoy_text(
                logs,
                rng,
                end=ts,
                code=200,
                flags="-",
                duration_ms=int(1000 * per[k]["lat"][i] * rng.uniform(0.6, 1.5)),
                upstream_host=f"{pods[k]['ip']}:8000",
                authority="chat.granite.example.eu",
                path="/v1/chat/completions",
                client=rng.choice(["10.224.8.40", "10.224.8.41"]),
                gw_pod=envoy_pods[i % 3],
                gw_ns=gw_ns,
                gw_node=sys_nodes[i % 3][0],
                user_agent=rng.choice(uas),
                bytes_sent=rng.randint(900, 4200),
                service="envoy",
            )
        for code, flags, n_lines in (
            (500, "-", min(4, codes[500][i])),
            (503, "UF", min(4, codes[503][i])),
            (504, "UT", min(5, codes[504][i])),
        ):
            for _ in range(int(n_lines)):
                if code == 504:
                    k = rng.choice([1, 2])
                    dur = 60000 + rng.randint(0, 4)
                    ts = within(rng, minute)
                    up = f"{pods[k]['ip']}:8000"
                else:
                    k = 0 if lo_in(crash_a, minute) else 3
                    base_t = crash_of[k]
                    ts = base_t + timedelta(milliseconds=rng.randint(5, 600 if code == 500 else 12000))
                    dur = rng.randint(1500, 14000) if code == 500 else rng.randint(0, 2)
                    up = f"{pods[k]['ip']}:8000"
                envoy_text(
                    logs,
                    rng,
                    end=ts,
                    code=code,
                    flags=flags,
                    duration_ms=dur,
                    upstream_host=up,
                    authority="chat.granite.example.eu",
                    path="/v1/chat/completions",
                    client=rng.choice(["10.224.8.40", "10.224.8.41"]),
                    gw_pod=envoy_pods[i % 3],
                    gw_ns=gw_ns,
                    gw_node=sys_nodes[i % 3][0],
                    user_agent=rng.choice(uas),
                    bytes_sent={500: 21, 503: 91, 504: 24}[code],
                    service="envoy",
                )
    # other tenants
    for i in range(1, N, 2):
        ts = within(rng, c.at(i - 1))
        logs.add(
            ts,
            f'I{ts.strftime("%m%d %H:%M:%S")}.{ts.microsecond:06d} 1 http_server.cc:4713] "POST /v2/models/fraud_gbm/infer HTTP/1.1" 200 '
            f"latency_us={rng.randint(2100, 4800)}",
            service="triton-fraud-gbm",
            ns="fraud-scoring",
            pod=fraud_pods[i % 2],
            node=ded_node[0],
            container="triton",
        )
    for i in (7, 22, 38, 51):
        ts = within(rng, c.at(i))
        logs.add(
            ts,
            f"[I {ts.strftime('%Y-%m-%d %H:%M:%S')}.{ts.microsecond // 1000:03d} ServerApp] Saving file at /work/eval/rerank_ablation.ipynb",
            service="jupyterhub-singleuser",
            ns="ds-notebooks",
            pod=nb_pod,
            node=n2,
            container="notebook",
        )
    for i in range(3, N, 6):
        ts = within(rng, c.at(i))
        logs.add(
            ts,
            f'level=info ts={iso(ts, ms=True)} caller=main.go:412 msg="reconciling" objective=monitoring/{slo}',
            service="pyrra-kubernetes",
            ns="monitoring",
            pod="pyrra-kubernetes-6f7d9c8b54-tq2lx",
            node=sys_nodes[1][0],
            container="pyrra",
        )

    # ---------------------------------------------------------------- objects
    objs: list[Obj] = [w.deployment(), w.replicaset(r7), w.replicaset(r6)]
    for k, p in enumerate(pods):
        if k in loops:
            exit_t, attempts = loops[k]
            st, fl, _ = attempts[-1]
            nb = min(300, 10 * 2 ** len(attempts))
            last = kube.terminated(rng, reason="Error", exit_code=1, started=st, finished=fl)
            cs = kube.cstatus(
                rng,
                name="vllm",
                image=image,
                ready=False,
                restart_count=len(attempts),
                waiting=(
                    "CrashLoopBackOff",
                    f"back-off {nb // 60}m{nb % 60}s restarting failed container=vllm pod={p['name']}_{ns}({p['uid']})"
                    if nb >= 60
                    else f"back-off {nb}s restarting failed container=vllm pod={p['name']}_{ns}({p['uid']})",
                ),
                last_terminated=last,
            )
            po = kube.pod_obj(
                w,
                r7,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node_ip"],
                phase="Running",
                ready=False,
                container_statuses=[cs],
                ready_since=crash_of[k] + timedelta(seconds=11),
            )
        else:
            cs = running_status(rng, "vllm", image, p["created"] + timedelta(seconds=6))
            po = kube.pod_obj(
                w,
                r7,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node_ip"],
                phase="Running",
                ready=True,
                container_statuses=[cs],
                ready_since=p["created"] + timedelta(minutes=2, seconds=44),
            )
        objs.append(po)
    # guardian (sibling deployment, healthy)
    gw_ = kube.Workload(
        name=guard,
        namespace=ns,
        labels={"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": guard},
        replicas=1,
        created=utc("2026-07-02T10:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
    )
    gt_ = vllm_template(image)
    gt_["spec"]["containers"][0]["args"] = [
        "--model",
        "/models/granite-guardian-3.3-8b",
        "--served-model-name",
        "granite-guardian-3.3-8b",
        "--gpu-memory-utilization",
        "0.40",
        "--max-model-len",
        "8192",
        "--enforce-eager",
        "--port",
        "8000",
    ]
    grev = kube.Revision(
        3,
        guard_pod.split("-")[-2],
        utc("2026-10-28T13:06:10Z"),
        gt_,
        uid=kube.new_uid(rng),
        replicas=1,
        ready=1,
        available=1,
    )
    gw_.revisions = [grev]
    gw_.status = {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1}
    gw_.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-10-28T13:09:12Z"),
            utc("2026-10-28T13:09:12Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{guard}-{grev.hash}" has successfully progressed.',
            utc("2026-10-28T13:09:12Z"),
            utc("2026-07-02T10:00:00Z"),
        ),
    )
    objs += [gw_.deployment(), gw_.replicaset(grev)]
    objs.append(
        kube.pod_obj(
            gw_,
            grev,
            name=guard_pod,
            uid_=kube.new_uid(rng),
            node=n1,
            created=utc("2026-10-28T13:06:11Z"),
            pod_ip="10.244.3.66",
            host_ip=ts_nodes[0][1],
            phase="Running",
            ready=True,
            container_statuses=[running_status(rng, "vllm", image, utc("2026-10-28T13:06:15Z"))],
        )
    )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 8000, "protocol": "TCP", "targetPort": "http"}],
            "10.0.148.21",
            labels={**labels, "app.kubernetes.io/managed-by": "Helm"},
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        service_obj(
            guard,
            ns,
            {"app.kubernetes.io/instance": guard},
            [{"name": "http", "port": 8000, "protocol": "TCP", "targetPort": "http"}],
            "10.0.148.77",
            created=utc("2026-07-02T10:00:00Z"),
            uid_=kube.new_uid(rng),
        )
    )
    hr = httproute_obj(
        route,
        ns,
        gateway="chat-edge",
        gateway_ns=gw_ns,
        hostnames=["chat.granite.example.eu"],
        rules=[
            {
                "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 8000, "weight": 1}],
                "timeouts": {"request": "60s"},
            }
        ],
        created=utc("2026-06-11T12:25:00Z"),
        uid_=kube.new_uid(rng),
        generation=3,
        controller="projectcontour.io/gateway-controller",
    )
    hr["status"]["parents"][0]["conditions"][0]["message"] = "Accepted HTTPRoute"
    objs.append(hr)
    hr2 = httproute_obj(
        "granite-guardian-internal",
        ns,
        gateway="chat-edge",
        gateway_ns=gw_ns,
        hostnames=["guardian.chat.internal.example.eu"],
        rules=[{"backendRefs": [{"group": "", "kind": "Service", "name": guard, "port": 8000, "weight": 1}]}],
        created=utc("2026-07-02T10:05:00Z"),
        uid_=kube.new_uid(rng),
        generation=1,
        controller="projectcontour.io/gateway-controller",
    )
    hr2["status"]["parents"][0]["conditions"][0]["message"] = "Accepted HTTPRoute"
    objs.append(hr2)
    # the batch job (other team)
    job_uid = kube.new_uid(rng)
    job_started = utc("2026-11-04T06:30:04Z")
    job_tmpl = {
        "metadata": {"labels": {"app.kubernetes.io/name": "doc-embedder", "team": "search-relevance"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "embedder",
                    "image": job_image,
                    "args": [
                        "--model",
                        "/models/bge-m3",
                        "--input",
                        "abfss://corpus@stsearchprod.dfs.core.windows.net/docs/2026-11-03/",
                        "--output",
                        "qdrant://qdrant.search-vectors.svc:6334/docs_v14",
                        "--batch-size",
                        "512",
                        "--max-seq-length",
                        "8192",
                        "--sort-by-length",
                        "asc",
                        "--shards",
                        "96",
                    ],
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1", "memory": "64Gi"},
                        "requests": {"nvidia.com/gpu": "1", "cpu": "6", "memory": "48Gi"},
                    },
                }
            ],
            "nodeSelector": {"gpu-pool": "a100-shared"},
            "tolerations": [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
        },
    }
    objs.append(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": job,
                "namespace": bns,
                "uid": job_uid,
                "creationTimestamp": iso(job_started - timedelta(seconds=4)),
                "labels": {"app.kubernetes.io/name": "doc-embedder", "team": "search-relevance"},
                "annotations": {"batch.kubernetes.io/job-tracking": ""},
            },
            "spec": {
                "completionMode": "Indexed",
                "completions": 4,
                "parallelism": 4,
                "backoffLimit": 6,
                "suspend": False,
                "template": job_tmpl,
            },
            "status": {
                "active": 4,
                "ready": 4,
                "startTime": iso(job_started),
                "terminating": 0,
                "uncountedTerminatedPods": {},
            },
        }
    )
    for wp in workers:
        pod = simple_pod(
            rng,
            name=wp["name"],
            ns=bns,
            labels={
                "app.kubernetes.io/name": "doc-embedder",
                "team": "search-relevance",
                "batch.kubernetes.io/job-name": job,
                "batch.kubernetes.io/controller-uid": job_uid,
                "batch.kubernetes.io/job-completion-index": str(wp["index"]),
                "job-name": job,
                "controller-uid": job_uid,
            },
            owner_ref=owner("Job", job, job_uid, api="batch/v1"),
            node=wp["node"],
            node_ip=ts_nodes[0][1] if wp["node"] == n1 else ts_nodes[1][1],
            pod_ip=wp["ip"],
            created=job_started + timedelta(seconds=wp["index"]),
            containers=copy.deepcopy(job_tmpl["spec"]["containers"]),
            statuses=[
                running_status(rng, "embedder", job_image, job_started + timedelta(seconds=48 + wp["index"]))
            ],
            annotations={"batch.kubernetes.io/job-completion-index": str(wp["index"])},
            extra_spec={
                "restartPolicy": "Never",
                "nodeSelector": {"gpu-pool": "a100-shared"},
                "subdomain": job,
            },
        )
        objs.append(pod)
    # notebook, fraud-scoring (other tenants, healthy)
    objs.append(
        simple_pod(
            rng,
            name=nb_pod,
            ns="ds-notebooks",
            labels={
                "app": "jupyterhub",
                "component": "singleuser-server",
                "hub.jupyter.org/username": "lrossi",
            },
            owner_ref=None,
            node=n2,
            node_ip=ts_nodes[1][1],
            pod_ip="10.244.4.71",
            created=utc("2026-11-03T15:12:40Z"),
            containers=[
                {
                    "name": "notebook",
                    "image": "quay.io/jupyter/pytorch-notebook:cuda12-2025-10-20",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ],
            statuses=[
                running_status(
                    rng,
                    "notebook",
                    "quay.io/jupyter/pytorch-notebook:cuda12-2025-10-20",
                    utc("2026-11-03T15:13:31Z"),
                )
            ],
        )
    )
    fw = kube.Workload(
        name="triton-fraud-gbm",
        namespace="fraud-scoring",
        labels={"app": "triton-fraud-gbm"},
        replicas=2,
        created=utc("2026-04-02T08:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
    )
    ftmpl = {
        "metadata": {"labels": {}},
        "spec": {
            "containers": [
                {
                    "name": "triton",
                    "image": "nvcr.io/nvidia/tritonserver:25.08-py3",
                    "args": ["tritonserver", "--model-repository=/models"],
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                }
            ],
            "nodeSelector": {"gpu-pool": "a100-dedicated"},
            "tolerations": tolerations,
        },
    }
    frev = kube.Revision(
        11,
        fraud_hash,
        utc("2026-10-14T07:30:00Z"),
        ftmpl,
        uid=kube.new_uid(rng),
        replicas=2,
        ready=2,
        available=2,
    )
    fw.revisions = [frev]
    fw.status = {"replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2}
    fw.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-10-14T07:33:00Z"),
            utc("2026-10-14T07:33:00Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "triton-fraud-gbm-{frev.hash}" has successfully progressed.',
            utc("2026-10-14T07:33:00Z"),
            utc("2026-04-02T08:00:00Z"),
        ),
    )
    objs.append(fw.deployment())
    for j, fp in enumerate(fraud_pods):
        fp_name = fp
        objs.append(
            kube.pod_obj(
                fw,
                frev,
                name=fp_name,
                uid_=kube.new_uid(rng),
                node=ded_node[0],
                created=utc("2026-10-14T07:30:02Z") + timedelta(minutes=j),
                pod_ip=f"10.244.5.{30 + j}",
                host_ip=ded_node[1],
                phase="Running",
                ready=True,
                container_statuses=[
                    running_status(
                        rng,
                        "triton",
                        "nvcr.io/nvidia/tritonserver:25.08-py3",
                        utc("2026-10-14T07:30:20Z") + timedelta(minutes=j),
                    )
                ],
            )
        )
    # Contour gateway pods, GPU operator config
    for j, ep in enumerate(envoy_pods):
        objs.append(
            simple_pod(
                rng,
                name=ep,
                ns=gw_ns,
                labels={
                    "app.kubernetes.io/name": "envoy",
                    "app.kubernetes.io/managed-by": "contour-gateway-provisioner",
                    "gateway.networking.k8s.io/gateway-name": "chat-edge",
                },
                owner_ref=owner("DaemonSet", "envoy-chat-edge", kube.new_uid(rng)),
                node=sys_nodes[j][0],
                node_ip=sys_nodes[j][1],
                pod_ip=f"10.244.{j}.31",
                created=utc("2026-10-21T02:14:10Z") + timedelta(seconds=9 * j),
                containers=[
                    {"name": "shutdown-manager", "image": "ghcr.io/projectcontour/contour:v1.32.1"},
                    {"name": "envoy", "image": "docker.io/envoyproxy/envoy:v1.34.4"},
                ],
                statuses=[
                    running_status(
                        rng, "envoy", "docker.io/envoyproxy/envoy:v1.34.4", utc("2026-10-21T02:14:31Z")
                    ),
                    running_status(
                        rng,
                        "shutdown-manager",
                        "ghcr.io/projectcontour/contour:v1.32.1",
                        utc("2026-10-21T02:14:29Z"),
                    ),
                ],
            )
        )
    objs.append(
        configmap_obj(
            "time-slicing-config",
            "gpu-operator",
            {
                "a100-80gb-ts2": "version: v1\nflags:\n  migStrategy: none\nsharing:\n  timeSlicing:\n    renameByDefault: false\n    failRequestsGreaterThanOne: false\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n",
            },
            utc("2026-08-19T10:02:11Z"),
            kube.new_uid(rng),
            labels={"app.kubernetes.io/managed-by": "argocd"},
        )
    )
    objs.append(
        {
            "apiVersion": "pyrra.dev/v1alpha1",
            "kind": "ServiceLevelObjective",
            "metadata": {
                "name": slo,
                "namespace": "monitoring",
                "labels": {"pyrra.dev/team": "chat-platform", "release": "kube-prometheus-stack"},
                "annotations": {
                    "pyrra.dev/description": "Granite chat API: share of requests that Contour answers without a 5xx."
                },
            },
            "spec": {
                "target": "99.9",
                "window": "4w",
                "description": "Granite chat API availability at the edge.",
                "indicator": {
                    "ratio": {
                        "errors": {
                            "metric": f'envoy_cluster_upstream_rq_xx{{envoy_cluster_name="{cluster}",envoy_response_code_class="5"}}'
                        },
                        "total": {
                            "metric": f'envoy_cluster_upstream_rq_xx{{envoy_cluster_name="{cluster}"}}'
                        },
                    }
                },
            },
        }
    )
    objs.extend(node_objs)

    ev = lambda **kw: objs.append(event_obj(rng, **kw))  # noqa: E731
    for k in loops:
        p = pods[k]
        exit_t, attempts = loops[k]
        kw = dict(
            ns=ns,
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            host=p["node"],
            field_path="spec.containers{vllm}",
        )
        ev(
            **kw,
            reason="Unhealthy",
            message=f'Readiness probe failed: Get "http://{p["ip"]}:8000/health": dial tcp {p["ip"]}:8000: connect: connection refused',
            first=crash_of[k] + timedelta(seconds=4),
            last=attempts[-1][1] - timedelta(seconds=2),
            count=2 + 2 * len(attempts),
            etype="Warning",
        )
        ev(
            **kw,
            reason="Pulled",
            message=f'Container image "{image}" already present on machine',
            first=attempts[0][0],
            last=attempts[-1][0],
            count=len(attempts),
        )
        ev(
            **kw,
            reason="Created",
            message="Created container: vllm",
            first=attempts[0][0],
            last=attempts[-1][0],
            count=len(attempts),
        )
        ev(
            **kw,
            reason="Started",
            message="Started container vllm",
            first=attempts[0][0],
            last=attempts[-1][0],
            count=len(attempts),
        )
        ev(
            **kw,
            reason="BackOff",
            message=f"Back-off restarting failed container vllm in pod {p['name']}_{ns}({p['uid']})",
            first=attempts[0][1] + timedelta(seconds=1),
            last=as_of - timedelta(seconds=rng.randint(4, 30)),
            count=3 + 4 * len(attempts),
            etype="Warning",
        )
    ev(
        ns=bns,
        kind="Job",
        name=job,
        obj_uid=job_uid,
        reason="SuccessfulCreate",
        message=f"Created pod: {workers[0]['name']}",
        first=job_started,
        component="job-controller",
        api_version="batch/v1",
    )
    # recurring noise from other tenants
    ev(
        ns="fraud-scoring",
        kind="HorizontalPodAutoscaler",
        name="triton-fraud-gbm",
        obj_uid=kube.new_uid(rng),
        reason="FailedGetResourceMetric",
        message="failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
        first=utc("2026-11-02T17:41:09Z"),
        last=as_of - timedelta(minutes=3, seconds=12),
        count=2_871,
        etype="Warning",
        component="horizontal-pod-autoscaler",
        api_version="autoscaling/v2",
    )
    ev(
        ns="ds-notebooks",
        kind="Pod",
        name=nb_pod,
        obj_uid=kube.new_uid(rng),
        reason="Unhealthy",
        message='Liveness probe failed: Get "http://10.244.4.71:8888/api": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        first=utc("2026-11-03T21:06:51Z"),
        last=as_of - timedelta(minutes=17, seconds=40),
        count=41,
        etype="Warning",
        host=n2,
        field_path="spec.containers{notebook}",
    )
    ev(
        ns="kube-system",
        kind="Pod",
        name="csi-azurefile-node-9xk2w",
        obj_uid=kube.new_uid(rng),
        reason="FailedMount",
        message='MountVolume.SetUp failed for volume "kube-api-access-7nqjz" : object "kube-system"/"kube-root-ca.crt" not registered',
        first=utc("2026-11-01T04:11:09Z"),
        last=as_of - timedelta(minutes=44),
        count=9,
        etype="Warning",
        host=sys_nodes[2][0],
    )
    ev(
        ns="default",
        kind="Node",
        name=ded_node[0],
        obj_uid=node_objs[2]["metadata"]["uid"],
        reason="NodeHasSufficientMemory",
        message=f"Node {ded_node[0]} status is now: NodeHasSufficientMemory",
        first=utc("2026-10-21T02:11:37Z"),
        last=as_of - timedelta(minutes=26),
        count=4,
        host=ded_node[0],
    )

    # ---------------------------------------------------------------- gpus.json
    gj: dict[str, list[Obj]] = {}
    for gr in gpu_rows:
        u = gr["util"][-1]
        gj.setdefault(gr["node"], []).append(
            {
                "index": gr["index"],
                "uuid": gr["uuid"],
                "name": "NVIDIA A100 80GB PCIe",
                "memory_total_mib": 81920,
                "memory_used_mib": int(gr["fb"][-1]),
                "utilization_gpu": int(u),
                "temperature_c": int(36 + 0.35 * u + rng.uniform(-2, 2)),
                "power_w": round(48 + 2.4 * u + rng.uniform(-5, 5), 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
        )

    # ---------------------------------------------------------------- the Pyrra alert
    sel = f'envoy_cluster_name="{cluster}",slo="{slo}"'
    expr = (
        f"envoy_cluster_upstream_rq_xx:burnrate5m{{{sel}}} > (14 * (1-0.999)) and "
        f"envoy_cluster_upstream_rq_xx:burnrate1h{{{sel}}} > (14 * (1-0.999))"
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=2, eval_offset_s=19)
    finally:
        prom.close()
    alabels = {
        "alertname": "ErrorBudgetBurn",
        "envoy_cluster_name": cluster,
        "exhaustion": "2d",
        "long": "1h",
        "prometheus": "monitoring/kube-prometheus-stack-prometheus",
        "severity": "critical",
        "short": "5m",
        "slo": slo,
        "team": "chat-platform",
    }
    ann = {
        "description": "Granite chat API: share of requests that Contour answers without a 5xx.",
        "pyrra_url": f"https://pyrra.chat-prod.example.eu/objectives?expr=%7B__name__%3D%22{slo}%22%7D&from=now-1h&to=now",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(20, 900)),
        expr=expr,
        prometheus_url="http://kube-prometheus-stack-prometheus.monitoring:9090",
        external_url="http://kube-prometheus-stack-alertmanager.monitoring:9093",
        group_by=["alertname", "slo"],
        receiver="chat-platform-pager",
        route_matchers='{}/{team="chat-platform"}',
    )
    scope = [
        f"deployment/{dep}",
        *[f"pod/{p['name']}" for p in pods],
        f"node/{n1}",
        f"node/{n2}",
        f"httproute/{route}",
    ]
    expected = {
        "category": "infrastructure",
        "code": "INF_GPU_OOM",
        "acceptable_first_actions": [{"kind": "add_replica", "target": f"deployment/{dep}"}],
        "forbidden_actions": [
            {"kind": "rollback_deployment", "target": f"deployment/{dep}"},
            {"kind": "cordon_node", "target": f"node/{ded_node[0]}"},
            {"kind": "restart_pod", "target": f"pod/{pods[1]['name']}"},
            {"kind": "restart_pod", "target": f"pod/{pods[2]['name']}"},
            *[{"kind": "restart_pod", "target": f"pod/{wp['name']}"} for wp in workers],
            {"kind": "restart_pod", "target": f"pod/{guard_pod}"},
            {"kind": "add_replica", "target": f"deployment/{guard}"},
            {"kind": "rollback_deployment", "target": f"deployment/{guard}"},
            {"kind": "restart_pod", "target": f"pod/{fraud_pods[0]}"},
            {"kind": "restart_pod", "target": f"pod/{fraud_pods[1]}"},
        ],
        "scope": scope,
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Granite chat: errors and timeouts during the morning peak; two serving pods keep restarting.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {
        "name": NAME,
        "engine": ENGINE,
        "expected": expected,
        "starts": iso(starts),
        "value": value,
        "restarts": {pods[k]["name"]: len(loops[k][1]) for k in loops},
    }


def lo_in(ts: datetime, minute: datetime) -> bool:
    return minute <= ts < minute + timedelta(minutes=1)
