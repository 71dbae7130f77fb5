"""A log-level-only rollout completes cleanly; twelve minutes later a GPU falls off the bus (Xid 79).

At 14:24 the notes LLM is rolled out with one change: `VLLM_LOGGING_LEVEL` INFO -> DEBUG (same
image, model and args). The three new pods come up, log DEBUG chatter (`Called check_health.`,
`EngineCore loop active.`) and serve normally for ten minutes. At 14:36:18 the A100 of one new
pod falls off the bus: kernel `NVRM: Xid (PCI:...): 79, ... GPU has fallen off the bus.`, DCGM's
XID gauge, the device plugin marking the GPU unhealthy (allocatable 8 -> 7). The engine dies with
a CUDA error, the API server exits, and every restart fails before the container starts
(`nvidia-container-cli: detection error: nvml error: gpu is lost`): CrashLoopBackOff on that
node only. The other two replicas carry the load. The rollout is a bystander.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, threshold_alert
from ..engines import API, src_of, vllm_access, vllm_line_doc, vllm_startup, vllm_stats
from ..fleet import Fleet, Member, crash
from ..logs import LEVEL, Source, ecs, envoy_gateway_access, vllm_line
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import node_timeline
from ._tenancy import TenantPack, recurring_event, steady, tenant, vllm_lite, vllm_metrics

NAME = "loglevel-rollout-then-xid79"
ENGINE = "vLLM 0.10.2 (V1 metric names) behind Envoy Gateway, AKS ND A100 v4"
NS = "meet-notes"
DEPLOY = "vllm-granite33-8b-notes"
SERVED = "granite-3.3-8b-instruct"
IMAGE = "vllm/vllm-openai:v0.10.2"
GW_IP = "10.244.0.23"
GW_POD = "envoy-envoy-gateway-system-meet-gw-3f9a1c2e-6b7d9c8f5-kq2zt"
NVML_LOST = (
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
    "failed: unable to start container process: error during container init: error running prestart hook #0: "
    "exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
    "nvidia-container-cli: detection error: nvml error: gpu is lost: unknown"
)
BACKOFF = [0, 10, 20, 40, 80, 160, 300, 300, 300]


def debug(p: Pack, m: Member, ts: datetime, where: str, msg: str, proc: str | None = API) -> None:
    p.logs.add(ecs(ts, vllm_line(ts, "DEBUG", where, msg, proc), src_of(m), level=LEVEL["DEBUG"]))


def build() -> Pack:
    p = TenantPack(
        NAME,
        as_of="2026-09-10T14:52:00Z",
        namespace=NS,
        seed=2302,
        description="Meeting-notes LLM lost a replica this afternoon; a config change went out earlier.",
    )
    c, rng = p.clock, p.rng
    t_roll = p.t("14:24:18")
    onset = datetime.fromisoformat("2026-09-10T14:36:18.412+00:00")

    # --- nodes -------------------------------------------------------------------------------------------
    aks = dict(
        instance_type="Standard_ND96amsr_A100_v4",
        product="NVIDIA A100-SXM4-80GB",
        cpu=96,
        memory_mi=1_900_000,
        kernel="5.15.0-1079-azure",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.31.5",
        runtime="containerd://1.7.27-1",
        driver="550.144.03",
    )
    nodes = {}
    for suffix, octet in (("000001", 11), ("000002", 12), ("000004", 14), ("000006", 16)):
        name = f"aks-nda100v4-37125804-vmss{suffix}"
        nodes[name] = p.gpu_node(
            name,
            ip=f"10.224.0.{octet}",
            zone=f"westeurope-{1 + octet % 3}",
            pod_cidr=f"10.244.{octet}.0/24",
            labels={
                "topology.kubernetes.io/region": "westeurope",
                "kubernetes.azure.com/agentpool": "nda100v4",
                "kubernetes.azure.com/accelerator": "nvidia",
            },
            **aks,
        )
    n1, n2, n4, n6 = list(nodes)
    bad_node = n4
    sysnode = k8s.Node(
        name="aks-system-18243390-vmss000000",
        internal_ip="10.224.0.4",
        zone="westeurope-1",
        instance_type="Standard_D8ds_v5",
        cpu=8,
        memory_mi=32_768,
        uid=k8s.new_uid(rng),
        pod_cidr="10.244.0.0/24",
        kernel="5.15.0-1079-azure",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.31.5",
        runtime="containerd://1.7.27-1",
        labels={"topology.kubernetes.io/region": "westeurope", "kubernetes.azure.com/agentpool": "system"},
    )

    # --- the deployment: revision 12 only changes VLLM_LOGGING_LEVEL --------------------------------------------
    args = [
        "--model",
        "/models/granite-3.3-8b-instruct",
        "--served-model-name",
        SERVED,
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.90",
        "--max-num-seqs",
        "64",
        "--enable-prefix-caching",
    ]

    def env(level: str) -> list[dict[str, str]]:
        return [
            {"name": "HF_HUB_OFFLINE", "value": "1"},
            {"name": "VLLM_LOGGING_LEVEL", "value": level},
            {"name": "VLLM_USAGE_SOURCE", "value": "production-docker-image"},
        ]

    rev11 = p.revision(
        11, p.ago(days=16, hours=3), IMAGE, args, env=env("INFO"), change_cause="vllm 0.10.2 (MEET-2217)"
    )
    rev12 = p.revision(
        12,
        t_roll,
        IMAGE,
        args,
        env=env("DEBUG"),
        replicas=3,
        change_cause="temporarily raise vLLM log level to DEBUG for truncated summaries (MEET-2291)",
    )
    w = k8s.Workload(
        name=DEPLOY,
        namespace=NS,
        container="vllm",
        port=8000,
        labels={
            "app": DEPLOY,
            "app.kubernetes.io/part-of": "meet-notes",
            "azure.workload.identity/use": "false",
        },
        revisions=[rev11, rev12],
        pods=[],
        created=p.ago(days=95),
        replicas=3,
        max_surge=1,
        max_unavailable=0,
        readiness={
            "httpGet": {"path": "/health", "port": 8000},
            "periodSeconds": 10,
            "failureThreshold": 2,
            "timeoutSeconds": 3,
        },
        startup={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 60},
        uid=k8s.new_uid(rng),
        memory="64Gi",
        memory_limit="96Gi",
        cpu="10",
        volumes=[
            {"name": "models", "persistentVolumeClaim": {"claimName": "models-azurefile-premium"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        cluster_ip="10.0.148.61",
        node_selector={"kubernetes.azure.com/agentpool": "nda100v4"},
        service_account="vllm",
        generation=15,
    )
    fleet = Fleet(p, w, job=f"{NS}/vllm", model=SERVED, service="")  # scraped by a PodMonitor
    load = dict(prompt_len=2200, gen_len=420, ttft=0.24, itl=0.017, kv=0.22, util=71, fb_used=73_400)
    # old pods: (node, gpu, ip, deleted at); new pods: (node, gpu, ip, created, ready)
    plan_old = [
        (n2, 0, "10.244.12.31", p.t("14:25:53")),
        (n4, 1, "10.244.14.40", p.t("14:27:22")),
        (n1, 2, "10.244.11.18", p.t("14:28:59")),
    ]
    plan_new = [
        (n2, 5, "10.244.12.77", t_roll + timedelta(seconds=1), p.t("14:25:52")),
        (n4, 3, "10.244.14.62", p.t("14:25:53"), p.t("14:27:21")),
        (n1, 6, "10.244.11.90", p.t("14:27:22"), p.t("14:28:58")),
    ]
    olds, news = [], []
    for node_name, g, ip, deleted in plan_old:
        node, devs = nodes[node_name]
        m = fleet.add(rev11, node, [devs[g]], ip, deleted=deleted, rpm=300, **load)
        m.info = None
        olds.append(m)
    for node_name, g, ip, created, ready in plan_new:
        node, devs = nodes[node_name]
        news.append(
            fleet.add(
                rev12, node, [devs[g]], ip, created=created, ready_after=ready - created, rpm=300, **load
            )
        )
    bad = news[1]
    k = c.idx(onset)

    # --- who serves what ------------------------------------------------------------------------------------
    total = noisy(flat(c, 900.0), rng, 0.035)
    base_run = {m.name: Series(m.rep.running) for m in fleet.members}
    base_ttft = {m.name: Series(m.rep.ttft.median) for m in fleet.members}
    for i in range(c.n):
        up = [
            m for m in fleet.members if m.timeline.ready[i] and m.rep.present[i] and not (m is bad and i >= k)
        ]
        for m in fleet.members:
            if m not in up:
                m.rep.codes[200][i] = 0.0
                continue
            share = total[i] / len(up) * (1 + rng.gauss(0, 0.03))
            scale = share / 300.0
            m.rep.codes[200][i] = float(round(share))
            m.rep.running[i] = float(round(base_run[m.name][i] * scale))
            m.rep.kv[i] = min(0.93, m.rep.kv[i] * (0.4 + 0.6 * scale))
            m.rep.ttft.median[i] = base_ttft[m.name][i] * (1 + 0.9 * max(0.0, scale - 1))
            m.rep.waiting[i] = float(max(0, round((scale - 1.2) * 9 + rng.uniform(-1, 1.5))))
            for gs in m.gpus:
                gs.util[i] = float(min(97, round(71 * (0.55 + 0.45 * scale) + rng.uniform(-2, 2))))
    for m in fleet.members:
        m.rep.derive_e2e()
    # the fault minute: what the bad pod answered before, in flight, and after (connection refused)
    frac = (onset - c.at(k - 1)).total_seconds() / 60.0
    share_k = total[k] / 3.0
    in_flight = int(bad.rep.running[k - 1])
    crash(fleet, bad, onset + timedelta(milliseconds=380), None, in_flight=in_flight, exit_code=1)
    bad.rep.codes[200][k] = float(round(share_k * frac))
    bad.rep.codes.setdefault(503, flat(c, 0.0))[k] = float(round(share_k / 60.0 * 21.5))
    for m in (news[0], news[2]):
        m.rep.codes[200][k] = float(round(total[k] - share_k * (frac + (1 - frac) * 0.2)) / 2)
    # the kubelet's restarts: every start fails before the process runs (the GPU is lost)
    attempts = []
    t = onset + timedelta(seconds=1.9)
    for n_try, wait in enumerate(BACKOFF):
        t = t + timedelta(seconds=wait + (rng.uniform(0.3, 1.2) if n_try else 0))
        if t > p.as_of:
            break
        attempts.append(t)
    tl = bad.timeline
    tl.restarts = flat(c, 0.0)
    for a in attempts:
        tl.restarts[min(c.n - 1, c.idx(a))] += 1
    for i in range(k, c.n):
        tl.ready[i] = False
        tl.last_terminated[i] = "StartError" if c.at(i) > attempts[0] else "Error"
        tl.waiting_reason[i] = "CrashLoopBackOff" if c.at(i) > attempts[1] else None
    info = bad.info
    assert info is not None
    info.restarts = len(attempts)
    info.last_terminated = {
        "containerID": k8s.container_id(rng),
        "exitCode": 128,
        "reason": "StartError",
        "message": NVML_LOST,
        "startedAt": "1970-01-01T00:00:00Z",
        "finishedAt": iso(attempts[-1]),
    }
    info.waiting = (
        "CrashLoopBackOff",
        k8s.crashloop_message("vllm", bad.name, NS, bad.uid, "5m0s"),
    )
    info.ready = False
    info.ready_since = onset + timedelta(seconds=9)
    g_bad = bad.gpus[0]
    g_bad.present = (
        [g_bad.present[i] and i < k for i in range(c.n)] if g_bad.present else [i < k for i in range(c.n)]
    )
    g_bad.xid = Series(79.0 if i >= k else 0.0 for i in range(c.n))
    g_bad.xid_events = [(79, onset)]

    # --- other tenants ----------------------------------------------------------------------------------------
    hr = tenant(
        p,
        name="vllm-llama32-3b-hrfaq",
        namespace="hrfaq-copilot",
        image="vllm/vllm-openai:v0.9.2",
        args=[
            "--model",
            "/models/Llama-3.2-3B-Instruct",
            "--served-model-name",
            "llama-3.2-3b",
            "--max-model-len",
            "8192",
        ],
        placements=[(nodes[n6][0], [nodes[n6][1][0]], "10.244.16.25")],
        labels={"app": "vllm-llama32-3b-hrfaq", "team": "people-tech"},
        container="vllm",
        revision=4,
        age_days=150,
        rev_age_days=40,
        util=18,
        fb_used=71_900,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "timeoutSeconds": 1},
        cluster_ip="10.0.201.14",
    )
    asr = tenant(
        p,
        name="faster-whisper-meetnotes",
        namespace="meet-notes-asr",
        image="registry.meet.example.com/asr/faster-whisper-server:1.4.2",
        args=["--model", "large-v3", "--compute-type", "float16", "--port", "9000"],
        placements=[(nodes[n1][0], [nodes[n1][1][1]], "10.244.11.52")],
        labels={"app": "faster-whisper-meetnotes", "team": "meet-notes"},
        container="asr",
        port=9000,
        revision=9,
        age_days=95,
        rev_age_days=21,
        util=34,
        fb_used=11_300,
        cluster_ip="10.0.37.190",
    )
    api = tenant(
        p,
        name="meet-notes-api",
        namespace=NS,
        image="registry.meet.example.com/notes/api:2026.09.2",
        args=["serve", "--port", "8080"],
        placements=[(sysnode, [], "10.244.0.41"), (sysnode, [], "10.244.0.57")],
        labels={"app": "meet-notes-api", "app.kubernetes.io/part-of": "meet-notes"},
        container="api",
        port=8080,
        revision=58,
        age_days=95,
        rev_age_days=2,
        cpu="1",
        memory="1Gi",
        memory_limit="2Gi",
        cluster_ip="10.0.148.20",
    )
    tenants = [hr, asr, api]

    # --- metrics -----------------------------------------------------------------------------------------
    vllm_metrics(p.om, fleet.replicas())
    ex.dcgm(p.om, fleet.gpu_series() + hr.gpu_series(), driver="550.144.03")
    hr_rpm = steady(p, 22.0, 0.2)
    vllm_lite(
        p.om,
        labels={
            "instance": "10.244.16.25:8000",
            "job": "vllm-llama32-3b-hrfaq",
            "model_name": "llama-3.2-3b",
            "namespace": "hrfaq-copilot",
            "pod": hr.pods[0].info.name,
            "service": "vllm-llama32-3b-hrfaq",
        },
        rpm=hr_rpm,
        running=steady(p, 2.0, 0.4).map(lambda v: float(round(v))),
        kv=steady(p, 0.04, 0.2),
        gen_len=190,
        uptime_min=57_000,
    )
    ex.ksm_pods(p.om, fleet.timelines() + hr.timelines())
    nts = []
    for name, (node, _) in nodes.items():
        nt = node_timeline(c, name, gpus=8, internal_ip=node.internal_ip)
        if name == bad_node:
            nt.gpus_allocatable = Series(7.0 if i > k else 8.0 for i in range(c.n))
        nts.append(nt)
    nts.append(node_timeline(c, sysnode.name, internal_ip=sysnode.internal_ip))
    ex.ksm_nodes(p.om, nts)
    k_roll = c.idx(t_roll)
    available = fleet.ready_count().minimum(3)
    for i in range(k, c.n):
        available[i] = min(available[i], 2.0)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=DEPLOY,
        spec=flat(c, 3),
        available=available,
        updated=Series(
            float(3 if i < k_roll else sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)
        ),
        generation=Series(14.0 if i < k_roll else 15.0 for i in range(c.n)),
    )
    cluster = f"httproute/{NS}/notes-llm/rule/0"
    codes = fleet.codes()
    hr_codes = {200: hr_rpm.ints()}
    ex.envoy(
        p.om,
        {cluster: codes, "httproute/hrfaq-copilot/hr-faq/rule/0": hr_codes},
        gateway_namespace="envoy-gateway-system",
        gateway_pod=GW_POD,
    )
    sel = f'job="kube-state-metrics",namespace="{NS}",deployment="{DEPLOY}"'
    threshold_alert(
        p,
        expr=f"kube_deployment_status_replicas_available{{{sel}}} < kube_deployment_spec_replicas{{{sel}}}",
        condition=[available[i] < 3 for i in range(c.n)],
        value=available,
        for_minutes=3,
        labels={
            "alertname": "NotesLLMReplicasUnavailable",
            "deployment": DEPLOY,
            "namespace": NS,
            "severity": "page",
            "team": "meet-notes",
        },
        summary=f"{NS}/{DEPLOY}: fewer replicas available than desired",
        description=f"Deployment {NS}/{DEPLOY} has had fewer available replicas than desired for 3 minutes.",
        prometheus="https://prometheus.meet.example.com",
        alertmanager="https://alertmanager.meet.example.com",
        value_format="{:g}",
        runbook="https://runbooks.meet.example.com/notes-llm/replicas-unavailable",
    )

    # --- logs: the engines ----------------------------------------------------------------------------------
    non_default = (
        "{'model': '/models/granite-3.3-8b-instruct', 'served_model_name': ['granite-3.3-8b-instruct'], "
        "'max_model_len': 32768, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 64, "
        "'enable_prefix_caching': True}"
    )
    cfg = (
        "GraniteForCausalLM|model='/models/granite-3.3-8b-instruct', speculative_config=None, "
        "tokenizer='/models/granite-3.3-8b-instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, "
        "tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, "
        "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, served_model_name=granite-3.3-8b-instruct, "
        "enable_prefix_caching=True"
    )
    for m in olds:
        vllm_stats(p, m, every=3)
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[GW_IP], every=4)
    ec = "EngineCore_0 pid=211"
    for m in news:
        start = m.created + timedelta(seconds=4.2)
        for dt, where, msg in (
            (0.0, "__init__.py:43", "No plugins for group vllm.platform_plugins found."),
            (0.01, "__init__.py:51", "Checking if TPU platform is available."),
            (0.02, "__init__.py:69", "TPU platform is not available because: No module named 'libtpu'"),
            (0.03, "__init__.py:76", "Checking if CUDA platform is available."),
            (0.09, "__init__.py:96", "Confirmed CUDA platform is available."),
        ):
            debug(p, m, start + timedelta(seconds=dt), where, msg, proc=None)
        listening = vllm_startup(
            p,
            m,
            version="0.10.2",
            model_path="/models/granite-3.3-8b-instruct",
            served=SERVED,
            non_default=non_default,
            engine_config=cfg,
            weights_gib=15.24,
            kv_gib=54.9,
            kv_tokens=359_792,
            max_len=32768,
            start=start,
            engine_pid=211,
        )
        debug(
            p,
            m,
            start + timedelta(seconds=9.6),
            "utils.py:775",
            "Waiting for 1 local, 0 remote core engine proc(s) to start.",
        )
        debug(
            p,
            m,
            start + timedelta(seconds=19.6),
            "utils.py:775",
            "Waiting for 1 local, 0 remote core engine proc(s) to start.",
        )
        debug(
            p, m, listening + timedelta(seconds=0.4), "core.py:703", "EngineCore waiting for work.", proc=ec
        )
        debug(p, m, listening + timedelta(seconds=2.1), "core.py:709", "EngineCore loop active.", proc=ec)
        vllm_stats(p, m, every=3)
        saved = {code: s_[k] for code, s_ in m.rep.codes.items()} if m is bad else {}
        for code in saved:  # the fault minute of the bad pod is written below, line by line
            m.rep.codes[code][k] = 0.0
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[GW_IP], every=4)
        for code, v in saved.items():
            m.rep.codes[code][k] = v
        end = onset if m is bad else p.as_of
        ts = listening + timedelta(seconds=rng.uniform(1, 5))
        while ts < end:
            debug(p, m, ts, "async_llm.py:634", "Called check_health.")
            ts += timedelta(seconds=10 + rng.uniform(-0.05, 0.05))
    # the crash, in the bad pod's own words
    tb = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core\n'
        "    engine_core.run_busy_loop()\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 728, in run_busy_loop\n'
        "    self._process_engine_step()\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 754, in _process_engine_step\n'
        "    outputs, model_executed = self.step_fn()\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1711, in execute_model\n'  # noqa: E501
        "    valid_sampled_token_ids = sampled_token_ids.tolist()\n"
        "torch.AcceleratorError: CUDA error: unspecified launch failure\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    t_err = onset + timedelta(milliseconds=214)
    vllm_line_doc(
        p,
        bad,
        t_err,
        "ERROR",
        "core.py:710",
        "EngineCore encountered a fatal error.",
        proc=ec,
        error_type="torch.AcceleratorError",
        error_message="CUDA error: unspecified launch failure",
        stack=tb,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=2),
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
        t_err + timedelta(milliseconds=48),
        "ERROR",
        "async_llm.py:485",
        "AsyncLLM output_handler failed.",
        error_type="EngineDeadError",
        error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
    )
    for n_req in range(min(in_flight, 6)):
        vllm_line_doc(
            p,
            bad,
            t_err + timedelta(milliseconds=52 + 3 * n_req),
            "ERROR",
            "serving_chat.py:1020",
            "Error in chat completion stream generator.",
            error_type="EngineDeadError",
            error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
        )
    t_exit = t_err + timedelta(milliseconds=130)
    vllm_line_doc(
        p, bad, t_exit, "CRITICAL", "launcher.py:101", "AsyncLLMEngine has failed, terminating server process"
    )
    for n_line, msg in enumerate(
        (
            "Shutting down",
            "Waiting for application shutdown.",
            "Application shutdown complete.",
            "Finished server process [1]",
        )
    ):
        p.logs.add(
            ecs(t_exit + timedelta(milliseconds=20 + 9 * n_line), f"({API}) INFO:     {msg}", src_of(bad))
        )
    # the node: kernel, device plugin, kubelet
    dev = g_bad.dev
    bus = dev.kernel_pci
    kernel = Source("kernel", None, None, bad_node, None, dataset="system.syslog")
    for us, msg in (
        (0, f"NVRM: GPU at PCI:{bus}: {dev.uuid}"),
        (6, f"NVRM: Xid (PCI:{bus}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
        (31, f"NVRM: GPU {bus}.0: GPU has fallen off the bus."),
        (1_870, "NVRM: A GPU crash dump has been created. If possible, please run"),
        (1_874, "NVRM: nvidia-bug-report.sh as root to collect this data before"),
        (1_877, "NVRM: the NVIDIA kernel module is unloaded."),
        (
            161_030,
            f"NVRM: Xid (PCI:{bus}): 79, pid=2871304, name=VLLM::EngineCor, GPU has fallen off the bus.",
        ),
    ):
        xid = "Xid (PCI" in msg
        p.logs.add(
            ecs(
                onset + timedelta(microseconds=us),
                msg,
                kernel,
                level="error",
                error_type="Xid 79" if xid else None,
                error_message="GPU has fallen off the bus." if xid else None,
            )
        )
    plugin = Source(
        "nvidia-device-plugin",
        "gpu-operator",
        "nvidia-device-plugin-daemonset-7hx4q",
        bad_node,
        "nvidia-device-plugin",
    )
    t_pl = onset + timedelta(seconds=1, microseconds=702_418)
    p.logs.add(
        ecs(
            t_pl,
            f"I0910 {t_pl:%H:%M:%S}.{t_pl.microsecond:06d}       1 health.go:159] XidCriticalError: Xid=79 on Device={dev.uuid}; marking device as unhealthy.",  # noqa: E501
            plugin,
        )
    )
    t_pl2 = t_pl + timedelta(microseconds=811)
    p.logs.add(
        ecs(
            t_pl2,
            f"I0910 {t_pl2:%H:%M:%S}.{t_pl2.microsecond:06d}       1 server.go:359] 'nvidia.com/gpu' device marked unhealthy: {dev.uuid}",  # noqa: E501
            plugin,
        )
    )
    kubelet = Source("kubelet", None, None, bad_node, None, dataset="system.journal")
    for n_try, a in enumerate(attempts):
        cid = "".join(rng.choice("0123456789abcdef") for _ in range(64))
        a2 = a + timedelta(microseconds=rng.randint(180_000, 260_000))
        p.logs.add(
            ecs(
                a2,
                f'E0910 {a2:%H:%M:%S}.{a2.microsecond:06d}    3388 log.go:32] "StartContainer from runtime service failed" '  # noqa: E501
                f'err="rpc error: code = Unknown desc = {NVML_LOST}" containerID="{cid}"',
                kubelet,
                level="error",
                error_message=NVML_LOST,
            )
        )
        if n_try + 1 < len(BACKOFF):
            a3 = a2 + timedelta(microseconds=rng.randint(2_000, 6_000))
            back = BACKOFF[n_try + 1]
            back_s = f"{back // 60}m{back % 60}s" if back >= 60 else f"{back}s"
            p.logs.add(
                ecs(
                    a3,
                    f'E0910 {a3:%H:%M:%S}.{a3.microsecond:06d}    3388 pod_workers.go:1301] "Error syncing pod, skipping" '  # noqa: E501
                    f'err="failed to \\"StartContainer\\" for \\"vllm\\" with CrashLoopBackOff: \\"back-off {back_s} '
                    f'restarting failed container=vllm pod={bad.name}_{NS}({bad.uid})\\"" pod="{NS}/{bad.name}" '
                    f'podUID="{bad.uid}"',
                    kubelet,
                    level="error",
                )
            )
    # the bad pod's last access lines: answers finished before the crash, then the in-flight 500s
    t_kill = t_err + timedelta(milliseconds=60)
    for _ in range(2):
        ts = onset - timedelta(seconds=rng.uniform(1, 14))
        p.logs.add(
            ecs(ts, vllm_access()(ts, 200, f"{GW_IP}:{rng.randint(32768, 60999)}"), src_of(bad), status=200)
        )
    for n_req in range(min(in_flight, 4)):
        ts = t_kill + timedelta(milliseconds=2 + 3 * n_req)
        p.logs.add(
            ecs(ts, vllm_access()(ts, 500, f"{GW_IP}:{rng.randint(32768, 60999)}"), src_of(bad), status=500)
        )
    # the gateway
    gw = Source("envoy-gateway", "envoy-gateway-system", GW_POD, sysnode.name, "envoy")
    route_name = f"httproute/{NS}/notes-llm/rule/0/match/0/notes-llm_meet_example_com"
    saved = {code: s_[k] for code, s_ in bad.rep.codes.items()}
    for code in saved:
        bad.rep.codes[code][k] = 0.0
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=route_name,
        authority="notes-llm.meet.example.com",
        src=gw,
        every=5,
        errors_after=onset,
        clients="10.244.0",
        flags=lambda code: (
            ("UF", "upstream_reset_before_response_started{connection_failure}")
            if code == 503
            else ("-", "via_upstream")
        ),
        duration=lambda code, i: (
            rng.randint(1, 4)
            if code == 503
            else (rng.randint(300, 900) if code == 500 else int(1000 * rng.lognormvariate(2.0, 0.4)))
        ),
        agent=lambda i: "meet-notes-api/2026.09.2 python-httpx/0.28.1",
    )
    for code, v in saved.items():
        bad.rep.codes[code][k] = v
    for n_line in range(7):
        in_flight_line = n_line < 3
        if in_flight_line:
            dur = rng.randint(900, 9000)
            ts = t_kill + timedelta(milliseconds=3) - timedelta(milliseconds=dur)
            status, flag, details = 500, "-", "via_upstream"
        else:
            dur = rng.randint(0, 2)
            ts = onset + timedelta(seconds=rng.uniform(0.6, 20.5))
            status, flag, details = 503, "UF", "upstream_reset_before_response_started{connection_failure}"
        line = envoy_gateway_access(
            ts,
            status=status,
            flags=flag,
            details=details,
            duration_ms=dur,
            upstream=f"{bad.ip}:8000",
            cluster=cluster,
            route=route_name,
            authority="notes-llm.meet.example.com",
            client=p.ids.ip("10.244.0"),
            user_agent="meet-notes-api/2026.09.2 python-httpx/0.28.1",
            request_id=p.ids.request_id(),
            bytes_sent=21 if status == 500 else 91,
        )
        p.logs.add(ecs(ts + timedelta(milliseconds=dur), line, gw, status=status))  # written when it ends
    # other tenants and the notes API
    hr_src = Source("vllm-llama32-3b-hrfaq", "hrfaq-copilot", hr.pods[0].info.name, n6, "vllm")
    asr_src = Source("faster-whisper-meetnotes", "meet-notes-asr", asr.pods[0].info.name, n1, "asr")
    api_src = [Source("meet-notes-api", NS, tp.info.name, sysnode.name, "api") for tp in api.pods]
    for i in range(1, c.n - 1):
        minute = c.at(i)
        if i % 3 == 0:
            ts = minute - timedelta(seconds=rng.randint(2, 9))
            p.logs.add(
                ecs(
                    ts,
                    f"INFO {ts:%m-%d %H:%M:%S} [loggers.py:118] Engine 000: Avg prompt throughput: "
                    f"{rng.uniform(15, 60):.1f} tokens/s, Avg generation throughput: {rng.uniform(40, 90):.1f} tokens/s, "  # noqa: E501
                    f"Running: {rng.randint(0, 3)} reqs, Waiting: 0 reqs, GPU KV cache usage: {rng.uniform(1, 5):.1f}%, "  # noqa: E501
                    f"Prefix cache hit rate: {rng.uniform(8, 30):.1f}%",
                    hr_src,
                )
            )
        for _ in range(1):
            ts = p.ids.within(minute)
            dur = rng.uniform(3.1, 9.8)
            p.logs.add(
                ecs(
                    ts,
                    f"{ts:%Y-%m-%d %H:%M:%S},{ts.microsecond // 1000:03d} INFO faster_whisper: Processing audio with "
                    f"duration {int(dur // 60):02d}:{dur % 60:06.3f}",
                    asr_src,
                )
            )
        for j, src in enumerate(api_src):
            if (i + j) % 2:
                continue
            ts = p.ids.within(minute)
            p.logs.add(
                ecs(
                    ts,
                    f'{{"level":"info","ts":"{iso(ts, ms=True)}","logger":"notes.summarize","msg":"summary generated",'
                    f'"meeting_id":"m-{p.ids.hex(10)}","segments":{rng.randint(4, 40)},"llm_ms":{rng.randint(6000, 24000)}}}',  # noqa: E501
                    src,
                )
            )
    errs_500 = int(codes.get(500, flat(c, 0.0))[k])
    errs_503 = int(codes.get(503, flat(c, 0.0))[k])
    for n_err in range(min(5, errs_500 + errs_503)):
        ts = onset + timedelta(seconds=0.4 + 1.7 * n_err)
        status = 500 if n_err < min(2, errs_500) else 503
        p.logs.add(
            ecs(
                ts,
                f'{{"level":"warn","ts":"{iso(ts, ms=True)}","logger":"notes.llm","msg":"LLM call failed, retrying",'
                f'"status":{status},"attempt":1,"upstream":"notes-llm.meet.example.com"}}',
                api_src[n_err % 2],
                level="warn",
                status=status,
            )
        )

    # --- events ------------------------------------------------------------------------------------------
    ev = []
    old_rs, new_rs = f"{DEPLOY}-{rev11.hash}", f"{DEPLOY}-{rev12.hash}"

    def dep(at: datetime, msg: str) -> None:
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Deployment",
                name=DEPLOY,
                uid=w.uid,
                reason="ScalingReplicaSet",
                message=msg,
                first=at,
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )

    for j, (_, _, _, created, _) in enumerate(plan_new):
        dep(created, f"Scaled up replica set {new_rs} from {j} to {j + 1}")
        dep(plan_old[j][3], f"Scaled down replica set {old_rs} from {3 - j} to {2 - j}")
    for m in olds:
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Killing",
                message="Stopping container vllm",
                first=m.deleted,
                warning=False,
                host=m.node.name,
                field_path="spec.containers{vllm}",
            )
        )
    for m in news:
        for delay, reason, message, comp in (
            (0.0, "Scheduled", f"Successfully assigned {NS}/{m.name} to {m.node.name}", "default-scheduler"),
            (1.6, "Pulled", f'Container image "{IMAGE}" already present on machine', "kubelet"),
            (1.7, "Created", "Created container: vllm", "kubelet"),
            (2.1, "Started", "Started container vllm", "kubelet"),
        ):
            if m is bad and reason in ("Pulled", "Created"):
                continue  # its series (one event each, counted per restart) are written below
            ev.append(
                k8s.event(
                    namespace=NS,
                    kind="Pod",
                    name=m.name,
                    uid=m.uid,
                    reason=reason,
                    message=message,
                    first=m.created + timedelta(seconds=delay),
                    warning=False,
                    component=comp,
                    host=None if comp == "default-scheduler" else m.node.name,
                    field_path=None if comp == "default-scheduler" else "spec.containers{vllm}",
                )
            )
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Unhealthy",
                message=f'Startup probe failed: Get "http://{m.ip}:8000/health": dial tcp {m.ip}:8000: connect: connection refused',  # noqa: E501
                first=m.created + timedelta(seconds=12),
                last=m.created + timedelta(seconds=72),
                count=7,
                host=m.node.name,
                field_path="spec.containers{vllm}",
            )
        )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Unhealthy",
            message=f'Readiness probe failed: Get "http://{bad.ip}:8000/health": dial tcp {bad.ip}:8000: connect: connection refused',  # noqa: E501
            first=onset + timedelta(seconds=3.1),
            last=onset + timedelta(seconds=8.1),
            count=2,
            host=bad_node,
            field_path="spec.containers{vllm}",
        )
    )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Pulled",
            message=f'Container image "{IMAGE}" already present on machine',
            first=bad.created + timedelta(seconds=1.6),
            last=attempts[-1] - timedelta(milliseconds=80),
            count=len(attempts) + 1,
            warning=False,
            host=bad_node,
            field_path="spec.containers{vllm}",
        )
    )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Created",
            message="Created container: vllm",
            first=bad.created + timedelta(seconds=1.7),
            last=attempts[-1] - timedelta(milliseconds=40),
            count=len(attempts) + 1,
            warning=False,
            host=bad_node,
            field_path="spec.containers{vllm}",
        )
    )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="Failed",
            message=f"Error: {NVML_LOST}",
            first=attempts[0] + timedelta(milliseconds=233),
            last=attempts[-1] + timedelta(milliseconds=233),
            count=len(attempts),
            host=bad_node,
            field_path="spec.containers{vllm}",
        )
    )
    ev.append(
        k8s.event(
            namespace=NS,
            kind="Pod",
            name=bad.name,
            uid=bad.uid,
            reason="BackOff",
            message=f"Back-off restarting failed container vllm in pod {bad.name}_{NS}({bad.uid})",
            first=attempts[1] + timedelta(milliseconds=240),
            last=p.as_of - timedelta(seconds=14),
            count=len(attempts) * 3 + 2,
            host=bad_node,
            field_path="spec.containers{vllm}",
        )
    )
    # unrelated recurring noise, series that started days ago
    hr_pod = hr.pods[0].info
    ev.append(
        recurring_event(
            p,
            namespace="hrfaq-copilot",
            kind="Pod",
            name=hr_pod.name,
            uid=hr_pod.uid,
            reason="Unhealthy",
            message=f'Readiness probe failed: Get "http://{hr_pod.ip}:8000/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',  # noqa: E501
            first=p.ago(days=5, hours=2),
            last=p.t("14:19:44"),
            count=41,
            host=n6,
            field_path="spec.containers{vllm}",
        )
    )
    ev.append(
        recurring_event(
            p,
            namespace=NS,
            kind="HorizontalPodAutoscaler",
            name="meet-notes-api",
            uid=k8s.new_uid(rng),
            reason="FailedGetResourceMetric",
            message="failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",  # noqa: E501
            first=p.ago(days=12, hours=6),
            last=p.t("14:49:31"),
            count=212,
            component="horizontal-pod-autoscaler",
            api_version="autoscaling/v2",
        )
    )
    ev.append(
        recurring_event(
            p,
            namespace="default",
            kind="Node",
            name=sysnode.name,
            uid=sysnode.uid,
            reason="ImageGCFailed",
            message="wanted to free 3221225472 bytes, but freed 0 bytes space with errors in image deletion",
            first=p.ago(days=7, hours=1),
            last=p.t("14:03:10"),
            count=96,
            host=sysnode.name,
        )
    )

    # --- objects -----------------------------------------------------------------------------------------
    nodes[bad_node][0].allocatable_gpu = 7
    objs = fleet.objects()
    for cond in objs[0]["status"]["conditions"]:
        if cond["type"] == "Available":
            cond["lastTransitionTime"] = cond["lastUpdateTime"] = iso(onset + timedelta(seconds=9))
        if cond["type"] == "Progressing":
            cond["lastUpdateTime"] = iso(plan_new[-1][4] + timedelta(seconds=1))
    p.objects.extend(objs)
    for t_ in tenants:
        p.objects.extend(t_.objects(p.as_of))
    p.objects.append(
        k8s.httproute(
            name="notes-llm",
            namespace=NS,
            gateway="meet-gw",
            gateway_namespace="envoy-gateway-system",
            hostnames=["notes-llm.meet.example.com"],
            backends=[(DEPLOY, 8000, 1)],
            created=p.ago(days=95),
            timeouts={"request": "180s"},
        )
    )
    p.objects.append(
        k8s.httproute(
            name="hr-faq",
            namespace="hrfaq-copilot",
            gateway="meet-gw",
            gateway_namespace="envoy-gateway-system",
            hostnames=["hr-faq.meet.example.com"],
            backends=[("vllm-llama32-3b-hrfaq", 8000, 1)],
            created=p.ago(days=150),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.append(sysnode.object(p.as_of))
    p.objects.extend(ev)
    p.record_gpus([g for m in news for g in m.gpus] + hr.gpu_series() + asr.gpu_series())

    # --- the answer -----------------------------------------------------------------------------------------
    p.expect(
        "infrastructure",
        "INF_GPU_XID",
        ("cordon_node", f"node/{bad_node}"),
        ("restart_pod", f"pod/{bad.name}"),
    )
    p.forbid("rollback_deployment", f"deployment/{DEPLOY}")
    for name in (n1, n2, n6, sysnode.name):
        p.forbid("cordon_node", f"node/{name}")
    for m in (news[0], news[2]):
        p.forbid("restart_pod", f"pod/{m.name}")
    for t_ in tenants:
        for tp in t_.pods:
            p.forbid("restart_pod", f"pod/{tp.info.name}")
        p.forbid("rollback_deployment", f"deployment/{t_.workload.name}")
    p.scope = [
        f"deployment/{DEPLOY}",
        *[f"pod/{m.name}" for m in news],
        *[f"node/{m.node.name}" for m in news],
        "httproute/notes-llm",
    ]
    p.notes["onset"] = iso(onset)
    return p
