"""An Ingress re-apply adds `limit-rps: "2"`: ingress-nginx throttles the code-assist API with 429 per client IP.

At 10:03:20 a platform engineer re-applies the code-assist Ingress with
`nginx.ingress.kubernetes.io/limit-rps: "2"` (meant per developer). ingress-nginx keys the limit on
the client address, and most developers reach it through two VPN concentrators and one office NAT:
each controller pod now lets 2 requests per second (burst 10) through per address and answers the
rest with 429 (`limit-req-status-code: "429"` in the controller ConfigMap; the error log says
`limiting requests, excess: 10.4xx by zone "..._rps"`). The one backend, two vLLM replicas of
StarCoder2-15B, gets fewer requests than before and idles around 20 % GPU. Someone had scaled the
Deployment from 3 to 2 replicas at 09:41; nothing failed until the Ingress changed.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, threshold_alert
from ..engines import src_of, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs
from ..pack import Pack
from ..series import Series, diurnal, flat, iso, noisy
from ..traffic import node_timeline
from .p19_pyrra_alert_gateway_timeout_cut import (
    ERROR_PAGE,
    ScopedPack,
    conf_diff,
    controller_reload_logs,
    cpu_node,
    dcgm_busy,
    dcgm_idle,
    idle_gaps,
    ingress,
    minute_fraction_after,
    nginx_access,
    nginx_controller,
    nginx_controller_metrics,
    nginx_error,
    nginx_requests,
    recurring,
    tenant,
    zone_id,
)

NAME = "nginx-ratelimit-429-after-policy-change"
ENGINE = "vLLM 0.11.0 behind ingress-nginx 1.11 (per-IP limit-rps)"
NS = "dev-portal-llm"
CTRL_NS = "dev-portal-ingress"
RELEASE = "devportal-edge"
HOST = "codeassist.dp.globex.internal"
MODEL = "starcoder2-15b-instruct"
ING = "codeassist-api"


def build() -> Pack:
    p = ScopedPack(
        NAME,
        as_of="2026-09-17T10:26:00Z",
        namespace=NS,
        seed=2121,
        description="Developer portal: the code-assist plugin shows 'Too Many Requests' for most users.",
    )
    c, rng = p.clock, p.rng
    t_scale = p.t("09:41:25")
    t_change = p.t("10:03:20")
    first_reject = t_change + timedelta(milliseconds=700)

    # --- nodes (on-prem kubeadm) ------------------------------------------------------------------------
    metal = dict(
        kernel="6.8.0-45-generic",
        os_image="Ubuntu 24.04.1 LTS",
        kubelet_version="v1.31.2",
        runtime="containerd://1.7.22",
        driver="560.35.03",
    )
    gpu_nodes = {}
    for name, ip in (
        ("dp-gpu-l40s-r2-n03", "10.60.2.13"),
        ("dp-gpu-l40s-r2-n04", "10.60.2.14"),
        ("dp-gpu-l40s-r2-n07", "10.60.2.17"),
        ("dp-gpu-l40s-r3-n01", "10.60.3.11"),
    ):
        node, devs = p.gpu_node(
            name,
            ip=ip,
            zone="dc-ber1-r2" if "-r2-" in name else "dc-ber1-r3",
            instance_type="SYS-421GE-TNRT",
            product="NVIDIA L40S",
            count=2,
            pod_cidr=f"10.233.{64 + len(gpu_nodes)}.0/24",
            cpu=64,
            memory_mi=524_288,
            **metal,
        )
        node.labels.update({"topology.kubernetes.io/region": "dc-ber1", "node-role.globex.io/gpu": "l40s"})
        gpu_nodes[name] = (node, devs)
    gnames = list(gpu_nodes)
    cpu_nodes = [
        cpu_node(
            p,
            f"dp-cpu-r1-n0{j + 1}",
            f"10.60.1.{21 + j}",
            zone="dc-ber1-r1",
            instance_type="SYS-111C-NR",
            cidr=f"10.233.{80 + j}.0/24",
            cpu=32,
            mem_gi=128,
            kernel="6.8.0-45-generic",
            os_image="Ubuntu 24.04.1 LTS",
            kubelet_version="v1.31.2",
            runtime="containerd://1.7.22",
        )
        for j in range(2)
    ]
    for n in cpu_nodes:
        n.labels["topology.kubernetes.io/region"] = "dc-ber1"

    # --- the model service: one Deployment, one Service -------------------------------------------------------
    args = [
        "--model",
        "/models/bigcode/starcoder2-15b-instruct-v0.1",
        "--served-model-name",
        MODEL,
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.9",
        "--max-num-seqs",
        "64",
        "--enable-prefix-caching",
    ]
    rev = p.revision(
        5,
        p.ago(days=16, hours=3),
        "vllm/vllm-openai:v0.11.0",
        args,
        replicas=2,
        env=[{"name": "HF_HUB_OFFLINE", "value": "1"}],
        change_cause="vllm v0.11.0",
    )
    w = k8s.Workload(
        name="vllm-starcoder2-15b",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={"app": "vllm-starcoder2-15b", "app.kubernetes.io/part-of": "codeassist"},
        revisions=[rev],
        pods=[],
        created=p.ago(days=130),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="64Gi",
        memory_limit="80Gi",
        cpu="8",
        cluster_ip="10.96.140.33",
        node_selector={"node-role.globex.io/gpu": "l40s"},
        volumes=[
            {"name": "models", "nfs": {"server": "nas-ber1-02.globex.internal", "path": "/export/models"}}
        ],
        volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
        generation=17,
    )
    fleet = Fleet(p, w, job="vllm-starcoder2-15b", model=MODEL)
    load = dict(prompt_len=1450, gen_len=58, ttft=0.12, itl=0.021, kv=0.12, util=36, fb_used=41_870)
    members = []
    for j in range(3):
        node, devs = gpu_nodes[gnames[j]]
        members.append(
            fleet.add(
                rev,
                node,
                [devs[j % 2]],
                f"10.233.{64 + j}.{40 + 11 * j}",
                deleted=t_scale + timedelta(seconds=2) if j == 2 else None,
                rpm=340,
                **load,
            )
        )
    members[2].info = None
    live = members[:2]

    # --- traffic: who calls, from which address ------------------------------------------------------------------
    wob = diurnal(c, rng, 0.05)
    callers = {  # requests per second and the address ingress-nginx keys the limit on
        "10.250.0.11": 8.6,  # VPN concentrator A
        "10.250.0.12": 5.1,  # VPN concentrator B
        "10.251.4.20": 2.4,  # office NAT
        "10.233.81.57": 0.5,  # CI review bot (in cluster)
    }
    after = Series(minute_fraction_after(c, i, first_reject) for i in range(c.n))
    ctrl_ok = [flat(c, 0.0), flat(c, 0.0)]
    ctrl_429 = [flat(c, 0.0), flat(c, 0.0)]
    for i in range(c.n):
        for rps in callers.values():
            offered = rps * 60 * wob[i] * rng.uniform(0.95, 1.05)
            for j in range(2):
                share = offered * (0.5 + rng.uniform(-0.03, 0.03))
                per_s = share / 60.0
                # 2 r/s per address on each controller pod; bursts let a little more through
                allowed = min(per_s, 2.0 + 0.12 * min(per_s, 6.0)) * 60.0
                rej = max(0.0, share - allowed) * after[i]
                ctrl_ok[j][i] += share - rej
                ctrl_429[j][i] += rej
    cancelled = [noisy(s * 0.075, rng, 0.1) for s in ctrl_ok]  # IDE cancels completions as the user types
    ok = [(ctrl_ok[j] - cancelled[j]).ints() for j in range(2)]
    ctrl_429 = [s.ints() for s in ctrl_429]
    cancelled = [s.ints() for s in cancelled]

    ok_by_pod = {m.name: flat(c, 0.0) for m in members}
    for i in range(c.n):
        up = [m for m in members if m.timeline.ready[i] and m.rep.present[i]]
        for m in up:
            ok_by_pod[m.name][i] = float(
                round((ok[0][i] + ok[1][i]) * (1 / len(up)) * (1 + rng.gauss(0, 0.03)))
            )
    for m in members:
        r = m.rep
        r.codes[200] = ok_by_pod[m.name]
        r.served_s = r.codes[200] * 1.08
        rps = r.codes[200] / 60.0
        r.running = Series(float(max(0, round(v * 0.62 + rng.uniform(-1, 1)))) if v else 0.0 for v in rps)
        r.kv = Series(min(0.9, 0.03 + 0.012 * v) if v else 0.0 for v in r.running)
        r.waiting = flat(c, 0.0)
        for g in m.gpus:
            g.util = Series(
                float(round(6 + 2.4 * rps[i] + rng.uniform(-2, 2))) if r.present[i] else g.util[i]
                for i in range(c.n)
            )
            g.power = Series(
                round(88 + 2.6 * g.util[i] + rng.uniform(-5, 5), 3) if r.present[i] else g.power[i]
                for i in range(c.n)
            )

    # --- tenants ------------------------------------------------------------------------------------------------
    emb_node, emb_devs = gpu_nodes[gnames[3]]
    emb = tenant(
        p,
        name="tei-bge-m3-docs",
        namespace="dev-portal-search",
        image="ghcr.io/huggingface/text-embeddings-inference:1.6",
        args=["--model-id", "/models/BAAI/bge-m3", "--port", "8080", "--max-batch-tokens", "32768"],
        placement=[(emb_node, "10.233.67.21")],
        container="tei",
        port=8080,
        gpus=1,
        gpu_uuids=[[emb_devs[0].uuid]],
        cpu="4",
        memory="16Gi",
        memory_limit="24Gi",
        age_days=33,
        revision=4,
        cluster_ip="10.96.77.141",
        readiness={"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10},
        node_selector={"node-role.globex.io/gpu": "l40s"},
    )
    web = tenant(
        p,
        name="devportal-backstage",
        namespace="dev-portal-web",
        image="registry.globex.internal/devex/backstage:1.31.2-globex.7",
        args=["--config", "app-config.yaml", "--config", "app-config.production.yaml"],
        placement=[(cpu_nodes[0], "10.233.80.31"), (cpu_nodes[1], "10.233.81.18")],
        container="backstage",
        port=7007,
        cpu="1",
        memory="2Gi",
        memory_limit="3Gi",
        age_days=8,
        revision=112,
        cluster_ip="10.96.55.70",
        readiness={"httpGet": {"path": "/.backstage/health/v1/readiness", "port": 7007}, "periodSeconds": 10},
    )
    reviewer = tenant(
        p,
        name="mr-review-bot",
        namespace="dev-portal-ci",
        image="registry.globex.internal/devex/mr-review-bot:0.9.4",
        args=["--llm-base-url", f"https://{HOST}/v1", "--model", MODEL],
        placement=[(cpu_nodes[1], "10.233.81.57")],
        container="bot",
        port=8088,
        age_days=5,
        revision=9,
        cluster_ip="10.96.90.5",
    )
    lora = tenant(
        p,
        name="starcoder2-lora-eval",
        namespace="dev-portal-research",
        image="registry.globex.internal/research/lora-eval:2026.09.2",
        args=["--adapter", "s3://dp-research/adapters/sc2-15b-kotlin-r3", "--suite", "humaneval-kt"],
        placement=[(cpu_nodes[1], "")],
        container="eval",
        port=8000,
        gpus=4,
        cpu="16",
        memory="96Gi",
        memory_limit="128Gi",
        age_days=0.9,
        revision=1,
        cluster_ip="10.96.101.9",
        node_selector={"node-role.globex.io/gpu": "l40s"},
    )
    pend = lora.pods[0]
    pend.node = pend.ip = pend.host_ip = None
    pend.phase = "Pending"
    pend.ready = False
    sched_msg = (
        "0/6 nodes are available: 2 node(s) didn't match Pod's node affinity/selector, 4 Insufficient "
        "nvidia.com/gpu. preemption: 0/6 nodes are available: 2 Preemption is not helpful for scheduling, "
        "4 No preemption victims found for incoming pod."
    )
    pend.unschedulable_message = sched_msg
    lora_tl = lora.timelines[0]
    lora_tl.node = lora_tl.ip = lora_tl.host_ip = None
    lora_tl.ready = [False] * c.n
    lora_tl.phase = ["Pending"] * c.n
    ctrl, ctrl_objs = nginx_controller(
        p,
        release=RELEASE,
        namespace=CTRL_NS,
        placement=[(cpu_nodes[0], "10.233.80.9"), (cpu_nodes[1], "10.233.81.6")],
        extra_args=["--v=2", "--watch-ingress-without-class=false"],
        config={
            "allow-snippet-annotations": "false",
            "use-forwarded-headers": "true",
            "compute-full-forwarded-for": "true",
            "proxy-real-ip-cidr": "10.250.0.0/24,10.251.0.0/16,10.233.0.0/16",
            "limit-req-status-code": "429",
            "limit-conn-status-code": "429",
            "proxy-body-size": "8m",
            "worker-processes": "8",
        },
        lb_ip="10.60.9.40",
        cluster_ip="10.96.12.40",
        lb_annotations={"metallb.universe.tf/ip-allocated-from-pool": "dc-ber1-ingress"},
    )
    ctrl_pods = [(pi.name, pi.ip or "") for pi in ctrl.pods]

    # --- metrics ------------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    p.om.families.pop("vllm:time_to_first_token_seconds")  # not kept by the recording (size)
    gpus_all = fleet.gpu_series() + idle_gaps(p, fleet.gpu_series())
    busy_devs = {g.dev.uuid for g in gpus_all}
    for name in gnames[:3]:
        gpus_all += dcgm_idle(p, [d for d in gpu_nodes[name][1] if d.uuid not in busy_devs])
    gpus_all += dcgm_busy(
        p,
        [emb_devs[0]],
        util=22,
        fb=9_410,
        pod=emb.pods[0].name,
        namespace="dev-portal-search",
        container="tei",
    )
    gpus_all += dcgm_idle(p, [emb_devs[1]])
    ex.dcgm(p.om, gpus_all, driver="560.35.03")
    ex.ksm_pods(p.om, fleet.timelines() + ctrl.timelines + emb.timelines + lora.timelines, phase=False)
    ex.ksm_nodes(
        p.om,
        [node_timeline(c, n, gpus=2, internal_ip=nd.internal_ip) for n, (nd, _) in gpu_nodes.items()]
        + [node_timeline(c, n.name, internal_ip=n.internal_ip) for n in cpu_nodes],
    )
    k_scale = c.idx(t_scale)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=w.name,
        spec=Series(3.0 if i < k_scale else 2.0 for i in range(c.n)),
        available=fleet.ready_count(),
        generation=Series(16.0 if i < k_scale else 17.0 for i in range(c.n)),
    )
    ex.ksm_deployment(p.om, namespace=CTRL_NS, name=ctrl.w.name, spec=flat(c, 2), available=flat(c, 2))
    ex.ksm_deployment(
        p.om, namespace="dev-portal-research", name=lora.w.name, spec=flat(c, 1), available=flat(c, 0)
    )
    per_ctrl = [{200: ok[j], 429: ctrl_429[j], 499: cancelled[j]} for j in range(2)]
    nginx_requests(
        p.om,
        release=RELEASE,
        ctrl=ctrl_pods,
        ctrl_ns=CTRL_NS,
        honor=False,
        ingress_name=ING,
        namespace=NS,
        service=w.name,
        host=HOST,
        path="/v1",
        method="POST",
        codes=per_ctrl,
        uptime_min=14_200,
        seen_before={429: 0.0 + 37, 499: 1_188_406},
    )
    web_ok = noisy(flat(c, 410.0) * wob, rng, 0.06)
    web_304 = noisy(flat(c, 95.0) * wob, rng, 0.1)

    def split(s: Series) -> list[Series]:
        a = Series(float(round(v * rng.uniform(0.46, 0.54))) for v in s.ints())
        return [a, s.ints() - a]

    nginx_requests(
        p.om,
        release=RELEASE,
        ctrl=ctrl_pods,
        ctrl_ns=CTRL_NS,
        honor=False,
        ingress_name="devportal",
        namespace="dev-portal-web",
        service="devportal-backstage",
        host="devportal.dp.globex.internal",
        path="/",
        method="GET",
        codes=[{200: a, 304: b} for a, b in zip(split(web_ok), split(web_304), strict=True)],
        uptime_min=14_200,
    )
    reload_at = t_change + timedelta(milliseconds=310)
    nginx_controller_metrics(
        p.om,
        c,
        release=RELEASE,
        ctrl=ctrl_pods,
        ctrl_ns=CTRL_NS,
        honor=False,
        reloads=[reload_at],
        hashes=(9123307751208834117.0, 13379044582166119050.0),
        change=reload_at,
        reloads_before=402,
        last_reload_before=p.t("16:48:02") - timedelta(days=2),
    )
    bad = ctrl_429[0] + ctrl_429[1]
    total = bad + ok[0] + ok[1] + cancelled[0] + cancelled[1]
    ratio = rate_ratio(bad, total)
    sel = f'exported_namespace="{NS}",ingress="{ING}"'
    threshold_alert(
        p,
        expr=(
            f"sum by (exported_namespace, ingress) (rate(nginx_ingress_controller_requests{{{sel},"
            f'status=~"429|5.."}}[5m])) / sum by (exported_namespace, ingress) '
            f"(rate(nginx_ingress_controller_requests{{{sel}}}[5m])) > 0.05"
        ),
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=5,
        labels={
            "alertname": "IngressErrorRatioHigh",
            "exported_namespace": NS,
            "ingress": ING,
            "severity": "page",
            "team": "devex-platform",
        },
        summary=f"Ingress {ING} ({NS}) answers more than 5% 429/5xx",
        description="Share of 429 and 5xx answers at the edge for the code-assist API over 5 minutes.",
        prometheus="http://kube-prometheus-stack-prometheus.monitoring-dp.svc:9090",
        alertmanager="http://kube-prometheus-stack-alertmanager.monitoring-dp.svc:9093",
        value_format="{:.4f}",
        runbook="https://devex.globex.internal/runbooks/ingress-error-ratio",
        group_by=("alertname", "exported_namespace", "ingress"),
    )

    # --- logs ---------------------------------------------------------------------------------------------
    for m in members:
        p.access_logs(
            m.rep,
            src_of(m),
            lambda ts, code, client: (
                f'(APIServer pid=1) INFO:     {client} - "POST /v1/completions HTTP/1.1" {code} OK'
            ),
            clients=[ip for _, ip in ctrl_pods],
            every=3,
        )
        vllm_stats(p, m, every=3)
    ctrl_srcs = [Source("ingress-nginx", CTRL_NS, pi.name, pi.node, "controller") for pi in ctrl.pods]
    upstream = f"{NS}-{w.name}-8000"
    ing_uid = k8s.new_uid(rng)
    zone = f"{NS}_{ING}_{ing_uid}"
    conn = [1_882_000 + rng.randint(0, 9000), 1_790_000 + rng.randint(0, 9000)]
    agents = ["devpilot-vscode/1.42.0 (VS Code 1.104.0)", "devpilot-jetbrains/1.41.3 (IntelliJ IDEA 2025.2)"]
    heavy = sorted(callers, key=lambda ip: -callers[ip])
    for i in range(c.n - 1):
        minute = c.at(i)
        for j, src in enumerate(ctrl_srcs):
            conn[j] += rng.randint(8000, 11000)
            if i % 3 == j:
                ts = p.ids.within(minute)
                dur = rng.uniform(0.35, 1.4)
                live_now = [m for m in members if m.timeline.ready[min(i + 1, c.n - 1)]]
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=rng.choice(heavy[:3]),
                            method="POST",
                            path="/v1/completions",
                            status=200,
                            body_bytes=rng.randint(380, 1400),
                            user_agent=rng.choice(agents),
                            request_length=rng.randint(4_000, 9_000),
                            request_time=dur,
                            upstream_name=upstream,
                            upstream_addr=f"{rng.choice(live_now).ip}:8000",
                            upstream_length=rng.randint(380, 1400),
                            upstream_time=dur - 0.001,
                            upstream_status=200,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=200,
                    )
                )
            if i % 4 == j * 2:
                ts = p.ids.within(minute)
                live_now = [m for m in members if m.timeline.ready[min(i + 1, c.n - 1)]]
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=rng.choice(heavy[:2]),
                            method="POST",
                            path="/v1/completions",
                            status=499,
                            body_bytes=0,
                            user_agent=rng.choice(agents),
                            request_length=rng.randint(4_000, 9_000),
                            request_time=rng.uniform(0.05, 0.3),
                            upstream_name=upstream,
                            upstream_addr=f"{rng.choice(live_now).ip}:8000",
                            upstream_length=0,
                            upstream_time=rng.uniform(0.05, 0.3),
                            upstream_status=None,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=499,
                    )
                )
            n429 = int(per_ctrl[j][429][i + 1])
            for _ in range(min(2, n429)):
                lo = max(0.0, (first_reject - minute).total_seconds())
                ts = p.ids.within(minute, min(59.0, lo))
                ip = rng.choices(heavy[:2], weights=[5, 1])[0]
                conn_id = conn[j] + rng.randint(0, 7000)
                worker = 38 + rng.randint(0, 7)
                p.logs.add(
                    ecs(
                        ts,
                        nginx_error(
                            ts,
                            level="error",
                            worker=worker,
                            conn=conn_id,
                            msg=f'limiting requests, excess: {10 + rng.uniform(0.0, 0.99):.3f} by zone "{zone}_rps", '
                            f'client: {ip}, server: {HOST}, request: "POST /v1/completions HTTP/1.1", '
                            f'host: "{HOST}"',
                        ),
                        src,
                        level="error",
                    )
                )
                p.logs.add(
                    ecs(
                        ts + timedelta(microseconds=rng.randint(50, 400)),
                        nginx_access(
                            ts,
                            client=ip,
                            method="POST",
                            path="/v1/completions",
                            status=429,
                            body_bytes=len(ERROR_PAGE[429]),
                            user_agent=rng.choice(agents),
                            request_length=rng.randint(4_000, 9_000),
                            request_time=0.000,
                            upstream_name=upstream,
                            upstream_addr=None,
                            upstream_length=None,
                            upstream_time=None,
                            upstream_status=None,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=429,
                    )
                )
            if i % 3 == (j + 1) % 3:
                ts = p.ids.within(minute)
                path = rng.choice(
                    ["/api/catalog/entities?filter=kind=component", "/api/search/query?term=payments"]
                )
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=rng.choice(heavy[:3]),
                            method="GET",
                            path=path,
                            status=200,
                            body_bytes=rng.randint(2_000, 60_000),
                            user_agent="Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0",
                            request_length=rng.randint(900, 1600),
                            request_time=rng.uniform(0.02, 0.4),
                            upstream_name="dev-portal-web-devportal-backstage-7007",
                            upstream_addr=f"{rng.choice(web.pods).ip}:7007",
                            upstream_length=rng.randint(2_000, 60_000),
                            upstream_time=rng.uniform(0.02, 0.4),
                            upstream_status=200,
                            req_id=p.ids.hex(32),
                            referer="https://devportal.dp.globex.internal/catalog",
                        ),
                        src,
                        status=200,
                    )
                )
    zid = zone_id(zone)
    diff = conf_diff(
        [
            "@@ -318,6 +318,17 @@\n"
            " \t\n"
            " \tproxy_pass_header Server;\n"
            " \t\n"
            f"+\t# Ratelimit {ING}_{NS}\n"
            f"+\tgeo $remote_addr $allowlist_{zid} {{\n"
            "+\t\tdefault 0;\n"
            "+\t}\n"
            "+\t\n"
            f"+\t# Ratelimit {ING}_{NS}\n"
            f"+\tmap $allowlist_{zid} $limit_{zid} {{\n"
            "+\t\t0 $binary_remote_addr;\n"
            '+\t\t1 "";\n'
            "+\t}\n"
            "+\t\n"
            f"+\tlimit_req_zone $limit_{zid} zone={zone}_rps:5m rate=2r/s;\n"
            " \t\n"
            " \t# Global filters\n"
            " \t\n",
            "@@ -1402,6 +1413,8 @@\n"
            " \t\t\t\n"
            ' \t\t\tset $proxy_alternative_upstream_name "";\n'
            " \t\t\t\n"
            f"+\t\t\tlimit_req zone={zone}_rps burst=10 nodelay;\n"
            "+\t\t\t\n"
            " \t\t\t# be careful with `access_log off` directive, request metrics\n"
            " \t\t\t# are not reported to the prometheus monitoring system\n",
        ],
        (9123307751208834117, 13379044582166119050),
        changed_at=[
            p.t("16:48:02") - timedelta(days=2, microseconds=-207_551),
            p.t("16:48:02") - timedelta(days=2, microseconds=-260_913),
        ],
    )
    ing_rv = "88120937"
    controller_reload_logs(
        p,
        srcs=ctrl_srcs,
        ctrl_pods=[pi.name for pi in ctrl.pods],
        ctrl_uids=[pi.uid for pi in ctrl.pods],
        ctrl_ns=CTRL_NS,
        ing_ns=NS,
        ing_name=ING,
        ing_uid=ing_uid,
        ing_rv=ing_rv,
        at=t_change,
        diff=diff,
        admission_pod=1,
    )
    # the callers
    rsrc = Source("mr-review-bot", "dev-portal-ci", reviewer.pods[0].name, reviewer.pods[0].node, "bot")
    for i in range(0, c.n - 1, 2):
        ts = p.ids.within(c.at(i))
        mr = rng.randint(18000, 18999)
        if c.at(i) >= first_reject and i % 4 == 0:
            p.logs.add(
                ecs(
                    ts,
                    "INFO httpx: HTTP Request: POST https://codeassist.dp.globex.internal/v1/completions "
                    '"HTTP/1.1 200 OK"',
                    rsrc,
                )
            )
        else:
            p.logs.add(ecs(ts, f"INFO review_bot.worker: reviewed !{mr} (3 files, 212 lines) in 4.1s", rsrc))
    esrc = Source("tei-bge-m3-docs", "dev-portal-search", emb.pods[0].name, emb.pods[0].node, "tei")
    for i in range(0, c.n - 1, 4):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f'{iso(ts, ms=True)[:-1]}{rng.randint(100, 999)}Z  INFO embed{{total_time="{rng.uniform(8, 40):.6f}ms" '
                f'tokenization_time="{rng.uniform(0.3, 1.2):.6f}ms" queue_time="{rng.uniform(0.1, 2):.6f}ms" '
                f'inference_time="{rng.uniform(6, 35):.6f}ms"}}: text_embeddings_router::http::server: '
                "router/src/http/server.rs:714: Success",
                esrc,
            )
        )

    # --- events ---------------------------------------------------------------------------------------------
    ev: list[dict[str, Any]] = []
    rs_name = f"{w.name}-{rev.hash}"
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Deployment",
            name=w.name,
            uid=w.uid,
            reason="ScalingReplicaSet",
            message=f"Scaled down replica set {rs_name} from 3 to 2",
            first=t_scale,
            warning=False,
            component="deployment-controller",
            api_version="apps/v1",
        )
    )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="ReplicaSet",
            name=rs_name,
            uid=rev.uid,
            reason="SuccessfulDelete",
            message=f"Deleted pod: {members[2].name}",
            first=t_scale + timedelta(seconds=1),
            warning=False,
            component="replicaset-controller",
            api_version="apps/v1",
        )
    )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=members[2].name,
            uid=members[2].uid,
            reason="Killing",
            message="Stopping container vllm",
            first=t_scale + timedelta(seconds=1),
            warning=False,
            host=members[2].node.name,
            field_path="spec.containers{vllm}",
        )
    )
    for j, pi in enumerate(ctrl.pods):
        ev.append(
            recurring(
                p,
                namespace=NS,
                kind="Ingress",
                name=ING,
                uid=ing_uid,
                reason="Sync",
                message="Scheduled for sync",
                first_ago=timedelta(days=128, hours=j),
                last=t_change + timedelta(milliseconds=40),
                count=23 + j,
                warning=False,
                component="nginx-ingress-controller",
                api_version="networking.k8s.io/v1",
            )
        )
        ev.append(
            recurring(
                p,
                namespace=CTRL_NS,
                kind="Pod",
                name=pi.name,
                uid=pi.uid,
                reason="RELOAD",
                message="NGINX reload triggered due to a change in configuration",
                first_ago=timedelta(days=61, hours=3 * j),
                last=reload_at + timedelta(milliseconds=150),
                count=402 + 2 * j,
                warning=False,
                component="nginx-ingress-controller",
            )
        )
    ev.append(
        recurring(
            p,
            namespace="dev-portal-research",
            kind="Pod",
            name=pend.name,
            uid=pend.uid,
            reason="FailedScheduling",
            message=sched_msg,
            first_ago=(p.as_of - pend.created) - timedelta(hours=1),
            last=p.ago(minutes=2, seconds=11),
            count=262,
            component="default-scheduler",
        )
    )
    for n in (cpu_nodes[1], gpu_nodes[gnames[3]][0]):
        ev.append(
            recurring(
                p,
                namespace="default",
                kind="Node",
                name=n.name,
                uid=n.uid,
                reason="FreeDiskSpaceFailed" if n is cpu_nodes[1] else "ImageGCFailed",
                message="Failed to garbage collect required amount of images. Attempted to free 18874368000 bytes, "
                "but only found 6211219456 bytes eligible to free."
                if n is cpu_nodes[1]
                else "wanted to free 21474836480 bytes, but freed 4089446400 bytes space with errors in image deletion",
                first_ago=timedelta(days=3, hours=2),
                last=p.ago(minutes=rng.randint(4, 50)),
                count=rng.randint(180, 420),
                host=n.name,
            )
        )
    rpod = reviewer.pods[0]
    ev.append(
        recurring(
            p,
            namespace="dev-portal-ci",
            kind="Pod",
            name=rpod.name,
            uid=rpod.uid,
            reason="Unhealthy",
            message=f'Readiness probe failed: Get "http://{rpod.ip}:8088/ready": context deadline exceeded',
            first_ago=timedelta(days=1, hours=20),
            last=p.ago(minutes=38),
            count=9,
            host=rpod.node,
            field_path="spec.containers{bot}",
        )
    )

    # --- objects --------------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    annotations = {
        "nginx.ingress.kubernetes.io/limit-rps": "2",
        "nginx.ingress.kubernetes.io/proxy-body-size": "8m",
        "nginx.ingress.kubernetes.io/proxy-read-timeout": "300",
    }
    applied = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"annotations": annotations, "name": ING, "namespace": NS},
        "spec": {
            "ingressClassName": "nginx",
            "rules": [
                {
                    "host": HOST,
                    "http": {
                        "paths": [
                            {
                                "backend": {"service": {"name": w.name, "port": {"number": 8000}}},
                                "path": "/v1",
                                "pathType": "Prefix",
                            }
                        ]
                    },
                }
            ],
            "tls": [{"hosts": [HOST], "secretName": "codeassist-tls"}],
        },
    }
    p.objects.append(
        ingress(
            name=ING,
            namespace=NS,
            host=HOST,
            service=w.name,
            port=8000,
            path="/v1",
            created=p.ago(days=130),
            annotations={
                **annotations,
                "kubectl.kubernetes.io/last-applied-configuration": json.dumps(applied, separators=(",", ":"))
                + "\n",
            },
            labels={"app.kubernetes.io/part-of": "codeassist"},
            generation=14,
            lb_ip="10.60.9.40",
            tls_secret="codeassist-tls",
            uid=ing_uid,
        )
    )
    p.objects[-1]["metadata"]["resourceVersion"] = ing_rv
    p.objects.append(
        ingress(
            name="devportal",
            namespace="dev-portal-web",
            host="devportal.dp.globex.internal",
            service="devportal-backstage",
            port=7007,
            created=p.ago(days=400),
            annotations={"nginx.ingress.kubernetes.io/proxy-body-size": "20m"},
            labels={"app.kubernetes.io/name": "devportal"},
            generation=6,
            lb_ip="10.60.9.40",
            tls_secret="devportal-tls",
            uid=k8s.new_uid(rng),
        )
    )
    p.objects.extend(ctrl.objects(p.as_of, service=False))
    p.objects.extend(ctrl_objs)
    p.objects.extend(emb.objects(p.as_of))
    p.objects.extend(web.objects(p.as_of))
    p.objects.extend(reviewer.objects(p.as_of, service=False))
    p.objects.extend(lora.objects(p.as_of, service=False))
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in cpu_nodes)
    p.objects.extend(ev)
    p.record_gpus(
        [g for m in live for g in m.gpus]
        + [g for g in gpus_all if g.pod is None and (g.present is None or g.present[-1])]
        + [g for g in gpus_all if g.pod == emb.pods[0].name]
    )

    # --- the answer ------------------------------------------------------------------------------------------
    p.expect("operational", "GW_RATE_LIMIT")
    p.forbidden = [
        ("reroute", f"httproute/{ING}"),
        ("add_replica", f"deployment/{w.name}"),
        ("rollback_deployment", f"deployment/{w.name}"),
        *[("restart_pod", f"pod/{m.name}") for m in live],
        *[("cordon_node", f"node/{m.node.name}") for m in live],
        *[("restart_pod", f"pod/{pi.name}") for pi in ctrl.pods],
        ("rollback_deployment", f"deployment/{ctrl.w.name}"),
        ("add_replica", f"deployment/{ctrl.w.name}"),
        ("restart_pod", f"pod/{pend.name}"),
        ("cordon_node", f"node/{gnames[2]}"),
        ("cordon_node", f"node/{gnames[3]}"),
    ]
    p.scope = [
        f"deployment/{w.name}",
        *[f"pod/{m.name}" for m in live],
        *[f"node/{m.node.name}" for m in live],
        f"ingress/{ING}",
    ]
    p.notes["onset"] = iso(t_change)
    return p
