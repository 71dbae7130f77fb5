"""A scale-up stalls on loading TensorRT-LLM engines from S3 (Triton + TensorRT-LLM backend).

Market-open traffic climbs from 09:02; at 09:05 the HPA asks for four replicas instead of two.
The new pods sync ~70 GiB of engine files from S3 before starting `tritonserver`, and S3
throttles and times out (`SlowDown`, `Read timeout on endpoint URL`): after 34 minutes they are
still unready (readiness probe: connection refused). Meanwhile the two serving replicas hit
their queue limit and reject the overflow with 503.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, sum_codes, threshold_alert
from ..fleet import Fleet
from ..logs import Source, ecs, envoy_gateway_access, glog
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp, step
from ..traffic import node_timeline

NAME = "triton-trtllm-slow-engine-load-s3"
ENGINE = "Triton 25.04 + TensorRT-LLM backend"
BUCKET = "s3://fin-ml-engines/llama-3.3-70b-fp8-tp2/v7"
ENDPOINT = "https://fin-ml-engines.s3.eu-central-1.amazonaws.com/llama-3.3-70b-fp8-tp2/v7"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-08-26T09:40:00Z",
        namespace="fin-chat",
        seed=1212,
        description="Financial assistant sheds requests with 503 since market open although it scaled up.",
    )
    c, rng = p.clock, p.rng
    ns = "fin-chat"
    t_scale = p.t("09:05:40")

    nodes = {}
    for name, ip in (
        ("ip-10-31-40-12.eu-central-1.compute.internal", "10.31.40.12"),
        ("ip-10-31-41-87.eu-central-1.compute.internal", "10.31.41.87"),
        ("ip-10-31-42-150.eu-central-1.compute.internal", "10.31.42.150"),
        ("ip-10-31-43-9.eu-central-1.compute.internal", "10.31.43.9"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone=f"eu-central-1{'abca'[len(nodes)]}",
            instance_type="p5.48xlarge",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=f"10.31.{40 + len(nodes)}.0/24",
            kernel="6.1.119-129.201.amzn2023.x86_64",
            os_image="Amazon Linux 2023.6.20250115",
            kubelet_version="v1.31.4-eks-aeac579",
            driver="550.127.08",
        )
    names = list(nodes)
    script = (
        f"until aws s3 sync {BUCKET}/ /engines/llama33 --no-progress --only-show-errors; do "
        'echo "[engine-sync] sync failed (exit $?), retrying in 30s"; sleep 30; done && '
        "exec tritonserver --model-repository=/engines/llama33/triton_model_repo --http-port=8000 "
        "--grpc-port=8001 --metrics-port=8002 --log-verbose=0"
    )
    rev = p.revision(
        14,
        p.ago(days=10),
        "nvcr.io/nvidia/tritonserver:25.04-trtllm-python-py3",
        ["-c", script],
        replicas=4,
        command=["/bin/bash"],
        change_cause="llama-3.3-70b fp8 tp2 engines v7",
        env=[{"name": "AWS_REGION", "value": "eu-central-1"}, {"name": "AWS_MAX_ATTEMPTS", "value": "5"}],
    )
    w = k8s.Workload(
        name="triton-llama33-70b",
        namespace=ns,
        container="triton",
        port=8000,
        metrics_port=8002,
        labels={"app.kubernetes.io/name": "triton-llama33-70b", "app.kubernetes.io/component": "inference"},
        revisions=[rev],
        pods=[],
        created=p.ago(days=90),
        replicas=4,
        gpus=2,
        memory="300Gi",
        memory_limit="360Gi",
        cpu="32",
        uid=k8s.new_uid(rng),
        cluster_ip="172.20.61.200",
        readiness={
            "httpGet": {"path": "/v2/health/ready", "port": 8000},
            "periodSeconds": 10,
            "failureThreshold": 3,
        },
        startup={
            "httpGet": {"path": "/v2/health/ready", "port": 8000},
            "periodSeconds": 10,
            "failureThreshold": 240,
        },
        volumes=[
            {"name": "engines", "emptyDir": {"sizeLimit": "200Gi"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}},
        ],
        volume_mounts=[
            {"name": "engines", "mountPath": "/engines"},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        extra_ports=[{"containerPort": 8001, "name": "grpc", "protocol": "TCP"}],
        progressing=("True", "ReplicaSetUpdated", t_scale),
        generation=32,
    )
    fleet = Fleet(p, w, job="triton-llama33-70b", model="ensemble")
    olds = []
    for j in range(2):
        node, devs = nodes[names[j]]
        olds.append(
            fleet.add(
                rev,
                node,
                [devs[2], devs[3]],
                f"10.31.{40 + j}.{101 + j}",
                rpm=150,
                prompt_len=1800,
                gen_len=350,
                ttft=0.4,
                itl=0.028,
                kv=0.35,
                util=68,
                fb_used=78_100,
            )
        )
    news = []
    for j in range(2):
        node, devs = nodes[names[2 + j]]
        m = fleet.add(
            rev,
            node,
            [devs[4], devs[5]],
            f"10.31.{42 + j}.{33 + j}",
            created=t_scale + timedelta(seconds=1 + j),
            ready_after=timedelta(hours=2),
            rpm=150,
            util=0,
            fb_used=0,
        )
        assert m.info is not None
        m.info.ready = False
        m.info.ready_since = m.created + timedelta(seconds=4)
        m.info.running_since = m.created + timedelta(seconds=4)
        news.append(m)

    # --- load vs capacity ------------------------------------------------------------------------------------
    offered = noisy(ramp(c, p.t("09:02:00"), p.t("09:24:00"), 300, 740), rng, 0.03)
    capacity = 248.0
    rejected_total = flat(c, 0.0)
    for i in range(c.n):
        per = offered[i] / 2
        for m in olds:
            served = min(per, capacity + rng.uniform(-6, 6))
            m.rep.codes[200][i] = float(round(served))
            rej = float(round(max(0.0, per - served)))
            m.rep.codes.setdefault(503, flat(c, 0.0))[i] = rej
            rejected_total[i] += rej
    load = Series(min(1.0, max(0.0, (offered[i] / 2 - 150) / (capacity - 150))) for i in range(c.n))
    sat = Series(1.0 if offered[i] / 2 > capacity else 0.0 for i in range(c.n))
    for m in olds:
        r = m.rep
        r.served_s = r.ok()
        r.running = Series(float(round(34 + 60 * load[i] + rng.uniform(-3, 3))) for i in range(c.n))
        r.waiting = Series(
            float(round(128 * sat[i] - rng.uniform(0, 3) * sat[i] + 6 * load[i] * (1 - sat[i])))
            for i in range(c.n)
        )
        r.kv = Series(min(0.97, 0.35 + 0.58 * load[i] + rng.uniform(-0.01, 0.01)) for i in range(c.n))
        r.queue = Dist(noisy(flat(c, 0.004) + sat * 7.5 + load * 0.4, rng, 0.08), 0.7)
        r.e2e = Dist(Series(0.4 + 0.028 * 350 * (1 + 0.35 * load[i]) + 7.5 * sat[i] for i in range(c.n)), 0.5)
        for g in m.gpus:
            g.util = Series(
                float(min(99, round(68 + 29 * load[i] + rng.uniform(-1.5, 1.5)))) for i in range(c.n)
            )
            g.power = (g.util * 6.4 + 80).map(lambda v: round(v, 3))

    # --- metrics -----------------------------------------------------------------------------------------
    gpu_map = {m.name: m.gpus for m in fleet.members}
    ex.triton(p.om, [m.rep for m in fleet.members], gpu_map)
    ex.dcgm(p.om, fleet.gpu_series(), driver="550.127.08")
    for m in news:
        for i in range(c.n):
            m.timeline.ready[i] = False
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    k_scale = c.idx(t_scale)
    ex.ksm_deployment(
        p.om,
        namespace=ns,
        name=w.name,
        spec=step(c, t_scale, 2, 4),
        available=flat(c, 2),
        generation=Series(31.0 if i < k_scale else 32.0 for i in range(c.n)),
    )
    cluster = f"httproute/{ns}/fin-assistant/rule/0"
    codes = fleet.codes()
    gw_pod = "envoy-fin-edge-fin-gw-0b4d8e3a-6c9f7b5d8-wq2hx"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="fin-edge", gateway_pod=gw_pod)
    ratio = rate_ratio(rejected_total, sum_codes(codes, c.n))
    sel = f'envoy_cluster_name="{cluster}"'
    threshold_alert(
        p,
        expr=(
            f'sum(rate(envoy_cluster_upstream_rq_xx{{{sel},envoy_response_code_class="5"}}[5m])) / '
            f"sum(rate(envoy_cluster_upstream_rq_xx{{{sel}}}[5m])) > 0.05"
        ),
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "FinAssistant5xxRatioHigh",
            "namespace": ns,
            "route": "fin-assistant",
            "service": "triton-llama33-70b",
            "model": "ensemble",
            "severity": "page",
            "team": "fin-ml",
        },
        summary="fin-assistant: more than 5% of requests fail with 5xx",
        description="The fin-assistant route answers 5xx to more than 5% of requests.",
        prometheus="http://prometheus.fin-observability.svc:9090",
        alertmanager="http://alertmanager.fin-observability.svc:9093",
        value_format="{:.3f}",
        runbook="https://fin.example.com/runbooks/llm-5xx",
    )

    # --- logs --------------------------------------------------------------------------------------------
    files = [
        ("tensorrt_llm/1/rank0.engine", 34.9),
        ("tensorrt_llm/1/rank1.engine", 34.9),
        ("tensorrt_llm/config.pbtxt", 0.0),
        ("preprocessing/1/tokenizer.json", 0.01),
    ]
    for m in news:
        src = Source(w.name, ns, m.name, m.node.name, "triton")
        t = m.created + timedelta(seconds=5)
        p.logs.add(ecs(t, f"[engine-sync] syncing {BUCKET}/ (69.8 GiB, 11 objects) to /engines/llama33", src))
        attempt = 1
        while t < p.as_of:
            dur = rng.uniform(75, 140) if attempt == 1 else rng.uniform(200, 380)
            fail_at = t + timedelta(seconds=dur)
            if fail_at >= p.as_of:
                break
            f, _ = files[rng.randint(0, 1)]
            if rng.random() < 0.55:
                msg = (
                    f"download failed: {BUCKET}/{f} to /engines/llama33/{f} An error occurred (SlowDown) when calling "
                    "the GetObject operation (reached max retries: 4): Please reduce your request rate."
                )
                etype = "botocore.exceptions.ClientError"
            else:
                part = rng.randint(180, 2200)
                msg = (
                    f"download failed: {BUCKET}/{f} to /engines/llama33/{f} Read timeout on endpoint URL: "
                    f'"{ENDPOINT}/{f}?partNumber={part}"'
                )
                etype = "botocore.exceptions.ReadTimeoutError"
            p.logs.add(
                ecs(
                    fail_at,
                    msg,
                    src,
                    level="error",
                    error_type=etype,
                    error_message=msg.split(" An error occurred ")[-1],
                )
            )
            p.logs.add(
                ecs(
                    fail_at + timedelta(milliseconds=200),
                    "[engine-sync] sync failed (exit 1), retrying in 30s",
                    src,
                    level="warn",
                )
            )
            got = rng.uniform(11, 19) * attempt
            p.logs.add(
                ecs(
                    fail_at + timedelta(milliseconds=260),
                    f"[engine-sync] attempt {attempt}: {min(69.8, got):.1f} GiB of 69.8 GiB present under "
                    f"/engines/llama33 after {(fail_at - m.created).total_seconds():.0f}s",
                    src,
                    level="info",
                )
            )
            t = fail_at + timedelta(seconds=30)
            attempt += 1
    triton_src = [Source(w.name, ns, m.name, m.node.name, "triton") for m in olds]
    for i in range(c.n - 1):
        if rejected_total[i + 1] <= 0:
            continue
        for n_log in range(len(olds)):
            if i % 2 != n_log % 2:
                continue
            ts = p.ids.within(c.at(i))
            detail = (
                "[TensorRT-LLM][ERROR] Maximum queue size of 128 has been reached, please try again "
                "later (/workspace/tensorrt_llm/cpp/tensorrt_llm/executor/executorImpl.cpp:1621)"
            )
            msg = glog(ts, "E", "model_instance_state.cc:1011", f'"Cannot process new request: {detail}"')
            p.logs.add(ecs(ts, msg, triton_src[n_log], level="error", error_message=detail))
    gw = Source("envoy-gateway", "fin-edge", gw_pod, names[0], "envoy")
    route = f"httproute/{ns}/fin-assistant/rule/0/match/0/assistant_fin_example_com"
    for i in range(c.n - 1):
        minute = c.at(i)
        for m in olds:
            for code, series in ((200, m.rep.codes[200]), (503, m.rep.codes[503])):
                n = 1 if code == 200 and i % 3 == 0 else (min(2, int(series[i + 1])) if code == 503 else 0)
                for _ in range(n):
                    ts = p.ids.within(minute)
                    dur = int(1000 * rng.lognormvariate(2.35, 0.35)) if code == 200 else rng.randint(1, 4)
                    line = envoy_gateway_access(
                        ts,
                        status=code,
                        duration_ms=dur,
                        upstream=f"{m.ip}:8000",
                        cluster=cluster,
                        route=route,
                        authority="assistant.fin.example.com",
                        client=p.ids.ip("10.31.200"),
                        user_agent="fin-assistant-web/7.3.0",
                        request_id=p.ids.request_id(),
                        bytes_sent=52 if code == 503 else 2300,
                        path="/v2/models/ensemble/generate",
                    )
                    p.logs.add(ecs(ts, line, gw, level="info", status=code))

    # --- events ------------------------------------------------------------------------------------------
    rs_name = f"{w.name}-{rev.hash}"
    ev = [
        k8s.event(
            namespace=ns,
            kind="HorizontalPodAutoscaler",
            name=w.name,
            uid=k8s.new_uid(rng),
            reason="SuccessfulRescale",
            message="New size: 4; reason: pods metric nv_inference_pending_request_count above target",
            first=t_scale - timedelta(milliseconds=80),
            warning=False,
            component="horizontal-pod-autoscaler",
            api_version="autoscaling/v2",
        ),
        k8s.event(
            namespace=ns,
            kind="Deployment",
            name=w.name,
            uid=w.uid,
            reason="ScalingReplicaSet",
            message=f"Scaled up replica set {rs_name} from 2 to 4",
            first=t_scale,
            warning=False,
            component="deployment-controller",
            api_version="apps/v1",
        ),
    ]
    for m in news:
        ev.append(
            k8s.event(
                namespace=ns,
                kind="ReplicaSet",
                name=rs_name,
                uid=rev.uid,
                reason="SuccessfulCreate",
                message=f"Created pod: {m.name}",
                first=m.created,
                warning=False,
                component="replicaset-controller",
                api_version="apps/v1",
            )
        )
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
                message='Container image "nvcr.io/nvidia/tritonserver:25.04-trtllm-python-py3" already present on machine',  # noqa: E501
                first=m.created + timedelta(seconds=2),
                warning=False,
                host=m.node.name,
                field_path="spec.containers{triton}",
            )
        )
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Started",
                message="Started container triton",
                first=m.created + timedelta(seconds=3),
                warning=False,
                host=m.node.name,
                field_path="spec.containers{triton}",
            )
        )
        probes = int((p.as_of - m.created).total_seconds() // 10) - 1
        ev.append(
            k8s.event(
                namespace=ns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Unhealthy",
                message=f'Startup probe failed: Get "http://{m.ip}:8000/v2/health/ready": dial tcp {m.ip}:8000: connect: connection refused',  # noqa: E501
                first=m.created + timedelta(seconds=13),
                last=p.as_of - timedelta(seconds=rng.randint(1, 9)),
                count=probes,
                host=m.node.name,
                field_path="spec.containers{triton}",
            )
        )

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="fin-assistant",
            namespace=ns,
            gateway="fin-gw",
            gateway_namespace="fin-edge",
            hostnames=["assistant.fin.example.com"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=90),
            path="/v2/models",
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.extend(ev)
    p.record_gpus(fleet.gpu_series())
    p.expect("infrastructure", "DEP_STORAGE")
    p.notes["onset"] = iso(t_scale)
    return p
