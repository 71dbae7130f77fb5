"""NVML readings of a pack's gpus.json behind pynvml's own function names and types.

The GPU agent calls `pynvml.nvmlDeviceGet…`; handing it a `FakeNvml` instead of the module makes
the agent's same code run on recorded readings. Errors are pynvml's real exception classes (a call
a reading lists as unsupported raises NVMLError_NotSupported, as on a real card; utilisation on a
MIG-enabled parent does so by itself), constants are pynvml's, units are NVML's (bytes, mW).
Recorded Xid events are queued on every event set registered for them, with their recorded time,
so an agent started later still sees them; `queue_xid` adds one while the agent runs.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from datetime import datetime

import pynvml

from bot.sandbox.pack import GpuReading, MigReading

MIB = 1024 * 1024
DRIVER_VERSION = "550.90.07"
MIG_SLOTS = 7
NO_INSTANCE = 0xFFFFFFFF


@dataclass(frozen=True)
class _Handle:
    reading: GpuReading


@dataclass(frozen=True)
class _MigHandle:
    parent: GpuReading
    mig: MigReading


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
    """Same fields as pynvml.c_nvmlEventData_t, plus the time the pack recorded (µs)."""

    device: _Handle
    eventType: int
    eventData: int
    gpuInstanceId: int = NO_INSTANCE
    computeInstanceId: int = NO_INSTANCE
    timeStamp: int = 0


class _EventSet:
    def __init__(self) -> None:
        self.pending: deque[_EventData] = deque()
        self.devices: set[str] = set()  # UUIDs registered for Xid events


def _fail(code: int) -> pynvml.NVMLError:
    return pynvml.NVMLError(code)  # pynvml maps the code to its subclass (NVMLError_NotSupported...)


def _memory(total_mib: int, used_mib: int) -> _Memory:
    total, used = total_mib * MIB, used_mib * MIB
    return _Memory(total=total, used=used, free=max(0, total - used))


class FakeNvml:
    """The pynvml calls the GPU agent uses, answering from one node's recorded readings."""

    NVMLError = pynvml.NVMLError
    NVML_TEMPERATURE_GPU = pynvml.NVML_TEMPERATURE_GPU
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED
    NVML_MEMORY_ERROR_TYPE_CORRECTED = pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED
    NVML_VOLATILE_ECC = pynvml.NVML_VOLATILE_ECC
    NVML_AGGREGATE_ECC = pynvml.NVML_AGGREGATE_ECC
    NVML_FEATURE_ENABLED = pynvml.NVML_FEATURE_ENABLED
    NVML_FEATURE_DISABLED = pynvml.NVML_FEATURE_DISABLED
    NVML_DEVICE_MIG_ENABLE = pynvml.NVML_DEVICE_MIG_ENABLE
    NVML_DEVICE_MIG_DISABLE = pynvml.NVML_DEVICE_MIG_DISABLE
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = (
        pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
    )
    NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
    nvmlEventTypeXidCriticalError = pynvml.nvmlEventTypeXidCriticalError

    def __init__(self, readings: list[GpuReading]) -> None:
        self._readings = sorted(readings, key=lambda r: r.index)
        self._initialised = 0
        self._events = threading.Condition()
        self._sets: list[_EventSet] = []

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
            raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        reading = self._readings[index]
        self._refuse("nvmlDeviceGetHandleByIndex", reading)
        return _Handle(reading)

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> _Handle:
        self._require()
        for reading in self._readings:
            if reading.uuid == uuid:
                return _Handle(reading)
        raise _fail(pynvml.NVML_ERROR_NOT_FOUND)

    def nvmlDeviceGetName(self, handle: _Handle) -> str:
        return self._reading(handle, "nvmlDeviceGetName").name

    def nvmlDeviceGetUUID(self, handle: _Handle | _MigHandle) -> str:
        if isinstance(handle, _MigHandle):
            return self._mig(handle).uuid
        return self._reading(handle, "nvmlDeviceGetUUID").uuid

    def nvmlDeviceGetIndex(self, handle: _Handle) -> int:
        return self._reading(handle, "nvmlDeviceGetIndex").index

    def nvmlDeviceGetMemoryInfo(self, handle: _Handle | _MigHandle) -> _Memory:
        if isinstance(handle, _MigHandle):
            mig = self._mig(handle)
            return _memory(mig.memory_total_mib, mig.memory_used_mib)
        r = self._reading(handle, "nvmlDeviceGetMemoryInfo")
        return _memory(r.memory_total_mib, r.memory_used_mib)

    def nvmlDeviceGetUtilizationRates(self, handle: _Handle) -> _Utilization:
        r = self._reading(handle, "nvmlDeviceGetUtilizationRates")
        if r.mig_devices:  # NVML: not supported on a MIG-enabled GPU
            raise _fail(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return _Utilization(
            gpu=r.utilization_gpu, memory=min(100, round(100 * r.memory_used_mib / r.memory_total_mib))
        )

    def nvmlDeviceGetTemperature(self, handle: _Handle, sensor: int) -> int:
        r = self._reading(handle, "nvmlDeviceGetTemperature")
        if sensor != pynvml.NVML_TEMPERATURE_GPU:
            raise _fail(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return int(r.temperature_c)

    def nvmlDeviceGetPowerUsage(self, handle: _Handle) -> int:
        return round(self._reading(handle, "nvmlDeviceGetPowerUsage").power_w * 1000)

    def nvmlDeviceGetTotalEccErrors(self, handle: _Handle, error_type: int, counter_type: int) -> int:
        r = self._reading(handle, "nvmlDeviceGetTotalEccErrors")
        if error_type == pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED:
            volatile, aggregate = r.ecc_volatile_uncorrected, r.ecc_aggregate_uncorrected
        elif error_type == pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED:
            volatile, aggregate = r.ecc_volatile_corrected, r.ecc_aggregate_corrected
        else:
            raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        if counter_type == pynvml.NVML_VOLATILE_ECC:
            return volatile
        if counter_type == pynvml.NVML_AGGREGATE_ECC:
            return aggregate if aggregate is not None else volatile
        raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)

    def nvmlDeviceGetRetiredPages(self, handle: _Handle, cause: int) -> list[int]:
        """Page addresses (made up; only their number is recorded)."""
        r = self._reading(handle, "nvmlDeviceGetRetiredPages")
        if cause == pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS:
            count = r.retired_pages_sbe
        elif cause == pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR:
            count = r.retired_pages_dbe
        else:
            raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return [0x1000 * (n + 1) for n in range(count)]

    def nvmlDeviceGetRetiredPagesPendingStatus(self, handle: _Handle) -> int:
        pending = self._reading(handle, "nvmlDeviceGetRetiredPagesPendingStatus").retired_pages_pending
        return int(pynvml.NVML_FEATURE_ENABLED if pending else pynvml.NVML_FEATURE_DISABLED)

    def nvmlDeviceGetRemappedRows(self, handle: _Handle) -> tuple[int, int, int, int]:
        """(correctable, uncorrectable, pending, failure occurred), as pynvml returns them."""
        rows = self._reading(handle, "nvmlDeviceGetRemappedRows").remapped_rows
        return (rows.correctable, rows.uncorrectable, int(rows.pending), int(rows.failure))

    # -- MIG -----------------------------------------------------------------------------------
    def nvmlDeviceGetMigMode(self, handle: _Handle) -> list[int]:
        """[current, pending]: enabled when the reading lists MIG devices."""
        r = self._reading(handle, "nvmlDeviceGetMigMode")
        mode = pynvml.NVML_DEVICE_MIG_ENABLE if r.mig_devices else pynvml.NVML_DEVICE_MIG_DISABLE
        return [mode, mode]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: _Handle) -> int:
        return MIG_SLOTS if self._reading(handle, "nvmlDeviceGetMaxMigDeviceCount").mig_devices else 0

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: _Handle, index: int) -> _MigHandle:
        r = self._reading(handle, "nvmlDeviceGetMigDeviceHandleByIndex")
        if not 0 <= index < MIG_SLOTS:
            raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        if index >= len(r.mig_devices):
            raise _fail(pynvml.NVML_ERROR_NOT_FOUND)  # an empty slot
        return _MigHandle(parent=r, mig=r.mig_devices[index])

    def nvmlDeviceGetGpuInstanceId(self, handle: _Handle | _MigHandle) -> int:
        return self._mig(handle).gpu_instance_id

    def nvmlDeviceGetComputeInstanceId(self, handle: _Handle | _MigHandle) -> int:
        return self._mig(handle).compute_instance_id

    # -- events --------------------------------------------------------------------------------
    def nvmlEventSetCreate(self) -> _EventSet:
        self._require()
        with self._events:
            event_set = _EventSet()
            self._sets.append(event_set)
        return event_set

    def nvmlDeviceRegisterEvents(self, handle: _Handle, event_types: int, event_set: _EventSet) -> None:
        """Registering for Xids queues the recorded ones: they happened before this agent asked."""
        reading = self._reading(handle, "nvmlDeviceRegisterEvents")
        if not event_types & pynvml.nvmlEventTypeXidCriticalError:
            return
        with self._events:
            event_set.devices.add(reading.uuid)
            for event in sorted(reading.xid_events, key=lambda e: e.at):
                event_set.pending.append(self._event(handle, event.xid, event.at))
            self._events.notify_all()

    def queue_xid(self, index: int, xid: int, at: datetime, *, gpu_instance_id: int | None = None) -> None:
        """An Xid happening now on GPU `index`, delivered to every set registered for that GPU."""
        handle = _Handle(self._readings[index])
        event = self._event(handle, xid, at, gpu_instance_id)
        with self._events:
            for event_set in self._sets:
                if handle.reading.uuid in event_set.devices:
                    event_set.pending.append(event)
            self._events.notify_all()

    def nvmlEventSetWait(self, event_set: _EventSet, timeout_ms: int) -> _EventData:
        """The next event, waiting up to `timeout_ms` for one; NVMLError_Timeout when none came."""
        self._require()
        with self._events:
            self._events.wait_for(lambda: bool(event_set.pending), timeout=timeout_ms / 1000)
            if not event_set.pending:
                raise _fail(pynvml.NVML_ERROR_TIMEOUT)
            return event_set.pending.popleft()

    def nvmlEventSetFree(self, event_set: _EventSet) -> None:
        with self._events:
            event_set.pending.clear()
            event_set.devices.clear()
            if event_set in self._sets:
                self._sets.remove(event_set)

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _event(handle: _Handle, xid: int, at: datetime, gpu_instance: int | None = None) -> _EventData:
        return _EventData(
            device=handle,
            eventType=pynvml.nvmlEventTypeXidCriticalError,
            eventData=xid,
            gpuInstanceId=NO_INSTANCE if gpu_instance is None else gpu_instance,
            timeStamp=int(at.timestamp() * 1_000_000),
        )

    def _require(self) -> None:
        if self._initialised <= 0:
            raise _fail(pynvml.NVML_ERROR_UNINITIALIZED)

    @staticmethod
    def _refuse(call: str, reading: GpuReading) -> None:
        if call in reading.unsupported:
            raise _fail(pynvml.NVML_ERROR_NOT_SUPPORTED)
        if call in reading.no_permission:
            raise _fail(pynvml.NVML_ERROR_NO_PERMISSION)

    def _reading(self, handle: _Handle, call: str) -> GpuReading:
        self._require()
        if not isinstance(handle, _Handle):
            raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        self._refuse(call, handle.reading)
        return handle.reading

    def _mig(self, handle: _Handle | _MigHandle) -> MigReading:
        self._require()
        if not isinstance(handle, _MigHandle):
            raise _fail(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return handle.mig
