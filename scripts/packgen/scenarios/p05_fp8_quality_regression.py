"""Silent quality regression after a rollout added `--quantization fp8` (vLLM 0.11).

Every request still answers 200 and latency even improves a little, but the golden-set canary
that replays 50 contract-analysis cases every minute drops from ~98 % to ~60 % passing from
the minute the first fp8 pod takes traffic. The alert is the quality SLO on the canary's checks.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, rate_ratio, threshold_alert
from ..engines import src_of, vllm_access, vllm_startup, vllm_stats
from ..fleet import Fleet, rebalance
from ..logs import Source, ecs
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import node_timeline

NAME = "fp8-quantization-quality-regression"
ENGINE = "vLLM 0.11.0 (V1 metric names) + golden-set canary"
GW_IP = "10.60.0.35"
SUITE = "contracts-golden-v7"
CASES = [
    "indemnity-cap-012",
    "governing-law-004",
    "termination-notice-019",
    "assignment-consent-007",
    "liability-carveout-023",
    "renewal-term-031",
    "payment-terms-015",
    "confidentiality-survival-009",
    "ip-ownership-027",
    "force-majeure-002",
    "non-solicit-term-018",
    "audit-rights-011",
]


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-07-01T08:50:00Z",
        namespace="legal-ai",
        seed=505,
        description="Contract-review assistant: users report wrong clause numbers; dashboards are green.",
    )
    c, rng = p.clock, p.rng
    ns = "legal-ai"
    t_roll = p.t("08:14:20")

    nodes = {}
    for name, ip in (
        ("gpu-h200-a07", "10.60.7.17"),
        ("gpu-h200-a08", "10.60.7.18"),
        ("gpu-h200-a11", "10.60.7.21"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="fra-1a",
            instance_type="h200-sxm-8x",
            product="NVIDIA H200",
            pod_cidr=f"10.61.{len(nodes)}.0/24",
            kernel="6.8.0-45-generic",
            os_image="Ubuntu 24.04.1 LTS",
            kubelet_version="v1.31.4",
            runtime="containerd://1.7.24",
            driver="560.35.03",
        )
    names = list(nodes)
    args = [
        "--model",
        "/models/contracts-qwen2.5-32b-v3",
        "--served-model-name",
        "contracts-32b",
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.90",
        "--enable-prefix-caching",
    ]
    fp8 = [*args, "--quantization", "fp8", "--kv-cache-dtype", "fp8"]
    image = "vllm/vllm-openai:v0.11.0"
    rev3 = p.revision(3, p.ago(days=16), image, args, change_cause="contracts-qwen2.5-32b-v3 (LEGAL-208)")
    rev4 = p.revision(
        4, t_roll, image, fp8, replicas=2, change_cause="fp8 weights+kv for throughput (COST-311)"
    )
    w = k8s.Workload(
        name="vllm-contracts-32b",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "vllm-contracts-32b",
            "app.kubernetes.io/part-of": "contracts-assistant",
        },
        revisions=[rev3, rev4],
        pods=[],
        created=p.ago(days=75),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 3},
        startup={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 90},
        uid=k8s.new_uid(rng),
        memory="180Gi",
        memory_limit="220Gi",
        volumes=[{"name": "models", "persistentVolumeClaim": {"claimName": "legal-models-rwx"}}],
        volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
        cluster_ip="10.96.77.201",
    )
    fleet = Fleet(p, w, job="vllm-contracts-32b", model="contracts-32b")
    load = dict(prompt_len=5200, gen_len=420, util=74, fb_used=130_400, kv=0.36)
    sched = [(t_roll, p.t("08:15:50")), (p.t("08:15:54"), p.t("08:17:22"))]
    olds, news = [], []
    for j, (_, ready) in enumerate(sched):
        node, devs = nodes[names[j]]
        olds.append(
            fleet.add(
                rev3,
                node,
                [devs[3]],
                f"10.61.{j}.{44 + j}",
                deleted=ready + timedelta(seconds=4),
                rpm=95,
                ttft=0.31,
                itl=0.034,
                **load,
            )
        )
    for j, (created, ready) in enumerate(sched):
        node, devs = nodes[names[j + 1]]
        news.append(
            fleet.add(
                rev4,
                node,
                [devs[6]],
                f"10.61.{j + 1}.{90 + j}",
                created=created,
                ready_after=ready - created,
                rpm=95,
                ttft=0.25,
                itl=0.027,
                **load,
            )
        )
    for m in olds:
        m.info = None
    rebalance(fleet, noisy(flat(c, 190.0), rng, 0.04))

    # --- the golden-set canary -------------------------------------------------------------------------------
    fp8_share = Series(
        sum(1 for m in news if m.timeline.ready[i])
        / max(1, sum(1 for m in fleet.members if m.timeline.ready[i]))
        for i in range(c.n)
    )
    passed, failed, ratio_g = Series(), Series(), Series()
    for i in range(c.n):
        pr = 0.98 * (1 - fp8_share[i]) + 0.60 * fp8_share[i] + rng.gauss(0, 0.012)
        ok = max(0, min(50, round(50 * pr)))
        passed.append(float(ok))
        failed.append(float(50 - ok))
        ratio_g.append(ok / 50)
    canary_lab = {
        "instance": "10.61.0.71:9102",
        "job": "golden-canary",
        "namespace": ns,
        "pod": "golden-canary-6b9f7d4c8-k2w7d",
        "suite": SUITE,
        "target_model": "contracts-32b",
    }

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas())
    p.om.gauge(
        "llm_canary_pass_ratio",
        "Share of golden-set cases that passed in the last canary run.",
        canary_lab,
        ratio_g,
    )
    for result, inc in (("pass", passed), ("fail", failed)):
        p.om.counter(
            "llm_canary_checks",
            "Golden-set checks run by the canary, by result.",
            {**canary_lab, "result": result},
            inc,
            initial=inc[0] * 9000,
        )
    p.om.gauge(
        "llm_canary_last_run_timestamp_seconds",
        "Unix time of the last completed canary run.",
        canary_lab,
        Series(float(c.ts(i) - rng.randint(3, 20)) for i in range(c.n)),
    )
    ex.dcgm(p.om, fleet.gpu_series(), driver="560.35.03")
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    k0 = c.idx(t_roll)
    ex.ksm_deployment(
        p.om,
        namespace=ns,
        name=w.name,
        spec=flat(c, 2),
        available=fleet.ready_count().minimum(2),
        updated=Series(float(sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)),
        generation=Series(6.0 if i < k0 else 7.0 for i in range(c.n)),
    )
    cluster = f"httproute/{ns}/contracts-assistant/rule/0"
    gw_pod = "envoy-gw-legal-legal-gw-93be0a57-7c84d9f6b-2vtzn"
    ex.envoy(p.om, {cluster: fleet.codes()}, gateway_namespace="gw-legal", gateway_pod=gw_pod)
    fail_ratio = rate_ratio(failed, passed + failed, minutes=9)
    threshold_alert(
        p,
        expr=(
            f'sum(rate(llm_canary_checks_total{{result="fail",suite="{SUITE}"}}[10m])) / '
            f'sum(rate(llm_canary_checks_total{{suite="{SUITE}"}}[10m])) > 0.1'
        ),
        condition=[v > 0.1 for v in fail_ratio],
        value=fail_ratio,
        for_minutes=3,
        labels={
            "alertname": "GoldenSetQualitySLOBreach",
            "model": "contracts-32b",
            "namespace": ns,
            "service": "vllm-contracts-32b",
            "severity": "page",
            "slo": "quality",
            "suite": SUITE,
        },
        summary="contracts-32b: golden-set failure ratio above 10% (quality SLO)",
        description="More than 10% of the contracts golden-set checks failed over the last 10 minutes.",
        prometheus="http://thanos-query.monitoring.svc:9090",
        alertmanager="http://alertmanager.monitoring.svc:9093",
        value_format="{:.3f}",
        runbook="https://legal-ai.example.com/runbooks/quality-slo",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(proc="APIServer pid=1"), clients=[GW_IP], every=2)
        vllm_stats(p, m, every=2)
    non_default = (
        "{'model': '/models/contracts-qwen2.5-32b-v3', 'max_model_len': 32768, 'served_model_name': "
        "['contracts-32b'], 'gpu_memory_utilization': 0.9, 'quantization': 'fp8', 'kv_cache_dtype': 'fp8', "
        "'enable_prefix_caching': True}"
    )
    cfg = (
        "Qwen2ForCausalLM|model='/models/contracts-qwen2.5-32b-v3', speculative_config=None, "
        "tokenizer='/models/contracts-qwen2.5-32b-v3', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, "
        "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
        "data_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, "
        "kv_cache_dtype=fp8, device_config=cuda, served_model_name=contracts-32b, enable_prefix_caching=True, "
        "chunked_prefill_enabled=True"
    )
    for m in news:
        vllm_startup(
            p,
            m,
            version="0.11.0",
            model_path="/models/contracts-qwen2.5-32b-v3",
            served="contracts-32b",
            non_default=non_default,
            engine_config=cfg,
            weights_gib=33.18,
            kv_gib=86.4,
            kv_tokens=1_415_552,
            max_len=32768,
            start=m.created,
        )
    canary = Source("golden-canary", ns, "golden-canary-6b9f7d4c8-k2w7d", names[0], "canary")
    for i in range(1, c.n):
        ts = c.at(i) - timedelta(seconds=rng.uniform(3, 20))
        ok = int(passed[i])
        level = "info" if ok >= 46 else "warn"
        msg = (
            f"run complete suite={SUITE} target=http://vllm-contracts-32b.{ns}.svc:8000 model=contracts-32b "
            f"passed={ok}/50 pass_ratio={ok / 50:.2f} http_errors=0 p50_latency_s={rng.uniform(7.5, 9.5):.2f}"
        )
        p.logs.add(ecs(ts, msg, canary, level=level))
        for case in rng.sample(CASES, min(len(CASES), 50 - ok, 3)):
            got, want = rng.choice(
                [
                    ('"14.2"', '"14.2(b)"'),
                    ('"30 days"', '"thirty (30) business days"'),
                    ('"New York"', '"Delaware"'),
                    ('"USD 1,000,000"', '"USD 10,000,000"'),
                    ('"none"', '"Section 9.3"'),
                ]
            )
            p.logs.add(
                ecs(
                    ts - timedelta(seconds=rng.uniform(1, 40)),
                    f"case {SUITE}/{case} FAILED check=exact_clause expected={want} got={got} status=200",
                    canary,
                    level="warn",
                )
            )
    gw = Source("envoy-gateway", "gw-legal", gw_pod, names[2], "envoy")
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/contracts-assistant/rule/0/match/0/contracts_legal_example_com",
        authority="contracts.legal.example.com",
        src=gw,
        clients="10.60.100",
        every=4,
        duration=lambda code, i: int(1000 * rng.lognormvariate(2.2, 0.35)),
    )

    # --- events ------------------------------------------------------------------------------------------
    ev = []
    old_rs, new_rs = f"{w.name}-{rev3.hash}", f"{w.name}-{rev4.hash}"
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

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    canary_dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "golden-canary",
            "namespace": ns,
            "labels": {"app": "golden-canary"},
            "creationTimestamp": iso(p.ago(days=60)),
            "annotations": {"deployment.kubernetes.io/revision": "4"},
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "golden-canary"}},
            "template": {
                "metadata": {"labels": {"app": "golden-canary"}},
                "spec": {
                    "containers": [
                        {
                            "name": "canary",
                            "image": "registry.legal.example.com/ml/golden-canary:2.3.0",
                            "args": [
                                "--suite",
                                SUITE,
                                "--target",
                                f"http://vllm-contracts-32b.{ns}.svc:8000",
                                "--model",
                                "contracts-32b",
                                "--interval",
                                "60s",
                            ],
                            "ports": [{"containerPort": 9102, "name": "metrics"}],
                        }
                    ]
                },
            },
        },
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1},
    }
    p.objects.append(canary_dep)
    p.objects.append(
        k8s.httproute(
            name="contracts-assistant",
            namespace=ns,
            gateway="legal-gw",
            gateway_namespace="gw-legal",
            hostnames=["contracts.legal.example.com"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=75),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.extend(ev)
    p.record_gpus([g for m in news for g in m.gpus])
    p.expect("model_config", "MOD_QUALITY_REGRESSION", ("rollback_deployment", f"deployment/{w.name}"))
    p.notes["onset"] = iso(sched[0][1])
    return p
