"""A GPU node stops reporting (kubelet stopped posting status); its vLLM pod drops out.

At 21:58:40 `gpu-l40s-node-07` goes silent: the node controller marks it Unknown/NotReady,
taints it unreachable, marks its pod not ready and, five minutes later, for deletion. The
replacement pod cannot be scheduled (no free `nvidia.com/gpu` elsewhere), so three replicas
carry the voice agent's evening peak: their queues grow and time to first token climbs.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, hist_quantile, threshold_alert
from ..engines import src_of, vllm_access, vllm_stats
from ..fleet import Fleet, rebalance
from ..logs import Source, ecs, envoy_gateway_access
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp
from ..traffic import node_timeline

NAME = "node-not-ready-kubelet-stopped"
ENGINE = "vLLM 0.10.2 (V1 metric names)"
GW_IP = "10.70.128.14"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-07-15T22:16:00Z",
        namespace="voice-agents",
        seed=707,
        description="Voice agents answer with long pauses during the evening peak.",
    )
    c, rng = p.clock, p.rng
    ns = "voice-agents"
    lost = p.t("21:58:40")
    marked = p.t("21:59:12")
    evicted = p.t("22:04:17")
    bad_name = "gpu-l40s-node-07"

    nodes = {}
    for n_node in (5, 6, 7, 8):
        name = f"gpu-l40s-node-{n_node:02d}"
        nodes[name] = p.gpu_node(
            name,
            ip=f"10.70.2.{40 + n_node}",
            zone="ams-colo-2",
            instance_type="sm-sys-421ge-l40s",
            product="NVIDIA L40S",
            pod_cidr=f"10.70.{128 + n_node}.0/24",
            cpu=128,
            memory_mi=1_048_576,
            kernel="6.8.0-47-generic",
            os_image="Ubuntu 24.04.1 LTS",
            kubelet_version="v1.30.6",
            runtime="containerd://1.7.22",
            driver="550.120",
        )
    names = list(nodes)
    args = [
        "--model",
        "/models/voice-agent-8b-v5",
        "--served-model-name",
        "voice-agent-8b",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.92",
        "--max-num-seqs",
        "64",
        "--enable-prefix-caching",
        "--enable-chunked-prefill",
    ]
    rev = p.revision(
        12,
        p.ago(days=6, hours=5),
        "vllm/vllm-openai:v0.10.2",
        args,
        replicas=4,
        change_cause="voice-agent-8b-v5",
    )
    w = k8s.Workload(
        name="vllm-voice-agent-8b",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "vllm-voice-agent-8b", "app.kubernetes.io/component": "llm"},
        revisions=[rev],
        pods=[],
        created=p.ago(days=50),
        replicas=4,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5},
        uid=k8s.new_uid(rng),
        memory="64Gi",
        memory_limit="96Gi",
        cpu="8",
        tolerations=[
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
            {
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
        ],
        volumes=[{"name": "models", "hostPath": {"path": "/mnt/nvme/models", "type": "Directory"}}],
        volume_mounts=[{"name": "models", "mountPath": "/models", "readOnly": True}],
        cluster_ip="10.70.64.21",
    )
    fleet = Fleet(p, w, job="voice-agents/vllm", model="voice-agent-8b", service="")
    members = {}
    for j, name in enumerate(names):
        node, devs = nodes[name]
        members[name] = fleet.add(
            rev,
            node,
            [devs[2 + j % 3]],
            f"10.70.{133 + j}.{15 + 7 * j}",
            created=rev.created + timedelta(minutes=2 * j),
            rpm=330,
            prompt_len=900,
            gen_len=70,
            ttft=0.16,
            itl=0.017,
            kv=0.38,
            util=79,
            fb_used=42_300,
        )
    bad = members[bad_name]
    good = [m for m in fleet.members if m is not bad]
    k_lost, k_mark = c.idx(lost), c.idx(marked)
    # the node is unreachable: nothing from it is scraped any more, its pod is marked not ready
    bad.rep.down([i >= k_lost for i in range(c.n)])
    for i in range(k_mark, c.n):
        bad.timeline.ready[i] = False
    for g in bad.gpus:
        g.present = [i < k_lost for i in range(c.n)]
    peak = noisy(ramp(c, c.start, p.as_of, 1180, 1390), rng, 0.03)
    rebalance(fleet, peak)
    strain = ramp(c, lost, lost + timedelta(minutes=6), 0.0, 1.0, ease=True)
    for m in good:
        r = m.rep
        backlog = 0.0
        waiting = []
        for i in range(c.n):
            over = max(0.0, r.codes[200][i] - 395.0) if i >= k_lost else 0.0
            backlog = max(0.0, backlog * 0.6 + over)
            waiting.append(float(round(backlog / 6 + strain[i] * rng.uniform(9, 15))))
        r.waiting = Series(waiting)
        r.running = Series(min(64.0, v + 22 * strain[i]) for i, v in enumerate(r.running))
        r.kv = Series(min(0.97, v + 0.45 * strain[i]) for i, v in enumerate(r.kv))
        r.ttft = Dist(noisy(flat(c, 0.16) + strain * 1.45, rng, 0.07), 0.55 + 0.25 * strain[-1])
        r.itl = Dist(noisy(flat(c, 0.017) + strain * 0.012, rng, 0.04), 0.22)
        for g in m.gpus:
            g.util = Series(float(min(99, round(v + 17 * strain[i]))) for i, v in enumerate(g.util))
    # the 30 seconds before the endpoint is removed: requests to the dead pod time out
    gw_extra = {504: flat(c, 0.0), 503: flat(c, 0.0)}
    gw_extra[504][k_lost] = float(rng.randint(60, 80))
    gw_extra[503][k_lost] = float(rng.randint(40, 55))

    # the replacement the ReplicaSet creates after the eviction mark cannot be scheduled
    pend = fleet.add(rev, nodes[names[0]][0], [], "", created=evicted, ready_after=timedelta(days=2), rpm=330)
    pend.rep.exists = [False] * c.n
    pend.timeline.node = pend.timeline.ip = pend.timeline.host_ip = None
    pend.timeline.phase = ["Pending" if e else "" for e in pend.timeline.exists]
    sched_msg = (
        "0/9 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, "
        "3 node(s) didn't match Pod's node affinity/selector, 5 Insufficient nvidia.com/gpu. preemption: 0/9 nodes "
        "are available: 4 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling."
    )
    assert pend.info is not None
    pend.info.node = pend.info.ip = pend.info.host_ip = None
    pend.info.ready = False
    pend.info.unschedulable_message = sched_msg
    assert bad.info is not None
    bad.info.ready = False
    bad.info.ready_since = marked
    bad.info.deletion = evicted + timedelta(seconds=120)

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, [m.rep for m in fleet.members if m is not pend], itl=False)
    ex.dcgm(p.om, fleet.gpu_series(), driver="550.120")
    ex.ksm_pods(p.om, [bad.timeline, pend.timeline], phase=True)
    ex.ksm_pods(p.om, [m.timeline for m in good])
    nts = []
    for name, (node, _) in nodes.items():
        nt = node_timeline(c, name, gpus=8, internal_ip=node.internal_ip)
        if name == bad_name:
            nt.ready = ["true" if i < k_mark else "unknown" for i in range(c.n)]
            when = [i >= k_mark for i in range(c.n)]
            nt.taints = [
                ("node.kubernetes.io/unreachable", "", "NoSchedule", when),
                ("node.kubernetes.io/unreachable", "", "NoExecute", when),
            ]
        nts.append(nt)
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(
        p.om,
        namespace=ns,
        name=w.name,
        spec=flat(c, 4),
        available=Series(4.0 if i < k_mark else 3.0 for i in range(c.n)),
    )
    cluster = f"httproute/{ns}/voice-agent-llm/rule/0"
    codes = fleet.codes()
    codes.update({k: v for k, v in gw_extra.items()})
    gw_pod = "envoy-voice-gw-system-voice-gw-1d7ab3f9-6f9c8b7d5-h7k2c"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="voice-gw-system", gateway_pod=gw_pod)
    p95 = hist_quantile(
        0.95,
        ex.VLLM_TTFT,
        [(m.rep.served(), m.rep.ttft, m.rep.present) for m in fleet.members if m is not pend],
    )
    threshold_alert(
        p,
        expr=(
            "histogram_quantile(0.95, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket"
            f'{{model_name="voice-agent-8b",namespace="{ns}"}}[5m]))) > 0.8'
        ),
        condition=[v > 0.8 for v in p95],
        value=p95,
        for_minutes=3,
        labels={
            "alertname": "VoiceAgentTTFTHigh",
            "model_name": "voice-agent-8b",
            "namespace": ns,
            "service": "vllm-voice-agent-8b",
            "severity": "page",
            "slo": "latency",
        },
        summary="voice-agent-8b: p95 time to first token above 800ms",
        description="Callers hear dead air: p95 time to first token of voice-agent-8b is above 800ms.",
        prometheus="http://vmselect.observability.svc:8481/select/0/prometheus",
        alertmanager="http://vmalertmanager.observability.svc:9093",
        value_format="{:.2f}",
        runbook="https://voice.example.com/runbooks/llm-latency",
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in fleet.members:
        if m is pend:
            continue
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[GW_IP], every=3)
        vllm_stats(p, m, every=3)
    kubelet = Source("kubelet", None, None, bad_name, None, dataset="system.syslog")
    for sec in (-44, -31, -19):
        ts = lost + timedelta(seconds=sec, microseconds=rng.randint(0, 999_999))
        msg = (
            f'E0715 {ts:%H:%M:%S}.{ts.microsecond:06d}    2914 kubelet_node_status.go:549] "Error updating node status, will retry" '  # noqa: E501
            f'err="error getting node \\"{bad_name}\\": Get \\"https://10.70.0.10:6443/api/v1/nodes/{bad_name}?timeout=10s\\": '  # noqa: E501
            'net/http: request canceled (Client.Timeout exceeded while awaiting headers)"'
        )
        p.logs.add(ecs(ts, msg, kubelet, level="error"))
    kcm = Source(
        "kube-controller-manager",
        "kube-system",
        "kube-controller-manager-cp-ams-01",
        "cp-ams-01",
        "kube-controller-manager",
    )
    p.logs.add(
        ecs(
            marked,
            f'I0715 {marked:%H:%M:%S}.418226       1 node_lifecycle_controller.go:1221] "Node is unresponsive. '
            f'Adding it to the Taint queue" node="{bad_name}" timeStamp="{marked:%Y-%m-%d %H:%M:%S}.418 +0000 UTC"',
            kcm,
            level="info",
        )
    )
    p.logs.add(
        ecs(
            evicted,
            f'I0715 {evicted:%H:%M:%S}.022914       1 taint_eviction.go:111] "Deleting pod" '
            f'controller="taint-eviction-controller" pod="{ns}/{bad.name}"',
            kcm,
            level="info",
        )
    )
    gw = Source("envoy-gateway", "voice-gw-system", gw_pod, names[0], "envoy")
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/voice-agent-llm/rule/0/match/0/llm_voice_example_net",
        authority="llm.voice.example.net",
        src=gw,
        clients="10.70.200",
        every=6,
        duration=lambda code, i: int(1000 * (0.16 + 1.45 * strain[i] + 70 * 0.02) * rng.uniform(0.6, 1.8)),
    )
    for code, flag, details in (
        (504, "UT", "response_timeout"),
        (503, "UF", "upstream_reset_before_response_started{connection_failure}"),
    ):
        for _ in range(3):
            ts = lost + timedelta(seconds=rng.uniform(2, 30))
            line = envoy_gateway_access(
                ts,
                status=code,
                flags=flag,
                details=details,
                duration_ms=15000 if code == 504 else 3001,
                upstream=f"{bad.ip}:8000",
                cluster=cluster,
                route=f"httproute/{ns}/voice-agent-llm/rule/0/match/0/llm_voice_example_net",
                authority="llm.voice.example.net",
                client=p.ids.ip("10.70.200"),
                user_agent="voicebot-orchestrator/3.2.0",
                request_id=p.ids.request_id(),
                bytes_sent=24,
            )
            p.logs.add(ecs(ts, line, gw, level="info", status=code))

    # --- events ------------------------------------------------------------------------------------------
    node_bad = nodes[bad_name][0]
    ev = [
        k8s.event(
            namespace="default",
            kind="Node",
            name=bad_name,
            uid=bad_name,
            reason="NodeNotReady",
            message=f"Node {bad_name} status is now: NodeNotReady",
            first=marked,
            warning=False,
            component="node-controller",
        ),
        k8s.event(
            namespace=ns,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="NodeNotReady",
            message="Node is not ready",
            first=marked + timedelta(milliseconds=300),
            component="node-controller",
        ),
        k8s.event(
            namespace=ns,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="TaintManagerEviction",
            message=f"Marking for deletion Pod {ns}/{bad.name}",
            first=evicted,
            warning=False,
            component="taint-eviction-controller",
        ),
        k8s.event(
            namespace=ns,
            kind="ReplicaSet",
            name=f"{w.name}-{rev.hash}",
            uid=rev.uid,
            reason="SuccessfulCreate",
            message=f"Created pod: {pend.name}",
            first=evicted + timedelta(milliseconds=40),
            warning=False,
            component="replicaset-controller",
            api_version="apps/v1",
        ),
        k8s.event(
            namespace=ns,
            kind="Pod",
            name=pend.name,
            uid=pend.uid,
            reason="FailedScheduling",
            message=sched_msg,
            first=evicted + timedelta(milliseconds=90),
            last=p.as_of - timedelta(seconds=23),
            count=7,
            component="default-scheduler",
        ),
    ]

    # --- objects -----------------------------------------------------------------------------------------
    node_bad.ready = "Unknown"
    node_bad.heartbeat = lost - timedelta(seconds=9)
    node_bad.not_ready_since = marked
    node_bad.taints = [
        {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": iso(marked)},
        {
            "key": "node.kubernetes.io/unreachable",
            "effect": "NoExecute",
            "timeAdded": iso(marked + timedelta(seconds=5)),
        },
    ]
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="voice-agent-llm",
            namespace=ns,
            gateway="voice-gw",
            gateway_namespace="voice-gw-system",
            hostnames=["llm.voice.example.net"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=50),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.extend(ev)
    p.record_gpus([g for m in good for g in m.gpus])
    p.expect(
        "infrastructure",
        "INF_NODE_NOT_READY",
        ("cordon_node", f"node/{bad_name}"),
        ("add_replica", f"deployment/{w.name}"),
    )
    p.notes["onset"] = iso(lost)
    return p
