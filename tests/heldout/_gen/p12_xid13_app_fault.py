# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""Xid 13 on one vLLM replica, every time one request shape reaches it: an application fault.

`vllm-qwen3-30b-eval` (vLLM 0.11.0 V1, Qwen3-30B-A3B-Instruct-2507-FP8, one H100 NVL per replica, three
replicas) runs an in-house general plugin, `evalkit_kernels`, that replaces the MoE top-k routing with
a custom CUDA op (`torch.ops.evalkit.fused_topk_route`); image and plugin have been unchanged for three
weeks. Contour routes the eval API through an HTTPProxy with `RequestHash` on `X-Eval-Run`, so each
benchmark run sticks to one replica. Tonight's `ruler-64k-nightly` run lands on replica B. Whenever its
item `cwe_long/0031` (61,431 prompt tokens, chunked into 8,192-token steps) is scheduled, the custom
kernel writes out of range: the kernel logs `NVRM: Xid (PCI:0000:9b:00): 13, ... name=VLLM::EngineCor,
Graphics SM Warp Exception ... Out Of Range Address`, the EngineCore dies with `torch.AcceleratorError:
CUDA error: an illegal memory access was encountered` (vLLM dumps the scheduler output: the same
request, `num_computed_tokens=[57344]`), the API server answers 500 to everything in flight and exits,
the container restarts. The harness retries the failed items nine minutes later, they hash to the
same replica, and it happens again: five crashes, restart back-off growing, `CrashLoopBackOff` at
`as_of`. The other replicas never get that item and are fine; the GPU has no ECC errors, no retired
pages and works again after every restart; Xid 13 is an application fault in NVIDIA's catalogue.

The node also runs another team's pods (an RL reward scorer), which a cordon would strand. The alert is
an SLO rule with only `slo`, `namespace` and `severity` labels; its PromQL scopes it by a regex on the
Contour cluster name. Logs are shipped by Vector; kernel lines come from journald with only the host.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from . import exporters as ex
from . import kube
from .common import envoy_text, gpu_node
from .lib import (
    OM,
    Clock,
    Obj,
    Prom,
    current_firing,
    event_obj,
    hexid,
    iso,
    owner,
    service_obj,
    uid,
    utc,
    webhook,
    within,
    write_pack,
)
from .p10_nccl_ib_port_down import ShipperLogs, pod_plain

NAME = "xid13-app-fault-no-service-label"
ENGINE = "vLLM 0.11.0 (V1) + in-house MoE routing kernel plugin, H100 NVL, Contour HTTPProxy (RequestHash)"


