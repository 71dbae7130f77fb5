"""One stable vLLM pod hits a CUDA illegal memory access (Xid 31) behind a 90/10 canary split.

An Istio-managed Gateway API route has split the underwriting assistant 90/10 between the stable
Deployment (vLLM 0.10.1.1, two replicas) and a hand-made canary (vLLM 0.10.2, one replica) since
the morning. At 14:09:41 the kernel logs one MMU fault (`NVRM: Xid ... 31 ... MMU Fault: ENGINE
GRAPHICS ... FAULT_PDE ACCESS_TYPE_VIRT_READ`) for the engine process of one *stable* pod, and
its EngineCore dies with `CUDA error: an illegal memory access was encountered`.
`VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1` keeps the API server up and the `/v1/models` readiness probe
keeps passing, so the pod answers 500 in a few milliseconds until someone restarts it; Istio's
least-request balancing hands it more than its share. The device plugin skips Xid 31 (an
application error in NVIDIA's catalogue), the GPU stays allocatable, the other tenants' GPUs on
the same node and the canary are healthy, and the route weights have not changed for five hours.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from .. import exporters as ex
from .. import k8s
from ..common import CLIENTS, sloth_alert, sum_codes
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_stats
from ..fleet import Fleet, Member
from ..logs import Source, ecs, glog
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import gpu_idle, node_timeline

NAME = "canary-split-cuda-illegal-address"
ENGINE = "vLLM 0.10.1.1 (stable) + 0.10.2 (canary) behind an Istio gateway (Gateway API)"
NS = "uw-copilot"
MODEL = "qwen3-30b-a3b-instruct"
GW_NS = "uw-gateways"
DRIVER = "570.124.06"
EKS: dict[str, Any] = dict(
    kernel="6.1.127-135.201.amzn2023.x86_64",
    os_image="Amazon Linux 2023.6.20250203",
    kubelet_version="v1.31.4-eks-aeac579",
    runtime="containerd://1.7.25",
    driver=DRIVER,
)


class ExtPack(Pack):
    """A Pack whose expected.yaml also lists forbidden actions and the incident's scope."""

    forbidden: list[tuple[str, str]]
    scope: list[str]
    extra: dict[str, Any] | None = None  # more extension fields (e.g. a secondary cause)

    def write(self, root: Path) -> Path:
        out = super().write(root)
        have = {f"{o['kind'].lower()}/{o['metadata']['name']}" for o in self.objects}
        for target in [t for _, t in self.forbidden] + self.scope:
            if target not in have:
                raise ValueError(f"{self.name}: {target} is not an object of the pack")
        path = out / "expected.yaml"
        exp: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
        exp["forbidden_actions"] = [{"kind": k, "target": t} for k, t in self.forbidden]
        exp["scope"] = list(self.scope)
        exp.update(self.extra or {})
        path.write_text(yaml.safe_dump(exp, sort_keys=False), encoding="utf-8")
        return out


def istio_access(
    ts: Any,
    *,
    status: int,
    duration_ms: int,
    upstream: str,
    cluster: str,
    client: str,
    agent: str,
    request_id: str,
    authority: str,
    route: str,
    local: str,
    bytes_sent: int,
    ports: tuple[int, int],
) -> str:
    """Istio's default TEXT access-log format (meshConfig.accessLogFile=/dev/stdout)."""
    svc_time = str(max(0, duration_ms - 1))
    return (
        f'[{iso(ts, ms=True)}] "POST /v1/chat/completions HTTP/1.1" {status} - via_upstream - "-" '
        f'{1800 + (duration_ms % 700)} {bytes_sent} {duration_ms} {svc_time} "{client}" "{agent}" "{request_id}" '
        f'"{authority}" "{upstream}" {cluster} {local}:{ports[0]} {local}:8080 '
        f"{client}:{ports[1]} - {route}"
    )


