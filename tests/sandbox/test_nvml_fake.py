"""The fake NVML answers pynvml's calls from gpus.json, in NVML's units and with its errors."""

from __future__ import annotations

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
        "retired_pages_pending": True,
        "xid_events": [{"xid": 79, "at": "2026-06-01T09:58:12Z"}, {"xid": 13, "at": "2026-06-01T09:57:00Z"}],
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
    errors = nvml.nvmlDeviceGetTotalEccErrors(
        handle, pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_VOLATILE_ECC
    )
    assert errors == 2
    assert nvml.nvmlDeviceGetRetiredPagesPendingStatus(handle) == pynvml.NVML_FEATURE_ENABLED
    with pytest.raises(pynvml.NVMLError_NotSupported):
        nvml.nvmlDeviceGetRemappedRows(handle)
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        nvml.nvmlDeviceGetHandleByIndex(5)


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
    with pytest.raises(pynvml.NVMLError_Timeout):
        nvml.nvmlEventSetWait(events, 100)
    nvml.nvmlEventSetFree(events)
    nvml.nvmlShutdown()
