# ruff: noqa: E501  (scenario modules carry real log lines and PromQL verbatim)
"""Image pull failure after a rollout: the new TGI tag does not exist in the registry mirror.

Four TGI replicas of Mistral-NeMo-12B (one L40S each) behind Envoy Gateway. The nodes have no spare
GPU, so the Deployment rolls with `maxSurge: 0, maxUnavailable: 50%`. At 09:31:40 Argo CD applies
revision 13, which bumps the image to `.../text-generation-inference:3.3.5-cu128` - a tag that was
never mirrored. Two old pods are stopped at once; the two new pods sit in `ErrImagePull` /
`ImagePullBackOff` (`Failed to pull image ... not found`), the rollout stops making progress and
exceeds its progress deadline at 09:41:41. The two remaining old pods carry all the traffic: their
queues and batch sizes grow and p95 request duration climbs above the 15 s alert threshold. No
crash, no GPU fault. The alert is a classic latency alert with `service` and `model` labels.
"""

from __future__ import annotations

import random
from datetime import timedelta

from . import exporters as ex
from . import kube
from .common import envoy_json, gpu_node, gpus_json, klog_stamp
from .lib import (
    OM,
    Clock,
    Logs,
    Prom,
    current_firing,
    event_obj,
    hexid,
    httproute_obj,
    iso,
    ramp,
    service_obj,
    utc,
    webhook,
    within,
    write_pack,
)

NAME = "tgi-rollout-image-pull-notfound"
ENGINE = "HF TGI 3.2.3 (rollout to a missing 3.3.5-cu128 tag), Envoy Gateway"


