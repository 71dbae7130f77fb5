# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""TGI at its HPA maximum sheds load with 429 `Model is overloaded`; three decoys around it.

`tgi-llama31-8b-edge` (HF TGI 3.3.4, Llama-3.1-8B-Instruct, one L40S per replica on EKS g6e nodes,
`--max-concurrent-requests 96`, JSON logs) is scaled by an HPA on the pods metric `tgi_queue_size`
(min 3, max 6). From 13:02 a mobile release turns on auto-summaries and arrivals grow from ~880 to
~1,900 requests/min. The HPA goes 4 -> 5 -> 6 (`SuccessfulRescale ... pods metric tgi_queue_size above
target`) and from 13:07 reports `ScalingLimited=True, TooManyReplicas`. Six replicas top out at ~1,700
requests/min: every replica sits at its concurrency limit (batch ~64, queue ~32), and TGI rejects the
rest before queueing (`no permits available` in its log, `tgi_request_failure{err="overloaded"}`,
HTTP 429 `{"error":"Model is overloaded","error_type":"overloaded"}`), which ingress-nginx passes on
(`upstream_status` 429). No 5xx, no restarts, no OOM, no rollout of the TGI deployment.

Decoys: the namespace's OpenTelemetry gateway (`otel-gateway`) rolled out a new revision at 12:52, ten
minutes before the surge; a CronJob pod (`kb-sync-...`) has been crash-looping for three days (a
`BackOff` event with count 600+, first seen 2026-10-31); and a GPU node of another tenant (`doc-ocr`)
went NotReady at 12:51. ingress-nginx is scraped without `honorLabels`, so its `namespace`/`service`
labels are the controller's and the Ingress' are `exported_namespace`/`exported_service`. Logs are
shipped by Fluent Bit (tail + kubernetes filter, ECS-mapped).
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from . import exporters as ex
from . import kube
from .common import gpu_node
from .lib import (
    OM,
    Clock,
    Obj,
    Prom,
    current_firing,
    event_obj,
    hexid,
    iso,
    node_conditions,
    owner,
    ramp,
    service_obj,
    uid,
    utc,
    webhook,
    within,
    write_pack,
)
from .p10_nccl_ib_port_down import ShipperLogs, pod_plain

NAME = "hpa-maxed-queue-full-with-decoys"
ENGINE = "HF TGI 3.3.4 (JSON logs) behind ingress-nginx 1.13, HPA on tgi_queue_size, EKS g6e (L40S)"


