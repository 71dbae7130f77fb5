"""pynvml → typed readings: the conversion the GPU agent runs on its node, one guarded call at a time.

`nvml` is the pynvml module on a GPU node, or the sandbox's stand-in with the same names. Each
call that NVML refuses (NotSupported, NoPermission, GpuIsLost...) leaves its field null and is
listed in `unsupported`; only pynvml's own errors are caught, so a bug still shows as one.
Read-only: nothing here sets anything on the GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pynvml

from tools.gpu.readings import (
    EccCounts,
    GpuState,
    MigDevice,
    NodeGpus,
    RemappedRows,
    RetiredPages,
    Unsupported,
    XidEvent,
)

MIB = 1024 * 1024
NO_INSTANCE = 0xFFFFFFFF  # nvmlEventData_t's gpuInstanceId / computeInstanceId off MIG
T = TypeVar("T")


def nvml_reason(exc: BaseException) -> str:
    """pynvml's error class as a word: NVMLError_NotSupported → "NotSupported"."""
    name = type(exc).__name__
    return (
        name.removeprefix("NVMLError_") if name != "NVMLError" else f"NVMLError {getattr(exc, 'value', '?')}"
    )


class Calls:
    """Calls into NVML where a refusal is noted, not raised."""

    def __init__(self) -> None:
        self.unsupported: list[Unsupported] = []

    def get(self, field: str, call: Callable[..., T], *args: Any) -> T | None:
        try:
            return call(*args)
        except pynvml.NVMLError as exc:
            self.unsupported.append(Unsupported(field=field, reason=nvml_reason(exc)))
            return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def read_node(nvml: Any, node: str, xids: Iterable[XidEvent], *, now: datetime) -> NodeGpus:
    """Every GPU of this node (NVML already initialised), with the Xid events buffered for each."""
    calls = Calls()
    driver = _text(calls.get("driver_version", nvml.nvmlSystemGetDriverVersion))
    count = calls.get("device_count", nvml.nvmlDeviceGetCount)
    events = list(xids)
    gpus = [read_gpu(nvml, index, events) for index in range(int(count or 0))]
    return NodeGpus(node=node, driver_version=driver, read_at=now, gpus=gpus, unsupported=calls.unsupported)


def read_gpu(nvml: Any, index: int, xids: list[XidEvent]) -> GpuState:
    """One GPU; a handle NVML cannot give (a GPU lost off the bus) still yields its index and reason."""
    calls = Calls()
    handle = calls.get("handle", nvml.nvmlDeviceGetHandleByIndex, index)
    if handle is None:
        own = [x for x in xids if x.gpu_index == index]
        return GpuState(index=index, xids=own, unsupported=calls.unsupported)
    own_index = calls.get("index", nvml.nvmlDeviceGetIndex, handle)  # NVML's index, as nvidia-smi shows it
    index = int(own_index) if own_index is not None else index
    uuid = _text(calls.get("uuid", nvml.nvmlDeviceGetUUID, handle))
    memory = calls.get("memory", nvml.nvmlDeviceGetMemoryInfo, handle)
    rates = calls.get("utilization", nvml.nvmlDeviceGetUtilizationRates, handle)
    temperature = calls.get("temperature", nvml.nvmlDeviceGetTemperature, handle, nvml.NVML_TEMPERATURE_GPU)
    power = calls.get("power", nvml.nvmlDeviceGetPowerUsage, handle)
    mig = calls.get("mig_mode", nvml.nvmlDeviceGetMigMode, handle)
    mig_enabled = int(mig[0]) == nvml.NVML_DEVICE_MIG_ENABLE if mig is not None else None
    state = GpuState(
        index=index,
        uuid=uuid,
        name=_text(calls.get("name", nvml.nvmlDeviceGetName, handle)),
        memory_used_mib=int(memory.used) // MIB if memory is not None else None,
        memory_total_mib=int(memory.total) // MIB if memory is not None else None,
        utilization_pct=int(rates.gpu) if rates is not None else None,
        temperature_c=int(temperature) if temperature is not None else None,
        power_w=int(power) / 1000 if power is not None else None,
        ecc=_ecc(nvml, calls, handle),
        retired_pages=_retired(nvml, calls, handle),
        remapped_rows=_remapped(nvml, calls, handle),
        mig_enabled=mig_enabled,
        mig_devices=_mig_devices(nvml, calls, handle) if mig_enabled else [],
        xids=sorted(
            (x for x in xids if (x.uuid == uuid if x.uuid and uuid else x.gpu_index == index)),
            key=lambda x: x.at,
        ),
    )
    return state.model_copy(update={"unsupported": calls.unsupported})


def _ecc(nvml: Any, calls: Calls, handle: Any) -> EccCounts:
    def count(field: str, kind: int, counter: int) -> int | None:
        got = calls.get(field, nvml.nvmlDeviceGetTotalEccErrors, handle, kind, counter)
        return int(got) if got is not None else None

    uncorrected, corrected = nvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nvml.NVML_MEMORY_ERROR_TYPE_CORRECTED
    return EccCounts(
        volatile_uncorrected=count("ecc.volatile_uncorrected", uncorrected, nvml.NVML_VOLATILE_ECC),
        volatile_corrected=count("ecc.volatile_corrected", corrected, nvml.NVML_VOLATILE_ECC),
        aggregate_uncorrected=count("ecc.aggregate_uncorrected", uncorrected, nvml.NVML_AGGREGATE_ECC),
        aggregate_corrected=count("ecc.aggregate_corrected", corrected, nvml.NVML_AGGREGATE_ECC),
    )


