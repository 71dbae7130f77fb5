"""Pieces several held-out packs share: Envoy access lines, glog/klog stamps, GPU node objects."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from .lib import Logs, Obj, hexid, iso, node_conditions, node_obj, uid


def request_id(rng: random.Random) -> str:
    return f"{hexid(rng, 8)}-{hexid(rng, 4)}-4{hexid(rng, 3)}-{rng.choice('89ab')}{hexid(rng, 3)}-{hexid(rng, 12)}"


def envoy_json(
    logs: Logs,
    rng: random.Random,
    *,
    end: datetime,
    code: int,
    flags: str,
    details: str,
    duration_ms: int,
    upstream_host: str | None,
    cluster: str,
    route_name: str,
    authority: str,
    path: str,
    client: str,
    gw_ip: str,
    gw_pod: str,
    gw_ns: str,
    gw_node: str,
    user_agent: str,
    bytes_sent: int,
    method: str = "POST",
) -> None:
    """Envoy Gateway's default JSON access log line (start_time is when the request arrived)."""
    d = {
        ":authority": authority,
        "bytes_received": rng.randint(900, 12000),
        "bytes_sent": bytes_sent,
        "connection_termination_details": None,
        "downstream_local_address": f"{gw_ip}:10443",
        "downstream_remote_address": f"{client}:{rng.randint(32768, 60999)}",
        "duration": duration_ms,
        "method": method,
        "protocol": "HTTP/1.1",
        "requested_server_name": authority,
        "response_code": code,
        "response_code_details": details,
        "response_flags": flags,
        "route_name": route_name,
        "start_time": iso(end - timedelta(milliseconds=duration_ms), ms=True),
        "upstream_cluster": cluster,
        "upstream_host": upstream_host,
        "upstream_local_address": f"{gw_ip}:{rng.randint(32768, 60999)}" if upstream_host else None,
        "upstream_transport_failure_reason": None,
        "user-agent": user_agent,
        "x-envoy-origin-path": path,
        "x-envoy-upstream-service-time": str(max(0, duration_ms - rng.randint(1, 3)))
        if code < 500 or flags == "-"
        else None,
        "x-forwarded-for": client,
        "x-request-id": request_id(rng),
    }
    logs.add(
        end,
        json.dumps(d, separators=(",", ":")),
        service="envoy-gateway",
        ns=gw_ns,
        pod=gw_pod,
        node=gw_node,
        container="envoy",
        level="info" if code < 500 else "warn",
        status=code,
        dataset="envoy.access",
    )


def envoy_text(
    logs: Logs,
    rng: random.Random,
    *,
    end: datetime,
    code: int,
    flags: str,
    duration_ms: int,
    upstream_host: str | None,
    authority: str,
    path: str,
    client: str,
    gw_pod: str,
    gw_ns: str,
    gw_node: str,
    user_agent: str,
    bytes_sent: int,
    service: str = "envoy-gateway",
    method: str = "POST",
) -> None:
    """Envoy's default text access log format."""
    start = end - timedelta(milliseconds=duration_ms)
    ust = str(max(0, duration_ms - rng.randint(1, 3))) if code < 500 or flags == "-" else "-"
    line = (
        f'[{iso(start, ms=True)}] "{method} {path} HTTP/1.1" {code} {flags} '
        f"{rng.randint(900, 12000)} {bytes_sent} {duration_ms} {ust} "
        f'"{client}" "{user_agent}" "{request_id(rng)}" "{authority}" "{upstream_host or "-"}"'
    )
    logs.add(
        end,
        line,
        service=service,
        ns=gw_ns,
        pod=gw_pod,
        node=gw_node,
        container="envoy",
        level="info" if code < 500 else "warn",
        status=code,
        dataset="envoy.access",
    )


def torch_stamp(rng: random.Random, ts: datetime, level: str = "E") -> str:
    """c10 logging prefix as PyTorch prints it: `E903 03:59:05.417829331` (month without zero padding)."""
    frac = f"{ts.microsecond // 1000:03d}{rng.randint(0, 999999):06d}"
    return f"{level}{ts.month}{ts.day:02d} {ts.strftime('%H:%M:%S')}.{frac}"


