"""An external moderation API slows down; the chat orchestrator behind Istio fails closed with 503/504.

From 19:21 the vendor's moderation endpoint (outside the cluster, reached through an Istio
ServiceEntry with TLS origination) takes 6-15 s instead of ~0.35 s. The mesh route to it has a
10 s timeout and so does the orchestrator's httpx client: whichever fires first, the sidecar logs
`504 UT response_timeout` on `outbound|80||api.guardrail-cloud.com` or `0 DC` when the app's
`httpx.ReadTimeout` hangs up first. The orchestrator fails closed (503 on a 5xx from the mesh, 504
on its own timeout), so `istio_requests_total{reporter="destination"}` of chat-orchestrator turns
5xx. The vLLM pods only see fewer requests; the in-cluster Llama Guard of the review team is
healthy and unrelated, and so are the warnings of other namespaces.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, threshold_alert
from ..engines import src_of, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs
from ..openmetrics import OpenMetrics
from ..pack import Pack
from ..series import Dist, Series, diurnal, flat, iso, noisy, ramp
from ..traffic import node_timeline
from .p19_pyrra_alert_gateway_timeout_cut import (
    ScopedPack,
    cpu_node,
    dcgm_busy,
    recurring,
    tenant,
)

NAME = "istio-external-moderation-timeout"
ENGINE = "FastAPI orchestrator + vLLM 0.10.1 in an Istio 1.24 mesh, external moderation API"
NS = "trust-safety-chat"
EDGE_NS = "trust-safety-edge"
MOD_HOST = "api.guardrail-cloud.com"
MOD_CLUSTER = f"outbound|80||{MOD_HOST}"
PUBLIC_HOST = "chat.trustsafe-demo.com"
MODEL = "ministral-8b-chat"
PROXY_IMAGE = "docker.io/istio/proxyv2:1.24.2"
MOD_IPS = ["3.33.146.110", "15.197.224.8"]
MOD_BUCKETS = [0.5, 1.0, 2.5, 5.0, 10.0]


def istio_access(
    end: datetime,
    *,
    method: str = "POST",
    path: str,
    protocol: str = "HTTP/1.1",
    code: int,
    flags: str = "-",
    details: str = "via_upstream",
    bytes_rx: int,
    bytes_tx: int,
    duration_ms: int,
    upstream_ms: int | None,
    xff: str = "-",
    ua: str,
    req_id: str,
    authority: str,
    upstream_host: str,
    cluster: str,
    upstream_local: str,
    downstream_local: str,
    downstream_remote: str,
    sni: str = "-",
    route: str = "default",
) -> str:
    """Istio's default TEXT access log line (meshConfig.accessLogEncoding: TEXT); START_TIME is the start."""
    start = end - timedelta(milliseconds=duration_ms)
    up = "-" if upstream_ms is None else str(upstream_ms)
    return (
        f'[{iso(start, ms=True)}] "{method} {path} {protocol}" {code} {flags} {details} - "-" {bytes_rx} {bytes_tx} '
        f'{duration_ms} {up} "{xff}" "{ua}" "{req_id}" "{authority}" "{upstream_host}" {cluster} '
        f"{upstream_local} {downstream_local} {downstream_remote} {sni} {route}"
    )


def istio_requests(
    om: OpenMetrics,
    *,
    pod: str,
    pod_ns: str,
    ip: str,
    reporter: str,
    source: tuple[str, str],
    dest: tuple[str, str],
    dest_service: tuple[str, str, str],
    security: str,
    codes: dict[tuple[int, str], Series],
    uptime_min: float,
) -> None:
    """`istio_requests_total` as one sidecar exposes it (app/principal/version/revision/cluster tags
    removed by the mesh's Telemetry `tagOverrides`)."""
    src_wl, src_ns = source
    dst_wl, dst_ns = dest
    svc, svc_name, svc_ns = dest_service
    base = {
        "connection_security_policy": security,
        "container": "istio-proxy",
        "destination_canonical_service": dst_wl if dst_wl != "unknown" else "unknown",
        "destination_service": svc,
        "destination_service_name": svc_name,
        "destination_service_namespace": svc_ns,
        "destination_workload": dst_wl,
        "destination_workload_namespace": dst_ns,
        "grpc_response_status": "",
        "instance": f"{ip}:15090",
        "job": "istio-system/envoy-stats-monitor",
        "namespace": pod_ns,
        "pod": pod,
        "reporter": reporter,
        "request_protocol": "http",
        "source_canonical_service": src_wl,
        "source_workload": src_wl,
        "source_workload_namespace": src_ns,
    }
    for (code, flags), inc in sorted(codes.items()):
        ints = inc.ints()
        seen = 30 + k8s.stable(f"{pod}/{dst_wl}/{code}/{flags}") % 700
        init = float(round(ints[0] * uptime_min)) if code == 200 else float(seen)
        om.counter(
            "istio_requests",
            "",
            {**base, "response_code": str(code), "response_flags": flags},
            ints,
            initial=init,
        )


