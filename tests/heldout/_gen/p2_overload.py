# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""GPU compute overload: a promotion push doubles chat traffic; every replica saturates its GPU.

Four vLLM 0.11 replicas of a 14B shopping assistant (one A100 80GB each, `--max-num-seqs 64`) on two
OKE bare-metal nodes (Kubernetes node names are the private IPs). At 14:01:30 a push notification of a
weekend promotion brings arrivals from ~560 to ~1,180 requests/min within three minutes. Each replica
tops out at about 240 completions/min: `Running` pins at 64, GPU utilisation climbs to 97-99 % on all
four GPUs, the waiting queue grows to ~180 per replica and requests start to exceed the route's 60 s
timeout: Envoy answers 504 (UT) and vLLM aborts the abandoned requests. KV cache stays moderate
(~0.6), there are no preemptions, no errors in the engine, no restarts, no rollout. The alert is a
Sloth multi-window burn-rate page on the chat availability SLO, labelled with `model_name` (not
`model`) and without `service`.
"""

from __future__ import annotations

import random
from datetime import timedelta

from . import exporters as ex
from . import kube
from .common import envoy_text, gpu_node, gpus_json
from .lib import (
    OM,
    Clock,
    Logs,
    Prom,
    current_firing,
    hexid,
    httproute_obj,
    iso,
    ramp,
    service_obj,
    utc,
    webhook,
    within,
    write_pack,
)

NAME = "gpu-saturation-promo-spike-504"
ENGINE = "vLLM 0.11.0 (V1) on A100 80GB, Envoy Gateway, Sloth SLO"


def build(root):
    rng = random.Random(9202)
    as_of = utc("2026-09-12T14:24:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "shop-assist"
    dep = "vllm-qwen3-14b-shopper"
    model = "qwen3-14b-shopper"
    route = "shopper-chat"
    cl_chat = f"httproute/{ns}/{route}/rule/1"
    cl_models = f"httproute/{ns}/{route}/rule/0"
    image = "vllm/vllm-openai:v0.11.0"
    driver = "570.158.01"
    gw_pod = "envoy-shop-edge-storefront-gw-5e0c8a41-7d9b6c5f4-h2kvq"
    gw_ip = "10.244.3.41"
    gw_ns = "envoy-gateway-system"

    # ---------------------------------------------------------------- nodes (OKE: node name = private IP)
    node_specs = [
        ("10.0.10.87", "10.244.1.0/25", "10.244.1", "FAULT-DOMAIN-1"),
        ("10.0.10.142", "10.244.2.0/25", "10.244.2", "FAULT-DOMAIN-3"),
    ]
    node_objs = []
    for name, cidr, _, fd in node_specs:
        node_objs.append(
            gpu_node(
                rng,
                name,
                as_of=as_of,
                created=utc("2026-07-28T06:41:09Z"),
                ready_since=utc("2026-08-30T22:05:51Z"),
                ip=name,
                pod_cidr=cidr,
                product="NVIDIA A100-SXM4-80GB",
                gpu_count=8,
                gpu_mem_mib=81920,
                instance_type="BM.GPU.A100-v2.8",
                zone="US-ASHBURN-AD-2",
                region="us-ashburn-1",
                cpu=256,
                mem_ki=2113456012,
                kubelet="v1.32.1",
                runtime="cri-o://1.32.1-1.el8",
                kernel="5.15.0-303.171.5.2.el8uek.x86_64",
                os_image="Oracle Linux Server 8.10",
                extra_labels={
                    "oci.oraclecloud.com/fault-domain": fd,
                    "name": "gpu-a100-pool",
                    "node.info/kubeletVersion": "v1.32.1",
                    "displayName": f"oke-cq3x7kbtqwa-n4{hexid(rng, 9)}-s{hexid(rng, 10)}-{node_specs.index((name, cidr, _, fd))}",
                    "failure-domain.beta.kubernetes.io/zone": "US-ASHBURN-AD-2",
                },
                provider_id=f"ocid1.instance.oc1.iad.anuwcljt{hexid(rng, 52)}",
                driver_major="570",
            )
        )

    # ---------------------------------------------------------------- workload
    labels = {"app": "vllm-shopper", "model": "qwen3-14b"}
    args = [
        "--model",
        "/mnt/models/qwen3-14b-shopper-sft-v6",
        "--served-model-name",
        model,
        "--max-model-len",
        "8192",
        "--max-num-seqs",
        "64",
        "--gpu-memory-utilization",
        "0.90",
        "--enable-prefix-caching",
        "--enable-chunked-prefill",
        "--reasoning-parser",
        "qwen3",
        "--port",
        "8000",
    ]
    tmpl = {
        "metadata": {
            "labels": {"tier": "inference"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-09-03T07:12:40Z"},
        },
        "spec": {
            "containers": [
                {
                    "name": "vllm",
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "command": ["vllm", "serve"],
                    "args": args,
                    "env": [
                        {"name": "HF_HUB_OFFLINE", "value": "1"},
                        {"name": "VLLM_USAGE_SOURCE", "value": "production-docker-image"},
                    ],
                    "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1", "memory": "96Gi"},
                        "requests": {"nvidia.com/gpu": "1", "cpu": "12", "memory": "64Gi"},
                    },
                    "readinessProbe": kube.probe_http("/health", 8000, period=5, failure=3),
                    "livenessProbe": kube.probe_http(
                        "/health", 8000, period=15, failure=4, initial=240, timeout=3
                    ),
                    "volumeMounts": [
                        {"name": "models", "mountPath": "/mnt/models", "readOnly": True},
                        {"name": "shm", "mountPath": "/dev/shm"},
                    ],
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "volumes": [
                {
                    "name": "models",
                    "persistentVolumeClaim": {"claimName": "shopper-models-fss", "readOnly": True},
                },
                {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
            ],
            "nodeSelector": {"name": "gpu-a100-pool"},
            "tolerations": kube.DEFAULT_TOLERATIONS,
            "serviceAccountName": "default",
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
        replicas=4,
        created=utc("2026-06-15T09:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
        extra_labels={"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "vllm-serving-0.4.2"},
        annotations={"meta.helm.sh/release-name": "shopper", "meta.helm.sh/release-namespace": ns},
    )
    old = kube.Revision(
        6,
        kube.rs_hash(rng),
        utc("2026-08-19T10:02:00Z"),
        {
            **tmpl,
            "spec": {
                **tmpl["spec"],
                "containers": [{**tmpl["spec"]["containers"][0], "image": "vllm/vllm-openai:v0.10.2"}],
            },
        },
        uid=kube.new_uid(rng),
    )
    cur = kube.Revision(
        7,
        kube.rs_hash(rng),
        utc("2026-09-03T07:12:41Z"),
        tmpl,
        uid=kube.new_uid(rng),
        replicas=4,
        ready=4,
        available=4,
        change_cause="helm upgrade shopper: vLLM 0.11.0",
    )
    w.revisions = [old, cur]
    w.status = {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 4, "availableReplicas": 4}
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-09-03T07:19:02Z"),
            utc("2026-09-03T07:19:02Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{cur.hash}" has successfully progressed.',
            utc("2026-09-03T07:21:30Z"),
            utc("2026-06-15T09:00:00Z"),
        ),
    )
    pods = []
    for k in range(4):
        node, _, prefix, _ = node_specs[k % 2]
        pods.append(
            {
                "name": kube.pod_name(rng, w, cur),
                "uid": kube.new_uid(rng),
                "node": node,
                "ip": f"{prefix}.{[14, 33, 52, 71][k]}",
                "gpu": k // 2,
                "created": cur.created + timedelta(minutes=2 * k, seconds=3),
            }
        )

    # ---------------------------------------------------------------- traffic and queueing per pod
    spike0, spike1 = t("14:01:30"), t("14:04:30")
    route_timeout = 60.0
    cap_base = 240.0
    om = OM(c)
    codes = {200: [0.0] * N, 504: [0.0] * N}
    per_pod = []
    for _p in pods:
        q = 0.0
        ser = {
            "arr": [],
            "ok": [],
            "to": [],
            "wait": [],
            "run": [],
            "kv": [],
            "ttft_med": [],
            "itl": [],
            "util": [],
        }
        for i in range(N):
            load = ramp(c, i, spike0, spike1)
            a = 140 * (1 + 0.03 * i / N) * (1 + 1.1 * load) * rng.uniform(0.95, 1.05)
            cap = cap_base * rng.uniform(0.97, 1.03)
            service_s = 15.6 if load > 0.6 else 10.2 + 5.4 * load
            qmax = cap * (route_timeout - service_s) / 60
            avail = q + a
            served = min(cap, avail)
            q = avail - served
            timeouts = 0.0
            if q > qmax:
                timeouts = q - qmax
                q = qmax
            q = max(0.0, q * rng.uniform(0.97, 1.0)) if q > 3 else float(rng.choice([0, 0, 0, 1]))
            sat = served >= cap * 0.98
            run = 64 if sat else round(served * service_s / 60 * rng.uniform(0.94, 1.06))
            wait_s = q / (cap / 60)
            ser["arr"].append(a)
            ser["ok"].append(round(served))
            ser["to"].append(round(timeouts))
            ser["wait"].append(round(q))
            ser["run"].append(min(64, run))
            ser["kv"].append(round(min(64, run) * 2450 / 245_000 + rng.uniform(-0.015, 0.015), 4))
            ser["ttft_med"].append(0.28 + (1.2 if sat else 0.25 * load) + 0.75 * wait_s)
            ser["itl"].append(0.022 + 0.012 * min(1.0, run / 64))
            if sat:
                ser["util"].append(round(rng.uniform(96.6, 99.4)))
            else:
                ser["util"].append(
                    round(min(95.0, 68 + 27 * max(0.0, (run - 24) / 40)) + rng.uniform(-2.5, 2.5))
                )
        for i in range(N):
            if ser["to"][i] == 0 and rng.random() < 0.05:
                ser["to"][i] = 1  # the odd slow request at quiet times
            codes[200][i] += ser["ok"][i]
            codes[504][i] += ser["to"][i]
        per_pod.append(ser)

    # ---------------------------------------------------------------- vLLM (ServiceMonitor labels)
    for k, p in enumerate(pods):
        s = per_pod[k]
        lab = ex.vllm_labels(
            pod=p["name"], ns=ns, model=model, ip=p["ip"], job=dep, service=dep, container="vllm"
        )
        om.gauge(
            "vllm:num_requests_running",
            "Number of requests in model execution batches.",
            lab,
            s["run"],
            digits=4,
        )
        om.gauge(
            "vllm:num_requests_waiting",
            "Number of requests waiting to be processed.",
            lab,
            s["wait"],
            digits=4,
        )
        om.gauge(
            "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, s["kv"], digits=4
        )
        base = [2_811_406, 2_790_115, 2_804_772, 2_779_930][k]
        om.counter(
            "vllm:num_preemptions",
            "Cumulative number of preemption from the engine.",
            lab,
            [0] * N,
            initial=12,
        )
        om.counter(
            "vllm:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            [x * 2010 * rng.uniform(0.96, 1.04) for x in s["ok"]],
            initial=base * 2010,
        )
        om.counter(
            "vllm:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            [x * 452 * rng.uniform(0.96, 1.04) for x in s["ok"]],
            initial=base * 452,
        )
        for reason, frac in (("stop", 0.955), ("length", 0.045)):
            om.counter(
                "vllm:request_success",
                "Count of successfully processed requests.",
                {**lab, "finished_reason": reason},
                [round(x * frac) for x in s["ok"]],
                initial=round(base * frac),
            )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "abort"},
            s["to"],
            initial=311,
        )
        om.histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            ex.VLLM_TTFT,
            s["ok"],
            s["ttft_med"],
            0.5,
            initial_count=base,
        )

    # ---------------------------------------------------------------- DCGM
    gpus = []
    pci = ["00000000:0F:00.0", "00000000:15:00.0", "00000000:51:00.0", "00000000:54:00.0"]
    exporter_ip = {node_specs[0][0]: "10.244.1.9", node_specs[1][0]: "10.244.2.7"}
    for k, p in enumerate(pods):
        s = per_pod[k]
        g = ex.Gpu(
            node=p["node"],
            index=p["gpu"],
            uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
            pci=pci[p["gpu"]],
            model="NVIDIA A100-SXM4-80GB",
            memory_mib=81920,
            pod=p["name"],
            namespace=ns,
            container="vllm",
        )
        g.util = [float(u) for u in s["util"]]
        g.fb_used = [74_512 + rng.randint(-20, 20) for _ in range(N)]
        g.power = [round(118 + 2.8 * u + rng.uniform(-6, 6), 3) for u in g.util]
        g.temp = [round(44 + 0.27 * u + rng.uniform(-1, 1)) for u in g.util]
        gpus.append(g)
    ex.dcgm(om, gpus, driver, exporter_ip, temp=True)

    # ---------------------------------------------------------------- kube-state-metrics (plain job label)
    for p in pods:
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ex.ksm_labels({**plab, "condition": "true"}, False),
            [1] * N,
            digits=2,
        )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ex.ksm_labels({**plab, "container": "vllm"}, False),
            [0] * N,
        )
    dlab = ex.ksm_labels({"namespace": ns, "deployment": dep}, False)
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [4] * N, digits=3
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        [4] * N,
        digits=3,
    )
    for name, *_ in node_specs:
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ex.ksm_labels({"node": name, "condition": "Ready", "status": "true"}, False),
            [1] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- Envoy (two rules of one route)
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{gw_ip}:19001",
        "job": f"{gw_ns}/envoy-proxy",
        "namespace": gw_ns,
        "pod": gw_pod,
    }
    mix = []
    for i in range(N):
        ok_parts = [
            (per_pod[k]["ok"][i], 1000 * 0 + (per_pod[k]["ttft_med"][i] + 450 * per_pod[k]["itl"][i]), 0.35)
            for k in range(4)
        ]
        mix.append([*ok_parts, (codes[504][i], 60.0, 0.0003)])
    ex.envoy_cluster(
        om,
        cluster=cl_chat,
        proxy=proxy,
        codes=codes,
        initial={200: 14_220_871, 504: 2_406},
        timeouts=codes[504],
        healthy=[4] * N,
        members=[4] * N,
        rq_time_mix=mix,
        rq_time_initial=[(14_220_871, 10.4, 0.35)],
    )
    models_codes = {200: [round(22 * rng.uniform(0.8, 1.2)) for _ in range(N)]}
    ex.envoy_cluster(
        om,
        cluster=cl_models,
        proxy=proxy,
        codes=models_codes,
        initial={200: 611_402},
        healthy=[4] * N,
        members=[4] * N,
    )

    # ---------------------------------------------------------------- Sloth recording rules (SLI over both rules of the route)
    sid, svc, slo = "shop-assist-chat-availability", "shop-assist", "chat-availability"
    total = [codes[200][i] + codes[504][i] + models_codes[200][i] for i in range(N)]
    errs = [codes[504][i] for i in range(N)]
    pre_rate, pre_err = 575.0, 0.00031

    def window_ratio(i: int, minutes: int) -> float:
        inside = min(i, minutes)
        e = sum(errs[i - j] for j in range(inside))
        tot = sum(total[i - j] for j in range(inside))
        outside = minutes - inside
        e += outside * pre_rate * pre_err
        tot += outside * pre_rate
        return e / tot

    slab = {"sloth_id": sid, "sloth_service": svc, "sloth_slo": slo}
    for win, m in (("5m", 5), ("30m", 30), ("1h", 60), ("2h", 120), ("6h", 360), ("1d", 1440), ("3d", 4320)):
        om.gauge(
            f"slo:sli_error:ratio_rate{win}",
            "",
            {**slab, "sloth_window": win},
            [round(window_ratio(i, m), 8) for i in range(N)],
            digits=8,
        )
    om.gauge("slo:objective:ratio", "", slab, [0.999] * N)
    om.gauge("slo:error_budget:ratio", "", slab, [0.001] * N)
    om.gauge("slo:time_period:days", "", slab, [30] * N)
    om.gauge(
        "slo:current_burn_rate:ratio", "", slab, [round(window_ratio(i, 5) / 0.001, 6) for i in range(N)]
    )
    om.gauge(
        "slo:period_burn_rate:ratio", "", slab, [round(window_ratio(i, 43200) / 0.001, 6) for i in range(N)]
    )
    om.gauge(
        "slo:period_error_budget_remaining:ratio",
        "",
        slab,
        [round(1 - window_ratio(i, 43200) / 0.001, 6) for i in range(N)],
    )
    om.gauge(
        "sloth_slo_info",
        "",
        {
            **slab,
            "sloth_mode": "cli-gen-k8s",
            "sloth_objective": "99.9",
            "sloth_spec": "sloth.slok.dev/v1",
            "sloth_version": "v0.11.0",
        },
        [1] * N,
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()
    for k, p in enumerate(pods):
        s = per_pod[k]
        for i in range(1, N):
            minute = c.at(i - 1)
            if i % 2 == k % 2:
                ts = within(rng, minute)
                logs.add(
                    ts,
                    f"(APIServer pid=1) INFO 09-12 {ts.strftime('%H:%M:%S')} [loggers.py:127] Engine 000: Avg prompt throughput: "
                    f"{s['ok'][i] * 2010 / 60 * rng.uniform(0.9, 1.1):.1f} tokens/s, Avg generation throughput: {s['ok'][i] * 452 / 60 * rng.uniform(0.9, 1.1):.1f} tokens/s, "
                    f"Running: {s['run'][i]} reqs, Waiting: {s['wait'][i]} reqs, GPU KV cache usage: {s['kv'][i] * 100:.1f}%, "
                    f"Prefix cache hit rate: {rng.uniform(38, 46):.1f}%",
                    service=dep,
                    ns=ns,
                    pod=p["name"],
                    node=p["node"],
                    container="vllm",
                    logger="vllm.v1.metrics.loggers",
                )
            for _ in range(1 if i % 3 == k % 3 else 0):
                ts = within(rng, minute)
                logs.add(
                    ts,
                    f'(APIServer pid=1) INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                    service=dep,
                    ns=ns,
                    pod=p["name"],
                    node=p["node"],
                    container="vllm",
                    status=200,
                )
    uas = [
        "storefront-bff/7.14.2 (okhttp/4.12.0)",
        "storefront-bff/7.14.2 (okhttp/4.12.0)",
        "shopper-ios/5.3.0 CFNetwork/1568.100.1",
    ]
    clients = ["10.0.20.31", "10.0.20.58", "10.0.21.7"]
    for i in range(1, N):
        minute = c.at(i - 1)
        if i % 2 == 0:
            k = rng.randrange(4)
            dur = int(1000 * (per_pod[k]["ttft_med"][i] + 450 * per_pod[k]["itl"][i]) * rng.uniform(0.7, 1.3))
            envoy_text(
                logs,
                rng,
                end=within(rng, minute),
                code=200,
                flags="-",
                duration_ms=min(dur, 59_800),
                upstream_host=f"{pods[k]['ip']}:8000",
                authority="assistant.shop.example.com",
                path="/v1/chat/completions",
                client=rng.choice(clients),
                gw_pod=gw_pod,
                gw_ns=gw_ns,
                gw_node=node_specs[0][0],
                user_agent=rng.choice(uas),
                bytes_sent=rng.randint(1500, 5200),
            )
        for _ in range(min(4, int(codes[504][i]))):
            k = rng.randrange(4)
            envoy_text(
                logs,
                rng,
                end=within(rng, minute),
                code=504,
                flags="UT",
                duration_ms=60_000 + rng.randint(0, 4),
                upstream_host=f"{pods[k]['ip']}:8000",
                authority="assistant.shop.example.com",
                path="/v1/chat/completions",
                client=rng.choice(clients),
                gw_pod=gw_pod,
                gw_ns=gw_ns,
                gw_node=node_specs[0][0],
                user_agent=rng.choice(uas),
                bytes_sent=24,
            )

    # ---------------------------------------------------------------- objects
    objs = [w.deployment(), w.replicaset(cur), w.replicaset(old)]
    for p in pods:
        st = kube.cstatus(
            rng, name="vllm", image=image, ready=True, running_since=p["created"] + timedelta(seconds=6)
        )
        objs.append(
            kube.pod_obj(
                w,
                cur,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node"],
                phase="Running",
                ready=True,
                container_statuses=[st],
                ready_since=p["created"] + timedelta(minutes=3, seconds=2),
            )
        )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 8000, "protocol": "TCP", "targetPort": 8000}],
            "10.96.118.40",
            labels={**labels, "app.kubernetes.io/managed-by": "Helm"},
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="storefront-gw",
            gateway_ns="shop-edge",
            hostnames=["assistant.shop.example.com"],
            rules=[
                {
                    "matches": [{"path": {"type": "Exact", "value": "/v1/models"}, "method": "GET"}],
                    "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 8000, "weight": 1}],
                },
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1/chat/completions"}}],
                    "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 8000, "weight": 1}],
                    "timeouts": {"request": "60s"},
                },
            ],
            created=utc("2026-06-15T09:05:00Z"),
            uid_=kube.new_uid(rng),
            generation=2,
        )
    )
    objs.extend(node_objs)
    gj = gpus_json(gpus, rng)

    # ---------------------------------------------------------------- Sloth page alert, evaluated by Prometheus
    sel = f'sloth_id="{sid}", sloth_service="{svc}", sloth_slo="{slo}"'
    expr = (
        f"(\n    max(slo:sli_error:ratio_rate5m{{{sel}}} > (14.4 * 0.001)) without (sloth_window)\n    and\n"
        f"    max(slo:sli_error:ratio_rate1h{{{sel}}} > (14.4 * 0.001)) without (sloth_window)\n)\nor\n(\n"
        f"    max(slo:sli_error:ratio_rate30m{{{sel}}} > (6 * 0.001)) without (sloth_window)\n    and\n"
        f"    max(slo:sli_error:ratio_rate6h{{{sel}}} > (6 * 0.001)) without (sloth_window)\n)\n"
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=0, eval_offset_s=41)
    finally:
        prom.close()
    alabels = {
        "alertname": "ShopAssistChatAvailabilityBudgetBurn",
        "sloth_id": sid,
        "sloth_service": svc,
        "sloth_slo": slo,
        "sloth_severity": "page",
        "severity": "critical",
        "namespace": ns,
        "model_name": model,
        "team": "commerce-ml",
        "routing_key": "commerce-oncall",
    }
    ann = {
        "summary": f"{svc} {slo} SLO error budget burn rate is over expected.",
        "title": f"(page) {svc} {slo} SLO error budget burn rate is too fast.",
        "value": f"{value:.5f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(50, 900)),
        expr=expr,
        prometheus_url="http://prometheus-k8s.monitoring.svc:9090",
        external_url="http://alertmanager-main.monitoring.svc:9093",
        group_by=["alertname", "sloth_service", "sloth_slo"],
        receiver="commerce-oncall-bot",
        route_matchers='{}/{sloth_severity="page"}',
    )
    expected = {
        "category": "infrastructure",
        "code": "INF_GPU_OVERLOAD",
        "acceptable_first_actions": [{"kind": "add_replica", "target": f"deployment/{dep}"}],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Shopping assistant availability SLO burning on Saturday afternoon.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