def build(root):
    rng = random.Random(9303)
    as_of = utc("2026-09-18T09:52:00Z")
    c = Clock(as_of)
    N = c.n
    t = c.t
    ns = "helpdesk-genai"
    dep = "tgi-mistral-nemo-12b"
    model = "mistral-nemo-12b-instruct"
    route = "helpdesk-assist"
    cluster = f"httproute/{ns}/{route}/rule/0"
    reg = "harbor.corp.example.net/ml-serving/text-generation-inference"
    old_image, new_image = f"{reg}:3.2.3", f"{reg}:3.3.5-cu128"
    driver = "550.163.01"
    gw_ns = "envoy-gateway-system"
    gw_pod = "envoy-corp-ingress-internal-gw-71f0c3b9-64c9d8f7b6-wq4tn"
    gw_svc = "envoy-corp-ingress-internal-gw-71f0c3b9"
    gw_ip = "10.42.2.19"
    roll = t("09:31:40")
    deadline = roll + timedelta(seconds=601)

    nodes = [
        ("gpuworker-l40s-b2-01", "10.70.12.21", "10.42.0"),
        ("gpuworker-l40s-b2-02", "10.70.12.22", "10.42.1"),
    ]
    node_objs = [
        gpu_node(
            rng,
            n,
            as_of=as_of,
            created=utc("2026-02-09T15:20:31Z"),
            ready_since=utc("2026-09-01T04:12:09Z"),
            ip=ip,
            pod_cidr=f"{pre}.0/24",
            product="NVIDIA L40S",
            gpu_count=4,
            gpu_mem_mib=46068,
            instance_type="rke2-gpu-l40s",
            zone="dc2-row-b",
            region="dc2",
            cpu=128,
            mem_ki=1056453620,
            kubelet="v1.30.11+rke2r1",
            runtime="containerd://1.7.26-k3s1",
            kernel="6.8.0-60-generic",
            os_image="Ubuntu 24.04.2 LTS",
            driver_major="550",
            extra_labels={
                "node-role.kubernetes.io/worker": "true",
                "rke.cattle.io/machine": kube.new_uid(rng),
            },
        )
        for n, ip, pre in nodes
    ]

    labels = {"app.kubernetes.io/name": "text-generation-inference", "app.kubernetes.io/instance": dep}
    tgi_args = [
        "--model-id",
        "/data/models/Mistral-Nemo-Instruct-2407",
        "--max-input-tokens",
        "12288",
        "--max-total-tokens",
        "16384",
        "--max-batch-prefill-tokens",
        "12288",
        "--max-concurrent-requests",
        "256",
        "--port",
        "8080",
    ]

    def template(image: str, restarted: str) -> dict:
        return {
            "metadata": {
                "labels": {"app.kubernetes.io/component": "llm"},
                "annotations": {"kubectl.kubernetes.io/restartedAt": restarted},
            },
            "spec": {
                "containers": [
                    {
                        "name": "tgi",
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "args": tgi_args,
                        "env": [
                            {"name": "HF_HUB_OFFLINE", "value": "1"},
                            {"name": "PREFIX_CACHING", "value": "1"},
                            {"name": "OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"},
                        ],
                        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                        "resources": {
                            "limits": {"nvidia.com/gpu": "1", "memory": "64Gi"},
                            "requests": {"nvidia.com/gpu": "1", "cpu": "8", "memory": "48Gi"},
                        },
                        "readinessProbe": kube.probe_http("/health", "http", period=10, failure=3),
                        "livenessProbe": kube.probe_http(
                            "/health", "http", period=30, failure=5, initial=300, timeout=5
                        ),
                        "volumeMounts": [
                            {"name": "models", "mountPath": "/data/models", "readOnly": True},
                            {"name": "shm", "mountPath": "/dev/shm"},
                        ],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                    }
                ],
                "imagePullSecrets": [{"name": "harbor-ml-serving-pull"}],
                "volumes": [
                    {
                        "name": "models",
                        "persistentVolumeClaim": {"claimName": "llm-weights-cephfs", "readOnly": True},
                    },
                    {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "4Gi"}},
                ],
                "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S"},
                "tolerations": kube.DEFAULT_TOLERATIONS,
                "serviceAccountName": "helpdesk-llm",
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
        created=utc("2026-03-02T10:30:00Z"),
        uid=kube.new_uid(rng),
        strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "50%"}},
        extra_labels={
            "app.kubernetes.io/part-of": "helpdesk-assistant",
            "argocd.argoproj.io/instance": "helpdesk-genai",
        },
        annotations={"argocd.argoproj.io/tracking-id": f"helpdesk-genai:apps/Deployment:{ns}/{dep}"},
    )
    r12 = kube.Revision(
        12,
        kube.rs_hash(rng),
        utc("2026-08-26T13:02:11Z"),
        template(old_image, "2026-08-26T13:02:10Z"),
        uid=kube.new_uid(rng),
        change_cause="TGI 3.2.3",
        replicas=2,
        ready=2,
        available=2,
    )
    r13 = kube.Revision(
        13,
        kube.rs_hash(rng),
        roll,
        template(new_image, "2026-08-26T13:02:10Z"),
        uid=kube.new_uid(rng),
        change_cause="bump TGI to 3.3.5-cu128 (Mistral tool-call parser fix)",
        replicas=2,
    )
    r11 = kube.Revision(
        11,
        kube.rs_hash(rng),
        utc("2026-07-14T08:47:52Z"),
        template(f"{reg}:3.1.1", "2026-07-14T08:47:50Z"),
        uid=kube.new_uid(rng),
        change_cause="TGI 3.1.1",
    )
    w.revisions = [r11, r12, r13]
    w.status = {
        "replicas": 4,
        "updatedReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "unavailableReplicas": 2,
    }
    w.conditions = kube.dep_conditions(
        available=(
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
            roll,
            utc("2026-08-26T13:09:40Z"),
        ),
        progressing=(
            "False",
            "ProgressDeadlineExceeded",
            f'ReplicaSet "{dep}-{r13.hash}" has timed out progressing.',
            deadline,
            deadline,
        ),
    )

    olds = []
    for k in range(4):
        node, nip, pre = nodes[k % 2]
        olds.append(
            {
                "name": kube.pod_name(rng, w, r12),
                "uid": kube.new_uid(rng),
                "node": node,
                "node_ip": nip,
                "ip": f"{pre}.{[37, 52, 64, 81][k]}",
                "gpu": k // 2,
                "created": r12.created + timedelta(minutes=3 * k, seconds=14),
                "stopped": roll if k >= 2 else None,
            }
        )
    news = []
    for k in range(2):
        node, nip, pre = nodes[k % 2]
        news.append(
            {
                "name": kube.pod_name(rng, w, r13),
                "uid": kube.new_uid(rng),
                "node": node,
                "node_ip": nip,
                "ip": f"{pre}.{[112, 118][k]}",
                "gpu": 1,
                "created": roll + timedelta(milliseconds=210 + 40 * k),
            }
        )

    # ---------------------------------------------------------------- traffic
    om = OM(c)
    i_roll = c.idx(roll) + 1
    arrivals = [(118 + 44 * ramp(c, i, t("08:55"), t("09:25"))) * rng.uniform(0.95, 1.05) for i in range(N)]
    per = []
    for k in range(len(olds)):
        alive = [c.at(i) < roll or k < 2 for i in range(N)]
        share = [
            (0.25 if c.at(i) - timedelta(seconds=30) < roll else (0.5 if k < 2 else 0.0)) for i in range(N)
        ]
        share[i_roll] = 0.25 + (0.25 * 20 / 60 if k < 2 else -0.25 * 20 / 60)
        done = [round(arrivals[i] * share[i] * rng.uniform(0.97, 1.03)) for i in range(N)]
        over = [ramp(c, i, roll, roll + timedelta(minutes=5)) if k < 2 else 0.0 for i in range(N)]
        med = [5.1 + 7.6 * o + 0.02 * (arrivals[i] - 120) for i, o in enumerate(over)]
        qt = [0.05 + 4.4 * o for o in over]
        batch = [
            round(arrivals[i] * share[i] * (med[i] - qt[i]) / 60 * rng.uniform(0.9, 1.1)) for i in range(N)
        ]
        queue = [max(0, round(arrivals[i] * share[i] * qt[i] / 60 * rng.uniform(0.8, 1.2))) for i in range(N)]
        per.append(
            {"alive": alive, "done": done, "med": med, "qt": qt, "batch": batch, "queue": queue, "over": over}
        )

    # TGI metrics (ServiceMonitor; TGI exposes no model label)
    for k, p in enumerate(olds):
        s = per[k]
        present = s["alive"]
        lab = {
            "container": "tgi",
            "endpoint": "http",
            "instance": f"{p['ip']}:8080",
            "job": dep,
            "namespace": ns,
            "pod": p["name"],
            "service": dep,
        }

        def g(vals, present=present):
            return [v if present[i] else None for i, v in enumerate(vals)]

        base = [1_402_117, 1_399_820, 1_396_504, 1_401_033][k]
        om.counter("tgi_request_count", "", lab, s["done"], initial=base, present=present, suffix_total=False)
        om.counter(
            "tgi_request_success", "", lab, s["done"], initial=base - 211, present=present, suffix_total=False
        )
        om.counter(
            "tgi_request_failure",
            "",
            {**lab, "err": "validation"},
            [1 if rng.random() < 0.08 else 0 for _ in range(N)],
            initial=204,
            present=present,
            suffix_total=False,
        )
        om.gauge("tgi_queue_size", "", lab, g(s["queue"]), digits=4)
        om.gauge("tgi_batch_current_size", "", lab, g(s["batch"]), digits=4)
        om.gauge("tgi_batch_current_max_tokens", "", lab, g([b * 1510 for b in s["batch"]]), digits=8)
        om.histogram(
            "tgi_request_duration",
            "",
            lab,
            ex.TGI_DURATION,
            s["done"],
            s["med"],
            0.42,
            initial_count=base,
            present=present,
            le=lambda b: "+Inf" if b == float("inf") else repr(b),
        )

    # ---------------------------------------------------------------- DCGM
    gpus = []
    exporter_ip = {nodes[0][0]: "10.42.0.6", nodes[1][0]: "10.42.1.5"}
    uuids = {}
    for k, p in enumerate(olds):
        s = per[k]
        uu = f"GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}"
        uuids[k] = uu
        g = ex.Gpu(
            node=p["node"],
            index=p["gpu"],
            uuid=uu,
            pci=["00000000:01:00.0", "00000000:25:00.0"][p["gpu"]],
            model="NVIDIA L40S",
            memory_mib=46068,
            pod=p["name"],
            namespace=ns,
            container="tgi",
        )
        util, fb, pw = [], [], []
        for i in range(N):
            if s["alive"][i]:
                u = 52 + 33 * s["over"][i] + rng.uniform(-4, 4)
                util.append(round(u))
                fb.append(43_115 + rng.randint(-30, 30))
                pw.append(round(95 + 2.4 * u + rng.uniform(-8, 8), 3))
            else:
                util.append(None)
                fb.append(None)
                pw.append(None)
        g.util, g.fb_used, g.power = util, fb, pw
        g.xid = [0 if s["alive"][i] else None for i in range(N)]
        gpus.append(g)
        if k >= 2:
            # after the old pod is gone the device is allocated to a pod whose container never started: no process, no pod mapping
            g2 = ex.Gpu(
                node=p["node"], index=p["gpu"], uuid=uu, pci=g.pci, model="NVIDIA L40S", memory_mib=46068
            )
            g2.util = [None if s["alive"][i] else 0 for i in range(N)]
            g2.fb_used = [None if s["alive"][i] else 1 for i in range(N)]
            g2.power = [None if s["alive"][i] else round(rng.uniform(33, 37), 3) for i in range(N)]
            g2.xid = [None if s["alive"][i] else 0 for i in range(N)]
            gpus.append(g2)
    ex.dcgm(om, gpus, driver, exporter_ip)

    # ---------------------------------------------------------------- kube-state-metrics (kube-prometheus-stack labels)
    rs_old, rs_new = f"{dep}-{r12.hash}", f"{dep}-{r13.hash}"
    for k, p in enumerate(olds):
        present = [c.at(i) < roll + timedelta(seconds=32) or k < 2 for i in range(N)]
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
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
                    "created_by_name": rs_old,
                    "host_network": "false",
                    "priority_class": "",
                },
                True,
            ),
            [1 if x else None for x in present],
        )
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ex.ksm_labels({**plab, "condition": "true"}, True),
            [(1 if c.at(i) < roll or k < 2 else 0) if present[i] else None for i in range(N)],
            digits=2,
        )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ex.ksm_labels({**plab, "container": "tgi"}, True),
            [0] * N,
            present=present,
        )
    for p in news:
        present = [c.at(i) >= roll for i in range(N)]
        plab = {"namespace": ns, "pod": p["name"], "uid": p["uid"]}
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
                    "created_by_name": rs_new,
                    "host_network": "false",
                    "priority_class": "",
                },
                True,
            ),
            [1 if x else None for x in present],
        )
        om.gauge(
            "kube_pod_status_ready",
            "Describes whether the pod is ready to serve requests.",
            ex.ksm_labels({**plab, "condition": "true"}, True),
            [0 if x else None for x in present],
            digits=2,
        )
        om.gauge(
            "kube_pod_status_phase",
            "The pods current phase.",
            ex.ksm_labels({**plab, "phase": "Pending"}, True),
            [1 if x else None for x in present],
            digits=2,
        )
        for reason in ("ErrImagePull", "ImagePullBackOff"):
            vals = []
            for i in range(N):
                if not present[i]:
                    vals.append(None)
                    continue
                since = (c.at(i) - roll).total_seconds()
                # pull attempts back off 10s, 20s, ... 300s; most scrapes see the back-off
                pulling = since < 12 or (rng.random() < 0.18)
                vals.append(1 if (reason == "ErrImagePull") == pulling else 0)
            om.gauge(
                "kube_pod_container_status_waiting_reason",
                "Describes the reason the container is currently in waiting state.",
                ex.ksm_labels({**plab, "container": "tgi", "reason": reason}, True),
                vals,
                digits=2,
            )
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            ex.ksm_labels({**plab, "container": "tgi"}, True),
            [0] * N,
            present=present,
        )
    dlab = ex.ksm_labels({"namespace": ns, "deployment": dep}, True)
    after = [c.at(i) >= roll for i in range(N)]
    om.gauge(
        "kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dlab, [4] * N, digits=3
    )
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dlab,
        [2 if a else 4 for a in after],
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_replicas_unavailable",
        "The number of unavailable replicas per deployment.",
        dlab,
        [2 if a else 0 for a in after],
        digits=3,
    )
    om.gauge(
        "kube_deployment_status_replicas_updated",
        "The number of updated replicas per deployment.",
        dlab,
        [2 if a else 4 for a in after],
        digits=3,
    )
    om.gauge(
        "kube_deployment_metadata_generation",
        "Sequence number representing a specific generation of the desired state.",
        dlab,
        [14 if a else 13 for a in after],
        digits=4,
    )
    om.gauge(
        "kube_deployment_status_observed_generation",
        "The generation observed by the deployment controller.",
        dlab,
        [14 if a else 13 for a in after],
        digits=4,
    )
    for st in ("true", "false", "unknown"):
        vals = []
        for i in range(N):
            stalled = c.at(i) >= deadline
            vals.append(1 if (st == "false") == stalled and st != "unknown" else 0)
        om.gauge(
            "kube_deployment_status_condition",
            "The current status conditions of a deployment.",
            ex.ksm_labels(
                {"namespace": ns, "deployment": dep, "condition": "Progressing", "status": st}, True
            ),
            vals,
            digits=2,
        )
        om.gauge(
            "kube_deployment_status_condition",
            "The current status conditions of a deployment.",
            ex.ksm_labels({"namespace": ns, "deployment": dep, "condition": "Available", "status": st}, True),
            [1 if st == "true" else 0] * N,
            digits=2,
        )
    for n, *_ in nodes:
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            ex.ksm_labels({"node": n, "condition": "Ready", "status": "true"}, True),
            [1] * N,
            digits=2,
        )

    # ---------------------------------------------------------------- Envoy Gateway (ServiceMonitor on the proxy Service)
    proxy = {
        "container": "envoy",
        "endpoint": "metrics",
        "instance": f"{gw_ip}:19001",
        "job": gw_svc,
        "namespace": gw_ns,
        "pod": gw_pod,
        "service": gw_svc,
    }
    ok = [sum(per[k]["done"][i] for k in range(4)) for i in range(N)]
    codes = {200: ok}
    mix = [[(per[k]["done"][i], per[k]["med"][i], 0.42) for k in range(4)] for i in range(N)]
    healthy = [4 if c.at(i) < roll else 2 for i in range(N)]
    ex.envoy_cluster(
        om,
        cluster=cluster,
        proxy=proxy,
        codes=codes,
        initial={200: 5_598_310},
        healthy=healthy,
        members=[4] * N,
        rq_time_mix=mix,
        rq_time_initial=[(5_598_310, 5.2, 0.42)],
    )

    # ---------------------------------------------------------------- logs
    logs = Logs()
    for k, p in enumerate(olds):
        s = per[k]
        for i in range(1, N):
            if not s["alive"][i] or i % 2 != k % 2:
                continue
            ts = within(rng, c.at(i - 1))
            tot = s["med"][i] * rng.uniform(0.7, 1.4)
            q = min(tot * 0.8, s["qt"][i] * rng.uniform(0.6, 1.5))
            ntok = rng.randint(90, 260)
            inf = tot - q
            logs.add(
                ts,
                f'{iso(ts)[:-1]}.{ts.microsecond:06d}Z  INFO chat_completions{{total_time="{tot:.6f}s" validation_time="{rng.uniform(1.2, 3.1):.6f}ms" '
                f'queue_time="{q:.6f}s" inference_time="{inf:.6f}s" time_per_token="{inf / ntok * 1000:.6f}ms" seed="None"}}: '
                f"text_generation_router::server: router/src/server.rs:631: Success",
                service=dep,
                ns=ns,
                pod=p["name"],
                node=p["node"],
                container="tgi",
                logger="text_generation_router::server",
            )
        if p["stopped"]:
            b = roll + timedelta(milliseconds=380 + 50 * k)
            for dt, lvl, msg in (
                (0, "INFO", "text_generation_launcher: Terminating webserver"),
                (2, "INFO", "text_generation_launcher: Waiting for webserver to gracefully shutdown"),
                (
                    5,
                    "INFO",
                    "text_generation_router::server: router/src/server.rs:2512: signal received, starting graceful shutdown",
                ),
                (1900, "INFO", "text_generation_launcher: webserver terminated"),
                (1901, "INFO", "text_generation_launcher: Shutting down shards"),
                (2301, "INFO", "text_generation_launcher: Terminating shard rank=0"),
                (2302, "INFO", "text_generation_launcher: Waiting for shard to gracefully shutdown rank=0"),
                (3107, "INFO", "text_generation_launcher: shard terminated rank=0"),
            ):
                ts = b + timedelta(milliseconds=dt)
                logs.add(
                    ts,
                    f"{iso(ts)[:-1]}.{ts.microsecond:06d}Z  {lvl} {msg}",
                    service=dep,
                    ns=ns,
                    pod=p["name"],
                    node=p["node"],
                    container="tgi",
                )
    # kubelet journal on the two nodes
    for k, p in enumerate(news):
        host = p["node"]
        attempt = roll + timedelta(seconds=2, milliseconds=rng.randint(100, 900))
        backoff = 10
        pid = [2214, 2187][k]
        while attempt < as_of:
            err = (
                f'rpc error: code = NotFound desc = failed to pull and unpack image \\"{new_image}\\": failed to resolve reference '
                f'\\"{new_image}\\": {new_image}: not found'
            )
            logs.add(
                attempt,
                f'{klog_stamp(rng, attempt, "E")}    {pid} log.go:32] "PullImage from image service failed" err="{err}" image="{new_image}"',
                service="kubelet",
                node=host,
                level="error",
                dataset="kubelet",
                error_type="ErrImagePull",
                error_message=f'failed to pull and unpack image "{new_image}": not found',
            )
            t2 = attempt + timedelta(milliseconds=3)
            logs.add(
                t2,
                f'{klog_stamp(rng, t2, "E")}    {pid} pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"tgi\\" '
                f'with ErrImagePull: \\"{err}\\"" pod="{ns}/{p["name"]}" podUID="{p["uid"]}"',
                service="kubelet",
                node=host,
                level="error",
                dataset="kubelet",
            )
            attempt += timedelta(seconds=backoff + rng.uniform(0.5, 3.0))
            backoff = min(300, backoff * 2)
            for j in range(2):
                t3 = attempt - timedelta(seconds=(backoff / 2) * (j + 1) / 3)
                if roll < t3 < as_of:
                    logs.add(
                        t3,
                        f'{klog_stamp(rng, t3, "E")}    {pid} pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"tgi\\" '
                        f'with ImagePullBackOff: \\"Back-off pulling image \\\\\\"{new_image}\\\\\\"\\"" pod="{ns}/{p["name"]}" podUID="{p["uid"]}"',
                        service="kubelet",
                        node=host,
                        level="error",
                        dataset="kubelet",
                    )
    # gateway access log samples
    uas = ["helpdesk-portal/2.19.0 (axios/1.7.9)", "zendesk-sidebar-app/1.4.3"]
    for i in range(1, N):
        if i % 2:
            continue
        k = rng.choice([0, 1] if c.at(i) > roll else [0, 1, 2, 3])
        dur = int(1000 * per[k]["med"][i] * rng.uniform(0.6, 1.6))
        envoy_json(
            logs,
            rng,
            end=within(rng, c.at(i - 1)),
            code=200,
            flags="-",
            details="via_upstream",
            duration_ms=dur,
            upstream_host=f"{olds[k]['ip']}:8080",
            cluster=cluster,
            route_name=f"httproute/{ns}/{route}/rule/0/match/0/helpdesk-llm_corp_example_net",
            authority="helpdesk-llm.corp.example.net",
            path="/v1/chat/completions",
            client=rng.choice(["10.70.40.12", "10.70.40.13"]),
            gw_ip=gw_ip,
            gw_pod=gw_pod,
            gw_ns=gw_ns,
            gw_node=nodes[0][0],
            user_agent=rng.choice(uas),
            bytes_sent=rng.randint(900, 3800),
        )

    # ---------------------------------------------------------------- objects
    objs = [w.deployment(), w.replicaset(r13), w.replicaset(r12), w.replicaset(r11)]
    for p in olds[:2]:
        st = kube.cstatus(
            rng, name="tgi", image=old_image, ready=True, running_since=p["created"] + timedelta(seconds=5)
        )
        objs.append(
            kube.pod_obj(
                w,
                r12,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node_ip"],
                phase="Running",
                ready=True,
                container_statuses=[st],
                ready_since=p["created"] + timedelta(minutes=2, seconds=31),
            )
        )
    for p in news:
        st = kube.cstatus(
            rng,
            name="tgi",
            image=new_image,
            ready=False,
            waiting=("ImagePullBackOff", f'Back-off pulling image "{new_image}"'),
            pulled=False,
        )
        objs.append(
            kube.pod_obj(
                w,
                r13,
                name=p["name"],
                uid_=p["uid"],
                node=p["node"],
                created=p["created"],
                pod_ip=p["ip"],
                host_ip=p["node_ip"],
                phase="Pending",
                ready=False,
                container_statuses=[st],
                ready_since=p["created"],
                scheduled_at=p["created"] + timedelta(milliseconds=30),
            )
        )
    objs.append(
        service_obj(
            dep,
            ns,
            labels,
            [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": "http"}],
            "10.43.77.190",
            labels=labels,
            created=w.created,
            uid_=kube.new_uid(rng),
        )
    )
    objs.append(
        httproute_obj(
            route,
            ns,
            gateway="internal-gw",
            gateway_ns="corp-ingress",
            hostnames=["helpdesk-llm.corp.example.net"],
            rules=[
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                    "backendRefs": [{"group": "", "kind": "Service", "name": dep, "port": 80, "weight": 1}],
                    "timeouts": {"request": "180s"},
                }
            ],
            created=utc("2026-03-02T10:35:00Z"),
            uid_=kube.new_uid(rng),
        )
    )
    objs.extend(node_objs)
    ev = lambda **kw: objs.append(event_obj(rng, ns=ns, **kw))  # noqa: E731
    ev(
        kind="Deployment",
        name=dep,
        obj_uid=w.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled down replica set {rs_old} from 4 to 2",
        first=roll,
        component="deployment-controller",
        api_version="apps/v1",
    )
    ev(
        kind="Deployment",
        name=dep,
        obj_uid=w.uid,
        reason="ScalingReplicaSet",
        message=f"Scaled up replica set {rs_new} from 0 to 2",
        first=roll,
        component="deployment-controller",
        api_version="apps/v1",
    )
    for p in olds[2:]:
        ev(
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            reason="Killing",
            message="Stopping container tgi",
            first=roll + timedelta(milliseconds=300),
            host=p["node"],
            field_path="spec.containers{tgi}",
        )
    for k, p in enumerate(news):
        kw = dict(
            kind="Pod", name=p["name"], obj_uid=p["uid"], host=p["node"], field_path="spec.containers{tgi}"
        )
        ev(
            kind="Pod",
            name=p["name"],
            obj_uid=p["uid"],
            reason="Scheduled",
            message=f"Successfully assigned {ns}/{p['name']} to {p['node']}",
            first=p["created"],
            component="default-scheduler",
        )
        n_pull = 8
        ev(
            **kw,
            reason="Pulling",
            message=f'Pulling image "{new_image}"',
            first=roll + timedelta(seconds=2),
            last=as_of - timedelta(seconds=95 + 20 * k),
            count=n_pull,
        )
        ev(
            **kw,
            reason="Failed",
            message=(
                f'Failed to pull image "{new_image}": rpc error: code = NotFound desc = failed to pull and unpack image '
                f'"{new_image}": failed to resolve reference "{new_image}": {new_image}: not found'
            ),
            first=roll + timedelta(seconds=2),
            last=as_of - timedelta(seconds=95 + 20 * k),
            count=n_pull,
            etype="Warning",
        )
        ev(
            **kw,
            reason="Failed",
            message="Error: ErrImagePull",
            first=roll + timedelta(seconds=2),
            last=as_of - timedelta(seconds=95 + 20 * k),
            count=n_pull,
            etype="Warning",
        )
        ev(
            **kw,
            reason="BackOff",
            message=f'Back-off pulling image "{new_image}"',
            first=roll + timedelta(seconds=3),
            last=as_of - timedelta(seconds=8 + 3 * k),
            count=87 + k,
        )
        ev(
            **kw,
            reason="Failed",
            message="Error: ImagePullBackOff",
            first=roll + timedelta(seconds=3),
            last=as_of - timedelta(seconds=8 + 3 * k),
            count=87 + k,
            etype="Warning",
        )
    gj = gpus_json([g for g in gpus if g.util[-1] is not None], rng)

    # ---------------------------------------------------------------- alert
    expr = f'histogram_quantile(0.95, sum by (le) (rate(tgi_request_duration_bucket{{namespace="{ns}",service="{dep}"}}[5m]))) > 15'
    prom = Prom(om.render())
    try:
        starts, value = current_firing(prom, expr, c, for_minutes=5, eval_offset_s=8)
    finally:
        prom.close()
    alabels = {
        "alertname": "HelpdeskAssistantLatencyP95High",
        "namespace": ns,
        "service": dep,
        "model": model,
        "severity": "warning",
        "prometheus": "cattle-monitoring-system/rancher-monitoring-prometheus",
    }
    ann = {
        "summary": "Helpdesk assistant p95 latency above 15s",
        "description": f"p95 request duration of {dep} is {value:.1f}s (threshold 15s) for more than 5 minutes.",
        "runbook_url": "https://confluence.corp.example.net/display/HELPAI/Runbook+latency",
        "value": f"{value:.2f}",
    }
    alert = webhook(
        labels=alabels,
        annotations=ann,
        starts_at=starts + timedelta(milliseconds=rng.randint(10, 900)),
        expr=expr,
        prometheus_url="https://rancher.corp.example.net/api/v1/namespaces/cattle-monitoring-system/services/http:rancher-monitoring-prometheus:9090/proxy",
        external_url="https://rancher.corp.example.net/api/v1/namespaces/cattle-monitoring-system/services/http:rancher-monitoring-alertmanager:9093/proxy",
        group_by=["namespace", "alertname"],
        receiver="helpdesk-ai-incidents",
        route_matchers='{}/{namespace="helpdesk-genai"}',
    )
    expected = {
        "category": "infrastructure",
        "code": "INF_IMAGE_PULL",
        "acceptable_first_actions": [{"kind": "rollback_deployment", "target": f"deployment/{dep}"}],
    }
    write_pack(
        root,
        NAME,
        as_of=as_of,
        namespace=ns,
        description="Helpdesk assistant answers slowly this morning.",
        alert=alert,
        om=om,
        logs=logs,
        objects=objs,
        gpus=gj,
        expected=expected,
    )
    return {"name": NAME, "engine": ENGINE, "expected": expected, "starts": iso(starts), "value": value}