def build(root):
    rng = random.Random(11211)
    as_of = utc("2026-11-03T13:40:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "edge-assist"
    dep = "tgi-llama31-8b-edge"
    ingress = "edge-assist-llm"
    host = "assist-api.edge.example.net"
    image = "ghcr.io/huggingface/text-generation-inference:3.3.4"
    driver = "570.172.08"
    region, az = "ca-central-1", "ca-central-1b"
    ctl_ns = "edge-ingress"
    ctl_pod = "ingress-nginx-controller-6c9f7d8b54-tq7hz"
    ctl_ip = "10.52.12.41"
    ctl_node = "ip-10-52-12-77.ca-central-1.compute.internal"
    cluster_name = "edge-prod-cac1"

    # ---------------------------------------------------------------- nodes
    gpu_nodes = {
        "ip-10-52-33-17.ca-central-1.compute.internal": "10.52.33.17",
        "ip-10-52-34-102.ca-central-1.compute.internal": "10.52.34.102",
        "ip-10-52-35-58.ca-central-1.compute.internal": "10.52.35.58",
    }
    ocr_nodes = {
        "ip-10-52-71-18.ca-central-1.compute.internal": "10.52.71.18",
        "ip-10-52-71-94.ca-central-1.compute.internal": "10.52.71.94",
    }
    sys_nodes = {ctl_node: "10.52.12.77", "ip-10-52-13-9.ca-central-1.compute.internal": "10.52.13.9"}
    dead = "ip-10-52-71-18.ca-central-1.compute.internal"
    dead_since = t("12:51:20")
    node_objs: list[Obj] = []
    for k, (name, ip) in enumerate(gpu_nodes.items()):
        node_objs.append(
            gpu_node(
                rng,
                name,
                as_of=as_of,
                created=utc("2026-10-20T10:02:11Z") + timedelta(hours=5 * k),
                ready_since=utc("2026-10-20T10:04:00Z") + timedelta(hours=5 * k),
                ip=ip,
                pod_cidr=None,
                product="NVIDIA L40S",
                gpu_count=4,
                gpu_mem_mib=46068,
                instance_type="g6e.12xlarge",
                zone=az,
                region=region,
                cpu=48,
                mem_ki=394672328,
                kubelet="v1.32.9-eks-113cf36",
                runtime="containerd://1.7.27",
                kernel="6.1.153-175.280.amzn2023.x86_64",
                os_image="Amazon Linux 2023.9.20251014",
                extra_labels={
                    "eks.amazonaws.com/nodegroup": "edge-assist-l40s",
                    "eks.amazonaws.com/capacityType": "ON_DEMAND",
                    "eks.amazonaws.com/nodegroup-image": "ami-0b7e3c9a51f2d6e48",
                    "k8s.io/cloud-provider-aws": "9f3c2b7d1e4a6f08c5d2e1b3a7f9c6d4",
                },
                provider_id=f"aws:///{az}/i-0{hexid(rng, 16)}",
                driver_major="570",
            )
        )
    for k, (name, ip) in enumerate(ocr_nodes.items()):
        n = gpu_node(
            rng,
            name,
            as_of=as_of,
            created=utc("2026-09-14T07:40:00Z") + timedelta(days=9 * k),
            ready_since=utc("2026-10-28T02:10:37Z"),
            ip=ip,
            pod_cidr=None,
            product="NVIDIA A10G",
            gpu_count=1,
            gpu_mem_mib=23028,
            instance_type="g5.2xlarge",
            zone="ca-central-1d",
            region=region,
            cpu=8,
            mem_ki=32329216,
            kubelet="v1.32.9-eks-113cf36",
            runtime="containerd://1.7.27",
            kernel="6.1.153-175.280.amzn2023.x86_64",
            os_image="Amazon Linux 2023.9.20251014",
            extra_labels={
                "eks.amazonaws.com/nodegroup": "doc-ocr-g5",
                "eks.amazonaws.com/capacityType": "SPOT",
            },
            provider_id=f"aws:///ca-central-1d/i-0{hexid(rng, 16)}",
            taints=[
                {
                    "key": "node.kubernetes.io/unreachable",
                    "effect": "NoSchedule",
                    "timeAdded": iso(dead_since + timedelta(seconds=41)),
                },
                {
                    "key": "node.kubernetes.io/unreachable",
                    "effect": "NoExecute",
                    "timeAdded": iso(dead_since + timedelta(seconds=46)),
                },
            ]
            if name == dead
            else None,
        )
        if name == dead:
            n["status"]["conditions"] = node_conditions(
                dead_since - timedelta(seconds=40),
                dead_since + timedelta(seconds=40),
                ready=False,
                MemoryPressure=("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."),
                DiskPressure=("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."),
                PIDPressure=("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."),
            )
        node_objs.append(n)
    for name, ip in sys_nodes.items():
        node_objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "uid": uid(rng),
                    "creationTimestamp": "2026-10-02T13:11:09Z",
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "kubernetes.io/os": "linux",
                        "kubernetes.io/arch": "amd64",
                        "eks.amazonaws.com/nodegroup": "system-m7i",
                        "node.kubernetes.io/instance-type": "m7i.2xlarge",
                        "topology.kubernetes.io/region": region,
                        "topology.kubernetes.io/zone": az,
                    },
                },
                "spec": {"providerID": f"aws:///{az}/i-0{hexid(rng, 16)}"},
                "status": {
                    "addresses": [
                        {"type": "InternalIP", "address": ip},
                        {"type": "Hostname", "address": name},
                    ],
                    "capacity": {"cpu": "8", "memory": "32329216Ki", "pods": "58"},
                    "allocatable": {"cpu": "7910m", "memory": "31312384Ki", "pods": "58"},
                    "conditions": node_conditions(as_of, utc("2026-10-02T13:12:00Z")),
                    "nodeInfo": {
                        "architecture": "amd64",
                        "operatingSystem": "linux",
                        "kernelVersion": "6.1.153-175.280.amzn2023.x86_64",
                        "osImage": "Amazon Linux 2023.9.20251014",
                        "kubeletVersion": "v1.32.9-eks-113cf36",
                        "kubeProxyVersion": "v1.32.9-eks-113cf36",
                        "containerRuntimeVersion": "containerd://1.7.27",
                        "machineID": hexid(rng, 32),
                        "systemUUID": "ec2" + hexid(rng, 5) + "-" + uid(rng)[9:],
                        "bootID": uid(rng),
                    },
                },
            }
        )

    # ---------------------------------------------------------------- the TGI deployment and its HPA
    labels = {"app.kubernetes.io/name": "tgi", "app.kubernetes.io/instance": dep}
    args = [
        "--model-id",
        "/data/models/Llama-3.1-8B-Instruct",
        "--served-model-name",
        "llama-3.1-8b-instruct",
        "--max-concurrent-requests",
        "96",
        "--max-input-tokens",
        "6144",
        "--max-total-tokens",
        "8192",
        "--max-batch-prefill-tokens",
        "8192",
        "--json-output",
        "--port",
        "8080",
    ]
    tmpl = {
        "metadata": {
            "labels": {"app.kubernetes.io/component": "inference"},
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "8080"},
        },
        "spec": {
            "containers": [
                {
                    "name": "tgi",
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "args": args,
                    "env": [{"name": "HF_HUB_OFFLINE", "value": "1"}, {"name": "PORT", "value": "8080"}],
                    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1", "memory": "48Gi"},
                        "requests": {"nvidia.com/gpu": "1", "cpu": "6", "memory": "32Gi"},
                    },
                    "readinessProbe": kube.probe_http("/health", "http", period=5, failure=3),
                    "startupProbe": kube.probe_http("/health", "http", period=10, failure=60),
                    "volumeMounts": [
                        {"name": "models", "mountPath": "/data/models", "readOnly": True},
                        {"name": "shm", "mountPath": "/dev/shm"},
                    ],
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            "volumes": [
                {"name": "models", "hostPath": {"path": "/opt/dlami/nvme/models", "type": "Directory"}},
                {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "4Gi"}},
            ],
            "nodeSelector": {"eks.amazonaws.com/nodegroup": "edge-assist-l40s"},
            "tolerations": kube.DEFAULT_TOLERATIONS,
            "serviceAccountName": "tgi",
            "terminationGracePeriodSeconds": 60,
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
        },
    }
    w = kube.Workload(
        name=dep,
        namespace=ns,
        labels=labels,
        replicas=6,
        created=utc("2026-08-11T09:30:00Z"),
        uid=uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        extra_labels={
            "app.kubernetes.io/managed-by": "Helm",
            "helm.sh/chart": "tgi-1.6.0",
            "app.kubernetes.io/part-of": "edge-assist",
        },
        annotations={"meta.helm.sh/release-name": "edge-llm", "meta.helm.sh/release-namespace": ns},
    )
    old = kube.Revision(
        11,
        kube.rs_hash(rng),
        utc("2026-10-06T08:14:00Z"),
        json.loads(json.dumps(tmpl).replace("3.3.4", "3.3.2")),
        uid=uid(rng),
    )
    cur = kube.Revision(
        12,
        kube.rs_hash(rng),
        utc("2026-10-21T09:02:41Z"),
        tmpl,
        uid=uid(rng),
        replicas=6,
        ready=6,
        available=6,
        change_cause="helm upgrade edge-llm: tgi 3.3.4",
    )
    w.revisions = [old, cur]
    scale5, scale6 = t("13:03:12"), t("13:05:14")
    pods = []
    node_list = list(gpu_nodes)
    for k in range(6):
        created = (
            utc("2026-11-03T06:12:40Z") + timedelta(seconds=31 * k)
            if k < 4
            else (scale5 if k == 4 else scale6) + timedelta(seconds=1)
        )
        ready_at = (
            created + timedelta(minutes=2, seconds=rng.randint(28, 44))
            if k >= 4
            else created + timedelta(minutes=2, seconds=35)
        )
        pods.append(
            {
                "name": kube.pod_name(rng, w, cur),
                "uid": uid(rng),
                "node": node_list[k % 3],
                "ip": f"10.52.{33 + k % 3}.{[140, 61, 203, 17, 88, 119][k]}",
                "gpu": k // 3,
                "created": created,
                "ready_at": ready_at,
            }
        )
    hpa_name = dep

    # ---------------------------------------------------------------- traffic
    surge0, surge1 = t("13:02:00"), t("13:12:30")
    cap = 283.0  # completions/min per replica at 96 in flight
    arr, ready_n, served, shed = [], [], [], []
    per_pod: list[dict[str, list[float]]] = [
        {k: [0.0] * N for k in ("ok", "shed", "inflight", "queue", "batch", "dur")} for _ in pods
    ]
    for i in range(N):
        ts = c.at(i)
        a = (880 + 1010 * ramp(c, i, surge0, surge1) + 2.1 * max(0, i - 40)) * rng.uniform(0.97, 1.03)
        live = [k for k, p in enumerate(pods) if p["ready_at"] <= ts - timedelta(seconds=30) or (k < 4)]
        share = {k: rng.uniform(0.96, 1.04) for k in live}
        tot = sum(share.values())
        ok_i = shed_i = 0.0
        for k in live:
            ak = a * share[k] / tot
            dur = 14.8 + 5.6 * min(1.0, ak / cap)  # seconds per request as the batch fills
            lim = cap * rng.uniform(0.985, 1.01)
            okk = min(ak, lim)
            sh = max(0.0, ak - lim * 0.985) if ak > lim * 0.95 else 0.0
            okk = ak - sh
            inflight = min(96.0, okk * dur / 60)
            per_pod[k]["ok"][i] = okk
            per_pod[k]["shed"][i] = sh
            per_pod[k]["inflight"][i] = inflight
            per_pod[k]["batch"][i] = min(64.0, inflight)
            per_pod[k]["queue"][i] = max(0.0, inflight - 64.0) + (
                rng.choice([0, 0, 1, 2]) if inflight < 60 else 0
            )
            per_pod[k]["dur"][i] = dur
            ok_i += okk
            shed_i += sh
        arr.append(a)
        ready_n.append(len(live))
        served.append(ok_i)
        shed.append(shed_i)

    om = OM(c)

    # ---------------------------------------------------------------- TGI router metrics (metrics-rs: counters without _total)
    for k, p in enumerate(pods):
        lab = {
            "container": "tgi",
            "endpoint": "http",
            "instance": f"{p['ip']}:8080",
            "job": dep,
            "namespace": ns,
            "pod": p["name"],
            "service": dep,
        }
        pres = [c.at(i) >= p["ready_at"] - timedelta(seconds=40) for i in range(N)]
        base = [2_480_113, 2_466_902, 2_471_540, 2_459_771, 0, 0][k]
        ok = [round(per_pod[k]["ok"][i]) for i in range(N)]
        sh = [round(per_pod[k]["shed"][i]) for i in range(N)]
        om.counter(
            "tgi_request_count",
            "",
            lab,
            [ok[i] + sh[i] for i in range(N)],
            initial=base + 41 if base else 0,
            present=pres,
            suffix_total=False,
        )
        om.counter("tgi_request_success", "", lab, ok, initial=base, present=pres, suffix_total=False)
        om.counter(
            "tgi_request_failure",
            "",
            {**lab, "err": "overloaded"},
            sh,
            initial=0,
            present=pres,
            suffix_total=False,
        )
        om.counter(
            "tgi_request_failure",
            "",
            {**lab, "err": "validation"},
            [1 if rng.random() < 0.06 else 0 for _ in range(N)],
            initial=41 if base else 0,
            present=pres,
            suffix_total=False,
        )

        def g(vals, pres=pres):
            return [v if pres[i] else None for i, v in enumerate(vals)]

        om.gauge("tgi_queue_size", "", lab, g([round(v) for v in per_pod[k]["queue"]]), digits=4)
        om.gauge("tgi_batch_current_size", "", lab, g([round(v) for v in per_pod[k]["batch"]]), digits=4)
        om.gauge(
            "tgi_batch_current_max_tokens",
            "",
            lab,
            g([round(v * 1710 * rng.uniform(0.95, 1.05)) for v in per_pod[k]["batch"]]),
            digits=8,
        )
        p["ok"], p["shed"] = ok, sh

    # ---------------------------------------------------------------- DCGM (12 L40S; 4 free)
    pci = ["00000000:9E:00.0", "00000000:A0:00.0", "00000000:A2:00.0", "00000000:A4:00.0"]
    exp_ip = {n: f"10.52.{33 + k}.{[9, 12, 7][k]}" for k, n in enumerate(gpu_nodes)}
    others = {
        (node_list[0], 2): ("tei-bge-m3-5d7b9c6f84-8kqwz", "tei"),
        (node_list[2], 2): ("tei-reranker-7b8c5d9f6d-v2m4t", "tei"),
    }
    gpus: list[ex.Gpu] = []
    for n_ in node_list:
        for gi in range(4):
            owner_pod = next((p for p in pods if p["node"] == n_ and p["gpu"] == gi), None)
            other = others.get((n_, gi))
            g = ex.Gpu(
                node=n_,
                index=gi,
                uuid=f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                pci=pci[gi],
                model="NVIDIA L40S",
                memory_mib=46068,
                pod=owner_pod["name"] if owner_pod else (other[0] if other else None),
                namespace=ns if (owner_pod or other) else None,
                container="tgi" if owner_pod else (other[1] if other else None),
            )
            for i in range(N):
                if owner_pod is not None:
                    k = pods.index(owner_pod)
                    if c.at(i) < owner_pod["created"] + timedelta(seconds=20):
                        u, fb, pw = 0, 0, rng.uniform(31, 36)
                    elif c.at(i) < owner_pod["ready_at"]:
                        u, fb, pw = (
                            rng.uniform(0, 12),
                            41_800 * min(1.0, (c.at(i) - owner_pod["created"]).total_seconds() / 120),
                            rng.uniform(90, 140),
                        )
                    else:
                        fill = per_pod[k]["batch"][i] / 64
                        u = min(99.0, 58 + 38 * fill + rng.uniform(-2.5, 2.5))
                        fb, pw = 42_130 + rng.randint(-30, 30), 150 + 190 * fill + rng.uniform(-10, 10)
                elif other is not None:
                    u, fb, pw = rng.uniform(22, 41), 9_870 + rng.randint(-40, 40), rng.uniform(120, 160)
                else:
                    u, fb, pw = 0, 0, rng.uniform(30, 35)
                g.util.append(round(u))
                g.fb_used.append(round(fb))
                g.power.append(round(pw, 2))
            gpus.append(g)
    for g in gpus:
        lab = ex.dcgm_labels(g, driver, exp_ip[g.node])
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, g.util, digits=4)
    for g in gpus:
        lab = ex.dcgm_labels(g, driver, exp_ip[g.node])
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, g.fb_used, digits=8)

    # ---------------------------------------------------------------- ingress-nginx (ServiceMonitor without honorLabels)
    nlab = {
        "canary": "",
        "container": "controller",
        "controller_class": "k8s.io/ingress-nginx",
        "controller_namespace": ctl_ns,
        "controller_pod": ctl_pod,
        "endpoint": "metrics",
        "exported_namespace": ns,
        "host": host,
        "ingress": ingress,
        "instance": f"{ctl_ip}:10254",
        "job": "ingress-nginx-controller-metrics",
        "method": "POST",
        "namespace": ctl_ns,
        "path": "/v1",
        "pod": ctl_pod,
        "service": "ingress-nginx-controller-metrics",
        "exported_service": dep,
    }
    c200 = [round(served[i]) for i in range(N)]
    c429 = [round(shed[i]) for i in range(N)]
    c499 = [round(served[i] * 0.0021 * rng.uniform(0.5, 1.5) + (shed[i] * 0.01)) for i in range(N)]
    for status, inc, init in (
        ("200", c200, 9_731_404),
        ("429", c429, 1_877),
        ("499", c499, 20_114),
        ("400", [1 if rng.random() < 0.07 else 0 for _ in range(N)], 388),
    ):
        om.counter(
            "nginx_ingress_controller_requests",
            "The total number of client requests",
            {**nlab, "status": status},
            inc,
            initial=init,
            suffix_total=False,
        )
    wlab = {
        **nlab,
        "exported_service": "edge-assist-web",
        "ingress": "edge-assist-web",
        "host": "assist.edge.example.net",
        "method": "GET",
        "path": "/",
    }
    for status, base_ in (("200", 410), ("304", 95)):
        om.counter(
            "nginx_ingress_controller_requests",
            "The total number of client requests",
            {**wlab, "status": status},
            [round(base_ * (1 + 0.6 * ramp(c, i, surge0, surge1)) * rng.uniform(0.9, 1.1)) for i in range(N)],
            initial=base_ * 20_000,
            suffix_total=False,
        )

    # ---------------------------------------------------------------- kube-state-metrics
    def ksm(extra: dict[str, str]) -> dict[str, str]:
        return {"job": "kube-state-metrics", **extra}

    hl = ksm({"namespace": ns, "horizontalpodautoscaler": hpa_name})
    hpa_cur = [4 if c.at(i) < scale5 else (5 if c.at(i) < scale6 else 6) for i in range(N)]
    queue_avg = []
    for i in range(N):
        live = [k for k in range(6) if c.at(i) >= pods[k]["ready_at"] - timedelta(seconds=40)]
        queue_avg.append(sum(per_pod[k]["queue"][i] for k in live) / max(1, len(live)))
    hpa_des = [
        min(6, max(3, -(-round(hpa_cur[i] * queue_avg[i] * 1000) // 8000)))
        if queue_avg[i] > 8 * 1.1
        else hpa_cur[i]
        for i in range(N)
    ]
    om.gauge(
        "kube_horizontalpodautoscaler_spec_min_replicas",
        "Lower limit for the number of pods that can be set by the autoscaler, default 1.",
        hl,
        [3] * N,
        digits=2,
    )
    om.gauge(
        "kube_horizontalpodautoscaler_spec_max_replicas",
        "Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.",
        hl,
        [6] * N,
        digits=2,
    )
    om.gauge(
        "kube_horizontalpodautoscaler_status_current_replicas",
        "Current number of replicas of pods managed by this autoscaler.",
        hl,
        hpa_cur,
        digits=2,
    )
    om.gauge(
        "kube_horizontalpodautoscaler_status_desired_replicas",
        "Desired number of replicas of pods managed by this autoscaler.",
        hl,
        hpa_des,
        digits=2,
    )
    om.gauge(
        "kube_horizontalpodautoscaler_spec_target_metric",
        "The metric specifications used by this autoscaler when calculating the desired replica count.",
        {**hl, "metric_name": "tgi_queue_size", "metric_target_type": "average"},
        [8] * N,
        digits=2,
    )
    limited = [1 if (hpa_cur[i] == 6 and queue_avg[i] > 8.8) else 0 for i in range(N)]
    for st, vals in (("true", limited), ("false", [1 - v for v in limited])):
        om.gauge(
            "kube_horizontalpodautoscaler_status_condition",
            "The condition of this autoscaler.",
            {**hl, "condition": "ScalingLimited", "status": st},
            vals,
            digits=2,
        )
    for k, p in enumerate(pods):
        pres = [c.at(i) >= p["created"] for i in range(N)]
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ksm({"namespace": ns, "pod": p["name"], "uid": p["uid"], "condition": "true"}),
            [(1 if c.at(i) >= p["ready_at"] else 0) if pres[i] else None for i in range(N)],
            digits=2,
        )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ksm({"namespace": ns, "pod": p["name"], "uid": p["uid"], "container": "tgi"}),
            [0] * N,
            present=pres,
        )
        del k
    for d_name, vals in ((dep, hpa_cur), ("otel-gateway", [2] * N), ("tei-bge-m3", [1] * N)):
        dl = ksm({"namespace": ns, "deployment": d_name})
        om.gauge(
            "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dl, vals, digits=2
        )
        av = [
            vals[i]
            - (
                1
                if d_name == dep and any(pods[k]["created"] <= c.at(i) < pods[k]["ready_at"] for k in (4, 5))
                else 0
            )
            for i in range(N)
        ]
        om.gauge(
            "kube_deployment_status_replicas_available",
            "The number of available replicas per deployment.",
            dl,
            av,
            digits=2,
        )
    rollout = t("12:52:06")
    om.gauge(
        "kube_deployment_metadata_generation",
        "Sequence number representing a specific generation of the desired state.",
        ksm({"namespace": ns, "deployment": "otel-gateway"}),
        [7 if c.at(i) < rollout else 8 for i in range(N)],
        digits=3,
    )
    om.gauge(
        "kube_deployment_metadata_generation",
        "Sequence number representing a specific generation of the desired state.",
        ksm({"namespace": ns, "deployment": dep}),
        [13 if c.at(i) < scale5 else (14 if c.at(i) < scale6 else 15) for i in range(N)],
        digits=3,
    )
    kb_pod, kb_uid = "kb-sync-29364120-5wq8d", uid(rng)
    om.gauge(
        "kube_pod_container_status_waiting_reason",
        "Describes the reason the container is currently in waiting state.",
        ksm(
            {
                "namespace": ns,
                "pod": kb_pod,
                "uid": kb_uid,
                "container": "kb-sync",
                "reason": "CrashLoopBackOff",
            }
        ),
        [1 if i % 6 != 3 else 0 for i in range(N)],
        digits=2,
    )
    om.counter(
        "kube_pod_container_status_restarts",
        "The number of container restarts per container.",
        ksm({"namespace": ns, "pod": kb_pod, "uid": kb_uid, "container": "kb-sync"}),
        [1 if i % 6 == 3 else 0 for i in range(N)],
        initial=611,
    )
    for name in [*gpu_nodes, *ocr_nodes, *sys_nodes]:
        is_dead = name == dead
        for st in ("true", "false", "unknown"):
            vals = [
                (
                    1
                    if (
                        st == "unknown"
                        if (is_dead and c.at(i) >= dead_since + timedelta(seconds=40))
                        else st == "true"
                    )
                    else 0
                )
                for i in range(N)
            ]
            om.gauge(
                "kube_node_status_condition",
                "The condition of a cluster node.",
                ksm({"node": name, "condition": "Ready", "status": st}),
                vals,
                digits=2,
            )

    # ---------------------------------------------------------------- logs (Fluent Bit, ECS-mapped)
    logs = ShipperLogs("fluent-bit", "4.0.7", cluster_name)

    def tgi_json(
        ts: datetime, level: str, message: str, target: str, file_: str, line: int, spans: list[Obj], **fields
    ) -> str:
        d: Obj = {
            "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z",
            "level": level,
            "message": message,
            **fields,
            "target": target,
            "filename": file_,
            "line_number": line,
        }
        if spans:
            d["span"] = spans[-1]
            d["spans"] = spans
        return json.dumps(d, separators=(",", ":"))

    def tl(p: dict, ts: datetime, msg: str, level: str = "info", **kw) -> None:
        logs.pod(
            ts,
            msg,
            ns=ns,
            pod=p["name"],
            pod_uid=p["uid"],
            node=p["node"],
            container="tgi",
            image=image,
            service=dep,
            level=level,
            stream="stdout",
            **kw,
        )

    ua_mobile = [
        "assist-android/5.1.0 okhttp/4.12.0",
        "assist-ios/5.1.0 CFNetwork/3826.500.131 Darwin/24.5.0",
    ]
    ua_web = ["edge-assist-web/2026.10.28 (node-fetch/3.3.2)"]
    clients = ["10.52.12.9", "10.52.13.44", "10.52.12.201"]

    def nginx_line(ts: datetime, p: dict, status: int, up_status: int, rt: float, size: int, ua: str) -> str:
        return (
            f'{rng.choice(clients)} - - [{ts.strftime("%d/%b/%Y:%H:%M:%S")} +0000] "POST /v1/chat/completions HTTP/1.1" {status} {size} "-" "{ua}" '
            f"{rng.randint(1400, 9800)} {rt:.3f} [{ns}-{dep}-80] [] {p['ip']}:8080 {size} {rt:.3f} {up_status} {hexid(rng, 32)}"
        )

    for i in range(1, N):
        m0 = c.at(i - 1)
        live = [p for p in pods if p["ready_at"] <= m0]
        for k, p in enumerate(pods):
            if p not in live:
                continue
            if i % 2 == k % 2 and p["ok"][i]:
                ts = within(rng, m0)
                d = per_pod[k]["dur"][i] * rng.uniform(0.6, 1.4)
                q = max(0.0, per_pod[k]["queue"][i] / 60 * d * 0.1) + rng.uniform(0.02, 0.09)
                tl(
                    p,
                    ts,
                    tgi_json(
                        ts,
                        "INFO",
                        "Success",
                        "text_generation_router::server",
                        "router/src/server.rs",
                        631,
                        [
                            {
                                "total_time": f"{d:.6f}s",
                                "validation_time": f"{rng.uniform(0.8, 2.9):.6f}ms",
                                "queue_time": f"{q:.6f}s",
                                "inference_time": f"{d - q:.6f}s",
                                "time_per_token": f"{d * 1000 / rng.randint(180, 520):.6f}ms",
                                "seed": "None",
                                "name": "chat_completions",
                            }
                        ],
                    ),
                )
            n_err = min(1, p["shed"][i]) if i % 2 == k % 2 else 0
            for _ in range(n_err):
                ts = within(rng, m0)
                tl(
                    p,
                    ts,
                    tgi_json(
                        ts,
                        "ERROR",
                        "no permits available",
                        "text_generation_router::infer",
                        "router/src/infer/mod.rs",
                        114,
                        [{"name": "chat_completions"}, {"name": "generate_stream"}],
                    ),
                    "error",
                    error_message="no permits available",
                )
        # ingress-nginx access log (default log-format-upstream), sampled
        for _ in range(1):
            if not live:
                break
            p = rng.choice(live)
            k = pods.index(p)
            ts = within(rng, m0)
            rt = per_pod[k]["dur"][i] * rng.uniform(0.6, 1.4)
            logs.pod(
                ts,
                nginx_line(ts, p, 200, 200, rt, rng.randint(900, 4200), rng.choice(ua_mobile + ua_web)),
                ns=ctl_ns,
                pod=ctl_pod,
                pod_uid="6a2f1c9e-71b4-4d0a-8b35-2e9d7c4f1a58",
                node=ctl_node,
                container="controller",
                image="registry.k8s.io/ingress-nginx/controller:v1.13.3",
                service="ingress-nginx",
                stream="stdout",
                status=200,
            )
        for _ in range(min(2, round(shed[i] / 40))):
            p = rng.choice(live)
            ts = within(rng, m0)
            rt = rng.uniform(0.002, 0.006)
            logs.pod(
                ts,
                nginx_line(ts, p, 429, 429, rt, 61, rng.choice(ua_mobile)),
                ns=ctl_ns,
                pod=ctl_pod,
                pod_uid="6a2f1c9e-71b4-4d0a-8b35-2e9d7c4f1a58",
                node=ctl_node,
                container="controller",
                image="registry.k8s.io/ingress-nginx/controller:v1.13.3",
                service="ingress-nginx",
                level="warn",
                stream="stdout",
                status=429,
            )
        # the web BFF (one of the callers) sees the 429 body
        if shed[i] > 30 and i % 2 == 0:
            ts = within(rng, m0)
            logs.pod(
                ts,
                f'{iso(ts, ms=True)} WARN [summarize] POST https://{host}/v1/chat/completions -> 429 Too Many Requests: {{"error":"Model is overloaded","error_type":"overloaded"}} (attempt {rng.choice([1, 2])}/2)',
                ns=ns,
                pod="edge-assist-web-84d6f9c7b-2hxpl",
                pod_uid="9d3e5a71-0c2b-4f86-a1d7-6b4c8e2f0a19",
                node="ip-10-52-13-9.ca-central-1.compute.internal",
                container="web",
                image="123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/assist-web:2026.10.28",
                service="edge-assist-web",
                level="warn",
                stream="stdout",
            )
        # the crash-looping CronJob pod (a stale problem of its own)
        if i % 6 == 3:
            ts = within(rng, m0, 0, 20)
            for off, line in (
                (
                    0.0,
                    '{"level":"info","ts":"%s","msg":"starting knowledge-base sync","source":"confluence","batch":500}',
                ),
                (
                    1.3,
                    '{"level":"error","ts":"%s","msg":"sync failed","error":"pq: password authentication failed for user \\"kb_sync\\"","host":"kb-pg.edge-assist.svc:5432"}',
                ),
            ):
                tts = ts + timedelta(seconds=off)
                logs.pod(
                    tts,
                    line % iso(tts, ms=True),
                    ns=ns,
                    pod=kb_pod,
                    pod_uid=kb_uid,
                    node="ip-10-52-13-9.ca-central-1.compute.internal",
                    container="kb-sync",
                    image="123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/kb-sync:0.9.4",
                    service="kb-sync",
                    level="error" if off else "info",
                    stream="stderr",
                )
        # the OpenTelemetry gateway (rolled out at 12:52)
        if i % 5 == 0:
            ts = within(rng, m0)
            logs.pod(
                ts,
                f'{iso(ts, ms=True)}\tinfo\tbatchprocessor@v0.136.0/batch_processor.go:231\tSending batch\t{{"resource": {{"service.instance.id": "{uid(random.Random(7))}", "service.name": "otelcol-contrib", "service.version": "0.136.0"}}, "otelcol.component.id": "batch", "otelcol.component.kind": "processor", "otelcol.pipeline.id": "traces", "otelcol.signal": "traces", "batch_size": {rng.randint(1800, 8192)}}}',
                ns=ns,
                pod="otel-gateway-7b9f6c5d48-lk2vn",
                pod_uid="1c0e8d3a-4b7f-4e21-9d6a-5f2b8c7e1a90",
                node="ip-10-52-13-9.ca-central-1.compute.internal",
                container="otelcol",
                image="otel/opentelemetry-collector-contrib:0.136.0",
                service="otel-gateway",
                stream="stderr",
            )
    # rollout of the otel gateway (decoy)
    for off, msg in (
        (9.2, 'Starting otelcol-contrib...\t{"Version": "0.136.0", "NumCPU": 8}'),
        (9.4, "Starting extensions..."),
        (9.9, "Everything is ready. Begin running and processing data."),
    ):
        ts = rollout + timedelta(seconds=off)
        logs.pod(
            ts,
            f"{iso(ts, ms=True)}\tinfo\tservice@v0.136.0/service.go:{[187, 210, 262][[9.2, 9.4, 9.9].index(off)]}\t{msg}",
            ns=ns,
            pod="otel-gateway-7b9f6c5d48-lk2vn",
            pod_uid="1c0e8d3a-4b7f-4e21-9d6a-5f2b8c7e1a90",
            node="ip-10-52-13-9.ca-central-1.compute.internal",
            container="otelcol",
            image="otel/opentelemetry-collector-contrib:0.136.0",
            service="otel-gateway",
            stream="stderr",
        )
    # the new TGI pods start
    for p in pods[4:]:
        b = p["created"] + timedelta(seconds=14)
        tl(
            p,
            b,
            tgi_json(
                b,
                "INFO",
                'Args {\n    model_id: "/data/models/Llama-3.1-8B-Instruct",\n    max_concurrent_requests: 96,\n    max_input_tokens: Some(\n        6144,\n    ),\n    max_total_tokens: Some(\n        8192,\n    ),\n    json_output: true,\n    ...\n}',
                "text_generation_launcher",
                "launcher/src/main.rs",
                1913,
                [],
            ),
        )
        tl(
            p,
            b + timedelta(seconds=2),
            tgi_json(
                b + timedelta(seconds=2),
                "INFO",
                "Starting check and download process for /data/models/Llama-3.1-8B-Instruct",
                "text_generation_launcher",
                "launcher/src/main.rs",
                1094,
                [{"name": "download"}],
            ),
        )
        tl(
            p,
            b + timedelta(seconds=9),
            tgi_json(
                b + timedelta(seconds=9),
                "INFO",
                "Starting shard",
                "text_generation_launcher",
                "launcher/src/main.rs",
                746,
                [{"rank": 0, "name": "shard-manager"}],
            ),
        )
        tl(
            p,
            p["ready_at"] - timedelta(seconds=21),
            tgi_json(
                p["ready_at"] - timedelta(seconds=21),
                "INFO",
                "Shard ready in 71.338492144s",
                "text_generation_launcher",
                "launcher/src/main.rs",
                1003,
                [{"rank": 0, "name": "shard-manager"}],
            ),
        )
        tl(
            p,
            p["ready_at"] - timedelta(seconds=9),
            tgi_json(
                p["ready_at"] - timedelta(seconds=9),
                "INFO",
                "Setting max batch total tokens to 109472",
                "text_generation_router_v3",
                "backends/v3/src/lib.rs",
                137,
                [],
            ),
        )
        tl(
            p,
            p["ready_at"] - timedelta(seconds=3),
            tgi_json(
                p["ready_at"] - timedelta(seconds=3),
                "INFO",
                "Connected",
                "text_generation_router::server",
                "router/src/server.rs",
                2433,
                [],
            ),
        )
    # kubelet on the NotReady node stops: the last journald lines it shipped
    logs.node(
        dead_since - timedelta(seconds=63),
        "containerd: failed to reserve sandbox name: sandbox name already reserved",
        node=dead,
        ident="containerd",
        level="error",
    )
    logs.node(
        dead_since - timedelta(seconds=22),
        f'{dead_since.strftime("E%m%d %H:%M:%S")}.112874    2961 kubelet.go:2412] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m5.215476s ago; threshold is 3m0s"',
        node=dead,
        ident="kubelet",
        level="error",
    )

    # ---------------------------------------------------------------- objects
    objs: list[Obj] = []
    dobj = w.deployment()
    dobj["status"].update({"replicas": 6, "updatedReplicas": 6, "readyReplicas": 6, "availableReplicas": 6})
    dobj["metadata"]["generation"] = 15
    dobj["status"]["observedGeneration"] = 15
    dobj["status"]["conditions"] = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-10-21T09:11:02Z"),
            utc("2026-10-21T09:11:02Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            f'ReplicaSet "{dep}-{cur.hash}" has successfully progressed.',
            pods[5]["ready_at"],
            utc("2026-08-11T09:30:00Z"),
        ),
    )
    objs.append(dobj)
    objs.append(w.replicaset(cur))
    objs.append(w.replicaset(old))
    for p in pods:
        st = kube.cstatus(
            rng, name="tgi", image=image, ready=True, running_since=p["created"] + timedelta(seconds=6)
        )
        objs.append(
            kube.pod_obj(
                w,
                cur,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=gpu_nodes[p["node"]],
                phase="Running",
                ready=True,
                container_statuses=[st],
                ready_since=p["ready_at"],
            )
        )
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {
            "name": hpa_name,
            "namespace": ns,
            "uid": uid(rng),
            "creationTimestamp": "2026-08-11T09:30:01Z",
            "labels": {**labels, "app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"meta.helm.sh/release-name": "edge-llm", "meta.helm.sh/release-namespace": ns},
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": dep},
            "minReplicas": 3,
            "maxReplicas": 6,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "tgi_queue_size"},
                        "target": {"type": "AverageValue", "averageValue": "8"},
                    },
                }
            ],
            "behavior": {
                "scaleUp": {
                    "stabilizationWindowSeconds": 0,
                    "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 120}],
                },
                "scaleDown": {
                    "stabilizationWindowSeconds": 900,
                    "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 1, "periodSeconds": 300}],
                },
            },
        },
        "status": {
            "observedGeneration": 3,
            "lastScaleTime": iso(scale6),
            "currentReplicas": 6,
            "desiredReplicas": 6,
            "currentMetrics": [
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "tgi_queue_size"},
                        "current": {"averageValue": f"{round(queue_avg[-1] * 1000)}m"},
                    },
                }
            ],
            "conditions": [
                {
                    "type": "AbleToScale",
                    "status": "True",
                    "lastTransitionTime": iso(scale6 + timedelta(seconds=2)),
                    "reason": "ReadyForNewScale",
                    "message": "recommended size matches current size",
                },
                {
                    "type": "ScalingActive",
                    "status": "True",
                    "lastTransitionTime": "2026-08-11T09:31:16Z",
                    "reason": "ValidMetricFound",
                    "message": "the HPA was able to successfully calculate a replica count from pods metric tgi_queue_size",
                },
                {
                    "type": "ScalingLimited",
                    "status": "True",
                    "lastTransitionTime": iso(t("13:07:16")),
                    "reason": "TooManyReplicas",
                    "message": "the desired replica count is more than the maximum replica count",
                },
            ],
        },
    }
    objs.append(hpa)
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": "http"}],
            "172.20.41.117",
            labels={**labels, "app.kubernetes.io/managed-by": "Helm"},
            created=w.created,
            uid_=uid(rng),
        )
    )
    objs.append(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {
                "name": ingress,
                "namespace": ns,
                "uid": uid(rng),
                "generation": 3,
                "creationTimestamp": "2026-08-11T09:30:02Z",
                "annotations": {
                    "nginx.ingress.kubernetes.io/proxy-read-timeout": "120",
                    "nginx.ingress.kubernetes.io/proxy-send-timeout": "120",
                    "nginx.ingress.kubernetes.io/proxy-body-size": "2m",
                    "nginx.ingress.kubernetes.io/proxy-buffering": "off",
                },
            },
            "spec": {
                "ingressClassName": "nginx",
                "tls": [{"hosts": [host], "secretName": "assist-api-tls"}],
                "rules": [
                    {
                        "host": host,
                        "http": {
                            "paths": [
                                {
                                    "path": "/v1",
                                    "pathType": "Prefix",
                                    "backend": {"service": {"name": dep, "port": {"number": 80}}},
                                }
                            ]
                        },
                    }
                ],
            },
            "status": {
                "loadBalancer": {
                    "ingress": [
                        {
                            "hostname": "k8s-ingressn-ingressn-5c7e1f2a9b-0d3b6e8f41a7c295.elb.ca-central-1.amazonaws.com"
                        }
                    ]
                }
            },
        }
    )

    # the otel gateway: new revision at 12:52 (decoy)
    ow = kube.Workload(
        name="otel-gateway",
        namespace=ns,
        labels={"app.kubernetes.io/name": "otel-gateway"},
        replicas=2,
        created=utc("2026-08-11T09:12:00Z"),
        uid=uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
        extra_labels={
            "app.kubernetes.io/managed-by": "Helm",
            "helm.sh/chart": "opentelemetry-collector-0.129.0",
        },
    )

    def otmpl(img: str, cfg_hash: str) -> Obj:
        return {
            "metadata": {"annotations": {"checksum/config": cfg_hash}},
            "spec": {
                "containers": [
                    {
                        "name": "otelcol",
                        "image": img,
                        "args": ["--config=/conf/relay.yaml"],
                        "ports": [
                            {"name": "otlp", "containerPort": 4317},
                            {"name": "otlp-http", "containerPort": 4318},
                        ],
                        "resources": {
                            "requests": {"cpu": "500m", "memory": "1Gi"},
                            "limits": {"memory": "2Gi"},
                        },
                    }
                ],
                "serviceAccountName": "otel-gateway",
            },
        }

    orev_old = kube.Revision(
        7,
        kube.rs_hash(rng),
        utc("2026-10-09T12:40:00Z"),
        otmpl("otel/opentelemetry-collector-contrib:0.134.1", hexid(rng, 64)),
        uid=uid(rng),
    )
    orev = kube.Revision(
        8,
        "7b9f6c5d48",
        rollout,
        otmpl("otel/opentelemetry-collector-contrib:0.136.0", hexid(rng, 64)),
        uid=uid(rng),
        replicas=2,
        ready=2,
        available=2,
    )
    ow.revisions = [orev_old, orev]
    ow.status = {"replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2}
    ow.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            utc("2026-10-09T12:41:10Z"),
            utc("2026-10-09T12:41:10Z"),
        ),
        progressing=(
            "True",
            "NewReplicaSetAvailable",
            'ReplicaSet "otel-gateway-7b9f6c5d48" has successfully progressed.',
            rollout + timedelta(seconds=38),
            utc("2026-08-11T09:12:00Z"),
        ),
    )
    objs += [ow.deployment(), ow.replicaset(orev), ow.replicaset(orev_old)]
    for k, (pn, pu) in enumerate(
        (
            ("otel-gateway-7b9f6c5d48-lk2vn", "1c0e8d3a-4b7f-4e21-9d6a-5f2b8c7e1a90"),
            ("otel-gateway-7b9f6c5d48-9xrcm", uid(rng)),
        )
    ):
        st = kube.cstatus(
            rng,
            name="otelcol",
            image="otel/opentelemetry-collector-contrib:0.136.0",
            ready=True,
            running_since=rollout + timedelta(seconds=8 + 19 * k),
        )
        objs.append(
            kube.pod_obj(
                ow,
                orev,
                name=pn,
                uid_=pu,
                node="ip-10-52-13-9.ca-central-1.compute.internal",
                created=rollout + timedelta(seconds=19 * k),
                pod_ip=f"10.52.13.{120 + k}",
                host_ip="10.52.13.9",
                phase="Running",
                ready=True,
                container_statuses=[st],
                ready_since=rollout + timedelta(seconds=11 + 19 * k),
            )
        )
    # TEI embedder / reranker: healthy neighbours on the same GPU nodes
    for name_, node_, ip_ in (
        ("tei-bge-m3-5d7b9c6f84-8kqwz", node_list[0], "10.52.33.77"),
        ("tei-reranker-7b8c5d9f6d-v2m4t", node_list[2], "10.52.35.90"),
    ):
        objs.append(
            pod_plain(
                name_,
                ns,
                uid_=uid(rng),
                labels={
                    "app.kubernetes.io/name": name_.rsplit("-", 2)[0],
                    "pod-template-hash": name_.rsplit("-", 2)[1],
                },
                owner=owner("ReplicaSet", name_.rsplit("-", 1)[0], uid(rng)),
                node=node_,
                host_ip=gpu_nodes[node_],
                pod_ip=ip_,
                created=utc("2026-10-21T09:20:11Z"),
                containers=[
                    {
                        "name": "tei",
                        "image": "ghcr.io/huggingface/text-embeddings-inference:1.8",
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "2", "memory": "8Gi"},
                        },
                    }
                ],
                statuses=[
                    kube.cstatus(
                        rng,
                        name="tei",
                        image="ghcr.io/huggingface/text-embeddings-inference:1.8",
                        ready=True,
                        running_since=utc("2026-10-21T09:20:20Z"),
                    )
                ],
                ready=True,
                ready_since=utc("2026-10-21T09:20:52Z"),
            )
        )
    objs.append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "edge-assist-web",
                "namespace": ns,
                "uid": uid(rng),
                "generation": 31,
                "creationTimestamp": "2026-08-11T09:10:00Z",
                "labels": {"app.kubernetes.io/name": "edge-assist-web"},
                "annotations": {"deployment.kubernetes.io/revision": "29"},
            },
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app.kubernetes.io/name": "edge-assist-web"}},
                "template": {
                    "metadata": {"labels": {"app.kubernetes.io/name": "edge-assist-web"}},
                    "spec": {
                        "containers": [
                            {
                                "name": "web",
                                "image": "123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/assist-web:2026.10.28",
                            }
                        ]
                    },
                },
            },
            "status": {
                "observedGeneration": 31,
                "replicas": 2,
                "updatedReplicas": 2,
                "readyReplicas": 2,
                "availableReplicas": 2,
            },
        }
    )
    # the crash-looping CronJob pod (stale, days old)
    kb_job = "kb-sync-29364120"
    objs.append(
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {
                "name": "kb-sync",
                "namespace": ns,
                "uid": uid(rng),
                "creationTimestamp": "2026-09-02T10:00:00Z",
            },
            "spec": {
                "schedule": "0 */6 * * *",
                "concurrencyPolicy": "Forbid",
                "successfulJobsHistoryLimit": 3,
                "failedJobsHistoryLimit": 1,
                "jobTemplate": {
                    "spec": {
                        "backoffLimit": 6,
                        "template": {
                            "spec": {
                                "restartPolicy": "OnFailure",
                                "containers": [
                                    {
                                        "name": "kb-sync",
                                        "image": "123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/kb-sync:0.9.4",
                                    }
                                ],
                            }
                        },
                    }
                },
            },
            "status": {
                "active": [{"apiVersion": "batch/v1", "kind": "Job", "name": kb_job, "namespace": ns}],
                "lastScheduleTime": "2026-10-31T00:00:00Z",
            },
        }
    )
    kb_st = kube.cstatus(
        rng,
        name="kb-sync",
        image="123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/kb-sync:0.9.4",
        ready=False,
        restart_count=612,
        waiting=(
            "CrashLoopBackOff",
            f"back-off 5m0s restarting failed container=kb-sync pod={kb_pod}_{ns}({kb_uid})",
        ),
        last_terminated=kube.terminated(
            rng, reason="Error", exit_code=1, started=t("13:33:02"), finished=t("13:33:04")
        ),
    )
    objs.append(
        pod_plain(
            kb_pod,
            ns,
            uid_=kb_uid,
            labels={
                "batch.kubernetes.io/job-name": kb_job,
                "job-name": kb_job,
                "batch.kubernetes.io/controller-uid": uid(rng),
            },
            owner=owner("Job", kb_job, uid(rng), "batch/v1"),
            node="ip-10-52-13-9.ca-central-1.compute.internal",
            host_ip="10.52.13.9",
            pod_ip="10.52.13.171",
            created=utc("2026-10-31T00:00:03Z"),
            containers=[
                {
                    "name": "kb-sync",
                    "image": "123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/kb-sync:0.9.4",
                    "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}},
                }
            ],
            statuses=[kb_st],
            ready=False,
            ready_since=utc("2026-10-31T00:00:09Z"),
            extra_spec={"restartPolicy": "OnFailure"},
        )
    )
    # other tenant: doc-ocr on the NotReady node
    ocr_pods = []
    for k, nd in enumerate(ocr_nodes):
        pn = f"ocr-worker-6f8d9c7b5-{['x7kzp', 'm2qvd'][k]}"
        pu = uid(rng)
        ocr_pods.append((pn, pu, nd))
        objs.append(
            pod_plain(
                pn,
                "doc-ocr",
                uid_=pu,
                labels={"app": "ocr-worker", "pod-template-hash": "6f8d9c7b5"},
                owner=owner("ReplicaSet", "ocr-worker-6f8d9c7b5", uid(rng)),
                node=nd,
                host_ip=ocr_nodes[nd],
                pod_ip=f"10.52.71.{[140, 201][k]}",
                created=utc("2026-10-28T02:14:51Z"),
                containers=[
                    {
                        "name": "ocr",
                        "image": "123456789012.dkr.ecr.ca-central-1.amazonaws.com/doc/ocr-worker:3.2.1",
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "3", "memory": "12Gi"},
                        },
                    }
                ],
                statuses=[
                    kube.cstatus(
                        rng,
                        name="ocr",
                        image="123456789012.dkr.ecr.ca-central-1.amazonaws.com/doc/ocr-worker:3.2.1",
                        ready=nd != dead,
                        running_since=utc("2026-10-28T02:15:20Z"),
                    )
                ],
                ready=nd != dead,
                ready_since=dead_since + timedelta(seconds=40) if nd == dead else utc("2026-10-28T02:15:44Z"),
            )
        )
    for o in objs:  # evicted by the taint manager; the dead kubelet never confirms the deletion
        if o["kind"] == "Pod" and o["metadata"]["name"] == ocr_pods[0][0]:
            o["metadata"]["deletionTimestamp"] = iso(dead_since + timedelta(seconds=376))
            o["metadata"]["deletionGracePeriodSeconds"] = 30
    objs.extend(node_objs)

    # events
    def ev(**kw) -> None:
        objs.append(event_obj(rng, **kw))

    hpa_uid = hpa["metadata"]["uid"]
    ev(
        ns=ns,
        kind="HorizontalPodAutoscaler",
        name=hpa_name,
        obj_uid=hpa_uid,
        reason="SuccessfulRescale",
        message="New size: 5; reason: pods metric tgi_queue_size above target",
        first=scale5,
        component="horizontal-pod-autoscaler",
        api_version="autoscaling/v2",
    )
    ev(
        ns=ns,
        kind="HorizontalPodAutoscaler",
        name=hpa_name,
        obj_uid=hpa_uid,
        reason="SuccessfulRescale",
        message="New size: 6; reason: pods metric tgi_queue_size above target",
        first=scale6,
        component="horizontal-pod-autoscaler",
        api_version="autoscaling/v2",
    )
    ev(
        ns=ns,
        kind="Deployment",
        name=dep,
        obj_uid=w.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled up replica set {dep}-{cur.hash} from 4 to 5",
        first=scale5 + timedelta(seconds=1),
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Deployment",
        name=dep,
        obj_uid=w.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled up replica set {dep}-{cur.hash} from 5 to 6",
        first=scale6 + timedelta(seconds=1),
        component="deployment-controller",
        api_version="apps/v1",
    )
    for p in pods[4:]:
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
        for reason, msg, off in (
            ("Pulled", f'Container image "{image}" already present on machine', 3),
            ("Created", "Created container: tgi", 3),
            ("Started", "Started container tgi", 4),
        ):
            ev(
                ns=ns,
                kind="Pod",
                name=p["name"],
                obj_uid=p["uid"],
                reason=reason,
                message=msg,
                first=p["created"] + timedelta(seconds=off),
                host=p["node"],
                field_path="spec.containers{tgi}",
            )
        ev(
            ns=ns,
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            reason="Unhealthy",
            message=f'Startup probe failed: Get "http://{p["ip"]}:8080/health": dial tcp {p["ip"]}:8080: connect: connection refused',
            first=p["created"] + timedelta(seconds=14),
            last=p["ready_at"] - timedelta(seconds=8),
            count=12,
            etype="Warning",
            host=p["node"],
            field_path="spec.containers{tgi}",
        )
    ev(
        ns=ns,
        kind="Deployment",
        name="otel-gateway",
        obj_uid=ow.uid,
        reason="ScalingReplicaSet",
        message="Scaled up replica set otel-gateway-7b9f6c5d48 from 0 to 1",
        first=rollout,
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Deployment",
        name="otel-gateway",
        obj_uid=ow.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled down replica set otel-gateway-{orev_old.hash} from 2 to 1",
        first=rollout + timedelta(seconds=12),
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Deployment",
        name="otel-gateway",
        obj_uid=ow.uid,
        reason="ScalingReplicaSet",
        message="Scaled up replica set otel-gateway-7b9f6c5d48 from 1 to 2",
        first=rollout + timedelta(seconds=12),
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Deployment",
        name="otel-gateway",
        obj_uid=ow.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled down replica set otel-gateway-{orev_old.hash} from 1 to 0",
        first=rollout + timedelta(seconds=31),
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=kb_pod,
        obj_uid=kb_uid,
        reason="BackOff",
        message=f"Back-off restarting failed container kb-sync in pod {kb_pod}_{ns}({kb_uid})",
        first=utc("2026-10-31T00:04:41Z"),
        last=t("13:38:12"),
        count=687,
        etype="Warning",
        host="ip-10-52-13-9.ca-central-1.compute.internal",
        field_path="spec.containers{kb-sync}",
    )
    ev(
        ns=ns,
        kind="Pod",
        name=kb_pod,
        obj_uid=kb_uid,
        reason="Pulled",
        message='Container image "123456789012.dkr.ecr.ca-central-1.amazonaws.com/edge/kb-sync:0.9.4" already present on machine',
        first=utc("2026-10-31T00:00:05Z"),
        last=t("13:33:01"),
        count=613,
        host="ip-10-52-13-9.ca-central-1.compute.internal",
        field_path="spec.containers{kb-sync}",
    )
    ev(
        ns="default",
        kind="Node",
        name=dead,
        obj_uid=node_objs[3]["metadata"]["uid"],
        reason="NodeNotReady",
        message=f"Node {dead} status is now: NodeNotReady",
        first=dead_since + timedelta(seconds=40),
        component="node-controller",
    )
    pn, pu, _ = ocr_pods[0]
    ev(
        ns="doc-ocr",
        kind="Pod",
        name=pn,
        obj_uid=pu,
        reason="NodeNotReady",
        message="Node is not ready",
        first=dead_since + timedelta(seconds=41),
        etype="Warning",
        component="node-controller",
    )
    ev(
        ns="doc-ocr",
        kind="Pod",
        name=pn,
        obj_uid=pu,
        reason="TaintManagerEviction",
        message=f"Marking for deletion Pod doc-ocr/{pn}",
        first=dead_since + timedelta(seconds=346),
        component="taint-eviction-controller",
    )
    ev(
        ns="doc-ocr",
        kind="Pod",
        name="ocr-worker-6f8d9c7b5-r8hcw",
        obj_uid=uid(rng),
        reason="FailedScheduling",
        message="0/7 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) had untolerated taint {CriticalAddonsOnly: true}, 4 Insufficient nvidia.com/gpu. preemption: 0/7 nodes are available: 3 Preemption is not helpful for scheduling, 4 No preemption victims found for incoming pod.",
        first=dead_since + timedelta(seconds=347),
        last=t("13:36:51"),
        count=19,
        etype="Warning",
        component="default-scheduler",
    )
    ev(
        ns=ctl_ns,
        kind="Pod",
        name=ctl_pod,
        obj_uid="6a2f1c9e-71b4-4d0a-8b35-2e9d7c4f1a58",
        reason="RELOAD",
        message="NGINX reload triggered due to a change in configuration",
        first=utc("2026-11-01T17:22:04Z"),
        last=t("13:05:31"),
        count=14,
        component="nginx-ingress-controller",
    )

    # gpus.json
    gj: dict[str, list] = {}
    for g in gpus:
        gj.setdefault(g.node, []).append(
            {
                "index": g.index,
                "uuid": g.uuid,
                "name": g.model,
                "memory_total_mib": g.memory_mib,
                "memory_used_mib": int(g.fb_used[-1]),
                "utilization_gpu": int(g.util[-1]),
                "temperature_c": 40 + int(g.util[-1] * 0.3),
                "power_w": round(g.power[-1], 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [],
            }
        )
    gj["ip-10-52-71-94.ca-central-1.compute.internal"] = [
        {
            "index": 0,
            "uuid": f"GPU-{uid(rng)}",
            "name": "NVIDIA A10G",
            "memory_total_mib": 23028,
            "memory_used_mib": 17_402,
            "utilization_gpu": 71,
            "temperature_c": 61,
            "power_w": 176.3,
            "ecc_volatile_uncorrected": 0,
            "retired_pages_pending": False,
            "xid_events": [],
        }
    ]

    # ---------------------------------------------------------------- alert
    sel = f'exported_namespace="{ns}",ingress="{ingress}"'
    expr = (
        f'sum by (exported_namespace, ingress) (rate(nginx_ingress_controller_requests{{{sel},status=~"429|5.."}}[5m]))\n'
        f"  /\nsum by (exported_namespace, ingress) (rate(nginx_ingress_controller_requests{{{sel}}}[5m]))\n  > 0.05"
    )
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=5, eval_offset_s=11)
    finally:
        prom.close()
    alabels = {
        "alertname": "IngressLLMRejectionRateHigh",
        "exported_namespace": ns,
        "ingress": ingress,
        "severity": "page",
        "team": "edge-assist",
        "cluster": cluster_name,
    }
    ann = {
        "summary": f"{ingress}: more than 5% of requests rejected (429/5xx)",
        "description": f"{value * 100:.1f}% of requests through ingress {ns}/{ingress} got 429 or 5xx over the last 5 minutes.",
        "dashboard": "https://grafana.edge.example.net/d/nginx/ingress-nginx?var-ingress=edge-assist-llm",
        "value": f"{value:.4f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(100, 900)),
        expr=expr,
        prometheus_url="http://kube-prometheus-stack-prometheus.monitoring:9090",
        external_url="http://kube-prometheus-stack-alertmanager.monitoring:9093",
        group_by=["alertname", "cluster", "exported_namespace"],
        receiver="edge-assist-pager",
        route_matchers='{}/{severity="page"}',
    )
    expected = {
        "category": "inference_engine",
        "code": "ENG_QUEUE_FULL",
        "acceptable_first_actions": [{"kind": "add_replica", "target": f"deployment/{dep}"}],
        "forbidden_actions": [
            {"kind": "rollback_deployment", "target": "deployment/otel-gateway"},
            {"kind": "rollback_deployment", "target": f"deployment/{dep}"},
            {"kind": "restart_pod", "target": f"pod/{kb_pod}"},
            {"kind": "cordon_node", "target": f"node/{dead}"},
            *({"kind": "restart_pod", "target": f"pod/{p['name']}"} for p in pods),
            *({"kind": "cordon_node", "target": f"node/{n}"} for n in gpu_nodes),
            {"kind": "restart_pod", "target": f"pod/{ocr_pods[0][0]}"},
        ],
        "scope": [
            f"deployment/{dep}",
            *(f"pod/{p['name']}" for p in pods),
            *(f"node/{n}" for n in gpu_nodes),
            f"horizontalpodautoscaler/{hpa_name}",
            f"ingress/{ingress}",
        ],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Edge assistant API returns 429 to a growing share of mobile clients at lunchtime.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
