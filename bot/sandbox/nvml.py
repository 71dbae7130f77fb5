"""NVML readings of a pack's gpus.json behind pynvml's own function names and types.

The GPU tool's live path calls `pynvml.nvmlDeviceGet…`; handing it a `FakeNvml` instead of the
module makes that same conversion code run on recorded readings. Errors are pynvml's real
exception classes, constants are pynvml's, units are NVML's (bytes, milliwatts).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import pynvml

from bot.sandbox.pack import GpuReading

MIB = 1024 * 1024
DRIVER_VERSION = "550.90.07"


@dataclass(frozen=True)
class _Handle:
    reading: GpuReading


@dataclass
class _Memory:
    total: int
    used: int
    free: int


@dataclass
class _Utilization:
    gpu: int
    memory: int


@dataclass
class _EventData:
    """Same fields as pynvml.c_nvmlEventData_t, plus the time a buffering node agent stamped."""

    device: _Handle
    eventType: int
    eventData: int
    gpuInstanceId: int = 0xFFFFFFFF
    computeInstanceId: int = 0xFFFFFFFF
    timeStamp: int = 0


class _EventSet:
    def __init__(self) -> None:
        self.pending: deque[_EventData] = deque()


class FakeNvml:
    """The pynvml calls the GPU tool uses, answering from one node's recorded readings."""

    NVMLError = pynvml.NVMLError
    NVML_TEMPERATURE_GPU = pynvml.NVML_TEMPERATURE_GPU
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED
    NVML_MEMORY_ERROR_TYPE_CORRECTED = pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED
    NVML_VOLATILE_ECC = pynvml.NVML_VOLATILE_ECC
    NVML_AGGREGATE_ECC = pynvml.NVML_AGGREGATE_ECC
    NVML_FEATURE_ENABLED = pynvml.NVML_FEATURE_ENABLED
    NVML_FEATURE_DISABLED = pynvml.NVML_FEATURE_DISABLED
    nvmlEventTypeXidCriticalError = pynvml.nvmlEventTypeXidCriticalError

    def __init__(self, readings: list[GpuReading]) -> None:
        self._readings = sorted(readings, key=lambda r: r.index)
        self._initialised = 0

    # -- library -------------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        self._initialised += 1

    def nvmlShutdown(self) -> None:
        self._require()
        self._initialised -= 1

    def nvmlSystemGetDriverVersion(self) -> str:
        self._require()
        return DRIVER_VERSION

    # -- devices -------------------------------------------------------------------------------
    def nvmlDeviceGetCount(self) -> int:
        self._require()
        return len(self._readings)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> _Handle:
        """The index-th recorded GPU (a pack may record only some of a node's GPUs)."""
        self._require()
        if not 0 <= index < len(self._readings):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return _Handle(self._readings[index])

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> _Handle:
        self._require()
        for reading in self._readings:
            if reading.uuid == uuid:
                return _Handle(reading)
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)

    def nvmlDeviceGetName(self, handle: _Handle) -> str:
        return self._reading(handle).name

    def nvmlDeviceGetUUID(self, handle: _Handle) -> str:
        return self._reading(handle).uuid

    def nvmlDeviceGetIndex(self, handle: _Handle) -> int:
        return self._reading(handle).index

    def nvmlDeviceGetMemoryInfo(self, handle: _Handle) -> _Memory:
        r = self._reading(handle)
        total, used = r.memory_total_mib * MIB, r.memory_used_mib * MIB
        return _Memory(total=total, used=used, free=max(0, total - used))

    def nvmlDeviceGetUtilizationRates(self, handle: _Handle) -> _Utilization:
        r = self._reading(handle)
        return _Utilization(
            gpu=r.utilization_gpu, memory=min(100, round(100 * r.memory_used_mib / r.memory_total_mib))
        )

    def nvmlDeviceGetTemperature(self, handle: _Handle, sensor: int) -> int:
        if sensor != pynvml.NVML_TEMPERATURE_GPU:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return int(self._reading(handle).temperature_c)

    def nvmlDeviceGetPowerUsage(self, handle: _Handle) -> int:
        return round(self._reading(handle).power_w * 1000)

    def nvmlDeviceGetTotalEccErrors(self, handle: _Handle, error_type: int, counter_type: int) -> int:
        r = self._reading(handle)
        if error_type == pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED:
            return r.ecc_volatile_uncorrected
        return 0

    def nvmlDeviceGetRetiredPagesPendingStatus(self, handle: _Handle) -> int:
        pending = self._reading(handle).retired_pages_pending
        return int(pynvml.NVML_FEATURE_ENABLED if pending else pynvml.NVML_FEATURE_DISABLED)

    def nvmlDeviceGetRemappedRows(self, handle: _Handle) -> Any:
        self._reading(handle)
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)  # not recorded in gpus.json

    # -- events --------------------------------------------------------------------------------
    def nvmlEventSetCreate(self) -> _EventSet:
        self._require()
        return _EventSet()

    def nvmlDeviceRegisterEvents(self, handle: _Handle, event_types: int, event_set: _EventSet) -> None:
        reading = self._reading(handle)
        if event_types & pynvml.nvmlEventTypeXidCriticalError:
            for event in sorted(reading.xid_events, key=lambda e: e.at):
                event_set.pending.append(
                    _EventData(
                        device=handle,
                        eventType=pynvml.nvmlEventTypeXidCriticalError,
                        eventData=event.xid,
                        timeStamp=int(event.at.timestamp() * 1_000_000),
                    )
                )

    def nvmlEventSetWait(self, event_set: _EventSet, timeout_ms: int) -> _EventData:
        self._require()
        if not event_set.pending:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_TIMEOUT)
        return event_set.pending.popleft()

    def nvmlEventSetFree(self, event_set: _EventSet) -> None:
        event_set.pending.clear()

    # -- helpers -------------------------------------------------------------------------------
    def _require(self) -> None:
        if self._initialised <= 0:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_UNINITIALIZED)

    def _reading(self, handle: _Handle) -> GpuReading:
        self._require()
        if not isinstance(handle, _Handle):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return handle.reading
