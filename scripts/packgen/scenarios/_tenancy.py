"""Helpers shared by the multi-tenant packs p22-p24 (not a scenario: the loader only takes `pNN_*`).

Real clusters are noisy: other teams' Deployments and pods on the same or other GPU nodes,
recurring Events of unrelated objects whose series started days ago, healthy engines that are
not part of the incident. These helpers add that noise without touching the shared packgen
modules, and write the two extension fields of `expected.yaml` the format allows
(`forbidden_actions`, `scope`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from .. import exporters as ex
from .. import k8s
from ..openmetrics import OpenMetrics
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import GpuDevice, GpuSeries, PodTimeline, Replica, gpu, gpu_idle, pod_timeline


class TenantPack(Pack):
    """A Pack whose expected.yaml also lists forbidden actions and the incident's scope.

    `no_logs=True` writes no logs.ndjson at all and leaves `logs_index` out of scenario.yaml
    (a cluster without a logs backend).
    """

    def __init__(self, *args: Any, no_logs: bool = False, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.no_logs = no_logs
        self.forbidden: list[tuple[str, str]] = []
        self.scope: list[str] = []

    def forbid(self, kind: str, target: str) -> None:
        if (kind, target) not in self.forbidden:
            self.forbidden.append((kind, target))

    def write(self, root: Path) -> Path:
        out = super().write(root)
        if self.no_logs:
            (out / "logs.ndjson").unlink()
            meta = yaml.safe_load((out / "scenario.yaml").read_text(encoding="utf-8"))
            meta.pop("logs_index", None)
            (out / "scenario.yaml").write_text(
                yaml.safe_dump(meta, sort_keys=False, width=100), encoding="utf-8"
            )
        exp = yaml.safe_load((out / "expected.yaml").read_text(encoding="utf-8"))
        exp["forbidden_actions"] = [{"kind": k, "target": t} for k, t in self.forbidden]
        exp["scope"] = list(self.scope)
        (out / "expected.yaml").write_text(yaml.safe_dump(exp, sort_keys=False), encoding="utf-8")
        return out


@dataclass
class TenantPod:
    info: k8s.PodInfo
    timeline: PodTimeline
    node: k8s.Node
    devices: list[GpuDevice]
    gpus: list[GpuSeries] = field(default_factory=list)


@dataclass
class Tenant:
    """A healthy Deployment of another team (or of the same team, not part of the incident)."""

    workload: k8s.Workload
    pods: list[TenantPod]

    def objects(self, as_of: datetime) -> list[dict[str, Any]]:
        self.workload.pods = [tp.info for tp in self.pods]
        return self.workload.objects(as_of)

    def timelines(self) -> list[PodTimeline]:
        return [tp.timeline for tp in self.pods]

    def gpu_series(self) -> list[GpuSeries]:
        return [g for tp in self.pods for g in tp.gpus]


def tenant(
    p: Pack,
    *,
    name: str,
    namespace: str,
    image: str,
    args: list[str],
    placements: list[tuple[k8s.Node, list[GpuDevice], str]],
    labels: dict[str, str] | None = None,
    container: str = "server",
    port: int = 8000,
    env: list[dict[str, Any]] | None = None,
    revision: int = 3,
    age_days: float = 30.0,
    rev_age_days: float = 6.0,
    util: float = 55.0,
    fb_used: float = 30_000.0,
    cpu: str = "8",
    memory: str = "32Gi",
    memory_limit: str = "48Gi",
    readiness: dict[str, Any] | None = None,
    change_cause: str | None = None,
    command: list[str] | None = None,
    restarts: int = 0,
    cluster_ip: str = "10.96.0.10",
    service_account: str = "default",
    tolerations: list[dict[str, Any]] | None = None,
) -> Tenant:
    """A Deployment whose pods run, ready, for days on the given (node, GPUs, pod IP) placements."""
    rng = p.rng
    gpus_per_pod = len(placements[0][1]) if placements else 0
    rev = p.revision(
        revision,
        p.ago(days=rev_age_days, hours=rng.randint(0, 9)),
        image,
        args,
        env=env or [],
        replicas=len(placements),
        change_cause=change_cause,
        command=command,
    )
    w = k8s.Workload(
        name=name,
        namespace=namespace,
        container=container,
        port=port,
        labels=labels or {"app.kubernetes.io/name": name},
        revisions=[rev],
        pods=[],
        created=p.ago(days=age_days),
        replicas=len(placements),
        gpus=gpus_per_pod,
        cpu=cpu,
        memory=memory,
        memory_limit=memory_limit,
        readiness=readiness,
        uid=k8s.new_uid(rng),
        cluster_ip=cluster_ip,
        service_account=service_account,
        tolerations=tolerations
        if tolerations is not None
        else (
            [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}] if gpus_per_pod else []
        ),
    )
    pods = []
    for node, devs, ip in placements:
        pod = p.pod_name(name, rev.hash)
        created = rev.created + timedelta(minutes=rng.randint(1, 40))
        uid = k8s.new_uid(rng)
        info = k8s.PodInfo(
            name=pod,
            revision=rev,
            node=node.name,
            ip=ip,
            host_ip=node.internal_ip,
            created=created,
            uid=uid,
            started=created + timedelta(seconds=3),
            ready=True,
            ready_since=created + timedelta(seconds=rng.randint(20, 120)),
            running_since=created + timedelta(seconds=4),
            container_id=k8s.container_id(rng),
            gpu_uuids=[d.uuid for d in devs],
            restarts=restarts,
        )
        tl = pod_timeline(
            p.clock,
            pod=pod,
            namespace=namespace,
            uid=uid,
            node=node.name,
            ip=ip,
            host_ip=node.internal_ip,
            owner=f"{name}-{rev.hash}",
            container=container,
        )
        series = [
            gpu(
                p.clock, rng, d, util=util, fb_used=fb_used, pod=pod, namespace=namespace, container=container
            )
            for d in devs
        ]
        pods.append(TenantPod(info, tl, node, list(devs), series))
    return Tenant(w, pods)


def dcgm_lite(om: OpenMetrics, gpus: list[GpuSeries], driver: str, xid: bool = True) -> None:
    """A trimmed dcgm-exporter counter set (custom CSV): utilisation, framebuffer and, optionally, Xid."""
    for g in gpus:
        lab = {
            "DCGM_FI_DRIVER_VERSION": driver,
            "Hostname": g.dev.node,
            "UUID": g.dev.uuid,
            "device": f"nvidia{g.dev.index}",
            "gpu": str(g.dev.index),
            "job": "nvidia-dcgm-exporter",
            "modelName": g.dev.product,
            "pci_bus_id": g.dev.pci,
            "container": g.container or "",
            "namespace": g.namespace or "",
            "pod": g.pod or "",
        }
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, g.util, g.present)
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, g.fb_used, g.present)
        if xid:
            om.gauge(
                "DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.", lab, g.xid, g.present
            )


def idle_gpus(p: Pack, devices: list[GpuDevice]) -> list[GpuSeries]:
    return [gpu_idle(p.clock, p.rng, d) for d in devices]


def recurring_event(
    p: Pack,
    *,
    namespace: str,
    kind: str,
    name: str,
    uid: str,
    reason: str,
    message: str,
    first: datetime,
    last: datetime,
    count: int,
    warning: bool = True,
    component: str = "kubelet",
    host: str | None = None,
    field_path: str | None = None,
    api_version: str = "v1",
) -> dict[str, Any]:
    """An Event series that has been recurring since `first` (long before the window)."""
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


def node_condition_series(
    om: OpenMetrics, node: str, condition: str, true_mask: list[bool], job: str = "kube-state-metrics"
) -> None:
    """kube_node_status_condition for a non-Ready condition (DiskPressure, MemoryPressure, ...)."""
    for status in ("true", "false", "unknown"):
        values = [
            1.0 if (status == "true" and t) or (status == "false" and not t) else 0.0 for t in true_mask
        ]
        om.gauge(
            "kube_node_status_condition",
            "The condition of a cluster node.",
            {"job": job, "node": node, "condition": condition, "status": status},
            values,
        )


def vllm_lite(
    om: OpenMetrics,
    *,
    labels: dict[str, str],
    rpm: Series,
    running: Series,
    kv: Series,
    gen_len: float,
    uptime_min: float,
) -> None:
    """The few vLLM families of a healthy engine that is not part of the incident."""
    om.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", labels, running)
    om.gauge(
        "vllm:num_requests_waiting",
        "Number of requests waiting to be processed.",
        labels,
        Series([0.0] * len(rpm)),
    )
    om.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", labels, kv)
    ok = rpm.ints()
    om.counter(
        "vllm:request_success",
        "Count of successfully processed requests.",
        {**labels, "finished_reason": "stop"},
        ok,
        initial=float(round(ok[0] * uptime_min)),
    )
    gt = (rpm * gen_len).ints()
    om.counter(
        "vllm:generation_tokens",
        "Number of generation tokens processed.",
        labels,
        gt,
        initial=float(round(gt[0] * uptime_min)),
    )


def vllm_metrics(
    om: OpenMetrics,
    reps: list[Replica],
    *,
    aborted: dict[str, Series] | None = None,
    http_ok_only: bool = False,
) -> None:
    """vLLM V1 families, without the prefix-cache and inter-token series (dropped at scrape to save space).

    `aborted[pod]`: requests the engine aborted (client gone) per minute, `finished_reason="abort"`.
    `http_ok_only`: the API server answered only 2xx (the 5xx of the pack were made by the gateway).
    """
    for r in reps:
        lab = ex.scrape_labels(r, engine="0")
        p, rs = r.present, r.resets
        om.gauge(
            "vllm:num_requests_running", "Number of requests in model execution batches.", lab, r.running, p
        )
        om.gauge(
            "vllm:num_requests_waiting", "Number of requests waiting to be processed.", lab, r.waiting, p
        )
        om.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, r.kv, p)
        om.counter(
            "vllm:num_preemptions",
            "Cumulative number of preemption from the engine.",
            lab,
            r.preempt.ints(),
            present=p,
            resets=rs,
        )
        pt, gt, ok = r.prompt_tokens(), r.gen_tokens(), r.ok()
        for name, help_text, inc in (
            ("vllm:prompt_tokens", "Number of prefill tokens processed.", pt),
            ("vllm:generation_tokens", "Number of generation tokens processed.", gt),
        ):
            om.counter(name, help_text, lab, inc, present=p, resets=rs, initial=ex._initial(r, inc))
        reasons = [("stop", (ok * (1 - r.length_frac)).ints()), ("length", (ok * r.length_frac).ints())]
        if aborted and r.pod in aborted:
            reasons.append(("abort", aborted[r.pod]))
        for reason, inc in reasons:
            om.counter(
                "vllm:request_success",
                "Count of successfully processed requests.",
                {**lab, "finished_reason": reason},
                inc,
                present=p,
                resets=rs,
                initial=ex._initial(r, inc),
            )
        served = r.served()
        om.histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            ex.VLLM_TTFT,
            served,
            r.ttft,
            present=p,
            resets=rs,
            initial_count=ex._initial(r, served),
        )
        if http_ok_only:
            saved = r.codes
            r.codes = {code: s for code, s in saved.items() if code < 300}
            ex.http_requests(om, r)
            r.codes = saved
        else:
            ex.http_requests(om, r)
    ex.up(om, reps)


def steady(p: Pack, value: float, rel: float = 0.05) -> Series:
    return noisy(flat(p.clock, value), p.rng, rel)


def stamp(moment: datetime) -> str:
    return iso(moment)
