# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""NCCL all-reduce timeout on one node of a tensor-parallel vLLM deployment (NVLink degraded).

Three replicas of Mixtral-8x7B, each `--tensor-parallel-size 2` on one HGX H100 node. From 03:44 the
NVLink links between GPUs 4 and 5 of `hgx-h100-sjc2-r07-n14` start replaying flits (DCGM NVLink CRC
and replay counters climb, no Xid, node stays Ready). The pod there slows down, then its TP all-reduce
hangs at 03:49:05: the engine stops producing tokens (its gauges freeze, its GPUs spin at 100 % on low
power), the gateway's 120 s route timeout turns its share of requests into 504s. At 03:59:05 PyTorch's
NCCL watchdog fires (`Watchdog caught collective operation timeout: WorkNCCL(... OpType=ALLREDUCE ...)
ran for 600018 milliseconds`), the process aborts, the container restarts. It loads again, is slow,
hangs again at 04:07:30 and is torn down by the watchdog at 04:17:30: two restarts, only on that node.
The other two nodes and pods are fine. The alert (5xx ratio on the route) carries no `service` label,
only `namespace` and `deployment`.
"""

from __future__ import annotations

import random
from datetime import timedelta

from . import exporters as ex
from . import kube
from .common import torch_stamp
from .lib import (
    OM,
    Clock,
    Logs,
    Prom,
    configmap_obj,
    current_firing,
    event_obj,
    hexid,
    httproute_obj,
    iso,
    node_conditions,
    node_obj,
    ramp,
    service_obj,
    utc,
    webhook,
    within,
    write_pack,
)

NAME = "nccl-allreduce-watchdog-nvlink-degraded"
ENGINE = "vLLM 0.10.1.1 (V1), tensor parallel 2, NCCL 2.26 / PyTorch 2.7"


def build(root):
    rng = random.Random(9101)
    as_of = utc("2026-09-03T04:20:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "genai-research"
    dep_name = "vllm-mixtral-8x7b-tp2"
    model = "mixtral-8x7b-instruct"
    route = "research-assistant"
    cluster = f"httproute/{ns}/{route}/rule/0"
    image = "vllm/vllm-openai:v0.10.1.1"
    driver = "570.133.20"
    gw_pod = "envoy-platform-ingress-research-gw-3b7c91d2-6d9f8b7c5-k8x2m"
    gw_ip = "10.233.71.14"

    # ---------------------------------------------------------------- nodes
    nodes = {
        "hgx-h100-sjc2-r07-n11": ("10.60.7.11", "10.233.64.0/24", "10.233.64"),
        "hgx-h100-sjc2-r07-n12": ("10.60.7.12", "10.233.65.0/24", "10.233.65"),
        "hgx-h100-sjc2-r07-n14": ("10.60.7.14", "10.233.66.0/24", "10.233.66"),
    }
    bad = "hgx-h100-sjc2-r07-n14"
    node_objs = []
    for name, (ip, cidr, _) in nodes.items():
        node_objs.append(
            node_obj(
                name,
                created=utc("2026-03-17T08:12:44Z"),
                uid_=kube.new_uid(rng),
                labels={
                    "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                    "nvidia.com/gpu.count": "8",
                    "nvidia.com/gpu.memory": "81559",
                    "nvidia.com/cuda.driver.major": "570",
                    "node.kubernetes.io/instance-type": "SYS-821GE-TNHR",
                    "topology.kubernetes.io/region": "sjc2",
                    "topology.kubernetes.io/zone": "sjc2-r07",
                    "node-role.kubernetes.io/gpu": "",
                    "feature.node.kubernetes.io/rdma.available": "true",
                },
                ip=ip,
                capacity={
                    "cpu": "224",
                    "memory": "2113412480Ki",
                    "nvidia.com/gpu": "8",
                    "ephemeral-storage": "7499362304Ki",
                    "pods": "110",
                },
                allocatable={
                    "cpu": "222",
                    "memory": "2102926720Ki",
                    "nvidia.com/gpu": "8",
                    "ephemeral-storage": "6911403866590",
                    "pods": "110",
                },
                conditions=node_conditions(as_of, utc("2026-08-21T02:03:11Z")),
                node_info={
                    "kernelVersion": "5.15.0-139-generic",
                    "osImage": "Ubuntu 22.04.5 LTS",
                    "kubeletVersion": "v1.31.6",
                    "kubeProxyVersion": "v1.31.6",
                    "containerRuntimeVersion": "containerd://1.7.27",
                    "machineID": hexid(rng, 32),
                    "systemUUID": kube.new_uid(rng).upper(),
                    "bootID": kube.new_uid(rng),
                },
                pod_cidr=cidr,
                annotations={
                    "node.alpha.kubernetes.io/ttl": "0",
                    "nvidia.com/gpu-driver-upgrade-state": "upgrade-done",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                },
            )
        )

    # ---------------------------------------------------------------- workload
    labels = {"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": dep_name}
    args = [
        "--model",
        "/models/mixtral-8x7b-instruct-v0.1",
        "--served-model-name",
        model,
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.90",
        "--disable-custom-all-reduce",
        "--enable-prefix-caching",
        "--disable-log-requests",
        "--port",
        "8000",
    ]

    def template(image_: str, args_: list[str], restarted: str) -> dict:
        return {
            "metadata": {
                "labels": {"app.kubernetes.io/component": "server"},
                "annotations": {
                    "kubectl.kubernetes.io/restartedAt": restarted,
                    "prometheus.io/scrape": "true",
                },
            },
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": image_,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["vllm", "serve"],
                        "args": args_,
                        "env": [
                            {"name": "NCCL_DEBUG", "value": "WARN"},
                            {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
                            {"name": "HF_HUB_OFFLINE", "value": "1"},
                        ],
                        "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"nvidia.com/gpu": "2", "memory": "200Gi"},
                            "requests": {"nvidia.com/gpu": "2", "cpu": "16", "memory": "160Gi"},
                        },
                        "startupProbe": kube.probe_http("/health", "http", period=10, failure=90),
                        "readinessProbe": kube.probe_http("/health", "http", period=10, failure=3),
                        "livenessProbe": kube.probe_http("/health", "http", period=20, failure=6, timeout=5),
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/models", "readOnly": True},
                            {"name": "dshm", "mountPath": "/dev/shm"},
                        ],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "volumes": [
                    {"name": "models", "hostPath": {"path": "/mnt/nvme0/models", "type": "Directory"}},
                    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}},
                ],
                "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
                "tolerations": kube.DEFAULT_TOLERATIONS,
                "affinity": {
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {
                                "labelSelector": {"matchLabels": labels},
                                "topologyKey": "kubernetes.io/hostname",
                            }
                        ]
                    }
                },
                "serviceAccountName": "vllm",
                "terminationGracePeriodSeconds": 60,
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
            },
        }

    w = kube.Workload(
        name=dep_name,
        namespace=ns,
        labels=labels,
        replicas=3,
        created=utc("2026-05-04T13:20:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
        extra_labels={
            "app.kubernetes.io/part-of": "research-assistant",
            "app.kubernetes.io/managed-by": "argocd",
        },
        annotations={"argocd.argoproj.io/tracking-id": f"research-assistant:apps/Deployment:{ns}/{dep_name}"},
    )
    old_args = [
        "--model",
        "/models/mixtral-8x7b-instruct-v0.1",
        "--served-model-name",
        model,
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.90",
        "--disable-log-requests",
        "--port",
        "8000",
    ]
    rev3 = kube.Revision(
        3,
        kube.rs_hash(rng),
        utc("2026-08-05T09:41:00Z"),
        template("vllm/vllm-openai:v0.9.2", old_args, "2026-08-05T09:40:51Z"),
        uid=kube.new_uid(rng),
    )
    rev4 = kube.Revision(
        4,
        kube.rs_hash(rng),
        utc("2026-08-21T10:15:00Z"),
        template(image, args, "2026-08-21T10:14:37Z"),
        uid=kube.new_uid(rng),
        replicas=3,
        ready=2,
        available=2,
    )
    w.revisions = [rev3, rev4]

    # ---------------------------------------------------------------- timeline
    deg0 = t("03:44:20")
    hang1, crash1, up1 = t("03:49:05"), t("03:59:05"), t("04:03:50")
    hang2, crash2 = t("04:07:30"), t("04:17:30")

    def iv(dt):  # index of the one-minute interval (t[i-1], t[i]] that contains dt
        return c.idx(dt) + 1

    _i_deg, i_h1, i_c1, i_u1, i_h2, i_c2 = (iv(x) for x in (deg0, hang1, crash1, up1, hang2, crash2))

    pods = []
    for k, (name, (ip, _, prefix)) in enumerate(nodes.items()):
        pods.append(
            {
                "node": name,
                "node_ip": ip,
                "ip": f"{prefix}.{[23, 41, 17][k]}",
                "name": kube.pod_name(rng, w, rev4),
                "uid": kube.new_uid(rng),
                "created": rev4.created + timedelta(minutes=7 * k, seconds=11),
                "gpus": [[0, 1], [2, 3], [4, 5]][k],
            }
        )
    badpod = pods[2]

    def state_at(ts) -> str:
        if ts < deg0:
            return "ok"
        if ts < hang1:
            return "slow"
        if ts < crash1:
            return "hung"
        if ts < up1:
            return "down"
        if ts < hang2:
            return "slow"
        if ts < crash2:
            return "hung"
        return "down"

    def state(i: int) -> str:  # state over interval i (at its middle)
        return state_at(c.at(i) - timedelta(seconds=30))

    def serving(ts) -> bool:  # the API server answers /metrics
        return ts < crash1 or up1 <= ts < crash2

    # ---------------------------------------------------------------- traffic
    arrivals = [270 * (1 + 0.05 * ((i % 17) / 17 - 0.5)) * rng.uniform(0.96, 1.04) for i in range(N)]
    share_bad = [{"ok": 1 / 3, "slow": 0.27, "hung": 0.11, "down": 0.0}[state(i)] for i in range(N)]
    share_bad[i_u1] = 0.06  # back in the endpoints only for the last seconds of that minute
    to_bad = [arrivals[i] * share_bad[i] for i in range(N)]
    codes_by_pod: list[dict[int, list[float]]] = [
        {200: [0.0] * N, 503: [0.0] * N, 504: [0.0] * N} for _ in pods
    ]
    inflight_at_hang = 24
    for i in range(N):
        so = (1 - share_bad[i]) / 2
        for k in (0, 1):
            codes_by_pod[k][200][i] = round(arrivals[i] * so * rng.uniform(0.985, 1.015))
        s = state(i)
        if s in ("ok", "slow"):
            codes_by_pod[2][200][i] = round(to_bad[i])
        if i in (i_h1, i_h2):
            codes_by_pod[2][200][i] = round(to_bad[i - 1] * 0.15)  # finished in the seconds before the hang
    for h, cr in ((i_h1, i_c1), (i_h2, i_c2)):
        # requests in flight at the hang, and every request routed here afterwards, time out after 120 s
        codes_by_pod[2][504][h + 2] += inflight_at_hang
        for j in range(h, cr - 1):
            if j + 2 < cr:
                codes_by_pod[2][504][j + 2] += round(to_bad[j] * rng.uniform(0.93, 1.07))
        # what is still pending when the watchdog aborts the process is reset; then connections are refused
        codes_by_pod[2][503][cr] += round(to_bad[cr - 1] + to_bad[cr - 2]) + rng.randint(0, 3)
        codes_by_pod[2][503][cr] += 7 + rng.randint(0, 4)
    codes = {code: [sum(cb[code][i] for cb in codes_by_pod) for i in range(N)] for code in (200, 503, 504)}

    # ---------------------------------------------------------------- engine series per pod
    om = OM(c)
    prom_job = dep_name
    for k, p in enumerate(pods):
        lab = ex.vllm_labels(
            pod=p["name"], ns=ns, model=model, ip=p["ip"], job=prom_job, service=dep_name, container="vllm"
        )
        present = [True if k < 2 else serving(c.at(i)) for i in range(N)]
        resets = [next(i for i in range(N) if c.at(i) >= up1)] if k == 2 else []
        running, waiting, kv, ttft_cnt, ttft_med, gen_inc, prompt_inc, ok_stop, ok_len = (
            [] for _ in range(9)
        )
        last = (0, 0, 0.0)
        for i in range(N):
            done = codes_by_pod[k][200][i]
            s = state(i) if k == 2 else "ok"
            slow = ramp(c, i, deg0, deg0 + timedelta(minutes=4)) if c.at(i) < hang1 else 1.0
            itl = 0.031 * rng.uniform(0.95, 1.05) + (0.027 * slow if s == "slow" else 0.0)
            gen_len = 342 * rng.uniform(0.95, 1.05)
            e2e = 0.34 + gen_len * itl
            if s in ("ok", "slow"):
                r = round(done * e2e / 60 * rng.uniform(0.93, 1.07))
                last = (
                    r,
                    0 if s == "ok" else rng.choice([0, 0, 1, 2]),
                    round(0.012 * r + 0.11 + rng.uniform(-0.01, 0.01), 4),
                )
                ttft_med.append(0.31 + (0.45 * slow if s == "slow" else 0.0))
            else:
                # V1 sets these gauges from the engine's outputs: while it is stuck they keep their last values
                ttft_med.append(0.31)
            running.append(last[0])
            waiting.append(last[1])
            kv.append(last[2])
            ttft_cnt.append(done)
            gen_inc.append(done * gen_len)
            prompt_inc.append(done * 1180 * rng.uniform(0.95, 1.05))
            ok_stop.append(round(done * 0.93))
            ok_len.append(done - round(done * 0.93))

        def gate(vals, present=present):
            return [v if present[i] else None for i, v in enumerate(vals)]

        om.gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            lab,
            gate(running),
            digits=4,
        )
        om.gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            lab,
            gate(waiting),
            digits=4,
        )
        om.gauge(
            "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, gate(kv), digits=4
        )
        base_req = [3_120_455, 3_098_127, 2_987_310][k]
        om.counter(
            "vllm:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            prompt_inc,
            initial=base_req * 1180,
            present=present,
            resets=resets,
        )
        om.counter(
            "vllm:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            gen_inc,
            initial=base_req * 342,
            present=present,
            resets=resets,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "stop"},
            ok_stop,
            initial=round(base_req * 0.93),
            present=present,
            resets=resets,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "length"},
            ok_len,
            initial=round(base_req * 0.07),
            present=present,
            resets=resets,
        )
        om.histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            ex.VLLM_TTFT,
            ttft_cnt,
            ttft_med,
            0.55,
            initial_count=base_req,
            present=present,
            resets=resets,
        )
        p["series"] = {"running": running, "waiting": waiting, "kv": kv, "present": present}

    # ---------------------------------------------------------------- DCGM (with NVLink counters)
    gpus: list[ex.Gpu] = []
    pci = [
        "00000000:18:00.0",
        "00000000:2A:00.0",
        "00000000:3A:00.0",
        "00000000:5D:00.0",
        "00000000:9A:00.0",
        "00000000:AB:00.0",
        "00000000:BA:00.0",
        "00000000:DB:00.0",
    ]
    exporter_ip = {n: f"{nodes[n][2]}.{[5, 6, 4][k]}" for k, n in enumerate(nodes)}
    nvl: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for k, p in enumerate(pods):
        for gi in p["gpus"]:
            g = ex.Gpu(
                node=p["node"],
                index=gi,
                uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                pci=pci[gi],
                model="NVIDIA H100 80GB HBM3",
                memory_mib=81559,
                pod=p["name"],
                namespace=ns,
                container="vllm",
            )
            crc, rep, rec = [], [], []
            for i in range(N):
                s = state(i) if k == 2 else "ok"
                if s == "ok":
                    u, fb, pw = rng.uniform(68, 79), 74_021 + rng.randint(-40, 40), rng.uniform(395, 455)
                elif s == "slow":
                    u, fb, pw = rng.uniform(80, 88), 74_021 + rng.randint(-40, 40), rng.uniform(360, 410)
                elif s == "hung":
                    u, fb, pw = 100.0, 74_033, rng.uniform(176, 189)
                else:  # restarting: the engine process is gone, then loads weights
                    since = c.at(i) - (crash1 if c.at(i) < up1 else crash2)
                    if since < timedelta(minutes=1):
                        u, fb, pw = 0.0, 0.0, rng.uniform(71, 76)
                    else:
                        u, fb, pw = (
                            rng.uniform(0, 6),
                            min(74_000.0, 23_100.0 * since.total_seconds() / 60),
                            rng.uniform(110, 160),
                        )
                g.util.append(round(u))
                g.fb_used.append(round(fb))
                g.power.append(round(pw, 3))
                if k == 2:
                    grow = ramp(c, i, deg0, deg0 + timedelta(minutes=10))
                    crc.append(0 if c.at(i) < deg0 else round(rng.uniform(180, 320) + 900 * grow))
                    rep.append(0 if c.at(i) < deg0 else round(rng.uniform(14, 30) + 70 * grow))
                    rec.append(1 if i in (i_h1, i_h2) else 0)
                else:
                    crc.append(0)
                    rep.append(0)
                    rec.append(0)
            nvl[g.uuid] = (crc, rep, rec)
            gpus.append(g)
    ex.dcgm(om, gpus, driver, exporter_ip)
    for g in gpus:
        lab = ex.dcgm_labels(g, driver, exporter_ip[g.node])
        crc, rep, rec = nvl[g.uuid]
        om.counter(
            "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
            "Total number of NVLink flow-control CRC errors.",
            lab,
            crc,
            initial=0 if g.node != bad else 3,
            suffix_total=False,
        )
        om.counter(
            "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
            "Total number of NVLink retries.",
            lab,
            rep,
            initial=0,
            suffix_total=False,
        )

    # ---------------------------------------------------------------- kube-state-metrics
    for k, p in enumerate(pods):
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        ready = []
        restarts = []
        for i in range(N):
            s = state(i) if k == 2 else "ok"
            ready.append(0 if s == "down" else 1)
            restarts.append(1 if k == 2 and i in (i_c1, i_c2) else 0)
        om.gauge(
            "kube_pod_info",
            "Information about pod.",
            ex.ksm_labels(
                {
                    **plab,
                    "node": p["node"],
                    "host_ip": p["node_ip"],
                    "pod_ip": p["ip"],
                    "created_by_kind": "ReplicaSet",
                    "created_by_name": f"{dep_name}-{rev4.hash}",
                    "host_network": "false",
                    "priority_class": "inference-critical",
                },
                True,
            ),
            [1] * N,
        )
        for cond, vals in (("true", ready), ("false", [1 - v for v in ready])):
            om.gauge(
                "kube_pod_status_ready",
                "Describes whether the pod is ready to serve requests.",
                ex.ksm_labels({**plab, "condition": cond}, True),
                vals,
                digits=2,
            )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ex.ksm_labels({**plab, "container": "vllm"}, True),
            restarts,
        )
        if k == 2:
            last_reason = [0 if i < i_c1 else 1 for i in range(N)]
            om.gauge(
                "kube_pod_container_status_last_terminated_reason",
                "Describes the last reason the container was in terminated state.",
                ex.ksm_labels({**plab, "container": "vllm", "reason": "Error"}, True),
                [None if i < i_c1 else 1 for i in range(N)],
                digits=2,
            )
            om.gauge(
                "kube_pod_container_status_last_terminated_exitcode",
                "Describes the exit code for the last container in terminated state.",
                ex.ksm_labels({**plab, "container": "vllm"}, True),
                [None if i < i_c1 else 1 for i in range(N)],
                digits=3,
            )
            del last_reason
    avail = [3 - (1 if (state(i) == "down") else 0) for i in range(N)]
    dlab = ex.ksm_labels({"namespace": ns, "deployment": dep_name}, True)
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [3] * N, digits=3
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
        [3 - a for a in avail],
        digits=3,
    )
    for name in nodes:
        for st in ("true", "false"):
            om.gauge(
                "kube_node_status_condition",
                "The condition of a cluster node.",
                ex.ksm_labels({"node": name, "condition": "Ready", "status": st}, True),
                [1 if st == "true" else 0] * N,
                digits=2,
            )
        om.gauge(
            "kube_node_spec_unschedulable",
            "Whether a node can schedule new pods.",
            ex.ksm_labels({"node": name}, True),
            [0] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- Envoy Gateway (PodMonitor: no `service` label)
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{gw_ip}:19001",
        "job": "envoy-gateway-system/envoy-proxy",
        "namespace": "envoy-gateway-system",
        "pod": gw_pod,
    }
    healthy = [2 + (0 if state(i) == "down" else 1) for i in range(N)]
    mix = []
    for i in range(N):
        ok = codes[200][i]
        sb = share_bad[i]
        slow_ok = codes_by_pod[2][200][i]
        mix.append(
            [
                (ok - slow_ok, 11.2, 0.45),
                (slow_ok, 11.2 if state(i) == "ok" else 20.5, 0.45),
                (codes[504][i], 120.0, 0.0004),
                (codes[503][i], 0.9, 1.2),
            ]
        )
        del sb
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes=codes,
        initial={200: 9_412_388, 503: 2_114, 504: 977},
        timeouts=codes[504],
        healthy=healthy,
        members=[3] * N,
        rq_time_mix=mix,
        rq_time_initial=[(9_412_388, 11.0, 0.45)],
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()
    svc = dep_name

    def vlog(p, ts, msg, level="info", proc="(APIServer pid=1)", **kw):
        lvl = {"info": "INFO", "warn": "WARNING", "error": "ERROR", "debug": "DEBUG"}[level]
        text = (
            f"{proc} {lvl} {ts.strftime('%m-%d %H:%M:%S')} {msg}"
            if proc
            else f"{lvl} {ts.strftime('%m-%d %H:%M:%S')} {msg}"
        )
        logs.add(
            ts, text, service=svc, ns=ns, pod=p["name"], node=p["node"], container="vllm", level=level, **kw
        )

    def raw(p, ts, msg, level="error", **kw):
        logs.add(
            ts, msg, service=svc, ns=ns, pod=p["name"], node=p["node"], container="vllm", level=level, **kw
        )

    clients = ["10.40.2.77", "10.40.2.78", "10.40.3.12"]
    for k, p in enumerate(pods):
        ser = p["series"]
        for i in range(1, N):
            s = state(i) if k == 2 else "ok"
            minute = c.at(i - 1)
            if s in ("ok", "slow") and codes_by_pod[k][200][i] > 0 and i % 2 == k % 2:
                ts = within(rng, minute)
                raw(
                    p,
                    ts,
                    f'(APIServer pid=1) INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                    level="info",
                    status=200,
                )
            if s in ("ok", "slow", "hung") and i % 2 == 0:
                ts = within(rng, minute, 0, 10)
                if s == "hung":
                    pt, gt = 0.0, 0.0
                else:
                    pt = codes_by_pod[k][200][i] * 1180 / 60 * rng.uniform(0.9, 1.1)
                    gt = codes_by_pod[k][200][i] * 342 / 60 * rng.uniform(0.9, 1.1)
                vlog(
                    p,
                    ts,
                    f"[loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
                    f"Running: {int(ser['running'][i])} reqs, Waiting: {int(ser['waiting'][i])} reqs, GPU KV cache usage: {ser['kv'][i] * 100:.1f}%, "
                    f"Prefix cache hit rate: {rng.uniform(9, 14):.1f}%",
                )
    bp = badpod
    ehost = bp["name"]

    def hang_and_abort(h, cr, seq, pid0, pid1, engine_pid):
        # shm_broadcast warnings while the workers are stuck in the collective
        m = h + timedelta(seconds=60)
        while m < cr:
            vlog(
                bp,
                m + timedelta(milliseconds=rng.randint(2, 90)),
                "[shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some "
                "processes are hanging or doing some time-consuming work (e.g. compilation)",
                level="warn",
                proc=f"(EngineCore_0 pid={engine_pid})",
            )
            m += timedelta(seconds=60)
        ran = 600018
        for rank, pid in ((0, pid0), (1, pid1)):
            ts = cr + timedelta(milliseconds=rng.randint(5, 60))
            stamp = torch_stamp(rng, ts)
            work = f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=2097152, NumelOut=2097152, Timeout(ms)=600000)"
            pre = f"(VllmWorker TP{rank} pid={pid}) [rank{rank}]:[{stamp}"
            raw(
                bp,
                ts,
                f"{pre} ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran + rank * 7} milliseconds before timing out.",
                error_type="c10::DistBackendError",
                error_message=f"[Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran + rank * 7} milliseconds before timing out.",
            )
            raw(
                bp,
                ts + timedelta(microseconds=310),
                f"{pre} ProcessGroupNCCL.cpp:2271] [PG ID 2 PG GUID 3 Rank {rank}] failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}",
            )
            raw(
                bp,
                ts + timedelta(microseconds=420),
                f"{pre} ProcessGroupNCCL.cpp:670] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
            )
            raw(
                bp,
                ts + timedelta(microseconds=520),
                f"{pre} ProcessGroupNCCL.cpp:684] [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            )
            raw(
                bp,
                ts + timedelta(microseconds=610),
                f"{pre} ProcessGroupNCCL.cpp:698] [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
            )
            raw(
                bp,
                ts + timedelta(milliseconds=2),
                f"(VllmWorker TP{rank} pid={pid}) {ehost}:{pid}:{pid + 1621} [{rank}] proxy.cc:1543 NCCL WARN [Proxy Service {rank}] Failed to execute operation Close from rank {rank}, retcode 3",
                level="warn",
            )
            raw(
                bp,
                ts + timedelta(milliseconds=3),
                f"(VllmWorker TP{rank} pid={pid}) {ehost}:{pid}:{pid + 1609} [{rank}] misc/socket.cc:64 NCCL WARN socketProgress: Connection closed by remote peer {ehost}<{rng.randint(35000, 60000)}>",
                level="warn",
            )
            raw(
                bp,
                ts + timedelta(milliseconds=9),
                f"(VllmWorker TP{rank} pid={pid}) terminate called after throwing an instance of 'c10::DistBackendError'",
            )
            raw(
                bp,
                ts + timedelta(milliseconds=9, microseconds=200),
                f"(VllmWorker TP{rank} pid={pid})   what():  [PG ID 2 PG GUID 3 Rank {rank}] Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout: {work} ran for {ran + rank * 7} milliseconds before timing out.",
            )
        d = cr + timedelta(milliseconds=740)
        vlog(
            bp,
            d,
            "[multiproc_executor.py:146] Worker proc VllmWorker-0 died unexpectedly, shutting down executor.",
            level="error",
            proc=f"(EngineCore_0 pid={engine_pid})",
        )
        vlog(
            bp,
            d + timedelta(milliseconds=35),
            "[core_client.py:564] Engine core proc EngineCore_0 died unexpectedly, shutting down client.",
            level="error",
        )
        vlog(
            bp,
            d + timedelta(milliseconds=41),
            "[async_llm.py:420] AsyncLLM output_handler failed.",
            level="error",
            error_type="vllm.v1.engine.exceptions.EngineDeadError",
            error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
        )
        raw(
            bp,
            d + timedelta(milliseconds=48),
            "(APIServer pid=1) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
        )
        raw(bp, d + timedelta(milliseconds=160), "(APIServer pid=1) INFO:     Shutting down", level="info")
        raw(
            bp,
            d + timedelta(milliseconds=390),
            "(APIServer pid=1) INFO:     Waiting for application shutdown.",
            level="info",
        )
        raw(
            bp,
            d + timedelta(milliseconds=395),
            "(APIServer pid=1) INFO:     Application shutdown complete.",
            level="info",
        )
        raw(
            bp,
            d + timedelta(milliseconds=401),
            "(APIServer pid=1) INFO:     Finished server process [1]",
            level="info",
        )

    hang_and_abort(hang1, crash1, 2184467, 283, 284, 214)
    hang_and_abort(hang2, crash2, 131977, 281, 282, 212)

    def boot(start, ready_at):
        b = start
        vlog(bp, b, "[__init__.py:241] Automatically detected platform cuda.", proc="")
        vlog(bp, b + timedelta(seconds=3), "[api_server.py:1805] vLLM API server version 0.10.1.1")
        vlog(
            bp,
            b + timedelta(seconds=3, milliseconds=12),
            f"[utils.py:326] non-default args: {{'model_tag': '/models/mixtral-8x7b-instruct-v0.1', 'model': '/models/mixtral-8x7b-instruct-v0.1', "
            f"'max_model_len': 16384, 'served_model_name': ['{model}'], 'tensor_parallel_size': 2, 'disable_custom_all_reduce': True, "
            "'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'disable_log_requests': True}",
        )
        vlog(
            bp,
            b + timedelta(seconds=21),
            "[parallel_state.py:1134] rank 0 in world size 2 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0",
            proc="(VllmWorker TP0 pid=281)",
        )
        vlog(
            bp,
            b + timedelta(seconds=27),
            "[gpu_model_runner.py:1953] Starting to load model /models/mixtral-8x7b-instruct-v0.1...",
            proc="(VllmWorker TP0 pid=281)",
        )
        if ready_at is not None:
            vlog(
                bp,
                b + timedelta(seconds=104),
                "[default_loader.py:262] Loading weights took 71.38 seconds",
                proc="(VllmWorker TP0 pid=281)",
            )
            vlog(
                bp,
                b + timedelta(seconds=105),
                "[gpu_model_runner.py:2007] Model loading took 43.5938 GiB and 72.114127 seconds",
                proc="(VllmWorker TP0 pid=281)",
            )
            vlog(
                bp,
                b + timedelta(seconds=160),
                "[kv_cache_utils.py:849] GPU KV cache size: 401,248 tokens",
                proc="(EngineCore_0 pid=212)",
            )
            vlog(
                bp,
                b + timedelta(seconds=160, milliseconds=4),
                "[kv_cache_utils.py:853] Maximum concurrency for 16,384 tokens per request: 24.49x",
                proc="(EngineCore_0 pid=212)",
            )
            vlog(
                bp,
                b + timedelta(seconds=198),
                "[gpu_model_runner.py:2708] Graph capturing finished in 19 secs, took 0.61 GiB",
                proc="(VllmWorker TP0 pid=281)",
            )
            vlog(bp, ready_at - timedelta(seconds=6), "[launcher.py:29] Available routes are:")
            raw(
                bp,
                ready_at - timedelta(seconds=5),
                "(APIServer pid=1) INFO:     Started server process [1]",
                level="info",
            )
            raw(
                bp,
                ready_at - timedelta(seconds=4),
                "(APIServer pid=1) INFO:     Application startup complete.",
                level="info",
            )

    boot(crash1 + timedelta(seconds=38), up1)
    boot(crash2 + timedelta(seconds=49), None)

    # gateway access log (Envoy Gateway's default JSON format), sampled
    gw_node = "hgx-h100-sjc2-r07-n11"

    def envoy_line(ts, code, flags, details, dur, host):
        rid = f"{hexid(rng, 8)}-{hexid(rng, 4)}-4{hexid(rng, 3)}-a{hexid(rng, 3)}-{hexid(rng, 12)}"
        cli = rng.choice(clients)
        d = {
            ":authority": "assistant.research.example.org",
            "bytes_received": rng.randint(1400, 9800),
            "bytes_sent": 24 if code == 504 else (91 if code == 503 else rng.randint(1200, 4200)),
            "connection_termination_details": None,
            "downstream_local_address": f"{gw_ip}:10443",
            "downstream_remote_address": f"{cli}:{rng.randint(32768, 60999)}",
            "duration": dur,
            "method": "POST",
            "protocol": "HTTP/1.1",
            "requested_server_name": "assistant.research.example.org",
            "response_code": code,
            "response_code_details": details,
            "response_flags": flags,
            "route_name": f"httproute/{ns}/{route}/rule/0/match/0/assistant_research_example_org",
            "start_time": iso(ts - timedelta(milliseconds=dur), ms=True),
            "upstream_cluster": cluster,
            "upstream_host": host,
            "upstream_local_address": f"{gw_ip}:{rng.randint(32768, 60999)}",
            "upstream_transport_failure_reason": None,
            "user-agent": rng.choice(
                ["python-httpx/0.27.2", "OpenAI/Python 1.99.9", "research-notebook/3.4.1"]
            ),
            "x-envoy-origin-path": "/v1/chat/completions",
            "x-envoy-upstream-service-time": None if code >= 500 else str(dur - 2),
            "x-forwarded-for": cli,
            "x-request-id": rid,
        }
        import json as _json

        logs.add(
            ts,
            _json.dumps(d, separators=(",", ":")),
            service="envoy-gateway",
            ns="envoy-gateway-system",
            pod=gw_pod,
            node=gw_node,
            container="envoy",
            level="info" if code < 500 else "warn",
            status=code,
            dataset="envoy.access",
        )

    for i in range(1, N):
        minute = c.at(i - 1)
        if i % 3 == 0 and codes[200][i]:
            k = rng.randrange(3)
            if codes_by_pod[k][200][i]:
                envoy_line(
                    within(rng, minute),
                    200,
                    "-",
                    "via_upstream",
                    rng.randint(6000, 18000),
                    f"{pods[k]['ip']}:8000",
                )
        for _ in range(min(3, int(codes_by_pod[2][504][i]))):
            envoy_line(
                within(rng, minute),
                504,
                "UT",
                "upstream_response_timeout",
                120000 + rng.randint(0, 3),
                f"{bp['ip']}:8000",
            )
        n503 = int(codes_by_pod[2][503][i])
        for _ in range(min(3, n503)):
            if i in (i_c1, i_c2):
                at = (crash1 if i == i_c1 else crash2) + timedelta(seconds=1 + rng.uniform(0, 2))
                envoy_line(
                    at,
                    503,
                    "UC",
                    "upstream_reset_before_response_started{connection_termination}",
                    rng.randint(20000, 119000),
                    f"{bp['ip']}:8000",
                )
            else:
                envoy_line(
                    within(rng, minute, 0, 25),
                    503,
                    "UF",
                    "upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_Connection_refused}",
                    rng.randint(0, 2),
                    f"{bp['ip']}:8000",
                )

    # ---------------------------------------------------------------- objects
    objs = []
    objs.append(w.deployment())
    w_status_avail = 2
    objs[-1]["status"].update(
        {
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": w_status_avail,
            "availableReplicas": w_status_avail,
            "unavailableReplicas": 1,
        }
    )
    objs[-1]["status"]["conditions"] = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            crash2,
            utc("2026-08-21T10:38:40Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep_name}-{rev4.hash}" has successfully progressed.',
            utc("2026-08-21T10:38:40Z"),
            utc("2026-08-21T10:15:00Z"),
        ),
    )
    objs.append(w.replicaset(rev4))
    objs.append(w.replicaset(rev3))
    for k, p in enumerate(pods):
        if k < 2:
            st = kube.cstatus(
                rng, name="vllm", image=image, ready=True, running_since=p["created"] + timedelta(seconds=9)
            )
            objs.append(
                kube.pod_obj(
                    w,
                    rev4,
                    name=p["name"],
                    uid_=p["uid"],
                    node=p["node"],
                    created=p["created"],
                    pod_ip=p["ip"],
                    host_ip=p["node_ip"],
                    phase="Running",
                    ready=True,
                    container_statuses=[st],
                    ready_since=p["created"] + timedelta(minutes=4, seconds=40),
                )
            )
        else:
            last = kube.terminated(
                rng,
                reason="Error",
                exit_code=1,
                started=up1 - timedelta(minutes=4, seconds=12),
                finished=crash2 + timedelta(seconds=1),
            )
            st = kube.cstatus(
                rng,
                name="vllm",
                image=image,
                ready=False,
                restart_count=2,
                running_since=crash2 + timedelta(seconds=49),
                last_terminated=last,
            )
            st["started"] = False
            objs.append(
                kube.pod_obj(
                    w,
                    rev4,
                    name=p["name"],
                    uid_=p["uid"],
                    node=p["node"],
                    created=p["created"],
                    pod_ip=p["ip"],
                    host_ip=p["node_ip"],
                    phase="Running",
                    ready=False,
                    container_statuses=[st],
                    ready_since=crash2 + timedelta(seconds=2),
                    containers_ready_since=crash2 + timedelta(seconds=2),
                )
            )
    objs.append(
        service_obj(
            dep_name,
            ns,
            labels,
            [{"name": "http", "port": 8000, "protocol": "TCP", "targetPort": "http"}],
            "10.96.41.203",
            labels={**labels, "app.kubernetes.io/part-of": "research-assistant"},
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="research-gw",
            gateway_ns="platform-ingress",
            hostnames=["assistant.research.example.org"],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                    "backendRefs": [
                        {"group": "", "kind": "Service", "name": dep_name, "port": 8000, "weight": 1}
                    ],
                    "timeouts": {"request": "120s"},
                }
            ],
            created=utc("2026-05-04T13:25:00Z"),
            uid_=kube.new_uid(rng),
            generation=3,
        )
    )
    objs.extend(node_objs)
    objs.append(
        configmap_obj(
            "vllm-mixtral-8x7b-tp2-chat-template",
            ns,
            {
                "tool_chat_template_mistral.jinja": "{{ bos_token }}{% for message in messages %}...{% endfor %}"
            },
            utc("2026-05-04T13:20:00Z"),
            kube.new_uid(rng),
            labels=labels,
        )
    )

    # events (core/v1) of the restarting pod, as kubelet reports them
    def ev(**kw):
        objs.append(event_obj(rng, ns=ns, kind="Pod", name=bp["name"], obj_uid=bp["uid"], host=bad, **kw))

    ev(
        reason="Unhealthy",
        message=f'Readiness probe failed: Get "http://{bp["ip"]}:8000/health": dial tcp {bp["ip"]}:8000: connect: connection refused',
        first=crash1 + timedelta(seconds=4),
        last=crash2 + timedelta(seconds=24),
        count=9,
        etype="Warning",
        field_path="spec.containers{vllm}",
    )
    ev(
        reason="Unhealthy",
        message=f'Startup probe failed: Get "http://{bp["ip"]}:8000/health": dial tcp {bp["ip"]}:8000: connect: connection refused',
        first=crash1 + timedelta(seconds=48),
        last=as_of - timedelta(seconds=7),
        count=44,
        etype="Warning",
        field_path="spec.containers{vllm}",
    )
    ev(
        reason="Pulled",
        message=f'Container image "{image}" already present on machine',
        first=crash1 + timedelta(seconds=37),
        last=crash2 + timedelta(seconds=48),
        count=2,
        field_path="spec.containers{vllm}",
    )
    ev(
        reason="Created",
        message="Created container: vllm",
        first=crash1 + timedelta(seconds=37),
        last=crash2 + timedelta(seconds=48),
        count=2,
        field_path="spec.containers{vllm}",
    )
    ev(
        reason="Started",
        message="Started container vllm",
        first=crash1 + timedelta(seconds=38),
        last=crash2 + timedelta(seconds=49),
        count=2,
        field_path="spec.containers{vllm}",
    )
    ev(
        reason="BackOff",
        message=f"Back-off restarting failed container vllm in pod {bp['name']}_{ns}({bp['uid']})",
        first=crash2 + timedelta(seconds=2),
        last=crash2 + timedelta(seconds=31),
        count=3,
        etype="Warning",
        field_path="spec.containers{vllm}",
    )

    # gpus.json: NVML at as_of
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
                "temperature_c": rng.randint(36, 44) if g.node == bad else rng.randint(52, 61),
                "power_w": round(g.power[-1], 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
        )

    # ---------------------------------------------------------------- alert from a real Prometheus
    expr = (
        f'sum(rate(envoy_cluster_upstream_rq_xx{{envoy_cluster_name="{cluster}",envoy_response_code_class="5"}}[5m]))'
        f' / sum(rate(envoy_cluster_upstream_rq_total{{envoy_cluster_name="{cluster}"}}[5m])) > 0.05'
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=5, eval_offset_s=17)
    finally:
        prom.close()
    alabels = {
        "alertname": "ResearchAssistantUpstream5xxRatio",
        "deployment": dep_name,
        "namespace": ns,
        "prometheus": "monitoring/kube-prometheus-stack-prometheus",
        "severity": "critical",
        "team": "genai-platform",
    }
    ann = {
        "summary": "More than 5% of requests to the research assistant fail with 5xx at the gateway",
        "description": f"{value * 100:.1f}% of upstream requests on {cluster} returned 5xx over the last 5 minutes.",
        "runbook_url": "https://wiki.research.example.org/oncall/research-assistant#upstream-5xx",
        "value": f"{value:.4f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(100, 900)),
        expr=expr,
        prometheus_url="http://kube-prometheus-stack-prometheus.monitoring:9090",
        external_url="http://kube-prometheus-stack-alertmanager.monitoring:9093",
        group_by=["alertname", "namespace"],
        receiver="genai-oncall-bot",
        route_matchers='{}/{severity=~"critical|page"}',
    )

    expected = {
        "category": "infrastructure",
        "code": "INF_NCCL",
        "acceptable_first_actions": [
            {"kind": "cordon_node", "target": f"node/{bad}"},
            {"kind": "restart_pod", "target": f"pod/{bp['name']}"},
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Research assistant returns gateway errors overnight; no deploy since August 21.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
