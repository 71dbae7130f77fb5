"""Two causes two minutes apart: a GPU falls off the bus (Xid 79), then a traffic surge fills the KV caches.

At 10:27:14 one A100 of `a100-dal2-r12-n07` falls off the bus (`NVRM: Xid (PCI:0000:87:00): 79,
... GPU has fallen off the bus.`). The vLLM 0.11 replica on it dies (`torch.AcceleratorError: CUDA
error: unspecified launch failure`, then `Engine core proc EngineCore_DP0 died unexpectedly`), the
API server shuts down and every restart fails before the process starts: the NVIDIA runtime hook
cannot query the lost GPU (`nvidia-container-cli: detection error: nvml error: gpu is lost`),
so the pod sits in CrashLoopBackOff with `StartError`. The device plugin marks the GPU unhealthy
(allocatable 8 -> 7). At 10:29:20 the dispatch re-planner starts its morning batch and arrivals
double: the two surviving replicas' KV caches fill to ~99 %, requests are preempted and queue, and
time to first token climbs until the latency page fires. The KV-cache pressure (`ENG_KV_CACHE`) is
real but second on the timeline and made worse by the lost replica: the earliest cause, and the
one to act on first, is the GPU. Another tenant's GPU on the same node keeps working.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from .. import exporters as ex
from .. import k8s
from ..common import hist_quantile, threshold_alert
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_stats
from ..fleet import BACKOFF, Fleet, Member
from ..logs import Source, ecs, glog, tgi_line
from ..pack import Pack
from ..series import Dist, Series, flat, iso, noisy, ramp
from ..traffic import gpu_idle, node_timeline
from .p16_canary_split_cuda_illegal_address import ExtPack

NAME = "two-causes-xid79-and-surge"
ENGINE = "vLLM 0.11.0 (V1 metric names) behind ingress-nginx, bare-metal A100 nodes (RKE2)"
NS = "dispatch-genai"
MODEL = "mistral-7b-instruct-v0.3"
DRIVER = "550.144.03"
METAL: dict[str, Any] = dict(
    kernel="5.15.0-131-generic",
    os_image="Ubuntu 22.04.5 LTS",
    kubelet_version="v1.30.9+rke2r1",
    runtime="containerd://1.7.23-k3s2",
    driver=DRIVER,
)
HOOK_ERROR = (
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
    "failed: unable to start container process: error during container init: error running hook #0: error "
    "running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
    "nvidia-container-cli: detection error: nvml error: gpu is lost: unknown"
)


def nginx_access(
    ts: Any,
    *,
    client: str,
    status: int,
    agent: str,
    req_len: int,
    req_time: float,
    upstream: str,
    up_len: int,
    up_status: str,
    req_id: str,
    body: int,
) -> str:
    """ingress-nginx's default `upstreaminfo` log format."""
    return (
        f'{client} - - [{ts.strftime("%d/%b/%Y:%H:%M:%S")} +0000] "POST /v1/chat/completions HTTP/1.1" {status} '
        f'{body} "-" "{agent}" {req_len} {req_time:.3f} [{NS}-vllm-mistral7b-dispatch-8000] [] {upstream} '
        f"{up_len} {req_time - 0.001 if up_status != '-' else 0:.3f} {up_status} {req_id}"
    )


