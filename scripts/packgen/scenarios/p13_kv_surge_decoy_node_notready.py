"""KV-cache exhaustion under a traffic surge; another team's GPU node went NotReady 20 minutes earlier.

At 14:10 a help-desk auto-triage integration goes live and about 2.4x the usual chat traffic
reaches the two Granite 3.1 8B replicas. Their KV caches fill to ~99 %, the V1 scheduler preempts
requests (`vllm:num_preemptions_total` climbs; V1 logs no per-request line), the waiting queues
reach ~140 and p95 inter-token latency triples, while every answer is still a 200. Twenty minutes
earlier, at 13:49, an L40S node of the applied-research team stopped reporting (ENA keep-alive
watchdog, then silence). The node controller marks it Unknown, taints it unreachable and evicts
that team's judge and reward-model pods, whose replacements stay Pending. Their eval orchestrator
logs connection errors and pages its own channel. No help-desk pod ever ran on that node.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, hist_quantile, threshold_alert
from ..engines import src_of, vllm_access, vllm_stats
from ..fleet import Fleet, Member
from ..logs import Source, ecs
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp
from ..traffic import GpuDevice, GpuSeries, gpu_idle, node_timeline

NAME = "kv-surge-decoy-node-notready"
ENGINE = "vLLM 0.11.0 (V1 metric names) on EKS, L40S; decoy: another tenant's p4d node NotReady"
REGION = "ap-northeast-1"
GW_IP = "10.52.8.61"


class _Pack(Pack):
    """A Pack whose expected.yaml also lists the decoy actions and the incident's scope."""

    forbidden: list[tuple[str, str]]
    scope: list[str]

    def write(self, root: Path) -> Path:
        out = super().write(root)
        path = out / "expected.yaml"
        exp: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
        exp["forbidden_actions"] = [{"kind": k, "target": t} for k, t in self.forbidden]
        exp["scope"] = list(self.scope)
        path.write_text(yaml.safe_dump(exp, sort_keys=False), encoding="utf-8")
        return out


def _host(ip: str) -> str:
    return f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal"


def _eks_node(
    p: Pack, ip: str, zone: str, itype: str, product: str, count: int, cidr: str, **kw: Any
) -> tuple[k8s.Node, list[GpuDevice]]:
    return p.gpu_node(
        _host(ip),
        ip=ip,
        zone=zone,
        instance_type=itype,
        product=product,
        count=count,
        pod_cidr=cidr,
        kernel="5.10.225-213.878.amzn2.x86_64",
        os_image="Amazon Linux 2",
        kubelet_version="v1.31.2-eks-94953ac",
        runtime="containerd://1.7.23",
        driver="550.127.05",
        **kw,
    )