def klog_stamp(rng: random.Random, ts: datetime, level: str = "I") -> str:
    """klog/glog prefix: `E0918 09:31:44.482913`."""
    return f"{level}{ts.strftime('%m%d %H:%M:%S')}.{ts.microsecond // 1000:03d}{rng.randint(0, 999):03d}"


def gpu_node(
    rng: random.Random,
    name: str,
    *,
    as_of: datetime,
    created: datetime,
    ready_since: datetime,
    ip: str,
    pod_cidr: str | None,
    product: str,
    gpu_count: int,
    gpu_mem_mib: int,
    instance_type: str,
    zone: str,
    region: str,
    cpu: int,
    mem_ki: int,
    kubelet: str,
    runtime: str,
    kernel: str,
    os_image: str,
    extra_labels: dict[str, str] | None = None,
    provider_id: str | None = None,
    driver_major: str = "570",
    allocatable_gpus: int | None = None,
    taints: list[Obj] | None = None,
    unschedulable: bool = False,
) -> Obj:
    labels = {
        "nvidia.com/gpu.product": product.replace(" ", "-"),
        "nvidia.com/gpu.count": str(gpu_count),
        "nvidia.com/gpu.memory": str(gpu_mem_mib),
        "nvidia.com/cuda.driver.major": driver_major,
        "nvidia.com/gpu.present": "true",
        "node.kubernetes.io/instance-type": instance_type,
        "topology.kubernetes.io/region": region,
        "topology.kubernetes.io/zone": zone,
        **(extra_labels or {}),
    }
    alloc_gpu = gpu_count if allocatable_gpus is None else allocatable_gpus
    return node_obj(
        name,
        created=created,
        uid_=uid(rng),
        labels=labels,
        ip=ip,
        capacity={
            "cpu": str(cpu),
            "ephemeral-storage": "1873125532Ki",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": f"{mem_ki}Ki",
            "nvidia.com/gpu": str(gpu_count),
            "pods": "110",
        },
        allocatable={
            "cpu": f"{cpu * 1000 - 1900}m",
            "ephemeral-storage": "1726266171428",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": f"{mem_ki - 12_817_540}Ki",
            "nvidia.com/gpu": str(alloc_gpu),
            "pods": "110",
        },
        conditions=node_conditions(as_of, ready_since),
        node_info={
            "kernelVersion": kernel,
            "osImage": os_image,
            "kubeletVersion": kubelet,
            "kubeProxyVersion": kubelet,
            "containerRuntimeVersion": runtime,
            "machineID": hexid(rng, 32),
            "systemUUID": uid(rng).upper(),
            "bootID": uid(rng),
        },
        pod_cidr=pod_cidr,
        provider_id=provider_id,
        taints=taints,
        unschedulable=unschedulable,
    )


def gpus_json(gpus, rng: random.Random, temp_of=None) -> dict[str, list[Obj]]:
    out: dict[str, list[Obj]] = {}
    for g in gpus:
        out.setdefault(g.node, []).append(
            {
                "index": g.index,
                "uuid": g.uuid,
                "name": g.model,
                "memory_total_mib": g.memory_mib,
                "memory_used_mib": int(g.fb_used[-1] or 0),
                "utilization_gpu": int(g.util[-1] or 0),
                "temperature_c": int(
                    temp_of(g) if temp_of else (g.temp[-1] if g.temp else rng.randint(45, 66))
                ),
                "power_w": round(float(g.power[-1] or 0), 1),
                "ecc_volatile_uncorrected": 0,
                "retired_pages_pending": False,
                "xid_events": [{"xid": x, "at": at} for x, at in g.xid_events],
            }
        )
    return out


def noisy(rng: random.Random, v: float, rel: float) -> float:
    return v * rng.uniform(1 - rel, 1 + rel)
