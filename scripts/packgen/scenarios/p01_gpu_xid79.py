"""A GPU falls off the bus (Xid 79) on one node; only the vLLM pod on that node fails.

The pod's readiness probe (`/v1/models`) keeps passing and `VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1`
keeps the API server up after the engine died, so the gateway keeps sending it traffic and it
answers 500 to everything; with least-request balancing the fast-failing pod even draws more
than its share. Kernel NVRM lines, DCGM's XID gauge, the device plugin marking the GPU unhealthy
(allocatable 8 -> 7) and the CUDA error in the pod all sit on that one node.
"""

from __future__ import annotations

from datetime import timedelta

from .. import exporters as ex
from .. import k8s
from ..common import gateway_logs, sloth_alert, sum_codes
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_stats
from ..fleet import Fleet
from ..logs import Source, ecs
from ..pack import Pack
from ..series import Series, flat, iso
from ..traffic import node_timeline

NAME = "gpu-xid79-fell-off-bus"
ENGINE = "vLLM 0.10.1 (V1 metric names)"
GW_IP = "10.40.2.77"


def build() -> Pack:
    p = Pack(
        NAME,
        as_of="2026-06-02T03:41:00Z",
        namespace="assist-prod",
        seed=101,
        description=(
            "Night traffic on the assistant chat API; one replica starts answering 500 to every request "
            "while the other two stay healthy."
        ),
    )
    c, rng = p.clock, p.rng
    ns = "assist-prod"
    onset = p.t("03:27:48")

    nodes = {}
    for name, ip, zone, cidr in (
        ("ip-10-40-12-201.us-west-2.compute.internal", "10.40.12.201", "us-west-2a", "10.40.12.0/24"),
        ("ip-10-40-13-88.us-west-2.compute.internal", "10.40.13.88", "us-west-2b", "10.40.13.0/24"),
        ("ip-10-40-14-37.us-west-2.compute.internal", "10.40.14.37", "us-west-2c", "10.40.14.0/24"),
    ):
        nodes[name] = p.gpu_node(
            name,
            ip=ip,
            zone=zone,
            instance_type="p5.48xlarge",
            product="NVIDIA H100 80GB HBM3",
            pod_cidr=cidr,
            kernel="5.10.223-211.872.amzn2.x86_64",
            os_image="Amazon Linux 2",
            kubelet_version="v1.30.4-eks-a737599",
        )
    good1, bad_name, good2 = list(nodes)
    cpu_node = k8s.Node(
        name="ip-10-40-2-19.us-west-2.compute.internal",
        internal_ip="10.40.2.19",
        zone="us-west-2a",
        instance_type="m6i.4xlarge",
        cpu=16,
        memory_mi=65_536,
        uid=k8s.new_uid(rng),
        pod_cidr="10.40.2.0/24",
        kernel="5.10.223-211.872.amzn2.x86_64",
        os_image="Amazon Linux 2",
        kubelet_version="v1.30.4-eks-a737599",
    )

    args = [
        "--model",
        "/models/Qwen2.5-14B-Instruct",
        "--served-model-name",
        "qwen2.5-14b-instruct",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.92",
        "--max-num-seqs",
        "128",
        "--enable-prefix-caching",
        "--port",
        "8000",
    ]
    env = [
        {"name": "HF_HUB_OFFLINE", "value": "1"},
        {"name": "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "value": "1"},
    ]
    rev6 = p.revision(6, p.ago(days=12, hours=4), "vllm/vllm-openai:v0.9.2", args, env=env)
    rev7 = p.revision(
        7, p.ago(days=5, hours=2, minutes=13), "vllm/vllm-openai:v0.10.1.1", args, env=env, replicas=3
    )
    w = k8s.Workload(
        name="vllm-qwen25-14b",
        namespace=ns,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "vllm-qwen25-14b",
            "app.kubernetes.io/component": "inference",
            "app.kubernetes.io/part-of": "assist-chat",
        },
        revisions=[rev6, rev7],
        pods=[],
        created=p.ago(days=61),
        replicas=3,
        readiness={
            "httpGet": {"path": "/v1/models", "port": 8000, "scheme": "HTTP"},
            "periodSeconds": 10,
            "timeoutSeconds": 2,
            "failureThreshold": 3,
            "successThreshold": 1,
        },
        uid=k8s.new_uid(rng),
        volumes=[
            {"name": "models", "persistentVolumeClaim": {"claimName": "models-fsx"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        cluster_ip="172.20.41.118",
    )
    fleet = Fleet(p, w, job="vllm-qwen25-14b", model="qwen2.5-14b-instruct")
    made = {}
    for node_name, gpu_index, ip in (
        (good1, 2, "10.40.12.57"),
        (bad_name, 4, "10.40.13.140"),
        (good2, 6, "10.40.14.23"),
    ):
        node, devs = nodes[node_name]
        made[node_name] = fleet.add(
            rev7,
            node,
            [devs[gpu_index]],
            ip,
            created=rev7.created + timedelta(minutes=3 * len(made)),
            rpm=330,
            prompt_len=1400,
            gen_len=260,
            ttft=0.21,
            itl=0.026,
            kv=0.31,
            util=81,
            fb_used=75_310,
        )
    bad = made[bad_name]
    node_bad, devs_bad = nodes[bad_name]
    gpu_bad = bad.gpus[0]

    # --- the fault -------------------------------------------------------------------------------------
    k = c.idx(onset)
    first_frac = (c.at(k) - onset).total_seconds() / 60.0
    total = fleet.members[0].rep.ok() + fleet.members[1].rep.ok() + fleet.members[2].rep.ok()
    for i in range(k, c.n):
        share = 0.47 if i > k else 0.34
        to_bad = round(total[i] * share)
        frac_err = first_frac if i == k else 1.0
        errs = round(to_bad * frac_err)
        bad.rep.codes.setdefault(500, flat(c, 0.0))[i] = float(errs)
        bad.rep.codes[200][i] = float(round(to_bad - errs))
        rest = total[i] - to_bad
        for m in (made[good1], made[good2]):
            m.rep.codes[200][i] = float(round(rest / 2 + rng.gauss(0, 3)))
    frozen_run, frozen_kv = bad.rep.running[k - 1], bad.rep.kv[k - 1]
    for i in range(k, c.n):  # the engine is dead: its gauges stop moving, nothing is prefilled any more
        bad.rep.running[i], bad.rep.kv[i], bad.rep.waiting[i] = frozen_run, frozen_kv, 0.0
    bad.rep.served_s = bad.rep.ok()
    for m in (made[good1], made[good2]):
        m.rep.running = Series(m.rep.running[i] * (0.8 if i >= k else 1.0) for i in range(c.n))
    gpu_bad.present = [i < k for i in range(c.n)]
    gpu_bad.xid = Series(79.0 if i >= k else 0.0 for i in range(c.n))
    gpu_bad.xid_events = [(79, onset)]
    for g in (made[good1].gpus[0], made[good2].gpus[0]):
        for i in range(k, c.n):
            g.util[i] = float(min(100, round(g.util[i] * 0.82)))

    # --- metrics -----------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(p.om, fleet.gpu_series())
    ex.ksm_pods(p.om, fleet.timelines())
    nts = []
    for name, (node, _) in nodes.items():
        nt = node_timeline(c, name, gpus=8, internal_ip=node.internal_ip)
        if name == bad_name:
            nt.gpus_allocatable = Series(7.0 if i > k else 8.0 for i in range(c.n))
        nts.append(nt)
    nts.append(node_timeline(c, cpu_node.name, internal_ip=cpu_node.internal_ip))
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(p.om, namespace=ns, name=w.name, spec=flat(c, 3), available=flat(c, 3))
    cluster = f"httproute/{ns}/assist-chat/rule/0"
    codes = fleet.codes()
    gw_pod = "envoy-envoy-gateway-system-ml-gateway-6f1c9a2e-7c9f8d6b5-qx2lm"
    ex.envoy(p.om, {cluster: codes}, gateway_namespace="envoy-gateway-system", gateway_pod=gw_pod)
    # --- logs --------------------------------------------------------------------------------------------
    for m in fleet.members:
        alive = [True] * c.n if m is not bad else [i < k for i in range(c.n)]
        vllm_stats(p, m, alive=alive, every=2)
        p.access_logs(m.rep, src_of(m), vllm_access(), errors_after=onset, clients=[GW_IP])
    kernel = Source("kernel", None, None, bad_name, None, dataset="system.syslog")
    bus = devs_bad[4].kernel_pci
    t0 = onset - timedelta(minutes=6, seconds=11)
    p.logs.add(
        ecs(t0, f"pcieport 0000:97:01.0: AER: Corrected error received: {bus}.0", kernel, level="warn")
    )
    p.logs.add(
        ecs(
            t0 + timedelta(milliseconds=3),
            f"nvidia {bus}.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
            kernel,
            level="warn",
        )
    )
    p.logs.add(ecs(onset, f"NVRM: GPU at PCI:{bus}: {gpu_bad.dev.uuid}", kernel, level="error"))
    p.logs.add(
        ecs(
            onset + timedelta(microseconds=9),
            f"NVRM: Xid (PCI:{bus}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
            kernel,
            level="error",
            error_type="Xid 79",
            error_message="GPU has fallen off the bus.",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(microseconds=40),
            f"NVRM: GPU {bus}.0: GPU has fallen off the bus.",
            kernel,
            level="error",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(milliseconds=2),
            "NVRM: A GPU crash dump has been created. If possible, please run",
            kernel,
            level="error",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(milliseconds=2, microseconds=5),
            "NVRM: nvidia-bug-report.sh as root to collect this data before",
            kernel,
            level="error",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(milliseconds=2, microseconds=9),
            "NVRM: the NVIDIA kernel module is unloaded.",
            kernel,
            level="error",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(seconds=1, milliseconds=214),
            f"NVRM: Xid (PCI:{bus}): 79, pid=3185533, name=VLLM::EngineCor, GPU has fallen off the bus.",
            kernel,
            level="error",
            error_type="Xid 79",
            error_message="GPU has fallen off the bus.",
        )
    )
    plugin = Source(
        "nvidia-device-plugin",
        "gpu-operator",
        "nvidia-device-plugin-daemonset-x8kq2",
        bad_name,
        "nvidia-device-plugin",
    )
    p.logs.add(
        ecs(
            onset + timedelta(seconds=2, milliseconds=377),
            f"I0602 {onset:%H:%M}:50.377014       1 health.go:159] XidCriticalError: Xid=79 on Device={gpu_bad.dev.uuid}; marking device as unhealthy.",  # noqa: E501
            plugin,
            level="info",
        )
    )
    p.logs.add(
        ecs(
            onset + timedelta(seconds=2, milliseconds=378),
            f"I0602 {onset:%H:%M}:50.377961       1 server.go:359] 'nvidia.com/gpu' device marked unhealthy: {gpu_bad.dev.uuid}",  # noqa: E501
            plugin,
            level="info",
        )
    )
    ec = "EngineCore_0 pid=233"
    tb = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core\n'
        "    engine_core.run_busy_loop()\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 718, in run_busy_loop\n'
        "    self._process_engine_step()\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1612, in execute_model\n'  # noqa: E501
        "    valid_sampled_token_ids = sampled_token_ids.tolist()\n"
        "RuntimeError: CUDA error: unspecified launch failure\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    t_err = onset + timedelta(seconds=1, milliseconds=96)
    vllm_line_doc(
        p,
        bad,
        t_err,
        "ERROR",
        "core.py:700",
        "EngineCore encountered a fatal error.",
        proc=ec,
        error_type="RuntimeError",
        error_message="CUDA error: unspecified launch failure",
        stack=tb,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=3),
        "ERROR",
        "core.py:700",
        "RuntimeError: CUDA error: unspecified launch failure",
        proc=ec,
        error_type="RuntimeError",
        error_message="CUDA error: unspecified launch failure",
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=61),
        "ERROR",
        "async_llm.py:416",
        "AsyncLLM output_handler failed.",
        error_type="EngineDeadError",
        error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
    )
    for i in range(k, c.n - 1):
        for _ in range(2 if i < k + 3 else 1):
            ts = p.ids.within(c.at(i), max(0.0, (onset - c.at(i)).total_seconds() + 1.5))
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
    gw = Source("envoy-gateway", "envoy-gateway-system", gw_pod, cpu_node.name, "envoy")
    gateway_logs(
        p,
        fleet.members,
        cluster=cluster,
        route=f"httproute/{ns}/assist-chat/rule/0/match/0/chat_assist_example_com",
        authority="chat.assist.example.com",
        src=gw,
        errors_after=onset,
        clients="10.40.100",
    )

    # --- objects -----------------------------------------------------------------------------------------
    node_bad.allocatable_gpu = 7
    p.objects.extend(fleet.objects())
    p.objects.append(
        k8s.httproute(
            name="assist-chat",
            namespace=ns,
            gateway="ml-gateway",
            gateway_namespace="envoy-gateway-system",
            hostnames=["chat.assist.example.com"],
            backends=[(w.name, 8000, 100)],
            created=p.ago(days=61),
        )
    )
    p.objects.extend(n.object(p.as_of) for n, _ in nodes.values())
    p.objects.append(cpu_node.object(p.as_of))
    p.record_gpus(fleet.gpu_series())

    # --- the alert -------------------------------------------------------------------------------------------
    sloth_alert(
        p,
        service="assist-chat",
        slo="requests-availability",
        objective=0.999,
        bad=codes.get(500, flat(c, 0.0)),
        total=sum_codes(codes, c.n),
        alertname="AssistChatAvailabilityBudgetBurn",
        labels={"severity": "critical"},
        extra={"namespace": ns, "team": "assist-platform"},
        description="5xx ratio on the assist-chat route (vllm-qwen25-14b backends) is burning the 99.9% budget.",
        prometheus="http://prometheus-k8s.monitoring.svc:9090",
        alertmanager="http://alertmanager-main.monitoring.svc:9093",
        runbook="https://runbooks.assist.example.com/slo/assist-chat-availability",
    )
    p.expect(
        "infrastructure",
        "INF_GPU_XID",
        ("cordon_node", f"node/{bad_name}"),
        ("restart_pod", f"pod/{bad.name}"),
    )
    p.notes["onset"] = iso(onset)
    return p