def build() -> Pack:
    p = ExtPack(
        NAME,
        as_of="2026-09-08T14:32:00Z",
        namespace=NS,
        seed=1616,
        description=(
            "Underwriting assistant: about half of the chat requests fail with 500 since shortly after "
            "14:09; a 90/10 canary of the next vLLM release has been taking traffic since this morning."
        ),
    )
    c, rng = p.clock, p.rng
    onset = p.t("14:09:41")
    k = c.idx(onset)
    split_since = p.ago(hours=5, minutes=12)

    # --- nodes: four GPU nodes (one hosts no pod of the assistant), two CPU nodes ----------------------
    gpu_nodes: dict[str, tuple[k8s.Node, list[Any]]] = {}
    for name, ip, zone in (
        ("ip-10-62-18-47.ec2.internal", "10.62.18.47", "us-east-1a"),
        ("ip-10-62-21-130.ec2.internal", "10.62.21.130", "us-east-1b"),
        ("ip-10-62-25-9.ec2.internal", "10.62.25.9", "us-east-1b"),
        ("ip-10-62-29-214.ec2.internal", "10.62.29.214", "us-east-1c"),
    ):
        gpu_nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone=zone,
            instance_type="p5.48xlarge",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=f"10.62.{ip.split('.')[2]}.0/24",
            labels={
                "eks.amazonaws.com/nodegroup": "gpu-p5-shared",
                "eks.amazonaws.com/capacityType": "ON_DEMAND",
                "nvidia.com/gpu.deploy.dcgm-exporter": "true",
            },
            taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
            **EKS,
        )
    node_a, node_b, node_c, node_d = list(gpu_nodes)
    cpu_nodes = [
        k8s.Node(
            name=name,
            internal_ip=ip,
            zone=zone,
            instance_type="m7i.4xlarge",
            cpu=16,
            memory_mi=65_536,
            uid=k8s.new_uid(rng),
            pod_cidr=f"10.62.{ip.split('.')[2]}.0/24",
            labels={
                "eks.amazonaws.com/nodegroup": "system-m7i",
                "eks.amazonaws.com/capacityType": "ON_DEMAND",
            },
            **EKS,
        )
        for name, ip, zone in (
            ("ip-10-62-4-77.ec2.internal", "10.62.4.77", "us-east-1a"),
            ("ip-10-62-6-191.ec2.internal", "10.62.6.191", "us-east-1b"),
        )
    ]

    # --- the assistant: stable and canary Deployments ------------------------------------------------
    args = [
        "--model",
        "/models/Qwen3-30B-A3B-Instruct-2507-FP8",
        "--served-model-name",
        MODEL,
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.92",
        "--max-num-seqs",
        "96",
        "--enable-prefix-caching",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
        "--port",
        "8000",
    ]
    env = [
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        {"name": "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "value": "1"},
        {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"},
    ]
    readiness = {
        "httpGet": {"path": "/v1/models", "port": 8000, "scheme": "HTTP"},
        "initialDelaySeconds": 60,
        "periodSeconds": 10,
        "timeoutSeconds": 3,
        "failureThreshold": 3,
        "successThreshold": 1,
    }
    volumes: list[dict[str, Any]] = [
        {"name": "models", "persistentVolumeClaim": {"claimName": "uw-models-fsx"}},
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
    ]
    mounts: list[dict[str, Any]] = [
        {"name": "models", "mountPath": "/models", "readOnly": True},
        {"name": "dshm", "mountPath": "/dev/shm"},
    ]
    common_pod = {
        "sidecar.istio.io/inject": "false",
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "8000",
    }
    rev8 = p.revision(
        8,
        p.ago(days=27),
        "vllm/vllm-openai:v0.9.2",
        args,
        env=env,
        change_cause="qwen3-30b-a3b 2507 fp8 (UWC-88)",
    )
    rev9 = p.revision(
        9,
        p.ago(days=13, hours=6),
        "vllm/vllm-openai:v0.10.1.1",
        args,
        env=env,
        replicas=2,
        change_cause="vllm 0.10.1.1 (UWC-102)",
    )
    stable = k8s.Workload(
        name="vllm-qwen3-30b-a3b",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "uw-assistant",
            "app.kubernetes.io/component": "llm",
            "track": "stable",
        },
        revisions=[rev8, rev9],
        pods=[],
        created=p.ago(days=74),
        replicas=2,
        readiness=readiness,
        uid=k8s.new_uid(rng),
        memory="180Gi",
        memory_limit="220Gi",
        volumes=volumes,
        volume_mounts=mounts,
        pod_annotations=common_pod,
        annotations={"meta.helm.sh/release-name": "uw-assistant", "meta.helm.sh/release-namespace": NS},
        cluster_ip="172.20.118.40",
    )
    canary_args = [*args, "--max-num-batched-tokens", "8192"]
    crev1 = p.revision(
        1,
        split_since - timedelta(minutes=24),
        "vllm/vllm-openai:v0.10.2",
        canary_args,
        env=env,
        replicas=1,
        change_cause="canary: vllm 0.10.2 + max-num-batched-tokens 8192 (UWC-117)",
    )
    canary = k8s.Workload(
        name="vllm-qwen3-30b-a3b-canary",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "uw-assistant",
            "app.kubernetes.io/component": "llm",
            "track": "canary",
        },
        revisions=[crev1],
        pods=[],
        created=crev1.created,
        replicas=1,
        readiness=readiness,
        uid=k8s.new_uid(rng),
        memory="180Gi",
        memory_limit="220Gi",
        volumes=volumes,
        volume_mounts=mounts,
        pod_annotations=common_pod,
        annotations={
            "uw.example-insure.com/canary-of": "vllm-qwen3-30b-a3b",
            "uw.example-insure.com/canary-weight": "10",
            "uw.example-insure.com/canary-started": iso(split_since),
            "uw.example-insure.com/canary-owner": "ml-platform",
        },
        cluster_ip="172.20.118.77",
    )
    load: dict[str, Any] = dict(
        prompt_len=2300, gen_len=310, ttft=0.24, itl=0.021, kv=0.29, util=74, fb_used=75_900
    )
    sfleet = Fleet(p, stable, job=f"{NS}/vllm", model=MODEL, service="")  # one PodMonitor for both tracks
    good = sfleet.add(
        rev9,
        gpu_nodes[node_a][0],
        [gpu_nodes[node_a][1][3]],
        "10.62.18.201",
        created=rev9.created + timedelta(minutes=2, seconds=14),
        rpm=290,
        **load,
    )
    bad = sfleet.add(
        rev9,
        gpu_nodes[node_b][0],
        [gpu_nodes[node_b][1][6]],
        "10.62.21.58",
        created=p.ago(days=4, hours=9, minutes=31),  # rescheduled after a node rotation
        rpm=290,
        **load,
    )
    cfleet = Fleet(p, canary, job=f"{NS}/vllm", model=MODEL, service="")
    can = cfleet.add(
        crev1,
        gpu_nodes[node_c][0],
        [gpu_nodes[node_c][1][2]],
        "10.62.25.144",
        created=crev1.created + timedelta(minutes=1),
        ready_after=timedelta(seconds=212),
        rpm=64,
        **{**load, "kv": 0.12, "util": 41},
    )

    # --- traffic: 10 % to the canary Service, the rest least-request over the two stable pods --------
    total = noisy(flat(c, 640.0), rng, 0.03).ints()
    first_frac = (c.at(k) - onset).total_seconds() / 60.0 if k < c.n else 0.0
    for i in range(c.n):
        to_canary = round(total[i] * 0.1 * (1 + rng.gauss(0, 0.05)))
        to_stable = total[i] - to_canary
        can.rep.codes[200][i] = float(to_canary)
        if i < k:
            share = 0.5 + rng.gauss(0, 0.02)
            good.rep.codes[200][i] = float(round(to_stable * share))
            bad.rep.codes[200][i] = float(to_stable - good.rep.codes[200][i])
            continue
        share_bad = 0.5 + 0.12 * first_frac if i == k else 0.61 + rng.gauss(0, 0.015)
        to_bad = round(to_stable * share_bad)
        errs = round(to_bad * (first_frac if i == k else 1.0))
        bad.rep.codes.setdefault(500, flat(c, 0.0))[i] = float(errs)
        bad.rep.codes[200][i] = float(to_bad - errs)
        good.rep.codes[200][i] = float(to_stable - to_bad)
    frozen_run, frozen_kv = bad.rep.running[k - 1], bad.rep.kv[k - 1]
    for i in range(k, c.n):  # the engine is gone: its gauges stop moving and nothing is prefilled any more
        bad.rep.running[i], bad.rep.kv[i], bad.rep.waiting[i] = frozen_run, frozen_kv, 0.0
    bad.rep.served_s = bad.rep.ok()
    good.rep.running = Series(v * (1.22 if i >= k else 1.0) for i, v in enumerate(good.rep.running)).map(
        lambda v: float(round(v))
    )
    good.rep.kv = Series(min(0.6, v * (1.2 if i >= k else 1.0)) for i, v in enumerate(good.rep.kv))
    gb = bad.gpus[0]
    for i in range(k, c.n):  # EngineCore exited: its CUDA context and memory are gone, the card is idle
        gb.util[i] = 0.0
        gb.fb_used[i] = 0.0
        gb.power[i] = round(69.0 + rng.random() * 3, 3)
        gb.temp[i] = float(max(30, round(gb.temp[i] - 0.9 * (i - k + 1))))
    gb.xid = Series(31.0 if i >= k else 0.0 for i in range(c.n))
    gb.xid_events = [(31, onset)]
    for g in good.gpus:
        g.util = Series(float(min(97, round(v * (1.15 if i >= k else 1.0)))) for i, v in enumerate(g.util))

    # --- other tenants on the same GPU nodes, and the gateway -----------------------------------------
    tenants: list[tuple[Fleet, Member]] = []
    act_rev = p.revision(
        4,
        p.ago(days=19),
        "nvcr.io/nvidia/tritonserver:25.01-py3",
        ["tritonserver", "--model-repository=/models"],
    )
    act_rev.replicas = 2
    actuarial = k8s.Workload(
        name="triton-lossdev-gbm",
        namespace="actuarial-models",
        container="triton",
        port=8000,
        labels={"app": "triton-lossdev-gbm", "team": "actuarial"},
        revisions=[act_rev],
        pods=[],
        created=p.ago(days=140),
        replicas=2,
        readiness={"httpGet": {"path": "/v2/health/ready", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="32Gi",
        memory_limit="48Gi",
        cpu="8",
        service_account="triton",
        cluster_ip="172.20.44.12",
    )
    afleet = Fleet(p, actuarial, job="actuarial-models/triton", model="lossdev_gbm", service="")
    for node, idx, ip in ((node_a, 0, "10.62.18.90"), (node_b, 1, "10.62.21.17")):
        m = afleet.add(
            act_rev, gpu_nodes[node][0], [gpu_nodes[node][1][idx]], ip, rpm=120, util=23, fb_used=9_400
        )
        tenants.append((afleet, m))
    vis_rev = p.revision(
        12, p.ago(days=6), "registry.example-insure.com/claims/vision-ocr:2.14.0", ["--port=8080"], replicas=1
    )
    vision = k8s.Workload(
        name="claims-vision-ocr",
        namespace="claims-vision",
        container="ocr",
        port=8080,
        labels={"app.kubernetes.io/name": "claims-vision-ocr"},
        revisions=[vis_rev],
        pods=[],
        created=p.ago(days=210),
        replicas=1,
        readiness={"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 15},
        uid=k8s.new_uid(rng),
        memory="24Gi",
        memory_limit="32Gi",
        cpu="6",
        service_account="default",
        cluster_ip="172.20.9.201",
    )
    vfleet = Fleet(p, vision, job="claims-vision/ocr", model="donut-claims-v3", service="")
    vm = vfleet.add(
        vis_rev,
        gpu_nodes[node_d][0],
        [gpu_nodes[node_d][1][4]],
        "10.62.29.33",
        rpm=40,
        util=37,
        fb_used=21_700,
    )
    tenants.append((vfleet, vm))
    gw_rev = p.revision(
        3,
        p.ago(days=33),
        "docker.io/istio/proxyv2:1.24.2",
        [
            "proxy",
            "router",
            "--domain",
            f"{GW_NS}.svc.cluster.local",
            "--proxyLogLevel=warning",
            "--log_output_level=default:info",
        ],
        replicas=1,
    )
    gateway = k8s.Workload(
        name="uw-gateway-istio",
        namespace=GW_NS,
        container="istio-proxy",
        port=8080,
        labels={
            "gateway.networking.k8s.io/gateway-name": "uw-gateway",
            "gateway.istio.io/managed": "istio.io-gateway-controller",
            "istio.io/gateway-name": "uw-gateway",
        },
        revisions=[gw_rev],
        pods=[],
        created=p.ago(days=120),
        replicas=1,
        gpus=0,
        cpu="2",
        memory="1Gi",
        memory_limit="2Gi",
        readiness={"httpGet": {"path": "/healthz/ready", "port": 15021}, "periodSeconds": 2},
        tolerations=[],
        uid=k8s.new_uid(rng),
        service_account="uw-gateway-istio",
        pod_annotations={
            "prometheus.io/path": "/stats/prometheus",
            "prometheus.io/port": "15020",
            "prometheus.io/scrape": "true",
        },
        cluster_ip="172.20.201.6",
    )
    gfleet = Fleet(p, gateway, job="istio-system/envoy-stats-monitor", model="-", service="")
    gw_pods = [
        gfleet.add(gw_rev, cpu_nodes[j], [], f"10.62.{[4, 6][j]}.{23 + j * 31}", rpm=1) for j in range(1)
    ]

    # --- metrics -------------------------------------------------------------------------------------
    ex.vllm(p.om, [good.rep, bad.rep, can.rep], itl=False)
    gpu_series = [*sfleet.gpu_series(), *cfleet.gpu_series(), *[g for _, m in tenants for g in m.gpus]]
    # dcgm-exporter series of the assistant's GPUs (the other GPUs are in gpus.json)
    ex.dcgm(p.om, [*sfleet.gpu_series(), *cfleet.gpu_series()], driver=DRIVER)
    ex.ksm_pods(p.om, [good.timeline, bad.timeline, can.timeline])
    nts = [node_timeline(c, n, gpus=8, internal_ip=nd.internal_ip) for n, (nd, _) in gpu_nodes.items()]
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(p.om, namespace=NS, name=stable.name, spec=flat(c, 2), available=flat(c, 2))
    ex.ksm_deployment(p.om, namespace=NS, name=canary.name, spec=flat(c, 1), available=flat(c, 1))
    by_service = {
        stable.name: {
            code: good.rep.codes.get(code, flat(c, 0.0)) + bad.rep.codes.get(code, flat(c, 0.0))
            for code in (200, 500)
        },
        canary.name: {200: can.rep.codes[200]},
    }
    for svc, codes in by_service.items():
        for code, inc in codes.items():
            for gp in gw_pods[:1]:
                half = inc
                lab = {
                    "connection_security_policy": "unknown",
                    "container": "istio-proxy",
                    "destination_app": "unknown",
                    "destination_canonical_revision": "latest",
                    "destination_canonical_service": "unknown",
                    "destination_cluster": "unknown",
                    "destination_principal": "unknown",
                    "destination_service": f"{svc}.{NS}.svc.cluster.local",
                    "destination_service_name": svc,
                    "destination_service_namespace": NS,
                    "destination_version": "unknown",
                    "destination_workload": "unknown",
                    "destination_workload_namespace": "unknown",
                    "instance": f"{gp.ip}:15020",
                    "job": "istio-system/envoy-stats-monitor",
                    "namespace": GW_NS,
                    "pod": gp.name,
                    "reporter": "source",
                    "request_protocol": "http",
                    "response_code": str(code),
                    "response_flags": "-",
                    "source_app": "uw-gateway-istio",
                    "source_canonical_revision": "latest",
                    "source_canonical_service": "uw-gateway-istio",
                    "source_cluster": "Kubernetes",
                    "source_principal": f"spiffe://cluster.local/ns/{GW_NS}/sa/uw-gateway-istio",
                    "source_version": "unknown",
                    "source_workload": "uw-gateway-istio",
                    "source_workload_namespace": GW_NS,
                }
                seen = float(rng.randint(40, 400)) if code >= 500 else float(round(half[0] * 11_000))
                p.om.counter(
                    "istio_requests",
                    "Requests handled by the Istio proxy (Istio standard metric).",
                    lab,
                    half.ints(),
                    initial=seen,
                )
    codes_all = {200: by_service[stable.name][200] + can.rep.codes[200], 500: by_service[stable.name][500]}

    # --- the alert: Sloth availability SLO over the gateway's istio_requests_total --------------------
    sloth_alert(
        p,
        service="uw-assistant",
        slo="chat-availability",
        objective=0.999,
        bad=codes_all[500],
        total=sum_codes(codes_all, c.n),
        alertname="UwAssistantChatAvailabilityBurn",
        labels={"severity": "critical"},
        extra={"namespace": NS, "team": "uw-ml-platform"},
        description=(
            "5xx ratio of uw-assistant chat requests at the uw-gateway (istio_requests_total, reporter=source) "
            "is burning the 99.9% availability budget."
        ),
        prometheus="http://prometheus.monitoring.svc.cluster.local:9090",
        alertmanager="http://alertmanager.monitoring.svc.cluster.local:9093",
        runbook="https://runbooks.uw.example-insure.com/assistant/availability",
    )

    # --- logs: the assistant ---------------------------------------------------------------------------
    for m in (good, bad, can):
        alive = [True] * c.n if m is not bad else [i < k for i in range(c.n)]
        vllm_stats(p, m, alive=alive, every=3)
        p.access_logs(m.rep, src_of(m), vllm_access(), errors_after=onset, clients=[gw_pods[0].ip], every=3)
    ec = "EngineCore_0 pid=287"
    bus = gb.dev.kernel_pci
    sp = "/usr/local/lib/python3.12/dist-packages"
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 691, in run_engine_core\n'
        "    engine_core.run_busy_loop()\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 718, in run_busy_loop\n'
        "    self._process_engine_step()\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 743, in _process_engine_step\n'
        "    outputs, model_executed = self.step_fn()\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 288, in step\n'
        "    model_output = self.execute_model_with_error_logging(\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 274, in execute_model_with_error_logging\n'
        "    raise err\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 265, in execute_model_with_error_logging\n'
        "    return model_fn(scheduler_output)\n"
        f'  File "{sp}/vllm/v1/executor/abstract.py", line 87, in execute_model\n'
        '    output = self.collective_rpc("execute_model",\n'
        f'  File "{sp}/vllm/executor/uniproc_executor.py", line 58, in collective_rpc\n'
        "    answer = run_method(self.driver_worker, method, args, kwargs)\n"
        f'  File "{sp}/vllm/utils/__init__.py", line 3007, in run_method\n'
        "    return func(*args, **kwargs)\n"
        f'  File "{sp}/vllm/v1/worker/gpu_worker.py", line 362, in execute_model\n'
        "    output = self.model_runner.execute_model(scheduler_output,\n"
        f'  File "{sp}/torch/utils/_contextlib.py", line 116, in decorate_context\n'
        "    return func(*args, **kwargs)\n"
        f'  File "{sp}/vllm/v1/worker/gpu_model_runner.py", line 1661, in execute_model\n'
        "    valid_sampled_token_ids = sampled_token_ids.tolist()\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    t_err = onset + timedelta(milliseconds=362)
    req_ids = [p.ids.chatcmpl() for _ in range(3)]
    vllm_line_doc(
        p,
        bad,
        t_err,
        "ERROR",
        "dump_input.py:69",
        "Dumping input data for V1 LLM engine (v0.10.1.1) with config: model='/models/Qwen3-30B-A3B-Instruct-2507-FP8', "  # noqa: E501
        f"speculative_config=None, tokenizer='/models/Qwen3-30B-A3B-Instruct-2507-FP8', skip_tokenizer_init=False, "
        "tokenizer_mode=auto, revision=None, override_neuron_config={}, tokenizer_revision=None, trust_remote_code=False, "  # noqa: E501
        "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, "
        f"kv_cache_dtype=auto, served_model_name={MODEL}, enable_prefix_caching=True, chunked_prefill_enabled=True, ...",  # noqa: E501
        proc=ec,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=2),
        "ERROR",
        "dump_input.py:76",
        "Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[], "
        f"scheduled_cached_reqs=CachedRequestData(req_ids={req_ids!r}, resumed_from_preemption=[false, false, false], "
        "new_token_ids=[], new_block_ids=[null, null, null], num_computed_tokens=[2841, 5127, 1906]), "
        "num_scheduled_tokens={...}, total_num_scheduled_tokens=3, scheduled_spec_decode_tokens={}, "
        "scheduled_encoder_inputs={}, num_common_prefix_blocks=[0], finished_req_ids=[], free_encoder_input_ids=[], "
        "structured_output_request_ids={}, grammar_bitmask=null, kv_connector_metadata=null)",
        proc=ec,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=5),
        "ERROR",
        "core.py:700",
        "EngineCore encountered a fatal error.",
        proc=ec,
        error_type="RuntimeError",
        error_message="CUDA error: an illegal memory access was encountered",
        stack=trace,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=6),
        "ERROR",
        "core.py:700",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        proc=ec,
        error_type="RuntimeError",
        error_message="CUDA error: an illegal memory access was encountered",
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=58),
        "ERROR",
        "async_llm.py:416",
        "AsyncLLM output_handler failed.",
        error_type="EngineDeadError",
        error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
    )
    for i in range(k, c.n - 1):
        ts = p.ids.within(c.at(i), max(0.0, (onset - c.at(i)).total_seconds() + 1.0))
        vllm_line_doc(
            p,
            bad,
            ts,
            "ERROR",
            "serving_chat.py:1148",
            "Error in chat completion stream generator.",
            error_type="EngineDeadError",
            error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
        )
    for i in range(2, c.n - 1, 7):  # a caller sends an extra field the canary's protocol model ignores
        ts = p.ids.within(c.at(i))
        vllm_line_doc(
            p,
            can,
            ts,
            "WARNING",
            "protocol.py:81",
            "The following fields were present in the request but ignored: {'uw_case_ref'}",
        )
    # the kernel on the node of the failing pod: one MMU fault, no burst, no other Xid
    kernel = Source("kernel", None, None, node_b, None, dataset="system.syslog")
    p.logs.add(ecs(onset, f"NVRM: GPU at PCI:{bus}: {gb.dev.uuid}", kernel, level="error"))
    p.logs.add(
        ecs(
            onset + timedelta(microseconds=6),
            "NVRM: GPU Board Serial Number: 1654223017721",
            kernel,
            level="error",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(microseconds=11),
            f"NVRM: Xid (PCI:{bus}): 31, pid=2871455, name=VLLM::EngineCor, Ch 00000018, intr 00000000. "
            "MMU Fault: ENGINE GRAPHICS GPC4 GPCCLIENT_T1_11 faulted @ 0x7f1c_8a000000. "
            "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
            kernel,
            level="error",
            error_type="Xid 31",
            error_message="MMU Fault: ENGINE GRAPHICS GPC4 GPCCLIENT_T1_11 faulted",
        )
    )
    plugin = Source(
        "nvidia-device-plugin",
        "gpu-operator",
        "nvidia-device-plugin-daemonset-7mzq4",
        node_b,
        "nvidia-device-plugin",
    )
    tp = onset + timedelta(milliseconds=171)
    p.logs.add(
        ecs(
            tp,
            glog(
                tp,
                "I",
                "health.go:143",
                "Skipping event {Device:{Handle:0xc000aa6218} EventType:8 EventData:31 "
                "GpuInstanceId:4294967295 ComputeInstanceId:4294967295}",
            ),
            plugin,
            level="info",
        )
    )
    for j, gp in enumerate(gw_pods):
        src = Source("uw-gateway-istio", GW_NS, gp.name, gp.node.name, "istio-proxy")
        for i in range(c.n - 1):
            minute = c.at(i)
            lines: list[tuple[Member, int]] = []
            if i % 2 == j:
                lines += [(good, 200), (can, 200)] if i % 2 else [(bad if i < k else good, 200)]
            n500 = int(bad.rep.codes.get(500, flat(c, 0.0))[i + 1])
            lines += [(bad, 500)] * min(2, n500 // 2)
            for m, code in lines:
                lo = (onset - minute).total_seconds() + 1 if code >= 500 and onset > minute else 0.0
                ts = p.ids.within(minute, max(0.0, min(59.0, lo)))
                svc = stable.name if m is not can else canary.name
                dur = rng.randint(2, 6) if code >= 500 else int(1000 * rng.lognormvariate(1.9, 0.45))
                line = istio_access(
                    ts,
                    status=code,
                    duration_ms=dur,
                    upstream=f"{m.ip}:8000",
                    cluster=f"outbound|8000||{svc}.{NS}.svc.cluster.local",
                    client=p.ids.ip("10.62"),
                    agent=rng.choice(["uw-workbench/7.3.1", *CLIENTS[:2]]),
                    request_id=p.ids.request_id(),
                    authority="assistant.uw.example-insure.com",
                    route=f"{NS}.uw-assistant.0",
                    local=gp.ip,
                    bytes_sent=0 if code >= 500 else rng.randint(1400, 4200),
                    ports=(rng.randint(33000, 60999), rng.randint(1024, 65000)),
                )
                p.logs.add(ecs(ts, line, src, level="info", status=code))

    # --- logs: other tenants ---------------------------------------------------------------------------
    for _, m in tenants[:2]:
        src = Source("triton-lossdev-gbm", "actuarial-models", m.name, m.node.name, "triton")
        for i in range(0, c.n - 1, 9):
            ts = p.ids.within(c.at(i))
            p.logs.add(
                ecs(
                    ts,
                    glog(
                        ts,
                        "I",
                        "model_lifecycle.cc:839",
                        "\"successfully loaded 'lossdev_gbm' version 7\""
                        if i == 0
                        else '"Polling model repository"',
                    ),
                    src,
                    level="info",
                )
            )
    vsrc = Source("claims-vision-ocr", "claims-vision", vm.name, vm.node.name, "ocr")
    for i in range(1, c.n - 1, 4):
        ts = p.ids.within(c.at(i))
        if i % 3 == 0:
            msg = (
                f"ERROR ocr.pipeline: claim CLM-{rng.randint(4_100_000, 4_199_999)} page {rng.randint(1, 9)} "
                "rejected: image resolution 412x300 below minimum 800x600"
            )
            p.logs.add(ecs(ts, msg, vsrc, level="error", error_type="LowResolutionImage"))
        else:
            p.logs.add(
                ecs(
                    ts,
                    f"INFO ocr.pipeline: processed batch of {rng.randint(4, 19)} pages in "
                    f"{rng.uniform(1.2, 6.5):.2f}s",
                    vsrc,
                    level="info",
                )
            )
    loki = Source("loki", "observability", "loki-write-2", cpu_nodes[1].name, "loki")
    for i in range(3, c.n - 1, 6):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f"level=warn ts={iso(ts, ms=True)} caller=grpc_logging.go:76 method=/logproto.Pusher/Push "
                f'duration={rng.randint(5, 9)}.{rng.randint(100, 999)}s msg="gRPC" err="context canceled"',
                loki,
                level="warn",
            )
        )

    # --- events: only unrelated objects, several recurring since before the window ----------------------
    ev = [
        k8s.event(
            namespace="observability",
            kind="Pod",
            name="loki-write-2",
            uid=k8s.new_uid(rng),
            reason="Unhealthy",
            message="Readiness probe failed: HTTP probe failed with statuscode: 503",
            first=p.ago(days=2, hours=7),
            last=p.ago(minutes=11, seconds=40),
            count=186,
            host=cpu_nodes[1].name,
            field_path="spec.containers{loki}",
        ),
        k8s.event(
            namespace="default",
            kind="Node",
            name=cpu_nodes[0].name,
            uid=cpu_nodes[0].name,
            reason="FreeDiskSpaceFailed",
            message="Failed to garbage collect required amount of images. Attempted to free 9126805504 bytes, "
            "but only found 0 bytes eligible to free.",
            first=p.ago(days=9, hours=2),
            last=p.ago(minutes=4, seconds=12),
            count=61,
            component="kubelet",
            host=cpu_nodes[0].name,
        ),
        k8s.event(
            namespace="actuarial-models",
            kind="Pod",
            name="lossdev-nightly-backfill-29290680-q7kzt",
            uid=k8s.new_uid(rng),
            reason="BackOff",
            message="Back-off restarting failed container backfill in pod "
            "lossdev-nightly-backfill-29290680-q7kzt_actuarial-models(5d0c2a8e-7b1f-4a53-9c61-0e8f3b2d4a17)",
            first=p.ago(hours=3, minutes=48),
            last=p.ago(minutes=2, seconds=5),
            count=44,
            host=cpu_nodes[1].name,
            field_path="spec.containers{backfill}",
        ),
        k8s.event(
            namespace="claims-vision",
            kind="HorizontalPodAutoscaler",
            name="claims-vision-ocr",
            uid=k8s.new_uid(rng),
            reason="FailedGetResourceMetric",
            message="failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned "
            "from resource metrics API",
            first=p.ago(days=1, hours=5),
            last=p.ago(minutes=27),
            count=412,
            component="horizontal-pod-autoscaler",
            api_version="autoscaling/v2",
        ),
        k8s.event(
            namespace=GW_NS,
            kind="Pod",
            name=gw_pods[0].name,
            uid=gw_pods[0].uid,
            reason="Unhealthy",
            message='Readiness probe failed: Get "http://' + gw_pods[0].ip + ':15021/healthz/ready": '
            "dial tcp " + gw_pods[0].ip + ":15021: connect: connection refused",
            first=p.ago(days=4, hours=1),
            last=p.ago(minutes=38, seconds=16),
            count=3,
            host=cpu_nodes[1].name,
            field_path="spec.containers{istio-proxy}",
        ),
    ]

    # --- objects -------------------------------------------------------------------------------------
    p.objects.extend(sfleet.objects())
    p.objects.extend(cfleet.objects())
    applied = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"annotations": {}, "name": "uw-assistant", "namespace": NS},
        "spec": {
            "hostnames": ["assistant.uw.example-insure.com"],
            "parentRefs": [{"name": "uw-gateway", "namespace": GW_NS}],
            "rules": [
                {
                    "backendRefs": [
                        {"name": stable.name, "port": 8000, "weight": 90},
                        {"name": canary.name, "port": 8000, "weight": 10},
                    ],
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                    "timeouts": {"request": "300s"},
                }
            ],
        },
    }
    p.objects.append(
        k8s.httproute(
            name="uw-assistant",
            namespace=NS,
            gateway="uw-gateway",
            gateway_namespace=GW_NS,
            hostnames=["assistant.uw.example-insure.com"],
            backends=[(stable.name, 8000, 90), (canary.name, 8000, 10)],
            created=p.ago(days=74),
            changed=split_since,
            generation=14,
            controller="istio.io/gateway-controller",
            timeouts={"request": "300s"},
            annotations={
                "kubectl.kubernetes.io/last-applied-configuration": json.dumps(applied, separators=(",", ":"))
            },
        )
    )
    p.objects.extend(afleet.objects())
    p.objects.extend(vfleet.objects())
    p.objects.extend(gfleet.objects())
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in cpu_nodes)
    p.objects.extend(ev)

    used = {(g.dev.node, g.dev.index): g for g in gpu_series}
    readings = []
    for _, (_, devs) in gpu_nodes.items():
        for d in devs:
            readings.append(used.get((d.node, d.index)) or gpu_idle(c, rng, d))
    p.record_gpus(readings)

    p.expect("infrastructure", "INF_CUDA_ERROR", ("restart_pod", f"pod/{bad.name}"))
    p.forbidden = [
        ("cordon_node", f"node/{node_b}"),
        ("reroute", "httproute/uw-assistant"),
        ("rollback_deployment", f"deployment/{canary.name}"),
        ("rollback_deployment", f"deployment/{stable.name}"),
        ("restart_pod", f"pod/{good.name}"),
        ("restart_pod", f"pod/{can.name}"),
        ("restart_pod", f"pod/{tenants[1][1].name}"),
        ("cordon_node", f"node/{node_d}"),
    ]
    p.scope = [
        f"deployment/{stable.name}",
        f"pod/{good.name}",
        f"pod/{bad.name}",
        f"node/{node_a}",
        f"node/{node_b}",
        "httproute/uw-assistant",
    ]
    p.notes["onset"] = iso(onset)
    return p
