# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""Envoy Gateway's global rate limit answers 429 to a new partner. The engine behind the route is healthy.

EKS cluster, Envoy Gateway v1.5 with the global rate limit service (`envoy-ratelimit` + Redis). The
partner API exposes one route, `partner-llm` (hostname `llm.partners.example.io`), with ONE backend:
two SGLang 0.5.4 replicas of Qwen3-30B-A3B-Instruct-2507 FP8 on L40S GPUs. A `BackendTrafficPolicy`
(`partner-llm-quota`, `rateLimit.type: Global`) gives every distinct `x-partner-id` 300 requests per minute.
The existing partners each stay well under their quota (~260 req/min in total). At 15:04:30 a new partner
(Lexora, onboarded that morning) starts a bulk summarisation import from its own connector and ramps to
~640 req/min. From the 301st request of every minute the gateway answers 429 locally. Envoy Gateway's
JSON access logs show `"response_code":429,"response_flags":"RL","response_code_details":"request_rate_limited"`
with no upstream host, `envoy_cluster_ratelimit_over_limit` climbs on the route's cluster, and the rate
limit service's `ratelimit_service_rate_limit_over_limit` climbs too. `envoy_cluster_upstream_rq_total`
(real upstream requests) only rises by the 300/min the quota lets through. SGLang stays far from saturation:
the queue stays empty, token usage stays around 0.25, GPU utilisation is about 50 %, and there are no errors and no restarts.
The partner API's availability SLO is written in OpenSLO (good = responses that are neither 5xx nor 429)
and compiled by Sloth. Sloth generates only the SLI recording rules for OpenSLO input, so the page alert is the
team's own rule over `slo:sli_error:ratio_rate5m/1h`, labelled with `sloth_id`/`sloth_service`/`sloth_slo`.

Answer: `operational` / `GW_RATE_LIMIT`. The per-client limit works as configured and throttles the one
client that exceeds it. Neither reroute (there is one backend, and the limit sits in the gateway) nor
add_replica (the engine is idle) changes it, and raising the quota is a policy change outside the catalog.
So no catalog action helps (empty list).
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from . import exporters as ex
from . import kube
from .common import gpu_node, request_id
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
from .p7_batch_gpu_squeeze import ksm, running_status, simple_pod, window_ratio

KSM_INSTANCE = "10.61.33.140:8080"
NAME = "envoy-gateway-ratelimit-policy-429"
ENGINE = "SGLang 0.5.4, Qwen3-30B-A3B-Instruct-2507-FP8, L40S (EKS), Envoy Gateway v1.5 global rate limit"


def eg_access(
    logs: Logs,
    rng: random.Random,
    *,
    end: datetime,
    code: int,
    flags: str,
    details: str,
    duration_ms: int,
    upstream_host: str | None,
    cluster: str,
    route_name: str,
    authority: str,
    path: str,
    client: str,
    gw_ip: str,
    gw_pod: str,
    gw_ns: str,
    gw_node: str,
    user_agent: str,
    bytes_sent: int,
) -> None:
    """Envoy Gateway's default JSON access log line; local replies (RL) have no upstream fields."""
    up = upstream_host is not None
    d = {
        ":authority": authority,
        "bytes_received": rng.randint(1800, 26000),
        "bytes_sent": bytes_sent,
        "connection_termination_details": None,
        "downstream_local_address": f"{gw_ip}:10443",
        "downstream_remote_address": f"{rng.choice(['10.61.0.18', '10.61.1.201', '10.61.2.77'])}:{rng.randint(32768, 60999)}",
        "duration": duration_ms,
        "method": "POST",
        "protocol": "HTTP/1.1",
        "requested_server_name": authority,
        "response_code": code,
        "response_code_details": details,
        "response_flags": flags,
        "route_name": route_name,
        "start_time": iso(end - timedelta(milliseconds=duration_ms), ms=True),
        "upstream_cluster": cluster,
        "upstream_host": upstream_host,
        "upstream_local_address": f"{gw_ip}:{rng.randint(32768, 60999)}" if up else None,
        "upstream_transport_failure_reason": None,
        "user-agent": user_agent,
        "x-envoy-origin-path": path,
        "x-envoy-upstream-service-time": str(max(0, duration_ms - rng.randint(1, 3))) if up else None,
        "x-forwarded-for": client,
        "x-request-id": request_id(rng),
    }
    logs.add(
        end,
        json.dumps(d, separators=(",", ":")),
        service="envoy-gateway",
        ns=gw_ns,
        pod=gw_pod,
        node=gw_node,
        container="envoy",
        level="info",
        status=code,
        dataset="envoy.access",
    )


