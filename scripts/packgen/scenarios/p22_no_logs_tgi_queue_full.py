"""TGI replicas hit `--max-concurrent-requests` under a batch backfill and answer 429; no logs backend.

The cluster ships no logs: the pack has metrics, Kubernetes objects and GPU readings only. At
02:28 the `digest-backfill` CronJob starts four workers that re-summarise a document archive
through the shared Istio gateway. Offered load on the single TGI Deployment (one backend, three
replicas, `--max-concurrent-requests 128`) roughly doubles: each replica's queue plus batch sits
at 128, queue time goes from milliseconds to ~30 s, and the router turns the overflow away with
429 "Model is overloaded" (`tgi_request_failure{err="overloaded"}`), for the interactive digest
callers too. The 429s appear at the gateway only on that one destination service. GPUs stay
below 90 %, nothing restarted, no rollout. Another tenant's GPU node carries a stale, recurring
`NodeHasDiskPressure` / `EvictionThresholdMet` event series from last week.
"""

from __future__ import annotations

import math
from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import threshold_alert
from ..fleet import Fleet
from ..openmetrics import OpenMetrics
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy
from ..traffic import Replica, node_timeline
from ._tenancy import (
    TenantPack,
    dcgm_lite,
    idle_gpus,
    node_condition_series,
    recurring_event,
    steady,
    tenant,
    vllm_lite,
)

NAME = "no-logs-tgi-queue-full"
ENGINE = "HF TGI 3.3.4 behind an Istio gateway (Gateway API); Pyrra SLO; no logs backend"
NS = "batch-summarize"
MODEL = "google/gemma-2-27b-it"
DEPLOY = "tgi-gemma2-27b-digest"
MAX_CONCURRENT = 128
GW_NS = "bsum-edge"
GW_WORKLOAD = "batch-gw-istio"
SLO = "digest-tgi-availability"
OBJECTIVE = 0.999


def tgi_metrics(om: OpenMetrics, reps: list[Replica], *, batch_max_tokens: int) -> None:
    """The TGI router families this cluster scrapes (PodMonitor: no `service` label)."""
    errs = {422: "validation", 429: "overloaded"}
    for r in reps:
        lab = ex.scrape_labels(r, model=False)
        p, rs = r.present, r.resets
        total, ok = r.requests(), r.ok()
        om.gauge("tgi_queue_size", "Number of requests waiting in the internal queue", lab, r.waiting, p)
        om.gauge("tgi_batch_current_size", "Current batch size", lab, r.running, p)
        om.gauge(
            "tgi_batch_current_max_tokens",
            "Maximum tokens for the current batch",
            lab,
            (r.kv * batch_max_tokens).map(lambda v: float(round(v))),
            p,
        )
        init = float(round(ok[0] * r.uptime_min))
        om.counter(
            "tgi_request_count",
            "Total number of requests",
            lab,
            total,
            present=p,
            resets=rs,
            initial=init * 1.0006,
            total_suffix=False,
        )
        om.counter(
            "tgi_request_success",
            "Number of successful requests",
            lab,
            ok,
            present=p,
            resets=rs,
            initial=init,
            total_suffix=False,
        )
        for code, err in errs.items():
            series = r.codes.get(code, flat_like(r, 0.0))
            # an error seen on an earlier day keeps its count in the router's registry
            seen = 3 + k8s.stable(f"{r.pod}/{err}") % 40 if code == 422 else 0
            if code == 429 and not any(series):
                continue
            om.counter(
                "tgi_request_failure",
                "Number of failed requests",
                {**lab, "err": err},
                series,
                present=p,
                resets=rs,
                initial=float(seen),
                total_suffix=False,
            )
        om.histogram(
            "tgi_request_queue_duration",
            "Request queue duration",
            lab,
            ex.TGI_DURATION,
            ok,
            r.queue,
            present=p,
            resets=rs,
            initial_count=init,
            le_format=ex.repr_le,
        )
    ex.up(om, reps)


def flat_like(r: Replica, v: float) -> Series:
    return Series([v] * r.n)


def windowed(bad: Series, total: Series, minutes: int, base: float) -> Series:
    """sum(rate(bad[w])) / sum(rate(total[w])) per sample: the last `minutes` increments."""
    base_total = sum(total[:10]) / 10
    return ex.windowed_ratio(bad, total, minutes, base_total * base, base_total)