def build() -> Pack:
    p = ExtPack(
        NAME,
        as_of="2026-09-15T10:52:00Z",
        namespace=NS,
        seed=1717,
        description=(
            "Dispatch assistant: answers take several seconds to start since about 10:32; one replica is in "
            "CrashLoopBackOff and the morning re-planning batch is running."
        ),
    )
    c, rng = p.clock, p.rng
    xid_at = p.t("10:27:14")
    surge0, surge1 = p.t("10:29:20"), p.t("10:33:30")
    k = c.idx(xid_at)

    # --- nodes ---------------------------------------------------------------------------------------
    gpu_nodes: dict[str, tuple[k8s.Node, list[Any]]] = {}
    for name, ip in (
        ("a100-dal2-r11-n04", "10.44.11.4"),
        ("a100-dal2-r11-n05", "10.44.11.5"),
        ("a100-dal2-r12-n07", "10.44.12.7"),
        ("a100-dal2-r12-n09", "10.44.12.9"),
    ):
        gpu_nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone="dal2",
            instance_type="dgx-a100-80g",
            product="NVIDIA A100-SXM4-80GB",
            pod_cidr=f"10.45.{len(gpu_nodes) * 4}.0/22",
            cpu=256,
            memory_mi=2_097_152,
            labels={"node-role.kubernetes.io/gpu": "true", "dal2.example.net/rack": name.split("-")[2]},
            taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            **METAL,
        )
    n04, n05, n07, n09 = list(gpu_nodes)
    cpu_nodes = [
        k8s.Node(
            name=name,
            internal_ip=ip,
            zone="dal2",
            instance_type="r650-cpu",
            cpu=64,
            memory_mi=524_288,
            uid=k8s.new_uid(rng),
            pod_cidr=cidr,
            labels={"node-role.kubernetes.io/worker": "true", "dal2.example.net/rack": "r03"},
            **METAL,
        )
        for name, ip, cidr in (
            ("cpu-dal2-r03-n02", "10.44.3.2", "10.45.32.0/22"),
            ("cpu-dal2-r03-n03", "10.44.3.3", "10.45.36.0/22"),
        )
    ]

    # --- the dispatch assistant -----------------------------------------------------------------------
    args = [
        "--model",
        "/mnt/models/mistralai/Mistral-7B-Instruct-v0.3",
        "--served-model-name",
        MODEL,
        "--max-model-len",
        "16384",
        "--max-num-seqs",
        "64",
        "--gpu-memory-utilization",
        "0.90",
        "--enable-prefix-caching",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "mistral",
        "--tokenizer-mode",
        "mistral",
    ]
    env = [{"name": "HF_HUB_OFFLINE", "value": "1"}, {"name": "VLLM_USAGE_SOURCE", "value": "dispatch-genai"}]
    rev4 = p.revision(
        4, p.ago(days=30), "vllm/vllm-openai:v0.10.2", args, env=env, change_cause="vllm 0.10.2"
    )
    rev5 = p.revision(
        5,
        p.ago(days=8, hours=2),
        "vllm/vllm-openai:v0.11.0",
        args,
        env=env,
        replicas=3,
        change_cause="vllm 0.11.0 (DSP-1409)",
    )
    w = k8s.Workload(
        name="vllm-mistral7b-dispatch",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "vllm", "app.kubernetes.io/instance": "mistral7b-dispatch"},
        revisions=[rev4, rev5],
        pods=[],
        created=p.ago(days=96),
        replicas=3,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5, "failureThreshold": 2},
        liveness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 20, "failureThreshold": 6},
        startup={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 60},
        uid=k8s.new_uid(rng),
        memory="64Gi",
        memory_limit="96Gi",
        cpu="12",
        volumes=[
            {
                "name": "models",
                "nfs": {"server": "nas-dal2-02.example.net", "path": "/export/models", "readOnly": True},
            },
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/mnt/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        cluster_ip="10.43.88.17",
    )
    fleet = Fleet(p, w, job="vllm-mistral7b-dispatch", model=MODEL)
    load: dict[str, Any] = dict(
        prompt_len=1900, gen_len=230, ttft=0.19, itl=0.017, kv=0.31, util=58, fb_used=72_400
    )
    members: dict[str, Member] = {}
    for j, (node, gidx, ip) in enumerate(
        ((n04, 2, "10.45.0.41"), (n05, 5, "10.45.4.23"), (n07, 4, "10.45.8.57"))
    ):
        members[node] = fleet.add(
            rev5,
            gpu_nodes[node][0],
            [gpu_nodes[node][1][gidx]],
            ip,
            created=rev5.created + timedelta(minutes=3 * j + 1),
            rpm=220,
            **load,
        )
    for m in members.values():  # A100 SXM4: ~60 W idle, 400 W TDP
        for g in m.gpus:
            g.power = noisy(g.util * 3.15 + 68, rng, 0.02).map(lambda v: round(min(v, 398.0), 3))
    bad = members[n07]
    alive = [members[n04], members[n05]]
    gb = bad.gpus[0]

    # --- the GPU falls off the bus: the engine dies, the container never starts again ----------------
    frac = (c.at(k) - xid_at).total_seconds() / 60.0
    in_flight = round(bad.rep.running[k - 1])
    bad.rep.down([i >= k for i in range(c.n)])
    bad.rep.codes[200][k] = float(round(220 * (1 - frac)))
    gb.present = [i < k for i in range(c.n)]
    gb.xid = Series(79.0 if i >= k else 0.0 for i in range(c.n))
    gb.xid_events = [(79, xid_at)]
    gb.temp = Series(0.0 if i >= k else v for i, v in enumerate(gb.temp))  # NVML: GPU is lost, no reading
    exited = xid_at + timedelta(seconds=1, milliseconds=640)
    attempts = []
    t = exited + timedelta(seconds=1, milliseconds=200)
    n_try = 0
    while t <= p.as_of:
        attempts.append(t)
        t = t + timedelta(seconds=BACKOFF[min(n_try, len(BACKOFF) - 1)] + rng.uniform(0.3, 1.5))
        n_try += 1
    tl = bad.timeline
    for i in range(k, c.n):
        tl.ready[i] = False
        tl.last_terminated[i] = "StartError" if c.at(i) > attempts[0] else "Completed"
        tl.waiting_reason[i] = "CrashLoopBackOff" if c.at(i) > attempts[0] else None
    for a in attempts:
        tl.restarts[min(c.n - 1, c.idx(a))] += 1
    assert bad.info is not None
    bad.info.ready = False
    bad.info.ready_since = xid_at + timedelta(seconds=6)
    bad.info.restarts = len(attempts)
    bad.info.last_terminated = {
        "containerID": k8s.container_id(rng),
        "exitCode": 128,
        "reason": "StartError",
        "message": HOOK_ERROR,
        "startedAt": "1970-01-01T00:00:00Z",
        "finishedAt": iso(attempts[-1]),
    }
    backoff_now = BACKOFF[min(len(attempts) - 1, len(BACKOFF) - 1)]
    bad.info.waiting = (
        "CrashLoopBackOff",
        k8s.crashloop_message(w.container, bad.name, NS, bad.uid, f"{backoff_now // 60}m{backoff_now % 60}s"),
    )

    # --- traffic: the survivors take the lost share, then the re-planning surge ------------------------
    base = noisy(flat(c, 660.0), rng, 0.03)
    surge = ramp(c, surge0, surge1, 1.0, 2.15, ease=True)
    sat = ramp(c, surge0 + timedelta(minutes=1), surge1 + timedelta(minutes=2), 0.0, 1.0, ease=True)
    offered_total = base * surge
    for m in alive:
        r = m.rep
        share = Series(0.5 if i >= k else 1 / 3 for i in range(c.n))
        offered = noisy(offered_total * share, rng, 0.03)
        ceiling = 505 + rng.uniform(-15, 15)
        r.codes[200] = offered.minimum(ceiling).ints()
        backlog, waiting = 0.0, []
        for i in range(c.n):
            backlog = max(0.0, backlog + offered[i] - r.codes[200][i])
            waiting.append(float(round(min(backlog, 47 + rng.uniform(-6, 6)))))
        r.waiting = Series(waiting)
        after = Series(1.0 if i >= k else 0.0 for i in range(c.n))
        r.kv = Series(
            min(
                0.994,
                r.kv[i] * (1 + 0.45 * after[i]) + (0.991 - r.kv[i]) * sat[i] + rng.uniform(-0.004, 0.003),
            )
            for i in range(c.n)
        )
        r.running = Series(
            float(
                min(
                    64,
                    round(
                        r.running[i] * (1 + 0.5 * after[i]) + (rng.uniform(58, 64) - r.running[i]) * sat[i]
                    ),
                )
            )
            for i in range(c.n)
        )
        r.preempt = Series(sat[i] * rng.uniform(14, 41) if sat[i] > 0.5 else 0.0 for i in range(c.n))
        r.ttft = Dist(noisy(flat(c, 0.19) + after * 0.05 + sat * 3.3, rng, 0.07), 0.58)
        r.itl = Dist(noisy(flat(c, 0.017) + after * 0.002 + sat * 0.031, rng, 0.05), 0.22)
        r.gen_len = r.gen_len * (1 + 0.05 * sat)
        r.derive_e2e()
        for g in m.gpus:
            g.util = Series(
                float(
                    min(
                        100,
                        round(
                            g.util[i] * (1 + 0.3 * after[i])
                            + (98.0 - g.util[i] * (1 + 0.3 * after[i])) * sat[i]
                        ),
                    )
                )
                for i in range(c.n)
            )
            g.power = noisy(g.util * 3.15 + 68, rng, 0.02).map(lambda v: round(min(v, 398.0), 3))

    # --- other tenants ----------------------------------------------------------------------------------
    geo_rev = p.revision(
        7,
        p.ago(days=15),
        "ghcr.io/huggingface/text-embeddings-inference:1.8",
        ["--model-id", "/data/models/gte-multilingual-base", "--port", "8080", "--max-batch-tokens", "65536"],
        replicas=1,
    )
    geo = k8s.Workload(
        name="tei-geo-embed",
        namespace="geo-embed",
        container="tei",
        port=8080,
        labels={"app": "tei-geo-embed"},
        revisions=[geo_rev],
        pods=[],
        created=p.ago(days=160),
        replicas=1,
        readiness={"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="16Gi",
        memory_limit="24Gi",
        cpu="4",
        service_account="default",
        cluster_ip="10.43.12.201",
    )
    geo_fleet = Fleet(p, geo, job="geo-embed/tei", model="gte-multilingual-base", service="")
    geo_pod = geo_fleet.add(
        geo_rev, gpu_nodes[n07][0], [gpu_nodes[n07][1][0]], "10.45.8.12", rpm=900, util=19, fb_used=3_100
    )
    judge_rev = p.revision(
        3,
        p.ago(days=4),
        "vllm/vllm-openai:v0.10.2",
        [
            "--model",
            "/mnt/models/Qwen/Qwen2.5-32B-Instruct",
            "--served-model-name",
            "eval-judge-32b",
            "--max-model-len",
            "8192",
        ],
        replicas=1,
    )
    judge = k8s.Workload(
        name="vllm-eval-judge",
        namespace="model-eval",
        container="vllm",
        port=8000,
        labels={"app": "vllm-eval-judge", "team": "ml-quality"},
        revisions=[judge_rev],
        pods=[],
        created=p.ago(days=52),
        replicas=1,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="96Gi",
        memory_limit="120Gi",
        service_account="default",
        cluster_ip="10.43.61.9",
    )
    judge_fleet = Fleet(p, judge, job="model-eval/vllm", model="eval-judge-32b", service="")
    judge_pod = judge_fleet.add(
        judge_rev, gpu_nodes[n09][0], [gpu_nodes[n09][1][6]], "10.45.12.88", rpm=30, util=44, fb_used=71_000
    )
    ctl_rev = p.revision(
        9,
        p.ago(days=40),
        "registry.k8s.io/ingress-nginx/controller:v1.12.1@sha256:d2fbc4ec70d8aa2050dd91a91506e998765e86c96f32cffb56c503c9c34eed5b",
        [
            "/nginx-ingress-controller",
            "--publish-service=$(POD_NAMESPACE)/ingress-nginx-internal-controller",
            "--election-id=ingress-nginx-internal-leader",
            "--controller-class=k8s.io/ingress-nginx",
            "--ingress-class=nginx",
            "--configmap=$(POD_NAMESPACE)/ingress-nginx-internal-controller",
        ],
        replicas=2,
    )
    ctl = k8s.Workload(
        name="ingress-nginx-internal-controller",
        namespace="ingress-nginx-internal",
        container="controller",
        port=80,
        labels={
            "app.kubernetes.io/name": "ingress-nginx",
            "app.kubernetes.io/instance": "ingress-nginx-internal",
            "app.kubernetes.io/component": "controller",
        },
        revisions=[ctl_rev],
        pods=[],
        created=p.ago(days=300),
        replicas=2,
        gpus=0,
        cpu="1",
        memory="1Gi",
        memory_limit="2Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/healthz", "port": 10254}, "periodSeconds": 10},
        metrics_port=10254,
        uid=k8s.new_uid(rng),
        service_account="ingress-nginx",
        cluster_ip="10.43.0.80",
    )
    ctl_fleet = Fleet(
        p,
        ctl,
        job="ingress-nginx-internal-controller-metrics",
        model="-",
        service="ingress-nginx-internal-controller-metrics",
    )
    ctl_pods = [
        ctl_fleet.add(ctl_rev, cpu_nodes[j], [], f"10.45.{32 + 4 * j}.{14 + j}", rpm=1) for j in range(2)
    ]

    for g in [*geo_pod.gpus, *judge_pod.gpus]:
        g.power = noisy(g.util * 3.15 + 68, rng, 0.02).map(lambda v: round(min(v, 398.0), 3))

    # --- metrics -------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(p.om, [*fleet.gpu_series(), *geo_pod.gpus], driver=DRIVER)
    ex.ksm_pods(p.om, fleet.timelines())
    nts = []
    for name, (gnode, _) in gpu_nodes.items():
        nt = node_timeline(c, name, gpus=8, internal_ip=gnode.internal_ip)
        if name == n07:
            nt.gpus_allocatable = Series(7.0 if i > k else 8.0 for i in range(c.n))
        nts.append(nt)
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=w.name,
        spec=flat(c, 3),
        available=Series(2.0 if i > k else 3.0 for i in range(c.n)),
    )
    # ingress-nginx: the metric's own namespace/service labels become exported_* under the ServiceMonitor
    ingress_codes: dict[int, Series] = {200: flat(c, 0.0), 502: flat(c, 0.0)}
    for m in fleet.members:
        ingress_codes[200] = ingress_codes[200] + m.rep.codes[200]
    ingress_codes[502][k] = float(in_flight)
    for j, cp in enumerate(ctl_pods):
        for code, inc in ingress_codes.items():
            part = (
                (inc * (0.5 + (0.015 if j else -0.015))).ints()
                if code == 200
                else Series(float(int(v) // 2 + (int(v) % 2 if j == 0 else 0)) for v in inc)
            )
            if code != 200 and not any(part):
                continue
            p.om.counter(
                "nginx_ingress_controller_requests",
                "The total number of client requests",
                {
                    "canary": "",
                    "container": "controller",
                    "controller_class": "k8s.io/ingress-nginx",
                    "controller_namespace": "ingress-nginx-internal",
                    "controller_pod": cp.name,
                    "endpoint": "metrics",
                    "exported_namespace": NS,
                    "exported_service": w.name,
                    "host": "dispatch-llm.ops.example.net",
                    "ingress": "dispatch-llm",
                    "instance": f"{cp.ip}:10254",
                    "job": "ingress-nginx-internal-controller-metrics",
                    "method": "POST",
                    "namespace": "ingress-nginx-internal",
                    "path": "/v1",
                    "pod": cp.name,
                    "service": "ingress-nginx-internal-controller-metrics",
                    "status": str(code),
                },
                part,
                initial=float(round(part[0] * 14_000)) if code == 200 else float(rng.randint(20, 300)),
                total_suffix=False,
            )

    # --- the alert: p95 time to first token over the deployment -----------------------------------------
    parts = [(m.rep.served(), m.rep.ttft, m.rep.present) for m in fleet.members]
    p95 = hist_quantile(0.95, ex.VLLM_TTFT, parts)
    threshold_alert(
        p,
        expr=(
            "histogram_quantile(0.95, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket"
            f'{{namespace="{NS}",model_name="{MODEL}"}}[5m]))) > 2.5'
        ),
        condition=[v > 2.5 for v in p95],
        value=p95,
        for_minutes=3,
        labels={
            "alertname": "DispatchLLMTimeToFirstTokenHigh",
            "namespace": NS,
            "model_name": MODEL,
            "service": w.name,
            "severity": "page",
            "team": "dispatch-ml",
        },
        summary="dispatch-genai: p95 time to first token above 2.5s",
        description="p95 time to first token of mistral-7b-instruct-v0.3 has been above 2.5s for 3 minutes; "
        "dispatchers see the assistant hang before answering.",
        prometheus="http://rancher-monitoring-prometheus.cattle-monitoring-system:9090",
        alertmanager="http://rancher-monitoring-alertmanager.cattle-monitoring-system:9093",
        value_format="{:.3g}",
        runbook="https://wiki.dal2.example.net/sre/runbooks/dispatch-llm-latency",
    )

    # --- logs: vLLM -------------------------------------------------------------------------------------
    for m in fleet.members:
        vllm_stats(p, m, every=2)
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[cp.ip for cp in ctl_pods], every=3)
    ec = "EngineCore_DP0 pid=311"
    sp = "/usr/local/lib/python3.12/dist-packages"
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 701, in run_engine_core\n'
        "    engine_core.run_busy_loop()\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 728, in run_busy_loop\n'
        "    self._process_engine_step()\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 754, in _process_engine_step\n'
        "    outputs, model_executed = self.step_fn()\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 284, in step\n'
        "    model_output = self.execute_model_with_error_logging(\n"
        f'  File "{sp}/vllm/v1/engine/core.py", line 270, in execute_model_with_error_logging\n'
        "    raise err\n"
        f'  File "{sp}/vllm/v1/worker/gpu_model_runner.py", line 2326, in execute_model\n'
        "    valid_sampled_token_ids = self._to_list(sampled_token_ids)\n"
        f'  File "{sp}/vllm/v1/worker/gpu_model_runner.py", line 3741, in _to_list\n'
        "    self.transfer_event.synchronize()\n"
        f'  File "{sp}/torch/cuda/streams.py", line 231, in synchronize\n'
        "    super().synchronize()\n"
        "torch.AcceleratorError: CUDA error: unspecified launch failure\n"
        "Search for `cudaErrorLaunchFailure' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html "  # noqa: E501
        "for more information.\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    te = xid_at + timedelta(milliseconds=420)
    vllm_line_doc(
        p,
        bad,
        te,
        "ERROR",
        "core.py:710",
        "EngineCore encountered a fatal error.",
        proc=ec,
        error_type="torch.AcceleratorError",
        error_message="CUDA error: unspecified launch failure",
        stack=trace,
    )
    vllm_line_doc(
        p,
        bad,
        te + timedelta(milliseconds=3),
        "ERROR",
        "core.py:710",
        "torch.AcceleratorError: CUDA error: unspecified launch failure",
        proc=ec,
        error_type="torch.AcceleratorError",
        error_message="CUDA error: unspecified launch failure",
    )
    vllm_line_doc(
        p,
        bad,
        te + timedelta(milliseconds=388),
        "ERROR",
        "core_client.py:564",
        "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
    )
    vllm_line_doc(
        p,
        bad,
        te + timedelta(milliseconds=402),
        "ERROR",
        "async_llm.py:480",
        "AsyncLLM output_handler failed.",
        error_type="EngineDeadError",
        error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
    )
    tsd = te + timedelta(milliseconds=560)
    for n_line, msg in enumerate(
        (
            "Shutting down",
            "Waiting for application shutdown.",
            "Application shutdown complete.",
            "Finished server process [1]",
        )
    ):
        tl_ts = tsd + timedelta(milliseconds=60 * n_line)
        p.logs.add(ecs(tl_ts, f"(APIServer pid=1) INFO:     {msg}", src_of(bad), level="info"))
    # the kernel and the device plugin on the node
    bus = gb.dev.kernel_pci
    kernel = Source("kernel", None, None, n07, None, dataset="system.syslog")
    klines = [
        (-0.041, "warn", f"pcieport 0000:80:03.1: AER: Uncorrected (Fatal) error received: {bus}.0"),
        (
            -0.040,
            "warn",
            f"nvidia {bus}.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, (Unregistered Agent ID)",
        ),
        (0.0, "error", f"NVRM: GPU at PCI:{bus}: {gb.dev.uuid}"),
        (0.000004, "error", "NVRM: GPU Board Serial Number: 1322021047719"),
        (
            0.000009,
            "error",
            f"NVRM: Xid (PCI:{bus}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        ),
        (0.000031, "error", f"NVRM: GPU {bus}.0: GPU has fallen off the bus."),
        (0.001870, "error", "NVRM: A GPU crash dump has been created. If possible, please run"),
        (0.001874, "error", "NVRM: nvidia-bug-report.sh as root to collect this data before"),
        (0.001877, "error", "NVRM: the NVIDIA kernel module is unloaded."),
        (
            0.411,
            "error",
            f"NVRM: Xid (PCI:{bus}): 79, pid=1853207, name=VLLM::EngineCor, GPU has fallen off the bus.",
        ),
    ]
    for off, level, msg in klines:
        xid = ": 79," in msg
        p.logs.add(
            ecs(
                xid_at + timedelta(seconds=off),
                msg,
                kernel,
                level=level,
                error_type="Xid 79" if xid else None,
                error_message="GPU has fallen off the bus." if xid else None,
            )
        )
    plugin = Source(
        "nvidia-device-plugin",
        "gpu-operator",
        "nvidia-device-plugin-daemonset-5lq9d",
        n07,
        "nvidia-device-plugin",
    )
    tp = xid_at + timedelta(seconds=1, milliseconds=904)
    p.logs.add(
        ecs(
            tp,
            glog(
                tp,
                "I",
                "health.go:159",
                f"XidCriticalError: Xid=79 on Device={gb.dev.uuid}; marking device as unhealthy.",
            ),
            plugin,
            level="info",
        )
    )
    p.logs.add(
        ecs(
            tp + timedelta(microseconds=880),
            glog(tp, "I", "server.go:359", f"'nvidia.com/gpu' device marked unhealthy: {gb.dev.uuid}"),
            plugin,
            level="info",
        )
    )
    # ingress-nginx: the in-flight requests of the dead replica, then everything slower
    for j, cp in enumerate(ctl_pods):
        src = Source("ingress-nginx", "ingress-nginx-internal", cp.name, cp.node.name, "controller")
        for i in range(c.n - 1):
            minute = c.at(i)
            if i % 2 == j:
                m = rng.choice(alive if i >= k else fleet.members)
                e2e = m.rep.ttft.median[i + 1] + m.rep.itl.median[i + 1] * m.rep.gen_len[i + 1]
                ts = p.ids.within(minute)
                heavy = minute >= surge0 and rng.random() < 0.55
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=p.ids.ip("10.44"),
                            status=200,
                            agent="dispatch-replanner/3.2.0 (python-httpx/0.27.2)"
                            if heavy
                            else rng.choice(["dispatch-console/5.8.2", "OpenAI/Python 1.109.1"]),
                            req_len=rng.randint(5200, 9400),
                            req_time=e2e * rng.uniform(0.7, 1.5),
                            upstream=f"{m.ip}:8000",
                            up_len=rng.randint(900, 2600),
                            up_status="200",
                            req_id=p.ids.hex(32),
                            body=rng.randint(900, 2600),
                        ),
                        src,
                        level="info",
                        status=200,
                    )
                )
        if j == 0:
            for n_err in range(3):
                ts = xid_at + timedelta(seconds=1, milliseconds=700 + 90 * n_err)
                p.logs.add(
                    ecs(
                        ts,
                        f"{ts.strftime('%Y/%m/%d %H:%M:%S')} [error] 41#41: *{2281734 + 17 * n_err} upstream prematurely "  # noqa: E501
                        f"closed connection while reading response header from upstream, client: {p.ids.ip('10.44')}, "
                        f'server: dispatch-llm.ops.example.net, request: "POST /v1/chat/completions HTTP/1.1", '
                        f'upstream: "http://{bad.ip}:8000/v1/chat/completions", host: "dispatch-llm.ops.example.net"',
                        src,
                        level="error",
                        status=502,
                    )
                )
                p.logs.add(
                    ecs(
                        ts + timedelta(milliseconds=1),
                        nginx_access(
                            ts,
                            client=p.ids.ip("10.44"),
                            status=502,
                            agent="dispatch-console/5.8.2",
                            req_len=rng.randint(5200, 9400),
                            req_time=rng.uniform(0.4, 7.5),
                            upstream=f"{bad.ip}:8000",
                            up_len=0,
                            up_status="502",
                            req_id=p.ids.hex(32),
                            body=150,
                        ),
                        src,
                        level="info",
                        status=502,
                    )
                )
            ts = xid_at + timedelta(seconds=3, milliseconds=212)
            p.logs.add(
                ecs(
                    ts,
                    f"{ts.strftime('%Y/%m/%d %H:%M:%S')} [error] 43#43: *2281911 connect() failed (111: Connection refused) "  # noqa: E501
                    f"while connecting to upstream, client: {p.ids.ip('10.44')}, server: dispatch-llm.ops.example.net, "
                    f'request: "POST /v1/chat/completions HTTP/1.1", upstream: "http://{bad.ip}:8000/v1/chat/completions", '  # noqa: E501
                    'host: "dispatch-llm.ops.example.net"',
                    src,
                    level="error",
                )
            )
    # other tenants
    gsrc = Source("tei-geo-embed", "geo-embed", geo_pod.name, n07, "tei")
    for i in range(0, c.n - 1, 3):
        ts = p.ids.within(c.at(i))
        tt = rng.uniform(2.1, 9.0)
        p.logs.add(
            ecs(
                ts,
                tgi_line(
                    ts,
                    "INFO",
                    "text_embeddings_router::http::server",
                    "router/src/http/server.rs:718",
                    "Success",
                    f'embed{{total_time="{tt:.6f}ms" tokenization_time="{tt * 0.2:.6f}ms" queue_time="{tt * 0.1:.6f}ms" '  # noqa: E501
                    f'inference_time="{tt * 0.65:.6f}ms"}}',
                ),
                gsrc,
                level="info",
            )
        )
    for i in range(
        4, c.n - 1, 10
    ):  # the eval harness sometimes sends over-long judge prompts (a caller error)
        ts = p.ids.within(c.at(i))
        asked = rng.randint(8300, 9900)
        vllm_line_doc(
            p,
            judge_pod,
            ts,
            "ERROR",
            "serving_chat.py:245",
            "Error in preprocessing prompt inputs",
            error_type="ValueError",
            error_message=f"This model's maximum context length is 8192 tokens. However, you requested {asked} tokens "
            f"({asked - 1024} in the messages, 1024 in the completion). Please reduce the length of the messages or "
            "completion.",
        )

    # --- events ----------------------------------------------------------------------------------------
    ev = [
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Unhealthy",
            message=f'Readiness probe failed: Get "http://{bad.ip}:8000/health": dial tcp {bad.ip}:8000: connect: connection refused',  # noqa: E501
            first=exited + timedelta(seconds=2),
            last=exited + timedelta(seconds=7),
            count=2,
            host=n07,
            field_path="spec.containers{vllm}",
        ),
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Pulled",
            message='Container image "vllm/vllm-openai:v0.11.0" already present on machine',
            first=attempts[0] - timedelta(milliseconds=300),
            last=attempts[-1] - timedelta(milliseconds=300),
            count=len(attempts),
            warning=False,
            host=n07,
            field_path="spec.containers{vllm}",
        ),
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Created",
            message="Created container: vllm",
            first=attempts[0] - timedelta(milliseconds=120),
            last=attempts[-1] - timedelta(milliseconds=120),
            count=len(attempts),
            warning=False,
            host=n07,
            field_path="spec.containers{vllm}",
        ),
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Failed",
            message="Error: " + HOOK_ERROR,
            first=attempts[0],
            last=attempts[-1],
            count=len(attempts),
            host=n07,
            field_path="spec.containers{vllm}",
        ),
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="BackOff",
            message=f"Back-off restarting failed container vllm in pod {bad.name}_{NS}({bad.uid})",
            first=attempts[0] + timedelta(seconds=1),
            last=p.ago(seconds=41),
            count=4 * len(attempts) + 3,
            host=n07,
            field_path="spec.containers{vllm}",
        ),
        k8s.event(
            namespace="ingress-nginx-internal",
            kind="Pod",
            name=ctl_pods[0].name,
            uid=ctl_pods[0].uid,
            reason="RELOAD",
            message="NGINX reload triggered due to a change in configuration",
            first=p.ago(days=12, hours=3),
            last=p.ago(minutes=23, seconds=9),
            count=211,
            warning=False,
            component="nginx-ingress-controller",
        ),
        k8s.event(
            namespace="model-eval",
            kind="Pod",
            name="nightly-eval-suite-29298540-z9dmt",
            uid=k8s.new_uid(rng),
            reason="BackOff",
            message="Back-off restarting failed container harness in pod nightly-eval-suite-29298540-z9dmt_model-eval"
            "(0b6e7c1d-52a4-4f0a-8e37-94d1c2b3a5f6)",
            first=p.ago(hours=4, minutes=12),
            last=p.ago(minutes=6, seconds=2),
            count=49,
            host=cpu_nodes[1].name,
            field_path="spec.containers{harness}",
        ),
        k8s.event(
            namespace="default",
            kind="Node",
            name=cpu_nodes[1].name,
            uid=cpu_nodes[1].name,
            reason="OOMKilling",
            message="Memory cgroup out of memory: Killed process 88122 (python) total-vm:"
            "41288044kB, anon-rss:31998112kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:63124kB oom_score_adj:999",
            first=p.ago(hours=4, minutes=13),
            last=p.ago(minutes=11, seconds=30),
            count=12,
            component="kernel-monitor",
            host=cpu_nodes[1].name,
        ),
        k8s.event(
            namespace="default",
            kind="Node",
            name=cpu_nodes[1].name,
            uid=cpu_nodes[1].name,
            reason="ImageGCFailed",
            message="failed to garbage collect required amount of images. Attempted to free 21474836480 bytes, but "
            "only found 3114287104 bytes eligible to free",
            first=p.ago(days=3, hours=5),
            last=p.ago(minutes=34),
            count=73,
            host=cpu_nodes[1].name,
        ),
    ]

    # --- objects -------------------------------------------------------------------------------------
    gpu_nodes[n07][0].allocatable_gpu = 7
    objs = fleet.objects()
    for o in objs:  # the Deployment lost its minimum availability when the replica went unready
        if o["kind"] == "Deployment":
            o["status"]["conditions"][0]["lastTransitionTime"] = iso(exited + timedelta(seconds=7))
            o["status"]["conditions"][0]["lastUpdateTime"] = iso(exited + timedelta(seconds=7))
    p.objects.extend(objs)
    p.objects.extend(geo_fleet.objects())
    p.objects.extend(judge_fleet.objects())
    p.objects.extend(ctl_fleet.objects())
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in cpu_nodes)
    p.objects.extend(ev)
    series = [*fleet.gpu_series(), *geo_pod.gpus, *judge_pod.gpus]
    used = {(g.dev.node, g.dev.index): g for g in series}
    p.record_gpus(
        [
            used.get((d.node, d.index)) or gpu_idle(c, rng, d)
            for _, (_, devs) in gpu_nodes.items()
            for d in devs
        ]
    )

    p.expect(
        "infrastructure",
        "INF_GPU_XID",
        ("cordon_node", f"node/{n07}"),
        ("restart_pod", f"pod/{bad.name}"),
    )
    p.forbidden = [
        ("restart_pod", f"pod/{geo_pod.name}"),
        ("restart_pod", f"pod/{members[n04].name}"),
        ("restart_pod", f"pod/{members[n05].name}"),
        ("cordon_node", f"node/{n04}"),
        ("cordon_node", f"node/{n05}"),
        ("cordon_node", f"node/{n09}"),
        ("rollback_deployment", f"deployment/{w.name}"),
        ("restart_pod", f"pod/{judge_pod.name}"),
    ]
    p.scope = [
        f"deployment/{w.name}",
        *[f"pod/{m.name}" for m in fleet.members],
        f"node/{n04}",
        f"node/{n05}",
        f"node/{n07}",
    ]
    p.extra = {
        "secondary": {
            "category": "inference_engine",
            "code": "ENG_KV_CACHE",
            "note": "the surge that started two minutes after the Xid 79 filled the survivors' KV caches",
        }
    }
    p.notes["onset"] = iso(xid_at)
    return p
