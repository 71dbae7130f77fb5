"""A rollout points `--model` at a different checkpoint; every request fails from that minute.

The new ReplicaSet loads `/mnt/ckpt/codeassist/run-0611/step-18000`, a checkpoint from another
run with a smaller vocabulary, while `--tokenizer` still points at the Llama 3.1 tokenizer. The
first prompt with a token id beyond the embedding table trips a device-side assert
(`Assertion srcIndex < srcSelectDimSize failed` / `CUDA error: device-side assert triggered`),
the engine dies, the pod restarts: every new pod crash-loops, the old ones are scaled away, and
the gateway runs out of healthy upstreams.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from .. import exporters as ex
from .. import k8s
from ..common import TRACE_VLLM_ENGINE, gateway_logs, sloth_alert, sum_codes
from ..engines import API, src_of, vllm_access, vllm_line_doc, vllm_startup, vllm_stats
from ..fleet import Fleet, crashloop
from ..logs import Source, ecs, envoy_gateway_access
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import node_timeline

NAME = "wrong-checkpoint-rollout-vocab-mismatch"
ENGINE = "vLLM 0.10.1 (V1 metric names)"
GW_IP = "172.18.40.12"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-06-23T11:18:00Z",
        namespace="copilot-prod",
        seed=404,
        description="Code assistant completions start failing; a model promotion was rolled out this morning.",
    )
    c, rng = p.clock, p.rng
    ns = "copilot-prod"
    t_roll = p.t("11:03:00")

    nodes = {}
    for name, ip in (
        ("dgx-h100-r03-n05", "10.20.3.15"),
        ("dgx-h100-r03-n06", "10.20.3.16"),
        ("dgx-h100-r04-n01", "10.20.4.11"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="dc1-row3",
            instance_type="dgx-h100",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=f"172.18.{8 * len(nodes)}.0/21",
            kernel="5.15.0-1063-nvidia",
            os_image="DGX OS 6.3.1",
            kubelet_version="v1.31.2",
            runtime="containerd://1.7.23",
            driver="550.127.05",
            labels={"topology.kubernetes.io/region": "dc1"},
        )
    names = list(nodes)
    common_args = [
        "--served-model-name",
        "codeassist-8b",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.90",
        "--enable-prefix-caching",
        "--max-num-seqs",
        "96",
    ]
    tok = ["--tokenizer", "/mnt/ckpt/tokenizers/llama-3.1-8b-instruct"]
    old_args = ["--model", "/mnt/ckpt/codeassist/run-0522/step-42000", *tok, *common_args]
    new_args = ["--model", "/mnt/ckpt/codeassist/run-0611/step-18000", *tok, *common_args]
    image = "vllm/vllm-openai:v0.10.1.1"
    rev5 = p.revision(
        5, p.ago(days=19, hours=2), image, old_args, change_cause="promote codeassist step-42000 (MLOPS-812)"
    )
    rev6 = p.revision(
        6, t_roll, image, new_args, replicas=3, change_cause="promote codeassist step-18000 (MLOPS-877)"
    )
    w = k8s.Workload(
        name="vllm-codeassist-8b",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={"app": "codeassist", "component": "vllm"},
        revisions=[rev5, rev6],
        pods=[],
        created=p.ago(days=140),
        replicas=3,
        max_surge=1,
        max_unavailable=1,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5, "failureThreshold": 1},
        uid=k8s.new_uid(rng),
        volumes=[{"name": "ckpt", "nfs": {"server": "10.20.0.40", "path": "/export/ckpt", "readOnly": True}}],
        volume_mounts=[{"name": "ckpt", "mountPath": "/mnt/ckpt", "readOnly": True}],
        cluster_ip="10.96.212.40",
        progressing=("False", "ProgressDeadlineExceeded", p.t("11:13:00")),
    )
    fleet = Fleet(p, w, job="vllm-codeassist-8b", model="codeassist-8b")
    load = dict(prompt_len=3100, gen_len=120, ttft=0.16, itl=0.019, kv=0.28, util=66, fb_used=73_950)
    deleted = [t_roll + timedelta(seconds=1), p.t("11:03:45"), p.t("11:05:31")]
    olds = []
    for j, name in enumerate(names):
        node, devs = nodes[name]
        olds.append(
            fleet.add(rev5, node, [devs[j]], f"172.18.{8 * j}.{21 + j}", deleted=deleted[j], rpm=280, **load)
        )
    starts = [t_roll + timedelta(seconds=1.2), t_roll + timedelta(seconds=1.4), p.t("11:03:46")]
    news, cycles = [], {}
    for j in range(3):
        node, devs = nodes[names[(j + 1) % 3]]
        m = fleet.add(
            rev6,
            node,
            [devs[4 + j]],
            f"172.18.{8 * ((j + 1) % 3)}.{60 + j}",
            created=starts[j] - timedelta(seconds=1),
            ready_after=timedelta(days=1),
            rpm=280,
            **load,
        )
        cycles[m.name] = crashloop(
            fleet, m, start=starts[j], boot=timedelta(seconds=41), survive=timedelta(seconds=2.4)
        )
        news.append(m)
    for m in olds:
        m.info = None

    # --- who answers what, second by second after the rollout --------------------------------------------
    k0 = c.idx(t_roll)
    total = noisy(flat(c, 840.0), rng, 0.03)
    per_min = {m.name: {200: flat(c, 0.0), 500: flat(c, 0.0), 503: flat(c, 0.0)} for m in fleet.members}
    no_upstream = flat(c, 0.0)
    for i in range(k0, c.n):
        lam = total[i] / 60.0
        for sec in range(60):
            now = c.at(i) - timedelta(seconds=60 - sec - 0.5)
            eps = [(m, 200) for m in olds if m.created <= now < (m.deleted or p.as_of)]
            for m in news:
                for ready, died in cycles[m.name]:
                    if ready <= now < died:
                        eps.append((m, 500))
                    elif died <= now < died + timedelta(seconds=4):
                        eps.append((m, 503))
            if not eps:
                no_upstream[i] += lam
                continue
            for m, code in eps:
                per_min[m.name][code][i] += lam / len(eps)
    for m in fleet.members:
        for code, s in per_min[m.name].items():
            series = m.rep.codes.setdefault(code, flat(c, 0.0))
            for i in range(k0, c.n):
                series[i] = float(round(s[i]))
    for m in olds:  # the survivors carry the whole load until they are gone
        for i in range(k0, c.n):
            if m.rep.present[i] and m.rep.codes[200][i] > 0:
                scale = m.rep.codes[200][i] / 280.0
                m.rep.running[i] = float(round(m.rep.running[i] * scale))
                m.rep.kv[i] = min(0.9, m.rep.kv[i] * (0.6 + 0.4 * scale))

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(p.om, fleet.gpu_series(), driver="550.127.05")
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    ex.ksm_deployment(
        p.om,
        namespace=ns,
        name=w.name,
        spec=flat(c, 3),
        available=Series(float(sum(1 for m in olds if m.rep.present[i])) for i in range(c.n)),
        updated=Series(float(sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)),
        generation=Series(8.0 if i < k0 else 9.0 for i in range(c.n)),
    )
    cluster = f"httproute/{ns}/codeassist/rule/0"
    codes = {code: s for code, s in fleet.codes().items() if code != 503}
    codes[503] = fleet.codes().get(503, flat(c, 0.0)) + no_upstream.ints()
    gw_pod = "envoy-ingress-llm-copilot-gw-0c7e4b21-5b9d6c7f8-zq7rn"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="ingress-llm", gateway_pod=gw_pod)
    bad = codes[500] + codes[503]
    sloth_alert(
        p,
        service="codeassist",
        slo="completions-availability",
        objective=0.999,
        bad=bad,
        total=sum_codes(codes, c.n),
        alertname="CodeassistCompletionsAvailabilityBurn",
        labels={"severity": "page", "oncall": "ml-serving"},
        extra={"namespace": ns, "model": "codeassist-8b"},
        description="codeassist completions are failing (5xx) fast enough to exhaust a month of budget in hours.",
        prometheus="https://prometheus.dc1.internal",
        alertmanager="https://alertmanager.dc1.internal",
        runbook="https://git.internal/ml-serving/runbooks/-/blob/main/availability.md",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in olds:
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[GW_IP], every=2)
        vllm_stats(p, m, every=2)
    non_default = (
        "{'model': '/mnt/ckpt/codeassist/run-0611/step-18000', 'tokenizer': '/mnt/ckpt/tokenizers/llama-3.1-8b-instruct', "  # noqa: E501
        "'max_model_len': 16384, 'served_model_name': ['codeassist-8b'], 'gpu_memory_utilization': 0.9, "
        "'enable_prefix_caching': True, 'max_num_seqs': 96}"
    )
    cfg = (
        "MistralForCausalLM|model='/mnt/ckpt/codeassist/run-0611/step-18000', speculative_config=None, "
        "tokenizer='/mnt/ckpt/tokenizers/llama-3.1-8b-instruct', skip_tokenizer_init=False, tokenizer_mode=auto, "
        "revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, "
        "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, served_model_name=codeassist-8b, enable_prefix_caching=True"
    )
    assert_tpl = (
        "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1553: indexSelectSmallIndex: block: [{b},0,0], "
        "thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed."
    )
    err = (
        "CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other "
        "API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    stack = (
        TRACE_VLLM_ENGINE
        + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1603, in execute_model\n'  # noqa: E501
        "    model_output = self.model(\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/llama.py", line 367, in forward\n'
        "    hidden_states = self.get_input_embeddings(input_ids)\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/vocab_parallel_embedding.py", '
        "line 426, in forward\n"
        "    output_parallel = self.quant_method.embedding(self, masked_input.long())\n"
        f"RuntimeError: {err}"
    )
    for m in news:
        src = src_of(m)
        for n_cycle, (ready, died) in enumerate(cycles[m.name]):
            boot = ready - timedelta(seconds=41)
            if n_cycle == 0:
                vllm_startup(
                    p,
                    m,
                    version="0.10.1.1",
                    model_path="/mnt/ckpt/codeassist/run-0611/step-18000",
                    served="codeassist-8b",
                    non_default=non_default,
                    engine_config=cfg,
                    weights_gib=13.51,
                    kv_gib=56.2,
                    kv_tokens=460_352,
                    max_len=16384,
                    start=boot - timedelta(seconds=6.3),
                )
            else:
                vllm_line_doc(
                    p,
                    m,
                    boot + timedelta(seconds=1),
                    "INFO",
                    "api_server.py:1805",
                    "vLLM API server version 0.10.1.1",
                )
                vllm_line_doc(
                    p,
                    m,
                    boot + timedelta(seconds=1.1),
                    "INFO",
                    "utils.py:326",
                    f"non-default args: {non_default}",
                )
                vllm_line_doc(
                    p,
                    m,
                    ready - timedelta(seconds=0.2),
                    "INFO",
                    "api_server.py:1880",
                    "Starting vLLM API server 0 on http://0.0.0.0:8000",
                )
            for k in range(3):
                ts = ready + timedelta(milliseconds=300 + 400 * k)
                p.logs.add(
                    ecs(
                        ts,
                        f'({API}) INFO:     {GW_IP}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',  # noqa: E501
                        src,
                        level="info",
                        status=500,
                    )
                )
            t_assert = died - timedelta(milliseconds=900)
            for k in range(4):
                p.logs.add(
                    ecs(
                        t_assert + timedelta(microseconds=11 * k),
                        assert_tpl.format(b=rng.randint(0, 7), t=32 * rng.randint(0, 3) + rng.randint(0, 31)),
                        src,
                        level="error",
                    )
                )
            vllm_line_doc(
                p,
                m,
                died - timedelta(milliseconds=850),
                "ERROR",
                "core.py:700",
                "EngineCore encountered a fatal error.",
                proc="EngineCore_0 pid=229",
                error_type="RuntimeError",
                error_message=err.split("\n")[0],
                stack=stack,
            )
            vllm_line_doc(
                p,
                m,
                died - timedelta(milliseconds=790),
                "ERROR",
                "async_llm.py:416",
                "AsyncLLM output_handler failed.",
                error_type="EngineDeadError",
                error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
            )
            p.logs.add(
                ecs(died - timedelta(milliseconds=120), f"({API}) INFO:     Shutting down", src, level="info")
            )
    gw = Source("envoy-gateway", "ingress-llm", gw_pod, names[0], "envoy")
    route = f"httproute/{ns}/codeassist/rule/0/match/0/codeassist_corp_internal"
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=route,
        authority="codeassist.corp.internal",
        src=gw,
        clients="10.30.64",
        every=3,
        errors_after=cycles[news[0].name][0][0],
        flags=lambda code: (
            ("UF", "upstream_reset_before_response_started{connection_failure}")
            if code == 503
            else ("-", "via_upstream")
        ),
    )
    for i in range(k0, c.n - 1):
        for _ in range(min(3, int(no_upstream[i + 1]))):
            ts = p.ids.within(c.at(i))
            line = envoy_gateway_access(
                ts,
                status=503,
                flags="UH",
                details="no_healthy_upstream",
                duration_ms=0,
                upstream=None,
                cluster=cluster,
                route=route,
                authority="codeassist.corp.internal",
                client=p.ids.ip("10.30.64"),
                user_agent=rng.choice(["codeassist-vscode/1.14.2", "codeassist-jetbrains/1.9.0"]),
                request_id=p.ids.request_id(),
                bytes_sent=19,
            )
            p.logs.add(ecs(ts, line, gw, level="info", status=503))

    # --- events ------------------------------------------------------------------------------------------
    old_rs, new_rs = f"{w.name}-{rev5.hash}", f"{w.name}-{rev6.hash}"
    ev = []

    def dep_event(at: datetime, msg: str) -> None:
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Deployment",
                name=w.name,
                uid=w.uid,
                reason="ScalingReplicaSet",
                message=msg,
                first=at,
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )

    dep_event(t_roll, f"Scaled up replica set {new_rs} from 0 to 2")
    dep_event(t_roll + timedelta(milliseconds=40), f"Scaled down replica set {old_rs} from 3 to 2")
    dep_event(p.t("11:03:45"), f"Scaled down replica set {old_rs} from 2 to 1")
    dep_event(p.t("11:03:45"), f"Scaled up replica set {new_rs} from 2 to 3")
    dep_event(p.t("11:05:31"), f"Scaled down replica set {old_rs} from 1 to 0")
    for m in olds:
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Killing",
                message="Stopping container vllm",
                first=m.deleted,
                warning=False,
                host=m.node.name,
                field_path="spec.containers{vllm}",
            )
        )
    for m in news:
        cyc = cycles[m.name]
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Scheduled",
                message=f"Successfully assigned {ns}/{m.name} to {m.node.name}",
                first=m.created,
                warning=False,
                component="default-scheduler",
            )
        )
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Pulled",
                message=f'Container image "{image}" already present on machine',
                first=cyc[0][0] - timedelta(seconds=42),
                last=cyc[-1][0] - timedelta(seconds=42),
                count=len(cyc),
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
                first=cyc[0][0] - timedelta(seconds=36),
                last=cyc[-1][1] + timedelta(seconds=2),
                count=9 * len(cyc),
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
                reason="BackOff",
                message=f"Back-off restarting failed container vllm in pod {m.name}_{ns}({m.uid})",
                first=cyc[0][1] + timedelta(seconds=1),
                last=cyc[-1][1] + timedelta(seconds=1),
                count=len(cyc) + 3,
                host=m.node.name,
                field_path="spec.containers{vllm}",
            )
        )
    ev.append(
        k8s.event(
            namespace=ns,
            kind="Deployment",
            name=w.name,
            uid=w.uid,
            reason="ProgressDeadlineExceeded",
            message=f'ReplicaSet "{new_rs}" has timed out progressing.',
            first=p.t("11:13:00"),
            component="deployment-controller",
            api_version="apps/v1",
        )
    )

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="codeassist",
            namespace=ns,
            gateway="copilot-gw",
            gateway_namespace="ingress-llm",
            hostnames=["codeassist.corp.internal"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=140),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.extend(ev)
    p.record_gpus([g for m in news for g in m.gpus])
    p.expect("model_config", "MOD_CONFIG_MISMATCH", ("rollback_deployment", f"deployment/{w.name}"))
    p.notes["onset"] = iso(cycles[news[0].name][0][0])
    return p