def build(root):
    rng = random.Random(9808)
    as_of = utc("2026-11-18T15:42:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "partner-api"
    gwx_ns = "partner-edge"  # where the Gateway lives
    eg_ns = "envoy-gateway-system"  # where Envoy Gateway runs the proxies and the rate limit service
    dep = "sglang-qwen3-30b-a3b"
    model = "qwen3-30b-a3b-partner"
    route = "partner-llm"
    host = "llm.partners.example.io"
    cluster = f"httproute/{ns}/{route}/rule/0"
    route_name = f"httproute/{ns}/{route}/rule/0/match/0/llm_partners_example_io"
    image = "lmsysorg/sglang:v0.5.4-cu128"
    driver = "570.195.03"
    onboard = t("15:04:30")
    limit = 300

    # ---------------------------------------------------------------- nodes (EKS)
    region = "eu-central-1"
    gpu_n = (f"ip-10-61-34-117.{region}.compute.internal", "10.61.34.117")
    gpu_small = (f"ip-10-61-35-202.{region}.compute.internal", "10.61.35.202")
    sys_n = [
        (f"ip-10-61-32-40.{region}.compute.internal", "10.61.32.40"),
        (f"ip-10-61-33-9.{region}.compute.internal", "10.61.33.9"),
    ]
    eks = dict(
        as_of=as_of,
        created=utc("2026-08-04T09:12:33Z"),
        ready_since=utc("2026-11-02T06:40:11Z"),
        pod_cidr=None,
        gpu_mem_mib=46068,
        region=region,
        kubelet="v1.33.5-eks-113cf36",
        runtime="containerd://1.7.27",
        kernel="6.1.155-176.282.amzn2023.x86_64",
        os_image="Amazon Linux 2023.9.20251110",
        taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
    )
    node_objs = [
        gpu_node(
            rng,
            gpu_n[0],
            ip=gpu_n[1],
            product="NVIDIA L40S",
            gpu_count=4,
            instance_type="g6e.12xlarge",
            zone="eu-central-1b",
            cpu=48,
            mem_ki=390_985_044,
            provider_id="aws:///eu-central-1b/i-0b7c41e9d2f3a6c58",
            extra_labels={
                "eks.amazonaws.com/nodegroup": "gpu-l40s-x4",
                "eks.amazonaws.com/capacityType": "ON_DEMAND",
                "k8s.io/cloud-provider-aws": "4c1f0b2d9e7a",
                "workload": "llm-serving",
            },
            **eks,
        ),
        gpu_node(
            rng,
            gpu_small[0],
            ip=gpu_small[1],
            product="NVIDIA L40S",
            gpu_count=1,
            instance_type="g6e.2xlarge",
            zone="eu-central-1c",
            cpu=8,
            mem_ki=65_021_224,
            provider_id="aws:///eu-central-1c/i-07e2d5a91c4b3f08d",
            extra_labels={
                "eks.amazonaws.com/nodegroup": "gpu-l40s-x1",
                "eks.amazonaws.com/capacityType": "ON_DEMAND",
                "k8s.io/cloud-provider-aws": "4c1f0b2d9e7a",
                "workload": "embeddings",
            },
            **eks,
        ),
    ]
    for n, ip in sys_n:
        no = gpu_node(
            rng,
            n,
            ip=ip,
            product="none",
            gpu_count=0,
            instance_type="m7i.2xlarge",
            zone="eu-central-1a",
            cpu=8,
            mem_ki=32_386_852,
            provider_id=f"aws:///eu-central-1a/i-0{hexid(rng, 16)}",
            extra_labels={
                "eks.amazonaws.com/nodegroup": "system",
                "eks.amazonaws.com/capacityType": "ON_DEMAND",
            },
            **{**eks, "taints": None},
        )
        for key in list(no["metadata"]["labels"]):
            if key.startswith("nvidia.com/"):
                del no["metadata"]["labels"][key]
        for part in ("capacity", "allocatable"):
            no["status"][part].pop("nvidia.com/gpu", None)
        node_objs.append(no)

    # ---------------------------------------------------------------- the SGLang deployment
    labels = {"app.kubernetes.io/name": "sglang", "app.kubernetes.io/instance": dep}

    def template(img: str, extra: list[str]) -> Obj:
        return {
            "metadata": {"labels": {"app.kubernetes.io/component": "llm"}},
            "spec": {
                "containers": [
                    {
                        "name": "sglang",
                        "image": img,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["python3", "-m", "sglang.launch_server"],
                        "args": [
                            "--model-path",
                            "/models/Qwen3-30B-A3B-Instruct-2507-FP8",
                            "--served-model-name",
                            model,
                            "--host",
                            "0.0.0.0",
                            "--port",
                            "30000",
                            "--mem-fraction-static",
                            "0.85",
                            "--context-length",
                            "32768",
                            "--enable-metrics",
                            *extra,
                        ],
                        "ports": [{"name": "http", "containerPort": 30000, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1", "memory": "80Gi"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "10", "memory": "64Gi"},
                        },
                        "readinessProbe": kube.probe_http("/health", "http", period=10, failure=3, timeout=5),
                        "livenessProbe": kube.probe_http(
                            "/health", "http", period=30, failure=5, initial=600, timeout=10
                        ),
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/models", "readOnly": True},
                            {"name": "shm", "mountPath": "/dev/shm"},
                        ],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "volumes": [
                    {
                        "name": "models",
                        "persistentVolumeClaim": {"claimName": "partner-models-fsx", "readOnly": True},
                    },
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
                ],
                "nodeSelector": {"workload": "llm-serving"},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "serviceAccountName": "sglang",
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
        replicas=2,
        created=utc("2026-08-20T11:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        extra_labels={
            "app.kubernetes.io/part-of": "partner-api",
            "argocd.argoproj.io/instance": "partner-api-prod",
        },
        annotations={"argocd.argoproj.io/tracking-id": f"partner-api-prod:apps/Deployment:{ns}/{dep}"},
    )
    r9 = kube.Revision(
        9,
        kube.rs_hash(rng),
        utc("2026-11-16T10:14:27Z"),
        template(image, ["--enable-cache-report", "--tool-call-parser", "qwen25"]),
        uid=kube.new_uid(rng),
        replicas=2,
        ready=2,
        available=2,
        change_cause="sglang v0.5.4, tool-call parser qwen25",
    )
    r8 = kube.Revision(
        8,
        kube.rs_hash(rng),
        utc("2026-10-27T08:51:02Z"),
        template("lmsysorg/sglang:v0.5.3-cu128", ["--enable-cache-report"]),
        uid=kube.new_uid(rng),
        change_cause="sglang v0.5.3",
    )
    w.revisions = [r8, r9]
    w.status = {"replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2}
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-11-16T10:22:51Z"),
            utc("2026-11-16T10:22:51Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{r9.hash}" has successfully progressed.',
            utc("2026-11-16T10:31:40Z"),
            utc("2026-08-20T11:00:00Z"),
        ),
    )
    pods = [
        {
            "name": kube.pod_name(rng, w, r9),
            "uid": kube.new_uid(rng),
            "ip": f"10.61.34.{[143, 158][k]}",
            "gpu": k,
            "created": r9.created + timedelta(minutes=8 * k, seconds=3),
        }
        for k in range(2)
    ]

    # ---------------------------------------------------------------- traffic: partners and the quota
    partners = {  # partner id -> (req/min, client IP, user agent)
        "northwind-legal": (88, "198.51.100.23", "northwind-docs/5.2.0 (openai-python/1.109.1)"),
        "acme-insure": (61, "198.51.100.71", "acme-claims-bot/2.8.4"),
        "brightpath-hr": (44, "203.0.113.140", "brightpath/1.19.0 (node-fetch)"),
        "kestrel-bank": (37, "192.0.2.55", "kestrel-assist/3.0.1 (openai-java/2.12.0)"),
        "others": (31, "198.51.100.9", "partner-sdk/1.4.0 (python-httpx/0.27.2)"),
    }
    lex_ip, lex_ua = "203.0.113.207", "lexora-connector/0.9.3 (python-httpx/0.28.1)"
    base = [sum(v[0] for v in partners.values()) * rng.uniform(0.93, 1.07) for _ in range(N)]
    lex = [
        0.0
        if c.at(i) <= onboard + timedelta(seconds=30)
        else 640 * ramp(c, i, onboard, t("15:11:00")) * rng.uniform(0.96, 1.04)
        for i in range(N)
    ]
    lex_ok = [min(limit, round(x)) for x in lex]
    lex_rl = [max(0, round(x) - limit) for x in lex]
    ok_total = [round(base[i]) + lex_ok[i] for i in range(N)]
    bad_req = [1 if rng.random() < 0.2 else 0 for _ in range(N)]
    codes = {200: [ok_total[i] - bad_req[i] for i in range(N)], 400: bad_req, 429: lex_rl}
    per = []
    for k in range(2):
        share = [ok_total[i] * (0.5 + (0.012 if k == 0 else -0.012)) for i in range(N)]
        run = [round(s * 5.9 / 60 * rng.uniform(0.9, 1.1)) for s in share]
        per.append(
            {
                "done": [round(s) for s in share],
                "run": run,
                "usage": [round(0.11 + 0.0052 * r + rng.uniform(-0.01, 0.01), 4) for r in run],
            }
        )

    om = OM(c)
    # ---------------------------------------------------------------- SGLang metrics (PodMonitor)
    for k, p in enumerate(pods):
        s = per[k]
        lab = {
            "container": "sglang",
            "endpoint": "http",
            "instance": f"{p['ip']}:30000",
            "job": f"{ns}/sglang",
            "model_name": model,
            "namespace": ns,
            "pod": p["name"],
        }
        om.gauge("sglang:num_running_reqs", "The number of running requests.", lab, s["run"], digits=4)
        om.gauge(
            "sglang:num_queue_reqs", "The number of requests in the waiting queue.", lab, [0] * N, digits=4
        )
        om.gauge("sglang:token_usage", "The token usage.", lab, s["usage"], digits=4)
        om.gauge(
            "sglang:gen_throughput",
            "The generation throughput (token/s).",
            lab,
            [round(r * 68.5 * rng.uniform(0.92, 1.06), 2) for r in s["run"]],
            digits=6,
        )
        om.gauge(
            "sglang:cache_hit_rate",
            "The prefix cache hit rate.",
            lab,
            [round(rng.uniform(0.31, 0.38), 4) for _ in range(N)],
            digits=4,
        )
        bc = [4_412_907, 4_398_315][k]
        om.counter("sglang:num_requests", "Number of requests processed.", lab, s["done"], initial=bc)
        om.counter(
            "sglang:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            [x * 3410 * rng.uniform(0.9, 1.1) for x in s["done"]],
            initial=bc * 3410,
        )
        om.counter(
            "sglang:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            [x * 402 * rng.uniform(0.9, 1.1) for x in s["done"]],
            initial=bc * 402,
        )

    # ---------------------------------------------------------------- DCGM
    dcgm_ip = {gpu_n[0]: "10.61.34.11", gpu_small[0]: "10.61.35.19"}
    tei_pod = f"tei-bge-m3-helpcenter-{kname(rng, 10)}-{kname(rng, 5)}"
    gpu_attach = [
        (gpu_n[0], 0, ("sglang", pods[0]["name"], ns)),
        (gpu_n[0], 1, ("sglang", pods[1]["name"], ns)),
        (gpu_n[0], 2, None),
        (gpu_n[0], 3, None),
        (gpu_small[0], 0, ("tei", tei_pod, "helpcenter-ai")),
    ]
    gj: dict[str, list[Obj]] = {}
    for node, gidx, who in gpu_attach:
        if who and who[0] == "sglang":
            k = gidx
            util = [round(min(99, 22 + 1.15 * per[k]["run"][i] + rng.uniform(-3, 3))) for i in range(N)]
            fb = [39_188 + rng.randint(-3, 3) for _ in range(N)]
        elif who:
            util = [round(rng.uniform(6, 14)) for _ in range(N)]
            fb = [3_902 + rng.randint(-2, 2) for _ in range(N)]
        else:
            util = [0] * N
            fb = [0] * N
        uu = f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}"
        lab = {
            "DCGM_FI_DRIVER_VERSION": driver,
            "Hostname": node,
            "UUID": uu,
            "device": f"nvidia{gidx}",
            "gpu": str(gidx),
            "instance": f"{dcgm_ip[node]}:9400",
            "job": "nvidia-dcgm-exporter",
            "modelName": "NVIDIA L40S",
            "pci_bus_id": ["00000000:9E:00.0", "00000000:A0:00.0", "00000000:A2:00.0", "00000000:A4:00.0"][
                gidx
            ]
            if node == gpu_n[0]
            else "00000000:31:00.0",
        }
        if who:
            lab.update({"container": who[0], "pod": who[1], "namespace": who[2]})
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, util, digits=4)
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, fb, digits=8)
        om.gauge("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.", lab, [0] * N, digits=4)
        gj.setdefault(node, []).append(
            {
                "index": gidx,
                "uuid": uu,
                "name": "NVIDIA L40S",
                "memory_total_mib": 46068,
                "memory_used_mib": fb[-1],
                "utilization_gpu": util[-1],
                "temperature_c": int(31 + 0.4 * util[-1] + rng.uniform(-2, 2)),
                "power_w": round(36 + 2.9 * util[-1] + rng.uniform(-4, 4), 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
        )

    # ---------------------------------------------------------------- Envoy Gateway proxies (PodMonitor monitoring/eg-proxies)
    gw_hash = "3f9c1a7e"
    proxy_pods = [f"envoy-{gwx_ns}-partner-gw-{gw_hash}-6d8b9f7c54-{kname(rng, 5)}" for _ in range(2)]
    gw_ips = ["10.61.32.118", "10.61.33.74"]
    for j, pp in enumerate(proxy_pods):
        frac = [0.51, 0.49][j]
        proxy = {
            "container": "envoy",
            "endpoint": "metrics",
            "instance": f"{gw_ips[j]}:19001",
            "job": "monitoring/eg-proxies",
            "namespace": eg_ns,
            "pod": pp,
        }
        cl = {**proxy, "envoy_cluster_name": cluster}
        mycodes = {cd: [round(v[i] * frac) for i in range(N)] for cd, v in codes.items()}
        for cd, inc in mycodes.items():
            om.counter(
                "envoy_cluster_upstream_rq",
                "",
                {**cl, "envoy_response_code": str(cd)},
                inc,
                initial={200: 6_101_744, 400: 2_511, 429: 1_873}[cd] * (1 + j * 0.02),
                suffix_total=False,
            )
        om.counter(
            "envoy_cluster_upstream_rq_xx",
            "",
            {**cl, "envoy_response_code_class": "2"},
            mycodes[200],
            initial=6_101_744 * (1 + j * 0.02),
            suffix_total=False,
        )
        om.counter(
            "envoy_cluster_upstream_rq_xx",
            "",
            {**cl, "envoy_response_code_class": "4"},
            [mycodes[400][i] + mycodes[429][i] for i in range(N)],
            initial=(2_511 + 1_873) * (1 + j * 0.02),
            suffix_total=False,
        )
        # 429 from the rate limit filter are local replies: they never reach upstream_rq_total
        om.counter(
            "envoy_cluster_upstream_rq_total",
            "",
            cl,
            [mycodes[200][i] + mycodes[400][i] for i in range(N)],
            initial=(6_101_744 + 2_511) * (1 + j * 0.02),
            suffix_total=False,
        )
        om.counter(
            "envoy_cluster_ratelimit_ok",
            "",
            cl,
            [mycodes[200][i] + mycodes[400][i] for i in range(N)],
            initial=(6_101_744 + 2_511) * (1 + j * 0.02),
            suffix_total=False,
        )
        om.counter(
            "envoy_cluster_ratelimit_over_limit",
            "",
            cl,
            mycodes[429],
            initial=1_873 * (1 + j * 0.02),
            suffix_total=False,
        )
        om.counter("envoy_cluster_ratelimit_error", "", cl, [0] * N, initial=0, suffix_total=False)
        om.gauge("envoy_cluster_membership_healthy", "", cl, [2] * N, digits=4)
        if j == 0:
            mix = [[(mycodes[200][i], 6.2, 0.55), (mycodes[400][i], 0.004, 0.3)] for i in range(N)]
            om.histogram_mix(
                "envoy_cluster_upstream_rq_time",
                "",
                cl,
                ex.ENVOY_MS,
                mix,
                initial=[(6_101_744, 6.1, 0.55)],
                le=ex.le_go,
                scale=1000.0,
            )
        hc = {**proxy, "envoy_cluster_name": "httproute/helpcenter-ai/helpcenter-embed/rule/0"}
        hinc = [round(rng.uniform(380, 460) * frac) for _ in range(N)]
        om.counter(
            "envoy_cluster_upstream_rq",
            "",
            {**hc, "envoy_response_code": "200"},
            hinc,
            initial=19_440_212,
            suffix_total=False,
        )
        om.counter("envoy_cluster_upstream_rq_total", "", hc, hinc, initial=19_440_212, suffix_total=False)
        hcm = {**proxy, "envoy_http_conn_manager_prefix": "https-10443"}
        for cls, vals, init in (
            ("2", [mycodes[200][i] + hinc[i] for i in range(N)], 25_541_956),
            ("4", [mycodes[400][i] + mycodes[429][i] for i in range(N)], 4_384),
            ("5", [0] * N, 311),
        ):
            om.counter(
                "envoy_http_downstream_rq_xx",
                "",
                {**hcm, "envoy_response_code_class": cls},
                vals,
                initial=init * (1 + j * 0.02),
                suffix_total=False,
            )

    # ---------------------------------------------------------------- the rate limit service (envoyproxy/ratelimit, EG deployment)
    rl_pods = [f"envoy-ratelimit-7c9f5d6b8-{kname(rng, 5)}" for _ in range(2)]
    rl_key1 = f"{route_name}_{route_name}"
    for j, rp in enumerate(rl_pods):
        rl = {
            "container": "envoy-ratelimit",
            "endpoint": "metrics",
            "instance": f"10.61.3{2 + j}.{[61, 12][j]}:19001",
            "job": "monitoring/eg-ratelimit",
            "namespace": eg_ns,
            "pod": rp,
            "domain": f"{gwx_ns}/partner-gw/https",
            "key1": rl_key1,
            "key2": "rule-0-match-0",
        }
        frac = [0.5, 0.5][j]
        hits = [round((ok_total[i] + bad_req[i] * 0 + lex_rl[i]) * frac) for i in range(N)]
        over = [round(lex_rl[i] * frac) for i in range(N)]
        om.counter(
            "ratelimit_service_rate_limit_total_hits", "", rl, hits, initial=6_108_001, suffix_total=False
        )
        om.counter("ratelimit_service_rate_limit_over_limit", "", rl, over, initial=940, suffix_total=False)

    # ---------------------------------------------------------------- kube-state-metrics (a few)
    for p in pods:
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ksm({**plab, "condition": "true"}, KSM_INSTANCE),
            [1] * N,
            digits=2,
        )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ksm({**plab, "container": "sglang"}, KSM_INSTANCE),
            [0] * N,
        )
    dlab = ksm({"namespace": ns, "deployment": dep}, KSM_INSTANCE)
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        [2] * N,
        digits=3,
    )

    # ---------------------------------------------------------------- Sloth recording rules compiled from the OpenSLO spec
    svc, slo_name = "partner-api", "partner-llm-availability"
    sid, sslo = f"{svc}-{slo_name}-0", f"{slo_name}-0"
    tot = [sum(codes[cd][i] for cd in codes) for i in range(N)]
    errs = [codes[429][i] for i in range(N)]
    pre_rate, pre_err = 262.0, 0.0004
    slab = {"sloth_id": sid, "sloth_service": svc, "sloth_slo": sslo}
    for win, m in (("5m", 5), ("30m", 30), ("1h", 60), ("2h", 120), ("6h", 360), ("1d", 1440), ("3d", 4320)):
        om.gauge(
            f"slo:sli_error:ratio_rate{win}",
            "",
            {**slab, "sloth_window": win},
            [round(window_ratio(errs, tot, i, m, pre_rate, pre_err), 8) for i in range(N)],
            digits=8,
        )
    om.gauge("slo:objective:ratio", "", slab, [0.995] * N)
    om.gauge("slo:error_budget:ratio", "", slab, [0.005] * N)
    om.gauge("slo:time_period:days", "", slab, [30] * N)
    om.gauge(
        "slo:current_burn_rate:ratio",
        "",
        slab,
        [round(window_ratio(errs, tot, i, 5, pre_rate, pre_err) / 0.005, 6) for i in range(N)],
    )
    om.gauge(
        "slo:period_burn_rate:ratio",
        "",
        slab,
        [round(window_ratio(errs, tot, i, 43200, pre_rate, pre_err) / 0.005, 6) for i in range(N)],
    )
    om.gauge(
        "slo:period_error_budget_remaining:ratio",
        "",
        slab,
        [round(1 - window_ratio(errs, tot, i, 43200, pre_rate, pre_err) / 0.005, 6) for i in range(N)],
    )
    om.gauge(
        "sloth_slo_info",
        "",
        {
            **slab,
            "sloth_mode": "cli-gen-prom",
            "sloth_objective": "99.5",
            "sloth_spec": "openslo/v1alpha",
            "sloth_version": "v0.11.0",
        },
        [1] * N,
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()
    node_of_gw = [sys_n[0][0], sys_n[1][0]]
    for i in range(1, N):
        minute = c.at(i - 1)
        for _ in range(2):
            pid = rng.choice(list(partners))
            _, ip, ua = partners[pid]
            j = rng.randrange(2)
            k = rng.randrange(2)
            eg_access(
                logs,
                rng,
                end=within(rng, minute),
                code=200,
                flags="-",
                details="via_upstream",
                duration_ms=int(rng.lognormvariate(8.7, 0.5)),
                upstream_host=f"{pods[k]['ip']}:30000",
                cluster=cluster,
                route_name=route_name,
                authority=host,
                path="/v1/chat/completions",
                client=ip,
                gw_ip=gw_ips[j],
                gw_pod=proxy_pods[j],
                gw_ns=eg_ns,
                gw_node=node_of_gw[j],
                user_agent=ua,
                bytes_sent=rng.randint(1400, 5200),
            )
        if lex_ok[i]:
            for _ in range(1):
                j, k = rng.randrange(2), rng.randrange(2)
                eg_access(
                    logs,
                    rng,
                    end=within(rng, minute, 0, 25),
                    code=200,
                    flags="-",
                    details="via_upstream",
                    duration_ms=int(rng.lognormvariate(8.9, 0.4)),
                    upstream_host=f"{pods[k]['ip']}:30000",
                    cluster=cluster,
                    route_name=route_name,
                    authority=host,
                    path="/v1/chat/completions",
                    client=lex_ip,
                    gw_ip=gw_ips[j],
                    gw_pod=proxy_pods[j],
                    gw_ns=eg_ns,
                    gw_node=node_of_gw[j],
                    user_agent=lex_ua,
                    bytes_sent=rng.randint(1800, 3900),
                )
        if lex_rl[i]:
            for _ in range(min(4, 1 + lex_rl[i] // 80)):
                j = rng.randrange(2)
                eg_access(
                    logs,
                    rng,
                    end=within(rng, minute, 28, 59.9),
                    code=429,
                    flags="RL",
                    details="request_rate_limited",
                    duration_ms=rng.randint(1, 4),
                    upstream_host=None,
                    cluster=cluster,
                    route_name=route_name,
                    authority=host,
                    path="/v1/chat/completions",
                    client=lex_ip,
                    gw_ip=gw_ips[j],
                    gw_pod=proxy_pods[j],
                    gw_ns=eg_ns,
                    gw_node=node_of_gw[j],
                    user_agent=lex_ua,
                    bytes_sent=0,
                )
        if i % 3 == 0:
            j = rng.randrange(2)
            logs.add(
                within(rng, minute),
                json.dumps(
                    {
                        ":authority": "embed.helpcenter.example.io",
                        "bytes_received": rng.randint(300, 2400),
                        "bytes_sent": rng.randint(6000, 12400),
                        "connection_termination_details": None,
                        "downstream_local_address": f"{gw_ips[j]}:10443",
                        "downstream_remote_address": f"10.61.0.18:{rng.randint(32768, 60999)}",
                        "duration": rng.randint(9, 40),
                        "method": "POST",
                        "protocol": "HTTP/1.1",
                        "requested_server_name": "embed.helpcenter.example.io",
                        "response_code": 200,
                        "response_code_details": "via_upstream",
                        "response_flags": "-",
                        "route_name": "httproute/helpcenter-ai/helpcenter-embed/rule/0/match/0/embed_helpcenter_example_io",
                        "start_time": iso(minute, ms=True),
                        "upstream_cluster": "httproute/helpcenter-ai/helpcenter-embed/rule/0",
                        "upstream_host": "10.61.35.33:80",
                        "upstream_local_address": f"{gw_ips[j]}:{rng.randint(32768, 60999)}",
                        "upstream_transport_failure_reason": None,
                        "user-agent": "helpcenter-indexer/3.1.0",
                        "x-envoy-origin-path": "/embed",
                        "x-envoy-upstream-service-time": str(rng.randint(8, 38)),
                        "x-forwarded-for": "10.61.0.18",
                        "x-request-id": request_id(rng),
                    },
                    separators=(",", ":"),
                ),
                service="envoy-gateway",
                ns=eg_ns,
                pod=proxy_pods[j],
                node=node_of_gw[j],
                container="envoy",
                status=200,
                dataset="envoy.access",
            )
    # SGLang's own log lines (scheduler + uvicorn)
    for k, p in enumerate(pods):
        s = per[k]
        for i in range(1, N):
            minute = c.at(i - 1)
            ts = within(rng, minute, 0, 30)
            tk = int(s["usage"][i] * 412_000)
            logs.add(
                ts,
                f"[{ts.strftime('%Y-%m-%d %H:%M:%S')}] Decode batch. #running-req: {s['run'][i]}, #token: {tk}, token usage: {s['usage'][i]:.2f}, "
                f"cuda graph: True, gen throughput (token/s): {s['run'][i] * 68.5 * rng.uniform(0.92, 1.06):.2f}, #queue-req: 0, ",
                service=dep,
                ns=ns,
                pod=p["name"],
                node=gpu_n[0],
                container="sglang",
            )
            if i % 2 == k:
                ts2 = within(rng, minute, 30, 59)
                logs.add(
                    ts2,
                    f"[{ts2.strftime('%Y-%m-%d %H:%M:%S')}] Prefill batch. #new-seq: 1, #new-token: {rng.randint(2100, 6200)}, "
                    f"#cached-token: {rng.choice([0, 512, 1024, 1536])}, token usage: {s['usage'][i]:.2f}, #running-req: {s['run'][i]}, #queue-req: 0, ",
                    service=dep,
                    ns=ns,
                    pod=p["name"],
                    node=gpu_n[0],
                    container="sglang",
                )
                logs.add(
                    ts2 + timedelta(seconds=rng.uniform(3, 9)),
                    f'[{ts2.strftime("%Y-%m-%d %H:%M:%S")}] INFO:     {rng.choice(gw_ips)}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                    service=dep,
                    ns=ns,
                    pod=p["name"],
                    node=gpu_n[0],
                    container="sglang",
                    status=200,
                )
    # the TEI tenant
    for i in range(2, N, 4):
        ts = within(rng, c.at(i))
        logs.add(
            ts,
            f'{iso(ts, ms=True)[:-1]}123Z  INFO embed{{total_time="{rng.uniform(8, 30):.6f}ms" tokenization_time="0.4ms" queue_time="0.1ms" inference_time="7.9ms"}}: '
            "text_embeddings_router::http::server: router/src/http/server.rs:714: Success",
            service="tei-bge-m3-helpcenter",
            ns="helpcenter-ai",
            pod=tei_pod,
            node=gpu_small[0],
            container="tei",
        )
    # Envoy Gateway controller reconciling (noise)
    for i in (9, 31, 52):
        ts = within(rng, c.at(i))
        logs.add(
            ts,
            json.dumps(
                {
                    "level": "info",
                    "ts": iso(ts, ms=True),
                    "logger": "provider",
                    "caller": "kubernetes/controller.go:264",
                    "msg": "reconciling gateways",
                    "runner": "provider",
                },
                separators=(",", ":"),
            ),
            service="envoy-gateway",
            ns=eg_ns,
            pod="envoy-gateway-5b8f7c9d64-q7x2m",
            node=sys_n[1][0],
            container="envoy-gateway",
        )

    # ---------------------------------------------------------------- objects
    objs: list[Obj] = [w.deployment(), w.replicaset(r9), w.replicaset(r8)]
    for p in pods:
        objs.append(
            kube.pod_obj(
                w,
                r9,
                name=p["name"],
                uid_=p["uid"],
                node=gpu_n[0],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=gpu_n[1],
                phase="Running",
                ready=True,
                container_statuses=[
                    running_status(rng, "sglang", image, p["created"] + timedelta(seconds=5))
                ],
                ready_since=p["created"] + timedelta(minutes=4, seconds=12),
            )
        )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 30000, "protocol": "TCP", "targetPort": "http"}],
            "172.20.141.52",
            labels=labels,
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="partner-gw",
            gateway_ns=gwx_ns,
            hostnames=[host],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                    "backendRefs": [
                        {"group": "", "kind": "Service", "name": dep, "port": 30000, "weight": 1}
                    ],
                    "timeouts": {"request": "300s"},
                }
            ],
            created=utc("2026-08-20T11:10:00Z"),
            uid_=kube.new_uid(rng),
            generation=2,
        )
    )
    btp_uid = kube.new_uid(rng)
    objs.append(
        {
            "apiVersion": "gateway.envoyproxy.io/v1alpha1",
            "kind": "BackendTrafficPolicy",
            "metadata": {
                "name": "partner-llm-quota",
                "namespace": ns,
                "uid": btp_uid,
                "generation": 3,
                "creationTimestamp": "2026-09-03T13:22:08Z",
                "annotations": {
                    "argocd.argoproj.io/tracking-id": f"partner-api-prod:gateway.envoyproxy.io/BackendTrafficPolicy:{ns}/partner-llm-quota"
                },
            },
            "spec": {
                "targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": route}],
                "rateLimit": {
                    "type": "Global",
                    "global": {
                        "rules": [
                            {
                                "clientSelectors": [
                                    {"headers": [{"name": "x-partner-id", "type": "Distinct"}]}
                                ],
                                "limit": {"requests": limit, "unit": "Minute"},
                            }
                        ]
                    },
                },
            },
            "status": {
                "ancestors": [
                    {
                        "ancestorRef": {
                            "group": "gateway.networking.k8s.io",
                            "kind": "Gateway",
                            "name": "partner-gw",
                            "namespace": gwx_ns,
                            "sectionName": "https",
                        },
                        "controllerName": "gateway.envoyproxy.io/gatewayclass-controller",
                        "conditions": [
                            {
                                "type": "Accepted",
                                "status": "True",
                                "reason": "Accepted",
                                "message": "Policy has been accepted.",
                                "observedGeneration": 3,
                                "lastTransitionTime": "2026-10-02T09:41:55Z",
                            }
                        ],
                    }
                ]
            },
        }
    )
    # other tenant on the same gateway
    tw = kube.Workload(
        name="tei-bge-m3-helpcenter",
        namespace="helpcenter-ai",
        labels={"app": "tei-bge-m3-helpcenter"},
        replicas=1,
        created=utc("2026-09-11T08:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "Recreate"},
    )
    trev = kube.Revision(
        4,
        tei_pod.split("-")[-2],
        utc("2026-11-05T07:10:00Z"),
        {
            "metadata": {"labels": {}},
            "spec": {
                "containers": [
                    {
                        "name": "tei",
                        "image": "ghcr.io/huggingface/text-embeddings-inference:89-1.8",
                        "args": ["--model-id", "/models/bge-m3", "--port", "80"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
                "nodeSelector": {"workload": "embeddings"},
            },
        },
        uid=kube.new_uid(rng),
        replicas=1,
        ready=1,
        available=1,
    )
    tw.revisions = [trev]
    tw.status = {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1}
    tw.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-11-05T07:11:02Z"),
            utc("2026-11-05T07:11:02Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "tei-bge-m3-helpcenter-{trev.hash}" has successfully progressed.',
            utc("2026-11-05T07:11:02Z"),
            utc("2026-09-11T08:00:00Z"),
        ),
    )
    objs += [
        tw.deployment(),
        kube.pod_obj(
            tw,
            trev,
            name=tei_pod,
            uid_=kube.new_uid(rng),
            node=gpu_small[0],
            created=utc("2026-11-05T07:10:01Z"),
            pod_ip="10.61.35.33",
            host_ip=gpu_small[1],
            phase="Running",
            ready=True,
            container_statuses=[
                running_status(
                    rng,
                    "tei",
                    "ghcr.io/huggingface/text-embeddings-inference:89-1.8",
                    utc("2026-11-05T07:10:09Z"),
                )
            ],
        ),
    ]
    objs.append(
        httproute_obj(
            "helpcenter-embed",
            "helpcenter-ai",
            gateway="partner-gw",
            gateway_ns=gwx_ns,
            hostnames=["embed.helpcenter.example.io"],
            rules=[
                {
                    "backendRefs": [
                        {
                            "group": "",
                            "kind": "Service",
                            "name": "tei-bge-m3-helpcenter",
                            "port": 80,
                            "weight": 1,
                        }
                    ]
                }
            ],
            created=utc("2026-09-11T08:05:00Z"),
            uid_=kube.new_uid(rng),
        )
    )
    # gateway data plane and the rate limit service
    for j, pp in enumerate(proxy_pods):
        objs.append(
            simple_pod(
                rng,
                name=pp,
                ns=eg_ns,
                labels={
                    "app.kubernetes.io/component": "proxy",
                    "app.kubernetes.io/managed-by": "envoy-gateway",
                    "app.kubernetes.io/name": "envoy",
                    "gateway.envoyproxy.io/owning-gateway-name": "partner-gw",
                    "gateway.envoyproxy.io/owning-gateway-namespace": gwx_ns,
                },
                owner_ref=owner(
                    "ReplicaSet", f"envoy-{gwx_ns}-partner-gw-{gw_hash}-6d8b9f7c54", kube.new_uid(rng)
                ),
                node=sys_n[j][0],
                node_ip=sys_n[j][1],
                pod_ip=gw_ips[j],
                created=utc("2026-11-02T06:44:20Z") + timedelta(seconds=31 * j),
                containers=[
                    {"name": "envoy", "image": "docker.io/envoyproxy/envoy:distroless-v1.35.3"},
                    {"name": "shutdown-manager", "image": "docker.io/envoyproxy/gateway:v1.5.4"},
                ],
                statuses=[
                    running_status(
                        rng,
                        "envoy",
                        "docker.io/envoyproxy/envoy:distroless-v1.35.3",
                        utc("2026-11-02T06:44:27Z"),
                    ),
                    running_status(
                        rng,
                        "shutdown-manager",
                        "docker.io/envoyproxy/gateway:v1.5.4",
                        utc("2026-11-02T06:44:26Z"),
                    ),
                ],
            )
        )
    for j, rp in enumerate(rl_pods):
        objs.append(
            simple_pod(
                rng,
                name=rp,
                ns=eg_ns,
                labels={
                    "app.kubernetes.io/component": "ratelimit",
                    "app.kubernetes.io/managed-by": "envoy-gateway",
                    "app.kubernetes.io/name": "envoy-ratelimit",
                },
                owner_ref=owner("ReplicaSet", "envoy-ratelimit-7c9f5d6b8", kube.new_uid(rng)),
                node=sys_n[j][0],
                node_ip=sys_n[j][1],
                pod_ip=f"10.61.3{2 + j}.{[61, 12][j]}",
                created=utc("2026-11-02T06:45:02Z"),
                containers=[
                    {
                        "name": "envoy-ratelimit",
                        "image": "docker.io/envoyproxy/ratelimit:3fb70258",
                        "env": [
                            {"name": "REDIS_URL", "value": "redis.redis-system.svc.cluster.local:6379"},
                            {"name": "USE_PROMETHEUS", "value": "true"},
                            {"name": "LOG_LEVEL", "value": "warn"},
                        ],
                    }
                ],
                statuses=[
                    running_status(
                        rng,
                        "envoy-ratelimit",
                        "docker.io/envoyproxy/ratelimit:3fb70258",
                        utc("2026-11-02T06:45:09Z"),
                    )
                ],
            )
        )
    objs.append(
        configmap_obj(
            "openslo-partner-api",
            "monitoring",
            {
                "partner-llm-availability.yaml": (
                    "apiVersion: openslo/v1alpha\nkind: SLO\nmetadata:\n  name: partner-llm-availability\n  displayName: Partner LLM API availability\n"
                    "spec:\n  service: partner-api\n  description: Share of partner requests answered without a 5xx or a 429 at the gateway.\n"
                    "  budgetingMethod: Occurrences\n  timeWindows:\n    - count: 30\n      unit: Day\n      isRolling: true\n  objectives:\n"
                    "    - displayName: available\n      target: 0.995\n      ratioMetrics:\n        good:\n          source: prometheus\n          queryType: promql\n"
                    f'          query: sum(rate(envoy_cluster_upstream_rq{{envoy_cluster_name="{cluster}",envoy_response_code!~"5..|429"}}[{{{{.window}}}}]))\n'
                    "        total:\n          source: prometheus\n          queryType: promql\n"
                    f'          query: sum(rate(envoy_cluster_upstream_rq{{envoy_cluster_name="{cluster}"}}[{{{{.window}}}}]))\n'
                )
            },
            utc("2026-09-03T13:30:00Z"),
            kube.new_uid(rng),
            labels={"app.kubernetes.io/part-of": "slo-specs"},
        )
    )
    objs.extend(node_objs)
    ev = lambda **kw: objs.append(event_obj(rng, **kw))  # noqa: E731
    ev(
        ns="helpcenter-ai",
        kind="HorizontalPodAutoscaler",
        name="tei-bge-m3-helpcenter",
        obj_uid=kube.new_uid(rng),
        reason="FailedGetResourceMetric",
        message="failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container tei of Pod "
        + tei_pod,
        first=utc("2026-11-05T07:11:30Z"),
        last=as_of - timedelta(minutes=1, seconds=48),
        count=5_902,
        etype="Warning",
        component="horizontal-pod-autoscaler",
        api_version="autoscaling/v2",
    )
    ev(
        ns="kube-system",
        kind="Pod",
        name="ebs-csi-node-7m2xq",
        obj_uid=kube.new_uid(rng),
        reason="Unhealthy",
        message='Liveness probe failed: Get "http://10.61.33.9:9808/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        first=utc("2026-11-17T22:13:04Z"),
        last=as_of - timedelta(minutes=23, seconds=5),
        count=14,
        etype="Warning",
        host=sys_n[1][0],
        field_path="spec.containers{liveness-probe}",
    )
    ev(
        ns=eg_ns,
        kind="Pod",
        name=rl_pods[1],
        obj_uid=kube.new_uid(rng),
        reason="Unhealthy",
        message="Readiness probe failed: HTTP probe failed with statuscode: 500",
        first=utc("2026-11-10T03:02:41Z"),
        last=utc("2026-11-18T14:51:17Z"),
        count=3,
        etype="Warning",
        host=sys_n[1][0],
        field_path="spec.containers{envoy-ratelimit}",
    )
    ev(
        ns="default",
        kind="Node",
        name=gpu_small[0],
        obj_uid=node_objs[1]["metadata"]["uid"],
        reason="NodeHasNoDiskPressure",
        message=f"Node {gpu_small[0]} status is now: NodeHasNoDiskPressure",
        first=utc("2026-11-02T06:40:11Z"),
        last=as_of - timedelta(minutes=38),
        count=2,
        host=gpu_small[0],
    )

    # ---------------------------------------------------------------- the team's page alert over Sloth's SLIs
    sel = f'sloth_id="{sid}"'
    expr = (
        f"(\n  max(slo:sli_error:ratio_rate5m{{{sel}}} > (14.4 * 0.005)) without (sloth_window)\n  and\n"
        f"  max(slo:sli_error:ratio_rate1h{{{sel}}} > (14.4 * 0.005)) without (sloth_window)\n)"
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=2, eval_offset_s=37)
    finally:
        prom.close()
    alabels = {
        "alertname": "PartnerLLMAvailabilityBudgetBurn",
        "cluster": "eks-partner-prod-euc1",
        "severity": "page",
        "sloth_id": sid,
        "sloth_service": svc,
        "sloth_slo": sslo,
        "team": "partner-integrations",
    }
    ann = {
        "summary": "partner-api: error budget of partner-llm-availability burning 14.4x faster than sustainable",
        "description": f"{value * 100:.1f}% of partner requests failed the SLI over the last 5 minutes (5xx or 429 at the gateway).",
        "runbook_url": "https://wiki.partners.example.io/sre/runbooks/partner-llm-availability",
        "value": f"{value:.4f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(20, 900)),
        expr=expr,
        prometheus_url="https://prometheus.partner-prod.example.io",
        external_url="https://alertmanager.partner-prod.example.io",
        group_by=["alertname", "sloth_service"],
        receiver="partner-integrations-pagerduty",
        route_matchers='{}/{severity="page"}',
    )
    expected = {
        "category": "operational",
        "code": "GW_RATE_LIMIT",
        "acceptable_first_actions": [],
        "forbidden_actions": [
            {"kind": "reroute", "target": f"httproute/{route}"},
            {"kind": "add_replica", "target": f"deployment/{dep}"},
            {"kind": "rollback_deployment", "target": f"deployment/{dep}"},
            *[{"kind": "restart_pod", "target": f"pod/{p['name']}"} for p in pods],
            *[{"kind": "restart_pod", "target": f"pod/{x}"} for x in proxy_pods + rl_pods],
            {"kind": "cordon_node", "target": f"node/{gpu_n[0]}"},
            {"kind": "reroute", "target": "httproute/helpcenter-embed"},
        ],
        "scope": [
            f"httproute/{route}",
            f"deployment/{dep}",
            *[f"pod/{p['name']}" for p in pods],
            f"node/{gpu_n[0]}",
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Partner LLM API: availability SLO paging this afternoon.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
