"""GPU saturation under organic growth times requests out (504); a 3-day-old FailedScheduling is a decoy.

Morning traffic to the catalog-enrichment API grows steadily (no deploy, no new client). From about
09:07 both vLLM replicas on L4 GPUs run at `--max-num-seqs 24` with GPU utilisation at 97-99 %,
KV cache ~0.7 and no preemptions. Their waiting queues grow, and from 09:18 requests that
wait past the route's 60 s timeout get 504 (UT) from Envoy Gateway. vLLM logs no error, only
stats lines with a growing `Waiting:` count. The Pyrra
burn-rate page names only the Envoy cluster. Two decoys sit in plain sight. In the same
namespace an offline-eval pod that asks for 4 GPUs has been Pending for three days, with a
`FailedScheduling` event counted in the thousands and `lastTimestamp` inside the window. On
another team's A100 node a trainer keeps one GPU at 95 %.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, threshold_alert
from ..engines import src_of, vllm_access, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs, envoy_gateway_access
from ..pack import Pack
from ..series import Dist, Series, diurnal, flat, iso, noisy, ramp
from ..traffic import GpuDevice, GpuSeries, gpu_idle, node_timeline

NAME = "gpu-overload-stale-failedscheduling"
ENGINE = "vLLM 0.10.2 (V1 metric names) on GKE L4 behind Envoy Gateway; Pyrra burn-rate alert"
CAP_RPM = 130.0  # what one replica finishes per minute at --max-num-seqs 24
PYRRA_WINDOWS = {"5m": 5, "30m": 30, "1h": 60, "2h": 120, "6h": 360, "1d": 1440, "4d": 5760}
SLO = "catalog-enrich-availability"
TARGET = 0.999


class _Pack(Pack):
    """A Pack whose expected.yaml also lists the decoy actions and the incident's scope."""

    forbidden: list[tuple[str, str]]
    scope: list[str]

    def write(self, root: Path) -> Path:
        out = super().write(root)
        path = out / "expected.yaml"
        exp: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
        exp["forbidden_actions"] = [{"kind": k, "target": t} for k, t in self.forbidden]
        exp["scope"] = list(self.scope)
        path.write_text(yaml.safe_dump(exp, sort_keys=False), encoding="utf-8")
        return out


def _gke_node(
    p: Pack, pool: str, suffix: str, ip: str, *, itype: str, product: str | None, count: int, **kw: Any
) -> tuple[k8s.Node, list[GpuDevice]]:
    common: dict[str, Any] = {
        "zone": "europe-west4-b",
        "kernel": "6.6.72+",
        "os_image": "Container-Optimized OS from Google",
        "kubelet_version": "v1.32.4-gke.1415000",
        "runtime": "containerd://1.7.27",
    }
    name = f"gke-shopcat-prod-{pool}-{suffix}"
    if product is None:
        return k8s.Node(
            name=name, internal_ip=ip, instance_type=itype, uid=k8s.new_uid(p.rng), **common, **kw
        ), []
    return p.gpu_node(
        name, ip=ip, instance_type=itype, product=product, count=count, driver="570.124.06", **common, **kw
    )


def _l4(g: GpuSeries, rng: Any, c: Any) -> None:
    """L4 readings: 72 W board, ~23 GB framebuffer."""
    g.power = (g.util * 0.56 + 16 + noisy(flat(c, 0.0), rng, 0, 0.9)).map(lambda v: round(min(72.0, v), 3))
    g.temp = (g.util * 0.3 + 34 + noisy(flat(c, 0.0), rng, 0, 0.6)).map(lambda v: float(round(v)))