def _retired(nvml: Any, calls: Calls, handle: Any) -> RetiredPages:
    def pages(field: str, cause: int) -> int | None:
        got = calls.get(field, nvml.nvmlDeviceGetRetiredPages, handle, cause)
        return len(got) if got is not None else None

    pending = calls.get("retired_pages.pending", nvml.nvmlDeviceGetRetiredPagesPendingStatus, handle)
    return RetiredPages(
        single_bit_ecc=pages(
            "retired_pages.single_bit_ecc", nvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
        ),
        double_bit_ecc=pages(
            "retired_pages.double_bit_ecc", nvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
        ),
        pending=int(pending) == int(nvml.NVML_FEATURE_ENABLED) if pending is not None else None,
    )


def _remapped(nvml: Any, calls: Calls, handle: Any) -> RemappedRows | None:
    got = calls.get("remapped_rows", nvml.nvmlDeviceGetRemappedRows, handle)
    if got is None:
        return None
    correctable, uncorrectable, pending, failure = (int(v) for v in got)
    return RemappedRows(
        correctable=correctable, uncorrectable=uncorrectable, pending=bool(pending), failure=bool(failure)
    )


def _mig_devices(nvml: Any, calls: Calls, handle: Any) -> list[MigDevice]:
    """The MIG devices that exist: empty slots answer NotFound, which is absence, not a refusal."""
    slots = calls.get("mig_devices", nvml.nvmlDeviceGetMaxMigDeviceCount, handle)
    found: list[MigDevice] = []
    for slot in range(int(slots or 0)):
        try:
            mig = nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot)
        except pynvml.NVMLError_NotFound:
            continue
        except pynvml.NVMLError as exc:
            calls.unsupported.append(Unsupported(field=f"mig_devices[{slot}]", reason=nvml_reason(exc)))
            continue
        memory = calls.get(f"mig_devices[{slot}].memory", nvml.nvmlDeviceGetMemoryInfo, mig)
        gi = calls.get(f"mig_devices[{slot}].gpu_instance_id", nvml.nvmlDeviceGetGpuInstanceId, mig)
        ci = calls.get(f"mig_devices[{slot}].compute_instance_id", nvml.nvmlDeviceGetComputeInstanceId, mig)
        found.append(
            MigDevice(
                index=slot,
                uuid=_text(calls.get(f"mig_devices[{slot}].uuid", nvml.nvmlDeviceGetUUID, mig)),
                gpu_instance_id=int(gi) if gi is not None else None,
                compute_instance_id=int(ci) if ci is not None else None,
                memory_used_mib=int(memory.used) // MIB if memory is not None else None,
                memory_total_mib=int(memory.total) // MIB if memory is not None else None,
            )
        )
    return found


def register_xids(nvml: Any) -> tuple[Any, list[Unsupported]]:
    """An event set with every GPU registered for Xid critical errors (what each refused, listed)."""
    calls = Calls()
    events = nvml.nvmlEventSetCreate()
    for index in range(int(calls.get("device_count", nvml.nvmlDeviceGetCount) or 0)):
        handle = calls.get(f"gpu {index}: handle", nvml.nvmlDeviceGetHandleByIndex, index)
        if handle is not None:
            calls.get(
                f"gpu {index}: xid events",
                nvml.nvmlDeviceRegisterEvents,
                handle,
                nvml.nvmlEventTypeXidCriticalError,
                events,
            )
    return events, calls.unsupported


def wait_xid(nvml: Any, events: Any, timeout_ms: int, *, now: Callable[[], datetime]) -> XidEvent | None:
    """The next Xid event within `timeout_ms`, or None when none came (NVML's Timeout)."""
    while True:  # only Xids are registered for; anything else is passed over
        try:
            event = nvml.nvmlEventSetWait(events, timeout_ms)
        except pynvml.NVMLError_Timeout:
            return None
        if int(event.eventType) & int(nvml.nvmlEventTypeXidCriticalError):
            break
    calls = Calls()
    index = calls.get("index", nvml.nvmlDeviceGetIndex, event.device)
    stamp = int(getattr(event, "timeStamp", 0) or 0)  # µs; NVML's own event data carries none
    gi, ci = int(event.gpuInstanceId), int(event.computeInstanceId)
    return XidEvent(
        xid=int(event.eventData),
        at=datetime.fromtimestamp(stamp / 1_000_000, UTC) if stamp else now(),
        gpu_index=int(index) if index is not None else None,
        uuid=_text(calls.get("uuid", nvml.nvmlDeviceGetUUID, event.device)),
        gpu_instance_id=None if gi == NO_INSTANCE else gi,
        compute_instance_id=None if ci == NO_INSTANCE else ci,
    )
