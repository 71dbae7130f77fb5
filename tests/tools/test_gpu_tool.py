"""The GPU tool's live conversion code on the pack's readings, and the gap without a driver."""

from __future__ import annotations

from datetime import UTC, datetime

import pynvml

from bot.sandbox.nvml import FakeNvml
from bot.sandbox.pack import GpuReading, Pack
from tools.gpu import GpuTool
from tools.result import Status

AS_OF = datetime(2026, 6, 1, 10, 7, tzinfo=UTC)
NODE = "aks-gpua100-28391047-vmss000004"


def test_readings_become_evidence(example: Pack) -> None:
    probes = {node: FakeNvml(readings) for node, readings in example.gpus.items()}
    result = GpuTool(probes).read([NODE], as_of=AS_OF)
    assert result.status is Status.OK and len(result.evidence) == 1
    gpu = result.evidence[0]
    reading = example.gpus[NODE][0]
    assert gpu.labels["utilization"] == str(reading.utilization_gpu)
    assert f"memory {reading.memory_used_mib}/{reading.memory_total_mib} MiB" in gpu.summary
    assert f"{reading.power_w:.0f} W" in gpu.summary and gpu.labels["faulty"] == "false"


def test_xid_79_is_reported_with_its_time() -> None:
    reading = GpuReading.model_validate(
        {
            "index": 3,
            "uuid": "GPU-3",
            "name": "NVIDIA H100 80GB HBM3",
            "memory_total_mib": 81559,
            "memory_used_mib": 0,
            "utilization_gpu": 0,
            "temperature_c": 40,
            "power_w": 80,
            "xid_events": [{"xid": 79, "at": "2026-06-01T09:58:12Z"}],
        }
    )
    gpu = GpuTool({"gpu-node-3": FakeNvml([reading])}).read(["gpu-node-3"], as_of=AS_OF).evidence[0]
    assert "Xid 79 (GPU has fallen off the bus) at 09:58:12Z" in gpu.summary
    assert gpu.onset == datetime(2026, 6, 1, 9, 58, 12, tzinfo=UTC)
    assert gpu.labels["faulty"] == "true" and gpu.labels["xids"] == "79"


def test_live_path_without_a_driver_is_a_named_gap() -> None:
    """This machine has no NVIDIA driver: the real pynvml module reports it, the tool names the gap."""
    for _ in range(3):  # pynvml fails differently on a second init in one process; the gap must not
        result = GpuTool({"this-host": pynvml}).read(["this-host"], as_of=AS_OF)
        assert result.status is Status.ERROR and result.gap is not None
        assert str(result.gap) == "gpu: NVML on this-host: NVML not available on this host"
    assert GpuTool({}).read(["gpu-node-9"], as_of=AS_OF).gap is not None
