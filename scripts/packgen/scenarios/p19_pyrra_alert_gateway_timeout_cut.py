"""An Ingress change lowers ingress-nginx's proxy-read-timeout to 30 s; nginx cuts long generations with 504.

At 14:06:40 a shared Helm library chart release re-renders the care-chat Ingress and its
`nginx.ingress.kubernetes.io/proxy-read-timeout` goes from "600" to "30". Streaming chats keep
flowing (tokens arrive well within 30 s of each other), but the CRM's non-streaming case
summaries take 40-60 s: nginx gives up on each after exactly 30 s (`upstream timed out (110:
Operation timed out) while reading response header from upstream`, 504 in the access log and in
`nginx_ingress_controller_requests`) and the caller's retry is cut the same way. vLLM only logs
`Aborted request(s) ...` when nginx closes the connection; GPU utilisation stays near 65 %, the
queue empty. A Pyrra multi-window burn-rate alert (`ErrorBudgetBurn`, labels `slo`, `short`,
`long`, `exhaustion`, no service or model) pages. An unrelated vLLM rollout 25 minutes earlier
went through cleanly.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import yaml

from .. import exporters as ex
from .. import k8s
from ..common import threshold_alert
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_startup, vllm_stats
from ..fleet import Fleet, Member
from ..k8s import stable as stable_int
from ..logs import Source, ecs
from ..openmetrics import OpenMetrics
from ..pack import Pack
from ..series import Clock, Series, diurnal, flat, iso, noisy
from ..traffic import PodTimeline, gpu, gpu_idle, node_timeline, pod_timeline

NAME = "pyrra-alert-gateway-timeout-cut"
ENGINE = "vLLM 0.10.2 behind ingress-nginx 1.11, Pyrra burn-rate alert"


# =====================================================================================================
# Helpers shared by the p19-p21 packs (imported by p20 and p21): an answer with decoys and scope,
# tenants of a multi-team cluster, ingress-nginx's objects, metrics and log wording.
# =====================================================================================================
class ScopedPack(Pack):
    """A pack whose expected.yaml also lists `forbidden_actions` and the incident's `scope`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forbidden: list[tuple[str, str]] = []
        self.scope: list[str] = []

    def write(self, root: Path) -> Path:
        out = super().write(root)
        path = out / "expected.yaml"
        exp = yaml.safe_load(path.read_text(encoding="utf-8"))
        seen: set[tuple[str, str]] = set()
        forbidden = []
        for kind, target in self.forbidden:
            if (kind, target) not in seen:
                seen.add((kind, target))
                forbidden.append({"kind": kind, "target": target})
        exp["forbidden_actions"] = forbidden
        exp["scope"] = list(dict.fromkeys(self.scope))
        path.write_text(yaml.safe_dump(exp, sort_keys=False, width=120), encoding="utf-8")
        return out


@dataclass
class Tenant:
    """A Deployment of some team, with its live pods and their kube-state-metrics timelines."""

    w: k8s.Workload
    pods: list[k8s.PodInfo]
    timelines: list[PodTimeline] = field(default_factory=list)

    def objects(self, as_of: datetime, *, service: bool = True, strip: tuple[str, ...] = ()) -> list[dict]:
        self.w.pods = list(self.pods)
        objs = self.w.objects(as_of)
        if not service:
            objs = [o for o in objs if o["kind"] != "Service"]
        if strip:  # injected sidecars only exist on Pods, never in the Deployment's template
            for o in objs:
                if o["kind"] in ("Deployment", "ReplicaSet"):
                    spec = o["spec"]["template"]["spec"]
                    spec["containers"] = [ct for ct in spec["containers"] if ct["name"] not in strip]
        return objs


def tenant(
    p: Pack,
    *,
    name: str,
    namespace: str,
    image: str,
    args: list[str],
    placement: list[tuple[k8s.Node, str]],
    container: str,
    port: int,
    labels: dict[str, str] | None = None,
    gpus: int = 0,
    gpu_uuids: list[list[str]] | None = None,
    cpu: str = "1",
    memory: str = "2Gi",
    memory_limit: str = "4Gi",
    age_days: float = 20.0,
    revision: int = 3,
    command: list[str] | None = None,
    env: list[dict[str, Any]] | None = None,
    cluster_ip: str = "10.0.0.10",
    change_cause: str | None = None,
    readiness: dict[str, Any] | None = None,
    **workload_kw: Any,
) -> Tenant:
    """A healthy Deployment of another team (or of the platform), running since before the window."""
    rng = p.rng
    created = p.as_of - timedelta(days=age_days)
    rev = p.revision(
        revision,
        created + timedelta(seconds=age_days * 86_400 * rng.uniform(0.3, 0.6)),
        image,
        args,
        replicas=len(placement),
        command=command,
        env=env or [],
        change_cause=change_cause,
    )
    w = k8s.Workload(
        name=name,
        namespace=namespace,
        container=container,
        port=port,
        labels=labels or {"app.kubernetes.io/name": name},
        revisions=[rev],
        pods=[],
        created=created,
        replicas=len(placement),
        gpus=gpus,
        cpu=cpu,
        memory=memory,
        memory_limit=memory_limit,
        uid=k8s.new_uid(rng),
        tolerations=[] if not gpus else None,  # type: ignore[arg-type]
        cluster_ip=cluster_ip,
        readiness=readiness,
        **workload_kw,
    )
    if w.tolerations is None:
        w.tolerations = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    t = Tenant(w, [])
    for j, (node, ip) in enumerate(placement):
        pod_created = rev.created + timedelta(minutes=3 * j, seconds=rng.randint(2, 50))
        pname = p.pod_name(name, rev.hash)
        info = k8s.PodInfo(
            name=pname,
            revision=rev,
            node=node.name,
            ip=ip,
            host_ip=node.internal_ip,
            created=pod_created,
            uid=k8s.new_uid(rng),
            started=pod_created + timedelta(seconds=2),
            ready=True,
            ready_since=pod_created + timedelta(seconds=rng.randint(8, 40)),
            running_since=pod_created + timedelta(seconds=3),
            container_id=k8s.container_id(rng),
            gpu_uuids=(gpu_uuids[j] if gpu_uuids else []),
        )
        t.pods.append(info)
        t.timelines.append(
            pod_timeline(
                p.clock,
                pod=pname,
                namespace=namespace,
                uid=info.uid,
                node=node.name,
                ip=ip,
                host_ip=node.internal_ip,
                owner=f"{name}-{rev.hash}",
                container=container,
            )
        )
    return t


def crashlooping(
    p: Pack, t: Tenant, index: int, *, reason: str = "Error", exit_code: int = 1
) -> list[datetime]:
    """One tenant pod has been crash-looping for hours (5-minute back-off): unready, restarting."""
    c, rng = p.clock, p.rng
    info, tl = t.pods[index], t.timelines[index]
    restarts = []
    at = c.start + timedelta(minutes=rng.randint(1, 4), seconds=rng.randint(0, 59))
    while at <= p.as_of:
        restarts.append(at)
        at += timedelta(minutes=5, seconds=rng.randint(3, 12))
    for i in range(c.n):
        tl.ready[i] = False
        tl.last_terminated[i] = reason
        tl.waiting_reason[i] = "CrashLoopBackOff"
    for r in restarts:
        k = c.idx(r)
        if k < c.n:
            tl.restarts[k] += 1
            tl.waiting_reason[k] = None
    info.ready = False
    info.restarts = 61 + len(restarts)
    tl.restarts[0] += 61.0  # the counter's value when the window opens
    info.ready_since = p.as_of - timedelta(hours=5, minutes=12)
    last = restarts[-1]
    info.last_terminated = {
        "containerID": k8s.container_id(rng),
        "exitCode": exit_code,
        "reason": reason,
        "startedAt": iso(last - timedelta(seconds=1)),
        "finishedAt": iso(last + timedelta(seconds=rng.randint(4, 9))),
    }
    info.waiting = (
        "CrashLoopBackOff",
        k8s.crashloop_message(t.w.container, info.name, t.w.namespace, info.uid, "5m0s"),
    )
    return restarts


def cpu_node(
    p: Pack,
    name: str,
    ip: str,
    *,
    zone: str,
    instance_type: str,
    cidr: str,
    cpu: int = 8,
    mem_gi: int = 32,
    **kw: Any,
) -> k8s.Node:
    return k8s.Node(
        name=name,
        internal_ip=ip,
        zone=zone,
        instance_type=instance_type,
        cpu=cpu,
        memory_mi=mem_gi * 1024,
        uid=k8s.new_uid(p.rng),
        pod_cidr=cidr,
        **kw,
    )


def recurring(
    p: Pack,
    *,
    namespace: str,
    kind: str,
    name: str,
    uid: str,
    reason: str,
    message: str,
    first_ago: timedelta,
    last: datetime,
    count: int,
    warning: bool = True,
    component: str = "kubelet",
    host: str | None = None,
    field_path: str | None = None,
    api_version: str = "v1",
) -> dict[str, Any]:
    """An event the cluster keeps emitting: first seen long ago, last seen inside the window."""
    first = p.as_of - first_ago - timedelta(seconds=p.rng.randint(0, 3599))
    if last.second == 0 and last.microsecond == 0:
        last -= timedelta(seconds=p.rng.randint(1, 59))
    if count == 1:
        first = last
    return k8s.event(
        namespace=namespace,
        kind=kind,
        name=name,
        uid=uid,
        reason=reason,
        message=message,
        first=first,
        last=last,
        count=count,
        warning=warning,
        component=component,
        host=host,
        field_path=field_path,
        api_version=api_version,
    )


