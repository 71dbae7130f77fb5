"""CUDA OOM after a rollout raised `--max-num-seqs` from 128 to 512 (vLLM 0.10).

The new ReplicaSet admits four times as many sequences per batch; under the afternoon peak the
engine runs out of GPU memory (`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate
...`), the process exits, the pod restarts, and everything in flight fails. The restarted engine
logs `'max_num_seqs': 512` among its non-default args. Errors at the gateway are 500 (in flight)
and 503 (connection refused before the endpoint is removed).
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import TRACE_VLLM_ENGINE, gateway_logs, rate_ratio, sum_codes, threshold_alert
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_startup, vllm_stats
from ..fleet import Fleet, crash, rebalance
from ..logs import Source, ecs, envoy_gateway_access
from ..pack import Pack
from ..series import Series, flat, iso, noisy, ramp
from ..traffic import node_timeline

NAME = "cuda-oom-after-max-num-seqs-rollout"
ENGINE = "vLLM 0.10.2 (V1 metric names)"
GW_IP = "10.92.0.41"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-06-09T15:24:00Z",
        namespace="search-llm",
        seed=202,
        description="Search answer generation: a config rollout at 15:02, then replicas keep restarting.",
    )
    c, rng = p.clock, p.rng
    ns = "search-llm"
    t_roll = p.t("15:02:10")

    nodes = {}
    for suffix, ip in (
        ("x7kq", "10.128.0.61"),
        ("2lbn", "10.128.0.74"),
        ("9dwz", "10.128.0.88"),
        ("f4tc", "10.128.0.93"),
    ):
        name = f"gke-search-prod-a3-h100-pool-3e8a1f52-{suffix}"
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="us-central1-c",
            instance_type="a3-highgpu-8g",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=f"10.92.{len(nodes)}.0/24",
            kernel="6.1.100+",
            os_image="Container-Optimized OS from Google",
            kubelet_version="v1.30.5-gke.1014001",
            runtime="containerd://1.7.22",
            driver="550.90.07",
        )
    names = list(nodes)
    base_args = [
        "--model",
        "/models/mistralai/Mistral-Small-24B-Instruct-2501",
        "--served-model-name",
        "mistral-small-24b-instruct",
        "--tokenizer-mode",
        "mistral",
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.94",
        "--enable-prefix-caching",
        "--max-num-seqs",
        "128",
    ]
    new_args = [*base_args[:-1], "512"]
    env = [{"name": "VLLM_USE_V1", "value": "1"}, {"name": "HF_HUB_OFFLINE", "value": "1"}]
    rev11 = p.revision(
        11,
        p.ago(days=9, hours=5),
        "vllm/vllm-openai:v0.10.2",
        base_args,
        env=env,
        change_cause="image v0.10.2",
    )
    rev12 = p.revision(
        12,
        t_roll,
        "vllm/vllm-openai:v0.10.2",
        new_args,
        env=env,
        replicas=3,
        change_cause="raise max-num-seqs to 512 for batch throughput (SEARCH-2291)",
    )
    w = k8s.Workload(
        name="vllm-mistral-small-24b",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={"app": "vllm-mistral-small-24b", "tier": "generation"},
        revisions=[rev11, rev12],
        pods=[],
        created=p.ago(days=80),
        replicas=3,
        readiness={
            "httpGet": {"path": "/health", "port": 8000},
            "periodSeconds": 5,
            "failureThreshold": 2,
            "timeoutSeconds": 2,
        },
        liveness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 15, "failureThreshold": 4},
        startup={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 60},
        uid=k8s.new_uid(rng),
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
        volumes=[{"name": "models", "csi": {"driver": "gcsfuse.csi.storage.gke.io", "readOnly": True}}],
        volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
        cluster_ip="34.118.229.17",
        progressing=("True", "NewReplicaSetAvailable", p.t("15:07:45")),
    )
    fleet = Fleet(p, w, job="vllm-mistral-small-24b", model="mistral-small-24b-instruct")
    sched = [  # old pod, new pod created, new pod ready
        (p.t("15:02:10"), p.t("15:03:58")),
        (p.t("15:04:02"), p.t("15:05:49")),
        (p.t("15:05:53"), p.t("15:07:41")),
    ]
    olds, news = [], []
    load = dict(prompt_len=1900, gen_len=310, ttft=0.34, itl=0.031, util=83, fb_used=76_880)
    for j, (_, ready) in enumerate(sched):
        node, devs = nodes[names[j]]
        olds.append(
            fleet.add(
                rev11,
                node,
                [devs[1 + j]],
                f"10.92.{j}.{31 + j}",
                deleted=ready + timedelta(seconds=4),
                rpm=410,
                kv=0.41,
                **load,
            )
        )
    for j, (created, ready) in enumerate(sched):
        node, devs = nodes[names[(j + 1) % 4]]
        news.append(
            fleet.add(
                rev12,
                node,
                [devs[5 + j % 3]],
                f"10.92.{(j + 1) % 4}.{140 + j}",
                created=created,
                ready_after=ready - created,
                rpm=410,
                kv=0.41,
                **load,
            )
        )
    for m in olds:
        m.info = None
    # the new engines run much bigger batches: more sequences, fuller KV cache, memory to the brim
    for m in news:
        for i in range(c.n):
            if m.rep.present[i]:
                m.rep.running[i] = float(round(m.rep.running[i] * rng.uniform(1.9, 2.6)))
                m.rep.kv[i] = min(0.97, 0.78 + rng.uniform(0, 0.17))
        for g in m.gpus:
            g.fb_used = Series(
                v if v < 1000 else float(round(80_710 + rng.uniform(-60, 60))) for v in g.fb_used
            )
            g.util = Series(v if v == 0 else float(min(99, round(v * 1.12))) for v in g.util)

    crashes = {
        0: [("15:09:14", "15:11:05", 212), ("15:15:38", "15:17:52", 238), ("15:21:07", "15:23:41", 226)],
        1: [("15:11:52", "15:13:40", 187), ("15:18:20", "15:20:31", 244)],
        2: [("15:12:40", "15:14:33", 205), ("15:18:51", "15:20:44", 231), ("15:22:31", None, 219)],
    }
    gateway_503 = flat(c, 0.0)
    for j, events in crashes.items():
        m = news[j]
        for n_crash, (at_s, back_s, inflight) in enumerate(events):
            at = p.t(at_s)
            back = p.t(back_s) if back_s else None
            crash(
                fleet,
                m,
                at,
                back,
                in_flight=inflight,
                backoff="40s" if n_crash else "10s",
                backoff_until=(at + timedelta(seconds=40 * (n_crash + 1))) if back is None else None,
            )
            gateway_503[c.idx(at)] += float(rng.randint(35, 70))
            m.notes.setdefault("crashes", []).append((at, back, inflight))
    total = noisy(ramp(c, c.start, p.as_of, 1160, 1330), rng, 0.03)
    rebalance(fleet, total)

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(p.om, fleet.gpu_series())
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=8, internal_ip=node.internal_ip) for n, (node, _) in nodes.items()]
    )
    k = c.idx(t_roll)
    ex.ksm_deployment(
        p.om,
        namespace=ns,
        name=w.name,
        spec=flat(c, 3),
        available=fleet.ready_count().minimum(3),
        updated=Series(float(sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)),
        generation=Series(14.0 if i < k else 15.0 for i in range(c.n)),
    )
    cluster = f"httproute/{ns}/search-answer/rule/0"
    codes = fleet.codes()
    codes[503] = gateway_503
    gw_pod = "envoy-gateway-infra-search-gw-a41f0c2d-6d8b7c9f4-8wl2x"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="gateway-infra", gateway_pod=gw_pod)
    bad5 = codes[500] + codes[503]
    ratio = rate_ratio(bad5, sum_codes(codes, c.n))
    sel = f'envoy_cluster_name="{cluster}"'
    threshold_alert(
        p,
        expr=(
            f'sum(rate(envoy_cluster_upstream_rq_xx{{{sel},envoy_response_code_class="5"}}[5m])) / '
            f"sum(rate(envoy_cluster_upstream_rq_xx{{{sel}}}[5m])) > 0.03"
        ),
        condition=[r > 0.03 for r in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "LLMRouteHigh5xxRatio",
            "namespace": ns,
            "route": "search-answer",
            "service": "vllm-mistral-small-24b",
            "model": "mistral-small-24b-instruct",
            "severity": "page",
            "team": "search-relevance",
        },
        summary="search-answer: 5xx ratio above 3% at the gateway",
        description="More than 3% of requests to route search-answer (vllm-mistral-small-24b) fail with 5xx.",
        prometheus="http://prometheus.monitoring.svc.cluster.local:9090",
        alertmanager="http://alertmanager.monitoring.svc.cluster.local:9093",
        runbook="https://wiki.search.example.com/runbooks/llm-5xx",
    )

    # --- logs --------------------------------------------------------------------------------------------
    non_default = (
        "{'model': '/models/mistralai/Mistral-Small-24B-Instruct-2501', 'tokenizer_mode': 'mistral', "
        "'max_model_len': 32768, 'served_model_name': ['mistral-small-24b-instruct'], "
        "'gpu_memory_utilization': 0.94, 'enable_prefix_caching': True, 'max_num_seqs': 512}"
    )
    engine_cfg = (
        "MistralForCausalLM|model='/models/mistralai/Mistral-Small-24B-Instruct-2501', speculative_config=None, "
        "tokenizer='/models/mistralai/Mistral-Small-24B-Instruct-2501', skip_tokenizer_init=False, "
        "tokenizer_mode=mistral, revision=None, tokenizer_revision=None, trust_remote_code=False, "
        "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
        "served_model_name=mistral-small-24b-instruct, enable_prefix_caching=True, chunked_prefill_enabled=True"
    )
    oom_tpl = (
        "CUDA out of memory. Tried to allocate {alloc:.2f} GiB. GPU 0 has a total capacity of 79.19 GiB of which "
        "{free:.2f} MiB is free. Including non-PyTorch memory, this process has 79.03 GiB memory in use. Of the "
        "allocated memory {alloc_by:.2f} GiB is allocated by PyTorch, with 1.94 GiB allocated in private pools "
        "(e.g., CUDA Graphs), and {reserved:.2f} MiB is reserved by PyTorch but unallocated. If reserved but "
        "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
        "fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[GW_IP], every=2)
        vllm_stats(p, m, every=3)
    for m in news:
        start = m.created
        vllm_startup(
            p,
            m,
            version="0.10.2",
            model_path="/models/mistralai/Mistral-Small-24B-Instruct-2501",
            served="mistral-small-24b-instruct",
            non_default=non_default,
            engine_config=engine_cfg,
            weights_gib=43.92,
            kv_gib=27.31,
            kv_tokens=178_976,
            max_len=32768,
            start=start,
        )
        for at, back, _ in m.notes["crashes"]:
            oom = oom_tpl.format(
                alloc=rng.choice([1.96, 2.45, 3.13]),
                free=rng.uniform(180, 900),
                alloc_by=rng.uniform(74.2, 75.6),
                reserved=rng.uniform(300, 1400),
            )
            stack = (
                TRACE_VLLM_ENGINE
                + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2129, '
                "in execute_model\n"
                "    logits = self.model.compute_logits(sample_hidden_states, None)\n"
                '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/logits_processor.py", '
                "line 70, in forward\n"
                "    logits = logits.float()\n"
                f"torch.OutOfMemoryError: {oom}"
            )
            ec = "EngineCore_0 pid=219"
            vllm_line_doc(
                p,
                m,
                at,
                "ERROR",
                "core.py:710",
                "EngineCore encountered a fatal error.",
                proc=ec,
                error_type="torch.OutOfMemoryError",
                error_message=oom,
                stack=stack,
            )
            vllm_line_doc(
                p,
                m,
                at + timedelta(milliseconds=2),
                "ERROR",
                "core.py:710",
                f"torch.OutOfMemoryError: {oom}",
                proc=ec,
                error_type="torch.OutOfMemoryError",
                error_message=oom,
            )
            vllm_line_doc(
                p,
                m,
                at + timedelta(milliseconds=48),
                "ERROR",
                "async_llm.py:420",
                "AsyncLLM output_handler failed.",
                error_type="EngineDeadError",
                error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
            )
            src = src_of(m)
            for n_err in range(3):
                ts = at + timedelta(milliseconds=60 + 7 * n_err)
                line = f'(APIServer pid=1) INFO:     {GW_IP}:{rng.randint(33000, 60000)} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'  # noqa: E501
                p.logs.add(ecs(ts, line, src, level="info", status=500))
            ts = at + timedelta(seconds=1, milliseconds=310)
            p.logs.add(ecs(ts, "(APIServer pid=1) INFO:     Shutting down", src, level="info"))
            p.logs.add(
                ecs(
                    ts + timedelta(milliseconds=90),
                    "(APIServer pid=1) INFO:     Application shutdown complete.",
                    src,
                    level="info",
                )
            )
            if back is not None:
                vllm_startup(
                    p,
                    m,
                    version="0.10.2",
                    model_path="/models/mistralai/Mistral-Small-24B-Instruct-2501",
                    served="mistral-small-24b-instruct",
                    non_default=non_default,
                    engine_config=engine_cfg,
                    weights_gib=43.92,
                    kv_gib=27.31,
                    kv_tokens=178_976,
                    max_len=32768,
                    start=back - timedelta(seconds=68),
                )
    gw = Source("envoy-gateway", "gateway-infra", gw_pod, names[3], "envoy")
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/search-answer/rule/0/match/0/answer_search_example_com",
        authority="answer.search.example.com",
        src=gw,
        clients="10.92.8",
    )
    for m in news:
        for at, _, _ in m.notes["crashes"]:
            for _ in range(2):
                ts = at + timedelta(seconds=rng.uniform(1.5, 9))
                line = envoy_gateway_access(
                    ts,
                    status=503,
                    flags="UF",
                    details="upstream_reset_before_response_started{connection_failure}",
                    duration_ms=1,
                    upstream=f"{m.ip}:8000",
                    cluster=cluster,
                    route=f"httproute/{ns}/search-answer/rule/0/match/0/answer_search_example_com",
                    authority="answer.search.example.com",
                    client=p.ids.ip("10.92.8"),
                    user_agent="python-httpx/0.28.1",
                    request_id=p.ids.request_id(),
                    bytes_sent=91,
                )
                p.logs.add(ecs(ts, line, gw, level="info", status=503))

    # --- events ------------------------------------------------------------------------------------------
    ev = []
    old_rs, new_rs = f"{w.name}-{rev11.hash}", f"{w.name}-{rev12.hash}"
    for j, (created, _) in enumerate(sched):
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Deployment",
                name=w.name,
                uid=w.uid,
                reason="ScalingReplicaSet",
                message=f"Scaled up replica set {new_rs} from {j} to {j + 1}",
                first=created,
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Deployment",
                name=w.name,
                uid=w.uid,
                reason="ScalingReplicaSet",
                message=f"Scaled down replica set {old_rs} from {3 - j} to {2 - j}",
                first=created + timedelta(seconds=4) + (sched[j][1] - created),
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
    for m in news:
        cr = m.notes["crashes"]
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Pulled",
                message='Container image "vllm/vllm-openai:v0.10.2" already present on machine',
                first=cr[0][0] + timedelta(seconds=11),
                last=cr[-1][0] + timedelta(seconds=40),
                count=len(cr),
                warning=False,
                host=m.node.name,
                field_path="spec.containers{vllm}",
            )
        )
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Unhealthy",
                message=f'Readiness probe failed: Get "http://{m.ip}:8000/health": dial tcp {m.ip}:8000: connect: connection refused',  # noqa: E501
                first=cr[0][0] + timedelta(seconds=3),
                last=cr[-1][0] + timedelta(seconds=9),
                count=4 * len(cr),
                host=m.node.name,
                field_path="spec.containers{vllm}",
            )
        )
        if len(cr) > 1:
            ev.append(
                k8s.event(
                    namespace=ns,
                    kind="Pod",
                    name=m.name,
                    uid=m.uid,
                    reason="BackOff",
                    message=f"Back-off restarting failed container vllm in pod {m.name}_{ns}({m.uid})",
                    first=cr[1][0] + timedelta(seconds=2),
                    last=cr[-1][0] + timedelta(seconds=2),
                    count=len(cr) - 1,
                    host=m.node.name,
                    field_path="spec.containers{vllm}",
                )
            )

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="search-answer",
            namespace=ns,
            gateway="search-gw",
            gateway_namespace="gateway-infra",
            hostnames=["answer.search.example.com"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=80),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.extend(ev)
    p.record_gpus(fleet.gpu_series()[3:])
    p.expect("infrastructure", "INF_GPU_OOM", ("rollback_deployment", f"deployment/{w.name}"))
    p.notes["onset"] = iso(p.t("15:09:14"))
    return p
