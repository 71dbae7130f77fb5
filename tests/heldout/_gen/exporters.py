"""Exporter families with their real names, help strings and label sets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .lib import OM, Labels, le_go, le_py

# vLLM V1 bucket bounds (vllm/v1/metrics/loggers.py)
VLLM_TTFT = [
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
]
VLLM_ITL = [
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
]
VLLM_E2E = [
    0.3,
    0.5,
    0.8,
    1.0,
    1.5,
    2.0,
    2.5,
    5.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    120.0,
    240.0,
    480.0,
    960.0,
    1920.0,
    7680.0,
]
# Envoy's default histogram buckets (ms)
ENVOY_MS = [
    0.5,
    1,
    5,
    10,
    25,
    50,
    100,
    250,
    500,
    1000,
    2500,
    5000,
    10000,
    30000,
    60000,
    300000,
    600000,
    1800000,
    3600000,
]
# SGLang (python/sglang/srt/metrics/collector.py)
SGLANG_TTFT = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400]
SGLANG_E2E = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 800]


# TGI router: 35 geometric duration buckets, 0.0001 * 1.5^k (router/src/server.rs)
def _tgi_buckets() -> list[float]:
    out, v = [], 0.0001
    for _ in range(35):
        v *= 1.5
        out.append(v)
    return out


TGI_DURATION = _tgi_buckets()


@dataclass
class Gpu:
    node: str
    index: int
    uuid: str
    pci: str
    model: str
    memory_mib: int
    pod: str | None = None
    namespace: str | None = None
    container: str | None = None
    util: list[float] = field(default_factory=list)
    fb_used: list[float] = field(default_factory=list)
    power: list[float] = field(default_factory=list)
    temp: list[float] = field(default_factory=list)
    xid: list[float] = field(default_factory=list)
    xid_events: list[tuple[int, str]] = field(default_factory=list)


def dcgm_labels(g: Gpu, driver: str, exporter_ip: str, hostname_label: str | None = None) -> Labels:
    lab = {
        "DCGM_FI_DRIVER_VERSION": driver,
        "Hostname": hostname_label or g.node,
        "UUID": g.uuid,
        "device": f"nvidia{g.index}",
        "gpu": str(g.index),
        "instance": f"{exporter_ip}:9400",
        "job": "nvidia-dcgm-exporter",
        "modelName": g.model,
        "pci_bus_id": g.pci,
    }
    if g.pod:
        lab.update({"namespace": g.namespace or "", "pod": g.pod, "container": g.container or ""})
    return lab


def dcgm(
    om: OM, gpus: Sequence[Gpu], driver: str, exporter_ip: dict[str, str], *, temp: bool = False
) -> None:
    for g in gpus:
        lab = dcgm_labels(g, driver, exporter_ip[g.node])
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, g.util, digits=4)
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, g.fb_used, digits=8)
        om.gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", lab, g.power, digits=6)
        if temp:
            om.gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", lab, g.temp, digits=4)
        om.gauge(
            "DCGM_FI_DEV_XID_ERRORS",
            "Value of the last XID error encountered.",
            lab,
            g.xid or [0.0] * om.clock.n,
            digits=4,
        )


def envoy_cluster(
    om: OM,
    *,
    cluster: str,
    proxy: Labels,
    codes: dict[int, Sequence[float]],
    initial: dict[int, float],
    timeouts: Sequence[float] | None = None,
    healthy: Sequence[float] | None = None,
    members: Sequence[float] | None = None,
    rq_time_mix: Sequence[Sequence[tuple[float, float, float]]] | None = None,
    rq_time_initial: Sequence[tuple[float, float, float]] = (),
    connect_fail: Sequence[float] | None = None,
    resets: Sequence[float] | None = None,
) -> None:
    """Envoy's cluster stats as `/stats/prometheus` prints them (counters without `_total`, so `unknown`)."""
    n = om.clock.n
    base = {**proxy, "envoy_cluster_name": cluster}
    total = [0.0] * n
    classes: dict[str, list[float]] = {}
    for code, inc in sorted(codes.items()):
        om.counter(
            "envoy_cluster_upstream_rq",
            "",
            {**base, "envoy_response_code": str(code)},
            inc,
            initial=initial.get(code, 0.0),
            suffix_total=False,
        )
        cls = str(code // 100)
        acc = classes.setdefault(cls, [0.0] * n)
        for i in range(n):
            acc[i] += round(inc[i])
            total[i] += round(inc[i])
    for cls, inc in sorted(classes.items()):
        init = sum(v for c, v in initial.items() if str(c // 100) == cls)
        om.counter(
            "envoy_cluster_upstream_rq_xx",
            "",
            {**base, "envoy_response_code_class": cls},
            inc,
            initial=init,
            suffix_total=False,
        )
    om.counter(
        "envoy_cluster_upstream_rq_total", "", base, total, initial=sum(initial.values()), suffix_total=False
    )
    if timeouts is not None:
        om.counter(
            "envoy_cluster_upstream_rq_timeout",
            "",
            base,
            timeouts,
            initial=round(sum(initial.values()) * 0.00011),
            suffix_total=False,
        )
    if connect_fail is not None:
        om.counter(
            "envoy_cluster_upstream_cx_connect_fail", "", base, connect_fail, initial=37, suffix_total=False
        )
    if resets is not None:
        om.counter("envoy_cluster_upstream_rq_rx_reset", "", base, resets, initial=212, suffix_total=False)
    if healthy is not None:
        om.gauge("envoy_cluster_membership_healthy", "", base, healthy, digits=4)
    if members is not None:
        om.gauge("envoy_cluster_membership_total", "", base, members, digits=4)
    if rq_time_mix is not None:
        om.histogram_mix(
            "envoy_cluster_upstream_rq_time",
            "",
            base,
            ENVOY_MS,
            rq_time_mix,
            initial=rq_time_initial,
            le=le_go,
            scale=1000.0,
        )


def ksm_labels(extra: Labels, service: bool) -> Labels:
    base = {"job": "kube-state-metrics"}
    if service:
        base.update(
            {
                "container": "kube-state-metrics",
                "endpoint": "http",
                "instance": "10.233.65.9:8080",
                "service": "kube-prometheus-stack-kube-state-metrics",
            }
        )
    # for pod-level series the pod's own container label wins over KSM's own container label
    return {**base, **extra}


def vllm_labels(
    *,
    pod: str,
    ns: str,
    model: str,
    ip: str,
    job: str,
    service: str | None,
    container: str,
    endpoint: str = "http",
) -> Labels:
    lab = {
        "container": container,
        "endpoint": endpoint,
        "engine": "0",
        "instance": f"{ip}:8000",
        "job": job,
        "model_name": model,
        "namespace": ns,
        "pod": pod,
    }
    if service:
        lab["service"] = service
    return lab


LE = {"py": le_py, "go": le_go}
