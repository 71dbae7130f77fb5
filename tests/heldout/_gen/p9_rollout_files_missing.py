# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""A rollout points TGI at a model revision whose weight files never reached the model volume.

On-prem kubeadm cluster with Istio (sidecars, Gateway API). The tutor team serves its Qwen2.5-14B
fine-tune with four HF TGI 3.3.6 replicas (one H100 NVL each) that read the weights from a CephFS PVC
(`tutor-model-store`, read-only, `HF_HUB_OFFLINE=1`). The platform's sync Job for revision r7
(`model-sync-tutor-qwen25-14b-r7`, 07:44) copies config.json, tokenizer files and
`model.safetensors.index.json` and then fails on the first shard with `OSError: [Errno 28] No space
left on device`: the volume is full (`kubelet_volume_stats_available_bytes` drops to ~2 MB). The Job
stops with `BackoffLimitExceeded`. At 08:01:20 Argo CD still rolls out revision 15 of the Deployment,
which changes `--model-id` from `/models/tutor-qwen25-14b/r6` to `/models/tutor-qwen25-14b/r7`
(maxSurge 1, maxUnavailable 1). The two new pods both land on `gpu-h100nvl-a03`, the node with the free
GPUs. Their launcher finds `config.json` but no weight file: `FileNotFoundError: No local weights
found in /models/tutor-qwen25-14b/r7 with extension .pt` (after `.safetensors` and `.bin`), then
`Error: DownloadError`. TGI exits 1 within seconds, over and over (CrashLoopBackOff). The old ReplicaSet
is scaled to 3 and keeps serving all the traffic: queue, batch size and gateway latency go up, with no
errors. The Istio metrics show only `destination_canonical_revision="r6"` serving. The alert is the
plain kube-state-metrics `KubePodCrashLooping` from kube-prometheus-stack (`for` overridden to 5m),
one alert per new pod, with kube-state-metrics' own `service`/`job`/`instance` labels. Another team's
CronJob pod has been crash-looping since yesterday in `course-recs` (bait).

Code per taxonomy.md's "model not found" note: the weight files are absent from storage (the volume is
full, the shards were never written). This is `infrastructure` / `INF_DISK`, not `MOD_LOAD_FAILED`
(that one is for files that are present but fail to load). It is on the PVC the pods mount, not a remote
object store or hub, so not `DEP_STORAGE`. The earliest cause on the timeline is the full volume at 07:44,
before the 08:01 rollout. First action: roll the Deployment back to revision 14, whose r6 weights are on the
volume. Restarting or adding pods repeats the broken template, and cordoning `gpu-h100nvl-a03` (where
both failing pods happen to run) treats a node that is fine.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from . import exporters as ex
from . import kube
from .common import gpu_node, klog_stamp, request_id
from .lib import (
    OM,
    Clock,
    Logs,
    Obj,
    Prom,
    event_obj,
    fingerprint,
    hexid,
    httproute_obj,
    image_id,
    iso,
    kname,
    owner,
    ramp,
    service_obj,
    utc,
    within,
    write_pack,
)
from .p7_batch_gpu_squeeze import evaluate_group, ksm, running_status, simple_pod

KSM_INSTANCE = "10.71.21.30:8080"
NAME = "rollout-model-files-missing"
ENGINE = "HF TGI 3.3.6, Qwen2.5-14B fine-tune, H100 NVL, Istio 1.27 (Gateway API), CephFS model volume"

W = 80  # rich's console width in a container without a TTY


def _box_line(text: str) -> str:
    return "│ " + text[: W - 4].ljust(W - 4) + " │"


def rich_traceback(
    frames: list[tuple[str, int, str, list[tuple[int, str]], list[tuple[str, str]]]], exc: str
) -> list[str]:
    """A Typer/rich pretty traceback (show_locals=True) as it is printed to stderr, 80 columns wide."""
    title = " Traceback (most recent call last) "
    left = (W - 2 - len(title)) // 2
    out = ["╭" + "─" * left + title + "─" * (W - 2 - left - len(title)) + "╮"]
    for n, (path, line, func, code, local_vars) in enumerate(frames):
        if n:
            out.append(_box_line(""))
        head = f"{path}:{line} in {func}"
        while head:
            out.append(_box_line(head[: W - 4]))
            head = head[W - 4 :]
        out.append(_box_line(""))
        for ln, src in code:
            mark = "❱" if ln == line else " "
            out.append(_box_line(f"{mark} {ln} {src}"))
        out.append(_box_line(""))
        inner = W - 4 - 4
        ltitle = " locals "
        ll = (inner - 2 - len(ltitle)) // 2
        out.append(_box_line("╭" + "─" * ll + ltitle + "─" * (inner - 2 - ll - len(ltitle)) + "╮"))
        width = max(len(k) for k, _ in local_vars)
        for k, v in local_vars:
            body = f"{k.rjust(width)} = {v}"
            out.append(_box_line("│ " + body[: inner - 4].ljust(inner - 4) + " │"))
        out.append(_box_line("╰" + "─" * (inner - 2) + "╯"))
    out.append("╰" + "─" * (W - 2) + "╯")
    out.append(exc)
    return out


def istio_access(
    logs: Logs,
    rng: random.Random,
    *,
    end: datetime,
    code: int,
    flags: str,
    details: str,
    duration_ms: int,
    upstream_host: str,
    upstream_cluster: str,
    route_name: str,
    authority: str,
    client: str,
    gw_ip: str,
    gw_pod: str,
    gw_ns: str,
    gw_node: str,
    user_agent: str,
    bytes_sent: int,
) -> None:
    """Istio's default text access log format (meshConfig.accessLogFile=/dev/stdout)."""
    start = end - timedelta(milliseconds=duration_ms)
    ust = str(max(0, duration_ms - rng.randint(1, 4)))
    line = (
        f'[{iso(start, ms=True)}] "POST /v1/chat/completions HTTP/1.1" {code} {flags} {details} - "-" '
        f"{rng.randint(700, 9000)} {bytes_sent} {duration_ms} {ust} "
        f'"{client}" "{user_agent}" "{request_id(rng)}" "{authority}" "{upstream_host}" {upstream_cluster} '
        f"{gw_ip}:{rng.randint(32768, 60999)} {gw_ip}:8443 {client}:{rng.randint(32768, 60999)} {authority} {route_name}"
    )
    logs.add(
        end,
        line,
        service="istio-proxy",
        ns=gw_ns,
        pod=gw_pod,
        node=gw_node,
        container="istio-proxy",
        level="info",
        status=code,
        dataset="istio.access",
    )