def build() -> Pack:
    p = ScopedPack(
        NAME,
        as_of="2026-09-10T19:48:00Z",
        namespace=NS,
        seed=2020,
        description="Trust & safety chat: users get 'service unavailable' for about half of their messages.",
    )
    c, rng = p.clock, p.rng
    onset = p.t("19:21:30")

    # --- nodes (EKS, us-east-2) ------------------------------------------------------------------------------
    eks = dict(
        kernel="6.1.129-138.220.amzn2023.x86_64",
        os_image="Amazon Linux 2023.6.20250317",
        kubelet_version="v1.31.6-eks-1552ad0",
        runtime="containerd://1.7.25",
        driver="550.144.03",
    )
    gpu_nodes = {}
    for ip in ("10.73.41.12", "10.73.42.201", "10.73.43.77"):
        name = f"ip-{ip.replace('.', '-')}.us-east-2.compute.internal"
        node, devs = p.gpu_node(
            name,
            ip=ip,
            zone=f"us-east-2{'abc'[len(gpu_nodes)]}",
            instance_type="g6e.2xlarge",
            product="NVIDIA L40S",
            count=1,
            pod_cidr=f"10.73.{41 + len(gpu_nodes)}.0/24",
            cpu=8,
            memory_mi=65_536,
            **eks,
        )
        node.labels.update(
            {
                "eks.amazonaws.com/nodegroup": "gpu-l40s",
                "karpenter.sh/capacity-type": "on-demand",
                "node.kubernetes.io/lifecycle": "normal",
            }
        )
        node.taints = [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
        gpu_nodes[name] = (node, devs)
    gnames = list(gpu_nodes)
    cpu_nodes = []
    for j, ip in enumerate(("10.73.10.45", "10.73.11.19", "10.73.12.140")):
        n = cpu_node(
            p,
            f"ip-{ip.replace('.', '-')}.us-east-2.compute.internal",
            ip,
            zone=f"us-east-2{'abc'[j]}",
            instance_type="m6i.2xlarge",
            cidr=f"10.73.{10 + j}.0/24",
            cpu=8,
            mem_gi=32,
            kernel="6.1.129-138.220.amzn2023.x86_64",
            os_image="Amazon Linux 2023.6.20250317",
            kubelet_version="v1.31.6-eks-1552ad0",
            runtime="containerd://1.7.25",
        )
        n.labels["eks.amazonaws.com/nodegroup"] = "general"
        cpu_nodes.append(n)

    def proxy(name: str) -> dict[str, Any]:
        return {
            "name": "istio-proxy",
            "image": PROXY_IMAGE,
            "args": [
                "proxy",
                "sidecar",
                "--domain",
                "$(POD_NAMESPACE).svc.cluster.local",
                "--proxyLogLevel=warning",
                "--proxyComponentLogLevel=misc:error",
                "--log_output_level=default:info",
            ],
            "ports": [{"containerPort": 15090, "name": "http-envoy-prom", "protocol": "TCP"}],
            "resources": {
                "limits": {"cpu": "2", "memory": "1Gi"},
                "requests": {"cpu": "100m", "memory": "128Mi"},
            },
        }

    mesh_pod = {
        "sidecar.istio.io/status": '{"initContainers":null,"containers":["istio-proxy"],'
        '"volumes":["workload-socket","credential-socket","workload-certs","istio-envoy","istio-data",'
        '"istio-podinfo","istio-token","istiod-ca-cert"],"imagePullSecrets":null,'
        '"revision":"default"}',
        "prometheus.io/path": "/stats/prometheus",
        "prometheus.io/port": "15020",
        "prometheus.io/scrape": "true",
        "kubectl.kubernetes.io/default-container": "app",
    }

    # --- the model servers (healthy) --------------------------------------------------------------------------
    vargs = [
        "--model",
        "/models/mistralai/Ministral-8B-Instruct-2410",
        "--served-model-name",
        MODEL,
        "--tokenizer-mode",
        "mistral",
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.9",
        "--enable-prefix-caching",
    ]
    vrev = p.revision(
        8,
        p.ago(days=18, hours=2),
        "vllm/vllm-openai:v0.10.1.1",
        vargs,
        replicas=2,
        change_cause="ministral-8b",
    )
    vw = k8s.Workload(
        name="vllm-ministral-8b",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={"app": "vllm-ministral-8b", "version": "v8"},
        revisions=[vrev],
        pods=[],
        created=p.ago(days=75),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="48Gi",
        memory_limit="56Gi",
        cpu="6",
        cluster_ip="172.20.81.14",
        sidecars=[proxy("vllm")],
        pod_annotations=dict(mesh_pod, **{"kubectl.kubernetes.io/default-container": "vllm"}),
        volumes=[{"name": "models", "persistentVolumeClaim": {"claimName": "ministral-fsx"}}],
        volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
    )
    vfleet = Fleet(p, vw, job=f"{NS}/vllm-ministral-8b", model=MODEL, service="")
    for j in range(2):
        node, devs = gpu_nodes[gnames[j]]
        vfleet.add(
            vrev,
            node,
            [devs[0]],
            f"10.73.{41 + j}.{90 + 13 * j}",
            rpm=150,
            prompt_len=1650,
            gen_len=260,
            ttft=0.16,
            itl=0.022,
            kv=0.21,
            util=54,
            fb_used=41_230,
        )

    # --- the orchestrator ---------------------------------------------------------------------------------------
    orev_old = p.revision(
        41,
        p.ago(days=9),
        "318594067212.dkr.ecr.us-east-2.amazonaws.com/ts/chat-orchestrator:3.8.0",
        ["--host", "0.0.0.0", "--port", "8080", "--workers", "4"],
        change_cause="chat-orchestrator 3.8.0",
    )
    oenv = [
        {"name": "LLM_BASE_URL", "value": f"http://vllm-ministral-8b.{NS}.svc.cluster.local:8000/v1"},
        {"name": "LLM_MODEL", "value": MODEL},
        {"name": "MODERATION_URL", "value": f"http://{MOD_HOST}/v2/moderate"},
        {"name": "MODERATION_TIMEOUT_S", "value": "10"},
        {"name": "MODERATION_FAIL_MODE", "value": "closed"},
        {
            "name": "MODERATION_API_KEY",
            "valueFrom": {"secretKeyRef": {"name": "guardrail-cloud", "key": "api-key"}},
        },
    ]
    orev = p.revision(
        42,
        p.ago(days=2, hours=6),
        "318594067212.dkr.ecr.us-east-2.amazonaws.com/ts/chat-orchestrator:3.8.1",
        ["--host", "0.0.0.0", "--port", "8080", "--workers", "4"],
        env=oenv,
        replicas=2,
        change_cause="chat-orchestrator 3.8.1 (TS-2207 retry budget for vLLM calls)",
    )
    orev_old.env = [e for e in oenv if e["name"] != "MODERATION_FAIL_MODE"]
    ow = k8s.Workload(
        name="chat-orchestrator",
        namespace=NS,
        container="app",
        port=8080,
        labels={"app": "chat-orchestrator", "version": "v3"},
        revisions=[orev_old, orev],
        pods=[],
        created=p.ago(days=300),
        replicas=2,
        gpus=0,
        cpu="2",
        memory="2Gi",
        memory_limit="3Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 5},
        uid=k8s.new_uid(rng),
        cluster_ip="172.20.33.201",
        sidecars=[proxy("app")],
        pod_annotations=mesh_pod,
        service_account="chat-orchestrator",
    )
    ofleet = Fleet(p, ow, job=f"{NS}/chat-orchestrator", model=MODEL, service="chat-orchestrator")
    for j in range(2):
        ofleet.add(orev, cpu_nodes[j], [], f"10.73.{10 + j}.{77 + 9 * j}", rpm=150, ttft=0.05, itl=0.001)

    # --- what happens ------------------------------------------------------------------------------------------
    wob = diurnal(c, rng, 0.05)
    slow = ramp(c, onset, onset + timedelta(minutes=2, seconds=30), 0.0, 1.0, ease=True)
    fail_share = slow * 0.46
    per_pod: list[dict[str, Series]] = []
    for m in ofleet.members:
        arrivals = noisy(flat(c, 150.0) * wob, rng, 0.04)
        failed = Series(arrivals[i] * fail_share[i] * rng.uniform(0.92, 1.08) for i in range(c.n)).ints()
        ut = Series(float(round(v * rng.uniform(0.55, 0.66))) for v in failed)
        dc = failed - ut  # the app's own ReadTimeout fired first
        ok = (arrivals - failed).ints()
        m.rep.codes = {200: ok, 503: ut, 504: dc}
        m.rep.e2e = Dist(
            noisy(flat(c, 2.4) + slow * 5.2, rng, 0.05), 0.4, tail_frac=fail_share, tail_median=flat(c, 10.0)
        )
        per_pod.append({"arrivals": arrivals, "ok": ok, "ut": ut, "dc": dc})
    llm_calls = per_pod[0]["ok"] + per_pod[1]["ok"]
    for i in range(c.n):
        for vm in vfleet.members:
            vm.rep.codes[200][i] = float(round(llm_calls[i] * 0.5 * (1 + rng.gauss(0, 0.03))))
    for vm in vfleet.members:
        share = Series(vm.rep.codes[200][i] / 150.0 for i in range(c.n))
        vm.rep.running = Series(float(max(1, round(7.4 * share[i] + rng.uniform(-1, 1)))) for i in range(c.n))
        vm.rep.kv = Series(min(0.6, 0.21 * (0.4 + 0.6 * share[i])) for i in range(c.n))
        for g in vm.gpus:
            g.util = Series(float(round(12 + 42 * share[i] + rng.uniform(-2, 2))) for i in range(c.n))
            g.power = Series(round(95 + 2.4 * g.util[i] + rng.uniform(-6, 6), 3) for i in range(c.n))

    # --- tenants -----------------------------------------------------------------------------------------------
    gw = tenant(
        p,
        name="istio-ingressgateway",
        namespace=EDGE_NS,
        image=PROXY_IMAGE,
        args=["proxy", "router", "--domain", "$(POD_NAMESPACE).svc.cluster.local", "--proxyLogLevel=warning"],
        placement=[(cpu_nodes[2], "10.73.12.31")],
        container="istio-proxy",
        port=8443,
        labels={"app": "istio-ingressgateway", "istio": "ingressgateway"},
        cpu="1",
        memory="1Gi",
        memory_limit="2Gi",
        age_days=120,
        revision=6,
        cluster_ip="172.20.9.12",
        readiness={"httpGet": {"path": "/healthz/ready", "port": 15021}, "periodSeconds": 2},
        service_account="istio-ingressgateway",
    )
    guard_node, guard_devs = gpu_nodes[gnames[2]]
    guard = tenant(
        p,
        name="vllm-llamaguard3-review",
        namespace="trust-safety-review",
        image="vllm/vllm-openai:v0.10.1.1",
        args=["--model", "/models/meta-llama/Llama-Guard-3-8B", "--served-model-name", "llama-guard-3-8b"],
        placement=[(guard_node, "10.73.43.58")],
        container="vllm",
        port=8000,
        gpus=1,
        gpu_uuids=[[guard_devs[0].uuid]],
        cpu="6",
        memory="40Gi",
        memory_limit="48Gi",
        age_days=52,
        revision=3,
        cluster_ip="172.20.140.7",
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
    )
    console = tenant(
        p,
        name="review-console",
        namespace="trust-safety-review",
        image="318594067212.dkr.ecr.us-east-2.amazonaws.com/ts/review-console:2026.09.1",
        args=["serve", "--port", "3000"],
        placement=[(cpu_nodes[2], "10.73.12.88")],
        container="web",
        port=3000,
        age_days=6,
        revision=77,
        cluster_ip="172.20.140.90",
        readiness={
            "httpGet": {"path": "/api/health", "port": 3000},
            "periodSeconds": 10,
            "timeoutSeconds": 1,
        },
    )
    exporter = tenant(
        p,
        name="label-export-worker",
        namespace="trust-safety-labeling",
        image="318594067212.dkr.ecr.us-east-2.amazonaws.com/ts/label-export:1.4.0-rc2",
        args=["--bucket", "s3://ts-labels-export/daily"],
        placement=[(cpu_nodes[2], "10.73.12.203")],
        container="exporter",
        port=9000,
        age_days=0.2,
        revision=12,
        cluster_ip="172.20.200.4",
    )
    xpod = exporter.pods[0]
    image = exporter.w.revisions[0].image
    xpod.ready = False
    xpod.phase = "Pending"
    xpod.waiting = ("ImagePullBackOff", f'Back-off pulling image "{image}"')
    xtl = exporter.timelines[0]
    xtl.ready = [False] * c.n
    xtl.waiting_reason = ["ImagePullBackOff" if i % 5 else "ErrImagePull" for i in range(c.n)]

    # --- metrics ------------------------------------------------------------------------------------------
    ex.vllm(p.om, vfleet.replicas(), itl=False)
    p.om.families.pop("vllm:time_to_first_token_seconds")  # not kept by the recording (size)
    gpus = vfleet.gpu_series() + dcgm_busy(
        p,
        [guard_devs[0]],
        util=17,
        fb=40_110,
        pod=guard.pods[0].name,
        namespace="trust-safety-review",
        container="vllm",
    )
    ex.dcgm(p.om, gpus, driver="550.144.03")
    ex.ksm_pods(p.om, vfleet.timelines() + ofleet.timelines() + exporter.timelines)
    ex.ksm_nodes(
        p.om,
        [node_timeline(c, n, gpus=1, internal_ip=nd.internal_ip) for n, (nd, _) in gpu_nodes.items()]
        + [node_timeline(c, n.name, internal_ip=n.internal_ip) for n in cpu_nodes],
    )
    for name, spec in ((vw.name, 2), (ow.name, 2)):
        ex.ksm_deployment(p.om, namespace=NS, name=name, spec=flat(c, spec), available=flat(c, spec))
    ex.ksm_deployment(
        p.om, namespace="trust-safety-labeling", name=exporter.w.name, spec=flat(c, 1), available=flat(c, 0)
    )
    vsvc = f"vllm-ministral-8b.{NS}.svc.cluster.local"
    osvc = f"chat-orchestrator.{NS}.svc.cluster.local"
    gw_codes: dict[tuple[int, str], Series] = {
        (200, "-"): flat(c, 0.0),
        (503, "-"): flat(c, 0.0),
        (504, "-"): flat(c, 0.0),
    }
    for m, t in zip(ofleet.members, per_pod, strict=True):
        istio_requests(
            p.om,
            pod=m.name,
            pod_ns=NS,
            ip=m.ip,
            reporter="source",
            source=("chat-orchestrator", NS),
            dest=("unknown", "unknown"),
            dest_service=(MOD_HOST, MOD_HOST, NS),
            security="unknown",
            codes={(200, "-"): t["arrivals"] - t["ut"] - t["dc"], (504, "UT"): t["ut"], (0, "DC"): t["dc"]},
            uptime_min=9_000,
        )
        istio_requests(
            p.om,
            pod=m.name,
            pod_ns=NS,
            ip=m.ip,
            reporter="source",
            source=("chat-orchestrator", NS),
            dest=("vllm-ministral-8b", NS),
            dest_service=(vsvc, "vllm-ministral-8b", NS),
            security="unknown",
            codes={(200, "-"): t["ok"]},
            uptime_min=9_000,
        )
        istio_requests(
            p.om,
            pod=m.name,
            pod_ns=NS,
            ip=m.ip,
            reporter="destination",
            source=("istio-ingressgateway", EDGE_NS),
            dest=("chat-orchestrator", NS),
            dest_service=(osvc, "chat-orchestrator", NS),
            security="mutual_tls",
            codes={(200, "-"): t["ok"], (503, "-"): t["ut"], (504, "-"): t["dc"]},
            uptime_min=9_000,
        )
        gw_codes[(200, "-")] = gw_codes[(200, "-")] + t["ok"]
        gw_codes[(503, "-")] = gw_codes[(503, "-")] + t["ut"]
        gw_codes[(504, "-")] = gw_codes[(504, "-")] + t["dc"]
    gpod = gw.pods[0]
    for m, t in zip(ofleet.members, per_pod, strict=True):
        base = {"instance": f"{m.ip}:8080", "job": f"{NS}/chat-orchestrator", "namespace": NS, "pod": m.name}
        for outcome, inc in (
            ("ok", t["arrivals"] - t["ut"] - t["dc"]),
            ("http_error", t["ut"]),
            ("timeout", t["dc"]),
        ):
            p.om.counter(
                "moderation_requests",
                "Calls to the moderation provider by outcome.",
                {**base, "provider": "guardrail-cloud", "outcome": outcome},
                inc,
                initial=float(round(inc[0] * 9_000)) if outcome == "ok" else float(rng.randint(20, 300)),
            )
        dist = Dist(
            noisy(flat(c, 0.34) + slow * 6.1, rng, 0.05),
            0.45,
            tail_frac=fail_share,
            tail_median=flat(c, 10.0),
            tail_sigma=0.002,
        )
        p.om.histogram(
            "moderation_request_duration_seconds",
            "Latency of calls to the moderation provider.",
            {**base, "provider": "guardrail-cloud"},
            MOD_BUCKETS,
            t["arrivals"],
            dist,
            initial_count=float(round(t["arrivals"][0] * 9_000)),
        )
    ex.up(p.om, ofleet.replicas())

    bad = Series([0.0] * c.n)
    total = Series([0.0] * c.n)
    for t in per_pod:
        bad = bad + t["ut"] + t["dc"]
        total = total + t["ok"] + t["ut"] + t["dc"]
    ratio = rate_ratio(bad, total)
    sel = f'reporter="destination",destination_workload="chat-orchestrator",destination_workload_namespace="{NS}"'
    by = "sum by (destination_workload_namespace, destination_workload)"
    threshold_alert(
        p,
        expr=(
            f'{by} (rate(istio_requests_total{{{sel},response_code=~"5.."}}[5m])) / '
            f"{by} (rate(istio_requests_total{{{sel}}}[5m])) > 0.05"
        ),
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "IstioWorkloadErrorRatioHigh",
            "destination_workload": "chat-orchestrator",
            "destination_workload_namespace": NS,
            "severity": "critical",
            "team": "trust-safety-platform",
        },
        summary="chat-orchestrator: more than 5% of inbound requests fail (5xx, reporter=destination)",
        description="Istio reports a 5xx ratio above 5% for requests served by chat-orchestrator.",
        prometheus="http://prometheus.istio-observability.svc:9090",
        alertmanager="http://alertmanager.istio-observability.svc:9093",
        value_format="{:.4f}",
        runbook="https://wiki.trustsafe-demo.com/runbooks/istio-5xx",
        group_by=("alertname", "destination_workload_namespace", "destination_workload"),
    )

    # --- logs ---------------------------------------------------------------------------------------------
    for vm in vfleet.members:
        src = src_of(vm)
        for i in range(0, c.n - 1, 3):
            ts = p.ids.within(c.at(i))
            p.logs.add(
                ecs(
                    ts,
                    f'INFO:     127.0.0.6:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                    src,
                    status=200,
                )
            )
        vllm_stats(p, vm, every=3)

    def rid() -> str:
        return p.ids.request_id()

    for m, t in zip(ofleet.members, per_pod, strict=True):
        app = Source("chat-orchestrator", NS, m.name, m.node.name, "app")
        side = Source("chat-orchestrator", NS, m.name, m.node.name, "istio-proxy")
        for i in range(c.n - 1):
            minute = c.at(i)
            # a successful turn now and then (moderation, then generation)
            if i % 4 == 0:
                ts = p.ids.within(minute, 0.0, 50.0)
                mod_ms = int(1000 * (0.34 * rng.lognormvariate(0, 0.3) + slow[i + 1] * rng.uniform(3.0, 8.5)))
                llm_ms = int(1000 * rng.uniform(1.4, 4.2))
                r1, r2 = rid(), rid()
                mip = rng.choice(MOD_IPS)
                end1 = ts + timedelta(milliseconds=mod_ms)
                p.logs.add(
                    ecs(
                        end1,
                        istio_access(
                            end1,
                            path="/v2/moderate",
                            code=200,
                            bytes_rx=rng.randint(900, 3200),
                            bytes_tx=rng.randint(180, 260),
                            duration_ms=mod_ms,
                            upstream_ms=mod_ms - 1,
                            ua="python-httpx/0.27.2",
                            req_id=r1,
                            authority=MOD_HOST,
                            upstream_host=f"{mip}:443",
                            cluster=MOD_CLUSTER,
                            upstream_local=f"{m.ip}:{rng.randint(33000, 60999)}",
                            downstream_local=f"{mip}:80",
                            downstream_remote=f"{m.ip}:{rng.randint(33000, 60999)}",
                            route="-",
                        ),
                        side,
                        status=200,
                    )
                )
                p.logs.add(
                    ecs(
                        end1 + timedelta(milliseconds=1),
                        f'INFO httpx: HTTP Request: POST http://{MOD_HOST}/v2/moderate "HTTP/1.1 200 OK"',
                        app,
                    )
                )
                end2 = end1 + timedelta(milliseconds=llm_ms)
                p.logs.add(
                    ecs(
                        end2,
                        istio_access(
                            end2,
                            path="/v1/chat/completions",
                            code=200,
                            bytes_rx=rng.randint(2_000, 6_000),
                            bytes_tx=rng.randint(900, 2_400),
                            duration_ms=llm_ms,
                            upstream_ms=llm_ms - 1,
                            ua="AsyncOpenAI/Python 1.99.9",
                            req_id=r2,
                            authority=f"{vsvc}:8000",
                            upstream_host=f"{rng.choice(vfleet.members).ip}:8000",
                            cluster=f"outbound|8000||{vsvc}",
                            upstream_local=f"{m.ip}:{rng.randint(33000, 60999)}",
                            downstream_local="172.20.81.14:8000",
                            downstream_remote=f"{m.ip}:{rng.randint(33000, 60999)}",
                        ),
                        side,
                        status=200,
                    )
                )
                p.logs.add(
                    ecs(
                        end2 + timedelta(milliseconds=2),
                        f'INFO httpx: HTTP Request: POST http://{vsvc}:8000/v1/chat/completions "HTTP/1.1 200 OK"',
                        app,
                    )
                )
                p.logs.add(
                    ecs(
                        end2 + timedelta(milliseconds=4),
                        f'INFO:     127.0.0.6:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',  # noqa: E501
                        app,
                        status=200,
                    )
                )
            # failures: the mesh's 10 s timeout (UT) or the app's own (ReadTimeout, DC in the sidecar)
            for kind in ("ut", "dc"):
                if (kind == "ut") != (i % 2 == 0):
                    continue
                for _ in range(min(1, int(t[kind][i + 1]))):
                    lo = max(0.0, (onset + timedelta(seconds=10) - minute).total_seconds())
                    end = p.ids.within(minute, min(59.0, lo))
                    mip = rng.choice(MOD_IPS)
                    r = rid()
                    dur = 10_000 + rng.randint(0, 3) if kind == "ut" else 9_998 + rng.randint(0, 4)
                    p.logs.add(
                        ecs(
                            end,
                            istio_access(
                                end,
                                path="/v2/moderate",
                                code=504 if kind == "ut" else 0,
                                flags="UT" if kind == "ut" else "DC",
                                details="response_timeout"
                                if kind == "ut"
                                else "downstream_remote_disconnect",
                                bytes_rx=rng.randint(900, 3200),
                                bytes_tx=24 if kind == "ut" else 0,
                                duration_ms=dur,
                                upstream_ms=None,
                                ua="python-httpx/0.27.2",
                                req_id=r,
                                authority=MOD_HOST,
                                upstream_host=f"{mip}:443",
                                cluster=MOD_CLUSTER,
                                upstream_local=f"{m.ip}:{rng.randint(33000, 60999)}",
                                downstream_local=f"{mip}:80",
                                downstream_remote=f"{m.ip}:{rng.randint(33000, 60999)}",
                                route="-",
                            ),
                            side,
                            status=504 if kind == "ut" else None,
                        )
                    )
                    rq = f"req_{p.ids.hex(20)}"
                    if kind == "ut":
                        p.logs.add(
                            ecs(
                                end + timedelta(milliseconds=1),
                                f'INFO httpx: HTTP Request: POST http://{MOD_HOST}/v2/moderate "HTTP/1.1 504 Gateway Timeout"',  # noqa: E501
                                app,
                            )
                        )
                        msg = (
                            f"moderation check failed: provider=guardrail-cloud status=504 body='upstream request "
                            f"timeout' elapsed=10.00s request_id={rq}; failing closed (MODERATION_FAIL_MODE=closed)"
                        )
                        p.logs.add(
                            ecs(
                                end + timedelta(milliseconds=3),
                                f"ERROR orchestrator.moderation: {msg}",
                                app,
                                level="error",
                                error_type="httpx.HTTPStatusError",
                                error_message=f"Server error '504 Gateway Timeout' for url 'http://{MOD_HOST}/v2/moderate'",
                            )
                        )
                        code, phrase = 503, "Service Unavailable"
                    else:
                        stack = (
                            "Traceback (most recent call last):\n"
                            '  File "/usr/local/lib/python3.12/site-packages/httpx/_transports/default.py", line 101, '
                            "in map_httpcore_exceptions\n    yield\n"
                            '  File "/usr/local/lib/python3.12/site-packages/httpx/_transports/default.py", line 394, '
                            "in handle_async_request\n    resp = await self._pool.handle_async_request(req)\n"
                            "httpcore.ReadTimeout\n\nThe above exception was the direct cause of the following exception:\n\n"  # noqa: E501
                            "Traceback (most recent call last):\n"
                            '  File "/app/orchestrator/moderation.py", line 88, in check\n'
                            "    resp = await self._client.post(self._url, json=payload, timeout=self._timeout)\n"
                            "httpx.ReadTimeout"
                        )
                        msg = (
                            f"moderation check timed out after 10.0s (httpx.ReadTimeout) provider=guardrail-cloud "
                            f"url=http://{MOD_HOST}/v2/moderate request_id={rq}; failing closed"
                        )
                        p.logs.add(
                            ecs(
                                end + timedelta(milliseconds=2),
                                f"ERROR orchestrator.moderation: {msg}",
                                app,
                                level="error",
                                error_type="httpx.ReadTimeout",
                                error_message="",
                                stack=stack,
                            )
                        )
                        code, phrase = 504, "Gateway Timeout"
                    p.logs.add(
                        ecs(
                            end + timedelta(milliseconds=5),
                            f'INFO:     127.0.0.6:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" {code} {phrase}',  # noqa: E501
                            app,
                            status=code,
                        )
                    )
                    p.logs.add(
                        ecs(
                            end + timedelta(milliseconds=7),
                            istio_access(
                                end + timedelta(milliseconds=7),
                                path="/v1/chat/completions",
                                code=code,
                                bytes_rx=rng.randint(1_200, 4_000),
                                bytes_tx=71 if code == 503 else 69,
                                duration_ms=dur + 9,
                                upstream_ms=dur + 8,
                                xff=f"198.51.100.{rng.randint(2, 250)},10.73.12.31",
                                ua="ts-chat-web/4.12.0",
                                req_id=rid(),
                                authority=PUBLIC_HOST,
                                upstream_host=f"{m.ip}:8080",
                                cluster="inbound|8080||",
                                upstream_local=f"127.0.0.6:{rng.randint(33000, 60999)}",
                                downstream_local=f"{m.ip}:8080",
                                downstream_remote=f"10.73.12.31:{rng.randint(33000, 60999)}",
                                sni=f"outbound_.8080_._.{osvc}",
                            ),
                            side,
                            status=code,
                        )
                    )
    gsrc = Source("istio-ingressgateway", EDGE_NS, gpod.name, gpod.node, "istio-proxy")
    for i in range(c.n - 1):
        minute = c.at(i)
        for code in (200, 503, 504):
            n = int(gw_codes[(code, "-")][i + 1])
            k = (1 if i % 2 == 0 else 0) if code == 200 else min(1, n)
            for _ in range(k if n else 0):
                lo = (
                    0.0 if code == 200 else max(0.0, (onset + timedelta(seconds=10) - minute).total_seconds())
                )
                end = p.ids.within(minute, min(59.0, lo))
                m = rng.choice(ofleet.members)
                dur = int(1000 * rng.uniform(1.8, 5.0)) if code == 200 else 10_012 + rng.randint(0, 9)
                p.logs.add(
                    ecs(
                        end,
                        istio_access(
                            end,
                            path="/v1/chat/completions",
                            protocol="HTTP/2",
                            code=code,
                            bytes_rx=rng.randint(1_200, 4_000),
                            bytes_tx=rng.randint(900, 2_400) if code == 200 else (71 if code == 503 else 69),
                            duration_ms=dur,
                            upstream_ms=dur - 1,
                            xff=f"198.51.100.{rng.randint(2, 250)}",
                            ua="ts-chat-web/4.12.0",
                            req_id=rid(),
                            authority=PUBLIC_HOST,
                            upstream_host=f"{m.ip}:8080",
                            cluster=f"outbound|8080||{osvc}",
                            upstream_local=f"10.73.12.31:{rng.randint(33000, 60999)}",
                            downstream_local="10.73.12.31:8443",
                            downstream_remote=f"198.51.100.{rng.randint(2, 250)}:{rng.randint(33000, 60999)}",
                            sni=PUBLIC_HOST,
                            route="-",
                        ),
                        gsrc,
                        status=code,
                    )
                )
    # neighbours
    gsrc2 = Source(
        "vllm-llamaguard3-review", "trust-safety-review", guard.pods[0].name, guard.pods[0].node, "vllm"
    )
    for i in range(0, c.n - 1, 4):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f"INFO {ts.strftime('%m-%d %H:%M:%S')} [loggers.py:123] Engine 000: Avg prompt throughput: "
                f"{rng.uniform(300, 900):.1f} tokens/s, Avg generation throughput: {rng.uniform(2, 8):.1f} tokens/s, "
                f"Running: {rng.randint(0, 3)} reqs, Waiting: 0 reqs, GPU KV cache usage: {rng.uniform(0.5, 3):.1f}%, "
                "Prefix cache hit rate: 12.4%",
                gsrc2,
            )
        )
    csrc = Source("review-console", "trust-safety-review", console.pods[0].name, console.pods[0].node, "web")
    for i in range(1, c.n - 1, 5):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f'{{"level":"warn","time":"{iso(ts, ms=True)}","msg":"slow query","query":"cases.list","duration_ms":'
                f'{rng.randint(1100, 2600)},"reviewer_queue":"priority"}}',
                csrc,
                level="warn",
            )
        )

    # --- events (the decoys are in other namespaces) -----------------------------------------------------------
    ev: list[dict[str, Any]] = []
    ev.append(
        recurring(
            p,
            namespace="trust-safety-labeling",
            kind="Pod",
            name=xpod.name,
            uid=xpod.uid,
            reason="Failed",
            message=f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack '
            f'image "{image}": failed to resolve reference "{image}": {image}: not found',
            first_ago=(p.as_of - xpod.created) - timedelta(hours=1),
            last=p.ago(minutes=3, seconds=20),
            count=31,
            host=xpod.node,
            field_path="spec.containers{exporter}",
        )
    )
    ev.append(
        recurring(
            p,
            namespace="trust-safety-labeling",
            kind="Pod",
            name=xpod.name,
            uid=xpod.uid,
            reason="BackOff",
            message=f'Back-off pulling image "{image}"',
            first_ago=(p.as_of - xpod.created) - timedelta(hours=1),
            last=p.ago(seconds=41),
            count=704,
            warning=False,
            host=xpod.node,
            field_path="spec.containers{exporter}",
        )
    )
    ev[-1]["type"] = "Normal"
    cpod = console.pods[0]
    ev.append(
        recurring(
            p,
            namespace="trust-safety-review",
            kind="Pod",
            name=cpod.name,
            uid=cpod.uid,
            reason="Unhealthy",
            message=f'Readiness probe failed: Get "http://{cpod.ip}:3000/api/health": context deadline exceeded '
            "(Client.Timeout exceeded while awaiting headers)",
            first_ago=timedelta(days=1, hours=3),
            last=p.ago(minutes=11),
            count=38,
            host=cpod.node,
            field_path="spec.containers{web}",
        )
    )
    ev.append(
        recurring(
            p,
            namespace="default",
            kind="Node",
            name=cpu_nodes[2].name,
            uid=cpu_nodes[2].uid,
            reason="SystemOOM",
            message="System OOM encountered, victim process: node, pid: 28311",
            first_ago=timedelta(minutes=52),
            last=p.ago(minutes=52),
            count=1,
            host=cpu_nodes[2].name,
        )
    )
    gpod2 = guard.pods[0]
    ev.append(
        recurring(
            p,
            namespace="trust-safety-review",
            kind="Pod",
            name=gpod2.name,
            uid=gpod2.uid,
            reason="FailedMount",
            message='MountVolume.SetUp failed for volume "hf-token" : secret "hf-token-review" not found',
            first_ago=timedelta(minutes=58),
            last=p.ago(minutes=9),
            count=12,
            host=gpod2.node,
        )
    )

    # --- objects ------------------------------------------------------------------------------------------
    side_strip = ("istio-proxy",)
    vw.pods = [m.info for m in vfleet.members if m.info is not None]
    ow.pods = [m.info for m in ofleet.members if m.info is not None]
    for objs in (vfleet.objects(), ofleet.objects()):
        for o in objs:
            if o["kind"] in ("Deployment", "ReplicaSet"):
                spec = o["spec"]["template"]["spec"]
                spec["containers"] = [ct for ct in spec["containers"] if ct["name"] not in side_strip]
                o["spec"]["template"]["metadata"].pop("annotations", None)
                o["spec"]["template"]["metadata"]["annotations"] = {
                    "kubectl.kubernetes.io/default-container": spec["containers"][0]["name"]
                }
            if o["kind"] == "Pod":
                o["metadata"]["labels"].update(
                    {
                        "security.istio.io/tlsMode": "istio",
                        "service.istio.io/canonical-name": o["metadata"]["labels"]["app"],
                        "service.istio.io/canonical-revision": o["metadata"]["labels"]["version"],
                    }
                )
            p.objects.append(o)
    se_meta = {"namespace": NS, "creationTimestamp": iso(p.ago(days=140)), "generation": 3}
    p.objects.extend(
        [
            {
                "apiVersion": "networking.istio.io/v1",
                "kind": "ServiceEntry",
                "metadata": {"name": "guardrail-cloud-api", **se_meta},
                "spec": {
                    "hosts": [MOD_HOST],
                    "location": "MESH_EXTERNAL",
                    "ports": [{"number": 80, "name": "http", "protocol": "HTTP", "targetPort": 443}],
                    "resolution": "DNS",
                },
            },
            {
                "apiVersion": "networking.istio.io/v1",
                "kind": "DestinationRule",
                "metadata": {"name": "guardrail-cloud-api", **se_meta},
                "spec": {
                    "host": MOD_HOST,
                    "trafficPolicy": {
                        "connectionPool": {"http": {"http1MaxPendingRequests": 256, "idleTimeout": "60s"}},
                        "portLevelSettings": [
                            {"port": {"number": 80}, "tls": {"mode": "SIMPLE", "sni": MOD_HOST}}
                        ],
                    },
                },
            },
            {
                "apiVersion": "networking.istio.io/v1",
                "kind": "VirtualService",
                "metadata": {"name": "guardrail-cloud-api", **se_meta},
                "spec": {
                    "hosts": [MOD_HOST],
                    "http": [
                        {
                            "timeout": "10s",
                            "route": [{"destination": {"host": MOD_HOST, "port": {"number": 80}}}],
                        }
                    ],
                },
            },
            {
                "apiVersion": "networking.istio.io/v1",
                "kind": "VirtualService",
                "metadata": {
                    "name": "chat-public",
                    "namespace": NS,
                    "creationTimestamp": iso(p.ago(days=300)),
                    "generation": 11,
                },
                "spec": {
                    "hosts": [PUBLIC_HOST],
                    "gateways": [f"{EDGE_NS}/public-gw"],
                    "http": [
                        {
                            "match": [{"uri": {"prefix": "/v1/"}}],
                            "timeout": "60s",
                            "route": [{"destination": {"host": osvc, "port": {"number": 8080}}}],
                        }
                    ],
                },
            },
        ]
    )
    p.objects.extend(gw.objects(p.as_of))
    p.objects.extend(guard.objects(p.as_of))
    p.objects.extend(console.objects(p.as_of))
    p.objects.extend(exporter.objects(p.as_of, service=False))
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in cpu_nodes)
    p.objects.extend(ev)
    p.record_gpus(gpus)

    # --- the answer ------------------------------------------------------------------------------------------
    p.expect("infrastructure", "DEP_EXTERNAL_TIMEOUT")
    vlive = [m for m in vfleet.members if m.info is not None]
    olive = [m for m in ofleet.members if m.info is not None]
    p.forbidden = [
        *[("restart_pod", f"pod/{m.name}") for m in vlive + olive],
        ("rollback_deployment", f"deployment/{vw.name}"),
        ("rollback_deployment", f"deployment/{ow.name}"),
        ("add_replica", f"deployment/{vw.name}"),
        ("add_replica", f"deployment/{ow.name}"),
        *[("cordon_node", f"node/{n}") for n in gnames],
        *[("cordon_node", f"node/{m.node.name}") for m in olive],
        ("restart_pod", f"pod/{guard.pods[0].name}"),
        ("rollback_deployment", f"deployment/{guard.w.name}"),
        ("restart_pod", f"pod/{xpod.name}"),
        ("rollback_deployment", f"deployment/{exporter.w.name}"),
        ("restart_pod", f"pod/{gpod.name}"),
        ("cordon_node", f"node/{cpu_nodes[2].name}"),
    ]
    p.scope = [
        f"deployment/{ow.name}",
        f"deployment/{vw.name}",
        *[f"pod/{m.name}" for m in olive + vlive],
        *[f"node/{m.node.name}" for m in olive + vlive],
        "serviceentry/guardrail-cloud-api",
        "virtualservice/guardrail-cloud-api",
    ]
    p.notes["onset"] = iso(onset)
    return p