def dcgm_idle(p: Pack, devices: list[Any]) -> list[Any]:
    """GPU series of devices no pod holds (DCGM still exports them, without pod labels)."""
    return [gpu_idle(p.clock, p.rng, d) for d in devices]


def idle_gaps(p: Pack, series: list[Any]) -> list[Any]:
    """While a pod does not hold its GPU (before it was created, after it was deleted), DCGM still
    exports the device, without pod labels."""
    out = []
    for g in series:
        if g.present is None:
            continue
        idle = gpu_idle(p.clock, p.rng, g.dev)
        idle.present = [not x for x in g.present]
        if any(idle.present):
            out.append(idle)
    return out


def dcgm_busy(
    p: Pack, devices: list[Any], *, util: float, fb: float, pod: str, namespace: str, container: str
) -> list[Any]:
    return [
        gpu(p.clock, p.rng, d, util=util, fb_used=fb, pod=pod, namespace=namespace, container=container)
        for d in devices
    ]


# -- ingress-nginx ----------------------------------------------------------------------------------------
NGINX_IMAGE = "registry.k8s.io/ingress-nginx/controller:v1.11.5@sha256:a1cbad75b0a7098bf9325132794dddf9eef917e8a7fe246749a4cea7ff6f01eb"  # noqa: E501
CTRL_CLASS = "k8s.io/ingress-nginx"


def klog(ts: datetime, where: str, msg: str, *, sev: str = "I", pid: int = 7) -> str:
    """klog's header: `I0903 14:06:41.204553       7 controller.go:214] msg`."""
    return f"{sev}{ts.strftime('%m%d %H:%M:%S')}.{ts.microsecond:06d}{pid:8d} {where}] {msg}"


def nginx_time_local(ts: datetime) -> str:
    return ts.strftime("%d/%b/%Y:%H:%M:%S +0000")


def nginx_err_time(ts: datetime) -> str:
    return ts.strftime("%Y/%m/%d %H:%M:%S")


def nginx_access(
    ts: datetime,
    *,
    client: str,
    method: str,
    path: str,
    status: int,
    body_bytes: int,
    user_agent: str,
    request_length: int,
    request_time: float,
    upstream_name: str,
    upstream_addr: str | None,
    upstream_length: int | None,
    upstream_time: float | None,
    upstream_status: int | None,
    req_id: str,
    referer: str = "-",
) -> str:
    """ingress-nginx's default `log-format-upstream`."""

    def dash(v: object) -> str:
        return "-" if v is None else str(v)

    ut = "-" if upstream_time is None else f"{upstream_time:.3f}"
    return (
        f'{client} - - [{nginx_time_local(ts)}] "{method} {path} HTTP/1.1" {status} {body_bytes} "{referer}" '
        f'"{user_agent}" {request_length} {request_time:.3f} [{upstream_name}] [] {dash(upstream_addr)} '
        f"{dash(upstream_length)} {ut} {dash(upstream_status)} {req_id}"
    )


def nginx_error(ts: datetime, *, level: str, worker: int, conn: int, msg: str) -> str:
    return f"{nginx_err_time(ts)} [{level}] {worker}#{worker}: *{conn} {msg}"


ERROR_PAGE = {
    429: "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many "
    "Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    502: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
    "</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    504: "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway "
    "Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
}


def fullname(release: str) -> str:
    """The Helm chart's fullname: `<release>-ingress-nginx` unless the release already says it."""
    return release if "ingress-nginx" in release else f"{release}-ingress-nginx"


def controller_args(release: str, extra: list[str] | None = None) -> list[str]:
    full = fullname(release)
    return [
        "/nginx-ingress-controller",
        f"--publish-service=$(POD_NAMESPACE)/{full}-controller",
        f"--election-id={full}-leader",
        f"--controller-class={CTRL_CLASS}",
        "--ingress-class=nginx",
        f"--configmap=$(POD_NAMESPACE)/{full}-controller",
        "--validating-webhook=:8443",
        "--validating-webhook-certificate=/usr/local/certificates/cert",
        "--validating-webhook-key=/usr/local/certificates/key",
        "--enable-metrics=true",
        *(extra or []),
    ]


def nginx_controller(
    p: Pack,
    *,
    release: str,
    namespace: str,
    placement: list[tuple[k8s.Node, str]],
    extra_args: list[str] | None = None,
    config: dict[str, str],
    lb_ip: str,
    cluster_ip: str,
    lb_annotations: dict[str, str] | None = None,
    chart: str = "ingress-nginx-4.11.5",
) -> tuple[Tenant, list[dict[str, Any]]]:
    """The ingress-nginx controller Deployment (Helm chart labels), its ConfigMap and LoadBalancer Service."""
    full = fullname(release)
    labels = {
        "app.kubernetes.io/component": "controller",
        "app.kubernetes.io/instance": release,
        "app.kubernetes.io/name": "ingress-nginx",
    }
    t = tenant(
        p,
        name=f"{full}-controller",
        namespace=namespace,
        image=NGINX_IMAGE,
        args=controller_args(release, extra_args),
        placement=placement,
        container="controller",
        port=80,
        labels=labels,
        cpu="500m",
        memory="512Mi",
        memory_limit="1Gi",
        age_days=160,
        revision=14,
        env=[
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "LD_PRELOAD", "value": "/usr/local/lib/libmimalloc.so"},
        ],
        cluster_ip=cluster_ip,
        readiness={
            "httpGet": {"path": "/healthz", "port": 10254, "scheme": "HTTP"},
            "periodSeconds": 10,
            "failureThreshold": 3,
        },
        liveness={
            "httpGet": {"path": "/healthz", "port": 10254, "scheme": "HTTP"},
            "initialDelaySeconds": 10,
            "periodSeconds": 10,
            "failureThreshold": 5,
        },
        metrics_port=10254,
        extra_ports=[
            {"containerPort": 443, "name": "https", "protocol": "TCP"},
            {"containerPort": 8443, "name": "webhook", "protocol": "TCP"},
        ],
        service_account=full,
        change_cause=None,
    )
    t.w.annotations = {
        "meta.helm.sh/release-name": release,
        "meta.helm.sh/release-namespace": namespace,
    }
    t.w.labels = dict(labels)
    cm = k8s.configmap(
        name=f"{full}-controller",
        namespace=namespace,
        data=config,
        created=p.as_of - timedelta(days=160),
        labels={**labels, "helm.sh/chart": chart, "app.kubernetes.io/managed-by": "Helm"},
    )
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": f"{full}-controller",
            "namespace": namespace,
            "labels": {**labels, "helm.sh/chart": chart, "app.kubernetes.io/managed-by": "Helm"},
            "annotations": dict(lb_annotations or {}),
            "creationTimestamp": iso(p.as_of - timedelta(days=160)),
        },
        "spec": {
            "type": "LoadBalancer",
            "clusterIP": cluster_ip,
            "clusterIPs": [cluster_ip],
            "externalTrafficPolicy": "Local",
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ports": [
                {"name": "http", "port": 80, "protocol": "TCP", "targetPort": "http", "nodePort": 31080},
                {"name": "https", "port": 443, "protocol": "TCP", "targetPort": "https", "nodePort": 31443},
            ],
            "selector": dict(labels),
            "sessionAffinity": "None",
        },
        "status": {"loadBalancer": {"ingress": [{"ip": lb_ip, "ipMode": "VIP"}]}},
    }
    metrics_svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": f"{full}-controller-metrics",
            "namespace": namespace,
            "labels": {**labels, "helm.sh/chart": chart, "app.kubernetes.io/managed-by": "Helm"},
            "creationTimestamp": iso(p.as_of - timedelta(days=160)),
        },
        "spec": {
            "type": "ClusterIP",
            "clusterIP": "None",
            "ports": [{"name": "metrics", "port": 10254, "protocol": "TCP", "targetPort": "metrics"}],
            "selector": dict(labels),
        },
        "status": {"loadBalancer": {}},
    }
    return t, [cm, svc, metrics_svc]


def ingress(
    *,
    name: str,
    namespace: str,
    host: str,
    service: str,
    port: int,
    created: datetime,
    annotations: dict[str, str],
    labels: dict[str, str],
    generation: int,
    lb_ip: str,
    path: str = "/",
    path_type: str = "Prefix",
    tls_secret: str | None = None,
    uid: str = "",
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "ingressClassName": "nginx",
        "rules": [
            {
                "host": host,
                "http": {
                    "paths": [
                        {
                            "path": path,
                            "pathType": path_type,
                            "backend": {"service": {"name": service, "port": {"number": port}}},
                        }
                    ]
                },
            }
        ],
    }
    if tls_secret:
        spec["tls"] = [{"hosts": [host], "secretName": tls_secret}]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "generation": generation,
            "resourceVersion": str(40_000_000 + generation * 131),
            "creationTimestamp": iso(created),
            "labels": dict(labels),
            "annotations": dict(annotations),
        },
        "spec": spec,
        "status": {"loadBalancer": {"ingress": [{"ip": lb_ip}]}},
    }


