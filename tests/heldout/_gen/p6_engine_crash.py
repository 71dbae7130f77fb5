# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""Engine crash on one replica: vLLM's EngineCore dies, the API server stays up and answers 500.

Four vLLM 0.10.2 replicas of a 14B claims model (one H100 each). The Deployment sets
`VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1` (kept from a debugging session) and probes readiness with a plain
TCP check. At 16:21:48, during a burst of `/v1/completions` requests from a claims backfill job that ask
for `prompt_logprobs=20` with `n=2` on ~7,900-token prompts, the EngineCore of one replica fails in the
model runner (`RuntimeError` in `_get_prompt_logprobs_dict`), logs `EngineCore encountered a fatal error`
and exits; the API server logs `AsyncLLM output_handler failed` / `EngineDeadError` and from then on
answers every request with 500 in a few milliseconds. The TCP readiness probe keeps passing, so the pod
stays in the endpoints; with least-request balancing the fast-failing pod even draws more than its share.
The other three replicas, the GPUs (no Xid, no ECC) and the nodes are healthy; no rollout. The alert is
a gateway alert whose only scope is the Envoy cluster name in its labels and PromQL.
"""

from __future__ import annotations

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
    service_obj,
    utc,
    webhook,
    within,
    write_pack,
)

NAME = "vllm-enginecore-dead-one-replica-500"
ENGINE = "vLLM 0.10.2 (V1), VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1, TCP readiness probe"


def build(root):
    rng = random.Random(9606)
    as_of = utc("2026-10-08T16:34:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "claims-automation"
    dep = "vllm-phi4-claims"
    model = "phi-4-claims"
    route = "claims-llm"
    cluster = f"httproute/{ns}/{route}/rule/0"
    image = "vllm/vllm-openai:v0.10.2"
    driver = "570.158.01"
    gw_ns = "envoy-gateway-system"
    gw_pod = "envoy-claims-gw-internal-5d1e7a90-7b8c6d9f54-l2m8s"
    gw_ip = "10.120.4.15"
    crash = t("16:21:48")
    burst0 = t("16:19:30")
    i_crash = c.idx(crash) + 1

    nodes = [(f"k8s-h100-fra1-w0{n}", f"10.16.8.{10 + n}", f"10.120.{n}") for n in (1, 2, 3, 4)]
    node_objs = [
        gpu_node(
            rng,
            n,
            as_of=as_of,
            created=utc("2026-04-14T07:33:21Z"),
            ready_since=utc("2026-09-28T05:10:44Z"),
            ip=ip,
            pod_cidr=f"{pre}.0/24",
            product="NVIDIA H100 80GB HBM3",
            gpu_count=8,
            gpu_mem_mib=81559,
            instance_type="h100-sxm-8x",
            zone="fra1-a",
            region="fra1",
            cpu=192,
            mem_ki=2_113_418_000,
            kubelet="v1.32.7",
            runtime="containerd://1.7.28",
            kernel="6.8.0-71-generic",
            os_image="Ubuntu 24.04.2 LTS",
            extra_labels={"node-pool": "h100-inference"},
        )
        for n, ip, pre in nodes
    ]
    bad = 2

    labels = {"app": "vllm", "app.kubernetes.io/instance": dep}
    args = [
        "--model",
        "/models/phi-4-claims-v3",
        "--served-model-name",
        model,
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.92",
        "--max-num-seqs",
        "128",
        "--max-num-batched-tokens",
        "2048",
        "--enable-prefix-caching",
        "--max-logprobs",
        "20",
        "--port",
        "8000",
    ]
    tmpl = {
        "metadata": {
            "labels": {"component": "inference"},
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": "2026-09-30T12:01:16Z",
                "prometheus.io/scrape": "true",
                "prometheus.io/port": "8000",
            },
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
                        {"name": "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "value": "1"},
                        {"name": "HF_HUB_OFFLINE", "value": "1"},
                        {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
                    ],
                    "ports": [{"name": "http", "containerPort": 8000, "protocol": "TCP"}],
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1", "memory": "120Gi"},
                        "requests": {"nvidia.com/gpu": "1", "cpu": "16", "memory": "96Gi"},
                    },
                    "startupProbe": kube.probe_tcp(8000, period=10, failure=60),
                    "readinessProbe": kube.probe_tcp(8000, period=10, failure=3),
                    "livenessProbe": kube.probe_tcp(8000, period=30, failure=3),
                    "volumeMounts": [
                        {"name": "models", "mountPath": "/models", "readOnly": True},
                        {"name": "dshm", "mountPath": "/dev/shm"},
                    ],
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "volumes": [
                {"name": "models", "persistentVolumeClaim": {"claimName": "claims-models", "readOnly": True}},
                {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
            ],
            "nodeSelector": {"node-pool": "h100-inference"},
            "tolerations": kube.DEFAULT_TOLERATIONS,
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
        created=utc("2026-06-02T08:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        extra_labels={"app.kubernetes.io/part-of": "claims-automation"},
    )
    r10 = kube.Revision(
        10,
        kube.rs_hash(rng),
        utc("2026-09-30T12:01:17Z"),
        tmpl,
        uid=kube.new_uid(rng),
        replicas=4,
        ready=4,
        available=4,
        change_cause="phi-4-claims v3 weights",
    )
    r9 = kube.Revision(
        9,
        kube.rs_hash(rng),
        utc("2026-09-16T09:20:00Z"),
        {
            **tmpl,
            "spec": {
                **tmpl["spec"],
                "containers": [
                    {
                        **tmpl["spec"]["containers"][0],
                        "args": [
                            a if a != "/models/phi-4-claims-v3" else "/models/phi-4-claims-v2" for a in args
                        ],
                    }
                ],
            },
        },
        uid=kube.new_uid(rng),
        change_cause="phi-4-claims v2 weights",
    )
    w.revisions = [r9, r10]
    w.status = {"replicas": 4, "updatedReplicas": 4, "readyReplicas": 4, "availableReplicas": 4}
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-09-30T12:05:02Z"),
            utc("2026-09-30T12:05:02Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{r10.hash}" has successfully progressed.',
            utc("2026-09-30T12:17:40Z"),
            utc("2026-06-02T08:00:00Z"),
        ),
    )
    pods = [
        {
            "name": kube.pod_name(rng, w, r10),
            "uid": kube.new_uid(rng),
            "node": n,
            "node_ip": nip,
            "ip": f"{pre}.{[31, 18, 62, 40][k]}",
            "created": r10.created + timedelta(minutes=4 * k, seconds=1),
        }
        for k, (n, nip, pre) in enumerate(nodes)
    ]
    bp = pods[bad]

    # ---------------------------------------------------------------- traffic
    arrivals = [480 * rng.uniform(0.95, 1.05) for _ in range(N)]
    backfill = [(0 if c.at(i) < burst0 + timedelta(seconds=30) else rng.randint(14, 22)) for i in range(N)]
    share = []
    for i in range(N):
        if i < i_crash:
            share.append([0.25] * 4)
        else:
            sb = 0.37 if i > i_crash else 0.25 + 0.12 * (c.at(i) - crash).total_seconds() / 60
            o = (1 - sb) / 3
            share.append([o if k != bad else sb for k in range(4)])
    per = []
    codes = {200: [0.0] * N, 500: [0.0] * N, 400: [0.0] * N}
    for k in range(4):
        s = {"ok": [], "err": [], "run": [], "wait": [], "kv": [], "ttft": []}
        last = None
        for i in range(N):
            a = (arrivals[i] + backfill[i]) * share[i][k]
            if k == bad and i >= i_crash:
                frac_ok = max(0.0, 1 - (c.at(i) - crash).total_seconds() / 60) if i == i_crash else 0.0
                ok = round(a * frac_ok)
                err = round(a - ok) + (31 if i == i_crash else 0)  # in-flight requests fail with the engine
                s["ok"].append(ok)
                s["err"].append(err)
                s["run"].append(last[0])
                s["wait"].append(last[1])
                s["kv"].append(last[2])
                s["ttft"].append(0.2)
            else:
                ok = round(a * rng.uniform(0.98, 1.02))
                run = round(a * 7.4 / 60 * rng.uniform(0.9, 1.1))
                kvv = round(0.05 + 0.0085 * run + (0.02 if backfill[i] else 0) + rng.uniform(-0.01, 0.01), 4)
                s["ok"].append(ok)
                s["err"].append(0)
                s["run"].append(run)
                s["wait"].append(0)
                s["kv"].append(kvv)
                s["ttft"].append(0.16 + (0.12 if backfill[i] else 0.0))
                last = (run, 0, kvv)
            codes[200][i] += s["ok"][i]
            codes[500][i] += s["err"][i]
        per.append(s)
    for i in range(N):
        codes[400][i] = 1 if rng.random() < 0.12 else 0

    om = OM(c)
    for k, p in enumerate(pods):
        s = per[k]
        lab = ex.vllm_labels(
            pod=p["name"], ns=ns, model=model, ip=p["ip"], job=dep, service=dep, container="vllm"
        )
        base = [3_402_880, 3_391_004, 3_409_517, 3_398_122][k]
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
        om.counter(
            "vllm:num_preemptions",
            "Cumulative number of preemption from the engine.",
            lab,
            [0] * N,
            initial=0,
        )
        om.counter(
            "vllm:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            [x * 2350 * rng.uniform(0.95, 1.05) for x in s["ok"]],
            initial=base * 2350,
        )
        om.counter(
            "vllm:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            [x * 410 * rng.uniform(0.95, 1.05) for x in s["ok"]],
            initial=base * 410,
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "stop"},
            [round(x * 0.97) for x in s["ok"]],
            initial=round(base * 0.97),
        )
        om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "length"},
            [x - round(x * 0.97) for x in s["ok"]],
            initial=round(base * 0.03),
        )
        om.histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            ex.VLLM_TTFT,
            s["ok"],
            s["ttft"],
            0.5,
            initial_count=base,
        )
        hlab = {k2: v for k2, v in lab.items() if k2 not in ("engine", "model_name")}
        om.counter(
            "http_requests",
            "Total number of requests by method, status and handler.",
            {**hlab, "handler": "/v1/chat/completions", "method": "POST", "status": "2xx"},
            [x - (backfill[i] * share[i][k] if x else 0) for i, x in enumerate(s["ok"])],
            initial=base - 90_000,
        )
        om.counter(
            "http_requests",
            "Total number of requests by method, status and handler.",
            {**hlab, "handler": "/v1/completions", "method": "POST", "status": "2xx"},
            [backfill[i] * share[i][k] if s["ok"][i] else 0 for i in range(N)],
            initial=90_000,
        )
        om.counter(
            "http_requests",
            "Total number of requests by method, status and handler.",
            {**hlab, "handler": "/v1/chat/completions", "method": "POST", "status": "5xx"},
            [x * 0.96 for x in s["err"]],
            initial=4,
        )
        om.counter(
            "http_requests",
            "Total number of requests by method, status and handler.",
            {**hlab, "handler": "/v1/completions", "method": "POST", "status": "5xx"},
            [x * 0.04 for x in s["err"]],
            initial=0,
        )

    gpus = []
    exporter_ip = {n: f"{pre}.5" for n, _, pre in nodes}
    for k, p in enumerate(pods):
        s = per[k]
        g = ex.Gpu(
            node=p["node"],
            index=[3, 6, 1, 4][k],
            uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
            pci=[
                "00000000:18:00.0",
                "00000000:2A:00.0",
                "00000000:3A:00.0",
                "00000000:5D:00.0",
                "00000000:9A:00.0",
                "00000000:AB:00.0",
                "00000000:BA:00.0",
                "00000000:DB:00.0",
            ][[3, 6, 1, 4][k]],
            model="NVIDIA H100 80GB HBM3",
            memory_mib=81559,
            pod=p["name"],
            namespace=ns,
            container="vllm",
        )
        for i in range(N):
            dead = k == bad and c.at(i) >= crash
            u = 0 if dead else round(58 + 0.6 * s["run"][i] + rng.uniform(-3, 3))
            g.util.append(u)
            g.fb_used.append(0 if dead else 75_213 + rng.randint(-5, 5))
            g.power.append(
                round(72 + rng.uniform(-2, 2), 3) if dead else round(150 + 4.1 * u + rng.uniform(-10, 10), 3)
            )
            g.temp.append(
                round(33 + rng.uniform(-1, 1)) if dead else round(40 + 0.3 * u + rng.uniform(-1, 1))
            )
        gpus.append(g)
    ex.dcgm(om, gpus, driver, exporter_ip, temp=True)

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
    for n, *_ in nodes:
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ex.ksm_labels({"node": n, "condition": "Ready", "status": "true"}, False),
            [1] * N,
            digits=2,
        )

    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{gw_ip}:19001",
        "job": f"{gw_ns}/envoy-proxy",
        "namespace": gw_ns,
        "pod": gw_pod,
    }
    mix = [
        [(per[k]["ok"][i], per[k]["ttft"][i] + 410 * 0.017, 0.45) for k in range(4)]
        + [(codes[500][i], 0.004, 0.5), (codes[400][i], 0.003, 0.3)]
        for i in range(N)
    ]
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes=codes,
        initial={200: 27_410_993, 400: 3_120, 500: 57},
        healthy=[4] * N,
        members=[4] * N,
        rq_time_mix=mix,
        rq_time_initial=[(27_410_993, 7.1, 0.45)],
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()

    def vl(p, ts, msg, level="info", proc="(APIServer pid=1)", **kw):
        lvl = {"info": "INFO", "warn": "WARNING", "error": "ERROR"}[level]
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

    for k, p in enumerate(pods):
        s = per[k]
        for i in range(1, N):
            minute = c.at(i - 1)
            dead = k == bad and i > i_crash
            if i % 2 == k % 2:
                ts = within(rng, minute, 0, 20)
                pt = 0.0 if dead else s["ok"][i] * 2350 / 60 * rng.uniform(0.9, 1.1)
                gt = 0.0 if dead else s["ok"][i] * 410 / 60 * rng.uniform(0.9, 1.1)
                if not dead:
                    vl(
                        p,
                        ts,
                        f"[loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
                        f"Running: {s['run'][i]} reqs, Waiting: {s['wait'][i]} reqs, GPU KV cache usage: {s['kv'][i] * 100:.1f}%, Prefix cache hit rate: {rng.uniform(52, 61):.1f}%",
                        logger="vllm.v1.metrics.loggers",
                    )
            if not dead:
                ts = within(rng, minute)
                raw(
                    p,
                    ts,
                    f'(APIServer pid=1) INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
                    status=200,
                )
                if backfill[i] and rng.random() < 0.5:
                    ts = within(rng, minute)
                    raw(
                        p,
                        ts,
                        f'(APIServer pid=1) INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST /v1/completions HTTP/1.1" 200 OK',
                        status=200,
                    )
            else:
                for _ in range(3):
                    ts = within(rng, minute)
                    path = "/v1/completions" if backfill[i] and rng.random() < 0.1 else "/v1/chat/completions"
                    raw(
                        p,
                        ts,
                        f'(APIServer pid=1) INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST {path} HTTP/1.1" 500 Internal Server Error',
                        status=500,
                        level="error",
                    )
    # the crash
    rid = f"cmpl-{hexid(rng, 32)}-0"
    rid2, rid3 = f"chatcmpl-{hexid(rng, 32)}", f"chatcmpl-{hexid(rng, 32)}"
    ec = "(EngineCore_0 pid=271)"
    lines = [
        (
            "[dump_input.py:69] Dumping input data for V1 LLM engine (v0.10.2) with config: model='/models/phi-4-claims-v3', speculative_config=None, "
            "tokenizer='/models/phi-4-claims-v3', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, "
            "dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
            f"data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, served_model_name={model}, "
            "enable_prefix_caching=True, chunked_prefill_enabled=True, max_logprobs=20, "
        ),
        (
            f"[dump_input.py:76] Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[], scheduled_cached_reqs=CachedRequestData(req_ids=['{rid}', "
            f"'{rid2}', '{rid3}'], resumed_from_preemption=[false, false, false], new_token_ids=[], new_block_ids=[None, None, None], "
            f"num_computed_tokens=[6144, 2311, 1907]), num_scheduled_tokens={{{rid}: 1747, {rid2}: 1, {rid3}: 1}}, total_num_scheduled_tokens=2048, "
            "scheduled_spec_decode_tokens={}, scheduled_encoder_inputs={}, num_common_prefix_blocks=[0], finished_req_ids=[], free_encoder_mm_hashes=[], "
            "structured_output_request_ids={}, grammar_bitmask=null, kv_connector_metadata=null)"
        ),
        (
            "[dump_input.py:79] Dumping scheduler stats: SchedulerStats(num_running_reqs=31, num_waiting_reqs=0, step_counter=0, current_wave=0, "
            "kv_cache_usage=0.3418, prefix_cache_stats=PrefixCacheStats(reset=False, requests=3, queries=8192, hits=2304), spec_decoding_stats=None, num_corrupted_reqs=0)"
        ),
        "[core.py:710] EngineCore encountered a fatal error.",
        "[core.py:710] Traceback (most recent call last):",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core',
        "[core.py:710]     engine_core.run_busy_loop()",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 728, in run_busy_loop',
        "[core.py:710]     self._process_engine_step()",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 754, in _process_engine_step',
        "[core.py:710]     outputs, model_executed = self.step_fn()",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 284, in step',
        "[core.py:710]     model_output = self.execute_model_with_error_logging(",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 270, in execute_model_with_error_logging',
        "[core.py:710]     raise err",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 261, in execute_model_with_error_logging',
        "[core.py:710]     return model_fn(scheduler_output)",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/abstract.py", line 87, in execute_model',
        '[core.py:710]     output = self.collective_rpc("execute_model",',
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/executor/uniproc_executor.py", line 58, in collective_rpc',
        "[core.py:710]     answer = run_method(self.driver_worker, method, args, kwargs)",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 447, in execute_model',
        "[core.py:710]     output = self.model_runner.execute_model(scheduler_output,",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1773, in execute_model',
        "[core.py:710]     prompt_logprobs_dict = self._get_prompt_logprobs_dict(",
        '[core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2290, in _get_prompt_logprobs_dict',
        "[core.py:710]     logprobs_tensors.logprobs[start_tok:start_tok + num_logits].copy_(",
        "[core.py:710] RuntimeError: The size of tensor a (1746) must match the size of tensor b (1747) at non-singleton dimension 0",
    ]
    ts = crash
    for j, line in enumerate(lines):
        ts = crash + timedelta(milliseconds=2 * j)
        vl(
            bp,
            ts,
            line,
            level="error",
            proc=ec,
            **(
                {
                    "error_type": "RuntimeError",
                    "error_message": "The size of tensor a (1746) must match the size of tensor b (1747) at non-singleton dimension 0",
                }
                if "RuntimeError:" in line
                else {}
            ),
        )
    t2 = crash + timedelta(milliseconds=90)
    vl(bp, t2, "[async_llm.py:480] AsyncLLM output_handler failed.", level="error")
    api_tb = [
        "[async_llm.py:480] Traceback (most recent call last):",
        '[async_llm.py:480]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/async_llm.py", line 439, in output_handler',
        "[async_llm.py:480]     outputs = await engine_core.get_output_async()",
        '[async_llm.py:480]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core_client.py", line 846, in get_output_async',
        "[async_llm.py:480]     raise self._format_exception(outputs) from None",
        "[async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
    ]
    for j, line in enumerate(api_tb):
        vl(
            bp,
            t2 + timedelta(milliseconds=1 + j),
            line,
            level="error",
            **(
                {
                    "error_type": "vllm.v1.engine.exceptions.EngineDeadError",
                    "error_message": "EngineCore encountered an issue. See stack trace (above) for the root cause.",
                }
                if "EngineDeadError" in line
                else {}
            ),
        )
    for j in range(4):
        raw(
            bp,
            t2 + timedelta(milliseconds=30 + 7 * j),
            f'(APIServer pid=1) INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST {"/v1/completions" if j == 0 else "/v1/chat/completions"} HTTP/1.1" 500 Internal Server Error',
            status=500,
            level="error",
        )
    # backfill job's own log and gateway samples
    uas = ["claims-intake/6.2.0 (OpenAI/Python 1.107.0)", "adjuster-copilot/3.9.1 (OpenAI/Python 1.107.0)"]
    for i in range(1, N):
        minute = c.at(i - 1)
        k = rng.randrange(4)
        if per[k]["ok"][i]:
            envoy_json(
                logs,
                rng,
                end=within(rng, minute),
                code=200,
                flags="-",
                details="via_upstream",
                duration_ms=rng.randint(3500, 14000),
                upstream_host=f"{pods[k]['ip']}:8000",
                cluster=cluster,
                route_name=f"httproute/{ns}/{route}/rule/0/match/0/claims-llm_internal_example_de",
                authority="claims-llm.internal.example.de",
                path="/v1/chat/completions",
                client=rng.choice(["10.16.30.4", "10.16.30.9"]),
                gw_ip=gw_ip,
                gw_pod=gw_pod,
                gw_ns=gw_ns,
                gw_node=nodes[0][0],
                user_agent=rng.choice(uas),
                bytes_sent=rng.randint(1100, 4200),
            )
        if backfill[i] and i % 2 == 0:
            k = rng.randrange(4)
            dead = k == bad and c.at(i - 1) >= crash
            envoy_json(
                logs,
                rng,
                end=within(rng, minute),
                code=500 if dead else 200,
                flags="-",
                details="via_upstream",
                duration_ms=rng.randint(2, 6) if dead else rng.randint(6000, 21000),
                upstream_host=f"{pods[k]['ip']}:8000",
                cluster=cluster,
                route_name=f"httproute/{ns}/{route}/rule/0/match/0/claims-llm_internal_example_de",
                authority="claims-llm.internal.example.de",
                path="/v1/completions",
                client="10.16.31.22",
                gw_ip=gw_ip,
                gw_pod=gw_pod,
                gw_ns=gw_ns,
                gw_node=nodes[0][0],
                user_agent="claims-backfill/2.3.0 (OpenAI/Python 1.107.0)",
                bytes_sent=21 if dead else rng.randint(90000, 240000),
            )
        if i >= i_crash:
            for _ in range(3):
                envoy_json(
                    logs,
                    rng,
                    end=within(
                        rng, minute, max(0.0, (crash - minute).total_seconds()) if i == i_crash else 0.0
                    ),
                    code=500,
                    flags="-",
                    details="via_upstream",
                    duration_ms=rng.randint(2, 6),
                    upstream_host=f"{bp['ip']}:8000",
                    cluster=cluster,
                    route_name=f"httproute/{ns}/{route}/rule/0/match/0/claims-llm_internal_example_de",
                    authority="claims-llm.internal.example.de",
                    path="/v1/chat/completions",
                    client=rng.choice(["10.16.30.4", "10.16.30.9"]),
                    gw_ip=gw_ip,
                    gw_pod=gw_pod,
                    gw_ns=gw_ns,
                    gw_node=nodes[0][0],
                    user_agent=rng.choice(uas),
                    bytes_sent=21,
                )
    bf_pod = "claims-backfill-29318640-7kq2w"
    for i in range(1, N):
        if not backfill[i]:
            continue
        ts = within(rng, c.at(i - 1))
        logs.add(
            ts,
            f"INFO backfill.worker batch={rng.randint(1400, 1500)} claim_id=CLM-{rng.randint(10_000_000, 99_999_999)} "
            f"POST /v1/completions model={model} n=2 prompt_logprobs=20 max_tokens=512 prompt_tokens={rng.randint(7600, 8100)} "
            f"status={'200' if c.at(i - 1) < crash or rng.random() < 0.62 else '500'}",
            service="claims-backfill",
            ns=ns,
            pod=bf_pod,
            node=nodes[1][0],
            container="backfill",
        )

    # ---------------------------------------------------------------- objects
    objs = [w.deployment(), w.replicaset(r10), w.replicaset(r9)]
    for p in pods:
        st = kube.cstatus(
            rng, name="vllm", image=image, ready=True, running_since=p["created"] + timedelta(seconds=8)
        )
        objs.append(
            kube.pod_obj(
                w,
                r10,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node_ip"],
                phase="Running",
                ready=True,
                container_statuses=[st],
                ready_since=p["created"] + timedelta(minutes=2, seconds=51),
            )
        )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 8000, "protocol": "TCP", "targetPort": "http"}],
            "10.96.201.7",
            labels=labels,
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="internal-gw",
            gateway_ns="claims-gw",
            hostnames=["claims-llm.internal.example.de"],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                    "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 8000, "weight": 1}],
                    "timeouts": {"request": "300s"},
                }
            ],
            created=utc("2026-06-02T08:05:00Z"),
            uid_=kube.new_uid(rng),
            generation=4,
        )
    )
    objs.extend(node_objs)
    gj = gpus_json(gpus, rng)

    expr = (
        f'sum by (envoy_cluster_name) (rate(envoy_cluster_upstream_rq{{envoy_cluster_name=~"httproute/{ns}/.+",envoy_response_code="500"}}[5m]))\n'
        f'/\nsum by (envoy_cluster_name) (rate(envoy_cluster_upstream_rq_total{{envoy_cluster_name=~"httproute/{ns}/.+"}}[5m]))\n> 0.02'
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=3, eval_offset_s=4)
    finally:
        prom.close()
    alabels = {
        "alertname": "GatewayUpstream500Ratio",
        "envoy_cluster_name": cluster,
        "severity": "critical",
        "team": "platform-gateway",
    }
    ann = {
        "summary": f"Upstream 500s on {cluster}",
        "description": f"{value * 100:.1f}% of requests to {cluster} returned 500 over 5m.",
        "value": f"{value:.4f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(10, 900)),
        expr=expr,
        prometheus_url="https://prometheus.platform.example.de",
        external_url="https://alertmanager.platform.example.de",
        group_by=["alertname", "envoy_cluster_name"],
        receiver="gateway-incidents",
        route_matchers='{}/{team="platform-gateway"}',
    )
    expected = {
        "category": "inference_engine",
        "code": "ENG_CRASH",
        "acceptable_first_actions": [
            {"kind": "restart_pod", "target": f"pod/{bp['name']}"},
            {"kind": "reroute", "target": f"httproute/{route}"},
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Claims assistant: part of the requests fail with 500 this afternoon.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
