"""Per-GPU readings through NVML (pynvml, shipped by nvidia-ml-py).

The live path calls the pynvml module on the bot's host (or a node agent's); the sandbox hands a
`FakeNvml` holding a pack's readings instead, so the conversion below is the code that is tested.
Without a driver, NVML is reported as a gap, not an error: "NVML not available on this host".
Cluster-wide GPU state comes from DCGM metrics through the Prometheus tool.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tools.result import DEFAULT_TIMEOUT, Evidence, Gap, Source, ToolResult, bounded
from tools.xid import application_fault
from tools.xid import meaning as xid_meaning

MIB = 1024 * 1024
NO_NVML = "NVML not available on this host"


class NvmlUnavailableError(RuntimeError):
    """NVML cannot be initialised here (no NVIDIA driver or library)."""


@dataclass(frozen=True)
class GpuState:
    """What NVML says about one GPU, in plain units."""

    node: str
    index: int
    uuid: str
    name: str
    memory_used_mib: int
    memory_total_mib: int
    utilization_pct: int
    temperature_c: int
    power_w: float
    ecc_uncorrected: int | None
    retired_pages_pending: bool | None
    xids: list[tuple[int, datetime | None]]


def read_gpus(nvml: Any, node: str, *, drain_events_ms: int = 0) -> list[GpuState]:
    """Read every GPU through the pynvml API (module or stand-in)."""
    try:
        nvml.nvmlInit()
    except Exception as exc:  # no driver, no library, or pynvml tripping over its own retry
        raise NvmlUnavailableError(NO_NVML) from exc
    try:
        return [
            _read_one(nvml, node, nvml.nvmlDeviceGetHandleByIndex(i), drain_events_ms)
            for i in range(nvml.nvmlDeviceGetCount())
        ]
    finally:
        nvml.nvmlShutdown()


def _optional(call: Any, *args: Any) -> Any:
    """NVML answers NotSupported on boards without a feature; that is absence, not failure."""
    try:
        return call(*args)
    except Exception as exc:
        if type(exc).__name__.startswith("NVMLError"):
            return None
        raise


def _read_one(nvml: Any, node: str, handle: Any, drain_events_ms: int) -> GpuState:
    memory = nvml.nvmlDeviceGetMemoryInfo(handle)
    ecc = _optional(
        nvml.nvmlDeviceGetTotalEccErrors,
        handle,
        nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
        nvml.NVML_VOLATILE_ECC,
    )
    pending = _optional(nvml.nvmlDeviceGetRetiredPagesPendingStatus, handle)
    return GpuState(
        node=node,
        index=int(_optional(nvml.nvmlDeviceGetIndex, handle) or 0),
        uuid=str(nvml.nvmlDeviceGetUUID(handle)),
        name=str(nvml.nvmlDeviceGetName(handle)),
        memory_used_mib=int(memory.used) // MIB,
        memory_total_mib=int(memory.total) // MIB,
        utilization_pct=int(nvml.nvmlDeviceGetUtilizationRates(handle).gpu),
        temperature_c=int(nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU)),
        power_w=int(nvml.nvmlDeviceGetPowerUsage(handle)) / 1000,
        ecc_uncorrected=int(ecc) if ecc is not None else None,
        retired_pages_pending=(int(pending) == int(nvml.NVML_FEATURE_ENABLED))
        if pending is not None
        else None,
        xids=_xids(nvml, handle, drain_events_ms),
    )


def _xids(nvml: Any, handle: Any, wait_ms: int) -> list[tuple[int, datetime | None]]:
    """Drain pending Xid critical-error events; a buffering agent stamps them (timeStamp, µs)."""
    events = _optional(nvml.nvmlEventSetCreate)
    if events is None:
        return []
    found: list[tuple[int, datetime | None]] = []
    try:
        _optional(nvml.nvmlDeviceRegisterEvents, handle, nvml.nvmlEventTypeXidCriticalError, events)
        while True:
            event = _optional(nvml.nvmlEventSetWait, events, wait_ms)
            if event is None:
                break
            stamp = getattr(event, "timeStamp", 0)
            when = datetime.fromtimestamp(stamp / 1_000_000, UTC) if stamp else None
            found.append((int(event.eventData), when))
    finally:
        _optional(nvml.nvmlEventSetFree, events)
    return found


class GpuTool:
    """Evidence from NVML on the nodes of the incident."""

    def __init__(self, probes: Mapping[str, Any], *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._probes = dict(probes)
        self._timeout = timeout

    def _reader(self, node: str) -> Callable[[], list[GpuState]]:
        return lambda: read_gpus(self._probes[node], node)

    def read(self, nodes: list[str], *, as_of: datetime) -> ToolResult:
        """Readings of every GPU on `nodes`, the incident's (none when it names none)."""
        targets = [n for n in nodes if n in self._probes]
        if not targets:
            return ToolResult.failed(Source.GPU, "NVML", NO_NVML)
        evidence: list[Evidence] = []
        for node in targets:
            got = bounded(Source.GPU, f"NVML on {node}", self._reader(node), timeout=self._timeout)
            if isinstance(got, Gap):
                return ToolResult.from_gap(got)
            evidence.extend(_evidence(gpu, as_of) for gpu in got)
        return ToolResult.of(evidence)


def _evidence(gpu: GpuState, as_of: datetime) -> Evidence:
    used = gpu.memory_used_mib / gpu.memory_total_mib if gpu.memory_total_mib else 0.0
    parts = [
        f"{gpu.node} GPU {gpu.index} ({gpu.name}): util {gpu.utilization_pct}%",
        f"memory {gpu.memory_used_mib}/{gpu.memory_total_mib} MiB ({used:.0%})",
        f"{gpu.temperature_c}°C",
        f"{gpu.power_w:.0f} W",
    ]
    if gpu.ecc_uncorrected:
        parts.append(f"{gpu.ecc_uncorrected} uncorrected ECC errors")
    if gpu.retired_pages_pending:
        parts.append("page retirement pending")
    first_xid = min((t for _, t in gpu.xids if t is not None), default=None)
    for xid, when in gpu.xids:
        stamp = f" at {when:%H:%M:%S}Z" if when else ""
        parts.append(f"Xid {xid} ({xid_meaning(xid)}){stamp}")
    hardware = [x for x, _ in gpu.xids if not application_fault(x)]
    faulty = bool(hardware or gpu.ecc_uncorrected or gpu.retired_pages_pending)
    crashed = [x for x, _ in gpu.xids if application_fault(x)]
    return Evidence(
        id=f"gpu:{gpu.node}:{gpu.index}",
        source=Source.GPU,
        query=f"nvml {gpu.node} device {gpu.index} ({gpu.uuid})",
        summary="; ".join(parts),
        value=max((x for x, _ in gpu.xids), default=gpu.utilization_pct) if gpu.xids else gpu.utilization_pct,
        at=as_of,
        link=f"kubectl debug node/{gpu.node} -it --image=nvidia/cuda -- nvidia-smi -q -i {gpu.index}",
        layer="INF",
        onset=first_xid,
        labels={
            "node": gpu.node,
            "gpu": str(gpu.index),
            "uuid": gpu.uuid,
            "faulty": str(faulty).lower(),  # the card itself: a hardware Xid, ECC, pages to retire
            "app_fault": str(bool(crashed) and not faulty).lower(),  # only application-fault Xids
            "xids": ",".join(str(x) for x, _ in gpu.xids),
            "utilization": str(gpu.utilization_pct),
            "memory_used_ratio": f"{used:.3f}",
        },
    )