def build() -> Pack:
    p = _Pack(
        NAME,
        as_of="2026-09-22T09:48:00Z",
        namespace="catalog-ai",
        seed=1414,
        description="Catalog enrichment calls time out for a growing share of requests this morning.",
    )
    c, rng = p.clock, p.rng
    ns, tns = "catalog-ai", "recsys-ranking"

    # --- nodes ----------------------------------------------------------------------------------------------
    l4: dict[str, tuple[k8s.Node, list[GpuDevice]]] = {}
    for suffix, ip in (("q8zt", "10.164.0.21"), ("w4nd", "10.164.0.22")):
        node, devs = _gke_node(
            p,
            "g2-l4-pool-2f7c9e41",
            suffix,
            ip,
            itype="g2-standard-48",
            product="NVIDIA L4",
            count=4,
            pod_cidr=f"10.168.{len(l4) * 4}.0/22",
            cpu=48,
            memory_mi=196_608,
            labels={
                "cloud.google.com/gke-accelerator": "nvidia-l4",
                "cloud.google.com/gke-nodepool": "g2-l4-pool",
            },
            taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
        )
        l4[node.name] = (node, devs)
    n_a, n_b = list(l4)
    a100, a100_devs = _gke_node(
        p,
        "a2-pool-7b30d5aa",
        "c2rf",
        "10.164.0.40",
        itype="a2-highgpu-2g",
        product="NVIDIA A100-SXM4-40GB",
        count=2,
        pod_cidr="10.168.16.0/22",
        cpu=24,
        memory_mi=174_080,
        labels={
            "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
            "cloud.google.com/gke-nodepool": "a2-pool",
        },
        taints=[
            {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
            {"key": "dedicated", "value": "recsys-ranking", "effect": "NoSchedule"},
        ],
    )
    cpu_nodes = [
        _gke_node(
            p,
            "default-pool-0c4d1e2f",
            suffix,
            ip,
            itype="e2-standard-16",
            product=None,
            count=0,
            pod_cidr=cidr,
            cpu=16,
            memory_mi=65_536,
            labels={"cloud.google.com/gke-nodepool": "default-pool"},
        )[0]
        for suffix, ip, cidr in (
            ("9mzv", "10.164.0.5", "10.168.20.0/22"),
            ("k3tb", "10.164.0.6", "10.168.24.0/22"),
        )
    ]
    gpu_tol = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    l4_sel = {"cloud.google.com/gke-accelerator": "nvidia-l4"}

    # --- the catalog-enrichment model servers (the incident) ------------------------------------------------
    args = [
        "--model",
        "/models/mistralai/Ministral-8B-Instruct-2410",
        "--served-model-name",
        "ministral-8b-catalog",
        "--tokenizer-mode",
        "mistral",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.92",
        "--max-num-seqs",
        "24",
        "--enable-prefix-caching",
    ]
    env = [{"name": "HF_HUB_OFFLINE", "value": "1"}]
    rev5 = p.revision(5, p.ago(days=27), "vllm/vllm-openai:v0.10.1.1", args, env=env)
    rev6 = p.revision(
        6,
        p.ago(days=9, hours=4, minutes=18),
        "vllm/vllm-openai:v0.10.2",
        args,
        env=env,
        replicas=2,
        change_cause="vllm v0.10.2 (CAT-1187)",
    )
    w = k8s.Workload(
        name="vllm-ministral-catalog",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "vllm-ministral-catalog",
            "app.kubernetes.io/component": "inference",
        },
        revisions=[rev5, rev6],
        pods=[],
        created=p.ago(days=95),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "timeoutSeconds": 5},
        liveness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 30, "failureThreshold": 5},
        uid=k8s.new_uid(rng),
        cpu="10",
        memory="48Gi",
        memory_limit="64Gi",
        node_selector=dict(l4_sel),
        tolerations=[dict(t) for t in gpu_tol],
        volumes=[
            {"name": "models", "csi": {"driver": "gcsfuse.csi.storage.gke.io", "readOnly": True}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        pod_annotations={"gke-gcsfuse/volumes": "true"},
        cluster_ip="34.118.231.60",
    )
    fleet = Fleet(p, w, job="catalog-ai/vllm-ministral-catalog", model="ministral-8b-catalog", service="")
    placement = ((n_a, 0, "10.168.0.14"), (n_b, 1, "10.168.4.11"))
    for j, (nn, gi, ip) in enumerate(placement):
        node, devs = l4[nn]
        fleet.add(
            rev6,
            node,
            [devs[gi]],
            ip,
            created=rev6.created + timedelta(minutes=4 * j, seconds=rng.randint(0, 50)),
            rpm=100,
            prompt_len=720,
            gen_len=210,
            ttft=0.31,
            itl=0.041,
            kv=0.5,
            util=85,
            fb_used=21_180,
        )

    # organic growth: more shoppers every minute, no step anywhere
    offered_total = noisy(ramp(c, c.start, p.as_of, 200.0, 372.0) * diurnal(c, rng, 0.025), rng, 0.02)
    gw504 = flat(c, 0.0)
    first_504: int | None = None
    sat_from: int | None = None
    for m in fleet.members:
        r = m.rep
        share = noisy(offered_total * 0.5, rng, 0.03)
        cap = CAP_RPM + rng.uniform(-3, 3)
        limit = cap * 48 / 60  # requests that can wait before the 60 s route timeout hits them
        backlog, served, waiting, t504, load = 0.0, Series(), Series(), Series(), Series()
        for i in range(c.n):
            work = backlog + share[i]
            done = min(work, cap * (1 + rng.uniform(-0.015, 0.015)))
            backlog = work - done
            dropped = max(0.0, backlog - limit)
            backlog -= dropped
            served.append(done)
            t504.append(dropped)
            waiting.append(float(round(backlog + (rng.uniform(0, 2) if backlog > 3 else 0))))
            load.append(min(1.0, share[i] / cap) if backlog < 1 else 1.0)
            if backlog > 1 and sat_from is None:
                sat_from = i
            if dropped > 0 and (first_504 is None or i < first_504):
                first_504 = i
        r.codes[200] = served.ints()
        t504 = t504.ints()
        gw504 = gw504 + t504
        r.waiting = waiting
        r.running = Series(float(min(24, round(24 * load[i] + rng.uniform(-1.5, 0.5)))) for i in range(c.n))
        r.kv = Series(min(0.78, 0.34 + 0.36 * load[i] + rng.uniform(-0.02, 0.02)) for i in range(c.n))
        wait_s = Series(waiting[i] / (cap / 60.0) for i in range(c.n))
        r.ttft = Dist(noisy(flat(c, 0.31) + wait_s, rng, 0.05), 0.55)
        r.itl = Dist(noisy(flat(c, 0.034) + load * 0.011, rng, 0.03), 0.2)
        r.derive_e2e()
        r.prefix_hit = 0.41
        m.notes["504"] = t504
        for g in m.gpus:
            g.util = Series(
                float(min(99, round(45 + 53.5 * load[i] + rng.uniform(-1.2, 1.2)))) for i in range(c.n)
            )
            _l4(g, rng, c)
            g.fb_used = noisy(flat(c, 21_180.0), rng, 0.0006).map(round)
    assert first_504 is not None and sat_from is not None

    # --- other catalog-ai workloads: an embedding server, an image captioner, the stuck offline eval --------
    tei_rev = p.revision(
        4,
        p.ago(days=21),
        "ghcr.io/huggingface/text-embeddings-inference:89-1.7.2",
        ["--model-id", "/models/intfloat/multilingual-e5-large", "--port", "8080"],
        replicas=1,
    )
    tei_w = k8s.Workload(
        name="tei-catalog-e5",
        namespace=ns,
        container="tei",
        port=8080,
        labels={"app.kubernetes.io/name": "tei-catalog-e5"},
        revisions=[tei_rev],
        pods=[],
        created=p.ago(days=140),
        replicas=1,
        readiness={"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        cpu="4",
        memory="16Gi",
        memory_limit="20Gi",
        node_selector=dict(l4_sel),
        tolerations=[dict(t) for t in gpu_tol],
        cluster_ip="34.118.231.71",
    )
    tei_fleet = Fleet(p, tei_w, job="catalog-ai/tei-catalog-e5", model="e5", service="")
    tei = tei_fleet.add(tei_rev, l4[n_a][0], [l4[n_a][1][2]], "10.168.0.57", rpm=900, util=38, fb_used=3_920)
    cap_rev = p.revision(
        2,
        p.ago(days=16),
        "vllm/vllm-openai:v0.10.2",
        [
            "--model",
            "/models/Qwen/Qwen2.5-VL-3B-Instruct",
            "--served-model-name",
            "catalog-captioner",
            "--max-model-len",
            "8192",
        ],
        replicas=1,
    )
    cap_w = k8s.Workload(
        name="catalog-captioner",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "catalog-captioner"},
        revisions=[cap_rev],
        pods=[],
        created=p.ago(days=52),
        replicas=1,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        cpu="6",
        memory="32Gi",
        memory_limit="40Gi",
        node_selector=dict(l4_sel),
        tolerations=[dict(t) for t in gpu_tol],
        cluster_ip="34.118.231.88",
    )
    cap_fleet = Fleet(p, cap_w, job="catalog-ai/catalog-captioner", model="catalog-captioner", service="")
    captioner = cap_fleet.add(
        cap_rev, l4[n_b][0], [l4[n_b][1][3]], "10.168.4.19", rpm=40, util=52, fb_used=19_300
    )

    eval_rev = p.revision(
        3,
        p.ago(days=3, hours=2, minutes=7),
        "europe-west4-docker.pkg.dev/shopcat-ml/eval/catalog-judge-eval:2025.09.19",
        ["--suite", "catalog-attr-v4", "--judge", "/models/Qwen2.5-32B-Instruct", "--tp", "4"],
        replicas=1,
        change_cause="weekly attribute-extraction eval (CAT-1203)",
    )
    eval_w = k8s.Workload(
        name="catalog-offline-eval",
        namespace=ns,
        container="eval",
        port=8080,
        labels={"app.kubernetes.io/name": "catalog-offline-eval", "app.kubernetes.io/component": "batch"},
        revisions=[eval_rev],
        pods=[],
        created=p.ago(days=45),
        replicas=1,
        gpus=4,
        cpu="24",
        memory="96Gi",
        memory_limit="120Gi",
        node_selector=dict(l4_sel),
        tolerations=[dict(t) for t in gpu_tol],
        uid=k8s.new_uid(rng),
        cluster_ip="34.118.231.93",
        progressing=("False", "ProgressDeadlineExceeded", p.ago(days=3, hours=1, minutes=52)),
    )
    eval_fleet = Fleet(p, eval_w, job="catalog-ai/catalog-offline-eval", model="", service="")
    stuck = eval_fleet.add(
        eval_rev,
        l4[n_b][0],
        [],
        "",
        created=eval_rev.created + timedelta(seconds=1),
        ready_after=timedelta(days=9),
    )
    stuck.rep.exists = [False] * c.n
    stuck.rep.down([True] * c.n)
    stuck.timeline.node = stuck.timeline.ip = stuck.timeline.host_ip = None
    stuck.timeline.phase = ["Pending"] * c.n
    sched_msg = (
        "0/5 nodes are available: 1 node(s) had untolerated taint {dedicated: recsys-ranking}, 2 Insufficient "
        "nvidia.com/gpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: "
        "2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    )
    assert stuck.info is not None
    stuck.info.node = stuck.info.ip = stuck.info.host_ip = None
    stuck.info.ready = False
    stuck.info.phase = "Pending"
    stuck.info.unschedulable_message = sched_msg

    # --- another tenant's A100 node: a trainer at 95 %, a feature server ------------------------------------
    rtol = [
        *gpu_tol,
        {"key": "dedicated", "operator": "Equal", "value": "recsys-ranking", "effect": "NoSchedule"},
    ]
    tr_rev = p.revision(
        17,
        p.ago(hours=7, minutes=12),
        "europe-west4-docker.pkg.dev/shopcat-ml/recsys/ltr-trainer:1.31.0",
        ["train", "--config", "/etc/ltr/listwise-v9.yaml", "--resume"],
        replicas=1,
    )
    tr_w = k8s.Workload(
        name="recsys-ltr-trainer",
        namespace=tns,
        container="trainer",
        port=6006,
        labels={"app": "recsys-ltr-trainer", "team": "recsys"},
        revisions=[tr_rev],
        pods=[],
        created=p.ago(days=30),
        replicas=1,
        cpu="10",
        memory="80Gi",
        memory_limit="96Gi",
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
        tolerations=[dict(t) for t in rtol],
        uid=k8s.new_uid(rng),
        service_account="recsys-train",
        cluster_ip="34.118.232.14",
    )
    tr_fleet = Fleet(p, tr_w, job="recsys-ranking/recsys-ltr-trainer", model="", service="")
    trainer = tr_fleet.add(
        tr_rev, a100, [a100_devs[0]], "10.168.16.9", created=tr_rev.created, rpm=1, util=95, fb_used=37_880
    )
    fs_rev = p.revision(
        8,
        p.ago(days=6),
        "nvcr.io/nvidia/tritonserver:25.04-py3",
        ["tritonserver", "--model-repository=/models"],
        replicas=1,
    )
    fs_w = k8s.Workload(
        name="recsys-ranker-serving",
        namespace=tns,
        container="triton",
        port=8000,
        labels={"app": "recsys-ranker-serving", "team": "recsys"},
        revisions=[fs_rev],
        pods=[],
        created=p.ago(days=120),
        replicas=1,
        cpu="8",
        memory="32Gi",
        memory_limit="40Gi",
        readiness={"httpGet": {"path": "/v2/health/ready", "port": 8000}, "periodSeconds": 10},
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
        tolerations=[dict(t) for t in rtol],
        uid=k8s.new_uid(rng),
        service_account="recsys-train",
        cluster_ip="34.118.232.30",
    )
    fs_fleet = Fleet(p, fs_w, job="recsys-ranking/recsys-ranker-serving", model="", service="")
    ranker = fs_fleet.add(fs_rev, a100, [a100_devs[1]], "10.168.16.23", rpm=3000, util=33, fb_used=9_410)
    for g in trainer.gpus:
        g.util = noisy(flat(c, 95.0), rng, 0.012).clip(0, 100).map(lambda v: float(round(v)))
        g.power = (g.util * 3.4 + 58 + noisy(flat(c, 0.0), rng, 0, 7.0)).map(lambda v: round(v, 3))
        g.temp = (g.util * 0.33 + 36 + noisy(flat(c, 0.0), rng, 0, 0.7)).map(lambda v: float(round(v)))
    for g in ranker.gpus:
        g.power = (g.util * 3.4 + 58 + noisy(flat(c, 0.0), rng, 0, 5.0)).map(lambda v: round(v, 3))
    for g in tei.gpus + captioner.gpus:
        _l4(g, rng, c)

    # --- metrics --------------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(
        p.om, fleet.gpu_series() + tei.gpus + captioner.gpus + trainer.gpus + ranker.gpus, driver="570.124.06"
    )
    ex.ksm_pods(p.om, [*fleet.timelines(), trainer.timeline])
    ex.ksm_pods(p.om, [stuck.timeline], phase=True)
    nts = [node_timeline(c, n, gpus=4, internal_ip=nd.internal_ip) for n, (nd, _) in l4.items()]
    nts.append(node_timeline(c, a100.name, gpus=2, internal_ip=a100.internal_ip))
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(p.om, namespace=ns, name=w.name, spec=flat(c, 2), available=flat(c, 2))
    ex.ksm_deployment(p.om, namespace=ns, name=eval_w.name, spec=flat(c, 1), available=flat(c, 0))
    cluster = f"httproute/{ns}/catalog-enrich/rule/0"
    codes = fleet.codes()
    codes[504] = gw504
    gw_pod = "envoy-envoy-gateway-system-shopcat-gw-3e9b7c21-6f8d5b9c7-p2x8m"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="envoy-gateway-system", gateway_pod=gw_pod)

    # Pyrra's recording rules (ratio indicator on the Envoy cluster) and its multi-burn-rate page
    total = Series([0.0] * c.n)
    for s in codes.values():
        total = total + s.ints()
    bad = gw504.ints()
    base_total = sum(total[:10]) / 10
    base_bad = base_total * 0.00025  # a few 5xx a day before this morning
    sel = f'envoy_cluster_name="{cluster}",slo="{SLO}"'
    rec_labels = {"envoy_cluster_name": cluster, "slo": SLO, "team": "catalog-ml"}
    burn: dict[str, Series] = {}
    for window, minutes in PYRRA_WINDOWS.items():
        burn[window] = ex.windowed_ratio(bad, total, minutes - 1, base_bad, base_total).map(
            lambda v: round(v, 8)
        )
        p.om.gauge(
            f"envoy_cluster_upstream_rq:burnrate{window}",
            f"Pyrra recording rule {SLO} (burnrate{window}).",
            rec_labels,
            burn[window],
            digits=8,
        )
    for code in sorted(codes):
        inc = codes[code].ints()
        p.om.gauge(
            "envoy_cluster_upstream_rq:increase4w",
            f"Pyrra recording rule {SLO}-increase.",
            {**rec_labels, "envoy_response_code": str(code)},
            Series(
                float(
                    round(base_total * 40320 * (1 - 0.00025 if code < 300 else 0.00025) + sum(inc[: i + 1]))
                )
                for i in range(c.n)
            ),
        )
    p.om.gauge("pyrra_objective", "Pyrra SLO objective.", {"slo": SLO, "team": "catalog-ml"}, flat(c, TARGET))
    p.om.gauge(
        "pyrra_window", "Pyrra SLO window in seconds.", {"slo": SLO, "team": "catalog-ml"}, flat(c, 2419200)
    )
    factor = 14
    thr = factor * (1 - TARGET)
    expr = (
        f"envoy_cluster_upstream_rq:burnrate5m{{{sel}}} > ({factor} * (1-{TARGET})) and "
        f"envoy_cluster_upstream_rq:burnrate1h{{{sel}}} > ({factor} * (1-{TARGET}))"
    )
    pyrra_url = (
        "https://pyrra.shopcat.example.com/objectives?expr="
        + quote(f'{{__name__="{SLO}"}}', safe="")
        + "&from=now-1h&to=now"
    )
    threshold_alert(
        p,
        expr=expr,
        condition=[burn["5m"][i] > thr and burn["1h"][i] > thr for i in range(c.n)],
        value=burn["5m"],
        for_minutes=2,
        labels={
            "alertname": "ErrorBudgetBurn",
            "envoy_cluster_name": cluster,
            "exhaustion": "2d",
            "long": "1h",
            "prometheus": "monitoring/k8s",
            "severity": "critical",
            "short": "5m",
            "slo": SLO,
            "team": "catalog-ml",
        },
        summary="-",
        description="-",
        prometheus="http://prometheus-k8s.monitoring.svc:9090",
        alertmanager="http://alertmanager-main.monitoring.svc:9093",
        delay_s=41,
        route='{}/{severity="critical"}',
        group_by=("alertname", "slo"),
    )
    # the SLO carries `pyrra.dev/summary`, `pyrra.dev/description` and `pyrra.dev/value: "{{ $value }}"`
    # annotations, which Pyrra propagates to its alert rules; Prometheus templates them when firing
    assert p.alert is not None
    fired = p.alert["alerts"][0]["annotations"]["value"]
    ann = {
        "description": "Availability of the catalog enrichment API (Envoy Gateway route catalog-enrich), 99.9% over 4w.",  # noqa: E501
        "pyrra_url": pyrra_url,
        "summary": f"{SLO} is burning its error budget too fast (5m and 1h burn rate above 14x).",
        "value": fired,
    }
    p.alert["alerts"][0]["annotations"] = dict(ann)
    p.alert["commonAnnotations"] = dict(ann)

    # --- logs -----------------------------------------------------------------------------------------------
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=["10.168.20.31"], every=4)
        vllm_stats(p, m, every=2)
    gw = Source("envoy-gateway", "envoy-gateway-system", gw_pod, cpu_nodes[0].name, "envoy")
    route = f"httproute/{ns}/catalog-enrich/rule/0/match/0/enrich_catalog_shopcat_example_com"
    agents = [
        "catalog-pipeline/3.8.2 (attr-extract)",
        "catalog-pipeline/3.8.2 (title-rewrite)",
        "python-httpx/0.28.1",
    ]

    def dur(code: int, i: int) -> int:
        queue_s = sum(m.rep.waiting[i] for m in fleet.members) / 2 / (CAP_RPM / 60.0)
        return int(1000 * (0.3 + queue_s + 210 * 0.04) * rng.uniform(0.7, 1.3))

    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=route,
        authority="enrich.catalog.shopcat.example.com",
        src=gw,
        clients="10.170",
        every=8,
        duration=dur,
        agent=lambda i: rng.choice(agents),
    )
    for i in range(c.n - 1):
        n504 = int(gw504[i + 1])
        for _ in range(min(1, n504)):
            m = rng.choice(fleet.members)
            ts = p.ids.within(c.at(i))
            line = envoy_gateway_access(
                ts,
                status=504,
                flags="UT",
                details="response_timeout",
                duration_ms=60000 + rng.randint(0, 3),
                upstream=f"{m.ip}:8000",
                cluster=cluster,
                route=route,
                authority="enrich.catalog.shopcat.example.com",
                client=p.ids.ip("10.170"),
                user_agent=rng.choice(agents),
                request_id=p.ids.request_id(),
                bytes_sent=24,
            )
            p.logs.add(ecs(ts, line, gw, level="info", status=504))
    tsrc = Source("recsys-ltr-trainer", tns, trainer.name, a100.name, "trainer")
    for i in range(1, c.n, 3):
        ts = c.at(i) - timedelta(seconds=rng.uniform(1, 40))
        step = 118_400 + 47 * i
        p.logs.add(
            ecs(
                ts,
                f"[{ts:%Y-%m-%d %H:%M:%S}] INFO trainer.py:412 step={step} loss={0.3871 - i * 0.0002:.4f} "
                f"ndcg@10={0.4412 + i * 0.0001:.4f} samples/s={rng.uniform(1780, 1850):.0f} gpu_mem=37.0GiB",
                tsrc,
                level="info",
            )
        )

    # --- events ---------------------------------------------------------------------------------------------
    ev = [
        k8s.event(
            namespace=ns,
            kind="Pod",
            name=stuck.name,
            uid=stuck.uid,
            reason="FailedScheduling",
            message=sched_msg,
            first=stuck.created + timedelta(milliseconds=230),
            last=p.as_of - timedelta(minutes=2, seconds=13),
            count=2967,
            component="default-scheduler",
        ),
        k8s.event(
            namespace=ns,
            kind="Pod",
            name=stuck.name,
            uid=stuck.uid,
            reason="NotTriggerScaleUp",
            message=(
                "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) didn't match Pod's node "
                "affinity/selector, 1 node(s) had untolerated taint {dedicated: recsys-ranking}"
            ),
            first=stuck.created + timedelta(seconds=11),
            last=p.as_of - timedelta(minutes=4, seconds=50),
            count=1802,
            warning=False,
            component="cluster-autoscaler",
        ),
        k8s.event(
            namespace=ns,
            kind="Deployment",
            name=eval_w.name,
            uid=eval_w.uid,
            reason="ScalingReplicaSet",
            message=f"Scaled up replica set {eval_w.name}-{eval_rev.hash} from 0 to 1",
            first=eval_rev.created,
            warning=False,
            component="deployment-controller",
            api_version="apps/v1",
        ),
        k8s.event(
            namespace="kube-system",
            kind="Pod",
            name="gke-metrics-agent-x7q2d",
            uid=k8s.new_uid(rng),
            reason="Unhealthy",
            message='Liveness probe failed: Get "http://10.164.0.5:8888/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',  # noqa: E501
            first=p.ago(days=5, hours=8),
            last=p.t("09:12:47"),
            count=23,
            component="kubelet",
            host=cpu_nodes[0].name,
            field_path="spec.containers{gke-metrics-agent}",
        ),
        k8s.event(
            namespace=tns,
            kind="Pod",
            name=trainer.name,
            uid=trainer.uid,
            reason="Started",
            message="Started container trainer",
            first=trainer.created + timedelta(seconds=48),
            warning=False,
            component="kubelet",
            host=a100.name,
        ),
        k8s.event(
            namespace=ns,
            kind="CronJob",
            name="catalog-feed-sync",
            uid=k8s.new_uid(rng),
            reason="SawCompletedJob",
            message="Saw completed job: catalog-feed-sync-29311170, condition: Complete",
            first=p.t("09:30:41"),
            warning=False,
            component="cronjob-controller",
            api_version="batch/v1",
        ),
    ]

    # --- objects --------------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="catalog-enrich",
            namespace=ns,
            gateway="shopcat-gw",
            gateway_namespace="envoy-gateway-system",
            hostnames=["enrich.catalog.shopcat.example.com"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=95),
            timeouts={"request": "60s"},
        )
    )
    for fl in (tei_fleet, cap_fleet, eval_fleet, tr_fleet, fs_fleet):
        p.objects.extend(fl.objects())
    p.objects.extend(n.object(p.as_of) for n, _ in l4.values())
    p.objects.append(a100.object(p.as_of))
    p.objects.extend(n.object(p.as_of) for n in cpu_nodes)
    p.objects.extend(ev)
    held = {
        g.dev.uuid: g for g in fleet.gpu_series() + tei.gpus + captioner.gpus + trainer.gpus + ranker.gpus
    }
    readings: list[GpuSeries] = []
    for _, devs in [*l4.values(), (a100, a100_devs)]:
        for d in devs:
            g = held.get(d.uuid) or gpu_idle(c, rng, d)
            if d.uuid not in held and d.product == "NVIDIA L4":
                g.power = noisy(flat(c, 16.0), rng, 0, 0.4).map(lambda v: round(v, 3))
            readings.append(g)
    p.record_gpus(readings)

    p.expect("infrastructure", "INF_GPU_OVERLOAD", ("add_replica", f"deployment/{w.name}"))
    p.forbidden = [
        ("restart_pod", f"pod/{stuck.name}"),
        ("rollback_deployment", f"deployment/{eval_w.name}"),
        ("add_replica", f"deployment/{eval_w.name}"),
        ("cordon_node", f"node/{a100.name}"),
        ("restart_pod", f"pod/{trainer.name}"),
        ("rollback_deployment", f"deployment/{tr_w.name}"),
        ("add_replica", f"deployment/{tr_w.name}"),
        ("restart_pod", f"pod/{ranker.name}"),
        ("restart_pod", f"pod/{tei.name}"),
        ("restart_pod", f"pod/{captioner.name}"),
    ]
    p.scope = [
        f"deployment/{w.name}",
        *[f"pod/{m.name}" for m in fleet.members],
        f"node/{n_a}",
        f"node/{n_b}",
        "httproute/catalog-enrich",
    ]
    p.notes["onset"] = iso(c.at(sat_from))
    p.notes["first_504"] = iso(c.at(first_504))
    return p
