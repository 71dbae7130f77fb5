"""Chat-template drift on TGI: an image and model-revision bump changes the chat template.

The old ReplicaSet pinned the tokenizer config (`--tokenizer-config-path`, from a ConfigMap); the
new one moves to TGI 3.3.4 and a newer `--revision` and drops that flag, so the router renders
prompts with the repository's new template. Requests still answer 200, but a growing share of
completions is empty or carries malformed tool-call JSON; conversations with `tool` turns fail
with TGI's `Template error`. The alert is the assistant's empty-response ratio.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, threshold_alert
from ..engines import src_of, tgi_success_line
from ..fleet import Fleet, rebalance
from ..logs import Source, ecs, tgi_line, uvicorn_access
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy
from ..traffic import node_timeline

NAME = "tgi-chat-template-drift"
ENGINE = "HF TGI 3.0.2 -> 3.3.4"
MODEL = "NousResearch/Hermes-3-Llama-3.1-8B"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-07-08T13:37:00Z",
        namespace="retail-assistant",
        seed=606,
        description="Shopping assistant returns blank answers and broken order lookups; no errors on dashboards.",
    )
    c, rng = p.clock, p.rng
    ns = "retail-assistant"
    t_roll = p.t("13:05:10")

    nodes = {}
    for name, ip in (
        ("ip-10-12-33-140.eu-west-1.compute.internal", "10.12.33.140"),
        ("ip-10-12-41-27.eu-west-1.compute.internal", "10.12.41.27"),
        ("ip-10-12-52-9.eu-west-1.compute.internal", "10.12.52.9"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone=f"eu-west-1{'abc'[len(nodes)]}",
            instance_type="g6e.12xlarge",
            product="NVIDIA L40S",
            count=4,
            pod_cidr=f"10.12.{33 + 8 * len(nodes)}.0/24",
            cpu=48,
            memory_mi=393_216,
            kernel="6.1.112-122.189.amzn2023.x86_64",
            os_image="Amazon Linux 2023.6.20241121",
            kubelet_version="v1.31.2-eks-94953ac",
            driver="550.127.05",
        )
    names = list(nodes)
    old_args = [
        "--model-id",
        MODEL,
        "--revision",
        "896ea440e5a9e6070e3d8a2774daf2b481ab425b",
        "--max-input-tokens",
        "12288",
        "--max-total-tokens",
        "16384",
        "--max-concurrent-requests",
        "256",
        "--tokenizer-config-path",
        "/config/tokenizer_config.json",
        "--port",
        "80",
    ]
    new_args = [
        "--model-id",
        MODEL,
        "--revision",
        "b4a5d1e2c57f0b0a39d3b4f45e2f7c6a7e1d9c30",
        "--max-input-tokens",
        "12288",
        "--max-total-tokens",
        "16384",
        "--max-concurrent-requests",
        "256",
        "--port",
        "80",
    ]
    env = [{"name": "HF_HUB_OFFLINE", "value": "0"}, {"name": "HUGGINGFACE_HUB_CACHE", "value": "/data"}]
    rev2 = p.revision(
        2,
        p.ago(days=34),
        "ghcr.io/huggingface/text-generation-inference:3.0.2",
        old_args,
        env=env,
        change_cause="pin Hermes-3 tokenizer config (RA-412)",
    )
    rev3 = p.revision(
        3,
        t_roll,
        "ghcr.io/huggingface/text-generation-inference:3.3.4",
        new_args,
        env=env,
        replicas=2,
        change_cause="tgi 3.3.4 + hermes-3 latest revision (RA-530)",
    )
    w = k8s.Workload(
        name="tgi-hermes3-8b",
        namespace=ns,
        container="tgi",
        port=80,
        labels={"app": "tgi-hermes3-8b", "team": "retail-ml"},
        revisions=[rev2, rev3],
        pods=[],
        created=p.ago(days=90),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 80}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="48Gi",
        memory_limit="64Gi",
        cpu="8",
        volumes=[
            {"name": "data", "persistentVolumeClaim": {"claimName": "hf-cache"}},
            {"name": "tokenizer-config", "configMap": {"name": "hermes3-tokenizer-config"}},
        ],
        volume_mounts=[
            {"name": "data", "mountPath": "/data"},
            {"name": "tokenizer-config", "mountPath": "/config"},
        ],
        cluster_ip="172.20.90.14",
    )
    fleet = Fleet(p, w, job="retail-assistant/tgi", model="hermes-3-llama-3.1-8b", service="")
    load = dict(prompt_len=1700, gen_len=190, ttft=0.19, itl=0.021, kv=0.3, util=69, fb_used=43_100)
    sched = [(t_roll, p.t("13:07:02")), (p.t("13:07:06"), p.t("13:08:51"))]
    olds, news = [], []
    for j, (_, ready) in enumerate(sched):
        node, devs = nodes[names[j]]
        olds.append(
            fleet.add(
                rev2,
                node,
                [devs[1]],
                f"10.12.{33 + 8 * j}.{71 + j}",
                deleted=ready + timedelta(seconds=4),
                rpm=210,
                **load,
            )
        )
    for j, (created, ready) in enumerate(sched):
        node, devs = nodes[names[j + 1]]
        news.append(
            fleet.add(
                rev3,
                node,
                [devs[2]],
                f"10.12.{41 + 8 * j}.{120 + j}",
                created=created,
                ready_after=ready - created,
                rpm=210,
                **load,
            )
        )
    for m in olds:
        m.info = None
    rebalance(fleet, noisy(flat(c, 420.0), rng, 0.04))
    for m in news:  # empty answers are one token long: the mean output and per-request time drop
        m.rep.gen_len = m.rep.gen_len * 0.78
        m.rep.codes[422] = (m.rep.codes[200] * 0.03).ints()
        m.rep.codes[200] = m.rep.codes[200] - m.rep.codes[422]
    for m in fleet.members:
        r = m.rep
        r.e2e = Dist(Series(r.ttft.median[i] + r.itl.median[i] * r.gen_len[i] for i in range(c.n)), 0.6)

    # --- what the assistant sees in the answers -------------------------------------------------------------------
    new_share = Series(
        sum(m.rep.codes[200][i] for m in news) / max(1.0, sum(m.rep.codes[200][i] for m in fleet.members))
        for i in range(c.n)
    )
    outputs = Series(sum(m.rep.codes[200][i] for m in fleet.members) for i in range(c.n))
    empty = Series(
        outputs[i] * (0.006 + 0.17 * new_share[i]) * rng.uniform(0.85, 1.15) for i in range(c.n)
    ).ints()
    tools = (outputs * 0.31).ints()
    invalid = Series(
        tools[i] * (0.008 + 0.37 * new_share[i]) * rng.uniform(0.85, 1.15) for i in range(c.n)
    ).ints()

    # --- metrics -----------------------------------------------------------------------------------------
    ex.tgi(
        p.om, fleet.replicas(), batch_max_tokens=187_424, errors={422: "template_error", 429: "overloaded"}
    )
    app_pods = ["retail-assistant-api-5f7c9d8b6-4hx2p", "retail-assistant-api-5f7c9d8b6-w8m5t"]
    for n_pod, pod in enumerate(app_pods):
        lab = {
            "instance": f"10.12.60.{31 + n_pod}:8080",
            "job": "retail-assistant-api",
            "namespace": ns,
            "pod": pod,
            "upstream": "tgi-hermes3-8b",
        }
        half = 0.5 + (0.03 if n_pod else -0.03)
        p.om.counter(
            "llm_output",
            "Completions returned by the LLM upstream.",
            lab,
            (outputs * half).ints(),
            initial=outputs[0] * half * 30000,
        )
        p.om.counter(
            "llm_output_empty",
            "Completions whose assistant content was empty after stripping.",
            lab,
            (empty * half).ints(),
            initial=outputs[0] * half * 30000 * 0.006,
        )
        for valid, inc in (("true", tools - invalid), ("false", invalid)):
            p.om.counter(
                "llm_tool_call",
                "Tool calls proposed by the model, by JSON/schema validity.",
                {**lab, "valid": valid},
                (inc * half).ints(),
                initial=tools[0] * half * 30000 * (0.992 if valid == "true" else 0.008),
            )
    ex.dcgm(p.om, fleet.gpu_series(), driver="550.127.05")
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=4, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    k0 = c.idx(t_roll)
    ex.ksm_deployment(
        p.om,
        namespace=ns,
        name=w.name,
        spec=flat(c, 2),
        available=fleet.ready_count().minimum(2),
        updated=Series(float(sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)),
        generation=Series(5.0 if i < k0 else 6.0 for i in range(c.n)),
    )
    ratio = rate_ratio(empty, outputs)
    sel = f'namespace="{ns}",upstream="tgi-hermes3-8b"'
    threshold_alert(
        p,
        expr=f"sum(rate(llm_output_empty_total{{{sel}}}[5m])) / sum(rate(llm_output_total{{{sel}}}[5m])) > 0.05",
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "AssistantEmptyResponseRatioHigh",
            "namespace": ns,
            "service": "tgi-hermes3-8b",
            "model": "hermes-3-llama-3.1-8b",
            "severity": "page",
            "slo": "answer-quality",
        },
        summary="retail-assistant: more than 5% of LLM answers are empty",
        description="The share of empty completions from tgi-hermes3-8b over 5 minutes is above 5%.",
        prometheus="http://prometheus-operated.monitoring:9090",
        alertmanager="http://alertmanager-operated.monitoring:9093",
        value_format="{:.3f}",
        runbook="https://retail.example.com/runbooks/assistant-answer-quality",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in fleet.members:
        src = src_of(m)
        for i in range(1, c.n - 1):
            if not m.rep.present[i] or i % 2:
                continue
            ts = p.ids.within(c.at(i))
            is_new = m in news
            tokens = 1 if is_new and rng.random() < 0.3 else int(rng.uniform(60, 380))
            total_s = 0.19 + 0.021 * tokens * rng.uniform(0.8, 1.3)
            line = tgi_success_line(
                ts,
                max_new=1024,
                total_s=total_s,
                queue_s=rng.uniform(0.0002, 0.004),
                tokens=tokens,
                seed=str(rng.randint(10**18, 10**19)),
            )
            p.logs.add(ecs(ts, line, src, level="info", status=200))
            n422 = int(m.rep.codes.get(422, flat(c, 0.0))[i + 1])
            for _ in range(min(2, n422)):
                te = p.ids.within(c.at(i))
                msg = "Template error: syntax error: Conversation roles must alternate user/assistant/user/assistant/... (in <string>:1)"  # noqa: E501
                p.logs.add(
                    ecs(
                        te,
                        tgi_line(
                            te,
                            "ERROR",
                            "text_generation_router::infer",
                            "router/src/infer/mod.rs:203",
                            msg,
                            span='chat_completions{total_time="412.9µs" validation_time="0ns" queue_time="0ns" inference_time="0ns" time_per_token="0ns" seed="None"}',  # noqa: E501
                        ),
                        src,
                        level="error",
                        status=422,
                        error_type="TemplateError",
                        error_message=msg,
                    )
                )
    launcher = (
        'Args {{ model_id: "{model}", revision: Some("{rev}"), validation_workers: 2, sharded: None, num_shard: None, '
        "quantize: None, speculate: None, dtype: None, kv_cache_dtype: None, trust_remote_code: false, "
        "max_concurrent_requests: 256, max_best_of: 2, max_stop_sequences: 4, max_top_n_tokens: 5, "
        "max_input_tokens: Some(12288), max_input_length: None, max_total_tokens: Some(16384), "
        "waiting_served_ratio: 0.3, max_batch_prefill_tokens: None, max_batch_total_tokens: None, "
        'max_waiting_tokens: 20, max_batch_size: None, cuda_graphs: None, hostname: "{host}", port: 80, '
        'shard_uds_path: "/tmp/text-generation-server", master_addr: "localhost", master_port: 29500, '
        'huggingface_hub_cache: Some("/data"), weights_cache_override: None, disable_custom_kernels: false, '
        "cuda_memory_fraction: 1.0, rope_scaling: None, rope_factor: None, json_output: false, otlp_endpoint: None, "
        'otlp_service_name: "text-generation-inference.router", cors_allow_origin: [], api_key: None, '
        "watermark_gamma: None, watermark_delta: None, ngrok: false, ngrok_authtoken: None, ngrok_edge: None, "
        "tokenizer_config_path: {tcp}, disable_grammar_support: false, env: false, max_client_batch_size: 4, "
        "lora_adapters: None, usage_stats: On, payload_limit: 2000000, enable_prefill_logprobs: false }}"
    )
    for m in news:
        src = src_of(m)
        t = m.created + timedelta(seconds=45)  # after the image pull
        steps = [
            (
                0.0,
                "INFO",
                "text_generation_launcher",
                "launcher/src/main.rs:1905",
                launcher.format(
                    model=MODEL, rev="b4a5d1e2c57f0b0a39d3b4f45e2f7c6a7e1d9c30", host=m.name, tcp="None"
                ),
            ),
            (
                0.4,
                "INFO",
                "download: text_generation_launcher",
                "launcher/src/main.rs:1210",
                f"Starting check and download process for {MODEL}",
            ),
            (
                9.6,
                "INFO",
                "download: text_generation_launcher",
                "launcher/src/main.rs:1228",
                f"Successfully downloaded weights for {MODEL}",
            ),
            (
                0.2,
                "INFO",
                "shard-manager: text_generation_launcher",
                "launcher/src/main.rs:1120",
                "Starting shard rank=0",
            ),
            (
                24.7,
                "INFO",
                "shard-manager: text_generation_launcher",
                "launcher/src/main.rs:1230",
                "Shard ready in 24.71s rank=0",
            ),
            (0.9, "INFO", "text_generation_launcher", "launcher/src/main.rs:2110", "Starting Webserver"),
            (0.6, "INFO", "text_generation_router_v3", "backends/v3/src/lib.rs:125", "Warming up model"),
            (
                14.2,
                "INFO",
                "text_generation_router_v3",
                "backends/v3/src/lib.rs:137",
                "Setting max batch total tokens to 187424",
            ),
            (
                0.3,
                "WARN",
                "text_generation_router::server",
                "router/src/server.rs:1631",
                f"No tokenizer_config_path given: using tokenizer_config.json (chat_template) from {MODEL}@b4a5d1e2",
            ),
            (0.2, "INFO", "text_generation_router::server", "router/src/server.rs:2337", "Connected"),
        ]
        for delay, level, target, where, msg in steps:
            t += timedelta(seconds=delay)
            p.logs.add(ecs(t, tgi_line(t, level, target, where, msg), src, level=level.lower()))
    api = [Source("retail-assistant-api", ns, pod, names[0], "api") for pod in app_pods]
    for i in range(1, c.n - 1):
        for k in range(min(3, int(empty[i + 1]))):
            ts = p.ids.within(c.at(i))
            conv = p.ids.hex(12)
            p.logs.add(
                ecs(
                    ts,
                    f"WARNING assistant.llm: empty completion from tgi-hermes3-8b (finish_reason=stop, "
                    f"completion_tokens=1) conversation={conv} route=/v1/assist",
                    api[k % 2],
                    level="warn",
                )
            )
        for k in range(min(2, int(invalid[i + 1]))):
            ts = p.ids.within(c.at(i))
            bad = rng.choice(
                [
                    (
                        "Expecting ',' delimiter: line 1 column 47 (char 46)",
                        '{"name": "lookup_order", "arguments": {"order_id": "A-88213" "include": "items"}}',
                    ),
                    ("Expecting value: line 1 column 1 (char 0)", '<tool_call>\\n{"name": "check_stock"'),
                    (
                        "Extra data: line 1 column 62 (char 61)",
                        '{"name": "track_parcel", "arguments": {"tracking": "JD0142"}}<|im_end|>',
                    ),
                ]
            )
            p.logs.add(
                ecs(
                    ts,
                    f"WARNING assistant.tools: tool call arguments are not valid JSON: {bad[0]} raw={bad[1]!r}",
                    api[k % 2],
                    level="warn",
                    error_type="json.decoder.JSONDecodeError",
                    error_message=bad[0],
                )
            )
        if i % 3 == 0:
            ts = p.ids.within(c.at(i))
            p.logs.add(
                ecs(
                    ts,
                    uvicorn_access(p.ids.client("10.12.100"), "POST", "/v1/assist", 200),
                    api[i % 2],
                    level="info",
                    status=200,
                )
            )

    # --- events ------------------------------------------------------------------------------------------
    ev = []
    old_rs, new_rs = f"{w.name}-{rev2.hash}", f"{w.name}-{rev3.hash}"
    for j, (created, ready) in enumerate(sched):
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
                message=f"Scaled down replica set {old_rs} from {2 - j} to {1 - j}",
                first=ready + timedelta(seconds=4),
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
    for m in news:
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Pulled",
                message='Successfully pulled image "ghcr.io/huggingface/text-generation-inference:3.3.4" in 41.3s (41.3s including waiting). Image size: 6204871502 bytes.',  # noqa: E501
                first=m.created + timedelta(seconds=43),
                warning=False,
                host=m.node.name,
                field_path="spec.containers{tgi}",
            )
        )

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.configmap(
            name="hermes3-tokenizer-config",
            namespace=ns,
            created=p.ago(days=34),
            data={
                "tokenizer_config.json": '{"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>", '
                '"chat_template": "{{bos_token}}{%- if tools %}<|im_start|>system\\nYou are a function calling AI model. '  # noqa: E501
                "You are provided with function signatures within <tools></tools> XML tags. ...{%- endif %}"
                '{%- for message in messages %}...{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\\n{%- endif %}", '  # noqa: E501
                '"model_max_length": 131072, "tokenizer_class": "PreTrainedTokenizerFast"}'
            },
        )
    )
    p.objects.append(
        k8s.httproute(
            name="retail-assistant-llm",
            namespace=ns,
            gateway="internal-gw",
            gateway_namespace="gateway-retail",
            hostnames=["llm.retail.internal"],
            backends=[(w.name, 80, 1)],
            created=p.ago(days=90),
            path="/",
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.extend(ev)
    p.record_gpus([g for m in news for g in m.gpus])
    p.expect("model_config", "MOD_TOKENIZER", ("rollback_deployment", f"deployment/{w.name}"))
    p.notes["onset"] = iso(sched[0][1])
    return p