def nginx_labels(
    *,
    release: str,
    ctrl_ns: str,
    ctrl_pod: str,
    ctrl_ip: str,
    honor: bool,
    ingress_name: str | None = None,
    namespace: str | None = None,
    service: str | None = None,
    host: str | None = None,
    path: str | None = None,
    method: str | None = None,
) -> dict[str, str]:
    """ingress-nginx's labels plus the ServiceMonitor's target labels.

    With `honorLabels: true` the exporter's `namespace`/`service` win; without it Prometheus keeps the
    target's (the controller's namespace and metrics Service) and renames the exporter's to
    `exported_namespace`/`exported_service` (kube-prometheus-stack's default).
    """
    lab = {
        "container": "controller",
        "controller_class": CTRL_CLASS,
        "controller_namespace": ctrl_ns,
        "controller_pod": ctrl_pod,
        "endpoint": "metrics",
        "instance": f"{ctrl_ip}:10254",
        "job": f"{fullname(release)}-controller-metrics",
        "pod": ctrl_pod,
    }
    if honor:
        lab["namespace"] = namespace if namespace is not None else ctrl_ns
        lab["service"] = service if service is not None else f"{fullname(release)}-controller-metrics"
    else:
        lab["namespace"] = ctrl_ns
        lab["service"] = f"{fullname(release)}-controller-metrics"
        if namespace is not None:
            lab["exported_namespace"] = namespace
        if service is not None:
            lab["exported_service"] = service
    if ingress_name is not None:
        lab.update(
            {
                "canary": "",
                "host": host or "",
                "ingress": ingress_name,
                "method": method or "POST",
                "path": path or "/",
            }
        )
    return lab


def nginx_requests(
    om: OpenMetrics,
    *,
    release: str,
    ctrl: list[tuple[str, str]],
    ctrl_ns: str,
    honor: bool,
    ingress_name: str,
    namespace: str,
    service: str,
    host: str,
    path: str,
    method: str,
    codes: list[dict[int, Series]],
    uptime_min: float,
    seen_before: dict[int, float] | None = None,
) -> None:
    """`nginx_ingress_controller_requests` (client_golang counter without `_total`: declared unknown)."""
    for (pod, ip), per_code in zip(ctrl, codes, strict=True):
        base = nginx_labels(
            release=release,
            ctrl_ns=ctrl_ns,
            ctrl_pod=pod,
            ctrl_ip=ip,
            honor=honor,
            ingress_name=ingress_name,
            namespace=namespace,
            service=service,
            host=host,
            path=path,
            method=method,
        )
        for code, inc in sorted(per_code.items()):
            ints = inc.ints()
            prior = (seen_before or {}).get(code)
            if prior is not None:  # each controller pod has its own history
                prior *= 0.85 + 0.3 * (stable_int(f"{pod}/{code}") % 1000) / 1000
            init = float(round(ints[0] * uptime_min)) if prior is None else float(round(prior))
            om.counter(
                "nginx_ingress_controller_requests",
                "The total number of client requests",
                {**base, "status": str(code)},
                ints,
                initial=init,
                total_suffix=False,
            )


def nginx_controller_metrics(
    om: OpenMetrics,
    clock: Clock,
    *,
    release: str,
    ctrl: list[tuple[str, str]],
    ctrl_ns: str,
    honor: bool,
    reloads: list[datetime],
    hashes: tuple[float, float],
    change: datetime,
    reloads_before: int,
    last_reload_before: datetime,
) -> None:
    """Reload bookkeeping of each controller pod: config hash, last successful reload, reload count."""
    k = clock.idx(change)
    for j, (pod, ip) in enumerate(ctrl):
        lab = nginx_labels(release=release, ctrl_ns=ctrl_ns, ctrl_pod=pod, ctrl_ip=ip, honor=honor)
        om.gauge(
            "nginx_ingress_controller_config_hash",
            "Running configuration hash actually running",
            lab,
            Series(hashes[0] if i < k else hashes[1] for i in range(clock.n)),
            digits=20,
        )
        stamps = Series()
        count = Series()
        for i in range(clock.n):
            done = [r for r in reloads if r <= clock.at(i)]
            stamps.append(float(int((done[-1] if done else last_reload_before).timestamp())))
            count.append(float(len(done)))
        om.gauge(
            "nginx_ingress_controller_config_last_reload_successful_timestamp_seconds",
            "Timestamp of the last successful configuration reload.",
            lab,
            stamps,
        )
        incs = Series([0.0, *(count[i] - count[i - 1] for i in range(1, clock.n))])
        om.counter(
            "nginx_ingress_controller_success",
            "Cumulative number of Ingress controller reload operations",
            lab,
            incs,
            initial=float(reloads_before + j * 2),
            total_suffix=False,
        )


def controller_reload_logs(
    p: Pack,
    *,
    srcs: list[Source],
    ctrl_pods: list[str],
    ctrl_uids: list[str],
    ctrl_ns: str,
    ing_ns: str,
    ing_name: str,
    ing_uid: str,
    ing_rv: str,
    at: datetime,
    diff: Callable[[datetime, int], str],
    admission_pod: int = 0,
) -> None:
    """What each controller logs when an Ingress changes: admission, Sync event, the nginx.conf diff, reload."""
    rng = p.rng
    adm = srcs[admission_pod]
    t0 = at - timedelta(microseconds=rng.randint(300_000, 900_000))
    p.logs.add(
        ecs(
            t0,
            klog(
                t0,
                "admission.go:149",
                "processed ingress via admission controller {testedIngressLength:1 testedIngressTime:0.071s "
                "renderingIngressLength:1 renderingIngressTime:0.001s admissionTime:0.072s "
                "testedConfigurationSize:31.4kB}",
            ),
            adm,
        )
    )
    p.logs.add(
        ecs(
            t0 + timedelta(microseconds=340),
            klog(
                t0 + timedelta(microseconds=340),
                "main.go:107",
                f'"successfully validated configuration, accepting" ingress="{ing_ns}/{ing_name}"',
            ),
            adm,
        )
    )
    for j, src in enumerate(srcs):
        t = at + timedelta(microseconds=rng.randint(5_000, 60_000))
        p.logs.add(
            ecs(
                t,
                klog(
                    t,
                    "event.go:377",
                    f'Event(v1.ObjectReference{{Kind:"Ingress", Namespace:"{ing_ns}", Name:"{ing_name}", '
                    f'UID:"{ing_uid}", APIVersion:"networking.k8s.io/v1", ResourceVersion:"{ing_rv}", '
                    "FieldPath:\"\"}): type: 'Normal' reason: 'Sync' Scheduled for sync",
                ),
                src,
            )
        )
        t += timedelta(microseconds=rng.randint(60_000, 140_000))
        p.logs.add(
            ecs(
                t,
                klog(t, "controller.go:214", '"Configuration changes detected, backend reload required"'),
                src,
            )
        )
        t += timedelta(microseconds=rng.randint(20_000, 40_000))
        p.logs.add(
            ecs(
                t, klog(t, "nginx.go:831", f'"NGINX configuration change" diff={json.dumps(diff(t, j))}'), src
            )
        )
        t += timedelta(microseconds=rng.randint(80_000, 160_000))
        p.logs.add(ecs(t, klog(t, "controller.go:228", '"Backend successfully reloaded"'), src))
        t += timedelta(microseconds=rng.randint(100, 400))
        p.logs.add(
            ecs(
                t,
                klog(
                    t,
                    "event.go:377",
                    f'Event(v1.ObjectReference{{Kind:"Pod", Namespace:"{ctrl_ns}", Name:"{ctrl_pods[j]}", '
                    f'UID:"{ctrl_uids[j]}", APIVersion:"v1", ResourceVersion:"{38_000_000 + j * 7717}", '
                    "FieldPath:\"\"}): type: 'Normal' reason: 'RELOAD' NGINX reload triggered due to a change in "
                    "configuration",
                ),
                src,
            )
        )


def conf_diff(
    hunks: list[str], checksums: tuple[int, int], *, changed_at: list[datetime]
) -> Callable[[datetime, int], str]:
    """`diff -u /etc/nginx/nginx.conf /tmp/new-nginx-cfg...` as ingress-nginx logs it at --v=2 (per pod)."""

    def render(at: datetime, j: int) -> str:
        old, tmp = changed_at[j], 1_000_000_000 + stable_int(f"{checksums[1]}/{j}") % 3_000_000_000
        return head(old, at, tmp) + "".join(hunks)

    def head(old: datetime, at: datetime, tmp: int) -> str:
        return (
            f"--- /etc/nginx/nginx.conf\t{old.strftime('%Y-%m-%d %H:%M:%S')}.{old.microsecond:06d}000 +0000\n"
            f"+++ /tmp/new-nginx-cfg{tmp}\t{at.strftime('%Y-%m-%d %H:%M:%S')}.{at.microsecond:06d}000 +0000\n"
            "@@ -1,5 +1,5 @@\n \n"
            f"-# Configuration checksum: {checksums[0]}\n"
            f"+# Configuration checksum: {checksums[1]}\n \n"
            " # setup custom paths that do not require root access\n"
            " pid /tmp/nginx/nginx.pid;\n"
        )

    return render


def zone_id(zone: str) -> str:
    return base64.urlsafe_b64encode(zone.encode()).decode().replace("=", "")