def build() -> Pack:
    p = _Pack(
        NAME,
        as_of="2026-09-15T14:32:00Z",
        namespace="itsm-copilot",
        seed=1313,
        description=(
            "The IT help-desk assistant streams answers very slowly since about 14:10; the platform channel "
            "is also busy with a research node that went down earlier."
        ),
    )
    c, rng = p.clock, p.rng
    ns, rns = "itsm-copilot", "applied-research"
    surge0, surge1 = p.t("14:10:00"), p.t("14:15:30")
    lost, marked, evicted = p.t("13:49:41"), p.t("13:50:22"), p.t("13:55:22")

    # --- nodes -----------------------------------------------------------------------------------------
    itsm_nodes = {}
    for ip, zone, cidr in (
        ("10.52.21.14", "ap-northeast-1a", "10.52.128.0/22"),
        ("10.52.22.87", "ap-northeast-1c", "10.52.132.0/22"),
    ):
        node, devs = _eks_node(
            p,
            ip,
            zone,
            "g6e.12xlarge",
            "NVIDIA L40S",
            4,
            cidr,
            cpu=48,
            memory_mi=393_216,
            labels={"eks.amazonaws.com/nodegroup": "itsm-l40s-ng", "workload-class": "inference"},
            taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
        )
        itsm_nodes[node.name] = (node, devs)
    bad_node, bad_devs = _eks_node(
        p,
        "10.52.40.201",
        "ap-northeast-1a",
        "g6e.12xlarge",
        "NVIDIA L40S",
        4,
        "10.52.160.0/22",
        cpu=48,
        memory_mi=393_216,
        labels={"eks.amazonaws.com/nodegroup": "research-l40s-ng", "team": "applied-research"},
        taints=[
            {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
            {"key": "team", "value": "applied-research", "effect": "NoSchedule"},
        ],
    )
    cpu_node = k8s.Node(
        name=_host("10.52.8.33"),
        internal_ip="10.52.8.33",
        zone="ap-northeast-1a",
        instance_type="m6i.4xlarge",
        cpu=16,
        memory_mi=65_536,
        uid=k8s.new_uid(rng),
        pod_cidr="10.52.8.0/22",
        kernel="5.10.225-213.878.amzn2.x86_64",
        os_image="Amazon Linux 2",
        kubelet_version="v1.31.2-eks-94953ac",
        runtime="containerd://1.7.23",
        labels={"eks.amazonaws.com/nodegroup": "system-m6i-ng"},
    )
    names = list(itsm_nodes)

    # --- the help-desk model servers (the incident) ---------------------------------------------------------
    args = [
        "--model",
        "/models/ibm-granite/granite-3.1-8b-instruct",
        "--served-model-name",
        "granite-3.1-8b-itsm",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.90",
        "--max-num-seqs",
        "96",
        "--enable-prefix-caching",
        "--disable-log-requests",
    ]
    env = [{"name": "HF_HUB_OFFLINE", "value": "1"}, {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"}]
    rev4 = p.revision(4, p.ago(days=19, hours=6), "vllm/vllm-openai:v0.10.2", args, env=env)
    rev5 = p.revision(
        5,
        p.ago(days=8, hours=2, minutes=41),
        "vllm/vllm-openai:v0.11.0",
        args,
        env=env,
        replicas=2,
        change_cause="vLLM 0.11.0 (ITSM-412)",
    )
    w = k8s.Workload(
        name="vllm-granite-itsm",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "vllm-granite-itsm",
            "app.kubernetes.io/component": "llm",
            "app.kubernetes.io/part-of": "itsm-assistant",
        },
        revisions=[rev4, rev5],
        pods=[],
        created=p.ago(days=74),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 3},
        liveness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 30, "failureThreshold": 6},
        uid=k8s.new_uid(rng),
        cpu="10",
        memory="80Gi",
        memory_limit="100Gi",
        node_selector={"eks.amazonaws.com/nodegroup": "itsm-l40s-ng"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        volumes=[
            {"name": "models", "persistentVolumeClaim": {"claimName": "itsm-models-fsx"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        cluster_ip="172.20.119.40",
        annotations={
            "argocd.argoproj.io/tracking-id": "itsm-copilot:apps/Deployment:itsm-copilot/vllm-granite-itsm"
        },
    )
    fleet = Fleet(p, w, job="itsm-copilot/vllm-granite-itsm", model="granite-3.1-8b-itsm", service="")
    for j, name in enumerate(names):
        node, devs = itsm_nodes[name]
        fleet.add(
            rev5,
            node,
            [devs[j % 2]],
            f"10.52.{129 + 4 * j}.{31 + 17 * j}",
            created=rev5.created + timedelta(minutes=3 * j, seconds=rng.randint(0, 50)),
            rpm=240,
            prompt_len=3100,
            gen_len=290,
            ttft=0.24,
            itl=0.023,
            kv=0.44,
            util=74,
            fb_used=41_120,
        )

    surge = ramp(c, surge0, surge1, 1.0, 2.4, ease=True)
    load = ramp(c, surge0, surge1 + timedelta(minutes=2), 0.0, 1.0, ease=True)
    for m in fleet.members:
        r = m.rep
        offered = noisy(flat(c, 240.0) * surge, rng, 0.04)
        ceiling = 505 + rng.uniform(-12, 12)
        r.codes[200] = offered.minimum(ceiling).ints()
        r.kv = Series(
            min(0.996, r.kv[i] + (0.991 - r.kv[i]) * load[i] + rng.uniform(-0.004, 0.003)) for i in range(c.n)
        )
        r.running = Series(
            float(round(r.running[i] + (rng.uniform(84, 95) - r.running[i]) * load[i])) for i in range(c.n)
        )
        backlog, waiting = 0.0, []
        for i in range(c.n):
            backlog = max(0.0, backlog + offered[i] - r.codes[200][i])
            waiting.append(float(round(min(backlog, 140 + rng.uniform(-9, 9)))))
        r.waiting = Series(waiting)
        r.preempt = Series(load[i] * rng.uniform(30, 75) if load[i] > 0.5 else 0.0 for i in range(c.n))
        r.itl = Dist(noisy(flat(c, 0.023) + load * 0.052, rng, 0.05), 0.22 + 0.12 * load[-1])
        r.ttft = Dist(noisy(flat(c, 0.24) + load * 6.8, rng, 0.08), 0.55 + 0.3 * load[-1])
        r.gen_len = r.gen_len * (1 + 0.03 * load)
        r.prefix_hit = 0.28
        for g in m.gpus:
            g.util = Series(
                float(min(100, round(g.util[i] + (93.0 - g.util[i]) * load[i] + rng.uniform(-1.5, 1.5))))
                for i in range(c.n)
            )
            g.power = (g.util * 2.9 + 66 + noisy(flat(c, 0.0), rng, 0, 6.0)).map(lambda v: round(v, 3))
            g.temp = (g.util * 0.3 + 31 + noisy(flat(c, 0.0), rng, 0, 0.7)).map(lambda v: float(round(v)))
            g.fb_used = noisy(flat(c, 41_180.0), rng, 0.0008).map(round)

    # an unrelated, healthy embedding server (CPU) in the same namespace
    tei_rev = p.revision(
        3,
        p.ago(days=33),
        "ghcr.io/huggingface/text-embeddings-inference:cpu-1.6.1",
        ["--model-id", "/models/BAAI/bge-m3", "--port", "8080", "--max-client-batch-size", "64"],
        replicas=1,
    )
    tei_w = k8s.Workload(
        name="tei-itsm-bge-m3",
        namespace=ns,
        container="tei",
        port=8080,
        labels={"app.kubernetes.io/name": "tei-itsm-bge-m3", "app.kubernetes.io/component": "embeddings"},
        revisions=[tei_rev],
        pods=[],
        created=p.ago(days=90),
        replicas=1,
        readiness={"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        gpus=0,
        cpu="6",
        memory="16Gi",
        memory_limit="24Gi",
        node_selector={"eks.amazonaws.com/nodegroup": "system-m6i-ng"},
        tolerations=[],
        cluster_ip="172.20.119.77",
    )
    tei_fleet = Fleet(p, tei_w, job="itsm-copilot/tei-itsm-bge-m3", model="bge-m3", service="")
    tei = tei_fleet.add(tei_rev, cpu_node, [], "10.52.9.88", rpm=420)

    # --- the decoy: applied-research's judge and reward-model servers on a node that goes dark -------------
    rtol = [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "applied-research", "effect": "NoSchedule"},
    ]
    jrev = p.revision(
        9,
        p.ago(days=4, hours=11),
        "vllm/vllm-openai:v0.10.1.1",
        [
            "--model",
            "/mnt/fsx/checkpoints/Qwen2.5-32B-Instruct",
            "--served-model-name",
            "qwen2.5-32b-judge",
            "--tensor-parallel-size",
            "2",
            "--max-model-len",
            "32768",
        ],
        replicas=1,
        change_cause="judge for distill-v7 sweep",
    )
    jw = k8s.Workload(
        name="ar-qwen32b-judge",
        namespace=rns,
        container="vllm",
        port=8000,
        labels={"app": "ar-qwen32b-judge", "team": "applied-research"},
        revisions=[jrev],
        pods=[],
        created=p.ago(days=40),
        replicas=1,
        gpus=2,
        cpu="20",
        memory="160Gi",
        memory_limit="200Gi",
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 15},
        uid=k8s.new_uid(rng),
        node_selector={"eks.amazonaws.com/nodegroup": "research-l40s-ng"},
        tolerations=[dict(t) for t in rtol],
        service_account="research-runner",
        cluster_ip="172.20.201.9",
    )
    jfleet = Fleet(p, jw, job="applied-research/ar-qwen32b-judge", model="qwen2.5-32b-judge", service="")
    judge = jfleet.add(
        jrev,
        bad_node,
        bad_devs[0:2],
        "10.52.161.40",
        created=jrev.created,
        rpm=26,
        prompt_len=5200,
        gen_len=410,
        util=61,
        fb_used=43_900,
    )
    rm_rev = p.revision(
        2,
        p.ago(days=12),
        "nvcr.io/nvidia/tritonserver:25.06-py3",
        ["tritonserver", "--model-repository=/models", "--strict-readiness=true"],
        replicas=1,
    )
    rm_w = k8s.Workload(
        name="ar-reward-model",
        namespace=rns,
        container="triton",
        port=8000,
        labels={"app": "ar-reward-model", "team": "applied-research"},
        revisions=[rm_rev],
        pods=[],
        created=p.ago(days=60),
        replicas=1,
        gpus=1,
        cpu="8",
        memory="48Gi",
        memory_limit="64Gi",
        readiness={"httpGet": {"path": "/v2/health/ready", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        node_selector={"eks.amazonaws.com/nodegroup": "research-l40s-ng"},
        tolerations=[dict(t) for t in rtol],
        service_account="research-runner",
        cluster_ip="172.20.201.31",
    )
    rm_fleet = Fleet(p, rm_w, job="applied-research/ar-reward-model", model="reward", service="")
    rm = rm_fleet.add(rm_rev, bad_node, bad_devs[2:3], "10.52.161.77", rpm=90, util=44, fb_used=21_400)
    research = [judge, rm]
    for g in judge.gpus + rm.gpus:  # L40S: 350 W board
        g.power = (g.util * 2.9 + 66 + noisy(flat(c, 0.0), rng, 0, 5.0)).map(lambda v: round(v, 3))
    k_lost, k_mark = c.idx(lost), c.idx(marked)
    for m in research:
        m.rep.down([i >= k_lost for i in range(c.n)])
        for i in range(k_mark, c.n):
            m.timeline.ready[i] = False
        for g in m.gpus:
            g.present = [i < k_lost for i in range(c.n)]
        assert m.info is not None
        m.info.ready = False
        m.info.ready_since = marked
        m.info.deletion = evicted + timedelta(seconds=30)
    sched_msg = (
        "0/4 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, "
        "3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: "
        "4 Preemption is not helpful for scheduling."
    )
    pends: list[tuple[Fleet, Member]] = []
    for j, (fl, rev) in enumerate(((jfleet, jrev), (rm_fleet, rm_rev))):
        made = fl.add(
            rev,
            bad_node,
            [],
            "",
            created=evicted + timedelta(milliseconds=60 + 30 * j),
            ready_after=timedelta(days=2),
        )
        made.rep.exists = [False] * c.n
        made.rep.down([True] * c.n)
        made.timeline.node = made.timeline.ip = made.timeline.host_ip = None
        made.timeline.phase = ["Pending" if e else "" for e in made.timeline.exists]
        assert made.info is not None
        made.info.node = made.info.ip = made.info.host_ip = None
        made.info.ready = False
        made.info.unschedulable_message = sched_msg
        made.info.phase = "Pending"
        pends.append((fl, made))

    # applied-research's eval orchestrator runs on the system node
    orch_rev = p.revision(
        31, p.ago(days=2, hours=3), "ghcr.io/example-ar/eval-orchestrator:2.14.0", ["serve"]
    )
    orch_rev.replicas = 1
    orch_w = k8s.Workload(
        name="ar-eval-orchestrator",
        namespace=rns,
        container="orchestrator",
        port=8080,
        labels={"app": "ar-eval-orchestrator", "team": "applied-research"},
        revisions=[orch_rev],
        pods=[],
        created=p.ago(days=120),
        replicas=1,
        gpus=0,
        cpu="2",
        memory="4Gi",
        memory_limit="6Gi",
        tolerations=[],
        uid=k8s.new_uid(rng),
        service_account="research-runner",
        cluster_ip="172.20.201.54",
    )
    orch_fleet = Fleet(p, orch_w, job="applied-research/ar-eval-orchestrator", model="", service="")
    orch = orch_fleet.add(orch_rev, cpu_node, [], "10.52.9.140", rpm=5)

    # --- metrics --------------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas())
    # dcgm-exporter runs with the pod-resources mapping; only GPUs that hold a pod are kept by the
    # metricRelabelings of this cluster's ServiceMonitor (idle GPUs are still in the NVML readings)
    dcgm_gpus = fleet.gpu_series() + judge.gpus + rm.gpus
    ex.dcgm(p.om, dcgm_gpus, driver="550.127.05")
    # the research pods are scraped by a PodMonitor that keeps only a few engine gauges
    lab = ex.scrape_labels(judge.rep, engine="0")
    pr = judge.rep.present
    p.om.gauge(
        "vllm:num_requests_running",
        "Number of requests in model execution batches.",
        lab,
        judge.rep.running,
        pr,
    )
    p.om.gauge(
        "vllm:num_requests_waiting", "Number of requests waiting to be processed.", lab, judge.rep.waiting, pr
    )
    p.om.gauge(
        "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, judge.rep.kv, pr
    )
    ex.up(p.om, [judge.rep, rm.rep])
    ex.ksm_pods(p.om, fleet.timelines() + [tei.timeline] + [m.timeline for m in research])
    ex.ksm_pods(p.om, [m.timeline for _, m in pends])
    nts = [node_timeline(c, n, gpus=4, internal_ip=nd.internal_ip) for n, (nd, _) in itsm_nodes.items()]
    bt = node_timeline(c, bad_node.name, gpus=4, internal_ip=bad_node.internal_ip)
    bt.ready = ["true" if i < k_mark else "unknown" for i in range(c.n)]
    when = [i >= k_mark for i in range(c.n)]
    bt.taints = [
        ("node.kubernetes.io/unreachable", "", "NoSchedule", when),
        ("node.kubernetes.io/unreachable", "", "NoExecute", when),
    ]
    nts += [bt, node_timeline(c, cpu_node.name, internal_ip=cpu_node.internal_ip)]
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(p.om, namespace=ns, name=w.name, spec=flat(c, 2), available=flat(c, 2))
    for rw in (jw,):
        ex.ksm_deployment(
            p.om,
            namespace=rns,
            name=rw.name,
            spec=flat(c, 1),
            available=Series(1.0 if i < k_mark else 0.0 for i in range(c.n)),
        )
    cluster = f"httproute/{ns}/itsm-assistant/rule/0"
    gw_pod = "envoy-envoy-gateway-system-itsm-gw-8c2f61d0-5b7d9c6f8-t9wq4"
    ex.envoy(p.om, {cluster: fleet.codes()}, gateway_namespace="envoy-gateway-system", gateway_pod=gw_pod)

    decode_parts = [
        (
            Series(max(0.0, g - o) for g, o in zip(m.rep.gen_tokens(), m.rep.ok(), strict=True)),
            m.rep.itl,
            None,
        )
        for m in fleet.members
    ]
    itl95 = hist_quantile(0.95, ex.VLLM_ITL, decode_parts)
    threshold_alert(
        p,
        expr=(
            "histogram_quantile(0.95, sum by (le, namespace, model_name) (rate(vllm:inter_token_latency_seconds_bucket"
            f'{{namespace="{ns}",model_name="granite-3.1-8b-itsm"}}[5m]))) > 0.06'
        ),
        condition=[v > 0.06 for v in itl95],
        value=itl95,
        for_minutes=3,
        labels={
            "alertname": "VLLMInterTokenLatencyHigh",
            "model_name": "granite-3.1-8b-itsm",
            "namespace": ns,
            "prometheus": "monitoring/kube-prometheus-stack-prometheus",
            "severity": "warning",
            "team": "itsm-platform",
        },
        summary="granite-3.1-8b-itsm: p95 inter-token latency above 60ms",
        description=(
            "p95 inter-token latency of granite-3.1-8b-itsm in itsm-copilot has been above 60ms for 3 minutes; "
            "help-desk answers stream visibly slower."
        ),
        prometheus="http://kube-prometheus-stack-prometheus.monitoring:9090",
        alertmanager="http://kube-prometheus-stack-alertmanager.monitoring:9093",
        value_format="{:.4f}",
        runbook="https://wiki.itsm.example.jp/display/PLAT/vLLM+latency",
        route='{}/{team="itsm-platform"}',
    )

    # --- logs -----------------------------------------------------------------------------------------------
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[GW_IP], every=4)
        vllm_stats(p, m, every=2)
    vllm_stats(p, judge, every=4, alive=[i < k_lost for i in range(c.n)])
    tsrc = Source("tei-itsm-bge-m3", ns, tei.name, cpu_node.name, "tei")
    for i in range(2, c.n, 5):
        ts = c.at(i) - timedelta(seconds=rng.uniform(1, 50))
        stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z"
        dur = rng.uniform(9, 31)
        line = (
            f'{stamp}  INFO embed{{total_time="{dur:.6f}ms" tokenization_time="{dur * 0.08:.6f}ms" '
            f'queue_time="{dur * 0.05:.6f}ms" inference_time="{dur * 0.8:.6f}ms"}}: '
            "text_embeddings_router::http::server: router/src/http/server.rs:714: Success"
        )
        p.logs.add(ecs(ts, line, tsrc, level="info"))

    # the research node's last words before it went dark (ENA driver), then nothing from it
    kern = Source("kernel", None, None, bad_node.name, None, dataset="system.syslog")
    t0 = lost - timedelta(seconds=57)
    for dt, lvl, msg in (
        (
            0.0,
            "warn",
            "ena 0000:10:1c.0 eth0: Found a Tx that wasn't completed on time, qid 5, index 771. 5736448 usecs have passed since last napi execution. Napi scheduled: 1",  # noqa: E501
        ),
        (
            0.004,
            "warn",
            "ena 0000:10:1c.0 eth0: Found a Tx that wasn't completed on time, qid 5, index 772. 5736452 usecs have passed since last napi execution. Napi scheduled: 1",  # noqa: E501
        ),
        (26.8, "err", "ena 0000:10:1c.0 eth0: Keep alive watchdog timeout."),
        (26.81, "err", "ena 0000:10:1c.0 eth0: Trigger reset is on"),
    ):  # what the node wrote after this (if anything) never reached the log pipeline
        ts = t0 + timedelta(seconds=dt)
        p.logs.add(ecs(ts, msg, kern, level="error" if lvl == "err" else "warn"))
    kubelet = Source("kubelet", None, None, bad_node.name, None, dataset="system.syslog")
    for sec in (-52, -43):
        ts = lost + timedelta(seconds=sec, microseconds=rng.randint(0, 999_999))
        msg = (
            f'E0915 {ts:%H:%M:%S}.{ts.microsecond:06d}    4187 kubelet_node_status.go:549] "Error updating node status, '  # noqa: E501
            f'will retry" err="error getting node \\"{bad_node.name}\\": Get \\"https://6F1C0D2E7A3B94C58E1D.gr7.'
            f'{REGION}.eks.amazonaws.com/api/v1/nodes/{bad_node.name}?timeout=10s\\": dial tcp 10.52.0.117:443: i/o timeout"'  # noqa: E501
        )
        p.logs.add(ecs(ts, msg, kubelet, level="error"))
    # applied-research's eval orchestrator (on the system node) loses its judge and pages its own channel
    osrc = Source("ar-eval-orchestrator", rns, orch.name, cpu_node.name, "orchestrator")
    judge_url = f"http://ar-qwen32b-judge.{rns}.svc.cluster.local:8000/v1/chat/completions"
    for i in range(3, c.n - 1):
        minute = c.at(i)
        if minute < lost:
            if i % 6 == 0:
                ts = p.ids.within(minute)
                done = 1800 + 37 * i
                p.logs.add(
                    ecs(
                        ts,
                        f"{ts:%Y-%m-%d %H:%M:%S},{ts.microsecond // 1000:03d} INFO [runner] distill-v7-sweep: "
                        f"{done}/9600 samples judged (avg 6.4s/sample)",
                        osrc,
                        level="info",
                    )
                )
            continue
        for _ in range(1 if minute < evicted or i % 2 else 0):
            ts = p.ids.within(minute, max(0.0, (lost - minute).total_seconds() + 2))
            p.logs.add(
                ecs(
                    ts,
                    f"{ts:%Y-%m-%d %H:%M:%S},{ts.microsecond // 1000:03d} ERROR [judge-client] POST {judge_url} "
                    "failed: openai.APIConnectionError: Connection error. (httpcore.ConnectTimeout: timed out); "
                    f"retry {rng.randint(1, 5)}/5",
                    osrc,
                    level="error",
                    error_type="openai.APIConnectionError",
                    error_message="Connection error.",
                )
            )
        if i % 5 == 0:
            ts = p.ids.within(minute)
            p.logs.add(
                ecs(
                    ts,
                    f"{ts:%Y-%m-%d %H:%M:%S},{ts.microsecond // 1000:03d} WARNING [alerts] posted to #ar-oncall: "
                    "JudgeEndpointDown ar-qwen32b-judge 0/1 ready, distill-v7-sweep paused",
                    osrc,
                    level="warn",
                )
            )
    # kube-system noise: the VPC CNI's readiness probe flaps on a healthy node now and then
    aws_node = Source("aws-node", "kube-system", "aws-node-7hq2m", names[1], "aws-node")
    for i in (9, 33, 51):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                '{"level":"info","ts":"' + iso(ts, ms=True) + '","caller":"ipamd/ipamd.go:1385",'
                '"msg":"Pod IP pool stats: Total IPs/Prefixes = 29/0, AssignedIPs/CooldownIPs: 9/0, c.maxIPsPerENI = 15"}',  # noqa: E501
                aws_node,
                level="info",
            )
        )
    gw = Source("envoy-gateway", "envoy-gateway-system", gw_pod, cpu_node.name, "envoy")

    def agent(i: int) -> str:
        if c.at(i) >= surge0 and rng.random() < 0.58:
            return "zendesk-autotriage/1.8.0 (+itsm-copilot)"
        return rng.choice(["itsm-portal/4.2.1", "OpenAI/Python 1.107.0", "itsm-teams-bot/2.0.3"])

    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/itsm-assistant/rule/0/match/0/assist_itsm_example_jp",
        authority="assist.itsm.example.jp",
        src=gw,
        clients="10.53",
        every=4,
        agent=agent,
        duration=lambda code, i: int(
            1000 * (0.24 + 6.8 * load[i] + 290 * (0.023 + 0.052 * load[i])) * rng.uniform(0.6, 1.5)
        ),
    )

    # --- events ---------------------------------------------------------------------------------------------
    ev = [
        k8s.event(
            namespace="default",
            kind="Node",
            name=bad_node.name,
            uid=bad_node.uid,
            reason="NodeNotReady",
            message=f"Node {bad_node.name} status is now: NodeNotReady",
            first=marked,
            warning=False,
            component="node-controller",
        )
    ]
    for j, m in enumerate(research):
        ev.append(
            k8s.event(
                namespace=rns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="NodeNotReady",
                message="Node is not ready",
                first=marked + timedelta(milliseconds=210 + 40 * j),
                component="node-controller",
            )
        )
        ev.append(
            k8s.event(
                namespace=rns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="TaintManagerEviction",
                message=f"Marking for deletion Pod {rns}/{m.name}",
                first=evicted + timedelta(milliseconds=12 * j),
                warning=False,
                component="taint-eviction-controller",
            )
        )
    for j, (fl, m) in enumerate(pends):
        ev.append(
            k8s.event(
                namespace=rns,
                kind="ReplicaSet",
                name=f"{fl.w.name}-{m.rev.hash}",
                uid=m.rev.uid,
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
                namespace=rns,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="FailedScheduling",
                message=sched_msg,
                first=m.created + timedelta(milliseconds=70),
                last=p.as_of - timedelta(seconds=41 + 17 * j),
                count=9,
                component="default-scheduler",
            )
        )
    # recurring, unrelated events that started long before the window
    ev += [
        k8s.event(
            namespace="kube-system",
            kind="Pod",
            name="aws-node-7hq2m",
            uid=k8s.new_uid(rng),
            reason="Unhealthy",
            message=(
                'Readiness probe failed: {"level":"info","ts":"2026-09-15T13:57:12.904Z","caller":"/root/sdk/go1.22.8/'
                'src/runtime/proc.go:272","msg":"timeout: failed to connect service \\":50051\\" within 5s"}'
            ),
            first=p.ago(days=6, hours=2),
            last=p.t("13:57:13"),
            count=41,
            component="kubelet",
            host=names[1],
            field_path="spec.containers{aws-node}",
        ),
        k8s.event(
            namespace="default",
            kind="Node",
            name=cpu_node.name,
            uid=cpu_node.uid,
            reason="FreeDiskSpaceFailed",
            message=(
                "Failed to garbage collect required amount of images. Attempted to free 4017315840 bytes, but only "
                "found 1306533478 bytes eligible to free."
            ),
            first=p.ago(days=3, hours=7),
            last=p.t("14:03:40"),
            count=17,
            component="kubelet",
            host=cpu_node.name,
        ),
        k8s.event(
            namespace=ns,
            kind="Pod",
            name="itsm-kb-indexer-28791540-6xq2v",
            uid=k8s.new_uid(rng),
            reason="FailedMount",
            message=(
                'MountVolume.SetUp failed for volume "pvc-3b1f7e52-9c0d-4e8a-b7a1-52d0c9f4e6a3" : rpc error: code = '
                'Internal desc = Could not mount "fs-0c4e1a9b7d2f35e68.fsx.ap-northeast-1.amazonaws.com@tcp:/x7mqbmav" '
                'at "/var/lib/kubelet/pods/8f2b/volumes/kubernetes.io~csi/pvc-3b1f7e52/mount": mount failed: exit status 5'  # noqa: E501
            ),
            first=p.ago(days=2, hours=5),
            last=p.t("14:21:02"),
            count=733,
            component="kubelet",
            host=names[1],
        ),
        k8s.event(
            namespace=ns,
            kind="HorizontalPodAutoscaler",
            name="itsm-ticket-api",
            uid=k8s.new_uid(rng),
            reason="FailedGetResourceMetric",
            message="failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",  # noqa: E501
            first=p.ago(days=11),
            last=p.t("14:24:45"),
            count=4012,
            component="horizontal-pod-autoscaler",
            api_version="autoscaling/v2",
        ),
    ]

    # --- objects --------------------------------------------------------------------------------------------
    bad_node.ready = "Unknown"
    bad_node.heartbeat = lost - timedelta(seconds=8)
    bad_node.not_ready_since = marked
    bad_node.taints = [
        *bad_node.taints,
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
            name="itsm-assistant",
            namespace=ns,
            gateway="itsm-gw",
            gateway_namespace="envoy-gateway-system",
            hostnames=["assist.itsm.example.jp"],
            backends=[(w.name, 8000, 1)],
            created=p.ago(days=74),
        )
    )
    p.objects.extend(tei_fleet.objects())
    p.objects.extend(jfleet.objects())
    p.objects.extend(rm_fleet.objects())
    p.objects.extend(orch_fleet.objects())
    p.objects.extend(n.object(p.as_of) for n, _ in itsm_nodes.values())
    p.objects.extend([bad_node.object(p.as_of), cpu_node.object(p.as_of)])
    p.objects.extend(ev)
    # NVML readings at as_of: every GPU of the reachable nodes (the research node cannot be read)
    held = {g.dev.uuid: g for g in fleet.gpu_series()}
    readings: list[GpuSeries] = []
    for _, devs in itsm_nodes.values():
        for d in devs:
            g = held.get(d.uuid)
            if g is None:
                g = gpu_idle(c, rng, d)
                g.power = noisy(flat(c, 36.0), rng, 0, 1.0).map(lambda v: round(v, 3))
            readings.append(g)
    p.record_gpus(readings)

    p.expect(
        "inference_engine",
        "ENG_KV_CACHE",
        ("add_replica", f"deployment/{w.name}"),
        ("reroute", "httproute/itsm-assistant"),
    )
    p.forbidden = [
        ("cordon_node", f"node/{bad_node.name}"),
        *[("restart_pod", f"pod/{m.name}") for m in research + [m for _, m in pends]],
        ("add_replica", f"deployment/{jw.name}"),
        ("rollback_deployment", f"deployment/{jw.name}"),
        ("add_replica", f"deployment/{rm_w.name}"),
        ("rollback_deployment", f"deployment/{rm_w.name}"),
        ("restart_pod", f"pod/{tei.name}"),
        ("rollback_deployment", f"deployment/{tei_w.name}"),
        ("restart_pod", f"pod/{orch.name}"),
    ]
    p.scope = [
        f"deployment/{w.name}",
        *[f"pod/{m.name}" for m in fleet.members],
        *[f"node/{n}" for n in names],
        "httproute/itsm-assistant",
    ]
    p.notes["onset"] = iso(surge0)
    return p