def build(root):
    rng = random.Random(12312)
    as_of = utc("2026-10-21T11:40:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "pretrain-eval"
    dep = "vllm-qwen3-30b-eval"
    model = "qwen3-30b-a3b-eval"
    proxy_name = "eval-llm"
    image = "registry.eval.internal/ml/vllm-evalkit:0.11.0-ek1.4.2"
    driver = "575.57.08"
    cluster = f"{ns}/{dep}/8000/da39a3ee5e"
    cl_name = "ord1-eval"
    env_pod = "envoy-k2m7d"
    env_ip = "10.64.22.7"

    nodes = {
        "gpu-nvl-ord1-r22-h07": "10.70.22.7",
        "gpu-nvl-ord1-r22-h08": "10.70.22.8",
        "gpu-nvl-ord1-r22-h09": "10.70.22.9",
        "gpu-nvl-ord1-r22-h10": "10.70.22.10",
    }
    badnode = "gpu-nvl-ord1-r22-h08"
    node_objs = []
    for k, (name, ip) in enumerate(nodes.items()):
        node_objs.append(
            gpu_node(
                rng,
                name,
                as_of=as_of,
                created=utc("2026-06-30T15:11:20Z") + timedelta(minutes=17 * k),
                ready_since=utc("2026-10-04T03:12:44Z") + timedelta(minutes=5 * k),
                ip=ip,
                pod_cidr=f"10.64.{10 + k}.0/24",
                product="NVIDIA H100 NVL",
                gpu_count=4,
                gpu_mem_mib=95830,
                instance_type="SYS-421GE-TNRT",
                zone="ord1-r22",
                region="ord1",
                cpu=128,
                mem_ki=1056375352,
                kubelet="v1.33.4",
                runtime="containerd://2.0.5",
                kernel="6.8.0-79-generic",
                os_image="Ubuntu 24.04.3 LTS",
                driver_major="575",
                extra_labels={
                    "node-pool": "eval-h100nvl",
                    "nvidia.com/gpu.family": "hopper",
                    "nvidia.com/mig.capable": "false",
                },
            )
        )

    # ---------------------------------------------------------------- the deployment
    labels = {"app": dep}
    args = [
        "--model",
        "/models/Qwen3-30B-A3B-Instruct-2507-FP8",
        "--served-model-name",
        model,
        "--max-model-len",
        "65536",
        "--max-num-batched-tokens",
        "8192",
        "--max-num-seqs",
        "96",
        "--gpu-memory-utilization",
        "0.92",
        "--enable-prefix-caching",
        "--port",
        "8000",
    ]

    def template(img: str, plugin_ver: str) -> Obj:
        return {
            "metadata": {
                "labels": {"team": "eval-infra"},
                "annotations": {
                    "prometheus.io/scrape": "true",
                    "evalkit.eval.internal/plugin-version": plugin_ver,
                },
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
                            {"name": "VLLM_PLUGINS", "value": "evalkit_kernels"},
                            {"name": "EVALKIT_MOE_ROUTING", "value": "fused_topk"},
                            {"name": "HF_HUB_OFFLINE", "value": "1"},
                            {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
                        ],
                        "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1", "memory": "160Gi"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "16", "memory": "96Gi"},
                        },
                        "readinessProbe": kube.probe_http("/health", "http", period=5, failure=2),
                        "livenessProbe": kube.probe_http(
                            "/health", "http", period=15, failure=8, initial=300, timeout=5
                        ),
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/models", "readOnly": True},
                            {"name": "dshm", "mountPath": "/dev/shm"},
                            {"name": "vllm-cache", "mountPath": "/root/.cache/vllm"},
                        ],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "FallbackToLogsOnError",
                    }
                ],
                "volumes": [
                    {"name": "models", "persistentVolumeClaim": {"claimName": "eval-models-ro"}},
                    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
                    {
                        "name": "vllm-cache",
                        "hostPath": {"path": "/var/cache/vllm", "type": "DirectoryOrCreate"},
                    },
                ],
                "nodeSelector": {"node-pool": "eval-h100nvl"},
                "tolerations": kube.DEFAULT_TOLERATIONS,
                "serviceAccountName": "vllm",
                "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
            },
        }

    w = kube.Workload(
        name=dep,
        namespace=ns,
        labels=labels,
        replicas=3,
        created=utc("2026-07-14T10:00:00Z"),
        uid=uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
        extra_labels={"app.kubernetes.io/managed-by": "argocd", "app.kubernetes.io/part-of": "eval-platform"},
        annotations={"argocd.argoproj.io/tracking-id": f"eval-serving:apps/Deployment:{ns}/{dep}"},
    )
    rev_old = kube.Revision(
        5,
        kube.rs_hash(rng),
        utc("2026-09-16T13:20:00Z"),
        template("registry.eval.internal/ml/vllm-evalkit:0.10.2-ek1.4.1", "1.4.1"),
        uid=uid(rng),
    )
    rev = kube.Revision(
        6,
        kube.rs_hash(rng),
        utc("2026-09-30T09:41:00Z"),
        template(image, "1.4.2"),
        uid=uid(rng),
        replicas=3,
        ready=2,
        available=2,
        change_cause="argocd sync eval-serving@4f1c2e7: vllm 0.11.0, evalkit 1.4.2",
    )
    w.revisions = [rev_old, rev]
    pods = []
    for k, nd in enumerate(["gpu-nvl-ord1-r22-h07", badnode, "gpu-nvl-ord1-r22-h09"]):
        pods.append(
            {
                "name": kube.pod_name(rng, w, rev),
                "uid": uid(rng),
                "node": nd,
                "ip": f"10.64.{10 + k}.{[41, 73, 26][k]}",
                "gpu": [1, 3, 0][k],
                "created": rev.created + timedelta(minutes=6 * k, seconds=12),
            }
        )
    pa, pb, pc = pods
    pb["created"] = utc("2026-10-04T03:20:31Z")  # rescheduled after the node's kernel update

    # ---------------------------------------------------------------- timeline of replica B
    crashes = [t("11:03:12"), t("11:12:41"), t("11:22:20"), t("11:31:48"), t("11:38:42")]
    backoff = [10, 20, 40, 80, 160]
    load_s = 131
    downs = []  # (crash, restart, ready)
    for k, cr in enumerate(crashes):
        rs = cr + timedelta(seconds=backoff[k] + 1)
        downs.append((cr, rs, rs + timedelta(seconds=load_s + rng.randint(-6, 6))))
    restarts_done = [d[1] for d in downs if d[1] <= as_of]

    def b_up(ts: datetime) -> bool:
        return all(not (cr <= ts < rd) for cr, _, rd in downs)

    def b_up_frac(i: int) -> float:
        lo, hi = c.at(i) - timedelta(minutes=1), c.at(i)
        down = 0.0
        for cr, _, rd in downs:
            a, b = max(lo, cr), min(hi, rd)
            if b > a:
                down += (b - a).total_seconds()
        return 1 - down / 60

    # ---------------------------------------------------------------- traffic per minute
    inter, harness = 150.0, 178.0
    codes_pod = [{200: [0.0] * N, 500: [0.0] * N, 503: [0.0] * N} for _ in pods]
    running = [[0.0] * N for _ in pods]
    waiting = [[0.0] * N for _ in pods]
    for i in range(N):
        fb = b_up_frac(i)
        ia = inter * rng.uniform(0.9, 1.1)
        ha = harness * rng.uniform(0.93, 1.05)
        share = [1.0, fb, 1.0]
        tot = sum(share)
        for k in range(3):
            codes_pod[k][200][i] += ia * share[k] / tot
        codes_pod[1][200][i] += ha * fb
        codes_pod[0][200][i] += ha * (1 - fb)  # while B is out of the endpoints, the run's hash lands on A
        for k in range(3):
            load_k = codes_pod[k][200][i]
            running[k][i] = min(96.0, load_k * (19.0 if k == 1 else 9.0) / 60 * rng.uniform(0.95, 1.05))
            waiting[k][i] = rng.choice([0, 0, 0, 1, 2]) if running[k][i] < 90 else rng.randint(2, 9)
        running[1][i] = running[1][i] if b_up(c.at(i)) else 0.0
        waiting[1][i] = waiting[1][i] if b_up(c.at(i)) else 0.0
    for cr in crashes:
        i = c.idx(cr) + 1
        inflight = 64 + rng.randint(6, 11)
        codes_pod[1][500][i] += inflight
        codes_pod[1][200][i] = max(0.0, codes_pod[1][200][i] - inflight * 0.3)
        codes_pod[1][503][i] += 61 + rng.randint(
            4, 12
        )  # the harness' immediate retries and interactive calls before EDS drops B
    codes = {
        code: [round(sum(cp[code][i] for cp in codes_pod)) for i in range(N)] for code in (200, 500, 503)
    }

    om = OM(c)

    # ---------------------------------------------------------------- Contour's Envoy (PodMonitor)
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{env_ip}:8002",
        "job": "eval-contour/envoy",
        "namespace": "eval-contour",
        "pod": env_pod,
    }
    healthy = [2 + (1 if b_up(c.at(i)) else 0) for i in range(N)]
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes=codes,
        initial={200: 3_902_114, 500: 48, 503: 233},
        healthy=healthy,
        members=healthy,
        connect_fail=[round(codes_pod[1][503][i] * 0.9) for i in range(N)],
    )
    # another tenant's cluster on the same Envoy (healthy)
    ex.envoy_cluster(
        om,
        cluster="rl-lab/rm-scorer-api/8080/da39a3ee5e",
        proxy=proxy,
        codes={
            200: [round(88 * rng.uniform(0.85, 1.15)) for _ in range(N)],
            503: [1 if rng.random() < 0.04 else 0 for _ in range(N)],
        },
        initial={200: 812_077, 503: 61},
        healthy=[2] * N,
        members=[2] * N,
    )

    # ---------------------------------------------------------------- vLLM per pod
    for k, p in enumerate(pods):
        lab = ex.vllm_labels(
            pod=p["name"], ns=ns, model=model, ip=p["ip"], job=f"{ns}/{dep}", service=None, container="vllm"
        )
        pres = [True] * N if k != 1 else [b_up(c.at(i) - timedelta(seconds=5)) for i in range(N)]
        resets = [i for i in range(1, N) if pres[i] and not pres[i - 1]] if k == 1 else []
        ok = [codes_pod[k][200][i] for i in range(N)]
        base = [1_209_554, 1_177_040, 1_201_993][k]
        om.gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            lab,
            [round(running[k][i]) if pres[i] else None for i in range(N)],
            digits=4,
        )
        om.gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            lab,
            [round(waiting[k][i]) if pres[i] else None for i in range(N)],
            digits=4,
        )
        om.gauge(
            "vllm:kv_cache_usage_perc",
            "KV-cache usage. 1 means 100 percent usage.",
            lab,
            [
                round(min(0.97, running[k][i] * (0.0098 if k == 1 else 0.0031) + rng.uniform(0.0, 0.02)), 4)
                if pres[i]
                else None
                for i in range(N)
            ],
            digits=4,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "stop"},
            [x * 0.96 for x in ok],
            initial=round(base * 0.96),
            present=pres,
            resets=resets,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "length"},
            [x * 0.04 for x in ok],
            initial=round(base * 0.04),
            present=pres,
            resets=resets,
        )
        om.counter(
            "vllm:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            [x * (11_900 if k == 1 else 2_300) for x in ok],
            initial=base * 4_100,
            present=pres,
            resets=resets,
        )
        om.counter(
            "vllm:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            [x * (190 if k == 1 else 410) for x in ok],
            initial=base * 330,
            present=pres,
            resets=resets,
        )

    # ---------------------------------------------------------------- DCGM (4 GPUs per node; other tenants on h08 and h10)
    pci = ["00000000:1B:00.0", "00000000:3D:00.0", "00000000:5D:00.0", "00000000:9B:00.0"]
    exp_ip = {n: f"10.64.{10 + k}.{[5, 6, 4, 9][k]}" for k, n in enumerate(nodes)}
    tenants = {
        ("gpu-nvl-ord1-r22-h08", 0): ("rm-scorer-api-6c8f7d9b5-t4wq2", "rl-lab", "scorer"),
        ("gpu-nvl-ord1-r22-h08", 1): ("rm-scorer-api-6c8f7d9b5-j9xhm", "rl-lab", "scorer"),
        ("gpu-nvl-ord1-r22-h08", 2): ("ppo-rollout-worker-0", "rl-lab", "rollout"),
        ("gpu-nvl-ord1-r22-h07", 2): ("embed-e5-eval-5b9d8c7f6-pq2zn", ns, "tei"),
        ("gpu-nvl-ord1-r22-h10", 0): ("ppo-rollout-worker-1", "rl-lab", "rollout"),
        ("gpu-nvl-ord1-r22-h10", 1): ("ppo-rollout-worker-2", "rl-lab", "rollout"),
    }
    gpus: list[ex.Gpu] = []
    xid_at = {}
    for nd in nodes:
        for gi in range(4):
            mine = next((p for p in pods if p["node"] == nd and p["gpu"] == gi), None)
            ten = tenants.get((nd, gi))
            g = ex.Gpu(
                node=nd,
                index=gi,
                uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                pci=pci[gi],
                model="NVIDIA H100 NVL",
                memory_mib=95830,
                pod=mine["name"] if mine else (ten[0] if ten else None),
                namespace=ns if mine else (ten[1] if ten else None),
                container="vllm" if mine else (ten[2] if ten else None),
            )
            for i in range(N):
                ts = c.at(i)
                if mine is not None:
                    k = pods.index(mine)
                    if k == 1 and not b_up(ts):
                        restart = next(rs for cr, rs, rd in downs if cr <= ts < rd)
                        if ts < restart:
                            u, fb, pw = 0, 512, rng.uniform(72, 80)
                        else:
                            el = (ts - restart).total_seconds()
                            u, fb, pw = (
                                rng.uniform(0, 30),
                                min(86_400, 4_000 + 82_000 * el / 100),
                                rng.uniform(120, 220),
                            )
                    else:
                        busy = min(1.0, running[k][i] / 70)
                        u = min(99.0, 35 + 60 * busy + rng.uniform(-3, 3))
                        fb, pw = 86_912 + rng.randint(-50, 50), 140 + 240 * busy + rng.uniform(-12, 12)
                elif ten is not None:
                    u, fb, pw = rng.uniform(48, 92), rng.randint(38_000, 61_000), rng.uniform(210, 330)
                else:
                    u, fb, pw = 0, 0, rng.uniform(60, 68)
                g.util.append(round(u))
                g.fb_used.append(round(fb))
                g.power.append(round(pw, 2))
            if mine is pb:
                g.xid = [13.0 if c.at(i) >= crashes[0] else 0.0 for i in range(N)]
                g.xid_events = [(13, iso(cr)) for cr in crashes]
                xid_at[g.uuid] = crashes
            gpus.append(g)
    for g in gpus:
        lab = ex.dcgm_labels(g, driver, exp_ip[g.node])
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, g.util, digits=4)
    for g in gpus:
        lab = ex.dcgm_labels(g, driver, exp_ip[g.node])
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, g.fb_used, digits=8)
    for g in gpus:
        lab = ex.dcgm_labels(g, driver, exp_ip[g.node])
        om.gauge(
            "DCGM_FI_DEV_XID_ERRORS",
            "Value of the last XID error encountered.",
            lab,
            g.xid or [0.0] * N,
            digits=4,
        )
    for g in gpus:
        if g.node == badnode:
            lab = ex.dcgm_labels(g, driver, exp_ip[g.node])
            om.counter(
                "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
                "Total number of double-bit volatile ECC errors.",
                lab,
                [0] * N,
                suffix_total=False,
            )
            om.gauge(
                "DCGM_FI_DEV_RETIRED_PENDING", "Number of pages pending retirement.", lab, [0] * N, digits=2
            )

    # ---------------------------------------------------------------- kube-state-metrics
    def ksm(extra: dict[str, str]) -> dict[str, str]:
        return {"job": "kube-state-metrics", **extra}

    for k, p in enumerate(pods):
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        ready = [1 if (k != 1 or b_up(c.at(i))) else 0 for i in range(N)]
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ksm({**plab, "condition": "true"}),
            ready,
            digits=2,
        )
        inc = [0.0] * N
        if k == 1:
            for rs in restarts_done:
                inc[c.idx(rs) + 1] += 1
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ksm({**plab, "container": "vllm"}),
            inc,
            initial=0,
        )
        if k == 1:
            om.gauge(
                "kube_pod_container_status_last_terminated_reason",
                "Describes the last reason the container was in terminated state.",
                ksm({**plab, "container": "vllm", "reason": "Error"}),
                [1 if c.at(i) >= crashes[0] else None for i in range(N)],
                digits=2,
            )
            om.gauge(
                "kube_pod_container_status_last_terminated_exitcode",
                "Describes the exit code for the last container in terminated state.",
                ksm({**plab, "container": "vllm"}),
                [1 if c.at(i) >= crashes[0] else None for i in range(N)],
                digits=2,
            )
            wait = [1 if any(cr <= c.at(i) < rs for cr, rs, _ in downs[1:]) else 0 for i in range(N)]
            om.gauge(
                "kube_pod_container_status_waiting_reason",
                "Describes the reason the container is currently in waiting state.",
                ksm({**plab, "container": "vllm", "reason": "CrashLoopBackOff"}),
                wait,
                digits=2,
            )
    dl = ksm({"namespace": ns, "deployment": dep})
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dl, [3] * N, digits=2
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dl,
        [2 + (1 if b_up(c.at(i)) else 0) for i in range(N)],
        digits=2,
    )
    for nd in nodes:
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ksm({"node": nd, "condition": "Ready", "status": "true"}),
            [1] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- logs (Vector)
    logs = ShipperLogs("vector", "0.48.0", cl_name)

    def vl(p: dict, ts: datetime, msg: str, level: str = "info", **kw) -> None:
        logs.pod(
            ts,
            msg,
            ns=ns,
            pod=p["name"],
            pod_uid=p["uid"],
            node=p["node"],
            container="vllm",
            image=image,
            service=dep,
            level=level,
            **kw,
        )

    def vfmt(ts: datetime, lvl: str, src: str, msg: str, proc: str = "(APIServer pid=1)") -> str:
        return f"{proc} {lvl} {ts.strftime('%m-%d %H:%M:%S')} [{src}] {msg}"

    # steady lines on all replicas
    for k, p in enumerate(pods):
        for i in range(1, N):
            m0 = c.at(i - 1)
            if k == 1 and not b_up(m0):
                continue
            if i % 2 == k % 2:
                ts = within(rng, m0)
                ptp = codes_pod[k][200][i] * (11_900 if k == 1 else 2_300) / 60
                gtp = codes_pod[k][200][i] * (190 if k == 1 else 410) / 60
                vl(
                    p,
                    ts,
                    vfmt(
                        ts,
                        "INFO",
                        "loggers.py:127",
                        f"Engine 000: Avg prompt throughput: {ptp:.1f} tokens/s, Avg generation throughput: {gtp:.1f} tokens/s, Running: {round(running[k][i])} reqs, "
                        f"Waiting: {round(waiting[k][i])} reqs, GPU KV cache usage: {min(97.0, running[k][i] * (0.98 if k == 1 else 0.31)):.1f}%, Prefix cache hit rate: {rng.uniform(8, 19) if k == 1 else rng.uniform(31, 44):.1f}%",
                    ),
                )
            if i % 3 == k:
                ts = within(rng, m0)
                vl(
                    p,
                    ts,
                    f'(APIServer pid=1) INFO:     {env_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                    status=200,
                )

    req_bad = f"chatcmpl-{hexid(rng, 32)}"
    ep_pid = [219, 218, 219, 221, 218]
    host_pid = [3188214, 3190877, 3193402, 3195981, 3198120]

    for n_cr, (cr, rs, rd) in enumerate(downs):
        ep = f"(EngineCore_DP0 pid={ep_pid[n_cr]})"
        # the kernel sees the fault first
        for off, txt in (
            (0, "Graphics SM Warp Exception on (GPC 4, TPC 2, SM 1): Out Of Range Address"),
            (1, "Graphics SM Global Exception on (GPC 4, TPC 2, SM 1): Multiple Warp Errors"),
            (2, "Graphics Exception: ESR 0x5248b0=0x201000e 0x5248b4=0x24 0x5248a8=0x4c1eb72 0x5248ac=0x174"),
        ):
            logs.node(
                cr - timedelta(milliseconds=180 - off),
                f"NVRM: Xid (PCI:0000:9b:00): 13, pid={host_pid[n_cr]}, name=VLLM::EngineCor, {txt}",
                node=badnode,
                ident="kernel",
                level="error",
                error_type="Xid 13" if off == 0 else None,
            )
        ts = cr
        vl(
            pb,
            ts,
            vfmt(
                ts,
                "ERROR",
                "dump_input.py:69",
                f"Dumping input data for V1 LLM engine (v0.11.0) with config: model='/models/Qwen3-30B-A3B-Instruct-2507-FP8', speculative_config=None, tokenizer='/models/Qwen3-30B-A3B-Instruct-2507-FP8', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=65536, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, served_model_name={model}, enable_prefix_caching=True, chunked_prefill_enabled=True, ...",
                ep,
            ),
            "error",
        )
        batch = [req_bad] + [f"chatcmpl-{hexid(rng, 32)}" for _ in range(3)]
        vl(
            pb,
            ts + timedelta(milliseconds=2),
            vfmt(
                ts,
                "ERROR",
                "dump_input.py:76",
                f"Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[], scheduled_cached_reqs=CachedRequestData(req_ids=['{batch[0]}', '{batch[1]}', '{batch[2]}', '{batch[3]}'], resumed_from_preemption=[false, false, false, false], new_token_ids=[], "
                f"new_block_ids=[[[{', '.join(str(3584 + j) for j in range(6))}, ...]], null, null, null], num_computed_tokens=[57344, 61877, 60412, 58933]), num_scheduled_tokens={{{batch[0]}: 4087, {batch[1]}: 1, {batch[2]}: 1, {batch[3]}: 1}}, "
                "total_num_scheduled_tokens=4090, scheduled_spec_decode_tokens={}, scheduled_encoder_inputs={}, num_common_prefix_blocks=[0], finished_req_ids=[], free_encoder_mm_hashes=[], structured_output_request_ids={}, grammar_bitmask=null, kv_connector_metadata=null)",
                ep,
            ),
            "error",
        )
        vl(
            pb,
            ts + timedelta(milliseconds=3),
            vfmt(
                ts,
                "ERROR",
                "dump_input.py:79",
                f"Dumping scheduler stats: SchedulerStats(num_running_reqs={64 + n_cr % 3}, num_waiting_reqs={rng.randint(4, 9)}, step_counter=0, current_wave=0, kv_cache_usage=0.{rng.randint(82, 91)}, prefix_cache_stats=PrefixCacheStats(reset=False, requests=0, queries=0, hits=0), spec_decoding_stats=None, num_corrupted_reqs=0)",
                ep,
            ),
            "error",
        )
        tb = [
            "EngineCore encountered a fatal error.",
            "Traceback (most recent call last):",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core',
            "    engine_core.run_busy_loop()",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 728, in run_busy_loop',
            "    self._process_engine_step()",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 754, in _process_engine_step',
            "    outputs, model_executed = self.step_fn()",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 284, in step',
            "    model_output = self.execute_model_with_error_logging(",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 270, in execute_model_with_error_logging',
            "    raise err",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/abstract.py", line 103, in execute_model',
            '    output = self.collective_rpc("execute_model", args=(scheduler_output,))',
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/executor/uniproc_executor.py", line 83, in collective_rpc',
            "    return [run_method(self.driver_worker, method, args, kwargs)]",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 482, in execute_model',
            "    output = self.model_runner.execute_model(scheduler_output, intermediate_tensors)",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2375, in execute_model',
            "    ) = self._bookkeeping_sync(scheduler_output, sampler_output, logits, hidden_states, num_scheduled_tokens)",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2032, in _bookkeeping_sync',
            "    valid_sampled_token_ids = self._to_list(sampled_token_ids)",
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 3861, in _to_list',
            "    self.transfer_event.synchronize()",
            '  File "/usr/local/lib/python3.12/dist-packages/torch/cuda/streams.py", line 231, in synchronize',
            "    super().synchronize()",
            "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        ]
        for j, line in enumerate(tb):
            vl(
                pb,
                ts + timedelta(milliseconds=5 + j // 8),
                vfmt(ts, "ERROR", "core.py:710", line, ep),
                "error",
                **(
                    {
                        "error_type": "torch.AcceleratorError",
                        "error_message": "CUDA error: an illegal memory access was encountered",
                    }
                    if line.startswith("torch.AcceleratorError")
                    else {}
                ),
            )
        d = ts + timedelta(milliseconds=41)
        vl(pb, d, vfmt(d, "ERROR", "async_llm.py:480", "AsyncLLM output_handler failed."), "error")
        vl(
            pb,
            d + timedelta(milliseconds=1),
            vfmt(
                d,
                "ERROR",
                "async_llm.py:480",
                "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
            ),
            "error",
            error_type="vllm.v1.engine.exceptions.EngineDeadError",
            error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
        )
        for _ in range(4):
            vl(
                pb,
                d + timedelta(milliseconds=rng.randint(3, 60)),
                f'(APIServer pid=1) INFO:     {env_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
                "warn",
                status=500,
            )
        for off, line in (
            (310, "(APIServer pid=1) INFO:     Shutting down"),
            (540, "(APIServer pid=1) INFO:     Waiting for application shutdown."),
            (546, "(APIServer pid=1) INFO:     Application shutdown complete."),
            (551, "(APIServer pid=1) INFO:     Finished server process [1]"),
        ):
            vl(pb, d + timedelta(milliseconds=off), line)
        # kubelet restarts it after the back-off
        kt = cr + timedelta(seconds=2)
        logs.node(
            kt,
            f'E{kt.strftime("%m%d %H:%M:%S")}.{rng.randint(100000, 999999)}    2417 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"vllm\\" with CrashLoopBackOff: \\"back-off {backoff[n_cr]}s restarting failed container=vllm pod={pb["name"]}_{ns}({pb["uid"]})\\"" pod="{ns}/{pb["name"]}" podUID="{pb["uid"]}"',
            node=badnode,
            ident="kubelet",
            level="error",
            pid=2417,
        )
        if rs <= as_of:
            b = rs + timedelta(seconds=4)
            vl(
                pb,
                b,
                vfmt(
                    b,
                    "INFO",
                    "__init__.py:43",
                    "Available plugins for group vllm.general_plugins:",
                    "(APIServer pid=1)",
                ),
            )
            vl(
                pb,
                b,
                vfmt(
                    b,
                    "INFO",
                    "__init__.py:45",
                    "- evalkit_kernels -> evalkit_kernels.plugin:register",
                    "(APIServer pid=1)",
                ),
            )
            vl(
                pb,
                b + timedelta(milliseconds=2),
                vfmt(
                    b,
                    "INFO",
                    "__init__.py:48",
                    "All plugins in this group will be loaded. Set `VLLM_PLUGINS` to control which plugins to load.",
                    "(APIServer pid=1)",
                ),
            )
            vl(
                pb,
                b + timedelta(seconds=1),
                vfmt(
                    b + timedelta(seconds=1),
                    "INFO",
                    "plugin.py:61",
                    "evalkit_kernels 1.4.2: registered custom op evalkit::fused_topk_route for FusedMoE routing (sm_90, EVALKIT_MOE_ROUTING=fused_topk)",
                    "(APIServer pid=1)",
                ),
            )
            vl(
                pb,
                b + timedelta(seconds=2),
                vfmt(
                    b + timedelta(seconds=2), "INFO", "api_server.py:1839", "vLLM API server version 0.11.0"
                ),
            )
            if rd <= as_of:
                vl(
                    pb,
                    rd - timedelta(seconds=40),
                    vfmt(
                        rd - timedelta(seconds=40),
                        "INFO",
                        "gpu_model_runner.py:2602",
                        "Model loading took 29.0482 GiB and 21.337902 seconds",
                        f"(EngineCore_DP0 pid={ep_pid[(n_cr + 1) % 5]})",
                    ),
                )
                vl(
                    pb,
                    rd - timedelta(seconds=6),
                    vfmt(
                        rd - timedelta(seconds=6),
                        "INFO",
                        "gpu_model_runner.py:3480",
                        "Graph capturing finished in 17 secs, took 0.58 GiB",
                        f"(EngineCore_DP0 pid={ep_pid[(n_cr + 1) % 5]})",
                    ),
                )
                vl(pb, rd - timedelta(seconds=1), "(APIServer pid=1) INFO:     Application startup complete.")

    # Contour's Envoy access log (default format), sampled
    for i in range(1, N):
        m0 = c.at(i - 1)
        for _ in range(1):
            k = rng.choice([0, 1, 2] if b_up(m0) else [0, 2])
            envoy_text(
                logs,
                rng,
                end=within(rng, m0),
                code=200,
                flags="-",
                duration_ms=int(rng.uniform(3_000, 24_000)),
                upstream_host=f"{pods[k]['ip']}:8000",
                authority="llm.eval.internal",
                path="/v1/chat/completions",
                client=rng.choice(["10.64.30.12", "10.64.31.4"]),
                gw_pod=env_pod,
                gw_ns="eval-contour",
                gw_node="gpu-nvl-ord1-r22-h10",
                user_agent=rng.choice(
                    ["evalkit/2.14.0 openai-python/1.109.1", "JupyterHub-singleuser python-httpx/0.28.1"]
                ),
                bytes_sent=rng.randint(600, 3900),
                service="contour-envoy",
            )
    for cr in crashes:
        for _ in range(3):
            envoy_text(
                logs,
                rng,
                end=cr + timedelta(milliseconds=rng.randint(40, 90)),
                code=500,
                flags="-",
                duration_ms=int(rng.uniform(2_000, 19_000)),
                upstream_host=f"{pb['ip']}:8000",
                authority="llm.eval.internal",
                path="/v1/chat/completions",
                client="10.64.30.12",
                gw_pod=env_pod,
                gw_ns="eval-contour",
                gw_node="gpu-nvl-ord1-r22-h10",
                user_agent="evalkit/2.14.0 openai-python/1.109.1",
                bytes_sent=163,
                service="contour-envoy",
            )
        for _ in range(3):
            envoy_text(
                logs,
                rng,
                end=cr + timedelta(seconds=rng.uniform(1, 9)),
                code=503,
                flags="UF",
                duration_ms=rng.randint(0, 2),
                upstream_host=f"{pb['ip']}:8000",
                authority="llm.eval.internal",
                path="/v1/chat/completions",
                client="10.64.30.12",
                gw_pod=env_pod,
                gw_ns="eval-contour",
                gw_node="gpu-nvl-ord1-r22-h10",
                user_agent="evalkit/2.14.0 openai-python/1.109.1",
                bytes_sent=91,
                service="contour-envoy",
            )

    # the benchmark harness (the caller): items and their retries
    job_pod, job_uid = "ruler-64k-nightly-29351280-8hx2v", uid(rng)

    def hl(ts: datetime, level: str, msg: str) -> None:
        logs.pod(
            ts,
            f"{ts.strftime('%Y-%m-%d %H:%M:%S')},{ts.microsecond // 1000:03d} {level.upper()} {msg}",
            ns=ns,
            pod=job_pod,
            pod_uid=job_uid,
            node="gpu-nvl-ord1-r22-h10",
            container="harness",
            image="registry.eval.internal/ml/evalkit:2.14.0",
            service="ruler-64k-nightly",
            level={"WARNING": "warn"}.get(level.upper(), level.lower()),
            stream="stdout",
        )

    run = "ruler-64k-nightly-20261021"
    item = 1104
    for i in range(1, N):
        m0 = c.at(i - 1)
        if not b_up(m0):
            continue
        item += 3
        ts = within(rng, m0)
        hl(
            ts,
            "INFO",
            f"evalkit.runner: [{run}] item {item}/2600 done ({rng.choice(['niah_multikey_2', 'vt', 'fwe', 'qa_hotpot'])}, {rng.randint(58_000, 62_500):,} prompt tokens) {rng.uniform(14, 31):.1f}s",
        )
    for n_cr, cr in enumerate(crashes):
        ts = cr + timedelta(milliseconds=rng.randint(300, 700))
        hl(
            ts,
            "WARNING",
            f"evalkit.client: [{run}] item cwe_long/0031 (61,431 prompt tokens, n=1, max_tokens=256) failed: openai.InternalServerError: Error code: 500 - {{'error': {{'message': 'EngineCore encountered an issue. See stack trace (above) for the root cause.', 'type': 'InternalServerError', 'param': None, 'code': 500}}}}; retry {min(n_cr + 1, 3)}/3 in 540s",
        )
        hl(
            ts + timedelta(milliseconds=80),
            "WARNING",
            f"evalkit.client: [{run}] {64 + n_cr % 3} in-flight items failed with 500/503, requeued with backoff (X-Eval-Run: {run})",
        )
    hl(
        crashes[-1] + timedelta(seconds=1),
        "ERROR",
        f"evalkit.client: [{run}] item cwe_long/0031 exhausted 3 retries; marking as error and re-enqueueing once at end of run",
    )

    # other tenants on the same nodes
    for i in range(1, N):
        m0 = c.at(i - 1)
        if i % 3 == 0:
            ts = within(rng, m0)
            logs.pod(
                ts,
                f"{iso(ts, ms=True)} INFO rm_scorer.server: scored batch of {rng.randint(48, 64)} rollouts in {rng.uniform(0.41, 0.77):.2f}s (p50 reward {rng.uniform(0.12, 0.31):.3f})",
                ns="rl-lab",
                pod="rm-scorer-api-6c8f7d9b5-t4wq2",
                pod_uid="5c2a9e17-4d3b-4f8a-b6e0-7a1c9d2e8f34",
                node=badnode,
                container="scorer",
                image="registry.eval.internal/rl/rm-scorer:0.7.3",
                service="rm-scorer-api",
                stream="stdout",
            )
        if i % 4 == 1:
            ts = within(rng, m0)
            logs.pod(
                ts,
                f"[rollout] step {4400 + i} | episodes {rng.randint(500, 540)} | tokens/s {rng.randint(41000, 46000)} | kl {rng.uniform(0.011, 0.019):.4f}",
                ns="rl-lab",
                pod="ppo-rollout-worker-1",
                pod_uid="8e4b1f2c-7a9d-4c30-b5e6-2d1f0a9c7b83",
                node="gpu-nvl-ord1-r22-h10",
                container="rollout",
                image="registry.eval.internal/rl/ppo-rollout:0.7.3",
                service="ppo-rollout",
                stream="stdout",
            )
    logs.node(
        t("10:51:33"),
        "NVRM: Xid (PCI:0000:3d:00): 31, pid=2210934, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_3 faulted @ 0x7f2c_0c1e0000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
        node="gpu-nvl-ord1-r22-h10",
        ident="kernel",
        level="error",
    )
    logs.node(
        t("10:51:34"),
        f'E1021 10:51:34.{rng.randint(100000, 999999)}    2388 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"rollout\\" with CrashLoopBackOff: \\"back-off 10s restarting failed container=rollout pod=ppo-rollout-worker-2_rl-lab(0d7e3a5b-91c4-4f2e-8a6d-3b9c1e5f7a20)\\"" pod="rl-lab/ppo-rollout-worker-2" podUID="0d7e3a5b-91c4-4f2e-8a6d-3b9c1e5f7a20"',
        node="gpu-nvl-ord1-r22-h10",
        ident="kubelet",
        level="error",
        pid=2388,
    )

    # ---------------------------------------------------------------- objects
    objs: list[Obj] = []
    d_obj = w.deployment()
    d_obj["status"].update(
        {
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": 2,
            "availableReplicas": 2,
            "unavailableReplicas": 1,
        }
    )
    d_obj["status"]["conditions"] = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            crashes[-1],
            utc("2026-09-30T09:58:12Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{rev.hash}" has successfully progressed.',
            utc("2026-09-30T09:58:12Z"),
            utc("2026-07-14T10:00:00Z"),
        ),
    )
    objs += [d_obj, w.replicaset(rev), w.replicaset(rev_old)]
    for k, p in enumerate(pods):
        if k != 1:
            st = kube.cstatus(
                rng, name="vllm", image=image, ready=True, running_since=p["created"] + timedelta(seconds=5)
            )
            objs.append(
                kube.pod_obj(
                    w,
                    rev,
                    name=p["name"],
                    uid_=p["uid"],
                    node=p["node"],
                    created=p["created"],
                    pod_ip=p["ip"],
                    host_ip=nodes[p["node"]],
                    phase="Running",
                    ready=True,
                    container_statuses=[st],
                    ready_since=p["created"] + timedelta(minutes=2, seconds=44),
                )
            )
        else:
            last = kube.terminated(
                rng,
                reason="Error",
                exit_code=1,
                started=downs[3][1],
                finished=crashes[-1] + timedelta(seconds=1),
                message="torch.AcceleratorError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n",
            )
            st = kube.cstatus(
                rng,
                name="vllm",
                image=image,
                ready=False,
                restart_count=len(restarts_done),
                waiting=(
                    "CrashLoopBackOff",
                    f"back-off 2m40s restarting failed container=vllm pod={p['name']}_{ns}({p['uid']})",
                ),
                last_terminated=last,
            )
            st["started"] = False
            objs.append(
                kube.pod_obj(
                    w,
                    rev,
                    name=p["name"],
                    uid_=p["uid"],
                    node=p["node"],
                    created=p["created"],
                    pod_ip=p["ip"],
                    host_ip=nodes[p["node"]],
                    phase="Running",
                    ready=False,
                    container_statuses=[st],
                    ready_since=crashes[-1],
                    containers_ready_since=crashes[-1],
                )
            )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 8000, "protocol": "TCP", "targetPort": "http"}],
            "10.96.140.33",
            labels={**labels, "app.kubernetes.io/part-of": "eval-platform"},
            created=w.created,
            uid_=uid(rng),
        )
    )
    objs.append(
        {
            "apiVersion": "projectcontour.io/v1",
            "kind": "HTTPProxy",
            "metadata": {
                "name": proxy_name,
                "namespace": ns,
                "uid": uid(rng),
                "generation": 4,
                "creationTimestamp": "2026-07-14T10:05:00Z",
            },
            "spec": {
                "virtualhost": {"fqdn": "llm.eval.internal"},
                "routes": [
                    {
                        "conditions": [{"prefix": "/v1"}],
                        "services": [{"name": dep, "port": 8000}],
                        "timeoutPolicy": {"response": "600s", "idle": "900s"},
                        "loadBalancerPolicy": {
                            "strategy": "RequestHash",
                            "requestHashPolicies": [
                                {"headerHashOptions": {"headerName": "X-Eval-Run"}},
                                {"hashSourceIP": True},
                            ],
                        },
                    }
                ],
            },
            "status": {
                "currentStatus": "valid",
                "description": "Valid HTTPProxy",
                "loadBalancer": {"ingress": [{"ip": "10.70.0.40"}]},
                "conditions": [
                    {
                        "type": "Valid",
                        "status": "True",
                        "reason": "Valid",
                        "message": "Valid HTTPProxy",
                        "observedGeneration": 4,
                        "lastTransitionTime": "2026-09-30T09:42:10Z",
                    }
                ],
            },
        }
    )
    objs.append(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "ruler-64k-nightly-29351280",
                "namespace": ns,
                "uid": uid(rng),
                "creationTimestamp": "2026-10-21T08:00:00Z",
                "labels": {"batch.kubernetes.io/job-name": "ruler-64k-nightly-29351280"},
                "ownerReferences": [owner("CronJob", "ruler-64k-nightly", uid(rng), "batch/v1")],
            },
            "spec": {
                "backoffLimit": 0,
                "parallelism": 1,
                "completions": 1,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "harness",
                                "image": "registry.eval.internal/ml/evalkit:2.14.0",
                                "args": [
                                    "run",
                                    "--suite",
                                    "ruler-64k",
                                    "--endpoint",
                                    "http://llm.eval.internal/v1",
                                    "--concurrency",
                                    "64",
                                    "--header",
                                    "X-Eval-Run=$(RUN_ID)",
                                ],
                            }
                        ],
                    }
                },
            },
            "status": {"active": 1, "startTime": "2026-10-21T08:00:04Z", "ready": 1},
        }
    )
    objs.append(
        pod_plain(
            job_pod,
            ns,
            uid_=job_uid,
            labels={
                "batch.kubernetes.io/job-name": "ruler-64k-nightly-29351280",
                "job-name": "ruler-64k-nightly-29351280",
            },
            owner=owner("Job", "ruler-64k-nightly-29351280", objs[-1]["metadata"]["uid"], "batch/v1"),
            node="gpu-nvl-ord1-r22-h10",
            host_ip=nodes["gpu-nvl-ord1-r22-h10"],
            pod_ip="10.64.13.58",
            created=utc("2026-10-21T08:00:04Z"),
            containers=[
                {
                    "name": "harness",
                    "image": "registry.eval.internal/ml/evalkit:2.14.0",
                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}},
                }
            ],
            statuses=[
                kube.cstatus(
                    rng,
                    name="harness",
                    image="registry.eval.internal/ml/evalkit:2.14.0",
                    ready=True,
                    running_since=utc("2026-10-21T08:00:09Z"),
                )
            ],
            ready=True,
            ready_since=utc("2026-10-21T08:00:10Z"),
            extra_spec={"restartPolicy": "Never"},
        )
    )
    # other tenants' pods on the same GPU nodes
    for (nd, _gi), (pn, pns, ctr) in tenants.items():
        puid = {
            "rm-scorer-api-6c8f7d9b5-t4wq2": "5c2a9e17-4d3b-4f8a-b6e0-7a1c9d2e8f34",
            "ppo-rollout-worker-1": "8e4b1f2c-7a9d-4c30-b5e6-2d1f0a9c7b83",
            "ppo-rollout-worker-2": "0d7e3a5b-91c4-4f2e-8a6d-3b9c1e5f7a20",
        }.get(pn, uid(rng))
        is_sts = pn.startswith("ppo-rollout-worker")
        own = (
            owner("StatefulSet", "ppo-rollout-worker", uid(rng))
            if is_sts
            else owner("ReplicaSet", pn.rsplit("-", 1)[0], uid(rng))
        )
        img = {
            "scorer": "registry.eval.internal/rl/rm-scorer:0.7.3",
            "rollout": "registry.eval.internal/rl/ppo-rollout:0.7.3",
            "tei": "ghcr.io/huggingface/text-embeddings-inference:hopper-1.8",
        }[ctr]
        restarts = 1 if pn == "ppo-rollout-worker-2" else 0
        st = kube.cstatus(
            rng,
            name=ctr,
            image=img,
            ready=True,
            restart_count=restarts,
            running_since=t("10:51:46") if restarts else utc("2026-10-19T22:10:00Z"),
            last_terminated=kube.terminated(
                rng, reason="Error", exit_code=1, started=utc("2026-10-19T22:10:00Z"), finished=t("10:51:33")
            )
            if restarts
            else None,
        )
        objs.append(
            pod_plain(
                pn,
                pns,
                uid_=puid,
                labels={"app": pn.rsplit("-", 2)[0] if not is_sts else "ppo-rollout-worker"},
                owner=own,
                node=nd,
                host_ip=nodes[nd],
                pod_ip=f"10.64.{10 + list(nodes).index(nd)}.{rng.randint(100, 220)}",
                created=utc("2026-10-19T22:09:40Z"),
                containers=[
                    {
                        "name": ctr,
                        "image": img,
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "8", "memory": "64Gi"},
                        },
                    }
                ],
                statuses=[st],
                ready=True,
                ready_since=t("10:52:20") if restarts else utc("2026-10-19T22:11:30Z"),
            )
        )
    objs.extend(node_objs)

    # events
    def ev(**kw) -> None:
        objs.append(event_obj(rng, **kw))

    ev(
        ns=ns,
        kind="Pod",
        name=pb["name"],
        obj_uid=pb["uid"],
        reason="BackOff",
        message=f"Back-off restarting failed container vllm in pod {pb['name']}_{ns}({pb['uid']})",
        first=crashes[1] + timedelta(seconds=2),
        last=as_of - timedelta(seconds=9),
        count=9,
        etype="Warning",
        host=badnode,
        field_path="spec.containers{vllm}",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=pb["name"],
        obj_uid=pb["uid"],
        reason="Unhealthy",
        message=f'Readiness probe failed: Get "http://{pb["ip"]}:8000/health": dial tcp {pb["ip"]}:8000: connect: connection refused',
        first=crashes[0] + timedelta(seconds=3),
        last=crashes[-1] + timedelta(seconds=4),
        count=71,
        etype="Warning",
        host=badnode,
        field_path="spec.containers{vllm}",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=pb["name"],
        obj_uid=pb["uid"],
        reason="Pulled",
        message=f'Container image "{image}" already present on machine',
        first=downs[0][1],
        last=downs[3][1],
        count=4,
        host=badnode,
        field_path="spec.containers{vllm}",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=pb["name"],
        obj_uid=pb["uid"],
        reason="Created",
        message="Created container: vllm",
        first=downs[0][1],
        last=downs[3][1],
        count=4,
        host=badnode,
        field_path="spec.containers{vllm}",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=pb["name"],
        obj_uid=pb["uid"],
        reason="Started",
        message="Started container vllm",
        first=downs[0][1] + timedelta(seconds=1),
        last=downs[3][1] + timedelta(seconds=1),
        count=4,
        host=badnode,
        field_path="spec.containers{vllm}",
    )
    ev(
        ns="rl-lab",
        kind="Pod",
        name="ppo-rollout-worker-2",
        obj_uid="0d7e3a5b-91c4-4f2e-8a6d-3b9c1e5f7a20",
        reason="BackOff",
        message="Back-off restarting failed container rollout in pod ppo-rollout-worker-2_rl-lab(0d7e3a5b-91c4-4f2e-8a6d-3b9c1e5f7a20)",
        first=t("10:51:34"),
        count=1,
        etype="Warning",
        host="gpu-nvl-ord1-r22-h10",
        field_path="spec.containers{rollout}",
    )
    ev(
        ns="rl-lab",
        kind="Pod",
        name="rm-scorer-api-6c8f7d9b5-j9xhm",
        obj_uid=uid(rng),
        reason="Unhealthy",
        message='Readiness probe failed: Get "http://10.64.11.166:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        first=utc("2026-10-19T23:02:11Z"),
        last=t("11:17:45"),
        count=214,
        etype="Warning",
        host=badnode,
        field_path="spec.containers{scorer}",
    )
    ev(
        ns=ns,
        kind="Job",
        name="ruler-64k-nightly-29351280",
        obj_uid=objs[[o["kind"] for o in objs].index("Job")]["metadata"]["uid"],
        reason="SuccessfulCreate",
        message=f"Created pod: {job_pod}",
        first=utc("2026-10-21T08:00:04Z"),
        component="job-controller",
        api_version="batch/v1",
    )

    # gpus.json (NVML at as_of)
    gj: dict[str, list] = {}
    for g in gpus:
        ev_ = [{"xid": x, "at": a} for x, a in g.xid_events]
        if g.node == "gpu-nvl-ord1-r22-h10" and g.index == 1:
            ev_ = [{"xid": 31, "at": iso(t("10:51:33"))}]
        gj.setdefault(g.node, []).append(
            {
                "index": g.index,
                "uuid": g.uuid,
                "name": g.model,
                "memory_total_mib": g.memory_mib,
                "memory_used_mib": int(g.fb_used[-1]),
                "utilization_gpu": int(g.util[-1]),
                "temperature_c": 34 + int(g.util[-1] * 0.33),
                "power_w": round(g.power[-1], 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": ev_,
            }
        )

    # ---------------------------------------------------------------- alert: an SLO rule with slo/namespace/severity only
    sel = f'envoy_cluster_name=~"{ns}/{dep}/.*"'
    expr = (
        f'1 - (\n  sum(rate(envoy_cluster_upstream_rq{{{sel},envoy_response_code!~"5.."}}[30m]))\n  /\n'
        f"  sum(rate(envoy_cluster_upstream_rq{{{sel}}}[30m]))\n) > (1 - 0.99)"
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=5, eval_offset_s=37)
    finally:
        prom.close()
    alabels = {
        "alertname": "SLOAvailabilityBelowObjective",
        "slo": "eval-inference-availability",
        "namespace": ns,
        "severity": "page",
    }
    ann = {
        "summary": "SLO eval-inference-availability: availability over 30m is below the 99% objective",
        "description": f"Error ratio over the last 30 minutes is {value * 100:.2f}% (objective 99%).",
        "value": f"{value:.4f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(100, 900)),
        expr=expr,
        prometheus_url="http://prometheus.monitoring.svc:9090",
        external_url="http://alertmanager.monitoring.svc:9093",
        group_by=["alertname", "slo"],
        receiver="eval-infra-pager",
        route_matchers='{}/{severity="page"}',
    )
    expected = {
        "category": "infrastructure",
        "code": "INF_CUDA_ERROR",
        "acceptable_first_actions": [{"kind": "restart_pod", "target": f"pod/{pb['name']}"}],
        "forbidden_actions": [
            {"kind": "cordon_node", "target": f"node/{badnode}"},
            *({"kind": "cordon_node", "target": f"node/{n}"} for n in nodes if n != badnode),
            {"kind": "restart_pod", "target": f"pod/{pa['name']}"},
            {"kind": "restart_pod", "target": f"pod/{pc['name']}"},
            {"kind": "rollback_deployment", "target": f"deployment/{dep}"},
            {"kind": "restart_pod", "target": "pod/ppo-rollout-worker-2"},
            {"kind": "restart_pod", "target": "pod/rm-scorer-api-6c8f7d9b5-t4wq2"},
        ],
        "scope": [
            f"deployment/{dep}",
            *(f"pod/{p['name']}" for p in pods),
            *(f"node/{p['node']}" for p in pods),
            f"httpproxy/{proxy_name}",
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Eval inference SLO page during the nightly long-context benchmark run.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
