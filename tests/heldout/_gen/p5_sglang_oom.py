# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""Host-memory OOMKilled: SGLang's detokenizer leaks per-request logprob state; pods hit their limit.

Three SGLang 0.5.2 replicas of Gemma-3-12B-it (one L40S each, container memory limit 48Gi) serve a
tutoring app. At 10:22 the app's new essay-feedback feature starts calling `/generate` with
`return_logprob` and `top_logprobs_num=20` on long answers. The detokenizer process keeps the per-request
state of those requests (~28 MiB each) and the containers' working sets climb ~2.3 GiB/min until the
kernel's memory cgroup kills them (`Memory cgroup out of memory: Killed process ... (sglang::detoken)`):
`OOMKilled`, exit code 137, restart, reload (~100 s), leak again. When one replica is down the other two
take its feedback traffic and leak faster. GPUs are fine (no Xid, memory and utilisation normal, except
while a replica reloads). No rollout. SGLang is scraped by a PodMonitor (no `service` label); the alert
is a kube-state-metrics alert per pod (labels `namespace`, `pod`, `container`, `job`; no `service`).
"""

from __future__ import annotations

import json
import random
from datetime import timedelta

from . import exporters as ex
from . import kube
from .common import envoy_json, gpu_node, gpus_json
from .lib import (
    OM,
    Clock,
    Logs,
    Prom,
    event_obj,
    fingerprint,
    hexid,
    httproute_obj,
    iso,
    ramp,
    service_obj,
    utc,
    within,
    write_pack,
)

NAME = "sglang-detokenizer-leak-oomkilled"
ENGINE = "SGLang 0.5.2 (PodMonitor scrape), L40S"
GiB = 1024**3


def build(root):
    rng = random.Random(9505)
    as_of = utc("2026-10-02T11:14:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "edu-tutor"
    dep = "sglang-gemma3-12b-it"
    model = "gemma-3-12b-it"
    route = "tutor-chat"
    cluster = f"httproute/{ns}/{route}/rule/0"
    image = "lmsysorg/sglang:v0.5.2-cu126"
    driver = "570.172.08"
    limit = 48 * GiB
    gw_ns = "envoy-gateway-system"
    gw_pod = "envoy-edu-ingress-public-gw-2c8e61fa-6b5f9d7c48-vnx7q"
    gw_ip = "10.88.3.22"
    feat0, feat1 = t("10:22:10"), t("10:25:00")

    nodes = [
        ("capi-gpu-l40s-md-0-8c5bd-2xkqr", "10.30.1.41", "10.88.0"),
        ("capi-gpu-l40s-md-0-8c5bd-7mwtz", "10.30.1.57", "10.88.1"),
        ("capi-gpu-l40s-md-0-8c5bd-qf9lb", "10.30.1.63", "10.88.2"),
    ]
    node_objs = [
        gpu_node(
            rng,
            n,
            as_of=as_of,
            created=utc("2026-09-29T21:40:02Z"),
            ready_since=utc("2026-09-29T21:42:37Z"),
            ip=ip,
            pod_cidr=f"{pre}.0/24",
            product="NVIDIA L40S",
            gpu_count=4,
            gpu_mem_mib=46068,
            instance_type="gpu-l40s-4x",
            zone="fsn1-dc14",
            region="fsn1",
            cpu=96,
            mem_ki=528_262_144,
            kubelet="v1.33.4",
            runtime="containerd://2.1.4",
            kernel="6.8.0-79-generic",
            os_image="Ubuntu 24.04.3 LTS",
            extra_labels={
                "cluster.x-k8s.io/cluster-name": "edu-prod",
                "cluster.x-k8s.io/deployment-name": "edu-prod-gpu-l40s-md-0",
            },
            provider_id=f"hcloud://{rng.randint(60_000_000, 69_999_999)}",
        )
        for n, ip, pre in nodes
    ]

    labels = {"app.kubernetes.io/name": "sglang", "app.kubernetes.io/instance": dep}
    args = [
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/models/gemma-3-12b-it",
        "--served-model-name",
        model,
        "--host",
        "0.0.0.0",
        "--port",
        "30000",
        "--mem-fraction-static",
        "0.85",
        "--context-length",
        "32768",
        "--enable-metrics",
        "--tool-call-parser",
        "pythonic",
    ]
    tmpl = {
        "metadata": {
            "labels": {"app.kubernetes.io/component": "llm"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-09-22T14:00:12Z"},
        },
        "spec": {
            "containers": [
                {
                    "name": "sglang",
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "command": ["python3"],
                    "args": args,
                    "env": [
                        {"name": "HF_HUB_OFFLINE", "value": "1"},
                        {"name": "SGLANG_ENABLE_TORCH_COMPILE", "value": "0"},
                    ],
                    "ports": [{"name": "http", "containerPort": 30000, "protocol": "TCP"}],
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1", "memory": "48Gi"},
                        "requests": {"nvidia.com/gpu": "1", "cpu": "8", "memory": "32Gi"},
                    },
                    "readinessProbe": kube.probe_http("/health", "http", period=10, failure=3, timeout=2),
                    "livenessProbe": kube.probe_http(
                        "/health", "http", period=20, failure=5, initial=180, timeout=5
                    ),
                    "volumeMounts": [
                        {"name": "models", "mountPath": "/models", "readOnly": True},
                        {"name": "shm", "mountPath": "/dev/shm"},
                    ],
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "FallbackToLogsOnError",
                }
            ],
            "volumes": [
                {"name": "models", "hostPath": {"path": "/var/lib/models", "type": "Directory"}},
                {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
            ],
            "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S"},
            "tolerations": kube.DEFAULT_TOLERATIONS,
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": labels},
                }
            ],
            "serviceAccountName": "sglang",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
        },
    }
    w = kube.Workload(
        name=dep,
        namespace=ns,
        labels=labels,
        replicas=3,
        created=utc("2026-07-01T10:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        extra_labels={"app.kubernetes.io/part-of": "tutor", "app.kubernetes.io/managed-by": "flux"},
    )
    r8 = kube.Revision(
        8,
        kube.rs_hash(rng),
        utc("2026-09-22T14:00:13Z"),
        tmpl,
        uid=kube.new_uid(rng),
        replicas=3,
        change_cause="sglang v0.5.2",
    )
    r7 = kube.Revision(
        7,
        kube.rs_hash(rng),
        utc("2026-08-30T09:12:00Z"),
        {
            **tmpl,
            "spec": {
                **tmpl["spec"],
                "containers": [
                    {**tmpl["spec"]["containers"][0], "image": "lmsysorg/sglang:v0.4.10.post2-cu126"}
                ],
            },
        },
        uid=kube.new_uid(rng),
    )
    w.revisions = [r7, r8]
    pods = [
        {
            "name": kube.pod_name(rng, w, r8),
            "uid": kube.new_uid(rng),
            "node": n,
            "node_ip": nip,
            "ip": f"{pre}.{[19, 27, 44][k]}",
            "created": utc("2026-09-29T21:44:10Z") + timedelta(seconds=37 * k),
        }
        for k, (n, nip, pre) in enumerate(nodes)
    ]

    # ---------------------------------------------------------------- 10-second simulation of memory, kills, restarts
    STEP = 10
    steps = int((as_of - c.start).total_seconds() // STEP) + 1
    base_rss = [13.9 * GiB, 19.6 * GiB, 24.8 * GiB]
    rss = list(base_rss)
    phase = ["up"] * 3  # up | backoff | loading
    phase_until = [None] * 3
    restarts = [0] * 3
    kills: list[tuple[int, object, float]] = []
    started_at = [p["created"] + timedelta(seconds=9) for p in pods]
    ready_at = [p["created"] + timedelta(minutes=2, seconds=4) for p in pods]
    pid_base = [2871, 2903, 2866]
    boots: dict[int, list] = {0: [], 1: [], 2: []}
    ticks = []
    for s_i in range(steps):
        now = c.start + timedelta(seconds=STEP * s_i)
        up = [phase[k] == "up" for k in range(3)]
        n_up = max(1, sum(up))
        feat = min(1.0, max(0.0, (now - feat0).total_seconds() / (feat1 - feat0).total_seconds()))
        feedback_rpm = 250 * feat
        for k in range(3):
            if phase[k] == "up":
                per_min = feedback_rpm / n_up * rng.uniform(0.9, 1.1)
                rss[k] += per_min * 28 * 1024**2 * STEP / 60 + rng.uniform(-0.02, 0.03) * GiB
                if rss[k] >= limit:
                    kill_t = now + timedelta(seconds=rng.uniform(0, STEP))
                    kills.append((k, kill_t, rss[k]))
                    restarts[k] += 1
                    phase[k] = "backoff"
                    phase_until[k] = kill_t + timedelta(
                        seconds=[0, 10, 20, 40, 80][min(4, restarts[k] - 1)] + rng.uniform(0.5, 1.5)
                    )
                    rss[k] = 0.0
            elif phase[k] == "backoff" and now >= phase_until[k]:
                phase[k] = "loading"
                started_at[k] = phase_until[k]
                boots[k].append(phase_until[k])
                phase_until[k] = phase_until[k] + timedelta(seconds=rng.uniform(96, 108))
                rss[k] = 2.1 * GiB
            elif phase[k] == "loading":
                rss[k] = min(13.4 * GiB, rss[k] + 2.4 * GiB)
                if now >= phase_until[k]:
                    phase[k] = "up"
                    ready_at[k] = phase_until[k]
        ticks.append((now, list(rss), list(phase), list(restarts)))

    def tick_at(ts):
        return ticks[min(len(ticks) - 1, int((ts - c.start).total_seconds() // STEP))]

    kills.sort(key=lambda x: x[1])

    # ---------------------------------------------------------------- per-minute traffic
    om = OM(c)
    chat_rpm = [(290 + 40 * ramp(c, i, t("10:30"), t("11:00"))) * rng.uniform(0.95, 1.05) for i in range(N)]
    fb_rpm = [250 * ramp(c, i, feat0, feat1) * rng.uniform(0.93, 1.07) for i in range(N)]
    per = [
        {
            "ok": [0.0] * N,
            "run": [0] * N,
            "queue": [0] * N,
            "usage": [0.0] * N,
            "present": [False] * N,
            "ready": [0] * N,
            "ttft": [0.0] * N,
            "gen": [0.0] * N,
            "prompt": [0.0] * N,
            "rss": [None] * N,
            "restarts": [0] * N,
            "cid": [0] * N,
        }
        for _ in range(3)
    ]
    codes = {200: [0.0] * N, 503: [0.0] * N}
    for i in range(N):
        now = c.at(i)
        _, rs, ph, rc = tick_at(now)
        mid_ph = tick_at(now - timedelta(seconds=30))[2]
        ups = [k for k in range(3) if mid_ph[k] == "up"]
        if not ups:
            codes[503][i] += round(chat_rpm[i] + fb_rpm[i])  # no healthy upstream
        for k in range(3):
            s = per[k]
            s["present"][i] = ph[k] != "backoff" and not (ph[k] == "loading" and rs[k] < 6 * GiB)
            s["ready"][i] = 1 if ph[k] == "up" else 0
            s["restarts"][i] = rc[k]
            s["cid"][i] = rc[k]
            s["rss"][i] = rs[k] if ph[k] != "backoff" else None
            if k in ups and mid_ph[k] == "up":
                share = 1 / len(ups)
                s["ok"][i] = round((chat_rpm[i] + fb_rpm[i]) * share)
                s["run"][i] = round(
                    chat_rpm[i] * share * 6.1 / 60 + fb_rpm[i] * share * 27 / 60 + rng.uniform(-3, 3)
                )
                s["queue"][i] = 0 if len(ups) == 3 else rng.choice([0, 1, 2, 4, 7])
                s["usage"][i] = round(0.06 + 0.0042 * s["run"][i] + rng.uniform(-0.01, 0.01), 4)
                s["ttft"][i] = 0.19 + (0.25 if len(ups) < 3 else 0.0)
                s["gen"][i] = chat_rpm[i] * share * 310 + fb_rpm[i] * share * 1480
                s["prompt"][i] = chat_rpm[i] * share * 1850 + fb_rpm[i] * share * 980
            codes[200][i] += s["ok"][i]
    for k, kt, _ in kills:
        i = c.idx(kt) + 1
        if i < N:
            codes[503][i] += per[k]["run"][max(0, i - 1)] + rng.randint(3, 9)

    # ---------------------------------------------------------------- SGLang metrics (PodMonitor: no `service` label)
    for k, p in enumerate(pods):
        s = per[k]
        lab = {
            "container": "sglang",
            "endpoint": "http",
            "instance": f"{p['ip']}:30000",
            "job": f"{ns}/sglang",
            "namespace": ns,
            "pod": p["name"],
            "model_name": model,
        }
        pres = s["present"]
        resets = [i for i in range(1, N) if s["restarts"][i] != s["restarts"][i - 1]]

        def g(vals, pres=pres):
            return [v if pres[i] else None for i, v in enumerate(vals)]

        om.gauge("sglang:num_running_reqs", "The number of running requests.", lab, g(s["run"]), digits=4)
        om.gauge(
            "sglang:num_queue_reqs",
            "The number of requests in the waiting queue.",
            lab,
            g(s["queue"]),
            digits=4,
        )
        om.gauge("sglang:token_usage", "The token usage.", lab, g(s["usage"]), digits=4)
        om.gauge(
            "sglang:gen_throughput",
            "The generation throughput (token/s).",
            lab,
            g([round(x / 60, 2) for x in s["gen"]]),
            digits=7,
        )
        om.gauge(
            "sglang:max_total_num_tokens",
            "Maximum total number of tokens in the KV cache pool.",
            lab,
            g([412_331] * N),
            digits=8,
        )
        first = [5_120_000, 5_080_000, 5_160_000][k]
        om.counter(
            "sglang:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            s["prompt"],
            initial=first * 1850,
            present=pres,
            resets=resets,
        )
        om.counter(
            "sglang:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            s["gen"],
            initial=first * 310,
            present=pres,
            resets=resets,
        )
        om.counter(
            "sglang:num_requests",
            "The number of processed requests.",
            lab,
            s["ok"],
            initial=first,
            present=pres,
            resets=resets,
        )
        om.histogram(
            "sglang:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            ex.SGLANG_TTFT,
            s["ok"],
            s["ttft"],
            0.6,
            initial_count=first,
            present=pres,
            resets=resets,
            le=lambda b: "+Inf" if b == float("inf") else repr(float(b)),
        )

    # ---------------------------------------------------------------- cAdvisor (kubelet) memory, one series per container instance
    cids = {k: [hexid(rng, 64) for _ in range(6)] for k in range(3)}
    for k, p in enumerate(pods):
        s = per[k]
        node = p["node"]
        for inst in range(max(s["restarts"]) + 1):
            vals_ws, vals_rss = [], []
            for i in range(N):
                if s["cid"][i] == inst and s["rss"][i] is not None:
                    vals_ws.append(round(s["rss"][i] * 1.012 + 300 * 1024**2))
                    vals_rss.append(round(s["rss"][i]))
                else:
                    vals_ws.append(None)
                    vals_rss.append(None)
            if all(v is None for v in vals_ws):
                continue
            cid = cids[k][inst]
            lab = {
                "container": "sglang",
                "endpoint": "https-metrics",
                "id": f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{p['uid'].replace('-', '_')}.slice/cri-containerd-{cid}.scope",
                "image": f"docker.io/{image}",
                "instance": f"{dict((n, ip) for n, ip, _ in nodes)[node]}:10250",
                "job": "kubelet",
                "metrics_path": "/metrics/cadvisor",
                "name": cid,
                "namespace": ns,
                "node": node,
                "pod": p["name"],
                "service": "kube-prometheus-stack-kubelet",
            }
            om.gauge(
                "container_memory_working_set_bytes",
                "Current working set of the container in bytes",
                lab,
                vals_ws,
                digits=12,
            )
            om.gauge("container_memory_rss", "Size of RSS in bytes.", lab, vals_rss, digits=12)
            om.gauge(
                "container_spec_memory_limit_bytes",
                "Memory limit for the container.",
                lab,
                [limit if v is not None else None for v in vals_ws],
                digits=12,
            )

    # ---------------------------------------------------------------- kube-state-metrics
    for k, p in enumerate(pods):
        s = per[k]
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        clab = {**plab, "container": "sglang"}
        om.gauge(
            "kube_pod_info",
            "Information about pod.",
            ex.ksm_labels(
                {
                    **plab,
                    "node": p["node"],
                    "host_ip": p["node_ip"],
                    "pod_ip": p["ip"],
                    "created_by_kind": "ReplicaSet",
                    "created_by_name": f"{dep}-{r8.hash}",
                    "host_network": "false",
                    "priority_class": "",
                },
                False,
            ),
            [1] * N,
        )
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ex.ksm_labels({**plab, "condition": "true"}, False),
            s["ready"],
            digits=2,
        )
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ex.ksm_labels({**plab, "condition": "false"}, False),
            [1 - r for r in s["ready"]],
            digits=2,
        )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ex.ksm_labels(clab, False),
            [0] + [s["restarts"][i] - s["restarts"][i - 1] for i in range(1, N)],
            initial=s["restarts"][0],
        )
        om.gauge(
            "kube_pod_container_status_last_terminated_reason",
            "Describes the last reason the container was in terminated state.",
            ex.ksm_labels({**clab, "reason": "OOMKilled"}, False),
            [1 if r > 0 else None for r in s["restarts"]],
            digits=2,
        )
        om.gauge(
            "kube_pod_container_status_last_terminated_exitcode",
            "Describes the exit code for the last container in terminated state.",
            ex.ksm_labels(clab, False),
            [137 if r > 0 else None for r in s["restarts"]],
            digits=4,
        )
        om.gauge(
            "kube_pod_container_status_waiting_reason",
            "Describes the reason the container is currently in waiting state.",
            ex.ksm_labels({**clab, "reason": "CrashLoopBackOff"}, False),
            [
                1 if tick_at(c.at(i))[2][k] == "backoff" else (0 if s["restarts"][i] else None)
                for i in range(N)
            ],
            digits=2,
        )
        om.gauge(
            "kube_pod_container_resource_limits",
            "The number of requested limit resource by a container.",
            ex.ksm_labels({**clab, "node": p["node"], "resource": "memory", "unit": "byte"}, False),
            [limit] * N,
            digits=12,
        )
    dlab = ex.ksm_labels({"namespace": ns, "deployment": dep}, False)
    avail = [sum(per[k]["ready"][i] for k in range(3)) for i in range(N)]
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [3] * N, digits=3
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        avail,
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_replicas_unavailable",
        "The number of unavailable replicas per deployment.",
        dlab,
        [3 - a for a in avail],
        digits=3,
    )
    for n, *_ in nodes:
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ex.ksm_labels({"node": n, "condition": "MemoryPressure", "status": "true"}, False),
            [0] * N,
            digits=2,
        )
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ex.ksm_labels({"node": n, "condition": "Ready", "status": "true"}, False),
            [1] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- DCGM
    gpus = []
    exporter_ip = {n: f"{pre}.3" for n, _, pre in nodes}
    for k, p in enumerate(pods):
        s = per[k]
        g = ex.Gpu(
            node=p["node"],
            index=1,
            uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
            pci="00000000:61:00.0",
            model="NVIDIA L40S",
            memory_mib=46068,
            pod=p["name"],
            namespace=ns,
            container="sglang",
        )
        for i in range(N):
            ph = tick_at(c.at(i))[2][k]
            if ph == "up":
                u = 54 + 0.45 * s["run"][i] + rng.uniform(-3, 3)
                g.util.append(round(min(92, u)))
                g.fb_used.append(41_288 + rng.randint(-6, 6))
            elif ph == "backoff":
                g.util.append(0)
                g.fb_used.append(0)
            else:
                g.util.append(round(rng.uniform(0, 9)))
                g.fb_used.append(round(rng.uniform(17_000, 41_000)))
            g.power.append(round(80 + 2.2 * g.util[-1] + rng.uniform(-6, 6), 3))
            g.temp.append(round(38 + 0.33 * g.util[-1] + rng.uniform(-1, 1)))
        gpus.append(g)
    ex.dcgm(om, gpus, driver, exporter_ip, temp=True)

    # ---------------------------------------------------------------- Envoy (PodMonitor)
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{gw_ip}:19001",
        "job": f"{gw_ns}/envoy-proxy",
        "namespace": gw_ns,
        "pod": gw_pod,
    }
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes=codes,
        initial={200: 22_781_006, 503: 318},
        healthy=[sum(per[k]["ready"][i] for k in range(3)) for i in range(N)],
        members=[3] * N,
        resets=[codes[503][i] for i in range(N)],
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()

    def sg(p, ts, msg, level="info", **kw):
        logs.add(
            ts,
            f"[{ts.strftime('%Y-%m-%d %H:%M:%S')}] {msg}",
            service=dep,
            ns=ns,
            pod=p["name"],
            node=p["node"],
            container="sglang",
            level=level,
            **kw,
        )

    for k, p in enumerate(pods):
        s = per[k]
        for i in range(1, N):
            minute = c.at(i - 1)
            if tick_at(minute + timedelta(seconds=30))[2][k] != "up":
                continue
            if i % 2 == k % 2:
                ts = within(rng, minute)
                sg(
                    p,
                    ts,
                    f"Decode batch. #running-req: {s['run'][i]}, #token: {round(s['usage'][i] * 412331)}, token usage: {s['usage'][i]:.2f}, "
                    f"cuda graph: True, gen throughput (token/s): {s['gen'][i] / 60 * rng.uniform(0.9, 1.1):.2f}, #queue-req: {s['queue'][i]}, ",
                )
                ts = within(rng, minute)
                nt = rng.randint(300, 2600)
                sg(
                    p,
                    ts,
                    f"Prefill batch. #new-seq: {rng.randint(1, 3)}, #new-token: {nt}, #cached-token: {rng.randint(0, 1800)}, "
                    f"token usage: {s['usage'][i]:.2f}, #running-req: {max(0, s['run'][i] - 1)}, #queue-req: {s['queue'][i]}, ",
                )
            ts = within(rng, minute)
            path = "/generate" if fb_rpm[i] > 0 and rng.random() < 0.45 else "/v1/chat/completions"
            sg(
                p,
                ts,
                f'INFO:     {gw_ip}:{rng.randint(33000, 60999)} - "POST {path} HTTP/1.1" 200 OK',
                status=200,
            )
    # kills: kernel, then restart logs
    kill_no = {k: 0 for k in range(3)}
    events = []
    for k, kt, at_rss in kills:
        p = pods[k]
        kill_no[k] += 1
        cid = cids[k][kill_no[k] - 1]
        pod_slice = f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{p['uid'].replace('-', '_')}.slice"
        memcg = f"{pod_slice}/cri-containerd-{cid}.scope"
        pid = pid_base[k] + 37 * (kill_no[k] - 1)
        det_rss = int(at_rss / 1024 * 0.71)
        kern = [
            "sglang::detoken invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=938",
            f"memory: usage {int(limit / 1024)}kB, limit {int(limit / 1024)}kB, failcnt {rng.randint(40, 400)}",
            f"Tasks in {memcg} are going to be killed due to memory.oom.group set",
            f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-{cid}.scope,mems_allowed=0-1,oom_memcg={memcg},task_memcg={memcg},task=sglang::detoken,pid={pid},uid=0",
            f"Memory cgroup out of memory: Killed process {pid} (sglang::detoken) total-vm:{det_rss + 9_812_004}kB, anon-rss:{det_rss}kB, file-rss:{rng.randint(60000, 95000)}kB, shmem-rss:{rng.randint(8000, 12000)}kB, UID:0 pgtables:{det_rss // 520}kB oom_score_adj:938",
            f"Memory cgroup out of memory: Killed process {pid - 212} (python3) total-vm:{rng.randint(21_000_000, 24_000_000)}kB, anon-rss:{rng.randint(5_900_000, 6_400_000)}kB, file-rss:{rng.randint(300000, 420000)}kB, shmem-rss:{rng.randint(8000, 12000)}kB, UID:0 pgtables:{rng.randint(13000, 15000)}kB oom_score_adj:938",
            f"Memory cgroup out of memory: Killed process {pid - 41} (sglang::schedul) total-vm:{rng.randint(60_000_000, 64_000_000)}kB, anon-rss:{rng.randint(4_100_000, 4_600_000)}kB, file-rss:{rng.randint(900000, 1100000)}kB, shmem-rss:{rng.randint(60000, 90000)}kB, UID:0 pgtables:{rng.randint(11000, 13000)}kB oom_score_adj:938",
        ]
        for j, line in enumerate(kern):
            logs.add(
                kt + timedelta(microseconds=300 * j),
                f"kernel: {line}",
                service="kernel",
                node=p["node"],
                level="warn" if j < 4 else "error",
                dataset="system.syslog",
                error_type="OOMKilled" if "Killed process" in line else None,
            )
        events.append(("oom", k, kt, pid, det_rss))
    for k, p in enumerate(pods):
        for b in boots[k]:
            lines = [
                (
                    0,
                    "INFO",
                    f"server_args=ServerArgs(model_path='/models/gemma-3-12b-it', tokenizer_path='/models/gemma-3-12b-it', tokenizer_mode='auto', "
                    f"skip_tokenizer_init=False, load_format='auto', trust_remote_code=False, context_length=32768, host='0.0.0.0', port=30000, "
                    f"mem_fraction_static=0.85, max_running_requests=None, served_model_name='{model}', enable_metrics=True, tool_call_parser='pythonic', ...)",
                ),
                (9, "INFO", "Attention backend not explicitly specified. Use flashinfer backend by default."),
                (11, "INFO", "Init torch distributed begin."),
                (13, "INFO", "Load weight begin. avail mem=43.94 GB"),
                (
                    41,
                    "INFO",
                    "Load weight end. type=Gemma3ForConditionalGeneration, dtype=torch.bfloat16, avail mem=20.31 GB, mem usage=23.63 GB.",
                ),
                (43, "INFO", "KV Cache is allocated. #tokens: 412331, K size: 6.19 GB, V size: 6.19 GB"),
                (
                    45,
                    "INFO",
                    "Capture cuda graph begin. This can take up to several minutes. avail mem=7.02 GB",
                ),
                (
                    83,
                    "INFO",
                    "Capture cuda graph end. Time elapsed: 37.92 s. mem usage=0.71 GB. avail mem=6.31 GB.",
                ),
                (
                    85,
                    "INFO",
                    "max_total_num_tokens=412331, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=32768, available_gpu_mem=6.31 GB",
                ),
                (88, "INFO", "INFO:     Started server process [1]"),
                (88, "INFO", "INFO:     Waiting for application startup."),
                (88, "INFO", "INFO:     Application startup complete."),
                (88, "INFO", "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)"),
                (93, "INFO", "The server is fired up and ready to roll!"),
            ]
            for dt, _lvl, msg in lines:
                ts = b + timedelta(seconds=dt, milliseconds=rng.randint(0, 900))
                if ts < as_of:
                    sg(p, ts, msg)
    # Envoy 503s at each kill
    for k, kt, _ in kills:
        for _ in range(3):
            envoy_json(
                logs,
                rng,
                end=kt + timedelta(milliseconds=rng.randint(2, 400)),
                code=503,
                flags="UC",
                details="upstream_reset_before_response_started{connection_termination}",
                duration_ms=rng.randint(800, 26000),
                upstream_host=f"{pods[k]['ip']}:30000",
                cluster=cluster,
                route_name=f"httproute/{ns}/{route}/rule/0/match/0/tutor_example_edu",
                authority="tutor.example.edu",
                path=rng.choice(["/generate", "/v1/chat/completions"]),
                client=rng.choice(["10.30.8.11", "10.30.8.12"]),
                gw_ip=gw_ip,
                gw_pod=gw_pod,
                gw_ns=gw_ns,
                gw_node=nodes[0][0],
                user_agent=rng.choice(["tutor-api/3.8.0 (httpx)", "essay-feedback-worker/1.0.2 (httpx)"]),
                bytes_sent=95,
            )
    for i in range(1, N, 3):
        k = rng.randrange(3)
        envoy_json(
            logs,
            rng,
            end=within(rng, c.at(i - 1)),
            code=200,
            flags="-",
            details="via_upstream",
            duration_ms=rng.randint(2500, 30000),
            upstream_host=f"{pods[k]['ip']}:30000",
            cluster=cluster,
            route_name=f"httproute/{ns}/{route}/rule/0/match/0/tutor_example_edu",
            authority="tutor.example.edu",
            path="/generate" if fb_rpm[i] and rng.random() < 0.4 else "/v1/chat/completions",
            client=rng.choice(["10.30.8.11", "10.30.8.12"]),
            gw_ip=gw_ip,
            gw_pod=gw_pod,
            gw_ns=gw_ns,
            gw_node=nodes[0][0],
            user_agent="tutor-api/3.8.0 (httpx)",
            bytes_sent=rng.randint(900, 6000),
        )
    # the feedback worker's own request log shows the new request shape
    for i in range(1, N):
        if fb_rpm[i] <= 0 or i % 4:
            continue
        ts = within(rng, c.at(i - 1))
        body = {
            "text": "<essay>",
            "sampling_params": {"max_new_tokens": 2048, "temperature": 0.2},
            "return_logprob": True,
            "top_logprobs_num": 20,
            "logprob_start_len": -1,
        }
        logs.add(
            ts,
            json.dumps(
                {
                    "level": "info",
                    "msg": "POST http://tutor.example.edu/generate",
                    "request_id": hexid(rng, 16),
                    "params": body["sampling_params"],
                    "return_logprob": True,
                    "top_logprobs_num": 20,
                    "status": 200,
                    "latency_ms": rng.randint(18000, 42000),
                }
            ),
            service="essay-feedback-worker",
            ns="edu-apps",
            pod=f"essay-feedback-worker-6f7c9d5b8-{['t2xkp', 'q9v4m'][i % 2]}",
            node="capi-cpu-md-1-66c9f-bz2lx",
            container="worker",
            status=200,
        )

    # ---------------------------------------------------------------- objects
    objs = [w.deployment(), w.replicaset(r8), w.replicaset(r7)]
    final = ticks[-1]
    n_ready = 0
    for k, p in enumerate(pods):
        s = per[k]
        rc = final[3][k]
        my_kills = [kt for kk, kt, _ in kills if kk == k]
        ph = final[2][k]
        last = None
        if my_kills:
            lk = my_kills[-1]
            prev_start = started_at[k] if ph == "up" and len(my_kills) == 1 else lk - timedelta(minutes=15)
            last = kube.terminated(
                rng,
                reason="OOMKilled",
                exit_code=137,
                started=min(prev_start, lk - timedelta(minutes=3)),
                finished=lk,
            )
        ready = ph == "up"
        n_ready += ready
        if ph == "backoff":
            st = kube.cstatus(
                rng,
                name="sglang",
                image=image,
                ready=False,
                restart_count=rc,
                waiting=(
                    "CrashLoopBackOff",
                    f"back-off 20s restarting failed container=sglang pod={p['name']}_{ns}({p['uid']})",
                ),
                last_terminated=last,
            )
        else:
            st = kube.cstatus(
                rng,
                name="sglang",
                image=image,
                ready=ready,
                restart_count=rc,
                running_since=started_at[k],
                last_terminated=last,
            )
            st["started"] = True
        objs.append(
            kube.pod_obj(
                w,
                r8,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node_ip"],
                phase="Running",
                ready=ready,
                container_statuses=[st],
                ready_since=ready_at[k] if ready else (my_kills[-1] if my_kills else p["created"]),
            )
        )
    w_dep = objs[0]
    w_dep["status"].update(
        {
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": n_ready,
            "availableReplicas": n_ready,
            **({"unavailableReplicas": 3 - n_ready} if n_ready < 3 else {}),
        }
    )
    w_dep["status"]["conditions"] = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-09-29T21:46:55Z"),
            utc("2026-09-29T21:46:55Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{r8.hash}" has successfully progressed.',
            utc("2026-09-22T14:06:31Z"),
            utc("2026-07-01T10:00:00Z"),
        ),
    )
    objs[1]["status"].update({"readyReplicas": n_ready, "availableReplicas": n_ready})
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 30000, "protocol": "TCP", "targetPort": "http"}],
            "10.103.44.17",
            labels=labels,
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="public-gw",
            gateway_ns="edu-ingress",
            hostnames=["tutor.example.edu"],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                    "backendRefs": [
                        {"group": "", "kind": "Service", "name": dep, "port": 30000, "weight": 1}
                    ],
                    "timeouts": {"request": "120s"},
                }
            ],
            created=utc("2026-07-01T10:05:00Z"),
            uid_=kube.new_uid(rng),
        )
    )
    objs.extend(node_objs)
    node_uid = {n["metadata"]["name"]: n["metadata"]["uid"] for n in node_objs}
    for k, p in enumerate(pods):
        my = [e for e in events if e[1] == k]
        if not my:
            continue
        kw = dict(
            ns=ns,
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            host=p["node"],
            field_path="spec.containers{sglang}",
        )
        first, lastk = my[0][2], my[-1][2]
        objs.append(
            event_obj(
                rng,
                **kw,
                reason="Pulled",
                message=f'Container image "{image}" already present on machine',
                first=first + timedelta(seconds=1),
                last=lastk + timedelta(seconds=21),
                count=len(my),
            )
        )
        objs.append(
            event_obj(
                rng,
                **kw,
                reason="Created",
                message="Created container: sglang",
                first=first + timedelta(seconds=1),
                last=lastk + timedelta(seconds=21),
                count=len(my),
            )
        )
        objs.append(
            event_obj(
                rng,
                **kw,
                reason="Started",
                message="Started container sglang",
                first=first + timedelta(seconds=1),
                last=lastk + timedelta(seconds=22),
                count=len(my),
            )
        )
        objs.append(
            event_obj(
                rng,
                **kw,
                reason="BackOff",
                message=f"Back-off restarting failed container sglang in pod {p['name']}_{ns}({p['uid']})",
                first=first + timedelta(seconds=1),
                last=lastk + timedelta(seconds=12),
                count=2 * len(my) - 1,
                etype="Warning",
            )
        )
        objs.append(
            event_obj(
                rng,
                **kw,
                reason="Unhealthy",
                message=f'Readiness probe failed: Get "http://{p["ip"]}:30000/health": dial tcp {p["ip"]}:30000: connect: connection refused',
                first=first + timedelta(seconds=12),
                last=min(as_of - timedelta(seconds=3), lastk + timedelta(seconds=95)),
                count=9 * len(my),
                etype="Warning",
            )
        )
        for _, _, kt, pid, det_rss in my:
            objs.append(
                event_obj(
                    rng,
                    ns=ns,
                    kind="Node",
                    name=p["node"],
                    obj_uid=node_uid[p["node"]],
                    host=p["node"],
                    component="kernel-monitor",
                    reason="OOMKilling",
                    message=f"Memory cgroup out of memory: Killed process {pid} (sglang::detoken) total-vm:{det_rss + 9_812_004}kB, anon-rss:{det_rss}kB, "
                    f"file-rss:{rng.randint(60000, 95000)}kB, shmem-rss:{rng.randint(8000, 12000)}kB, UID:0 pgtables:{det_rss // 520}kB oom_score_adj:938",
                    first=kt + timedelta(seconds=1),
                    etype="Warning",
                )
            )
    gj = gpus_json(gpus, rng)

    # ---------------------------------------------------------------- alert(s): one per pod that fires, grouped by namespace
    expr = (
        f'increase(kube_pod_container_status_restarts_total{{namespace="{ns}",container="sglang"}}[30m]) >= 2\n'
        f'and on (namespace, pod, container)\nkube_pod_container_status_last_terminated_reason{{namespace="{ns}",reason="OOMKilled"}} == 1'
    )
    prom = Prom(om.render())
    try:
        firing = {}
        pending = {}
        for i in range(N):
            at = c.at(i) + timedelta(seconds=23)
            if at > as_of:
                break
            res = prom.query(expr, at)
            seen = set()
            for r in res:
                key = r["metric"]["pod"]
                seen.add(key)
                pending.setdefault(key, (at, r))
                if key not in firing and at - pending[key][0] >= timedelta(minutes=1):
                    firing[key] = (at, float(r["value"][1]), r["metric"])
            for key in list(pending):
                if key not in seen:
                    pending.pop(key)
                    firing.pop(key, None)
        now_res = {r["metric"]["pod"] for r in prom.query(expr, as_of)}
        early = prom.query(expr, c.at(20))
    finally:
        prom.close()
    assert not early, "fires before the fault"
    firing = {k: v for k, v in firing.items() if k in now_res}
    assert firing, "nothing firing at as_of"
    alerts = []
    for pod, (at, value, metric) in sorted(firing.items(), key=lambda kv: kv[1][0]):
        lab = {
            "alertname": "SGLangContainerOOMKilledRepeatedly",
            "container": metric["container"],
            "job": metric["job"],
            "namespace": metric["namespace"],
            "pod": metric["pod"],
            "uid": metric["uid"],
            "severity": "warning",
            "team": "edu-ml-platform",
        }
        ann = {
            "summary": "Inference container keeps getting OOMKilled",
            "description": f"Container sglang in pod {ns}/{pod} restarted {value:.0f} times in 30 minutes; last termination reason OOMKilled (exit code 137).",
            "runbook_url": "https://runbooks.example.edu/ml/oomkilled",
            "value": f"{value:.3f}",
        }
        gen = (
            "http://kube-prometheus-stack-prometheus.monitoring:9090/graph?g0.expr="
            + __import__("urllib.parse").parse.quote(expr, safe="")
            + "&g0.tab=1"
        )
        alerts.append(
            {
                "status": "firing",
                "labels": lab,
                "annotations": ann,
                "startsAt": iso(at + timedelta(milliseconds=rng.randint(20, 900)), ms=True),
                "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": gen,
                "fingerprint": fingerprint(lab),
            }
        )
    common_l = {k: v for k, v in alerts[0]["labels"].items() if all(a["labels"].get(k) == v for a in alerts)}
    common_a = {
        k: v for k, v in alerts[0]["annotations"].items() if all(a["annotations"].get(k) == v for a in alerts)
    }
    alert = {
        "receiver": "edu-ml-oncall",
        "status": "firing",
        "alerts": alerts,
        "groupLabels": {"alertname": common_l["alertname"], "namespace": ns},
        "commonLabels": common_l,
        "commonAnnotations": common_a,
        "externalURL": "http://kube-prometheus-stack-alertmanager.monitoring:9093",
        "version": "4",
        "groupKey": f'{{}}/{{team="edu-ml-platform"}}:{{alertname="SGLangContainerOOMKilledRepeatedly", namespace="{ns}"}}',
        "truncatedAlerts": 0,
    }
    expected = {
        "category": "infrastructure",
        "code": "INF_OOM_KILLED",
        "acceptable_first_actions": [{"kind": "add_replica", "target": f"deployment/{dep}"}],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Tutor answers fail intermittently; the serving pods keep restarting.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    first_at, first_val, _ = min(firing.values(), key=lambda v: v[0])
    return {
        "name": NAME,
        "engine": ENGINE,
        "expected": expected,
        "starts": iso(first_at),
        "value": first_val,
        "kills": [(pods[k]["name"][-5:], iso(kt)) for k, kt, _ in kills],
    }
