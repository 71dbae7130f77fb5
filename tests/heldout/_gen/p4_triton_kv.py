# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""KV-cache exhaustion on Triton + TensorRT-LLM (in-flight batching), no rollout.

Three Triton 25.06 replicas serve an FP8 Llama-3.1-8B TensorRT-LLM engine (ensemble: preprocessing ->
tensorrt_llm -> postprocessing) for a contact-center agent-assist app, one L40S each, with
`kv_cache_free_gpu_mem_fraction=0.45` (~4,160 blocks of 64 tokens per replica) and the
GUARANTEED_NO_EVICT batch scheduler. At 20:17 a call-transcript summarizer goes live and adds ~50
requests/min per replica of 8-10k-token transcripts with 1k-token summaries. Within four minutes
`nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="fraction"}` reaches ~1.0 and free blocks 0;
the scheduler can no longer admit new requests, so `nv_trt_llm_request_metrics{request_type="waiting"}`
and `nv_inference_pending_request_count` grow and the time to first response climbs from ~0.2 s to
over a minute. GPU utilisation stays in the 80s, no errors, no restarts, no deploy.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta

from . import exporters as ex
from . import kube
from .common import envoy_json, gpu_node, gpus_json
from .lib import (
    OM,
    Clock,
    Logs,
    Prom,
    current_firing,
    hexid,
    httproute_obj,
    iso,
    le_go,
    ramp,
    service_obj,
    utc,
    webhook,
    within,
    write_pack,
)

NAME = "triton-trtllm-kv-blocks-exhausted"
ENGINE = "Triton 25.06 + TensorRT-LLM backend (inflight batcher), L40S"
FIRST_RESPONSE_MS = [100, 500, 2000, 5000]
# the model repository's names (ensemble: preprocessing -> tensorrt_llm -> postprocessing)
ENS, PRE, TRT, POST = (
    "llama31_cc_ensemble",
    "llama31_cc_preprocessing",
    "llama31_cc_trtllm",
    "llama31_cc_postprocessing",
)


