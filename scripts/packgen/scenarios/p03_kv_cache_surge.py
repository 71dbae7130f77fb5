"""KV-cache exhaustion under a traffic surge, no rollout (vLLM 0.6, the old metric names).

A new tenant's CRM sync starts sending long support conversations at 18:44; arrivals more than
double, the KV cache of every replica fills to ~99 %, the V0 scheduler preempts sequences
(`... is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space`),
the waiting queue grows and time per output token triples. All responses are still 200.
Metric names are the V0 ones: `vllm:gpu_cache_usage_perc`, `vllm:time_per_output_token_seconds`.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, hist_quantile, threshold_alert
from ..engines import src_of, vllm_access, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs, vllm_v0_line
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp
from ..traffic import node_timeline

NAME = "kv-cache-preemption-traffic-surge"
ENGINE = "vLLM 0.6.6 (old V0 names: gpu_cache_usage_perc, time_per_output_token_seconds)"
GW_IP = "10.244.0.19"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-06-16T19:05:00Z",
        namespace="support-bot",
        seed=303,
        description="Customer-support bot slows down in the evening; no deploy since last week.",
    )
    c, rng = p.clock, p.rng
    ns = "support-bot"
    surge0, surge1 = p.t("18:44:00"), p.t("18:49:30")

    nodes = {}
    for idx, ip in ((2, "10.224.0.6"), (4, "10.224.0.8"), (5, "10.224.0.9")):
        name = f"aks-gpua100-28391047-vmss00000{idx}"
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="eastus2-2",
            instance_type="Standard_ND96asr_v4",
            product="NVIDIA A100-SXM4-40GB",
            pod_cidr=f"10.244.{len(nodes) + 1}.0/24",
            kernel="5.15.0-1079-azure",
            os_image="Ubuntu 22.04.5 LTS",
            kubelet_version="v1.29.9",
            runtime="containerd://1.7.20-1",
            driver="535.183.01",
        )
    names = list(nodes)
    args = [
        "--model",
        "/mnt/models/llama-3.1-8b-support-v14",
        "--served-model-name",
        "llama-3.1-8b-support",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.88",
        "--max-num-seqs",
        "256",
        "--enable-chunked-prefill",
        "--disable-log-requests",
    ]
    rev8 = p.revision(8, p.ago(days=23), "vllm/vllm-openai:v0.6.4.post1", args, change_cause="v14 weights")
    rev9 = p.revision(
        9,
        p.ago(days=9, hours=3),
        "vllm/vllm-openai:v0.6.6.post1",
        args,
        replicas=3,
        change_cause="bump vLLM to 0.6.6.post1",
    )
    w = k8s.Workload(
        name="vllm-llama31-8b-support",
        namespace=ns,
        container="vllm-openai",
        port=8000,
        labels={"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": "llama31-8b-support"},
        revisions=[rev8, rev9],
        pods=[],
        created=p.ago(days=120),
        replicas=3,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        liveness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 30, "failureThreshold": 5},
        uid=k8s.new_uid(rng),
        memory="96Gi",
        memory_limit="120Gi",
        cpu="12",
        volumes=[{"name": "models", "persistentVolumeClaim": {"claimName": "support-models-azurefile"}}],
        volume_mounts=[{"name": "models", "mountPath": "/mnt/models", "readOnly": True}],
        cluster_ip="10.0.148.22",
    )
    fleet = Fleet(p, w, job="support-bot/vllm", model="llama-3.1-8b-support", service="")
    for j, name in enumerate(names):
        node, devs = nodes[name]
        fleet.add(
            rev9,
            node,
            [devs[2 * j + 1]],
            f"10.244.{j + 1}.{17 + 9 * j}",
            created=rev9.created + timedelta(minutes=2 * j),
            rpm=150,
            prompt_len=2600,
            gen_len=380,
            ttft=0.28,
            itl=0.029,
            kv=0.43,
            util=71,
            fb_used=35_950,
        )

    surge = ramp(c, surge0, surge1, 1.0, 2.35, ease=True)
    load = ramp(c, surge0, surge1 + timedelta(minutes=3), 0.0, 1.0, ease=True)
    for m in fleet.members:
        r = m.rep
        offered = noisy(flat(c, 150.0) * surge, rng, 0.04)
        ceiling = 318 + rng.uniform(-12, 12)
        r.codes[200] = offered.minimum(ceiling).ints()
        r.kv = Series(
            min(0.995, r.kv[i] + (0.992 - r.kv[i]) * load[i] + rng.uniform(-0.004, 0.003)) for i in range(c.n)
        )
        r.running = Series(
            float(round(r.running[i] + (rng.uniform(74, 92) - r.running[i]) * load[i])) for i in range(c.n)
        )
        backlog, waiting = 0.0, []
        for i in range(c.n):
            backlog = max(0.0, backlog + offered[i] - r.codes[200][i])
            waiting.append(float(round(min(backlog, 160 + rng.uniform(-8, 8)))))
        r.waiting = Series(waiting)
        r.preempt = Series(
            max(0.0, load[i] * rng.uniform(22, 58) if load[i] > 0.55 else 0.0) for i in range(c.n)
        )
        r.itl = Dist(noisy(flat(c, 0.029) + load * 0.059, rng, 0.05), 0.22 + 0.13 * load[-1])
        r.ttft = Dist(noisy(flat(c, 0.28) + load * 8.5, rng, 0.08), 0.55 + 0.3 * load[-1])
        r.gen_len = r.gen_len * (1 + 0.04 * load)
        for g in m.gpus:
            g.util = Series(
                float(min(100, round(g.util[i] + (97.5 - g.util[i]) * load[i] + rng.uniform(-1, 1))))
                for i in range(c.n)
            )
            g.power = (g.util * 3.9 + 62).map(lambda v: round(v, 3))
            g.fb_used = noisy(flat(c, 36_020.0), rng, 0.001).map(round)

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), v0=True)
    ex.dcgm(p.om, fleet.gpu_series(), driver="535.183.01")
    ex.ksm_pods(p.om, fleet.timelines())
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in nodes.items()]
    )
    ex.ksm_deployment(p.om, namespace=ns, name=w.name, spec=flat(c, 3), available=flat(c, 3))
    cluster = f"httproute/{ns}/support-chat/rule/0"
    gw_pod = "envoy-edge-gateways-public-gw-5d2b91e0-7f6c5d8b9-lm4vq"
    ex.envoy(p.om, {cluster: fleet.codes()}, gateway_namespace="edge-gateways", gateway_pod=gw_pod)

    tpot = hist_quantile(
        0.95,
        ex.V0_TPOT,
        [
            (
                Series(max(0.0, g - o) for g, o in zip(m.rep.gen_tokens(), m.rep.ok(), strict=True)),
                m.rep.itl,
                None,
            )
            for m in fleet.members
        ],
    )
    threshold_alert(
        p,
        expr=(
            "histogram_quantile(0.95, sum by (le) (rate(vllm:time_per_output_token_seconds_bucket"
            f'{{model_name="llama-3.1-8b-support",namespace="{ns}"}}[5m]))) > 0.08'
        ),
        condition=[v > 0.08 for v in tpot],
        value=tpot,
        for_minutes=3,
        labels={
            "alertname": "SupportBotTimePerOutputTokenHigh",
            "model_name": "llama-3.1-8b-support",
            "namespace": ns,
            "service": "vllm-llama31-8b-support",
            "severity": "page",
            "slo": "latency",
        },
        summary="support-bot: p95 time per output token above 80ms",
        description="p95 time per output token of llama-3.1-8b-support has been above 80ms for 5 minutes; "
        "answers stream visibly slower.",
        prometheus="http://kube-prometheus-stack-prometheus.observability:9090",
        alertmanager="http://kube-prometheus-stack-alertmanager.observability:9093",
        value_format="{:.3f}",
        runbook="https://confluence.example.com/display/SUP/LLM+latency",
    )

    # --- logs --------------------------------------------------------------------------------------------
    preempted_total = {m.name: 0 for m in fleet.members}
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(proc=None), clients=[GW_IP], every=2)
        vllm_stats(p, m, v0=True, every=2)
        src = src_of(m)
        for i in range(1, c.n):
            n_pre = int(m.rep.preempt[i])
            if not n_pre:
                continue
            for _ in range(min(3, n_pre)):
                preempted_total[m.name] += max(1, n_pre // 3)
                ts = p.ids.within(c.at(i - 1))
                msg = (
                    f"Sequence group {p.ids.chatcmpl()} is preempted by PreemptionMode.RECOMPUTE mode because there "
                    "is not enough KV cache space. This can affect the end-to-end performance. Increase "
                    "gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. "
                    f"total_num_cumulative_preemption={preempted_total[m.name]}"
                )
                p.logs.add(
                    ecs(
                        ts,
                        vllm_v0_line(ts, "WARNING", "scheduler.py:1560", msg),
                        src,
                        level="warn",
                        logger="vllm.core.scheduler",
                    )
                )
    gw = Source("envoy-gateway", "edge-gateways", gw_pod, names[0], "envoy")

    def agent(i: int) -> str:
        heavy = c.at(i) >= surge0 and rng.random() < 0.6
        return (
            "acme-crm-sync/2.4.1 (+ticket-backfill)"
            if heavy
            else rng.choice(["support-widget/5.12.0", "OpenAI/Python 1.58.1"])
        )

    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/support-chat/rule/0/match/0/support_example_com",
        authority="support-llm.example.com",
        src=gw,
        clients="10.224.12",
        every=4,
        agent=agent,
        per_minute=1,
        duration=lambda code, i: int(
            1000 * (0.28 + 8.5 * load[i] + 380 * (0.029 + 0.059 * load[i])) * rng.uniform(0.6, 1.5)
        ),
    )

    # --- objects -----------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="support-chat",
            namespace=ns,
            gateway="public-gw",
            gateway_namespace="edge-gateways",
            hostnames=["support-llm.example.com"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=120),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.record_gpus(fleet.gpu_series())
    p.expect(
        "inference_engine",
        "ENG_KV_CACHE",
        ("add_replica", f"deployment/{w.name}"),
        ("reroute", "httproute/support-chat"),
    )
    p.notes["onset"] = iso(surge0)
    return p