def build() -> Pack:
    p = TenantPack(
        NAME,
        as_of="2026-09-03T02:47:00Z",
        namespace=NS,
        seed=2201,
        description="Digest summaries fail for many callers tonight; the gateway returns errors for the digest LLM.",
        no_logs=True,
    )
    c, rng = p.clock, p.rng
    cron = p.t("02:28:00")
    onset = p.t("02:29:04")  # the workers' first requests

    # --- nodes -------------------------------------------------------------------------------------------
    base_node = dict(
        zone="fra-dc2-hall3",
        instance_type="sx-hgx-h100-8g",
        product="NVIDIA H100 80GB HBM3",
        cpu=224,
        memory_mi=2_064_384,
        kernel="5.15.0-122-generic",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.30.6",
        runtime="containerd://1.7.22",
        driver="550.127.08",
        labels={"topology.kubernetes.io/region": "fra-dc2", "node-role.sx.internal/gpu": "h100"},
    )
    nodes = {}
    for name, ip, octet in (
        ("sx-h100-b3-07", "10.61.3.17", 7),
        ("sx-h100-b3-08", "10.61.3.18", 8),
        ("sx-h100-b3-09", "10.61.3.19", 9),
        ("sx-h100-b3-11", "10.61.3.21", 11),
    ):
        nodes[name] = p.gpu_node(name, ip=ip, pod_cidr=f"10.62.{octet}.0/24", **base_node)
    cpu_node = k8s.Node(
        name="sx-cpu-c1-04",
        internal_ip="10.61.1.14",
        zone="fra-dc2-hall3",
        instance_type="sx-epyc-9354-2s",
        cpu=64,
        memory_mi=524_288,
        uid=k8s.new_uid(rng),
        pod_cidr="10.62.4.0/24",
        kernel="5.15.0-122-generic",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.30.6",
        runtime="containerd://1.7.22",
        labels={"topology.kubernetes.io/region": "fra-dc2"},
    )
    decoy = "sx-h100-b3-11"

    # --- the TGI deployment ----------------------------------------------------------------------------------
    args = [
        "--model-id",
        MODEL,
        "--revision",
        "8f7a2c91d0b6e54f3c2a1b0e9d8c7f6a5b4c3d2e",
        "--max-input-tokens",
        "7168",
        "--max-total-tokens",
        "8192",
        "--max-batch-prefill-tokens",
        "16384",
        "--max-concurrent-requests",
        str(MAX_CONCURRENT),
        "--max-waiting-tokens",
        "20",
        "--port",
        "80",
    ]
    env = [
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        {"name": "HUGGINGFACE_HUB_CACHE", "value": "/data"},
        {"name": "PREFIX_CACHING", "value": "1"},
    ]
    rev4 = p.revision(
        4,
        p.ago(days=37),
        "ghcr.io/huggingface/text-generation-inference:3.2.3",
        args,
        env=env,
        change_cause="tgi 3.2.3",
    )
    rev5 = p.revision(
        5,
        p.ago(days=9, hours=5),
        "ghcr.io/huggingface/text-generation-inference:3.3.4",
        args,
        env=env,
        replicas=3,
        change_cause="tgi 3.3.4 (BSUM-204)",
    )
    w = k8s.Workload(
        name=DEPLOY,
        namespace=NS,
        container="tgi",
        port=80,
        labels={
            "app.kubernetes.io/name": DEPLOY,
            "app.kubernetes.io/part-of": "digest",
            "team": "batch-summarize",
        },
        revisions=[rev4, rev5],
        pods=[],
        created=p.ago(days=74),
        replicas=3,
        gpus=1,
        cpu="16",
        memory="120Gi",
        memory_limit="160Gi",
        readiness={"httpGet": {"path": "/health", "port": 80}, "periodSeconds": 10, "timeoutSeconds": 5},
        uid=k8s.new_uid(rng),
        volumes=[
            {"name": "data", "persistentVolumeClaim": {"claimName": "hf-cache-gemma2"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        ],
        volume_mounts=[{"name": "data", "mountPath": "/data"}, {"name": "dshm", "mountPath": "/dev/shm"}],
        cluster_ip="10.96.44.170",
        node_selector={"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
        service_account="tgi",
    )
    fleet = Fleet(p, w, job=f"{NS}/tgi", model="gemma-2-27b-it", service="")
    members = []
    for node_name, gpu_index, ip in (
        ("sx-h100-b3-07", 1, "10.62.7.41"),
        ("sx-h100-b3-08", 3, "10.62.8.19"),
        ("sx-h100-b3-09", 4, "10.62.9.33"),
    ):
        node, devs = nodes[node_name]
        members.append(
            fleet.add(
                rev5,
                node,
                [devs[gpu_index]],
                ip,
                created=rev5.created + timedelta(minutes=4 * len(members), seconds=rng.randint(0, 50)),
                rpm=130,
                prompt_len=2400,
                gen_len=280,
                ttft=0.6,
                itl=0.03,
                kv=0.35,
                util=61,
                fb_used=76_900,
            )
        )

    # --- offered load, capacity, the semaphore ------------------------------------------------------------
    k = c.idx(onset)
    frac0 = (c.at(k) - onset).total_seconds() / 60.0
    backfill = Series()
    for i in range(c.n):
        if i < k:
            backfill.append(0.0)
        elif i == k:
            backfill.append(215.0 * frac0 * 0.5)
        else:
            backfill.append(215.0 * min(1.0, 0.55 + 0.45 * (i - k) / 2) * rng.uniform(0.96, 1.04))
    batch_max_tokens = 184_320
    for m in members:
        r = m.rep
        interactive = r.codes[200]
        cap = noisy(flat(c, 176.0), rng, 0.02)
        ok, rej = Series(), Series()
        run, wait, kv = Series(), Series(), Series()
        qmed, sat = Series(), []
        for i in range(c.n):
            offered = interactive[i] + backfill[i]
            served = min(offered, cap[i])
            over = offered > cap[i]
            sat.append(over)
            ok.append(float(round(served)))
            rej.append(float(round(max(0.0, offered - served))))
            if over:
                b = float(round(44 + rng.uniform(-2.5, 2.5)))
                run.append(b)
                wait.append(float(MAX_CONCURRENT - b - rng.randint(0, 2)))
                kv.append(min(0.995, 0.965 + rng.uniform(-0.012, 0.02)))
                qmed.append(27.0 + rng.uniform(-2.0, 2.5))
            else:
                load = offered / 130.0
                run.append(float(round(19 * load + rng.uniform(-2, 2))))
                wait.append(float(max(0, round(rng.uniform(-1.5, 2.2) * load))))
                kv.append(0.33 * load + rng.uniform(-0.02, 0.02))
                qmed.append(0.021 * load * rng.uniform(0.8, 1.25))
        r.codes = {200: ok, 429: rej}
        r.running, r.waiting, r.kv = run, wait, kv
        r.queue = Dist(qmed, 0.35)
        r.served_s = ok
        for g in m.gpus:
            g.util = Series(
                float(min(89.0, round((86.5 if sat[i] else 61.0) + rng.uniform(-1.8, 1.8))))
                for i in range(c.n)
            )
            g.power = (g.util * 5.9 + 92 + noisy(flat(c, 0.0), rng, 0, 6.0)).map(lambda v: round(v, 3))
            g.temp = (g.util * 0.3 + 31 + noisy(flat(c, 0.0), rng, 0, 0.7)).map(lambda v: float(round(v)))
            g.fb_used = noisy(flat(c, 78_120.0), rng, 0.001).map(lambda v: float(round(v)))

    # --- other tenants and the rest of the namespace ---------------------------------------------------------
    b07, d07 = nodes["sx-h100-b3-07"]
    bdec, ddec = nodes[decoy]
    tei = tenant(
        p,
        name="tei-bge-m3-sembed",
        namespace="sx-search-embed",
        image="ghcr.io/huggingface/text-embeddings-inference:hopper-1.8",
        args=["--model-id", "BAAI/bge-m3", "--max-client-batch-size", "64", "--port", "80"],
        placements=[(b07, [d07[6]], "10.62.7.58")],
        labels={"app": "tei-bge-m3-sembed", "team": "search"},
        container="tei",
        port=80,
        revision=7,
        age_days=120,
        rev_age_days=19,
        util=23,
        fb_used=5_800,
        readiness={"httpGet": {"path": "/health", "port": 80}, "periodSeconds": 10},
        cluster_ip="10.96.71.9",
    )
    ocr = tenant(
        p,
        name="vllm-qwen2vl-7b-invoice",
        namespace="sx-invoice-ocr",
        image="vllm/vllm-openai:v0.10.1.1",
        args=[
            "--model",
            "/models/Qwen2-VL-7B-Instruct",
            "--served-model-name",
            "qwen2-vl-7b",
            "--max-model-len",
            "16384",
            "--limit-mm-per-prompt",
            '{"image": 4}',
        ],
        placements=[(bdec, [ddec[0]], "10.62.11.24")],
        labels={"app.kubernetes.io/name": "vllm-qwen2vl-7b-invoice", "team": "finance-automation"},
        container="vllm",
        revision=12,
        age_days=200,
        rev_age_days=11,
        util=47,
        fb_used=71_200,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        cluster_ip="10.96.90.31",
    )
    digest_api = tenant(
        p,
        name="bsum-digest-api",
        namespace=NS,
        image="registry.sx.internal/batch/digest-api:2026.08.4",
        args=["--workers", "4", "--llm-base-url", "http://digest-llm.batch.internal/v1"],
        placements=[(cpu_node, [], "10.62.4.12"), (cpu_node, [], "10.62.4.13")],
        labels={"app.kubernetes.io/name": "bsum-digest-api", "app.kubernetes.io/part-of": "digest"},
        container="api",
        port=8080,
        revision=31,
        age_days=74,
        rev_age_days=4,
        cpu="2",
        memory="2Gi",
        memory_limit="4Gi",
        cluster_ip="10.96.44.201",
    )
    gw = tenant(
        p,
        name=GW_WORKLOAD,
        namespace=GW_NS,
        image="docker.io/istio/proxyv2:1.26.3",
        args=["proxy", "router", "--domain", f"{GW_NS}.svc.cluster.local", "--proxyLogLevel=warning"],
        placements=[(cpu_node, [], "10.62.4.30")],
        labels={
            "gateway.networking.k8s.io/gateway-name": "batch-gw",
            "istio.io/gateway-name": "batch-gw",
            "service.istio.io/canonical-name": GW_WORKLOAD,
        },
        container="istio-proxy",
        port=80,
        revision=2,
        age_days=160,
        rev_age_days=33,
        cpu="2",
        memory="1Gi",
        memory_limit="2Gi",
        cluster_ip="10.96.3.80",
        service_account=GW_WORKLOAD,
    )
    tenants = [tei, ocr, digest_api, gw]

    # --- metrics -----------------------------------------------------------------------------------------
    tgi_metrics(p.om, fleet.replicas(), batch_max_tokens=batch_max_tokens)
    gpu_series = fleet.gpu_series() + tei.gpu_series() + ocr.gpu_series()
    spare = idle_gpus(p, [ddec[1]])
    dcgm_lite(p.om, fleet.gpu_series() + ocr.gpu_series(), driver="550.127.08")
    ocr_rpm = steady(p, 38.0, 0.12)
    vllm_lite(
        p.om,
        labels={
            "engine": "0",
            "instance": "10.62.11.24:8000",
            "job": "vllm-qwen2vl-7b-invoice",
            "model_name": "qwen2-vl-7b",
            "namespace": "sx-invoice-ocr",
            "pod": ocr.pods[0].info.name,
            "service": "vllm-qwen2vl-7b-invoice",
        },
        rpm=ocr_rpm,
        running=steady(p, 6.0, 0.2).map(lambda v: float(round(v))),
        kv=steady(p, 0.18, 0.08),
        gen_len=310,
        uptime_min=15_800,
    )
    ex.ksm_pods(p.om, fleet.timelines() + ocr.timelines())
    nts = []
    for name, (node, _) in nodes.items():
        nt = node_timeline(c, name, gpus=8, internal_ip=node.internal_ip)
        nts.append(nt)
    dp_start, dp_end = p.t("01:52:10"), p.t("01:57:40")
    dp_mask = [dp_start <= c.at(i) < dp_end for i in range(c.n)]
    nts[-1].taints.append(("node.kubernetes.io/disk-pressure", "", "NoSchedule", dp_mask))
    nts.append(node_timeline(c, cpu_node.name, internal_ip=cpu_node.internal_ip))
    ex.ksm_nodes(p.om, nts)
    node_condition_series(p.om, decoy, "DiskPressure", dp_mask)
    ex.ksm_deployment(p.om, namespace=NS, name=DEPLOY, spec=flat(c, 3), available=flat(c, 3))
    ex.ksm_deployment(
        p.om,
        namespace="sx-invoice-ocr",
        name="vllm-qwen2vl-7b-invoice",
        spec=flat(c, 1),
        available=flat(c, 1),
    )
    ex.ksm_deployment(
        p.om, namespace="sx-search-embed", name="tei-bge-m3-sembed", spec=flat(c, 1), available=flat(c, 1)
    )

    # the gateway's view: istio_requests_total from the gateway proxy (reporter="source")
    codes = fleet.codes()
    tgi_total = Series([0.0] * c.n)
    for s in codes.values():
        tgi_total = tgi_total + s
    istio_src = {
        "instance": "10.62.4.30:15090",
        "job": "istio-system/envoy-stats-monitor",
        "namespace": GW_NS,
        "pod_name": gw.pods[0].info.name,
        "reporter": "source",
        "request_protocol": "http",
        "source_app": GW_WORKLOAD,
        "source_canonical_revision": "latest",
        "source_canonical_service": GW_WORKLOAD,
        "source_cluster": "Kubernetes",
        "source_principal": f"spiffe://cluster.local/ns/{GW_NS}/sa/{GW_WORKLOAD}",
        "source_version": "unknown",
        "source_workload": GW_WORKLOAD,
        "source_workload_namespace": GW_NS,
        "connection_security_policy": "unknown",
        "destination_cluster": "Kubernetes",
        "destination_principal": "unknown",
        "destination_version": "unknown",
        "destination_canonical_revision": "latest",
    }

    def dest(svc: str, ns: str, app: str) -> dict[str, str]:
        return {
            **istio_src,
            "destination_app": app,
            "destination_canonical_service": app,
            "destination_service": f"{svc}.{ns}.svc.cluster.local",
            "destination_service_name": svc,
            "destination_service_namespace": ns,
            "destination_workload": svc,
            "destination_workload_namespace": ns,
        }

    flows = {
        (DEPLOY, NS, DEPLOY): {code: s.ints() for code, s in codes.items()},
        ("vllm-qwen2vl-7b-invoice", "sx-invoice-ocr", "vllm-qwen2vl-7b-invoice"): {
            200: ocr_rpm.ints(),
        },
    }
    for (svc, ns, app), by_code in flows.items():
        for code, inc in sorted(by_code.items()):
            if not any(inc) and code >= 400:
                continue
            seen = 0.0 if code < 300 else float(5 + k8s.stable(f"{svc}/{code}") % 300)
            p.om.counter(
                "istio_requests",
                "Total number of requests handled by the proxy.",
                {**dest(svc, ns, app), "response_code": str(code), "response_flags": "-"},
                inc,
                initial=float(round(inc[0] * 21_000)) if code < 300 else seen,
            )

    # Pyrra: recording rules of the SLO and its multi-window burn-rate alert
    bad = codes[429] + Series([0.0] * c.n)
    sel = {
        "destination_service_name": DEPLOY,
        "destination_service_namespace": NS,
        "reporter": "source",
        "slo": SLO,
    }
    base = 0.00002
    windows = {"5m": 5, "30m": 30, "1h": 60, "2h": 120, "6h": 360, "1d": 1440, "4d": 5760}
    ratios = {}
    for win, minutes in windows.items():
        ratios[win] = windowed(bad, tgi_total, minutes - 1, base).map(lambda v: round(v, 9))
        p.om.gauge(
            f"istio_requests:burnrate{win}",
            f"Pyrra recording rule: error ratio over {win}.",
            sel,
            ratios[win],
            digits=9,
        )
    p.om.gauge("pyrra_objective", "Pyrra SLO objective.", {"slo": SLO}, flat(c, OBJECTIVE))
    p.om.gauge("pyrra_window", "Pyrra SLO window in seconds.", {"slo": SLO}, flat(c, 2_419_200))
    matchers = ",".join(f'{k}="{v}"' for k, v in sel.items())
    budget = f"(14 * (1-{OBJECTIVE}))"
    expr = (
        f"istio_requests:burnrate5m{{{matchers}}} > {budget} and "
        f"istio_requests:burnrate1h{{{matchers}}} > {budget}"
    )
    thr = 14 * (1 - OBJECTIVE)
    threshold_alert(
        p,
        expr=expr,
        condition=[ratios["5m"][i] > thr and ratios["1h"][i] > thr for i in range(c.n)],
        value=ratios["5m"],
        for_minutes=2,
        labels={
            "alertname": "ErrorBudgetBurn",
            "destination_service_name": DEPLOY,
            "destination_service_namespace": NS,
            "exhaustion": "2d",
            "long": "1h",
            "reporter": "source",
            "severity": "critical",
            "short": "5m",
            "slo": SLO,
            "team": "batch-summarize",
        },
        summary="digest-tgi-availability is burning its error budget too fast",
        description=(
            "The SLO digest-tgi-availability (99.9% of gateway requests to the digest LLM answered "
            "without 5xx/429, 4 weeks) burns its budget 14x faster than allowed over 5m and 1h."
        ),
        prometheus="http://prometheus-k8s.monitoring.svc:9090",
        alertmanager="http://alertmanager-main.monitoring.svc:9093",
        value_format="{:.4g}",
        runbook="https://wiki.sx.internal/sre/runbooks/slo-burn",
        route='{}/{severity="critical"}',
        group_by=("alertname", "slo"),
        delay_s=31,
    )

    # --- Kubernetes objects ---------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    for t in tenants:
        p.objects.extend(t.objects(p.as_of))
    p.objects.append(
        k8s.httproute(
            name="digest-llm",
            namespace=NS,
            gateway="batch-gw",
            gateway_namespace=GW_NS,
            hostnames=["digest-llm.batch.internal"],
            backends=[(DEPLOY, 80, 1)],
            created=p.ago(days=74),
            controller="istio.io/gateway-controller",
            path="/",
            timeouts={"request": "300s"},
        )
    )
    p.objects.append(
        k8s.httproute(
            name="invoice-vision",
            namespace="sx-invoice-ocr",
            gateway="batch-gw",
            gateway_namespace=GW_NS,
            hostnames=["invoice-vision.batch.internal"],
            backends=[("vllm-qwen2vl-7b-invoice", 8000, 1)],
            created=p.ago(days=200),
            controller="istio.io/gateway-controller",
        )
    )
    node_objs = [n.object(p.as_of) for n, _ in nodes.values()]
    for obj in node_objs:
        if obj["metadata"]["name"] == decoy:
            for cond in obj["status"]["conditions"]:
                if cond["type"] == "DiskPressure":
                    cond["lastTransitionTime"] = iso(dp_end)
    p.objects.extend(node_objs)
    p.objects.append(cpu_node.object(p.as_of))

    # --- events ------------------------------------------------------------------------------------------
    ev = []
    dec_uid = bdec.uid
    ev.append(
        recurring_event(
            p,
            namespace="default",
            kind="Node",
            name=decoy,
            uid=dec_uid,
            reason="NodeHasDiskPressure",
            message=f"Node {decoy} status is now: NodeHasDiskPressure",
            first=p.ago(days=9, hours=4, minutes=12),
            last=dp_start,
            count=14,
            warning=False,
            host=decoy,
        )
    )
    ev.append(
        recurring_event(
            p,
            namespace="default",
            kind="Node",
            name=decoy,
            uid=dec_uid,
            reason="EvictionThresholdMet",
            message="Attempting to reclaim ephemeral-storage",
            first=p.ago(days=9, hours=4, minutes=12) + timedelta(seconds=9),
            last=dp_start + timedelta(seconds=9),
            count=14,
            host=decoy,
        )
    )
    ev.append(
        recurring_event(
            p,
            namespace="default",
            kind="Node",
            name=decoy,
            uid=dec_uid,
            reason="FreeDiskSpaceFailed",
            message=(
                "Failed to garbage collect required amount of images. Attempted to free 61847929856 bytes, "
                "but only found 0 bytes eligible to free."
            ),
            first=p.ago(days=9, hours=4, minutes=17),
            last=dp_start + timedelta(minutes=2, seconds=3),
            count=31,
            host=decoy,
        )
    )
    ev.append(
        recurring_event(
            p,
            namespace="default",
            kind="Node",
            name=decoy,
            uid=dec_uid,
            reason="NodeHasNoDiskPressure",
            message=f"Node {decoy} status is now: NodeHasNoDiskPressure",
            first=p.ago(days=9, hours=3, minutes=40),
            last=dp_end,
            count=14,
            warning=False,
            host=decoy,
        )
    )
    ev.append(
        k8s.event(
            namespace="sx-invoice-ocr",
            kind="Pod",
            name="ocr-postproc-5c8d9f7b6-hq4vt",
            uid=k8s.new_uid(rng),
            reason="Evicted",
            message=(
                "The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 8432Mi. "
                "Container postproc was using 21Gi, request is 0, has larger consumption of ephemeral-storage. "
            ),
            first=dp_start + timedelta(seconds=14),
            host=decoy,
        )
    )
    tei_pod = tei.pods[0].info
    ev.append(
        recurring_event(
            p,
            namespace="sx-search-embed",
            kind="Pod",
            name=tei_pod.name,
            uid=tei_pod.uid,
            reason="Unhealthy",
            message=(
                f'Liveness probe failed: Get "http://{tei_pod.ip}:80/health": context deadline exceeded '
                "(Client.Timeout exceeded while awaiting headers)"
            ),
            first=p.ago(days=3, hours=7),
            last=p.t("02:11:37"),
            count=6,
            host="sx-h100-b3-07",
            field_path="spec.containers{tei}",
        )
    )
    job_n = int(cron.timestamp() // 60)
    job = f"digest-backfill-{job_n}"
    job_uid = k8s.new_uid(rng)
    ev.append(
        k8s.event(
            namespace=NS,
            kind="CronJob",
            name="digest-backfill",
            uid=k8s.new_uid(rng),
            reason="SuccessfulCreate",
            message=f"Created job {job}",
            first=cron + timedelta(milliseconds=210),
            warning=False,
            component="cronjob-controller",
            api_version="batch/v1",
        )
    )
    for n_pod in range(4):
        pod = f"{job}-{k8s.safe_string(rng, 5)}"
        created = cron + timedelta(milliseconds=260 + 30 * n_pod)
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Job",
                name=job,
                uid=job_uid,
                reason="SuccessfulCreate",
                message=f"Created pod: {pod}",
                first=created,
                warning=False,
                component="job-controller",
                api_version="batch/v1",
            )
        )
        puid = k8s.new_uid(rng)
        for delay, reason, message, comp in (
            (0.05, "Scheduled", f"Successfully assigned {NS}/{pod} to {cpu_node.name}", "default-scheduler"),
            (
                1.9,
                "Pulled",
                'Container image "registry.sx.internal/batch/digest-backfill:2026.09.1" already present on machine',
                "kubelet",
            ),
            (2.0, "Created", "Created container: backfill", "kubelet"),
            (2.3, "Started", "Started container backfill", "kubelet"),
        ):
            ev.append(
                k8s.event(
                    namespace=NS,
                    kind="Pod",
                    name=pod,
                    uid=puid,
                    reason=reason,
                    message=message,
                    first=created + timedelta(seconds=delay),
                    warning=False,
                    component=comp,
                    host=None if comp == "default-scheduler" else cpu_node.name,
                    field_path=None if comp == "default-scheduler" else "spec.containers{backfill}",
                )
            )
    p.objects.extend(ev)

    # --- GPU readings ---------------------------------------------------------------------------------------
    p.record_gpus(gpu_series + spare)

    # --- the answer -----------------------------------------------------------------------------------------
    p.expect("inference_engine", "ENG_QUEUE_FULL", ("add_replica", f"deployment/{DEPLOY}"))
    p.forbid("cordon_node", f"node/{decoy}")
    for name in ("sx-h100-b3-07", "sx-h100-b3-08", "sx-h100-b3-09", cpu_node.name):
        p.forbid("cordon_node", f"node/{name}")
    p.forbid("rollback_deployment", f"deployment/{DEPLOY}")
    for t in (tei, ocr, digest_api, gw):
        for tp in t.pods:
            p.forbid("restart_pod", f"pod/{tp.info.name}")
        p.forbid("rollback_deployment", f"deployment/{t.workload.name}")
    p.forbid("add_replica", "deployment/vllm-qwen2vl-7b-invoice")
    p.scope = [
        f"deployment/{DEPLOY}",
        *[f"pod/{m.name}" for m in members],
        *[f"node/{m.node.name}" for m in members],
        "httproute/digest-llm",
    ]
    p.notes["onset"] = iso(onset)
    assert math.isfinite(ratios["5m"][-1])
    return p
