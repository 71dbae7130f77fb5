"""gpus.json: the GPU agents' NVML readings of the scope's nodes, in the pack's format.

The agents' wire format (tools.gpu.readings) names a refused NVML call by the field it fills
(`utilization`); a pack names the pynvml call (`nvmlDeviceGetUtilizationRates`) so that the
sandbox's NVML refuses the same call. A field NVML refused is written as 0 and its call listed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.gpu import GpuTool
from tools.gpu.readings import GpuState, NodeGpus
from tools.result import Gap

# The agent's field names (tools.gpu.nvml) → the pynvml call that fills them.
CALLS = {
    "handle": "nvmlDeviceGetHandleByIndex",
    "index": "nvmlDeviceGetIndex",
    "uuid": "nvmlDeviceGetUUID",
    "name": "nvmlDeviceGetName",
    "memory": "nvmlDeviceGetMemoryInfo",
    "utilization": "nvmlDeviceGetUtilizationRates",
    "temperature": "nvmlDeviceGetTemperature",
    "power": "nvmlDeviceGetPowerUsage",
    "mig_mode": "nvmlDeviceGetMigMode",
    "remapped_rows": "nvmlDeviceGetRemappedRows",
    "retired_pages.pending": "nvmlDeviceGetRetiredPagesPendingStatus",
    "retired_pages.single_bit_ecc": "nvmlDeviceGetRetiredPages",
    "retired_pages.double_bit_ecc": "nvmlDeviceGetRetiredPages",
}
ECC_CALL = "nvmlDeviceGetTotalEccErrors"


def read(tool: GpuTool, nodes: list[str]) -> tuple[dict[str, NodeGpus], list[str]]:
    """The readings of the nodes that have an agent, and why the others could not be read."""
    found = tool.readings()
    if isinstance(found, Gap):
        return {}, [str(found)]
    readings: dict[str, NodeGpus] = {}
    problems: list[str] = []
    for node in nodes:
        got = found.get(node)
        if isinstance(got, Gap):
            problems.append(f"{node}: {got}")
        elif got is not None:
            readings[node] = got
    return readings, problems


def pack_reading(gpu: GpuState) -> dict[str, Any]:
    """One GPU as gpus.json holds it."""
    unsupported = sorted({_call(u.field) for u in gpu.unsupported if u.reason != "NoPermission"})
    refused = sorted({_call(u.field) for u in gpu.unsupported if u.reason == "NoPermission"})
    remap = gpu.remapped_rows
    out: dict[str, Any] = {
        "index": gpu.index,
        "uuid": gpu.uuid or f"GPU-unknown-{gpu.index}",
        "name": gpu.name or "unknown",
        "memory_total_mib": gpu.memory_total_mib or 1,
        "memory_used_mib": gpu.memory_used_mib or 0,
        "utilization_gpu": gpu.utilization_pct or 0,
        "temperature_c": gpu.temperature_c or 0,
        "power_w": gpu.power_w or 0.0,
        "ecc_volatile_uncorrected": gpu.ecc.volatile_uncorrected or 0,
        "ecc_volatile_corrected": gpu.ecc.volatile_corrected or 0,
        "ecc_aggregate_uncorrected": gpu.ecc.aggregate_uncorrected,
        "ecc_aggregate_corrected": gpu.ecc.aggregate_corrected,
        "retired_pages_pending": bool(gpu.retired_pages.pending),
        "retired_pages_sbe": gpu.retired_pages.single_bit_ecc or 0,
        "retired_pages_dbe": gpu.retired_pages.double_bit_ecc or 0,
        "xid_events": [{"xid": x.xid, "at": x.at.isoformat().replace("+00:00", "Z")} for x in gpu.xids],
        "unsupported": unsupported,
        "no_permission": refused,
    }
    if remap is not None:
        out["remapped_rows"] = remap.model_dump()
    if gpu.mig_enabled:
        out["mig_devices"] = [
            {
                "uuid": m.uuid or f"MIG-unknown-{m.index}",
                "gpu_instance_id": m.gpu_instance_id or 0,
                "compute_instance_id": m.compute_instance_id or 0,
                "memory_total_mib": m.memory_total_mib or 1,
                "memory_used_mib": m.memory_used_mib or 0,
            }
            for m in gpu.mig_devices
        ]
    return out


def _call(field: str) -> str:
    return ECC_CALL if field.startswith("ecc.") else CALLS.get(field, field)


def write(readings: dict[str, NodeGpus], path: Path) -> None:
    nodes = {node: [pack_reading(g) for g in got.gpus] for node, got in sorted(readings.items())}
    path.write_text(json.dumps({"nodes": nodes}, indent=2) + "\n", encoding="utf-8")
