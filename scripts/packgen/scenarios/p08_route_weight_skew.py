"""Routing imbalance: an HTTPRoute change skews the backend weights from 50/50 to 90/10.

Two single-replica vLLM pools serve the same model behind one HTTPRoute (Contour). At 10:21:30
the route is re-applied with weights 90/10: pool A's engine queue fills, its admission sidecar
starts rejecting with 429 ("engine queue full"), while pool B idles at ~20 % GPU. vLLM itself
logs no error; the 429s only exist on one upstream cluster at the gateway.
"""

from __future__ import annotations

import json
from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import rate_ratio, sum_codes, threshold_alert
from ..engines import src_of, vllm_access, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs, envoy_default_access
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, step
from ..traffic import node_timeline

NAME = "httproute-weight-skew-429"
ENGINE = "vLLM 0.11.1 behind Contour (Envoy) with an admission sidecar"
ENVOY_IP = "10.88.4.19"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-07-22T10:45:00Z",
        namespace="translate-svc",
        seed=808,
        description="Document translation API throws 429s although half of the GPU capacity is idle.",
    )
    c, rng = p.clock, p.rng
    ns = "translate-svc"
    t_change = p.t("10:21:30")
    k = c.idx(t_change)

    nodes = {}
    for name, ip in (
        ("gke-translate-a3-pool-5c1e2a7b-pq3m", "10.88.0.21"),
        ("gke-translate-a3-pool-5c1e2a7b-vz8d", "10.88.0.22"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="europe-west4-b",
            instance_type="a3-highgpu-8g",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=f"10.88.{len(nodes) + 1}.0/24",
            kernel="6.1.100+",
            os_image="Container-Optimized OS from Google",
            kubelet_version="v1.31.3-gke.1162000",
            runtime="containerd://1.7.24",
        )
    names = list(nodes)
    args = [
        "--model",
        "/models/google/gemma-3-27b-it",
        "--served-model-name",
        "translate-gemma-27b",
        "--max-model-len",
        "16384",
        "--max-num-seqs",
        "64",
        "--gpu-memory-utilization",
        "0.9",
        "--enable-prefix-caching",
    ]
    guard = {
        "name": "llm-guard",
        "image": "registry.translate.example.com/platform/llm-guard:1.6.2",
        "args": [
            "--upstream=http://127.0.0.1:8000",
            "--listen=:8080",
            "--max-waiting=48",
            "--metrics-url=http://127.0.0.1:8000/metrics",
        ],
        "ports": [{"containerPort": 8080, "name": "guarded", "protocol": "TCP"}],
        "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
    }
    pools = {}
    for j, pool in enumerate(("a", "b")):
        name = f"vllm-gemma3-27b-{pool}"
        rev = p.revision(
            3,
            p.ago(days=11, hours=j),
            "vllm/vllm-openai:v0.11.1",
            args,
            replicas=1,
            change_cause="gemma-3-27b-it translate prompt v2",
        )
        w = k8s.Workload(
            name=name,
            namespace=ns,
            container="vllm",
            port=8000,
            labels={"app": "translate-gemma", "pool": pool},
            revisions=[rev],
            pods=[],
            created=p.ago(days=40),
            replicas=1,
            readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
            uid=k8s.new_uid(rng),
            sidecars=[guard],
            service_target="guarded",
            volumes=[{"name": "models", "persistentVolumeClaim": {"claimName": f"gemma-weights-{pool}"}}],
            volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
            cluster_ip=f"34.118.{231 + j}.{40 + j}",
        )
        fleet = Fleet(p, w, job=name, model="translate-gemma-27b")
        node, devs = nodes[names[j]]
        m = fleet.add(
            rev,
            node,
            [devs[3 + j]],
            f"10.88.{j + 1}.{60 + j * 11}",
            created=rev.created,
            rpm=400,
            prompt_len=1400,
            gen_len=520,
            ttft=0.22,
            itl=0.029,
            kv=0.37,
            util=74,
            fb_used=74_800,
        )
        pools[pool] = (w, fleet, m)

    # --- the skew --------------------------------------------------------------------------------------------
    total = noisy(flat(c, 800.0), rng, 0.03)
    share_a = step(c, t_change, 0.5, 0.9)
    capacity = 468.0
    rejected = flat(c, 0.0)
    for i in range(c.n):
        offered_a = total[i] * share_a[i]
        accepted = min(offered_a, capacity + rng.uniform(-10, 10))
        pools["a"][2].rep.codes[200][i] = float(round(accepted))
        rejected[i] = float(round(offered_a - accepted))
        pools["b"][2].rep.codes[200][i] = float(round(total[i] * (1 - share_a[i])))
    ra, rb = pools["a"][2].rep, pools["b"][2].rep
    hot = step(c, t_change + timedelta(seconds=40), 0.0, 1.0)
    ra.running = Series(64.0 if hot[i] else v for i, v in enumerate(ra.running))
    ra.waiting = Series(float(rng.randint(43, 48)) if hot[i] else 0.0 for i in range(c.n))
    ra.kv = Series(
        min(0.96, v + 0.52 * hot[i] + rng.uniform(-0.01, 0.01) * hot[i]) for i, v in enumerate(ra.kv)
    )
    ra.ttft = Dist(noisy(flat(c, 0.22) + hot * 4.1, rng, 0.07), 0.6)
    ra.itl = Dist(noisy(flat(c, 0.029) + hot * 0.011, rng, 0.04), 0.22)
    rb.running = Series(float(round(v * (0.2 if i >= k else 1.0))) for i, v in enumerate(rb.running))
    rb.kv = Series(v * (0.25 if i >= k else 1.0) for i, v in enumerate(rb.kv))
    rb.ttft = Dist(noisy(flat(c, 0.22) - hot * 0.08, rng, 0.06), 0.5)
    for g in pools["a"][2].gpus:
        g.util = Series(float(min(99, round(v + 22 * hot[i]))) for i, v in enumerate(g.util))
    for g in pools["b"][2].gpus:
        g.util = Series(float(round(v * (0.27 if i >= k else 1.0))) for i, v in enumerate(g.util))
        g.power = Series(round(v * (0.45 if i >= k else 1.0), 3) for i, v in enumerate(g.power))

    # --- metrics -----------------------------------------------------------------------------------------
    reps = [ra, rb]
    ex.vllm(p.om, reps, itl=False)
    for pool in ("a", "b"):
        m = pools[pool][2]
        lab = {
            "instance": f"{m.ip}:8080",
            "job": f"{pools[pool][0].name}-guard",
            "namespace": ns,
            "pod": m.name,
            "reason": "engine_queue_full",
        }
        inc = rejected if pool == "a" else flat(c, 0.0)
        p.om.counter(
            "llm_guard_rejected_requests",
            "Requests the admission sidecar rejected with 429, by reason.",
            lab,
            inc,
            initial=float(rng.randint(0, 40)),
        )
    ex.dcgm(p.om, [g for pool in pools.values() for g in pool[2].gpus])
    ex.ksm_pods(p.om, [pool[2].timeline for pool in pools.values()])
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    for pool in ("a", "b"):
        ex.ksm_deployment(p.om, namespace=ns, name=pools[pool][0].name, spec=flat(c, 1), available=flat(c, 1))
    clusters = {
        f"{ns}/vllm-gemma3-27b-a/8000/da39a3ee5e": {200: ra.codes[200], 429: rejected},
        f"{ns}/vllm-gemma3-27b-b/8000/da39a3ee5e": {200: rb.codes[200]},
    }
    envoy_pod = "envoy-translate-gw-6b8f9c7d54-7xk2p"
    ex.envoy(p.om, clusters, gateway_namespace="projectcontour", gateway_pod=envoy_pod, job="contour-envoy")
    all_codes = {200: ra.codes[200] + rb.codes[200], 429: rejected}
    ratio = rate_ratio(rejected, sum_codes(all_codes, c.n))
    sel = f'envoy_cluster_name=~"{ns}/vllm-gemma3-27b-.*"'
    threshold_alert(
        p,
        expr=(
            f'sum(rate(envoy_cluster_upstream_rq{{envoy_response_code="429",{sel}}}[5m])) / '
            f"sum(rate(envoy_cluster_upstream_rq{{{sel}}}[5m])) > 0.05"
        ),
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=3,
        labels={
            "alertname": "TranslateLLMThrottled",
            "namespace": ns,
            "route": "translate-gemma",
            "model": "translate-gemma-27b",
            "severity": "page",
            "team": "translation-platform",
        },
        summary="translate-gemma: more than 5% of requests throttled (429)",
        description="Upstream 429 ratio on the translate-gemma backends is above 5%; callers see Too Many Requests.",
        prometheus="http://prometheus.translate-observability.svc:9090",
        alertmanager="http://alertmanager.translate-observability.svc:9093",
        value_format="{:.3f}",
        runbook="https://translate.example.com/runbooks/throttling",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for pool in ("a", "b"):
        m = pools[pool][2]
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=["127.0.0.1"], every=2)
        vllm_stats(p, m, every=2)
    ma = pools["a"][2]
    gsrc = Source(pools["a"][0].name, ns, ma.name, ma.node.name, "llm-guard")
    envoy = Source("contour-envoy", "projectcontour", envoy_pod, names[0], "envoy")
    for i in range(c.n - 1):
        minute = c.at(i)
        n_rej = int(rejected[i + 1])
        for _ in range(min(3, n_rej)):
            ts = p.ids.within(minute)
            waiting = rng.randint(48, 52)
            p.logs.add(
                ecs(
                    ts,
                    f"{iso(ts, ms=True)} WARN llm-guard rejecting request: engine queue full "
                    f"(vllm:num_requests_waiting={waiting} >= max_waiting=48) status=429 path=/v1/chat/completions",
                    gsrc,
                    level="warn",
                    status=429,
                )
            )
            line = envoy_default_access(
                ts,
                status=429,
                duration_ms=rng.randint(2, 6),
                upstream=f"{ma.ip}:8080",
                client=p.ids.ip("10.88.200"),
                user_agent="doc-translator/4.2.1",
                request_id=p.ids.request_id(),
                authority="translate-llm.example.com",
                bytes_sent=71,
            )
            p.logs.add(ecs(ts, line, envoy, level="info", status=429))
        if i % 3 == 0:
            for pool in ("a", "b"):
                m = pools[pool][2]
                if m.rep.codes[200][i + 1] <= 0:
                    continue
                ts = p.ids.within(minute)
                dur = int(1000 * (m.rep.ttft.median[i] + 520 * m.rep.itl.median[i]) * rng.uniform(0.6, 1.6))
                line = envoy_default_access(
                    ts,
                    status=200,
                    duration_ms=dur,
                    upstream=f"{m.ip}:8080",
                    client=p.ids.ip("10.88.200"),
                    user_agent=rng.choice(["doc-translator/4.2.1", "OpenAI/Python 1.99.9"]),
                    request_id=p.ids.request_id(),
                    authority="translate-llm.example.com",
                )
                p.logs.add(ecs(ts, line, envoy, level="info", status=200))

    # --- objects -----------------------------------------------------------------------------------------
    for _, fleet, _ in pools.values():
        p.objects.extend(fleet.objects())
    applied = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"annotations": {}, "name": "translate-gemma", "namespace": ns},
        "spec": {
            "hostnames": ["translate-llm.example.com"],
            "parentRefs": [{"name": "translate-gw", "namespace": "projectcontour"}],
            "rules": [
                {
                    "backendRefs": [
                        {"name": "vllm-gemma3-27b-a", "port": 8000, "weight": 90},
                        {"name": "vllm-gemma3-27b-b", "port": 8000, "weight": 10},
                    ],
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                }
            ],
        },
    }
    p.objects.append(
        k8s.httproute(
            name="translate-gemma",
            namespace=ns,
            gateway="translate-gw",
            gateway_namespace="projectcontour",
            hostnames=["translate-llm.example.com"],
            backends=[("vllm-gemma3-27b-a", 8000, 90), ("vllm-gemma3-27b-b", 8000, 10)],
            created=p.ago(days=40),
            changed=t_change,
            generation=7,
            controller="projectcontour.io/gateway-controller",
            annotations={
                "kubectl.kubernetes.io/last-applied-configuration": json.dumps(applied, separators=(",", ":"))
            },
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.record_gpus([g for pool in pools.values() for g in pool[2].gpus])
    p.expect("operational", "GW_ROUTING", ("reroute", "httproute/translate-gemma"))
    p.notes["onset"] = iso(t_change)
    return p
