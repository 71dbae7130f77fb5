"""The fake NVML answers pynvml's calls from gpus.json, in NVML's units and with its errors."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pynvml
import pytest

from bot.sandbox.nvml import FakeNvml
from bot.sandbox.pack import GpuReading

READING = GpuReading.model_validate(
    {
        "index": 0,
        "uuid": "GPU-aaaa",
        "name": "NVIDIA H100 80GB HBM3",
        "memory_total_mib": 81559,
        "memory_used_mib": 80100,
        "utilization_gpu": 97,
        "temperature_c": 71,
        "power_w": 690.5,
        "ecc_volatile_uncorrected": 2,
        "ecc_aggregate_uncorrected": 9,
        "ecc_volatile_corrected": 40,
        "retired_pages_pending": True,
        "retired_pages_dbe": 3,
        "remapped_rows": {"correctable": 1, "uncorrectable": 2, "pending": True},
        "xid_events": [{"xid": 79, "at": "2026-06-01T09:58:12Z"}, {"xid": 13, "at": "2026-06-01T09:57:00Z"}],
    }
)
MIG = GpuReading.model_validate(
    {
        "index": 1,
        "uuid": "GPU-mig",
        "name": "NVIDIA A100-SXM4-80GB",
        "memory_total_mib": 81920,
        "memory_used_mib": 30000,
        "utilization_gpu": 0,
        "temperature_c": 50,
        "power_w": 120,
        "mig_devices": [
            {"uuid": "MIG-1", "gpu_instance_id": 1, "compute_instance_id": 0, "memory_total_mib": 40192},
            {"uuid": "MIG-2", "gpu_instance_id": 2, "compute_instance_id": 0, "memory_total_mib": 40192},
        ],
        "unsupported": ["nvmlDeviceGetRetiredPages"],
        "no_permission": ["nvmlDeviceGetPowerUsage"],
    }
)


def test_readings_in_nvml_units() -> None:
    nvml = FakeNvml([READING])
    with pytest.raises(pynvml.NVMLError_Uninitialized):
        nvml.nvmlDeviceGetCount()
    nvml.nvmlInit()
    assert nvml.nvmlDeviceGetCount() == 1
    handle = nvml.nvmlDeviceGetHandleByIndex(0)
    assert nvml.nvmlDeviceGetHandleByUUID("GPU-aaaa") == handle
    memory = nvml.nvmlDeviceGetMemoryInfo(handle)
    assert memory.total == 81559 * 1024 * 1024 and memory.used == 80100 * 1024 * 1024
    assert memory.free == memory.total - memory.used
    assert nvml.nvmlDeviceGetUtilizationRates(handle).gpu == 97
    assert nvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU) == 71
    assert nvml.nvmlDeviceGetPowerUsage(handle) == 690500  # milliwatts
    uncorrected = pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED
    assert nvml.nvmlDeviceGetTotalEccErrors(handle, uncorrected, pynvml.NVML_VOLATILE_ECC) == 2
    assert nvml.nvmlDeviceGetTotalEccErrors(handle, uncorrected, pynvml.NVML_AGGREGATE_ECC) == 9
    corrected = pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED
    assert nvml.nvmlDeviceGetTotalEccErrors(handle, corrected, pynvml.NVML_AGGREGATE_ECC) == 40  # as volatile
    assert nvml.nvmlDeviceGetRetiredPagesPendingStatus(handle) == pynvml.NVML_FEATURE_ENABLED
    dbe = pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
    assert len(nvml.nvmlDeviceGetRetiredPages(handle, dbe)) == 3
    assert nvml.nvmlDeviceGetRemappedRows(handle) == (1, 2, 1, 0)
    assert nvml.nvmlDeviceGetMigMode(handle) == [pynvml.NVML_DEVICE_MIG_DISABLE] * 2
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        nvml.nvmlDeviceGetHandleByIndex(5)
    with pytest.raises(pynvml.NVMLError_NotFound):
        nvml.nvmlDeviceGetHandleByUUID("GPU-none")


def test_mig_and_refused_calls_raise_pynvml_classes() -> None:
    nvml = FakeNvml([MIG])
    nvml.nvmlInit()
    handle = nvml.nvmlDeviceGetHandleByIndex(0)
    assert nvml.nvmlDeviceGetMigMode(handle)[0] == pynvml.NVML_DEVICE_MIG_ENABLE
    with pytest.raises(pynvml.NVMLError_NotSupported):  # as on a real MIG-enabled parent
        nvml.nvmlDeviceGetUtilizationRates(handle)
    with pytest.raises(pynvml.NVMLError_NotSupported):
        nvml.nvmlDeviceGetRetiredPages(handle, pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
    with pytest.raises(pynvml.NVMLError_NoPermission):
        nvml.nvmlDeviceGetPowerUsage(handle)
    assert nvml.nvmlDeviceGetName(handle) == "NVIDIA A100-SXM4-80GB"  # the other calls still answer
    slots = nvml.nvmlDeviceGetMaxMigDeviceCount(handle)
    assert slots == 7
    second = nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, 1)
    assert nvml.nvmlDeviceGetUUID(second) == "MIG-2"
    assert nvml.nvmlDeviceGetGpuInstanceId(second) == 2 and nvml.nvmlDeviceGetComputeInstanceId(second) == 0
    assert nvml.nvmlDeviceGetMemoryInfo(second).total == 40192 * 1024 * 1024
    with pytest.raises(pynvml.NVMLError_NotFound):
        nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, 2)  # an empty slot
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        nvml.nvmlDeviceGetGpuInstanceId(handle)  # a full GPU is no MIG device


def test_xid_events_drain_in_time_order_then_time_out() -> None:
    nvml = FakeNvml([READING])
    nvml.nvmlInit()
    events = nvml.nvmlEventSetCreate()
    nvml.nvmlDeviceRegisterEvents(
        nvml.nvmlDeviceGetHandleByIndex(0), pynvml.nvmlEventTypeXidCriticalError, events
    )
    first, second = nvml.nvmlEventSetWait(events, 100), nvml.nvmlEventSetWait(events, 100)
    assert (first.eventData, second.eventData) == (13, 79)
    assert first.eventType == pynvml.nvmlEventTypeXidCriticalError
    assert first.timeStamp == int(datetime(2026, 6, 1, 9, 57, tzinfo=UTC).timestamp() * 1_000_000)
    assert first.gpuInstanceId == 0xFFFFFFFF
    with pytest.raises(pynvml.NVMLError_Timeout):
        nvml.nvmlEventSetWait(events, 100)
    nvml.nvmlEventSetFree(events)
    nvml.nvmlShutdown()


def test_a_queued_xid_wakes_a_waiting_set() -> None:
    """A waiter blocked in nvmlEventSetWait gets an event queued meanwhile, not a timeout."""
    nvml = FakeNvml([READING.model_copy(update={"xid_events": []})])
    nvml.nvmlInit()
    events = nvml.nvmlEventSetCreate()
    nvml.nvmlDeviceRegisterEvents(
        nvml.nvmlDeviceGetHandleByIndex(0), pynvml.nvmlEventTypeXidCriticalError, events
    )
    got: list[int] = []
    waiter = threading.Thread(target=lambda: got.append(nvml.nvmlEventSetWait(events, 30_000).eventData))
    waiter.start()
    nvml.queue_xid(0, 48, datetime(2026, 6, 1, 10, 0, tzinfo=UTC), gpu_instance_id=3)
    waiter.join(30)
    assert got == [48]
    unregistered = nvml.nvmlEventSetCreate()
    nvml.queue_xid(0, 48, datetime(2026, 6, 1, 10, 1, tzinfo=UTC))
    with pytest.raises(pynvml.NVMLError_Timeout):  # only sets registered for the GPU hear of it
        nvml.nvmlEventSetWait(unregistered, 0)
