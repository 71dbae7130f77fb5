"""Vector-DB timeouts in a RAG service; the model servers are healthy.

From 14:36 the managed Qdrant cluster (outside the cluster) answers searches slowly or not at
all: `qdrant_client` raises `ResponseHandlingException: timed out`, the RAG API answers 424
(retrieval failed) or, after its retries, the gateway gives up with 504. The vLLM pods behind it
see fewer requests and are otherwise unremarkable.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, sum_codes, threshold_alert
from ..engines import src_of, vllm_access, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs, envoy_gateway_access, uvicorn_access
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp
from ..traffic import node_timeline

NAME = "rag-qdrant-timeouts"
ENGINE = "RAG API (FastAPI + qdrant-client) over vLLM 0.10.1"
QDRANT = "https://7f3c2a91-5d4e-4b8a-9c1f-2e6d8a0b4c73.us-east4-0.gcp.cloud.qdrant.io:6333"
RETRIEVAL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]
HTTP_BUCKETS = [0.1, 0.5, 1.0]


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-08-12T14:58:00Z",
        namespace="kb-search",
        seed=1010,
        description="Knowledge-base answers fail for a large share of users since mid-afternoon.",
    )
    c, rng = p.clock, p.rng
    ns = "kb-search"
    onset = p.t("14:36:20")

    gpu_nodes = {}
    for suffix, ip in (("k3v9", "10.150.0.31"), ("m7xq", "10.150.0.32")):
        name = f"gke-kb-prod-g2-l4-pool-8d2c41f7-{suffix}"
        gpu_nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="us-east4-a",
            instance_type="g2-standard-24",
            product="NVIDIA L4",
            count=2,
            pod_cidr=f"10.152.{len(gpu_nodes)}.0/24",
            cpu=24,
            memory_mi=98_304,
            kernel="6.1.100+",
            os_image="Container-Optimized OS from Google",
            kubelet_version="v1.30.6-gke.1125000",
            runtime="containerd://1.7.23",
        )
    cpu_nodes = [
        k8s.Node(
            name=f"gke-kb-prod-n2-std-16-1a7e93c0-{s}",
            internal_ip=ip,
            zone="us-east4-a",
            instance_type="n2-standard-16",
            cpu=16,
            memory_mi=65_536,
            uid=k8s.new_uid(rng),
            pod_cidr=f"10.152.{10 + j}.0/24",
            kernel="6.1.100+",
            os_image="Container-Optimized OS from Google",
            kubelet_version="v1.30.6-gke.1125000",
            runtime="containerd://1.7.23",
        )
        for j, (s, ip) in enumerate((("b2wn", "10.150.0.41"), ("h5tz", "10.150.0.42")))
    ]

    # --- the model servers (healthy) ----------------------------------------------------------------------------
    vargs = [
        "--model",
        "/models/Qwen2.5-7B-Instruct",
        "--served-model-name",
        "qwen2.5-7b-instruct",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.9",
        "--enable-prefix-caching",
    ]
    vrev = p.revision(
        4, p.ago(days=21), "vllm/vllm-openai:v0.10.1.1", vargs, replicas=2, change_cause="qwen2.5-7b"
    )
    vw = k8s.Workload(
        name="vllm-qwen25-7b-rag",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "vllm-qwen25-7b-rag", "app.kubernetes.io/part-of": "kb-search"},
        revisions=[vrev],
        pods=[],
        created=p.ago(days=70),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="48Gi",
        memory_limit="64Gi",
        cpu="8",
        cluster_ip="34.118.236.52",
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
    )
    vfleet = Fleet(p, vw, job="kb-search/vllm", model="qwen2.5-7b-instruct", service="")
    for j, (node, devs) in enumerate(gpu_nodes.values()):
        vfleet.add(
            vrev,
            node,
            [devs[0]],
            f"10.152.{j}.{12 + j}",
            rpm=210,
            prompt_len=3600,
            gen_len=280,
            ttft=0.31,
            itl=0.031,
            kv=0.33,
            util=72,
            fb_used=21_480,
        )

    # --- the RAG API ------------------------------------------------------------------------------------------
    rrev = p.revision(
        17,
        p.ago(days=3, hours=4),
        "us-docker.pkg.dev/kb-prod/apps/rag-gateway:2.14.1",
        ["--workers", "4", "--port", "8080"],
        replicas=2,
        env=[
            {"name": "QDRANT_URL", "value": QDRANT},
            {"name": "QDRANT_COLLECTION", "value": "kb-articles-v3"},
            {"name": "QDRANT_TIMEOUT_S", "value": "5"},
            {"name": "RETRIEVAL_RETRIES", "value": "3"},
            {"name": "LLM_BASE_URL", "value": f"http://vllm-qwen25-7b-rag.{ns}.svc:8000/v1"},
        ],
        change_cause="rag-gateway 2.14.1",
    )
    rw = k8s.Workload(
        name="rag-gateway",
        namespace=ns,
        container="api",
        port=8080,
        labels={"app.kubernetes.io/name": "rag-gateway", "app.kubernetes.io/part-of": "kb-search"},
        revisions=[rrev],
        pods=[],
        created=p.ago(days=200),
        replicas=2,
        gpus=0,
        cpu="2",
        memory="3Gi",
        memory_limit="4Gi",
        readiness={"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        tolerations=[],
        service_account="rag-gateway",
        cluster_ip="34.118.236.90",
    )
    rfleet = Fleet(p, rw, job="kb-search/rag-gateway", model="qwen2.5-7b-instruct", service="")
    for j in range(2):
        rfleet.add(rrev, cpu_nodes[j % 2], [], f"10.152.{10 + j % 2}.{40 + j}", rpm=210, ttft=0.05, itl=0.001)
    failing = ramp(c, onset, onset + timedelta(minutes=4), 0.0, 1.0, ease=True)
    t424, t504, retr_errors = flat(c, 0.0), flat(c, 0.0), {}
    for m in rfleet.members:
        r = m.rep
        arrivals = noisy(flat(c, 210.0), rng, 0.05)
        fail = Series(arrivals[i] * failing[i] * rng.uniform(0.52, 0.64) for i in range(c.n)).ints()
        to504 = (fail * 0.42).ints()
        r.codes[200] = (arrivals - fail).ints()
        r.codes[424] = fail  # the app answers 424 for all of them; the gateway already gave up on some (504)
        t424 = t424 + (fail - to504)
        t504 = t504 + to504
        retr_errors[m.name] = (fail * 2.4).ints()
        r.e2e = Dist(
            noisy(flat(c, 2.9), rng, 0.05),
            0.45,
            tail_frac=failing * 0.6,
            tail_median=flat(c, 15.2),
            tail_sigma=0.3,
        )
        m.notes["arrivals"] = arrivals
    for m in vfleet.members:  # fewer requests reach generation
        share = Series(1.0 - 0.58 * failing[i] for i in range(c.n))
        m.rep.codes[200] = (m.rep.codes[200] * share).ints()
        m.rep.running = Series(float(round(v * share[i])) for i, v in enumerate(m.rep.running))
        m.rep.kv = m.rep.kv * Series(0.5 + 0.5 * s for s in share)
        for g in m.gpus:
            g.util = Series(float(round(v * (0.55 + 0.45 * share[i]))) for i, v in enumerate(g.util))

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, vfleet.replicas(), itl=False)
    for m in rfleet.members:
        r = m.rep
        base = {
            "instance": f"{m.ip}:8080",
            "job": "rag-gateway",
            "namespace": ns,
            "pod": m.name,
            "service": "rag-gateway",
        }
        for klass, status in ((2, "2xx"), (4, "4xx")):
            inc = r.by_class(klass)
            p.om.counter(
                "http_requests",
                "Total number of requests by method, status and handler.",
                {**base, "handler": "/v1/answer", "method": "POST", "status": status},
                inc,
                initial=inc[0] * 6000 if klass == 2 else 4100,
            )
        p.om.histogram(
            "http_request_duration_seconds",
            "Latency with only few buckets by handler. Made to be only used "
            "if aggregation by handler is important.",
            {**base, "handler": "/v1/answer", "method": "POST"},
            HTTP_BUCKETS,
            r.requests(),
            r.e2e,
            initial_count=r.requests()[0] * 6000,
        )
        lab = {**base, "backend": "qdrant", "collection": "kb-articles-v3"}
        searches = (m.notes["arrivals"] + retr_errors[m.name] * 0.6).ints()
        dist = Dist(
            noisy(flat(c, 0.042), rng, 0.06),
            0.45,
            tail_frac=failing * 0.72,
            tail_median=flat(c, 5.0),
            tail_sigma=0.02,
        )
        p.om.histogram(
            "rag_retrieval_duration_seconds",
            "Vector search latency seen by the RAG gateway.",
            lab,
            RETRIEVAL_BUCKETS,
            searches,
            dist,
            initial_count=searches[0] * 6000,
        )
        p.om.counter(
            "rag_retrieval_errors",
            "Vector search calls that failed, by error.",
            {**lab, "error": "timeout"},
            retr_errors[m.name],
            initial=37,
        )
        ex.up(p.om, [r])
    ex.dcgm(p.om, vfleet.gpu_series())
    ex.ksm_pods(p.om, vfleet.timelines() + rfleet.timelines())
    ex.ksm_nodes(
        p.om,
        [node_timeline(c, n, gpus=2, internal_ip=nd.internal_ip) for n, (nd, _) in gpu_nodes.items()]
        + [node_timeline(c, nd.name, internal_ip=nd.internal_ip) for nd in cpu_nodes],
    )
    ex.ksm_deployment(p.om, namespace=ns, name=vw.name, spec=flat(c, 2), available=flat(c, 2))
    ex.ksm_deployment(p.om, namespace=ns, name=rw.name, spec=flat(c, 2), available=flat(c, 2))
    cluster = f"httproute/{ns}/kb-answer/rule/0"
    ok = Series([0.0] * c.n)
    for m in rfleet.members:
        ok = ok + m.rep.codes[200]
    codes = {200: ok, 424: t424, 504: t504}
    gw_pod = "envoy-kb-edge-kb-gw-2f9d7e61-7d6f5c9b8-t4qzp"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="kb-edge", gateway_pod=gw_pod)
    bad = t424 + t504
    ratio = rate_ratio(bad, sum_codes(codes, c.n))
    sel = f'envoy_cluster_name="{cluster}"'
    threshold_alert(
        p,
        expr=(
            f'sum(rate(envoy_cluster_upstream_rq{{{sel},envoy_response_code=~"424|5.."}}[5m])) / '
            f"sum(rate(envoy_cluster_upstream_rq{{{sel}}}[5m])) > 0.05"
        ),
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "KBAnswerErrorRatioHigh",
            "namespace": ns,
            "route": "kb-answer",
            "service": "rag-gateway",
            "severity": "page",
            "team": "kb-search",
        },
        summary="kb-answer: more than 5% of answers fail (424/5xx)",
        description="The knowledge-base answer endpoint returns 424/5xx for more than 5% of requests.",
        prometheus="http://prometheus.kb-monitoring.svc:9090",
        alertmanager="http://alertmanager.kb-monitoring.svc:9093",
        value_format="{:.3f}",
        runbook="https://kb.example.com/runbooks/answer-errors",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in vfleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[m2.ip for m2 in rfleet.members], every=3)
        vllm_stats(p, m, every=3)
    gw = Source("envoy-gateway", "kb-edge", gw_pod, cpu_nodes[0].name, "envoy")
    route = f"httproute/{ns}/kb-answer/rule/0/match/0/kb_example_com"
    for m in rfleet.members:
        src = src_of(m)
        r = m.rep
        for i in range(c.n - 1):
            minute = c.at(i)
            if i % 3 == 0:
                ts = p.ids.within(minute)
                p.logs.add(
                    ecs(
                        ts,
                        uvicorn_access(p.ids.client("10.152.30"), "POST", "/v1/answer", 200),
                        src,
                        status=200,
                    )
                )
            nf = int(r.codes[424][i + 1])
            for _ in range(min(1, nf) if i % 2 == 0 else 0):
                ts = p.ids.within(minute, max(0.0, (onset - minute).total_seconds() + 1))
                elapsed = 5.0 + rng.uniform(0.001, 0.012)
                err = "ResponseHandlingException: timed out"
                p.logs.add(
                    ecs(
                        ts,
                        f"WARNING rag.retrieval: vector search attempt 1/3 failed collection=kb-articles-v3 "
                        f"top_k=8 elapsed={elapsed:.3f}s error={err}; retrying",
                        src,
                        level="warn",
                        error_type="qdrant_client.http.exceptions.ResponseHandlingException",
                        error_message="timed out",
                    )
                )
                t2 = ts + timedelta(seconds=10.4)
                stack = (
                    "Traceback (most recent call last):\n"
                    '  File "/usr/local/lib/python3.11/site-packages/httpx/_transports/default.py", line 101, in map_httpcore_exceptions\n'  # noqa: E501
                    "    yield\n"
                    "httpcore.ReadTimeout: timed out\n\nThe above exception was the direct cause of the following exception:\n\n"  # noqa: E501
                    '  File "/usr/local/lib/python3.11/site-packages/qdrant_client/http/api_client.py", line 112, in send_inner\n'  # noqa: E501
                    "    raise ResponseHandlingException(e)\n"
                    "qdrant_client.http.exceptions.ResponseHandlingException: timed out"
                )
                p.logs.add(
                    ecs(
                        t2,
                        f"ERROR rag.retrieval: vector search failed after 3 attempts collection=kb-articles-v3 "
                        f"url={QDRANT}/collections/kb-articles-v3/points/query elapsed=15.2s",
                        src,
                        level="error",
                        error_type="qdrant_client.http.exceptions.ResponseHandlingException",
                        error_message="timed out",
                        stack=stack,
                    )
                )
                p.logs.add(
                    ecs(
                        t2 + timedelta(milliseconds=2),
                        uvicorn_access(p.ids.client("10.152.30"), "POST", "/v1/answer", 424),
                        src,
                        level="info",
                        status=424,
                    )
                )
    for i in range(c.n - 1):
        minute = c.at(i)
        for code, series, flag, details, dur in (
            (424, t424, "-", "via_upstream", 15300),
            (504, t504, "UT", "response_timeout", 30000),
        ):
            for _ in range(min(2, int(series[i + 1]))):
                ts = p.ids.within(minute, max(0.0, (onset - minute).total_seconds() + 16))
                m = rng.choice(rfleet.members)
                line = envoy_gateway_access(
                    ts,
                    status=code,
                    flags=flag,
                    details=details,
                    duration_ms=dur + rng.randint(0, 400),
                    upstream=f"{m.ip}:8080",
                    cluster=cluster,
                    route=route,
                    authority="kb.example.com",
                    client=p.ids.ip("10.152.40"),
                    user_agent="kb-web/3.22.0",
                    request_id=p.ids.request_id(),
                    bytes_sent=64 if code == 424 else 24,
                )
                p.logs.add(ecs(ts, line, gw, level="info", status=code))
        if i % 4 == 0:
            ts = p.ids.within(minute)
            m = rng.choice(rfleet.members)
            line = envoy_gateway_access(
                ts,
                status=200,
                duration_ms=int(1000 * rng.lognormvariate(1.05, 0.4)),
                upstream=f"{m.ip}:8080",
                cluster=cluster,
                route=route,
                authority="kb.example.com",
                client=p.ids.ip("10.152.40"),
                user_agent="kb-web/3.22.0",
                request_id=p.ids.request_id(),
            )
            p.logs.add(ecs(ts, line, gw, level="info", status=200))

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(vfleet.objects())
    p.objects.extend(rfleet.objects())
    p.objects.append(
        k8s.httproute(
            name="kb-answer",
            namespace=ns,
            gateway="kb-gw",
            gateway_namespace="kb-edge",
            hostnames=["kb.example.com"],
            backends=[(rw.name, 8080, 1)],
            created=p.ago(days=200),
            path="/v1/answer",
            timeouts={"request": "30s"},
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in cpu_nodes)
    p.record_gpus(vfleet.gpu_series())
    p.expect("infrastructure", "DEP_VECTOR_DB")
    p.notes["onset"] = iso(onset)
    return p