def build(root):
    rng = random.Random(9909)
    as_of = utc("2026-12-02T08:37:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "tutor-llm"
    gw_ns = "tutor-gateway"
    dep = "tgi-tutor-qwen25-14b"
    model_dir_old, model_dir_new = "/models/tutor-qwen25-14b/r6", "/models/tutor-qwen25-14b/r7"
    route = "campus-tutor-api"
    host = "tutor-api.campus.example.edu"
    image = "ghcr.io/huggingface/text-generation-inference:3.3.6"
    driver = "580.95.05"
    roll = t("08:01:20")
    sync0 = t("07:44:10")

    # ---------------------------------------------------------------- nodes (kubeadm, bare metal)
    gpu_nodes = [(f"gpu-h100nvl-a0{k}", f"10.70.0.{40 + k}", f"10.71.{k}") for k in (1, 2, 3)]
    l4_node = ("gpu-l4-b01", "10.70.0.61", "10.71.9")
    infra = [("k8s-infra-01", "10.70.0.11", "10.71.20"), ("k8s-infra-02", "10.70.0.12", "10.71.21")]
    base_node = dict(
        as_of=as_of,
        created=utc("2026-03-17T10:41:02Z"),
        ready_since=utc("2026-11-24T05:02:19Z"),
        region="ams3",
        kubelet="v1.32.9",
        runtime="containerd://2.1.4",
        kernel="6.8.0-85-generic",
        os_image="Ubuntu 24.04.3 LTS",
        driver_major="580",
    )
    node_objs = []
    for n, ip, pre in gpu_nodes:
        node_objs.append(
            gpu_node(
                rng,
                n,
                ip=ip,
                pod_cidr=f"{pre}.0/24",
                product="NVIDIA H100 NVL",
                gpu_count=2,
                gpu_mem_mib=95830,
                instance_type="sys-221ge-tnht-lcc",
                zone="ams3-hall2",
                cpu=128,
                mem_ki=1_056_437_112,
                extra_labels={"node-role.kubernetes.io/gpu": "", "gpu-class": "h100nvl"},
                **base_node,
            )
        )
    node_objs.append(
        gpu_node(
            rng,
            l4_node[0],
            ip=l4_node[1],
            pod_cidr=f"{l4_node[2]}.0/24",
            product="NVIDIA L4",
            gpu_count=1,
            gpu_mem_mib=23034,
            instance_type="sys-111e-fwtr",
            zone="ams3-hall2",
            cpu=32,
            mem_ki=263_749_884,
            extra_labels={"node-role.kubernetes.io/gpu": "", "gpu-class": "l4"},
            **base_node,
        )
    )
    for n, ip, pre in infra:
        no = gpu_node(
            rng,
            n,
            ip=ip,
            pod_cidr=f"{pre}.0/24",
            product="none",
            gpu_count=0,
            gpu_mem_mib=0,
            instance_type="sys-1029p-wtr",
            zone="ams3-hall1",
            cpu=48,
            mem_ki=394_825_544,
            extra_labels={"node-role.kubernetes.io/infra": ""},
            **base_node,
        )
        for key in list(no["metadata"]["labels"]):
            if key.startswith("nvidia.com/"):
                del no["metadata"]["labels"][key]
        for part in ("capacity", "allocatable"):
            no["status"][part].pop("nvidia.com/gpu", None)
        node_objs.append(no)
    bad_node = gpu_nodes[2][0]

    # ---------------------------------------------------------------- the TGI deployment
    labels = {"app.kubernetes.io/name": "tgi", "app.kubernetes.io/instance": dep}

    def template(model_dir: str, rev: str) -> Obj:
        return {
            "metadata": {
                "labels": {"app": dep, "app.kubernetes.io/version": rev, "sidecar.istio.io/inject": "true"},
                "annotations": {
                    "prometheus.io/scrape": "true",
                    "prometheus.io/port": "8080",
                    "prometheus.io/path": "/metrics",
                    "kubectl.kubernetes.io/default-container": "tgi",
                },
            },
            "spec": {
                "containers": [
                    {
                        "name": "tgi",
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "args": [
                            "--model-id",
                            model_dir,
                            "--max-input-tokens",
                            "8192",
                            "--max-total-tokens",
                            "12288",
                            "--max-batch-prefill-tokens",
                            "8192",
                            "--max-concurrent-requests",
                            "192",
                            "--port",
                            "8080",
                        ],
                        "env": [
                            {"name": "HF_HUB_OFFLINE", "value": "1"},
                            {"name": "PREFIX_CACHING", "value": "1"},
                            {"name": "HUGGINGFACE_HUB_CACHE", "value": "/data"},
                        ],
                        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1", "memory": "96Gi"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "12", "memory": "64Gi"},
                        },
                        "startupProbe": kube.probe_http("/health", "http", period=10, failure=90, timeout=5),
                        "readinessProbe": kube.probe_http("/health", "http", period=10, failure=3, timeout=5),
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/models", "readOnly": True},
                            {"name": "data", "mountPath": "/data"},
                            {"name": "shm", "mountPath": "/dev/shm"},
                        ],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "volumes": [
                    {
                        "name": "models",
                        "persistentVolumeClaim": {"claimName": "tutor-model-store", "readOnly": True},
                    },
                    {"name": "data", "emptyDir": {}},
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
                ],
                "nodeSelector": {"gpu-class": "h100nvl"},
                "tolerations": kube.DEFAULT_TOLERATIONS,
                "serviceAccountName": "tgi",
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
        replicas=4,
        created=utc("2026-04-21T09:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}},
        extra_labels={
            "app.kubernetes.io/part-of": "campus-tutor",
            "argocd.argoproj.io/instance": "tutor-llm-prod",
        },
        annotations={"argocd.argoproj.io/tracking-id": f"tutor-llm-prod:apps/Deployment:{ns}/{dep}"},
    )
    r14 = kube.Revision(
        14,
        kube.rs_hash(rng),
        utc("2026-11-12T07:15:33Z"),
        template(model_dir_old, "r6"),
        uid=kube.new_uid(rng),
        replicas=3,
        ready=3,
        available=3,
        change_cause="tutor model r6 (curriculum 2026-11)",
    )
    r15 = kube.Revision(
        15,
        kube.rs_hash(rng),
        roll,
        template(model_dir_new, "r7"),
        uid=kube.new_uid(rng),
        replicas=2,
        change_cause="tutor model r7 (curriculum 2026-12)",
    )
    r13 = kube.Revision(
        13,
        kube.rs_hash(rng),
        utc("2026-10-20T06:58:10Z"),
        template("/models/tutor-qwen25-14b/r5", "r5"),
        uid=kube.new_uid(rng),
        change_cause="tutor model r5",
    )
    w.revisions = [r13, r14, r15]
    w.status = {
        "replicas": 5,
        "updatedReplicas": 2,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "unavailableReplicas": 2,
    }
    deadline = roll + timedelta(seconds=601)
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            roll,
            utc("2026-11-12T07:24:02Z"),
        ),
        progressing=(
            "False",
            "ProgressDeadlineExceeded",
            f'ReplicaSet "{dep}-{r15.hash}" has timed out progressing.',
            deadline,
            deadline,
        ),
    )
    old_place = [(gpu_nodes[0], 0), (gpu_nodes[0], 1), (gpu_nodes[1], 0), (gpu_nodes[1], 1)]
    olds = []
    for k, ((node, nip, pre), g) in enumerate(old_place):
        olds.append(
            {
                "name": kube.pod_name(rng, w, r14),
                "uid": kube.new_uid(rng),
                "node": node,
                "node_ip": nip,
                "ip": f"{pre}.{[34, 57, 29, 66][k]}",
                "gpu": g,
                "created": r14.created + timedelta(minutes=4 * k, seconds=9),
                "stopped": roll if k == 3 else None,
            }
        )
    news = []
    for k in range(2):
        node, nip, pre = gpu_nodes[2]
        news.append(
            {
                "name": kube.pod_name(rng, w, r15),
                "uid": kube.new_uid(rng),
                "node": node,
                "node_ip": nip,
                "ip": f"{pre}.{[47, 52][k]}",
                "gpu": k,
                "created": roll + timedelta(milliseconds=180 + 35 * k),
            }
        )

    # crash loops of the new pods (TGI exits ~6 s after start)
    loops = []
    for p in news:
        attempts = []
        start = p["created"] + timedelta(
            seconds=3, milliseconds=rng.randint(200, 900)
        )  # sidecar first, image already present
        backoff = 10
        while True:
            fail = start + timedelta(seconds=rng.uniform(5.6, 7.2))
            if fail >= as_of - timedelta(seconds=2):
                break
            attempts.append((start, fail))
            start = fail + timedelta(seconds=backoff, milliseconds=rng.randint(100, 900))
            backoff = min(300, backoff * 2)
        loops.append(attempts)

    # ---------------------------------------------------------------- traffic
    arrivals = [(168 + 150 * ramp(c, i, t("07:52"), t("08:26"))) * rng.uniform(0.95, 1.05) for i in range(N)]
    i_roll = c.idx(roll) + 1
    per = []
    for k in range(4):
        alive = [k < 3 or c.at(i) <= roll for i in range(N)]
        share = []
        for i in range(N):
            if i < i_roll:
                share.append(0.25)
            elif i == i_roll:
                f = (roll - c.at(i - 1)).total_seconds() / 60
                share.append(0.25 * f + (1 / 3) * (1 - f) if k < 3 else 0.25 * f)
            else:
                share.append(1 / 3 if k < 3 else 0.0)
        done = [round(arrivals[i] * share[i] * rng.uniform(0.97, 1.03)) for i in range(N)]
        load = [min(1.0, max(0.0, (arrivals[i] * share[i] - 45) / 75)) for i in range(N)]
        med = [6.4 + 5.2 * load[i] ** 2 for i in range(N)]
        qt = [0.04 + 2.8 * load[i] ** 3 for i in range(N)]
        batch = [
            round(arrivals[i] * share[i] * (med[i] - qt[i]) / 60 * rng.uniform(0.9, 1.1)) for i in range(N)
        ]
        queue = [max(0, round(arrivals[i] * share[i] * qt[i] / 60 * rng.uniform(0.7, 1.3))) for i in range(N)]
        per.append(
            {"alive": alive, "done": done, "med": med, "qt": qt, "batch": batch, "queue": queue, "load": load}
        )

    om = OM(c)
    # ---------------------------------------------------------------- TGI router metrics (pod annotations scrape, merged by the Istio agent on :15020)
    for k, p in enumerate(olds):
        s = per[k]
        pr = [s["alive"][i] for i in range(N)]
        lab = {
            "app": dep,
            "instance": f"{p['ip']}:15020",
            "job": "kubernetes-pods",
            "namespace": ns,
            "pod": p["name"],
            "pod_template_hash": r14.hash,
            "app_kubernetes_io_version": "r6",
        }

        def g(vals, pr=pr):
            return [v if pr[i] else None for i, v in enumerate(vals)]

        base = [1_911_204, 1_908_877, 1_915_730, 1_903_342][k]
        om.counter("tgi_request_count", "", lab, s["done"], initial=base, present=pr, suffix_total=False)
        om.counter(
            "tgi_request_success", "", lab, s["done"], initial=base - 174, present=pr, suffix_total=False
        )
        om.gauge("tgi_queue_size", "", lab, g(s["queue"]), digits=4)
        om.gauge("tgi_batch_current_size", "", lab, g(s["batch"]), digits=4)

    # ---------------------------------------------------------------- Istio gateway (reporter=source), trimmed tags + custom buckets
    gw_pods = [f"tutor-gw-istio-6c9b8f5d7-{kname(rng, 5)}" for _ in range(2)]
    gw_ips = ["10.71.20.18", "10.71.21.23"]
    ilab = {
        "instance": f"{gw_ips[0]}:15020",
        "job": "monitoring/istio-gateways",
        "namespace": gw_ns,
        "pod": gw_pods[0],
        "reporter": "source",
        "source_workload": "tutor-gw-istio",
        "source_workload_namespace": gw_ns,
        "destination_workload": dep,
        "destination_workload_namespace": ns,
        "destination_service": f"{dep}.{ns}.svc.cluster.local",
        "destination_canonical_revision": "r6",
        "request_protocol": "http",
    }
    tot = [sum(per[k]["done"][i] for k in range(4)) for i in range(N)]
    om.counter(
        "istio_requests", "", {**ilab, "response_code": "200", "response_flags": "-"}, tot, initial=7_638_610
    )
    om.counter(
        "istio_requests",
        "",
        {**ilab, "response_code": "400", "response_flags": "-"},
        [1 if rng.random() < 0.1 else 0 for _ in range(N)],
        initial=1_977,
    )
    mix = [[(per[k]["done"][i], per[k]["med"][i], 0.38) for k in range(4)] for i in range(N)]
    om.histogram_mix(
        "istio_request_duration_milliseconds",
        "",
        {**ilab, "response_code": "200", "response_flags": "-"},
        [100, 500, 1000, 2500, 5000, 10000, 15000, 20000, 30000, 60000],
        mix,
        initial=[(7_638_610, 6.4, 0.38)],
        le=ex.le_go,
        scale=1000.0,
    )

    # ---------------------------------------------------------------- DCGM
    gpus = []
    for node, _nip, _pre in gpu_nodes:
        for gi in range(2):
            who = None
            for p in olds:
                if p["node"] == node and p["gpu"] == gi:
                    who = p
            for p in news:
                if p["node"] == node and p["gpu"] == gi:
                    who = p
            gpus.append((node, gi, who))
    gpus.append((l4_node[0], 0, "reranker"))
    rer_pod = f"vllm-bge-reranker-{kname(rng, 10)}-{kname(rng, 5)}"
    gj: dict[str, list[Obj]] = {}
    for node, gi, who in gpus:
        uu = f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}"
        lab = {
            "DCGM_FI_DRIVER_VERSION": driver,
            "Hostname": node,
            "UUID": uu,
            "device": f"nvidia{gi}",
            "gpu": str(gi),
            "instance": f"{'10.71.' + node[-1] if node != l4_node[0] else '10.71.9'}.4:9400",
            "job": "gpu-operator/nvidia-dcgm-exporter",
            "modelName": "NVIDIA L4" if node == l4_node[0] else "NVIDIA H100 NVL",
            "pci_bus_id": "00000000:01:00.0"
            if node == l4_node[0]
            else ["00000000:4E:00.0", "00000000:CE:00.0"][gi],
        }
        util, fb = [], []
        if who == "reranker":
            lab.update({"namespace": "course-recs", "pod": rer_pod, "container": "vllm"})
            util = [round(rng.uniform(9, 21)) for _ in range(N)]
            fb = [19_802 + rng.randint(-4, 4) for _ in range(N)]
        elif who is not None and who in olds:
            k = olds.index(who)
            lab.update({"namespace": ns, "pod": who["name"], "container": "tgi"})
            for i in range(N):
                if per[k]["alive"][i]:
                    util.append(round(min(99, 34 + 46 * per[k]["load"][i] + rng.uniform(-4, 4))))
                    fb.append(88_412 + rng.randint(-20, 20))
                else:
                    util.append(None)
                    fb.append(None)
            if who["stopped"]:
                # after the old pod is gone nothing holds the card (its successor went to a03)
                lab_free = {kk: vv for kk, vv in lab.items() if kk not in ("namespace", "pod", "container")}
                om.gauge(
                    "DCGM_FI_DEV_GPU_UTIL",
                    "GPU utilization (in %).",
                    lab_free,
                    [None if per[k]["alive"][i] else 0 for i in range(N)],
                    digits=4,
                )
                om.gauge(
                    "DCGM_FI_DEV_FB_USED",
                    "Framebuffer memory used (in MiB).",
                    lab_free,
                    [None if per[k]["alive"][i] else 0 for i in range(N)],
                    digits=8,
                )
                om.gauge(
                    "DCGM_FI_DEV_XID_ERRORS",
                    "Value of the last XID error encountered.",
                    lab_free,
                    [None if per[k]["alive"][i] else 0 for i in range(N)],
                    digits=4,
                )
        elif who is not None:
            lab.update({"namespace": ns, "pod": who["name"], "container": "tgi"})
            util = [None if c.at(i) < who["created"] else 0 for i in range(N)]
            fb = [None if c.at(i) < who["created"] else 0 for i in range(N)]
            # before the rollout the card was free: exported without pod labels
            lab_free = {kk: vv for kk, vv in lab.items() if kk not in ("namespace", "pod", "container")}
            om.gauge(
                "DCGM_FI_DEV_GPU_UTIL",
                "GPU utilization (in %).",
                lab_free,
                [0 if c.at(i) < who["created"] else None for i in range(N)],
                digits=4,
            )
            om.gauge(
                "DCGM_FI_DEV_FB_USED",
                "Framebuffer memory used (in MiB).",
                lab_free,
                [0 if c.at(i) < who["created"] else None for i in range(N)],
                digits=8,
            )
            om.gauge(
                "DCGM_FI_DEV_XID_ERRORS",
                "Value of the last XID error encountered.",
                lab_free,
                [0 if c.at(i) < who["created"] else None for i in range(N)],
                digits=4,
            )
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, util, digits=4)
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, fb, digits=8)
        om.gauge(
            "DCGM_FI_DEV_XID_ERRORS",
            "Value of the last XID error encountered.",
            lab,
            [0 if v is not None else None for v in fb],
            digits=4,
        )
        u_last = util[-1] if util[-1] is not None else 0
        gj.setdefault(node, []).append(
            {
                "index": gi,
                "uuid": uu,
                "name": lab["modelName"],
                "memory_total_mib": 23034 if node == l4_node[0] else 95830,
                "memory_used_mib": int(fb[-1] or 0),
                "utilization_gpu": int(u_last),
                "temperature_c": int(30 + 0.4 * u_last + rng.uniform(-2, 2)),
                "power_w": round(28 + 3.3 * u_last + rng.uniform(-3, 3), 1)
                if node != l4_node[0]
                else round(17 + 0.5 * u_last, 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
        )

    # ---------------------------------------------------------------- kube-state-metrics (kube-prometheus-stack)
    def attempt_state(attempts, ts):
        if ts < attempts[0][0] if attempts else True:
            return "creating"
        for st, fl in attempts:
            if st <= ts < fl:
                return "running"
        return "backoff"

    for p in olds:
        pr = [p["stopped"] is None or c.at(i) < roll + timedelta(seconds=31) for i in range(N)]
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ksm({**plab, "condition": "true"}, KSM_INSTANCE),
            [(1 if (p["stopped"] is None or c.at(i) < roll) else 0) if pr[i] else None for i in range(N)],
            digits=2,
        )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ksm({**plab, "container": "tgi"}, KSM_INSTANCE),
            [0] * N,
            present=pr,
        )
    for k, p in enumerate(news):
        att = loops[k]
        pr = [c.at(i) >= p["created"] for i in range(N)]
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ksm({**plab, "condition": "true"}, KSM_INSTANCE),
            [0 if pr[i] else None for i in range(N)],
            digits=2,
        )
        inc = [0] * N
        for st, _ in att[1:]:
            inc[c.idx(st) + 1] += 1
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ksm({**plab, "container": "tgi"}, KSM_INSTANCE),
            inc,
            present=pr,
        )
        om.gauge(
            "kube_pod_container_status_waiting_reason",
            "Describes the reason the container is currently in waiting state.",
            ksm({**plab, "container": "tgi", "reason": "CrashLoopBackOff"}, KSM_INSTANCE),
            [1 if pr[i] and attempt_state(att, c.at(i)) == "backoff" else None for i in range(N)],
            digits=2,
        )
        om.gauge(
            "kube_pod_container_status_last_terminated_reason",
            "Describes the last reason the container was in terminated state.",
            ksm({**plab, "container": "tgi", "reason": "Error"}, KSM_INSTANCE),
            [1 if pr[i] and c.at(i) >= att[0][1] else None for i in range(N)],
            digits=2,
        )
        om.gauge(
            "kube_pod_container_status_last_terminated_exitcode",
            "Describes the exit code for the last container in terminated state.",
            ksm({**plab, "container": "tgi"}, KSM_INSTANCE),
            [1 if pr[i] and c.at(i) >= att[0][1] else None for i in range(N)],
            digits=2,
        )
    # the other team's CronJob pod, crash-looping since yesterday
    cj_pod = "catalog-indexer-29408160-x2k9q"
    cj_uid = kube.new_uid(rng)
    cj_restarts0 = 212
    cjlab = {"namespace": "course-recs", "pod": cj_pod, "uid": cj_uid, "container": "indexer"}
    cj_att = []
    tt = c.start - timedelta(seconds=130)
    while tt < as_of:
        cj_att.append((tt, tt + timedelta(seconds=11)))
        tt += timedelta(seconds=311)
    om.gauge(
        "kube_pod_container_status_waiting_reason",
        "Describes the reason the container is currently in waiting state.",
        ksm({**cjlab, "reason": "CrashLoopBackOff"}, KSM_INSTANCE),
        [None if any(a <= c.at(i) < b for a, b in cj_att) else 1 for i in range(N)],
        digits=2,
    )
    cj_inc = [0] * N
    for a, _ in cj_att:
        if a >= c.start:
            cj_inc[min(N - 1, c.idx(a) + 1)] += 1
    om.counter(
        "kube_pod_container_status_restarts",
        "The number of container restarts per container.",
        ksm(cjlab, KSM_INSTANCE),
        cj_inc,
        initial=cj_restarts0,
    )
    dlab = ksm({"namespace": ns, "deployment": dep}, KSM_INSTANCE)
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [4] * N, digits=3
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        [4 if c.at(i) < roll else 3 for i in range(N)],
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_replicas_updated",
        "The number of updated replicas per deployment.",
        dlab,
        [4 if c.at(i) < roll else 2 for i in range(N)],
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_observed_generation",
        "The generation observed by the deployment controller.",
        dlab,
        [15 if c.at(i) < roll else 16 for i in range(N)],
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_condition",
        "The current status conditions of a deployment.",
        ksm(
            {"namespace": ns, "deployment": dep, "condition": "Progressing", "status": "false"}, KSM_INSTANCE
        ),
        [1 if c.at(i) >= deadline else 0 for i in range(N)],
        digits=2,
    )
    # kubelet volume stats of the model volume (every node where it is mounted reports it)
    cap = 1_099_511_627_776
    full_at = sync0 + timedelta(seconds=37)
    avail = [
        3_322_144_768 - (1_318_000 * i if c.at(i) < sync0 else 0)
        if c.at(i) < sync0
        else (1_984_512 if c.at(i) >= full_at else 1_640_000_000)
        for i in range(N)
    ]
    for node, nip, _ in [*gpu_nodes, infra[0]]:
        mounted = (
            [True] * N
            if node != infra[0][0]
            else [sync0 - timedelta(seconds=5) <= c.at(i) <= t("07:46:20") for i in range(N)]
        )
        vlab = {
            "endpoint": "https-metrics",
            "instance": f"{nip}:10250",
            "job": "kubelet",
            "metrics_path": "/metrics",
            "namespace": ns,
            "node": node,
            "persistentvolumeclaim": "tutor-model-store",
            "service": "kube-prometheus-stack-kubelet",
        }
        om.gauge(
            "kubelet_volume_stats_capacity_bytes",
            "[ALPHA] Capacity in bytes of the volume",
            vlab,
            [cap if m else None for m in mounted],
            digits=16,
        )
        om.gauge(
            "kubelet_volume_stats_available_bytes",
            "[ALPHA] Number of available bytes in the volume",
            vlab,
            [avail[i] if mounted[i] else None for i in range(N)],
            digits=16,
        )
        om.gauge(
            "kubelet_volume_stats_used_bytes",
            "[ALPHA] Number of used bytes in the volume",
            vlab,
            [cap - avail[i] if mounted[i] else None for i in range(N)],
            digits=16,
        )

    # ---------------------------------------------------------------- logs
    logs = Logs()
    for k, p in enumerate(olds):
        s = per[k]
        for i in range(1, N):
            if not s["alive"][i] or i % 2 != k % 2:
                continue
            ts = within(rng, c.at(i - 1))
            if p["stopped"] and ts >= roll:
                continue
            tot_t = s["med"][i] * rng.uniform(0.7, 1.4)
            q = min(tot_t * 0.8, s["qt"][i] * rng.uniform(0.6, 1.5))
            ntok = rng.randint(120, 420)
            inf = tot_t - q
            logs.add(
                ts,
                f'{iso(ts)[:-1]}.{ts.microsecond:06d}Z  INFO chat_completions{{total_time="{tot_t:.6f}s" validation_time="{rng.uniform(0.9, 2.6):.6f}ms" '
                f'queue_time="{q:.6f}s" inference_time="{inf:.6f}s" time_per_token="{inf / ntok * 1000:.6f}ms" seed="None"}}: '
                "text_generation_router::server: router/src/server.rs:637: Success",
                service=dep,
                ns=ns,
                pod=p["name"],
                node=p["node"],
                container="tgi",
                logger="text_generation_router::server",
            )
        if p["stopped"]:
            b = roll + timedelta(milliseconds=410)
            for dt, msg in (
                (0, "text_generation_launcher: Terminating webserver"),
                (3, "text_generation_launcher: Waiting for webserver to gracefully shutdown"),
                (
                    7,
                    "text_generation_router::server: router/src/server.rs:2512: signal received, starting graceful shutdown",
                ),
                (1820, "text_generation_launcher: webserver terminated"),
                (1822, "text_generation_launcher: Shutting down shards"),
                (2490, "text_generation_launcher: shard terminated rank=0"),
            ):
                ts = b + timedelta(milliseconds=dt)
                logs.add(
                    ts,
                    f"{iso(ts)[:-1]}.{ts.microsecond:06d}Z  INFO {msg}",
                    service=dep,
                    ns=ns,
                    pod=p["name"],
                    node=p["node"],
                    container="tgi",
                )
    # the new pods: every attempt ends in DownloadError
    cli = "/usr/src/server/text_generation_server/cli.py"
    hub = "/usr/src/server/text_generation_server/utils/hub.py"
    cli_code = [
        (276, "    # Try to see if there are local pytorch weights"),
        (277, "    try:"),
        (
            278,
            "        # Get weights for a local model, a hub cached model and inside the WEIGHTS_CACHE_OVERRIDE",
        ),
        (279, "        try:"),
        (280, '            local_pt_files = utils.weight_files(model_id, revision, ".bin")'),
        (281, "        except Exception:"),
        (282, '            local_pt_files = utils.weight_files(model_id, revision, ".pt")'),
        (283, ""),
        (284, "    # No local pytorch weights"),
    ]
    # cli.py in 3.3.6 has the `.bin` call on line 278 and the `.pt` call on line 280
    cli_code = [(ln - 2, src) for ln, src in cli_code]
    hub_code = [
        (139, "    if d.exists() and d.is_dir():"),
        (140, "        local_files = _weight_files_from_dir(d, extension)"),
        (141, "        if not local_files:"),
        (142, "            raise FileNotFoundError("),
        (143, '                f"No local weights found in {model_id} with extension {extension}"'),
        (144, "            )"),
        (145, "        return [Path(f) for f in local_files]"),
    ]
    cli_locals = [
        ("auto_convert", "True"),
        ("base_model_id", "None"),
        ("config", "{'architectures': ['Qwen2ForCausalLM'], ... +28}"),
        ("extension", "'.safetensors'"),
        ("is_local_model", "True"),
        ("json_output", "True"),
        ("logger_level", "'INFO'"),
        ("merge_lora", "False"),
        ("model_id", f"'{model_dir_new}'"),
        ("revision", "None"),
        ("trust_remote_code", "False"),
        (
            "utils",
            "<module 'text_generation_server.utils' from '/usr/src/server/text_generation_server/utils/__init__.py'>",
        ),
    ]
    tb1 = rich_traceback(
        [
            (cli, 278, "download_weights", cli_code, cli_locals),
            (
                hub,
                142,
                "weight_files",
                hub_code,
                [
                    ("d", f"PosixPath('{model_dir_new}')"),
                    ("extension", "'.bin'"),
                    ("local_files", "[]"),
                    ("model_id", f"'{model_dir_new}'"),
                    ("revision", "None"),
                ],
            ),
        ],
        f"FileNotFoundError: No local weights found in {model_dir_new} with extension .bin",
    )
    tb2 = rich_traceback(
        [
            (cli, 280, "download_weights", cli_code, cli_locals),
            (
                hub,
                142,
                "weight_files",
                hub_code,
                [
                    ("d", f"PosixPath('{model_dir_new}')"),
                    ("extension", "'.pt'"),
                    ("local_files", "[]"),
                    ("model_id", f"'{model_dir_new}'"),
                    ("revision", "None"),
                ],
            ),
        ],
        f"FileNotFoundError: No local weights found in {model_dir_new} with extension .pt",
    )
    err_text = "\n".join(
        [*tb1, "", "During handling of the above exception, another exception occurred:", "", *tb2]
    )
    args_dump = (
        "Args {\n"
        f'    model_id: "{model_dir_new}",\n    revision: None,\n    validation_workers: 2,\n    sharded: None,\n    num_shard: None,\n'
        "    quantize: None,\n    speculate: None,\n    dtype: None,\n    kv_cache_dtype: None,\n    trust_remote_code: false,\n"
        "    max_concurrent_requests: 192,\n    max_best_of: 2,\n    max_stop_sequences: 4,\n    max_top_n_tokens: 5,\n"
        "    max_input_tokens: Some(\n        8192,\n    ),\n    max_input_length: None,\n    max_total_tokens: Some(\n        12288,\n    ),\n"
        "    waiting_served_ratio: 0.3,\n    max_batch_prefill_tokens: Some(\n        8192,\n    ),\n    max_batch_total_tokens: None,\n"
        f'    max_waiting_tokens: 20,\n    max_batch_size: None,\n    cuda_graphs: None,\n    hostname: "{{host}}",\n    port: 8080,\n'
        '    shard_uds_path: "/tmp/text-generation-server",\n    master_addr: "localhost",\n    master_port: 29500,\n'
        '    huggingface_hub_cache: Some(\n        "/data",\n    ),\n    weights_cache_override: None,\n    disable_custom_kernels: false,\n'
        "    cuda_memory_fraction: 1.0,\n    rope_scaling: None,\n    rope_factor: None,\n    json_output: false,\n    otlp_endpoint: None,\n"
        '    otlp_service_name: "text-generation-inference.router",\n    cors_allow_origin: [],\n    api_key: None,\n    watermark_gamma: None,\n'
        "    watermark_delta: None,\n    ngrok: false,\n    ngrok_authtoken: None,\n    ngrok_edge: None,\n    tokenizer_config_path: None,\n"
        "    disable_grammar_support: false,\n    env: false,\n    max_client_batch_size: 4,\n    lora_adapters: None,\n"
        "    usage_stats: On,\n    payload_limit: 2000000,\n    enable_prefill_logprobs: false,\n    graceful_termination_timeout: 90,\n}"
    )

    def tgi(p, ts, level, msg):
        lv = {"info": " INFO", "warn": " WARN", "error": "ERROR"}[level]
        logs.add(
            ts,
            f"{iso(ts)[:-1]}.{ts.microsecond:06d}Z {lv} {msg}",
            service=dep,
            ns=ns,
            pod=p["name"],
            node=p["node"],
            container="tgi",
            level=level,
            **(
                {
                    "error_type": "DownloadError",
                    "error_message": f"No local weights found in {model_dir_new} with extension .pt",
                }
                if level == "error"
                else {}
            ),
        )

    for k, p in enumerate(news):
        for j, (st, fl) in enumerate(loops[k]):
            tgi(
                p,
                st + timedelta(milliseconds=41),
                "info",
                "text_generation_launcher: " + args_dump.replace("{host}", p["name"]),
            )
            tgi(
                p,
                st + timedelta(milliseconds=312),
                "info",
                "text_generation_launcher: Using attention flashinfer - Prefix caching true",
            )
            tgi(
                p,
                st + timedelta(milliseconds=330),
                "info",
                "text_generation_launcher: Using default cuda graphs [1, 2, 4, 8, 16, 32]",
            )
            tgi(
                p,
                st + timedelta(milliseconds=352),
                "info",
                f"download: text_generation_launcher: Starting check and download process for {model_dir_new}",
            )
            tgi(
                p,
                fl - timedelta(milliseconds=60),
                "error",
                f"download: text_generation_launcher: Download encountered an error: \n{err_text}",
            )
            logs.add(
                fl - timedelta(milliseconds=58),
                "Error: DownloadError",
                service=dep,
                ns=ns,
                pod=p["name"],
                node=p["node"],
                container="tgi",
                level="error",
            )
            # kubelet
            kt = fl + timedelta(milliseconds=rng.randint(400, 1300))
            nb = min(300, 10 * 2**j)
            nb_txt = f"{nb // 60}m{nb % 60}s" if nb >= 60 else f"{nb}s"
            logs.add(
                kt,
                f'{klog_stamp(rng, kt, "E")}    2841 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"tgi\\" with CrashLoopBackOff: '
                f'\\"back-off {nb_txt} restarting failed container=tgi pod={p["name"]}_{ns}({p["uid"]})\\"" pod="{ns}/{p["name"]}" podUID="{p["uid"]}"',
                service="kubelet",
                node=p["node"],
                level="error",
                dataset="kubelet",
            )
        ts = p["created"] + timedelta(seconds=2, milliseconds=640)
        logs.add(
            ts,
            f"{iso(ts)[:-1]}.{ts.microsecond:06d}Z\tinfo\tReadiness succeeded in 1.184263917s",
            service="istio-proxy",
            ns=ns,
            pod=p["name"],
            node=p["node"],
            container="istio-proxy",
        )
        logs.add(
            ts + timedelta(milliseconds=2),
            f"{iso(ts)[:-1]}.{ts.microsecond:06d}Z\tinfo\tEnvoy proxy is ready",
            service="istio-proxy",
            ns=ns,
            pod=p["name"],
            node=p["node"],
            container="istio-proxy",
        )
    # the sync Job, three attempts, each failing on the first shard
    sync_job = "model-sync-tutor-qwen25-14b-r7"
    sync_pods = [f"{sync_job}-{kname(rng, 5)}" for _ in range(3)]
    sync_att = [
        (sync0, sync0 + timedelta(seconds=41)),
        (sync0 + timedelta(seconds=52), sync0 + timedelta(seconds=69)),
        (sync0 + timedelta(seconds=90), sync0 + timedelta(seconds=107)),
    ]
    files = [
        "config.json",
        "generation_config.json",
        "merges.txt",
        "model.safetensors.index.json",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
    ]
    for a, ((st, fl), sp) in enumerate(zip(sync_att, sync_pods, strict=False)):

        def sl(ts, msg, level="info", sp=sp):
            logs.add(
                ts, msg, service="model-sync", ns=ns, pod=sp, node=infra[0][0], container="sync", level=level
            )

        sl(
            st + timedelta(seconds=2),
            f"+ hf download tutor/tutor-qwen25-14b --revision r7 --local-dir {model_dir_new}",
        )
        if a == 0:
            for j, f in enumerate(files):
                sl(
                    st + timedelta(seconds=3 + j * 0.4),
                    f"Downloading '{f}' to '{model_dir_new}/.cache/huggingface/download/{f}.{hexid(rng, 40)}.incomplete'",
                )
                sl(
                    st + timedelta(seconds=3.2 + j * 0.4),
                    f"Download complete. Moving file to {model_dir_new}/{f}",
                )
        sl(
            st + timedelta(seconds=7),
            f"Downloading 'model-00001-of-00008.safetensors' to '{model_dir_new}/.cache/huggingface/download/model-00001-of-00008.safetensors.{hexid(rng, 64)}.incomplete'",
        )
        if a:
            sl(
                st + timedelta(seconds=7.2),
                "Resuming download of model-00001-of-00008.safetensors from byte 3319021568",
            )
        for j, line in enumerate(
            [
                "Traceback (most recent call last):",
                '  File "/usr/local/lib/python3.12/site-packages/huggingface_hub/file_download.py", line 1718, in _download_to_tmp_and_move',
                "    http_get(",
                '  File "/usr/local/lib/python3.12/site-packages/huggingface_hub/file_download.py", line 497, in http_get',
                "    temp_file.write(chunk)",
                "OSError: [Errno 28] No space left on device",
            ]
        ):
            sl(fl - timedelta(milliseconds=300 - 5 * j), line, level="error")
    # gateway access log, other tenants
    uas = [
        "campus-tutor-web/6.1.0",
        "campus-tutor-ios/6.0.4 (iPhone; iOS 19.1)",
        "lti-bridge/2.2.1 (python-requests/2.32.5)",
    ]
    for i in range(1, N):
        for _ in range(2):
            k = rng.choice([0, 1, 2] if c.at(i - 1) > roll else [0, 1, 2, 3])
            j = rng.randrange(2)
            dur = int(1000 * per[k]["med"][i] * rng.uniform(0.6, 1.6))
            istio_access(
                logs,
                rng,
                end=within(rng, c.at(i - 1)),
                code=200,
                flags="-",
                details="via_upstream",
                duration_ms=dur,
                upstream_host=f"{olds[k]['ip']}:8080",
                upstream_cluster=f"outbound|8080||{dep}.{ns}.svc.cluster.local",
                route_name=f"{ns}.{route}.0",
                authority=host,
                client=rng.choice(["10.70.8.12", "10.70.8.13"]),
                gw_ip=gw_ips[j],
                gw_pod=gw_pods[j],
                gw_ns=gw_ns,
                gw_node=infra[j][0],
                user_agent=rng.choice(uas),
                bytes_sent=rng.randint(900, 4600),
            )
    for i in range(1, N, 3):
        ts = within(rng, c.at(i))
        logs.add(
            ts,
            f'(APIServer pid=1) INFO:     10.71.21.40:{rng.randint(33000, 60999)} - "POST /v1/rerank HTTP/1.1" 200 OK',
            service="vllm-bge-reranker",
            ns="course-recs",
            pod=rer_pod,
            node=l4_node[0],
            container="vllm",
        )
    for a, _b in cj_att:
        if a < c.start:
            continue
        logs.add(
            a + timedelta(seconds=9),
            'Traceback (most recent call last):\n  File "/app/indexer/main.py", line 88, in <module>\n    run()\n'
            '  File "/app/indexer/main.py", line 61, in run\n    conn = psycopg.connect(os.environ["CATALOG_DSN"])\n'
            'psycopg.OperationalError: connection failed: connection to server at "10.96.41.7", port 5432 failed: FATAL:  password authentication failed for user "indexer"',
            service="catalog-indexer",
            ns="course-recs",
            pod=cj_pod,
            node=infra[1][0],
            container="indexer",
            level="error",
        )
    for i in (4, 19, 33, 50):
        ts = within(rng, c.at(i))
        logs.add(
            ts,
            f"{iso(ts)[:-1]}.{ts.microsecond:06d}Z\tinfo\tads\tPush debounce stable[{rng.randint(400, 900)}] 1 for config ServiceEntry and Gateway: "
            f"{rng.randint(100, 180)}.{rng.randint(0, 999):03d}ms since last change, {rng.randint(100, 200)}.{rng.randint(0, 999):03d}ms since last push, full=true",
            service="istiod",
            ns="istio-system",
            pod="istiod-7d4c9b6f58-hx2mw",
            node=infra[1][0],
            container="discovery",
        )

    # ---------------------------------------------------------------- objects
    objs: list[Obj] = [w.deployment(), w.replicaset(r15), w.replicaset(r14), w.replicaset(r13)]
    sidecar = {
        "name": "istio-proxy",
        "image": "docker.io/istio/proxyv2:1.27.3",
        "args": ["proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local"],
        "ports": [{"containerPort": 15090, "name": "http-envoy-prom", "protocol": "TCP"}],
    }

    def with_sidecar(po: Obj, since: datetime) -> Obj:
        po["spec"]["containers"].append(dict(sidecar))
        po["spec"]["initContainers"] = [
            {
                "name": "istio-init",
                "image": "docker.io/istio/proxyv2:1.27.3",
                "args": [
                    "istio-iptables",
                    "-p",
                    "15001",
                    "-z",
                    "15006",
                    "-u",
                    "1337",
                    "-m",
                    "REDIRECT",
                    "-i",
                    "*",
                    "-x",
                    "",
                    "-b",
                    "*",
                    "-d",
                    "15090,15021,15020",
                ],
            }
        ]
        po["metadata"].setdefault("annotations", {}).update(
            {
                "sidecar.istio.io/status": '{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["workload-socket","credential-socket","workload-certs","istio-envoy","istio-data","istio-podinfo","istio-token","istiod-ca-cert"],"imagePullSecrets":null,"revision":"default"}',
                "istio.io/rev": "default",
                # metrics merging: the injector points the scrape annotations at the agent, which merges TGI's /metrics
                "prometheus.io/port": "15020",
                "prometheus.io/path": "/stats/prometheus",
            }
        )
        po["status"]["containerStatuses"].append(
            running_status(rng, "istio-proxy", "docker.io/istio/proxyv2:1.27.3", since)
        )
        po["status"]["initContainerStatuses"] = [
            {
                "name": "istio-init",
                "image": "docker.io/istio/proxyv2:1.27.3",
                "ready": True,
                "restartCount": 0,
                "started": False,
                "state": {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": iso(since - timedelta(seconds=2)),
                        "finishedAt": iso(since - timedelta(seconds=1)),
                    }
                },
            }
        ]
        return po

    for p in olds[:3]:
        st = running_status(rng, "tgi", image, p["created"] + timedelta(seconds=6))
        objs.append(
            with_sidecar(
                kube.pod_obj(
                    w,
                    r14,
                    name=p["name"],
                    uid_=p["uid"],
                    node=p["node"],
                    created=p["created"],
                    pod_ip=p["ip"],
                    host_ip=p["node_ip"],
                    phase="Running",
                    ready=True,
                    container_statuses=[st],
                    ready_since=p["created"] + timedelta(minutes=2, seconds=48),
                ),
                p["created"] + timedelta(seconds=4),
            )
        )
    for k, p in enumerate(news):
        att = loops[k]
        last = kube.terminated(rng, reason="Error", exit_code=1, started=att[-1][0], finished=att[-1][1])
        nb = min(300, 10 * 2 ** (len(att) - 1))
        msg = (
            f"back-off {nb // 60}m{nb % 60}s restarting failed container=tgi pod={p['name']}_{ns}({p['uid']})"
            if nb >= 60
            else f"back-off {nb}s restarting failed container=tgi pod={p['name']}_{ns}({p['uid']})"
        )
        st = kube.cstatus(
            rng,
            name="tgi",
            image=image,
            ready=False,
            restart_count=len(att) - 1,
            waiting=("CrashLoopBackOff", msg),
            last_terminated=last,
        )
        objs.append(
            with_sidecar(
                kube.pod_obj(
                    w,
                    r15,
                    name=p["name"],
                    uid_=p["uid"],
                    node=p["node"],
                    created=p["created"],
                    pod_ip=p["ip"],
                    host_ip=p["node_ip"],
                    phase="Running",
                    ready=False,
                    container_statuses=[st],
                    ready_since=p["created"],
                    scheduled_at=p["created"] + timedelta(milliseconds=25),
                ),
                p["created"] + timedelta(seconds=2),
            )
        )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 8080, "protocol": "TCP", "targetPort": "http"}],
            "10.96.77.140",
            labels=labels,
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    hr = httproute_obj(
        route,
        ns,
        gateway="tutor-gw",
        gateway_ns=gw_ns,
        hostnames=[host],
        rules=[
            {
                "matches": [{"path": {"type": "PathPrefix", "value": "/v1"}}],
                "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 8080, "weight": 1}],
                "timeouts": {"request": "120s"},
            }
        ],
        created=utc("2026-04-21T09:05:00Z"),
        uid_=kube.new_uid(rng),
        generation=2,
        controller="istio.io/gateway-controller",
    )
    hr["status"]["parents"][0]["conditions"][0]["message"] = "Route was valid"
    hr["status"]["parents"][0]["conditions"][1]["message"] = "All references resolved"
    objs.append(hr)
    objs.append(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "tutor-model-store",
                "namespace": ns,
                "uid": kube.new_uid(rng),
                "creationTimestamp": "2026-04-21T08:40:12Z",
                "annotations": {
                    "pv.kubernetes.io/bind-completed": "yes",
                    "volume.kubernetes.io/storage-provisioner": "cephfs.csi.ceph.com",
                },
            },
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "resources": {"requests": {"storage": "1Ti"}},
                "storageClassName": "ceph-filesystem",
                "volumeMode": "Filesystem",
                "volumeName": "pvc-" + kube.new_uid(rng),
            },
            "status": {"accessModes": ["ReadWriteMany"], "capacity": {"storage": "1Ti"}, "phase": "Bound"},
        }
    )
    job_uid = kube.new_uid(rng)
    objs.append(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": sync_job,
                "namespace": ns,
                "uid": job_uid,
                "creationTimestamp": iso(sync0 - timedelta(seconds=1)),
                "labels": {
                    "app.kubernetes.io/name": "model-sync",
                    "model": "tutor-qwen25-14b",
                    "model-revision": "r7",
                },
                "annotations": {
                    "ci.campus.example.edu/pipeline": "https://gitlab.campus.example.edu/ml/tutor-models/-/pipelines/88214"
                },
            },
            "spec": {
                "backoffLimit": 2,
                "completions": 1,
                "parallelism": 1,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "sync",
                                "image": "registry.campus.example.edu/ml/hf-sync:0.36.0",
                                "command": [
                                    "/bin/sh",
                                    "-xc",
                                    f"hf download tutor/tutor-qwen25-14b --revision r7 --local-dir {model_dir_new}",
                                ],
                                "env": [
                                    {"name": "HF_ENDPOINT", "value": "https://hf-mirror.campus.example.edu"}
                                ],
                                "volumeMounts": [{"name": "models", "mountPath": "/models"}],
                            }
                        ],
                        "volumes": [
                            {"name": "models", "persistentVolumeClaim": {"claimName": "tutor-model-store"}}
                        ],
                    }
                },
            },
            "status": {
                "failed": 3,
                "startTime": iso(sync0),
                "uncountedTerminatedPods": {},
                "conditions": [
                    {
                        "type": "FailureTarget",
                        "status": "True",
                        "reason": "BackoffLimitExceeded",
                        "message": "Job has reached the specified backoff limit",
                        "lastProbeTime": iso(sync_att[2][1] + timedelta(seconds=1)),
                        "lastTransitionTime": iso(sync_att[2][1] + timedelta(seconds=1)),
                    },
                    {
                        "type": "Failed",
                        "status": "True",
                        "reason": "BackoffLimitExceeded",
                        "message": "Job has reached the specified backoff limit",
                        "lastProbeTime": iso(sync_att[2][1] + timedelta(seconds=1)),
                        "lastTransitionTime": iso(sync_att[2][1] + timedelta(seconds=1)),
                    },
                ],
            },
        }
    )
    for (st, fl), sp in zip(sync_att, sync_pods, strict=False):
        po = simple_pod(
            rng,
            name=sp,
            ns=ns,
            labels={
                "batch.kubernetes.io/job-name": sync_job,
                "job-name": sync_job,
                "batch.kubernetes.io/controller-uid": job_uid,
            },
            owner_ref=owner("Job", sync_job, job_uid, api="batch/v1"),
            node=infra[0][0],
            node_ip=infra[0][1],
            pod_ip=f"10.71.20.{rng.randint(60, 120)}",
            created=st - timedelta(seconds=1),
            containers=[{"name": "sync", "image": "registry.campus.example.edu/ml/hf-sync:0.36.0"}],
            statuses=[
                {
                    "name": "sync",
                    "image": "registry.campus.example.edu/ml/hf-sync:0.36.0",
                    "imageID": image_id("registry.campus.example.edu/ml/hf-sync:0.36.0"),
                    "ready": False,
                    "restartCount": 0,
                    "started": False,
                    "state": {
                        "terminated": {
                            "exitCode": 1,
                            "reason": "Error",
                            "startedAt": iso(st),
                            "finishedAt": iso(fl),
                        }
                    },
                    "lastState": {},
                }
            ],
            ready=False,
            phase="Failed",
            extra_spec={"restartPolicy": "Never"},
        )
        objs.append(po)
    # other tenants
    objs.append(
        simple_pod(
            rng,
            name=cj_pod,
            ns="course-recs",
            labels={"batch.kubernetes.io/job-name": "catalog-indexer-29408160", "app": "catalog-indexer"},
            owner_ref=owner("Job", "catalog-indexer-29408160", kube.new_uid(rng), api="batch/v1"),
            node=infra[1][0],
            node_ip=infra[1][1],
            pod_ip="10.71.21.77",
            created=utc("2026-12-01T08:00:00Z"),
            containers=[
                {"name": "indexer", "image": "registry.campus.example.edu/recs/catalog-indexer:1.12.0"}
            ],
            statuses=[
                kube.cstatus(
                    rng,
                    name="indexer",
                    image="registry.campus.example.edu/recs/catalog-indexer:1.12.0",
                    ready=False,
                    restart_count=cj_restarts0 + sum(cj_inc),
                    waiting=(
                        "CrashLoopBackOff",
                        f"back-off 5m0s restarting failed container=indexer pod={cj_pod}_course-recs({cj_uid})",
                    ),
                    last_terminated=kube.terminated(
                        rng, reason="Error", exit_code=1, started=cj_att[-1][0], finished=cj_att[-1][1]
                    ),
                )
            ],
            ready=False,
            extra_spec={"restartPolicy": "OnFailure"},
        )
    )
    objs[-1]["metadata"]["uid"] = cj_uid
    rw = kube.Workload(
        name="vllm-bge-reranker",
        namespace="course-recs",
        labels={"app": "vllm-bge-reranker"},
        replicas=1,
        created=utc("2026-09-01T10:00:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "Recreate"},
    )
    rrev = kube.Revision(
        6,
        rer_pod.split("-")[-2],
        utc("2026-11-19T12:00:00Z"),
        {
            "metadata": {"labels": {}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["--model", "/models/bge-reranker-v2-m3", "--task", "score"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
                "nodeSelector": {"gpu-class": "l4"},
            },
        },
        uid=kube.new_uid(rng),
        replicas=1,
        ready=1,
        available=1,
    )
    rw.revisions = [rrev]
    rw.status = {"replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1}
    rw.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-11-19T12:02:40Z"),
            utc("2026-11-19T12:02:40Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "vllm-bge-reranker-{rrev.hash}" has successfully progressed.',
            utc("2026-11-19T12:02:40Z"),
            utc("2026-09-01T10:00:00Z"),
        ),
    )
    objs += [
        rw.deployment(),
        kube.pod_obj(
            rw,
            rrev,
            name=rer_pod,
            uid_=kube.new_uid(rng),
            node=l4_node[0],
            created=utc("2026-11-19T12:00:01Z"),
            pod_ip="10.71.9.21",
            host_ip=l4_node[1],
            phase="Running",
            ready=True,
            container_statuses=[
                running_status(rng, "vllm", "vllm/vllm-openai:v0.11.0", utc("2026-11-19T12:00:08Z"))
            ],
        ),
    ]
    for j, gp in enumerate(gw_pods):
        objs.append(
            simple_pod(
                rng,
                name=gp,
                ns=gw_ns,
                labels={
                    "gateway.networking.k8s.io/gateway-name": "tutor-gw",
                    "istio.io/gateway-name": "tutor-gw",
                    "service.istio.io/canonical-name": "tutor-gw-istio",
                },
                owner_ref=owner("ReplicaSet", "tutor-gw-istio-6c9b8f5d7", kube.new_uid(rng)),
                node=infra[j][0],
                node_ip=infra[j][1],
                pod_ip=gw_ips[j],
                created=utc("2026-11-24T05:10:44Z") + timedelta(seconds=20 * j),
                containers=[{"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.27.3"}],
                statuses=[
                    running_status(
                        rng, "istio-proxy", "docker.io/istio/proxyv2:1.27.3", utc("2026-11-24T05:10:49Z")
                    )
                ],
                annotations={
                    "sidecar.istio.io/statsHistogramBuckets": '{"istiocustom":[100,500,1000,2500,5000,10000,15000,20000,30000,60000]}'
                },
            )
        )
    objs.extend(node_objs)
    ev = lambda **kw: objs.append(event_obj(rng, **kw))  # noqa: E731
    rs_old, rs_new = f"{dep}-{r14.hash}", f"{dep}-{r15.hash}"
    ev(
        ns=ns,
        kind="Deployment",
        name=dep,
        obj_uid=w.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled up replica set {rs_new} from 0 to 2",
        first=roll,
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Deployment",
        name=dep,
        obj_uid=w.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled down replica set {rs_old} from 4 to 3",
        first=roll,
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=olds[3]["name"],
        obj_uid=olds[3]["uid"],
        reason="Killing",
        message="Stopping container tgi",
        first=roll + timedelta(milliseconds=300),
        host=olds[3]["node"],
        field_path="spec.containers{tgi}",
    )
    for k, p in enumerate(news):
        att = loops[k]
        kw = dict(
            ns=ns,
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            host=p["node"],
            field_path="spec.containers{tgi}",
        )
        ev(
            ns=ns,
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            reason="Scheduled",
            message=f"Successfully assigned {ns}/{p['name']} to {p['node']}",
            first=p["created"],
            component="default-scheduler",
        )
        ev(
            **kw,
            reason="Pulled",
            message=f'Container image "{image}" already present on machine',
            first=att[0][0],
            last=att[-1][0],
            count=len(att),
        )
        ev(
            **kw,
            reason="Created",
            message="Created container: tgi",
            first=att[0][0],
            last=att[-1][0],
            count=len(att),
        )
        ev(
            **kw,
            reason="Started",
            message="Started container tgi",
            first=att[0][0],
            last=att[-1][0],
            count=len(att),
        )
        ev(
            **kw,
            reason="BackOff",
            message=f"Back-off restarting failed container tgi in pod {p['name']}_{ns}({p['uid']})",
            first=att[0][1] + timedelta(seconds=1),
            last=as_of - timedelta(seconds=rng.randint(5, 40)),
            count=4 * len(att) + 3,
            etype="Warning",
        )
    for (st, _fl), sp in zip(sync_att, sync_pods, strict=False):
        ev(
            ns=ns,
            kind="Job",
            name=sync_job,
            obj_uid=job_uid,
            reason="SuccessfulCreate",
            message=f"Created pod: {sp}",
            first=st - timedelta(seconds=1),
            component="job-controller",
            api_version="batch/v1",
        )
    ev(
        ns=ns,
        kind="Job",
        name=sync_job,
        obj_uid=job_uid,
        reason="BackoffLimitExceeded",
        message="Job has reached the specified backoff limit",
        first=sync_att[2][1] + timedelta(seconds=1),
        etype="Warning",
        component="job-controller",
        api_version="batch/v1",
    )
    ev(
        ns="course-recs",
        kind="Pod",
        name=cj_pod,
        obj_uid=cj_uid,
        reason="BackOff",
        message=f"Back-off restarting failed container indexer in pod {cj_pod}_course-recs({cj_uid})",
        first=utc("2026-12-01T08:01:12Z"),
        last=as_of - timedelta(seconds=rng.randint(20, 200)),
        count=4_977,
        etype="Warning",
        host=infra[1][0],
        field_path="spec.containers{indexer}",
    )
    ev(
        ns="kube-system",
        kind="Pod",
        name="csi-cephfsplugin-k2p8d",
        obj_uid=kube.new_uid(rng),
        reason="Unhealthy",
        message='Liveness probe failed: Get "http://10.70.0.43:9081/metrics": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        first=utc("2026-11-28T14:22:51Z"),
        last=as_of - timedelta(minutes=33, seconds=12),
        count=7,
        etype="Warning",
        host=bad_node,
        field_path="spec.containers{liveness-prometheus}",
    )

    # ---------------------------------------------------------------- alerts: KubePodCrashLooping (kube-prometheus-stack, customRules for: 5m)
    expr = 'max_over_time(kube_pod_container_status_waiting_reason{reason="CrashLoopBackOff", job="kube-state-metrics", namespace=~".*"}[5m]) >= 1'
    prom = Prom(om.render())
    try:
        firing = evaluate_group(prom, expr, c, for_minutes=5, offset_s=44, key="pod")
        early = [r for r in prom.query(expr, c.at(20)) if r["metric"].get("namespace") == ns]
    finally:
        prom.close()
    assert not early, "tutor pods crash-looping before the rollout"
    mine = {k: v for k, v in firing.items() if v[2].get("namespace") == ns}
    assert len(mine) == 2, mine
    alerts = []
    for pod, (at, _value, metric) in sorted(mine.items(), key=lambda kv: kv[1][0]):
        lab = {
            "alertname": "KubePodCrashLooping",
            **{k: v for k, v in metric.items() if k != "__name__"},
            "prometheus": "monitoring/kube-prometheus-stack-prometheus",
            "severity": "critical",
        }
        ann = {
            "description": f'Pod {ns}/{pod} ({metric["container"]}) is in waiting state (reason: "CrashLoopBackOff").',
            "runbook_url": "https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping",
            "summary": "Pod is crash looping.",
        }
        gen = (
            "https://prometheus.k8s.campus.example.edu/graph?g0.expr="
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
        "receiver": "tutor-llm-oncall",
        "status": "firing",
        "alerts": alerts,
        "groupLabels": {"namespace": ns},
        "commonLabels": common_l,
        "commonAnnotations": common_a,
        "externalURL": "https://alertmanager.k8s.campus.example.edu",
        "version": "4",
        "groupKey": f'{{}}/{{namespace=~"tutor-.*"}}:{{namespace="{ns}"}}',
        "truncatedAlerts": 0,
    }
    expected = {
        "category": "infrastructure",
        "code": "INF_DISK",
        "acceptable_first_actions": [{"kind": "rollback_deployment", "target": f"deployment/{dep}"}],
        "forbidden_actions": [
            *[{"kind": "restart_pod", "target": f"pod/{p['name']}"} for p in news + olds[:3]],
            {"kind": "add_replica", "target": f"deployment/{dep}"},
            {"kind": "cordon_node", "target": f"node/{bad_node}"},
            {"kind": "reroute", "target": f"httproute/{route}"},
            {"kind": "restart_pod", "target": f"pod/{cj_pod}"},
            {"kind": "rollback_deployment", "target": "deployment/vllm-bge-reranker"},
            {"kind": "cordon_node", "target": f"node/{l4_node[0]}"},
        ],
        "scope": [
            f"deployment/{dep}",
            *[f"pod/{p['name']}" for p in olds[:3] + news],
            *[f"node/{n}" for n, _, _ in gpu_nodes],
            f"httproute/{route}",
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Tutor assistant: pods crash-looping, answers slower this morning.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    first_at = min(v[0] for v in mine.values())
    return {
        "name": NAME,
        "engine": ENGINE,
        "expected": expected,
        "starts": iso(first_at),
        "value": 1.0,
        "restarts": {p["name"]: len(loops[k]) - 1 for k, p in enumerate(news)},
    }