def build(root):
    rng = random.Random(9404)
    as_of = utc("2026-09-24T20:38:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "contact-center-ai"
    dep = "triton-llama31-8b-trtllm"
    route = "cc-llm"
    cluster = f"httproute/{ns}/{route}/rule/0"
    image = "nvcr.io/nvidia/tritonserver:25.06-trtllm-python-py3"
    driver = "575.57.08"
    gw_ns = "envoy-gateway-system"
    gw_pod = "envoy-cc-gateway-agent-gw-9a2d4e17-5c7b9d8f6-rt8kz"
    gw_ip = "10.52.3.27"
    onset = t("20:17:00")

    nodes = [
        ("k8s-l40s-ams3-07", "172.20.4.17", "10.52.0"),
        ("k8s-l40s-ams3-08", "172.20.4.18", "10.52.1"),
        ("k8s-l40s-ams3-11", "172.20.4.21", "10.52.2"),
    ]
    node_objs = [
        gpu_node(
            rng,
            n,
            as_of=as_of,
            created=utc("2026-05-19T11:02:45Z"),
            ready_since=utc("2026-09-07T03:44:10Z"),
            ip=ip,
            pod_cidr=f"{pre}.0/24",
            product="NVIDIA L40S",
            gpu_count=2,
            gpu_mem_mib=46068,
            instance_type="gpu.l40s.2x",
            zone="ams3-b",
            region="ams3",
            cpu=64,
            mem_ki=528271360,
            kubelet="v1.31.9",
            runtime="containerd://2.0.5",
            kernel="6.1.0-37-cloud-amd64",
            os_image="Debian GNU/Linux 12 (bookworm)",
            driver_major="575",
        )
        for n, ip, pre in nodes
    ]

    labels = {"app": "triton-llm", "model-family": "llama31-8b"}
    tmpl = {
        "metadata": {
            "labels": {"engine": "trtllm"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-09-02T08:10:03Z"},
        },
        "spec": {
            "initContainers": [
                {
                    "name": "fetch-engines",
                    "image": "amazon/aws-cli:2.27.40",
                    "command": [
                        "aws",
                        "s3",
                        "sync",
                        "s3://cc-ai-engines/llama31-8b-fp8-l40s/trt-10.10/",
                        "/engines/",
                    ],
                    "volumeMounts": [{"name": "engines", "mountPath": "/engines"}],
                }
            ],
            "containers": [
                {
                    "name": "triton",
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "command": ["tritonserver"],
                    "args": [
                        "--model-repository=/engines/model_repo",
                        "--model-control-mode=none",
                        "--http-port=8000",
                        "--grpc-port=8001",
                        "--metrics-port=8002",
                        "--allow-cpu-metrics=false",
                        "--metrics-config",
                        "histogram_latencies=true",
                        "--log-verbose=1",
                    ],
                    "ports": [
                        {"name": "http", "containerPort": 8000},
                        {"name": "grpc", "containerPort": 8001},
                        {"name": "metrics", "containerPort": 8002},
                    ],
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1", "memory": "64Gi"},
                        "requests": {"nvidia.com/gpu": "1", "cpu": "8", "memory": "48Gi"},
                    },
                    "readinessProbe": kube.probe_http("/v2/health/ready", "http", period=10, failure=3),
                    "livenessProbe": kube.probe_http(
                        "/v2/health/live", "http", period=15, failure=4, initial=120, timeout=3
                    ),
                    "volumeMounts": [
                        {"name": "engines", "mountPath": "/engines"},
                        {"name": "shm", "mountPath": "/dev/shm"},
                    ],
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "volumes": [
                {"name": "engines", "emptyDir": {"sizeLimit": "40Gi"}},
                {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}},
            ],
            "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S"},
            "tolerations": kube.DEFAULT_TOLERATIONS,
            "serviceAccountName": "triton",
            "terminationGracePeriodSeconds": 45,
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
        created=utc("2026-05-20T09:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        extra_labels={"app.kubernetes.io/managed-by": "kustomize"},
    )
    r4 = kube.Revision(
        4,
        kube.rs_hash(rng),
        utc("2026-08-11T12:30:00Z"),
        {
            **tmpl,
            "spec": {
                **tmpl["spec"],
                "containers": [
                    {
                        **tmpl["spec"]["containers"][0],
                        "image": "nvcr.io/nvidia/tritonserver:25.04-trtllm-python-py3",
                    }
                ],
            },
        },
        uid=kube.new_uid(rng),
    )
    r5 = kube.Revision(
        5,
        kube.rs_hash(rng),
        utc("2026-09-02T08:10:04Z"),
        tmpl,
        uid=kube.new_uid(rng),
        replicas=3,
        ready=3,
        available=3,
        change_cause="triton 25.06, engines rebuilt with TensorRT 10.10",
    )
    w.revisions = [r4, r5]
    w.status = {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3}
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-09-02T08:16:40Z"),
            utc("2026-09-02T08:16:40Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{r5.hash}" has successfully progressed.',
            utc("2026-09-02T08:29:05Z"),
            utc("2026-05-20T09:00:00Z"),
        ),
    )
    pods = [
        {
            "name": kube.pod_name(rng, w, r5),
            "uid": kube.new_uid(rng),
            "node": n,
            "node_ip": nip,
            "ip": f"{pre}.{[41, 56, 23][k]}",
            "created": r5.created + timedelta(minutes=6 * k, seconds=2),
        }
        for k, (n, nip, pre) in enumerate(nodes)
    ]

    # ---------------------------------------------------------------- per replica dynamics
    MAXB, TPB = 4160, 64
    om = OM(c)
    per = []
    for _p in pods:
        s = {
            "chat": [],
            "summ": [],
            "frac": [],
            "wait": [],
            "pend": [],
            "sched": [],
            "ctx": [],
            "fr_med": [],
            "ok_chat": [],
            "ok_summ": [],
            "util": [],
            "dur_chat": [],
            "dur_summ": [],
        }
        wait_s = 0.0
        prev_waiting = 0
        for i in range(N):
            load = ramp(c, i, onset, onset + timedelta(minutes=4))
            full = ramp(c, i, onset + timedelta(minutes=1), onset + timedelta(minutes=4, seconds=30))
            chat = 100 * rng.uniform(0.94, 1.06)
            summ = 52 * load * rng.uniform(0.9, 1.1)
            if c.at(i) > onset + timedelta(minutes=3, seconds=30):
                wait_s += rng.uniform(2.1, 3.3)
            frac = (
                min(1.0, 0.22 + 0.775 * full + rng.uniform(-0.012, 0.012))
                if full < 1
                else rng.choice([1.0, 1.0, 0.9988, 0.9976, 0.9995])
            )
            waiting = round((chat + summ) * wait_s / 60 * rng.uniform(0.92, 1.08))
            served_chat = (
                max(0.0, chat - (waiting - prev_waiting) * chat / (chat + summ + 1e-9))
                if waiting > prev_waiting
                else chat
            )
            served_summ = (
                max(0.0, summ - (waiting - prev_waiting) * summ / (chat + summ + 1e-9))
                if waiting > prev_waiting
                else summ
            )
            prev_waiting = waiting
            s["chat"].append(chat)
            s["summ"].append(summ)
            s["frac"].append(round(frac, 4))
            s["wait"].append(waiting)
            s["pend"].append(round(waiting * 0.14 + (rng.choice([0, 0, 1]) if waiting == 0 else 0)))
            sched = round(min(64, 7 + 31 * full + rng.uniform(-2, 2)))
            s["sched"].append(sched)
            s["ctx"].append(rng.choice([0, 1, 1, 2]) if full > 0.9 else rng.choice([0, 1, 2, 3]))
            s["fr_med"].append(0.21 + 0.5 * load + wait_s)
            s["ok_chat"].append(round(served_chat))
            s["ok_summ"].append(round(served_summ))
            s["util"].append(round(61 + 24 * full + rng.uniform(-3, 3)))
            s["dur_chat"].append(0.21 + wait_s + 220 * (0.0135 + 0.009 * full))
            s["dur_summ"].append(1.1 + wait_s + 1010 * (0.0135 + 0.009 * full))
        per.append(s)

    # ---------------------------------------------------------------- Triton metrics (ServiceMonitor on the metrics port)
    for k, p in enumerate(pods):
        s = per[k]
        base = {
            "container": "triton",
            "endpoint": "metrics",
            "instance": f"{p['ip']}:8002",
            "job": dep,
            "namespace": ns,
            "pod": p["name"],
            "service": dep,
        }
        init = [5_118_220, 5_097_731, 5_121_906][k]
        ok_total = [s["ok_chat"][i] + s["ok_summ"][i] for i in range(N)]
        for mname in (ENS, PRE, TRT, POST):
            lab = {**base, "model": mname, "version": "1"}
            om.counter(
                "nv_inference_request_success",
                "Number of successful inference requests, all batch sizes",
                lab,
                ok_total,
                initial=init,
                suffix_total=False,
            )
            om.counter(
                "nv_inference_request_failure",
                "Number of failed inference requests, all batch sizes",
                {**lab, "reason": "BACKEND"},
                [0] * N,
                initial=3 if mname == TRT else 0,
                suffix_total=False,
            )
            if mname in (ENS, TRT):
                dur = [
                    1e6 * (s["ok_chat"][i] * s["dur_chat"][i] + s["ok_summ"][i] * s["dur_summ"][i])
                    for i in range(N)
                ]
                om.counter(
                    "nv_inference_request_duration_us",
                    "Cumulative inference request duration in microseconds (includes cached requests)",
                    lab,
                    dur,
                    initial=init * 3.4e6,
                    suffix_total=False,
                )
                qd = [
                    1e6 * ok_total[i] * (s["fr_med"][i] - 0.2) * (0.14 if mname == TRT else 0.0)
                    + ok_total[i] * rng.uniform(40, 90)
                    for i in range(N)
                ]
                om.counter(
                    "nv_inference_queue_duration_us",
                    "Cumulative inference queuing duration in microseconds (includes cached requests)",
                    lab,
                    qd,
                    initial=init * 95,
                    suffix_total=False,
                )
                om.gauge(
                    "nv_inference_pending_request_count",
                    "Instantaneous number of pending requests awaiting execution per-model.",
                    lab,
                    s["pend"] if mname == TRT else [0] * N,
                    digits=4,
                )
            if mname == ENS:
                mix = [
                    [
                        (
                            s["ok_chat"][i],
                            1000
                            * (
                                0.21
                                + (
                                    s["fr_med"][i]
                                    - 0.21
                                    - 0.5 * ramp(c, i, onset, onset + timedelta(minutes=4))
                                )
                            ),
                            0.45,
                        ),
                        (s["ok_summ"][i], 1000 * s["fr_med"][i], 0.4),
                    ]
                    for i in range(N)
                ]
                om.histogram_mix(
                    "nv_inference_first_response_histogram_ms",
                    "Duration from request to first response in milliseconds",
                    lab,
                    FIRST_RESPONSE_MS,
                    mix,
                    initial=[(init, 210, 0.45)],
                    le=le_go,
                )
        tl = {**base, "model": TRT, "version": "1"}
        for typ, vals in (
            ("max", [MAXB] * N),
            ("free", [round(MAXB * (1 - f)) for f in s["frac"]]),
            ("used", [round(MAXB * f) for f in s["frac"]]),
            ("tokens_per", [TPB] * N),
            (
                "reused",
                [
                    round(rng.uniform(60, 140) * (1 - 0.6 * ramp(c, i, onset, onset + timedelta(minutes=4))))
                    for i in range(N)
                ],
            ),
            ("fraction", s["frac"]),
        ):
            om.gauge(
                "nv_trt_llm_kv_cache_block_metrics",
                "TRT LLM KV cache block metrics",
                {**tl, "kv_cache_block_type": typ},
                vals,
                digits=6,
            )
        for typ, vals in (
            ("active", [s["sched"][i] + s["wait"][i] for i in range(N)]),
            ("max", [64] * N),
            ("scheduled", s["sched"]),
            ("context", s["ctx"]),
            ("waiting", s["wait"]),
        ):
            om.gauge(
                "nv_trt_llm_request_metrics",
                "TRT LLM request metrics",
                {**tl, "request_type": typ},
                vals,
                digits=6,
            )
        for typ, vals in (
            ("paused_requests", [0] * N),
            ("generation_requests", [max(0, s["sched"][i] - s["ctx"][i]) for i in range(N)]),
            ("total_context_tokens", [round(s["ctx"][i] * rng.uniform(2500, 9000)) for i in range(N)]),
        ):
            om.gauge(
                "nv_trt_llm_inflight_batcher_metrics",
                "TRT LLM inflight_batcher-specific metrics",
                {**tl, "inflight_batcher_specific_metric": typ},
                vals,
                digits=8,
            )
        om.counter(
            "nv_trt_llm_general_metrics",
            "General TRT LLM metrics",
            {**tl, "general_type": "iteration_counter"},
            [rng.uniform(2400, 2700) for _ in range(N)],
            initial=41_003_118 + k * 91_733,
            suffix_total=False,
        )

    # ---------------------------------------------------------------- GPUs (DCGM + Triton's own)
    gpus = []
    exporter_ip = {n: f"{pre}.4" for n, _, pre in nodes}
    for k, p in enumerate(pods):
        s = per[k]
        g = ex.Gpu(
            node=p["node"],
            index=0,
            uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
            pci="00000000:3B:00.0",
            model="NVIDIA L40S",
            memory_mib=46068,
            pod=p["name"],
            namespace=ns,
            container="triton",
        )
        g.util = [float(u) for u in s["util"]]
        g.fb_used = [40_930 + rng.randint(-8, 8) for _ in range(N)]
        g.power = [round(88 + 2.1 * u + rng.uniform(-7, 7), 3) for u in g.util]
        g.temp = [round(41 + 0.3 * u + rng.uniform(-1, 1)) for u in g.util]
        gpus.append(g)
        glab = {
            "container": "triton",
            "endpoint": "metrics",
            "instance": f"{p['ip']}:8002",
            "job": dep,
            "namespace": ns,
            "pod": p["name"],
            "service": dep,
            "gpu_uuid": g.uuid,
        }
        om.gauge(
            "nv_gpu_utilization",
            "GPU utilization rate [0.0 - 1.0)",
            glab,
            [round(u / 100, 3) for u in g.util],
            digits=4,
        )
        om.gauge(
            "nv_gpu_memory_used_bytes",
            "GPU used memory, in bytes",
            glab,
            [fb * 1048576 for fb in g.fb_used],
            digits=12,
        )
        om.gauge(
            "nv_gpu_memory_total_bytes", "GPU total memory, in bytes", glab, [46068 * 1048576] * N, digits=12
        )
    ex.dcgm(om, gpus, driver, exporter_ip, temp=True)

    # kube-state-metrics
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
            ex.ksm_labels({**plab, "container": "triton"}, False),
            [0] * N,
        )
    dlab = ex.ksm_labels({"namespace": ns, "deployment": dep}, False)
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [3] * N, digits=3
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        [3] * N,
        digits=3,
    )

    # Envoy Gateway (PodMonitor)
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{gw_ip}:19001",
        "job": f"{gw_ns}/envoy-proxy",
        "namespace": gw_ns,
        "pod": gw_pod,
    }
    ok = [sum(per[k]["ok_chat"][i] + per[k]["ok_summ"][i] for k in range(3)) for i in range(N)]
    mix = [
        [(per[k]["ok_chat"][i], per[k]["dur_chat"][i], 0.4) for k in range(3)]
        + [(per[k]["ok_summ"][i], per[k]["dur_summ"][i], 0.3) for k in range(3)]
        for i in range(N)
    ]
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes={200: ok, 400: [rng.choice([0, 0, 0, 1]) for _ in range(N)]},
        initial={200: 15_337_857, 400: 2_211},
        healthy=[3] * N,
        members=[3] * N,
        rq_time_mix=mix,
        rq_time_initial=[(15_337_857, 3.3, 0.4)],
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()
    it = {k: 41_003_118 + k * 91_733 for k in range(3)}
    for k, p in enumerate(pods):
        s = per[k]
        for i in range(1, N):
            if i % 2 != k % 2:
                continue
            ts = within(rng, c.at(i - 1))
            it[k] += rng.randint(4800, 5300)
            used = round(MAXB * s["frac"][i])
            stats = {
                "Active Request Count": s["sched"][i] + s["wait"][i],
                "Context Requests": s["ctx"][i],
                "Free KV cache blocks": MAXB - used,
                "Generation Requests": max(0, s["sched"][i] - s["ctx"][i]),
                "Iteration Counter": it[k],
                "Max KV cache blocks": MAXB,
                "Max Request Count": 64,
                "MicroBatch ID": 0,
                "Paused Requests": 0,
                "Reused KV cache blocks": rng.randint(20, 140),
                "Runtime CPU Memory Usage": 2_688_512,
                "Runtime GPU Memory Usage": 2_115_584_000,
                "Runtime Pinned Memory Usage": 536_870_912,
                "Scheduled Requests": s["sched"][i],
                "Timestamp": ts.strftime("%m-%d-%Y %H:%M:%S"),
                "Tokens per KV cache block": TPB,
                "Total Context Tokens": round(s["ctx"][i] * rng.uniform(2500, 9000)),
                "Used KV cache blocks": used,
                "Waiting Requests": s["wait"][i],
            }
            msg = json.dumps(stats, separators=(",", ":"))
            logs.add(
                ts,
                f'I{ts.strftime("%m%d %H:%M:%S")}.{ts.microsecond:06d} 1 model_instance_state.cc:1187] "{msg.replace(chr(34), chr(92) + chr(34))}"',
                service=dep,
                ns=ns,
                pod=p["name"],
                node=p["node"],
                container="triton",
                logger="tensorrt_llm",
            )
    # gateway samples: agent-assist chat and, from 20:17, the summarizer
    for i in range(1, N):
        for _ in range(2 if i % 2 else 1):
            k = rng.randrange(3)
            summ = c.at(i) > onset and rng.random() < 0.35
            dur = int(
                1000 * (per[k]["dur_summ"][i] if summ else per[k]["dur_chat"][i]) * rng.uniform(0.75, 1.3)
            )
            envoy_json(
                logs,
                rng,
                end=within(rng, c.at(i - 1)),
                code=200,
                flags="-",
                details="via_upstream",
                duration_ms=dur,
                upstream_host=f"{pods[k]['ip']}:8000",
                cluster=cluster,
                route_name=f"httproute/{ns}/{route}/rule/0/match/0/llm_cc_example_eu",
                authority="llm.cc.example.eu",
                path=f"/v2/models/{ENS}/generate_stream",
                client=rng.choice(["172.20.9.14", "172.20.9.15"]),
                gw_ip=gw_ip,
                gw_pod=gw_pod,
                gw_ns=gw_ns,
                gw_node=nodes[0][0],
                user_agent="call-summarizer/1.8.0 python-requests/2.32.3"
                if summ
                else "agent-assist-backend/4.2.1 (Go-http-client/1.1)",
                bytes_sent=rng.randint(4000, 9000) if summ else rng.randint(800, 2400),
            )
    for k, p in enumerate(pods):
        ts = onset + timedelta(seconds=3 + 2 * k)
        logs.add(
            ts,
            f'I{ts.strftime("%m%d %H:%M:%S")}.{ts.microsecond:06d} 1 http_server.cc:4713] "HTTP request: 2 /v2/models/{ENS}/generate_stream"',
            service=dep,
            ns=ns,
            pod=p["name"],
            node=p["node"],
            container="triton",
        )

    # ---------------------------------------------------------------- objects
    objs = [w.deployment(), w.replicaset(r5), w.replicaset(r4)]
    for p in pods:
        st = kube.cstatus(
            rng,
            name="triton",
            image=image,
            ready=True,
            running_since=p["created"] + timedelta(minutes=1, seconds=48),
        )
        pod = kube.pod_obj(
            w,
            r5,
            name=p["name"],
            uid_=p["uid"],
            node=p["node"],
            created=p["created"],
            pod_ip=p["ip"],
            host_ip=p["node_ip"],
            phase="Running",
            ready=True,
            container_statuses=[st],
            ready_since=p["created"] + timedelta(minutes=3, seconds=55),
        )
        pod["status"]["initContainerStatuses"] = [
            {
                "name": "fetch-engines",
                "image": "amazon/aws-cli:2.27.40",
                "imageID": "docker.io/amazon/aws-cli@sha256:" + hexid(rng, 64),
                "containerID": "containerd://" + hexid(rng, 64),
                "ready": True,
                "restartCount": 0,
                "started": False,
                "state": {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": iso(p["created"] + timedelta(seconds=3)),
                        "finishedAt": iso(p["created"] + timedelta(minutes=1, seconds=46)),
                    }
                },
            }
        ]
        objs.append(pod)
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [
                {"name": "http", "port": 8000, "protocol": "TCP", "targetPort": 8000},
                {"name": "grpc", "port": 8001, "protocol": "TCP", "targetPort": 8001},
                {"name": "metrics", "port": 8002, "protocol": "TCP", "targetPort": 8002},
            ],
            "10.60.12.88",
            labels=labels,
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="agent-gw",
            gateway_ns="cc-gateway",
            hostnames=["llm.cc.example.eu"],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v2/models/llama31_cc_"}}],
                    "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 8000, "weight": 1}],
                    "timeouts": {"request": "300s"},
                }
            ],
            created=utc("2026-05-20T09:10:00Z"),
            uid_=kube.new_uid(rng),
        )
    )
    objs.extend(node_objs)
    from .lib import configmap_obj

    objs.append(
        configmap_obj(
            "tensorrt-llm-config",
            ns,
            {
                "tensorrt_llm.config.pbtxt.params": "triton_max_batch_size:64,decoupled_mode:True,max_beam_width:1,engine_dir:/engines/llama31-8b-fp8,"
                "batching_strategy:inflight_fused_batching,batch_scheduler_policy:guaranteed_no_evict,"
                "kv_cache_free_gpu_mem_fraction:0.45,enable_kv_cache_reuse:True,max_queue_delay_microseconds:0,"
                "exclude_input_in_output:True,enable_chunked_context:True",
                "engine_build": "trtllm-build --max_batch_size 64 --max_input_len 12288 --max_seq_len 16384 --max_num_tokens 8192 --use_paged_context_fmha enable "
                "--tokens_per_block 64 --use_fp8_context_fmha enable",
            },
            utc("2026-09-02T08:09:40Z"),
            kube.new_uid(rng),
            labels=labels,
        )
    )
    gj = gpus_json(gpus, rng)

    expr = f'histogram_quantile(0.9, sum by (le) (rate(nv_inference_first_response_histogram_ms_bucket{{namespace="{ns}",model="{ENS}"}}[5m]))) > 2000'
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=5, eval_offset_s=52)
    finally:
        prom.close()
    alabels = {
        "alertname": "AgentAssistFirstResponseSlow",
        "namespace": ns,
        "service": dep,
        "model": ENS,
        "severity": "page",
        "prometheus": "monitoring/prometheus-operated",
    }
    ann = {
        "summary": "Agent assist: p90 time to first response above 2s",
        "description": f"p90 time to first streamed response of {ENS} is {value:.0f} ms (threshold 2000 ms).",
        "dashboard": "https://grafana.cc.example.eu/d/triton-llm/triton-llm",
        "value": f"{value:.1f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(10, 900)),
        expr=expr,
        prometheus_url="http://prometheus-operated.monitoring:9090",
        external_url="http://alertmanager-operated.monitoring:9093",
        group_by=["alertname", "namespace", "service"],
        receiver="cc-ai-oncall",
        route_matchers='{}/{severity="page"}',
    )
    expected = {
        "category": "inference_engine",
        "code": "ENG_KV_CACHE",
        "acceptable_first_actions": [
            {"kind": "add_replica", "target": f"deployment/{dep}"},
            {"kind": "reroute", "target": f"httproute/{route}"},
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Agent-assist suggestions arrive late for every agent since the evening shift started.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
