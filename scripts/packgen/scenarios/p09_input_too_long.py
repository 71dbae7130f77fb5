"""An SLO burns on a caller's input-too-long errors (400), not on a failure of the service.

At 06:08 a nightly report summariser starts sending whole documents (~9,000 tokens) to a model
served with `--max-model-len 8192`. vLLM rejects each with 400 "This model's maximum context
length is 8192 tokens. However, you requested 9000 tokens ...". The availability SLI counts every
non-2xx answer, so the page fires although the model serves everyone else normally.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, sloth_alert, sum_codes
from ..engines import API, src_of, vllm_access, vllm_line_doc, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs
from ..pack import Pack
from ..series import Series, flat, iso, noisy, ramp
from ..traffic import node_timeline

NAME = "slo-burn-input-too-long-400"
ENGINE = "vLLM 0.10.2 (V1 metric names)"
GW_IP = "172.16.8.40"
BATCH_AGENT = "report-summarizer/0.9.3 (nightly; python-httpx/0.27.2)"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-08-04T06:33:00Z",
        namespace="docs-qa",
        seed=909,
        description="Early-morning page: the documentation Q&A availability SLO is burning fast.",
    )
    c, rng = p.clock, p.rng
    ns = "docs-qa"
    start = p.t("06:08:05")
    k = c.idx(start)

    nodes = {}
    for name, ip in (
        ("scw-docqa-gpu-h100-7d1e2f09c3a54b", "172.16.4.11"),
        ("scw-docqa-gpu-h100-b81c4e6a29f07d", "172.16.4.12"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="fr-par-2",
            instance_type="H100-1-80G",
            product="NVIDIA H100 80GB HBM3",
            count=1,
            pod_cidr=f"100.64.{len(nodes) + 2}.0/24",
            cpu=24,
            memory_mi=245_760,
            kernel="6.8.0-49-generic",
            os_image="Ubuntu 22.04.5 LTS",
            kubelet_version="v1.30.7",
            runtime="containerd://1.7.23",
        )
    names = list(nodes)
    args = [
        "--model",
        "/models/docqa-llama-3.1-8b-v9",
        "--served-model-name",
        "docqa-8b",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.9",
        "--enable-prefix-caching",
        "--disable-log-requests",
    ]
    rev = p.revision(9, p.ago(days=13), "vllm/vllm-openai:v0.10.2", args, replicas=2, change_cause="docqa v9")
    w = k8s.Workload(
        name="vllm-llama31-8b-docqa",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "vllm-llama31-8b-docqa", "app.kubernetes.io/part-of": "docs-qa"},
        revisions=[rev],
        pods=[],
        created=p.ago(days=100),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="100Gi",
        memory_limit="120Gi",
        cpu="10",
        volumes=[{"name": "models", "persistentVolumeClaim": {"claimName": "docqa-models"}}],
        volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
        cluster_ip="10.32.0.144",
    )
    fleet = Fleet(p, w, job="vllm-llama31-8b-docqa", model="docqa-8b")
    for j, name in enumerate(names):
        node, devs = nodes[name]
        fleet.add(
            rev,
            node,
            [devs[0]],
            f"100.64.{j + 2}.{33 + j}",
            rpm=ramp(c, c.start, p.as_of, 170, 245),
            prompt_len=2400,
            gen_len=310,
            ttft=0.2,
            itl=0.022,
            kv=0.29,
            util=58,
            fb_used=73_400,
        )
    for m in fleet.members:
        m.rep.codes[200] = noisy(m.rep.codes[200], rng, 0.05).ints()
        m.rep.codes[400] = Series(0.0 if i < k else rng.uniform(52, 66) for i in range(c.n)).ints()
        m.rep.codes[400][k] = float(round(m.rep.codes[400][k] * (c.at(k) - start).total_seconds() / 60))

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(p.om, fleet.gpu_series())
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=1, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    ex.ksm_deployment(p.om, namespace=ns, name=w.name, spec=flat(c, 2), available=flat(c, 2))
    cluster = f"httproute/{ns}/docs-qa-api/rule/0"
    codes = fleet.codes()
    gw_pod = "envoy-edge-docs-docs-gw-4e2a9c1b-58c7d9b6f4-s2w9k"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="edge-docs", gateway_pod=gw_pod)
    bad = codes[400]
    sloth_alert(
        p,
        service="docs-qa",
        slo="requests-availability",
        objective=0.999,
        bad=bad,
        total=sum_codes(codes, c.n),
        alertname="DocsQAAvailabilityBudgetBurn",
        labels={"severity": "critical"},
        extra={"namespace": ns, "owner": "docs-platform"},
        description="Non-2xx answers on the docs-qa API are burning the 99.9% availability budget.",
        prometheus="https://prometheus.docs.example.io",
        alertmanager="https://alertmanager.docs.example.io",
        runbook="https://docs.example.io/runbooks/docs-qa-availability",
    )

    # --- logs --------------------------------------------------------------------------------------------
    tb = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_chat.py", line 211, in create_chat_completion\n'  # noqa: E501
        "    ) = await self._preprocess_chat(\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_engine.py", line 1032, in _preprocess_chat\n'  # noqa: E501
        "    prompt_inputs = await self._tokenize_prompt_input_async(\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_engine.py", line 688, in _validate_input\n'  # noqa: E501
        "    raise ValueError(\n"
    )
    for m in fleet.members:
        src = src_of(m)
        p.access_logs(
            m.rep, src, vllm_access(), clients=[GW_IP], every=2, errors_per_minute=2, errors_after=start
        )
        vllm_stats(p, m, every=2)
        for i in range(k, c.n - 1):
            for n_err in range(2):
                ts = p.ids.within(c.at(i), max(0.0, (start - c.at(i)).total_seconds() + 0.5))
                prompt = rng.choice([8000, 8000, 8113, 8390, 8612, 9022])
                completion = 1000
                msg = (
                    "This model's maximum context length is 8192 tokens. However, you requested "
                    f"{prompt + completion} tokens ({prompt} in the messages, {completion} in the completion). "
                    "Please reduce the length of the messages or completion."
                )
                vllm_line_doc(
                    p,
                    m,
                    ts,
                    "ERROR",
                    "serving_chat.py:222",
                    "Error in preprocessing prompt inputs",
                    error_type="ValueError",
                    error_message=msg,
                    stack=tb + f"ValueError: {msg}",
                )
                if n_err == 0:
                    p.logs.add(
                        ecs(
                            ts + timedelta(milliseconds=3),
                            f'({API}) INFO:     {GW_IP}:{rng.randint(33000, 60999)} - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request',  # noqa: E501
                            src,
                            level="info",
                            status=400,
                        )
                    )
    gw = Source("envoy-gateway", "edge-docs", gw_pod, names[0], "envoy")
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/docs-qa-api/rule/0/match/0/docs-qa_example_io",
        authority="docs-qa.example.io",
        src=gw,
        clients="100.96.12",
        every=3,
        errors_after=start,
        agent=lambda i: rng.choice(["docs-web/2026.07.3", "OpenAI/Python 1.99.9", "docs-slackbot/1.8.0"]),
    )
    for d in p.logs.docs:  # every 400 at the gateway comes from the summariser
        if (
            d.get("http", {}).get("response", {}).get("status_code") == 400
            and d["service"]["name"] == "envoy-gateway"
        ):
            d["message"] = d["message"].replace(
                d["message"].split('"user-agent":"')[1].split('"')[0], BATCH_AGENT
            )
    job = Source(
        "nightly-report-summarizer",
        "reporting",
        "nightly-report-summarizer-29223488-q8x7v",
        "scw-reporting-cpu-pool-2c4f9e",
        "summarizer",
    )
    p.logs.add(
        ecs(
            start - timedelta(seconds=4),
            "INFO summarizer: loaded 4812 documents from s3://acme-reports/2026-08-03/ "
            "(model=docqa-8b, max_tokens=1000, chunking=disabled)",
            job,
            level="info",
        )
    )
    for i in range(k, c.n - 1, 2):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                "ERROR summarizer: document failed: openai.BadRequestError: Error code: 400 - {'object': 'error', "
                "'message': \"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens "
                "(8000 in the messages, 1000 in the completion). Please reduce the length of the messages or "
                "completion. None\", 'type': 'BadRequestError', 'param': None, 'code': 400}",
                job,
                level="error",
                error_type="openai.BadRequestError",
            )
        )

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="docs-qa-api",
            namespace=ns,
            gateway="docs-gw",
            gateway_namespace="edge-docs",
            hostnames=["docs-qa.example.io"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=100),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.record_gpus(fleet.gpu_series())
    p.expect("operational", "BIZ_INPUT_TOO_LONG")
    p.notes["onset"] = iso(start)
    return p