def pyrra_url(base: str, slo: str) -> str:
    return f"{base.rstrip('/')}/objectives?" + urlencode(
        {"expr": f'{{__name__="{slo}"}}', "from": "now-1h", "to": "now"}
    )


def minute_fraction_after(c: Clock, i: int, t: datetime) -> float:
    """Share of the minute (at(i-1), at(i)] that lies after `t` (series[i] counts that minute)."""
    lo, hi = c.at(i) - timedelta(minutes=1), c.at(i)
    if t <= lo:
        return 1.0
    if t >= hi:
        return 0.0
    return (hi - t).total_seconds() / 60.0


# =====================================================================================================
# The pack
# =====================================================================================================
CTRL_NS = "care-edge"
RELEASE = "care-edge"
NS = "care-chat"
HOST = "care-api.fabrikam-care.com"
MODEL = "granite-3.3-8b-care"
SLO = "care-chat-api-availability"
OBJECTIVE = 0.999
WORKER_UA = "care-case-summarizer/2.3.1 OpenAI/Python 1.99.9"
AGENT_UA = "care-agent-bff/5.14.0 OpenAI/Python 1.97.1"


def build() -> Pack:
    p = ScopedPack(
        NAME,
        as_of="2026-09-03T14:32:00Z",
        namespace=NS,
        seed=1919,
        description="Care chat API: the availability SLO pages; agents report that case summaries fail.",
    )
    c, rng = p.clock, p.rng
    t_roll = p.t("13:41:10")
    t_change = p.t("14:06:40")
    first_cut = t_change + timedelta(seconds=30, milliseconds=400)

    # --- nodes (AKS) ----------------------------------------------------------------------------------
    aks = dict(
        kernel="5.15.0-1079-azure",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.30.9",
        runtime="containerd://1.7.25-1",
        driver="550.144.03",
    )
    gpu_nodes = {}
    for suffix, ip in (
        ("000004", "10.224.0.14"),
        ("000006", "10.224.0.16"),
        ("000009", "10.224.0.19"),
    ):
        name = f"aks-a100care-17602834-vmss{suffix}"
        node, devs = p.gpu_node(
            name,
            ip=ip,
            zone=f"westeurope-{1 + len(gpu_nodes) % 3}",
            instance_type="Standard_NC48ads_A100_v4",
            product="NVIDIA A100-SXM4-80GB",
            count=2,
            pod_cidr=f"10.244.{len(gpu_nodes) + 2}.0/24",
            cpu=48,
            memory_mi=450_560,
            **aks,
        )
        node.labels.update(
            {
                "topology.kubernetes.io/region": "westeurope",
                "agentpool": "a100care",
                "kubernetes.azure.com/agentpool": "a100care",
                "kubernetes.azure.com/accelerator": "nvidia",
                "kubernetes.azure.com/mode": "user",
                "nvidia.com/gpu.product": "NVIDIA-A100-80GB-PCIe",
            }
        )
        node.taints = [{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]
        gpu_nodes[name] = (node, devs)
    gnames = list(gpu_nodes)
    sys_nodes = []
    for j, ip in enumerate(("10.224.0.4", "10.224.0.5", "10.224.0.6")):
        n = cpu_node(
            p,
            f"aks-system-17602834-vmss00000{j}",
            ip,
            zone=f"westeurope-{1 + j}",
            instance_type="Standard_D8ds_v5",
            cidr=f"10.244.{20 + j}.0/24",
            kernel="5.15.0-1079-azure",
            os_image="Ubuntu 22.04.5 LTS",
            kubelet_version="v1.30.9",
            runtime="containerd://1.7.25-1",
        )
        n.labels.update(
            {
                "topology.kubernetes.io/region": "westeurope",
                "agentpool": "system",
                "kubernetes.azure.com/agentpool": "system",
                "kubernetes.azure.com/mode": "system",
            }
        )
        sys_nodes.append(n)

    # --- the engine: vLLM, with a clean rollout at 13:41 ---------------------------------------------------
    base_args = [
        "--model",
        "/models/ibm-granite/granite-3.3-8b-instruct",
        "--served-model-name",
        MODEL,
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.92",
        "--max-num-seqs",
        "96",
        "--enable-prefix-caching",
    ]
    env = [{"name": "HF_HUB_OFFLINE", "value": "1"}, {"name": "VLLM_LOGGING_LEVEL", "value": "INFO"}]
    rev6 = p.revision(
        6,
        p.ago(days=23, hours=4),
        "vllm/vllm-openai:v0.10.1.1",
        [*base_args, "--disable-log-requests"],
        env=env,
        change_cause="granite-3.3-8b care fine-tune r4 (CARE-3980)",
    )
    rev7 = p.revision(
        7,
        t_roll,
        "vllm/vllm-openai:v0.10.2",
        [*base_args, "--enable-log-requests"],
        env=env,
        replicas=2,
        change_cause="vllm 0.10.2; request logging on for the summary latency review (CARE-4127)",
    )
    w = k8s.Workload(
        name="vllm-granite33-8b-care",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "vllm-granite33-8b-care", "app.kubernetes.io/part-of": "care-chat"},
        revisions=[rev6, rev7],
        pods=[],
        created=p.ago(days=96),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 3},
        startup={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 60},
        uid=k8s.new_uid(rng),
        memory="96Gi",
        memory_limit="120Gi",
        cpu="12",
        cluster_ip="10.0.148.20",
        tolerations=[
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
        ],
        node_selector={"kubernetes.azure.com/agentpool": "a100care"},
        volumes=[
            {"name": "models", "persistentVolumeClaim": {"claimName": "care-models-azurefile"}},
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        pod_annotations={"prometheus.io/scrape": "true", "prometheus.io/port": "8000"},
        progressing=("True", "NewReplicaSetAvailable", p.t("13:44:52")),
    )
    fleet = Fleet(p, w, job=f"{NS}/vllm-granite33-8b-care", model=MODEL, service="")
    sched = [(p.t("13:41:10"), p.t("13:42:58")), (p.t("13:43:02"), p.t("13:44:51"))]
    load = dict(prompt_len=2700, gen_len=820, ttft=0.21, itl=0.018, kv=0.46, util=64, fb_used=74_950)
    olds: list[Member] = []
    news: list[Member] = []
    for j, (_, ready) in enumerate(sched):
        node, devs = gpu_nodes[gnames[j]]
        olds.append(
            fleet.add(
                rev6,
                node,
                [devs[0]],
                f"10.244.{2 + j}.{31 + 7 * j}",
                deleted=ready + timedelta(seconds=4),
                rpm=190,
                **load,
            )
        )
    for j, (created, ready) in enumerate(sched):
        node, devs = gpu_nodes[gnames[j]]
        news.append(
            fleet.add(
                rev7,
                node,
                [devs[1]],
                f"10.244.{2 + j}.{118 + 9 * j}",
                created=created,
                ready_after=ready - created,
                rpm=190,
                **load,
            )
        )
    for m in olds:
        m.info = None

    # --- traffic: streaming chats and non-streaming case summaries --------------------------------------------
    wob = diurnal(c, rng, 0.05)
    chat = noisy(flat(c, 300.0) * wob, rng, 0.04)
    summ = noisy(flat(c, 78.0) * wob, rng, 0.07)
    after = Series(minute_fraction_after(c, i, first_cut) for i in range(c.n))
    ok_summ_share = 0.06  # summaries that finish under 30 s
    ok_total = Series(
        chat[i] + summ[i] * (1 - after[i]) + summ[i] * after[i] * ok_summ_share for i in range(c.n)
    )
    cut_total = Series(
        summ[i] * after[i] * (1 - ok_summ_share) * 2 for i in range(c.n)
    )  # OpenAI client: max_retries=1
    client_closed = noisy(flat(c, 0.7), rng, 0.5)
    bad_gw = flat(c, 0.0)
    for m in olds:  # streams still open when the old pods go away
        bad_gw[c.idx(m.deleted) if m.deleted else 0] += float(rng.randint(3, 4))
    ok_by_pod: dict[str, Series] = {m.name: flat(c, 0.0) for m in fleet.members}
    cut_by_pod: dict[str, Series] = {m.name: flat(c, 0.0) for m in fleet.members}
    for i in range(c.n):
        up = [m for m in fleet.members if m.timeline.ready[i] and m.rep.present[i]]
        for m in up:
            share = (1 / len(up)) * (1 + rng.gauss(0, 0.03))
            ok_by_pod[m.name][i] = float(round(ok_total[i] * share))
            cut_by_pod[m.name][i] = float(round(cut_total[i] * share))
    for m in fleet.members:
        r = m.rep
        r.codes[200] = ok_by_pod[m.name]
        cut = cut_by_pod[m.name]
        r.served_s = r.codes[200] + cut
        m.notes["cut"] = cut
        conc = Series()
        gl = Series()
        for i in range(c.n):
            if not r.present[i] or r.codes[200][i] <= 0:
                conc.append(0.0)
                gl.append(r.gen_len[i])
                continue
            frac_s = (summ[i] / (chat[i] + summ[i])) * (1 - after[i])
            ok_i = r.codes[200][i]
            chat_i = ok_i * (chat[i] / ok_total[i])
            summ_ok_i = ok_i - chat_i
            # tokens of aborted attempts are generated too (and counted by vLLM)
            gl.append((chat_i * 350 + summ_ok_i * (2600 if after[i] < 1 else 1500) + cut[i] * 1650) / ok_i)
            rps = (ok_i + cut[i]) / 60.0
            mean_e2e = (
                8.0 * (1 - frac_s) + 47.0 * frac_s
                if after[i] < 1
                else (ok_i * 8.4 + cut[i] * 30.0) / (ok_i + cut[i])
            )
            conc.append(float(round(rps * mean_e2e * rng.uniform(0.95, 1.05))))
        r.gen_len = gl
        r.running = conc
        r.kv = Series(min(0.9, 0.05 + 0.0082 * v) + rng.uniform(-0.01, 0.01) if v else 0.0 for v in conc)
        r.waiting = Series(float(rng.choice([0, 0, 0, 0, 1])) if r.present[i] else 0.0 for i in range(c.n))
        for g in m.gpus:
            g.util = Series(
                float(min(88, round(12 + 0.95 * conc[i] + rng.uniform(-2, 2)))) if conc[i] else g.util[i]
                for i in range(c.n)
            )
            g.power = Series(
                round(95 + 2.9 * g.util[i] + rng.uniform(-6, 6), 3) if conc[i] else g.power[i]
                for i in range(c.n)
            )

    # --- metrics: vLLM, DCGM, kube-state-metrics -------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    p.om.families.pop("vllm:time_to_first_token_seconds")  # not kept by the recording (size)
    for m in fleet.members:
        lab = ex.scrape_labels(m.rep, engine="0")
        p.om.counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            {**lab, "finished_reason": "abort"},
            m.notes["cut"],
            present=m.rep.present,
            resets=m.rep.resets,
            initial=0.0 if m in news else float(rng.randint(150, 400)),
        )

    # tenants of the cluster ------------------------------------------------------------------------------------
    asr_node, asr_devs = gpu_nodes[gnames[2]]
    asr = tenant(
        p,
        name="whisper-large-v3-asr",
        namespace="care-voice-asr",
        image="fabrikamcare.azurecr.io/voice/faster-whisper-server:0.6.2-cuda12",
        args=["--model", "large-v3", "--compute-type", "float16", "--port", "9000"],
        placement=[(asr_node, "10.244.4.57")],
        container="asr",
        port=9000,
        gpus=1,
        gpu_uuids=[[asr_devs[0].uuid]],
        cpu="6",
        memory="24Gi",
        memory_limit="32Gi",
        age_days=41,
        revision=9,
        cluster_ip="10.0.61.90",
        readiness={"httpGet": {"path": "/health", "port": 9000}, "periodSeconds": 10},
        node_selector={"kubernetes.azure.com/agentpool": "a100care"},
    )
    asr.w.tolerations = [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
    ]
    bff = tenant(
        p,
        name="care-agent-bff",
        namespace="care-agent-desk",
        image="fabrikamcare.azurecr.io/desk/care-agent-bff:5.14.0",
        args=["--port", "8080"],
        placement=[
            (sys_nodes[0], "10.244.20.41"),
            (sys_nodes[2], "10.244.22.63"),
        ],
        container="bff",
        port=8080,
        age_days=12,
        revision=58,
        cluster_ip="10.0.33.141",
        readiness={"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
    )
    worker = tenant(
        p,
        name="case-summary-worker",
        namespace="care-crm-sync",
        image="fabrikamcare.azurecr.io/crm/case-summary-worker:2.3.1",
        args=["--queue", "case-summaries", "--concurrency", "48"],
        placement=[(sys_nodes[1], "10.244.21.77"), (sys_nodes[2], "10.244.22.12")],
        container="worker",
        port=8081,
        age_days=9,
        revision=21,
        env=[
            {"name": "LLM_BASE_URL", "value": f"https://{HOST}/v1"},
            {"name": "LLM_MODEL", "value": MODEL},
            {"name": "LLM_STREAM", "value": "false"},
            {"name": "LLM_MAX_RETRIES", "value": "1"},
            {"name": "LLM_TIMEOUT_S", "value": "180"},
        ],
        cluster_ip="10.0.90.17",
    )
    indexer = tenant(
        p,
        name="kb-article-indexer",
        namespace="care-kb",
        image="fabrikamcare.azurecr.io/kb/article-indexer:1.8.0",
        args=["--source", "sharepoint", "--sink", "azure-ai-search"],
        placement=[(sys_nodes[2], "10.244.22.90")],
        container="indexer",
        port=8090,
        age_days=6,
        revision=4,
        cluster_ip="10.0.77.12",
    )
    indexer_restarts = crashlooping(p, indexer, 0)
    ctrl, ctrl_objs = nginx_controller(
        p,
        release=RELEASE,
        namespace=CTRL_NS,
        placement=[(sys_nodes[0], "10.244.20.9"), (sys_nodes[1], "10.244.21.8")],
        extra_args=["--v=2"],
        config={
            "allow-snippet-annotations": "false",
            "use-forwarded-headers": "true",
            "proxy-body-size": "16m",
            "proxy-buffering": "off",
            "proxy-read-timeout": "60",
            "proxy-send-timeout": "60",
            "keep-alive-requests": "10000",
            "upstream-keepalive-timeout": "60",
            "enable-opentelemetry": "false",
        },
        lb_ip="10.224.8.200",
        cluster_ip="10.0.12.200",
        lb_annotations={"service.beta.kubernetes.io/azure-load-balancer-internal": "true"},
    )
    ctrl_pods = [(pi.name, pi.ip or "") for pi in ctrl.pods]

    gpus_all = fleet.gpu_series() + idle_gaps(p, fleet.gpu_series())
    gpus_all += dcgm_busy(
        p,
        [asr_devs[0]],
        util=31,
        fb=14_820,
        pod=asr.pods[0].name,
        namespace="care-voice-asr",
        container="asr",
    )
    gpus_all += dcgm_idle(p, [asr_devs[1]])
    ex.dcgm(p.om, gpus_all, driver="550.144.03")
    # (the recording keeps kube-state-metrics series of the incident, the edge and two neighbours)
    ex.ksm_pods(p.om, fleet.timelines() + asr.timelines + indexer.timelines + ctrl.timelines)
    ex.ksm_nodes(
        p.om,
        [node_timeline(c, n, gpus=2, internal_ip=nd.internal_ip) for n, (nd, _) in gpu_nodes.items()]
        + [node_timeline(c, n.name, internal_ip=n.internal_ip) for n in sys_nodes],
    )
    k_roll = c.idx(t_roll)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=w.name,
        spec=flat(c, 2),
        available=fleet.ready_count().minimum(2),
        updated=Series(float(sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)),
        generation=Series(11.0 if i < k_roll else 12.0 for i in range(c.n)),
    )
    for tn in (asr, indexer, ctrl):
        avail = flat(c, float(len(tn.pods)))
        if tn is indexer:
            avail = flat(c, 0.0)
        ex.ksm_deployment(
            p.om, namespace=tn.w.namespace, name=tn.w.name, spec=flat(c, float(len(tn.pods))), available=avail
        )

    # --- ingress-nginx: requests per status, reloads ----------------------------------------------------------
    def split(s: Series) -> list[Series]:
        a = Series(float(round(v * rng.uniform(0.47, 0.53))) for v in s.ints())
        return [a, s.ints() - a]

    ok_split, cut_split = split(ok_total), split(cut_total)
    cc_split, bg_split = split(client_closed), split(bad_gw)
    per_ctrl = [{200: ok_split[j], 499: cc_split[j], 502: bg_split[j], 504: cut_split[j]} for j in range(2)]
    nginx_requests(
        p.om,
        release=RELEASE,
        ctrl=ctrl_pods,
        ctrl_ns=CTRL_NS,
        honor=True,
        ingress_name="care-chat-api",
        namespace=NS,
        service=w.name,
        host=HOST,
        path="/v1",
        method="POST",
        codes=per_ctrl,
        uptime_min=11_800,
        seen_before={499: 7_912, 502: 311, 504: 64},
    )
    portal_ok = noisy(flat(c, 520.0) * wob, rng, 0.05)
    portal_304 = noisy(flat(c, 140.0) * wob, rng, 0.08)
    nginx_requests(
        p.om,
        release=RELEASE,
        ctrl=ctrl_pods,
        ctrl_ns=CTRL_NS,
        honor=True,
        ingress_name="care-agent-desk",
        namespace="care-agent-desk",
        service="care-agent-bff",
        host="desk.fabrikam-care.com",
        path="/",
        method="GET",
        codes=[{200: a, 304: b} for a, b in zip(split(portal_ok), split(portal_304), strict=True)],
        uptime_min=11_800,
    )
    reload_at = t_change + timedelta(milliseconds=260)
    nginx_controller_metrics(
        p.om,
        c,
        release=RELEASE,
        ctrl=ctrl_pods,
        ctrl_ns=CTRL_NS,
        honor=True,
        reloads=[reload_at],
        hashes=(15712984530462181822.0, 4471920385512608371.0),
        change=reload_at,
        reloads_before=187,
        last_reload_before=p.t("09:12:33") - timedelta(days=1),
    )

    # --- Pyrra: burn-rate recordings and the ErrorBudgetBurn page --------------------------------------------
    total_req = ok_total.ints() + cut_total.ints() + client_closed.ints() + bad_gw.ints()
    bad = cut_total.ints() + bad_gw.ints()
    base_ratio = 0.00041
    base_total = sum(total_req[:10]) / 10
    sel = f'ingress="care-chat-api",namespace="{NS}",slo="{SLO}"'
    ident = {"ingress": "care-chat-api", "namespace": NS, "slo": SLO}
    rates: dict[str, Series] = {}
    for window, minutes in (
        ("5m", 4),
        ("30m", 29),
        ("1h", 59),
        ("2h", 119),
        ("6h", 359),
        ("1d", 1439),
        ("4d", 5759),
    ):
        vals = ex.windowed_ratio(bad, total_req, minutes, base_total * base_ratio, base_total)
        rates[window] = vals.map(lambda v: round(v, 10))
        p.om.gauge(
            f"nginx_ingress_controller_requests:burnrate{window}",
            f"Pyrra recording rule {SLO} (burnrate{window}).",
            ident,
            rates[window],
            digits=10,
        )
    p.om.gauge("pyrra_objective", "Pyrra objective of the SLO.", {"slo": SLO}, flat(c, OBJECTIVE))
    p.om.gauge("pyrra_window", "Pyrra window of the SLO in seconds.", {"slo": SLO}, flat(c, 2_419_200))
    for code, series, prior in (
        (200, ok_total.ints(), 0.0),
        (499, client_closed.ints(), 7_912.0),
        (502, bad_gw.ints(), 311.0),
        (504, cut_total.ints(), 64.0),
    ):
        base = float(round(series[0] * 40_320)) if code == 200 else prior
        cum = Series()
        acc = base
        for v in series:
            acc += v
            cum.append(float(round(acc)))
        p.om.gauge(
            "nginx_ingress_controller_requests:increase4w",
            f"Pyrra recording rule {SLO}-increase.",
            {**ident, "status": str(code)},
            cum,
        )
    budget = 1 - OBJECTIVE
    cond = [rates["5m"][i] > 14 * budget and rates["1h"][i] > 14 * budget for i in range(c.n)]
    expr = (
        f"nginx_ingress_controller_requests:burnrate5m{{{sel}}} > (14 * (1 - 0.999)) and "
        f"nginx_ingress_controller_requests:burnrate1h{{{sel}}} > (14 * (1 - 0.999))"
    )
    fire = threshold_alert(
        p,
        expr=expr,
        condition=cond,
        value=rates["5m"],
        for_minutes=2,
        labels={
            "alertname": "ErrorBudgetBurn",
            "exhaustion": "2d",
            "ingress": "care-chat-api",
            "long": "1h",
            "namespace": NS,
            "severity": "critical",
            "short": "5m",
            "slo": SLO,
            "team": "care-platform",
        },
        summary="Care chat API is burning its availability error budget (99.9% over 28d).",
        description="Share of 5xx answers of the care chat API at the edge; Pyrra multi-window burn rate 14x.",
        prometheus="http://prometheus-k8s.care-monitoring.svc:9090",
        alertmanager="http://alertmanager-main.care-monitoring.svc:9093",
        value_format="{!r}",
        delay_s=31,
        route='{}/{severity="critical"}',
        group_by=("alertname", "slo"),
    )
    ann = p.alert["alerts"][0]["annotations"]  # type: ignore[index]
    ann["value"] = repr(rates["5m"][fire])
    ann["pyrra_url"] = pyrra_url("http://pyrra.care-monitoring.svc:9099", SLO)
    p.alert["commonAnnotations"] = dict(ann)  # type: ignore[index]

    # --- logs --------------------------------------------------------------------------------------------
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=[ip for _, ip in ctrl_pods], every=4)
        vllm_stats(p, m, every=3)
    granite_cfg = (
        "GraniteForCausalLM|model='/models/ibm-granite/granite-3.3-8b-instruct', speculative_config=None, "
        "tokenizer='/models/ibm-granite/granite-3.3-8b-instruct', skip_tokenizer_init=False, tokenizer_mode=auto, "
        "revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, "
        "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
        "data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, "
        f"kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={MODEL}, enable_prefix_caching=True, "
        "chunked_prefill_enabled=True"
    )
    non_default = (
        "{'model': '/models/ibm-granite/granite-3.3-8b-instruct', 'enable_log_requests': True, "
        f"'max_model_len': 32768, 'served_model_name': ['{MODEL}'], 'gpu_memory_utilization': 0.92, "
        "'max_num_seqs': 96, 'enable_prefix_caching': True}"
    )
    for m in news:
        vllm_startup(
            p,
            m,
            version="0.10.2",
            model_path="/models/ibm-granite/granite-3.3-8b-instruct",
            served=MODEL,
            non_default=non_default,
            engine_config=granite_cfg,
            weights_gib=15.24,
            kv_gib=52.87,
            kv_tokens=346_512,
            max_len=32768,
        )
        cut = m.notes["cut"]
        for i in range(1, c.n):
            for _ in range(min(2, int(cut[i]))):
                lo = max(c.at(i - 1), first_cut)
                if lo >= c.at(i):
                    continue
                ts = lo + timedelta(seconds=rng.uniform(0.05, (c.at(i) - lo).total_seconds() - 0.05))
                vllm_line_doc(p, m, ts, "INFO", "async_llm.py:407", f"Aborted request(s) {p.ids.chatcmpl()}.")
    for m in olds:
        assert m.deleted is not None
        ts = m.deleted + timedelta(milliseconds=rng.randint(200, 700))
        src = src_of(m)
        p.logs.add(ecs(ts, "(APIServer pid=1) INFO:     Shutting down", src))
        p.logs.add(
            ecs(
                ts + timedelta(milliseconds=8),
                "(APIServer pid=1) INFO:     Waiting for connections to close. (CTRL+C to force quit)",
                src,
            )
        )
    # the controllers: access and error logs of the three ingresses, the 14:06 reload
    ctrl_srcs = [Source("ingress-nginx", CTRL_NS, pi.name, pi.node, "controller") for pi in ctrl.pods]
    upstream = f"{NS}-{w.name}-8000"
    conn_ids = [4_180_000 + rng.randint(0, 9000), 3_960_000 + rng.randint(0, 9000)]
    worker_ips = [pi.ip for pi in worker.pods]
    bff_ips = [pi.ip for pi in bff.pods]

    def engine_ip(i: int) -> str:
        live = [m for m in fleet.members if m.timeline.ready[min(i, c.n - 1)]]
        return f"{rng.choice(live or fleet.members).ip}:8000"

    for i in range(c.n - 1):
        minute = c.at(i)
        for j, src in enumerate(ctrl_srcs):
            conn_ids[j] += rng.randint(900, 1300)
            # sampled successes: a streaming chat, sometimes a summary (before the change)
            if i % 3 == j:
                ts = p.ids.within(minute)
                dur = rng.uniform(4.5, 13.0)
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=rng.choice(bff_ips) or "",
                            method="POST",
                            path="/v1/chat/completions",
                            status=200,
                            body_bytes=rng.randint(4_000, 19_000),
                            user_agent=AGENT_UA,
                            request_length=rng.randint(5_200, 9_800),
                            request_time=dur,
                            upstream_name=upstream,
                            upstream_addr=engine_ip(i),
                            upstream_length=rng.randint(4_000, 19_000),
                            upstream_time=dur - 0.001,
                            upstream_status=200,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=200,
                    )
                )
            if c.at(i + 1) <= first_cut and i % 3 == j:
                ts = p.ids.within(minute)
                dur = rng.lognormvariate(3.85, 0.18)
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=rng.choice(worker_ips) or "",
                            method="POST",
                            path="/v1/chat/completions",
                            status=200,
                            body_bytes=rng.randint(9_000, 14_000),
                            user_agent=WORKER_UA,
                            request_length=rng.randint(17_000, 31_000),
                            request_time=dur,
                            upstream_name=upstream,
                            upstream_addr=engine_ip(i),
                            upstream_length=rng.randint(9_000, 14_000),
                            upstream_time=dur - 0.001,
                            upstream_status=200,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=200,
                    )
                )
                if rng.random() < 0.5:
                    p.logs.add(
                        ecs(
                            ts - timedelta(seconds=dur),
                            nginx_error(
                                ts - timedelta(seconds=dur),
                                level="warn",
                                worker=29 + j,
                                conn=conn_ids[j] + rng.randint(0, 400),
                                msg=f"a client request body is buffered to a temporary file "
                                f"/tmp/nginx/client-body/00000{rng.randint(10000, 99999)}, client: "
                                f'{rng.choice(worker_ips)}, server: {HOST}, request: "POST /v1/chat/completions '
                                f'HTTP/1.1", host: "{HOST}"',
                            ),
                            src,
                            level="warn",
                        )
                    )
            # the 504s: every one of them at ~30.0 s
            n504 = int(per_ctrl[j][504][i + 1])
            for _ in range(min(1 + (i % 3 == 0), n504)):
                lo = max(0.0, (first_cut - minute).total_seconds())
                ts = p.ids.within(minute, min(59.0, lo))
                up = engine_ip(i + 1)
                client = rng.choice(worker_ips) or ""
                conn = conn_ids[j] + rng.randint(0, 800)
                p.logs.add(
                    ecs(
                        ts,
                        nginx_error(
                            ts,
                            level="error",
                            worker=29 + j,
                            conn=conn,
                            msg=f"upstream timed out (110: Operation timed out) while reading response header from "
                            f'upstream, client: {client}, server: {HOST}, request: "POST /v1/chat/completions '
                            f'HTTP/1.1", upstream: "http://{up}/v1/chat/completions", host: "{HOST}"',
                        ),
                        src,
                        level="error",
                        error_message="upstream timed out (110: Operation timed out) while reading response header from upstream",  # noqa: E501
                    )
                )
                p.logs.add(
                    ecs(
                        ts + timedelta(microseconds=rng.randint(200, 900)),
                        nginx_access(
                            ts,
                            client=client,
                            method="POST",
                            path="/v1/chat/completions",
                            status=504,
                            body_bytes=len(ERROR_PAGE[504]),
                            user_agent=WORKER_UA,
                            request_length=rng.randint(17_000, 31_000),
                            request_time=30.0 + rng.uniform(0.001, 0.004),
                            upstream_name=upstream,
                            upstream_addr=up,
                            upstream_length=0,
                            upstream_time=30.0 + rng.uniform(0.0, 0.002),
                            upstream_status=504,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=504,
                    )
                )
            n502 = int(per_ctrl[j][502][i + 1])
            for _ in range(n502):
                ts = p.ids.within(minute, 5.0)
                gone = [m for m in olds if m.deleted and c.idx(m.deleted) == i + 1]
                up = f"{(gone[0] if gone else olds[0]).ip}:8000"
                client = rng.choice(bff_ips) or ""
                p.logs.add(
                    ecs(
                        ts,
                        nginx_error(
                            ts,
                            level="error",
                            worker=29 + j,
                            conn=conn_ids[j] + rng.randint(0, 800),
                            msg=f"upstream prematurely closed connection while reading upstream, client: {client}, "
                            f'server: {HOST}, request: "POST /v1/chat/completions HTTP/1.1", upstream: '
                            f'"http://{up}/v1/chat/completions", host: "{HOST}"',
                        ),
                        src,
                        level="error",
                    )
                )
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=client,
                            method="POST",
                            path="/v1/chat/completions",
                            status=502,
                            body_bytes=rng.randint(900, 6000),
                            user_agent=AGENT_UA,
                            request_length=rng.randint(5_200, 9_800),
                            request_time=rng.uniform(3.0, 9.0),
                            upstream_name=upstream,
                            upstream_addr=up,
                            upstream_length=rng.randint(900, 6000),
                            upstream_time=rng.uniform(3.0, 9.0),
                            upstream_status=502,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=502,
                    )
                )
            # other ingresses on the same controllers
            if i % 4 == j:
                ts = p.ids.within(minute)
                path = rng.choice(["/api/cases?assigned=me", "/api/queue/stats", "/static/js/main.8f3c2a.js"])
                st = 304 if path.startswith("/static") else 200
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=f"10.224.{rng.randint(64, 90)}.{rng.randint(2, 250)}",
                            method="GET",
                            path=path,
                            status=st,
                            body_bytes=0 if st == 304 else rng.randint(800, 24_000),
                            user_agent="Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36 Edg/128.0.0.0",  # noqa: E501
                            request_length=rng.randint(700, 1400),
                            request_time=rng.uniform(0.004, 0.09),
                            upstream_name="care-agent-desk-care-agent-bff-8080",
                            upstream_addr=f"{rng.choice(bff_ips)}:8080",
                            upstream_length=0 if st == 304 else rng.randint(800, 24_000),
                            upstream_time=rng.uniform(0.003, 0.08),
                            upstream_status=st,
                            req_id=p.ids.hex(32),
                            referer="https://desk.fabrikam-care.com/queue",
                        ),
                        src,
                        status=st,
                    )
                )
            if i % 4 == j * 2:
                ts = p.ids.within(minute)
                dur = rng.uniform(1.2, 6.5)
                p.logs.add(
                    ecs(
                        ts,
                        nginx_access(
                            ts,
                            client=f"10.224.{rng.randint(64, 90)}.{rng.randint(2, 250)}",
                            method="POST",
                            path="/v1/audio/transcriptions",
                            status=200,
                            body_bytes=rng.randint(300, 2_400),
                            user_agent="care-voice-gw/1.9.4",
                            request_length=rng.randint(200_000, 900_000),
                            request_time=dur,
                            upstream_name="care-voice-asr-whisper-large-v3-asr-9000",
                            upstream_addr="10.244.4.57:9000",
                            upstream_length=rng.randint(300, 2_400),
                            upstream_time=dur - 0.002,
                            upstream_status=200,
                            req_id=p.ids.hex(32),
                        ),
                        src,
                        status=200,
                    )
                )
    ing_uid = k8s.new_uid(rng)
    desk_uid = k8s.new_uid(rng)
    ing_rv = "41877203"
    diff = conf_diff(
        [
            "@@ -1261,7 +1261,7 @@\n"
            " \t\t\t\n"
            " \t\t\tproxy_connect_timeout                   5s;\n"
            " \t\t\tproxy_send_timeout                      600s;\n"
            "-\t\t\tproxy_read_timeout                      600s;\n"
            "+\t\t\tproxy_read_timeout                      30s;\n"
            " \t\t\t\n"
            " \t\t\tproxy_buffering                         off;\n"
            " \t\t\tproxy_buffer_size                       4k;\n"
        ],
        (15712984530462181822, 4471920385512608371),
        changed_at=[
            p.t("09:12:33") - timedelta(days=1, microseconds=-418_337),
            p.t("09:12:33") - timedelta(days=1, microseconds=-497_912),
        ],
    )
    controller_reload_logs(
        p,
        srcs=ctrl_srcs,
        ctrl_pods=[pi.name for pi in ctrl.pods],
        ctrl_uids=[pi.uid for pi in ctrl.pods],
        ctrl_ns=CTRL_NS,
        ing_ns=NS,
        ing_name="care-chat-api",
        ing_uid=ing_uid,
        ing_rv=ing_rv,
        at=t_change,
        diff=diff,
    )
    # the caller: the CRM's case-summary worker (the openai client retries once)
    wsrcs = [Source("case-summary-worker", "care-crm-sync", pi.name, pi.node, "worker") for pi in worker.pods]
    for i in range(c.n - 1):
        minute = c.at(i)
        src = wsrcs[i % 2]
        if c.at(i + 1) <= first_cut:
            if i % 2 == 0:
                ts = p.ids.within(minute)
                took = rng.lognormvariate(3.85, 0.15)
                p.logs.add(
                    ecs(
                        ts,
                        f"INFO summary_worker.pipeline: case CS-2026-{rng.randint(900000, 999999)} summarized in "
                        f"{took:.1f}s (prompt_tokens={rng.randint(4800, 7600)}, completion_tokens={int(took * 55)}, "
                        f"model={MODEL})",
                        src,
                    )
                )
            continue
        for _ in range(2 if i % 2 else 1):
            ts = p.ids.within(minute, max(0.0, min(59.0, (first_cut - minute).total_seconds())))
            case = f"CS-2026-{rng.randint(900000, 999999)}"
            p.logs.add(
                ecs(
                    ts,
                    f"INFO openai._base_client: Retrying request to /chat/completions in {rng.uniform(0.38, 0.95):.6f} seconds",  # noqa: E501
                    src,
                )
            )
            t2 = ts + timedelta(seconds=30.9)
            msg = (
                "Error code: 504 - '<html>\\r\\n<head><title>504 Gateway Time-out</title></head>\\r\\n<body>\\r\\n"
                "<center><h1>504 Gateway Time-out</h1></center>\\r\\n<hr><center>nginx</center>\\r\\n</body>\\r\\n"
                "</html>\\r\\n'"
            )
            p.logs.add(
                ecs(
                    t2,
                    f"ERROR summary_worker.pipeline: case {case} summary failed after 2 attempts (61.8s): "
                    f"openai.InternalServerError: {msg}; requeued with delay 300s",
                    src,
                    level="error",
                    error_type="openai.InternalServerError",
                    error_message=msg,
                    status=504,
                )
            )
    # unrelated tenants
    isrc = Source("kb-article-indexer", "care-kb", indexer.pods[0].name, indexer.pods[0].node, "indexer")
    for r_at in indexer_restarts:
        for k_line, text in enumerate(
            (
                "INFO indexer.main: starting article indexer 1.8.0 (source=sharepoint, sink=azure-ai-search)",
                "ERROR indexer.main: fatal: AZURE_SEARCH_API_KEY is not set (secret care-kb/search-admin-key "
                "missing key 'api-key')",
            )
        ):
            ts = r_at + timedelta(seconds=1 + 3 * k_line, milliseconds=rng.randint(0, 900))
            if ts <= p.as_of:
                p.logs.add(ecs(ts, text, isrc, level="error" if k_line else "info"))
    asrc = Source("whisper-large-v3-asr", "care-voice-asr", asr.pods[0].name, asr.pods[0].node, "asr")
    for i in range(0, c.n - 1, 3):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f'INFO:     10.244.{20 + i % 2}.{9 - i % 2}:{rng.randint(32768, 60999)} - "POST /v1/audio/transcriptions HTTP/1.1" 200 OK',  # noqa: E501
                asrc,
                status=200,
            )
        )

    # --- events ----------------------------------------------------------------------------------------------
    ev: list[dict[str, Any]] = []
    old_rs, new_rs = f"{w.name}-{rev6.hash}", f"{w.name}-{rev7.hash}"
    for j, (created, ready) in enumerate(sched):
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Deployment",
                name=w.name,
                uid=w.uid,
                reason="ScalingReplicaSet",
                message=f"Scaled up replica set {new_rs} from {j} to {j + 1}",
                first=created,
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Deployment",
                name=w.name,
                uid=w.uid,
                reason="ScalingReplicaSet",
                message=f"Scaled down replica set {old_rs} from {2 - j} to {1 - j}",
                first=ready + timedelta(seconds=4),
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
    for m in news:
        for reason, msg, dt, warn, cnt in (
            ("Scheduled", f"Successfully assigned {NS}/{m.name} to {m.node.name}", 0, False, 1),
            ("Pulling", 'Pulling image "vllm/vllm-openai:v0.10.2"', 1, False, 1),
            (
                "Pulled",
                'Successfully pulled image "vllm/vllm-openai:v0.10.2" in 21.384s (21.384s including waiting). Image size: 9817734118 bytes.',  # noqa: E501
                22,
                False,
                1,
            ),
            ("Created", "Created container vllm", 23, False, 1),
            ("Started", "Started container vllm", 23, False, 1),
            (
                "Unhealthy",
                f'Startup probe failed: Get "http://{m.ip}:8000/health": dial tcp {m.ip}:8000: connect: connection refused',  # noqa: E501
                33,
                True,
                7,
            ),
        ):
            ev.append(
                k8s.event(
                    namespace=NS,
                    kind="Pod",
                    name=m.name,
                    uid=m.uid,
                    reason=reason,
                    message=msg,
                    first=m.created + timedelta(seconds=dt),
                    last=m.created + timedelta(seconds=dt + (cnt - 1) * 10),
                    count=cnt,
                    warning=warn,
                    component="default-scheduler" if reason == "Scheduled" else "kubelet",
                    host=None if reason == "Scheduled" else m.node.name,
                    field_path=None if reason == "Scheduled" else "spec.containers{vllm}",
                )
            )
    for j, pi in enumerate(ctrl.pods):
        ev.append(
            recurring(
                p,
                namespace=NS,
                kind="Ingress",
                name="care-chat-api",
                uid=ing_uid,
                reason="Sync",
                message="Scheduled for sync",
                first_ago=timedelta(days=58, hours=j),
                last=t_change + timedelta(milliseconds=30),
                count=9 + j,
                warning=False,
                component="nginx-ingress-controller",
                api_version="networking.k8s.io/v1",
            )
        )
        ev.append(
            recurring(
                p,
                namespace=CTRL_NS,
                kind="Pod",
                name=pi.name,
                uid=pi.uid,
                reason="RELOAD",
                message="NGINX reload triggered due to a change in configuration",
                first_ago=timedelta(days=57, hours=2 + j),
                last=reload_at + timedelta(milliseconds=180),
                count=187 + j * 2,
                warning=False,
                component="nginx-ingress-controller",
            )
        )
    ipod = indexer.pods[0]
    ev.append(
        recurring(
            p,
            namespace="care-kb",
            kind="Pod",
            name=ipod.name,
            uid=ipod.uid,
            reason="BackOff",
            message=f"Back-off restarting failed container indexer in pod {ipod.name}_care-kb({ipod.uid})",
            first_ago=timedelta(hours=5, minutes=14),
            last=indexer_restarts[-1] - timedelta(seconds=2),
            count=1184,
            host=ipod.node,
            field_path="spec.containers{indexer}",
        )
    )
    ev.append(
        recurring(
            p,
            namespace="care-kb",
            kind="Pod",
            name=ipod.name,
            uid=ipod.uid,
            reason="Pulled",
            message='Container image "fabrikamcare.azurecr.io/kb/article-indexer:1.8.0" already present on machine',
            first_ago=timedelta(hours=5, minutes=14),
            last=indexer_restarts[-1],
            count=62,
            warning=False,
            host=ipod.node,
            field_path="spec.containers{indexer}",
        )
    )
    for n in [*sys_nodes[:2], gpu_nodes[gnames[2]][0]]:
        ev.append(
            recurring(
                p,
                namespace="default",
                kind="Node",
                name=n.name,
                uid=n.uid,
                reason="DNSConfigForming",
                message="Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver "
                "line is: 168.63.129.16 10.0.0.10 10.224.0.2",
                first_ago=timedelta(days=13, hours=rng.randint(0, 20)),
                last=p.ago(minutes=rng.randint(1, 40)),
                count=rng.randint(2200, 5200),
                host=n.name,
            )
        )
    wpod = worker.pods[0]
    ev.append(
        recurring(
            p,
            namespace="care-crm-sync",
            kind="Pod",
            name=wpod.name,
            uid=wpod.uid,
            reason="Unhealthy",
            message=f'Liveness probe failed: Get "http://{wpod.ip}:8081/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',  # noqa: E501
            first_ago=timedelta(days=4, hours=3),
            last=p.ago(minutes=47),
            count=14,
            host=wpod.node,
            field_path="spec.containers{worker}",
        )
    )

    # --- objects ---------------------------------------------------------------------------------------------
    p.objects.extend(fleet.objects())
    ing_labels = {
        "app.kubernetes.io/instance": "care-chat-api",
        "app.kubernetes.io/managed-by": "Helm",
        "app.kubernetes.io/name": "care-chat-api",
        "helm.sh/chart": "care-service-lib-2.8.0",
    }
    p.objects.append(
        ingress(
            name="care-chat-api",
            namespace=NS,
            host=HOST,
            service=w.name,
            port=8000,
            path="/v1",
            created=p.ago(days=96),
            annotations={
                "meta.helm.sh/release-name": "care-chat-api",
                "meta.helm.sh/release-namespace": NS,
                "nginx.ingress.kubernetes.io/backend-protocol": "HTTP",
                "nginx.ingress.kubernetes.io/proxy-body-size": "16m",
                "nginx.ingress.kubernetes.io/proxy-buffering": "off",
                "nginx.ingress.kubernetes.io/proxy-connect-timeout": "5",
                "nginx.ingress.kubernetes.io/proxy-read-timeout": "30",
                "nginx.ingress.kubernetes.io/proxy-send-timeout": "600",
            },
            labels=ing_labels,
            generation=9,
            lb_ip="10.224.8.200",
            tls_secret="care-api-tls",
            uid=ing_uid,
        )
    )
    p.objects[-1]["metadata"]["resourceVersion"] = ing_rv
    p.objects.append(
        ingress(
            name="care-agent-desk",
            namespace="care-agent-desk",
            host="desk.fabrikam-care.com",
            service="care-agent-bff",
            port=8080,
            created=p.ago(days=88),
            annotations={
                "nginx.ingress.kubernetes.io/proxy-read-timeout": "30",
                "nginx.ingress.kubernetes.io/proxy-body-size": "4m",
            },
            labels={"app.kubernetes.io/name": "care-agent-desk", "helm.sh/chart": "care-service-lib-2.7.3"},
            generation=31,
            lb_ip="10.224.8.200",
            tls_secret="desk-tls",
            uid=desk_uid,
        )
    )
    p.objects.append(
        ingress(
            name="whisper-asr",
            namespace="care-voice-asr",
            host="asr.fabrikam-care.com",
            service="whisper-large-v3-asr",
            port=9000,
            path="/v1/audio",
            created=p.ago(days=41),
            annotations={
                "nginx.ingress.kubernetes.io/proxy-body-size": "64m",
                "nginx.ingress.kubernetes.io/proxy-read-timeout": "120",
            },
            labels={"app.kubernetes.io/name": "whisper-asr"},
            generation=3,
            lb_ip="10.224.8.200",
            uid=k8s.new_uid(rng),
        )
    )
    p.objects.extend(ctrl.objects(p.as_of, service=False))
    p.objects.extend(ctrl_objs)
    p.objects.extend(asr.objects(p.as_of))
    p.objects.extend(bff.objects(p.as_of))
    p.objects.extend(worker.objects(p.as_of, service=False))
    p.objects.extend(indexer.objects(p.as_of, service=False))
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in sys_nodes)
    p.objects.extend(ev)
    p.record_gpus(
        [g for m in news for g in m.gpus]
        + [g for g in gpus_all if g.pod is None and g.present is None]
        + [g for g in gpus_all if g.pod is None and g.present is not None and g.present[-1]]
        + [g for g in gpus_all if g.pod == asr.pods[0].name]
    )

    # --- the answer --------------------------------------------------------------------------------------------
    p.expect("operational", "GW_TIMEOUT")
    live = [m for m in fleet.members if m.info is not None]
    p.forbidden = [
        ("rollback_deployment", f"deployment/{w.name}"),
        ("add_replica", f"deployment/{w.name}"),
        *[("restart_pod", f"pod/{m.name}") for m in live],
        *[("cordon_node", f"node/{m.node.name}") for m in live],
        *[("restart_pod", f"pod/{pi.name}") for pi in ctrl.pods],
        ("rollback_deployment", f"deployment/{ctrl.w.name}"),
        ("restart_pod", f"pod/{indexer.pods[0].name}"),
        ("rollback_deployment", "deployment/case-summary-worker"),
        ("cordon_node", f"node/{gnames[2]}"),
    ]
    p.scope = [
        f"deployment/{w.name}",
        *[f"pod/{m.name}" for m in live],
        *[f"node/{m.node.name}" for m in live],
        "ingress/care-chat-api",
    ]
    p.notes["onset"] = iso(t_change)
    return p
