"""Long non-streaming generations time out as 408 (SGLang behind a LiteLLM proxy).

From 17:04 a report-writing feature sends non-streaming requests with `max_tokens: 8192`; the
answers run to several thousand tokens, about 150-200 s at ~38 tokens/s, past the proxy's
120 s `request_timeout`, which answers `408 litellm.Timeout`. SGLang is not overloaded: GPU
utilisation stays near 60 %, the queue is empty, time to first token is flat; only the
end-to-end latency of a class of requests grows past the timeout.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, sum_codes, threshold_alert
from ..engines import sglang_access, sglang_stats, src_of
from ..fleet import Fleet
from ..logs import Source, ecs, envoy_gateway_access, uvicorn_access
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp
from ..traffic import node_timeline

NAME = "sglang-long-generation-408"
ENGINE = "SGLang 0.4.9 behind a LiteLLM proxy"
MAX_TOKENS = 520_000


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-08-19T17:29:00Z",
        namespace="report-gen",
        seed=1111,
        description="Report generation requests fail with 408 since the afternoon feature launch.",
    )
    c, rng = p.clock, p.rng
    ns = "report-gen"
    launch = p.t("17:04:10")
    first_timeout = launch + timedelta(seconds=121)

    nodes = {}
    for name, ip in (
        ("ip-10-24-16-201.ap-southeast-2.compute.internal", "10.24.16.201"),
        ("ip-10-24-17-45.ap-southeast-2.compute.internal", "10.24.17.45"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone=f"ap-southeast-2{'ab'[len(nodes)]}",
            instance_type="p5.48xlarge",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=f"10.24.{16 + len(nodes)}.0/24",
            kernel="6.1.119-129.201.amzn2023.x86_64",
            os_image="Amazon Linux 2023.6.20250115",
            kubelet_version="v1.31.4-eks-aeac579",
            driver="560.35.03",
        )
    cpu_node = k8s.Node(
        name="ip-10-24-3-77.ap-southeast-2.compute.internal",
        internal_ip="10.24.3.77",
        zone="ap-southeast-2a",
        instance_type="m7i.2xlarge",
        cpu=8,
        memory_mi=32_768,
        uid=k8s.new_uid(rng),
        pod_cidr="10.24.3.0/24",
        kernel="6.1.119-129.201.amzn2023.x86_64",
        os_image="Amazon Linux 2023.6.20250115",
        kubelet_version="v1.31.4-eks-aeac579",
    )
    names = list(nodes)
    args = [
        "--model-path",
        "/models/Qwen/Qwen3-32B",
        "--served-model-name",
        "qwen3-32b",
        "--tp",
        "2",
        "--host",
        "0.0.0.0",
        "--port",
        "30000",
        "--mem-fraction-static",
        "0.85",
        "--enable-metrics",
        "--context-length",
        "32768",
        "--reasoning-parser",
        "qwen3",
    ]
    rev = p.revision(
        6,
        p.ago(days=8),
        "lmsysorg/sglang:v0.4.9.post2-cu126",
        args,
        replicas=2,
        command=["python3", "-m", "sglang.launch_server"],
        change_cause="sglang 0.4.9.post2",
    )
    w = k8s.Workload(
        name="sglang-qwen3-32b",
        namespace=ns,
        container="sglang",
        port=30000,
        labels={"app.kubernetes.io/name": "sglang-qwen3-32b", "app.kubernetes.io/component": "inference"},
        revisions=[rev],
        pods=[],
        created=p.ago(days=60),
        replicas=2,
        gpus=2,
        readiness={"httpGet": {"path": "/health", "port": 30000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="200Gi",
        memory_limit="256Gi",
        cpu="24",
        cluster_ip="172.20.118.9",
        volumes=[
            {"name": "models", "persistentVolumeClaim": {"claimName": "qwen3-models"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
    )
    fleet = Fleet(p, w, job="report-gen/sglang", model="qwen3-32b", service="")
    for j, name in enumerate(names):
        node, devs = nodes[name]
        fleet.add(
            rev,
            node,
            [devs[2 * j], devs[2 * j + 1]],
            f"10.24.{16 + j}.{88 + j}",
            rpm=62,
            prompt_len=2600,
            gen_len=420,
            ttft=0.34,
            itl=0.026,
            kv=0.21,
            util=46,
            fb_used=70_900,
        )
    long = ramp(c, launch, launch + timedelta(minutes=3), 0.0, 1.0, ease=True)
    timeouts = flat(c, 0.0)
    for m in fleet.members:
        r = m.rep
        long_rpm = Series(long[i] * rng.uniform(6.5, 8.5) for i in range(c.n))
        to408 = Series(long_rpm[i] * 0.82 if c.at(i) >= first_timeout else 0.0 for i in range(c.n)).ints()
        timeouts = timeouts + to408
        r.codes[200] = (r.codes[200] + long_rpm - to408).ints()
        frac = Series(
            (long_rpm[i] / (r.codes[200][i] + to408[i])) if r.codes[200][i] else 0.0 for i in range(c.n)
        )
        r.gen_len = (
            r.gen_len * (1 - frac) + frac * 2900
        )  # what finished; the aborted ones stop at ~4.5k tokens
        r.e2e = Dist(
            noisy(flat(c, 11.8), rng, 0.05),
            0.55,
            tail_frac=frac,
            tail_median=flat(c, 119.8),
            tail_sigma=0.015,
        )
        r.running = Series(
            float(round(v + 19 * long[i] + rng.uniform(-2, 2))) for i, v in enumerate(r.running)
        )
        r.kv = Series(min(0.8, v + 0.26 * long[i]) for i, v in enumerate(r.kv))
        r.waiting = flat(c, 0.0)
        for g in m.gpus:
            g.util = Series(float(round(v + 14 * long[i] + rng.uniform(-2, 2))) for i, v in enumerate(g.util))
        m.notes["aborted"] = to408

    # --- LiteLLM proxy ----------------------------------------------------------------------------------------
    lrev = p.revision(
        23,
        p.ago(days=15),
        "ghcr.io/berriai/litellm:main-v1.74.9-stable",
        ["--config", "/app/config.yaml", "--port", "4000", "--num_workers", "4"],
        replicas=2,
        change_cause="litellm v1.74.9-stable",
    )
    lw = k8s.Workload(
        name="litellm-proxy",
        namespace=ns,
        container="litellm",
        port=4000,
        labels={"app.kubernetes.io/name": "litellm-proxy"},
        revisions=[lrev],
        pods=[],
        created=p.ago(days=200),
        replicas=2,
        gpus=0,
        cpu="2",
        memory="4Gi",
        memory_limit="6Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/health/readiness", "port": 4000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        cluster_ip="172.20.118.40",
        volumes=[{"name": "config", "configMap": {"name": "litellm-config"}}],
        volume_mounts=[{"name": "config", "mountPath": "/app/config.yaml", "subPath": "config.yaml"}],
    )
    lfleet = Fleet(p, lw, job="report-gen/litellm", model="qwen3-32b", service="")
    total_ok = Series(sum(m.rep.codes[200][i] for m in fleet.members) for i in range(c.n))
    for j in range(2):
        lm = lfleet.add(lrev, cpu_node, [], f"10.24.3.{140 + j}", rpm=60, ttft=0.01, itl=0.001)
        lm.rep.codes[200] = (total_ok * 0.5).ints()
        lm.rep.codes[408] = (timeouts * 0.5).ints()

    # --- metrics -----------------------------------------------------------------------------------------
    ex.sglang(p.om, fleet.replicas(), max_total_tokens=MAX_TOKENS, itl=False)
    for lm in lfleet.members:
        base = {
            "instance": f"{lm.ip}:4000",
            "job": "report-gen/litellm",
            "namespace": ns,
            "pod": lm.name,
            "requested_model": "qwen3-32b",
            "api_key_alias": "report-writer",
            "team_alias": "reports",
        }
        for code in (200, 408):
            inc = lm.rep.codes[code]
            p.om.counter(
                "litellm_proxy_total_requests_metric",
                "Total number of requests made to the proxy server - track number of client side requests",
                {**base, "status_code": str(code)},
                inc,
                initial=inc[0] * 9000 if code == 200 else 12,
            )
        p.om.counter(
            "litellm_proxy_failed_requests_metric",
            "Total number of failed responses from proxy - the client "
            "did not get a success response from litellm proxy",
            {**base, "exception_status": "408", "exception_class": "Timeout"},
            lm.rep.codes[408],
            initial=12,
        )
        ex.up(p.om, [lm.rep])
    for m in fleet.members:
        p.om.counter(
            "sglang:num_aborted_requests",
            "Number of requests aborted.",
            {
                "instance": f"{m.ip}:30000",
                "job": "report-gen/sglang",
                "model_name": "qwen3-32b",
                "namespace": ns,
                "pod": m.name,
            },
            m.notes["aborted"],
            initial=3,
        )
    ex.dcgm(p.om, fleet.gpu_series(), driver="560.35.03")
    ex.ksm_pods(p.om, fleet.timelines() + lfleet.timelines())
    ex.ksm_nodes(
        p.om,
        [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
        + [node_timeline(c, cpu_node.name, internal_ip=cpu_node.internal_ip)],
    )
    ex.ksm_deployment(p.om, namespace=ns, name=w.name, spec=flat(c, 2), available=flat(c, 2))
    ex.ksm_deployment(p.om, namespace=ns, name=lw.name, spec=flat(c, 2), available=flat(c, 2))
    cluster = f"httproute/{ns}/report-llm/rule/0"
    codes = {200: total_ok.ints(), 408: timeouts}
    gw_pod = "envoy-reports-edge-reports-gw-6a0d3f2c-5f8c7d9b6-r9v4n"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="reports-edge", gateway_pod=gw_pod)
    ratio = rate_ratio(timeouts, sum_codes(codes, c.n))
    sel = f'envoy_cluster_name="{cluster}"'
    threshold_alert(
        p,
        expr=(
            f'sum(rate(envoy_cluster_upstream_rq{{{sel},envoy_response_code="408"}}[5m])) / '
            f"sum(rate(envoy_cluster_upstream_rq{{{sel}}}[5m])) > 0.02"
        ),
        condition=[v > 0.02 for v in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "ReportLLMRequestTimeouts",
            "namespace": ns,
            "route": "report-llm",
            "model": "qwen3-32b",
            "service": "sglang-qwen3-32b",
            "severity": "page",
            "team": "reports",
        },
        summary="report-llm: more than 2% of requests time out (408)",
        description="Requests through the report-llm route end in 408 Request Timeout.",
        prometheus="http://prometheus-server.monitoring.svc:80",
        alertmanager="http://prometheus-alertmanager.monitoring.svc:9093",
        value_format="{:.3f}",
        runbook="https://reports.example.com/runbooks/llm-timeouts",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), sglang_access(), clients=[lm.ip for lm in lfleet.members], every=2)
        sglang_stats(p, m, max_total_tokens=MAX_TOKENS, every=2)
    api_base = f"http://sglang-qwen3-32b.{ns}.svc:30000/v1"
    for lm in lfleet.members:
        src = src_of(lm, "litellm-proxy")
        for i in range(c.n - 1):
            minute = c.at(i)
            if i % 3 == 0:
                ts = p.ids.within(minute)
                p.logs.add(
                    ecs(
                        ts,
                        uvicorn_access(p.ids.client("10.24.200"), "POST", "/v1/chat/completions", 200),
                        src,
                        status=200,
                    )
                )
            for _ in range(min(2, int(lm.rep.codes[408][i + 1]))):
                ts = p.ids.within(minute, max(0.0, (first_timeout - minute).total_seconds()))
                took = 120.0 + rng.uniform(0.002, 0.03)
                msg = (
                    "litellm.proxy.proxy_server.chat_completion(): Exception occured - litellm.Timeout: "
                    f"APITimeoutError - Request timed out. Timeout passed=120.0, time taken={took:.3f} seconds "
                    f"(model=hosted_vllm/qwen3-32b, api_base={api_base}) LiteLLM Retried: 0 times"
                )
                p.logs.add(
                    ecs(
                        ts,
                        f"LiteLLM Proxy:ERROR: proxy_server.py:3851 - {msg}",
                        src,
                        level="error",
                        error_type="litellm.exceptions.Timeout",
                        error_message=msg,
                    )
                )
                p.logs.add(
                    ecs(
                        ts + timedelta(milliseconds=4),
                        uvicorn_access(p.ids.client("10.24.200"), "POST", "/v1/chat/completions", 408),
                        src,
                        status=408,
                    )
                )
    cfg = (
        "model_list:\n"
        "  - model_name: qwen3-32b\n"
        "    litellm_params:\n"
        "      model: hosted_vllm/qwen3-32b\n"
        f"      api_base: {api_base}\n"
        "      api_key: os.environ/SGLANG_API_KEY\n"
        "litellm_settings:\n"
        "  request_timeout: 120\n"
        "  num_retries: 0\n"
        '  callbacks: ["prometheus"]\n'
        "general_settings:\n"
        "  master_key: os.environ/LITELLM_MASTER_KEY\n"
    )
    writer = Source("report-writer", "reports-app", "report-writer-7c9d5b8f6-2mzkx", cpu_node.name, "worker")
    p.logs.add(
        ecs(
            launch - timedelta(seconds=20),
            "INFO report_writer.config: feature flag quarterly_narrative=on "
            "(model=qwen3-32b stream=false max_tokens=8192 sections=12)",
            writer,
        )
    )
    for i in range(c.idx(first_timeout), c.n - 1, 2):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                "ERROR report_writer.llm: section generation failed: "
                "openai.APIStatusError: Error code: 408 - {'error': {'message': 'litellm.Timeout: "
                "APITimeoutError - Request timed out. Timeout passed=120.0', 'type': None, 'param': None, "
                "'code': '408'}} (stream=False, max_tokens=8192)",
                writer,
                level="error",
                error_type="openai.APIStatusError",
            )
        )
    gw = Source("envoy-gateway", "reports-edge", gw_pod, cpu_node.name, "envoy")
    route = f"httproute/{ns}/report-llm/rule/0/match/0/llm_reports_example_com"
    for i in range(c.n - 1):
        minute = c.at(i)
        for code, n in ((200, 1 if i % 3 == 0 else 0), (408, min(2, int(timeouts[i + 1])))):
            for _ in range(n):
                ts = p.ids.within(
                    minute, max(0.0, (first_timeout - minute).total_seconds()) if code == 408 else 0.0
                )
                lm = rng.choice(lfleet.members)
                dur = (
                    120_000 + rng.randint(3, 40) if code == 408 else int(1000 * rng.lognormvariate(2.4, 0.5))
                )
                line = envoy_gateway_access(
                    ts,
                    status=code,
                    duration_ms=dur,
                    upstream=f"{lm.ip}:4000",
                    cluster=cluster,
                    route=route,
                    authority="llm.reports.example.com",
                    client=p.ids.ip("10.24.210"),
                    user_agent="OpenAI/Python 1.99.9",
                    request_id=p.ids.request_id(),
                    bytes_sent=312 if code == 408 else 9800,
                )
                p.logs.add(ecs(ts, line, gw, level="info", status=code))

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.extend(lfleet.objects())
    p.objects.append(
        k8s.configmap(name="litellm-config", namespace=ns, data={"config.yaml": cfg}, created=p.ago(days=15))
    )
    p.objects.append(
        k8s.httproute(
            name="report-llm",
            namespace=ns,
            gateway="reports-gw",
            gateway_namespace="reports-edge",
            hostnames=["llm.reports.example.com"],
            backends=[(lw.name, 4000, 1)],
            created=p.ago(days=200),
            timeouts={"request": "300s"},
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.append(cpu_node.object(p.as_of))
    p.record_gpus(fleet.gpu_series())
    p.expect("inference_engine", "ENG_TIMEOUT")
    p.notes["onset"] = iso(launch)
    return p
