"""The GPU agent over real HTTP, with the fake NVML behind pynvml's calls: readings, Xids buffered
from start-up, row remapping, MIG, and refused calls that null one field, never the GPU."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
import pynvml
import pytest

from bot.gpuagent.agent import GpuAgent, XidBuffer
from bot.gpuagent.app import build_app
from bot.sandbox.nvml import FakeNvml
from bot.sandbox.pack import GpuReading
from bot.sandbox.server import ServerThread
from tools.gpu.readings import Health, NodeGpus, XidEvent, XidList

NOW = datetime(2026, 6, 1, 10, 7, tzinfo=UTC)
NODE = "gpu-node-1"


def reading(index: int, **extra: object) -> GpuReading:
    base = {
        "index": index,
        "uuid": f"GPU-{index}",
        "name": "NVIDIA H100 80GB HBM3",
        "memory_total_mib": 81559,
        "memory_used_mib": 40000,
        "utilization_gpu": 60,
        "temperature_c": 55,
        "power_w": 400,
    }
    return GpuReading.model_validate({**base, **extra})


@contextmanager
def serving(nvml: FakeNvml, buffer: XidBuffer | None = None) -> Iterator[tuple[httpx.Client, GpuAgent]]:
    agent = GpuAgent(nvml, NODE, clock=lambda: NOW, wait_ms=50, buffer=buffer)
    with (
        agent,
        ServerThread(build_app(agent)) as server,
        httpx.Client(base_url=server.url, timeout=5) as http,
    ):
        yield http, agent


def gpus(http: httpx.Client) -> NodeGpus:
    response = http.get("/v1/gpus")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    return NodeGpus.model_validate_json(response.content)


def test_readings_in_plain_units() -> None:
    nvml = FakeNvml([reading(0, ecc_volatile_uncorrected=1, ecc_aggregate_uncorrected=5), reading(1)])
    with serving(nvml) as (http, _):
        node = gpus(http)
        health = Health.model_validate_json(http.get("/healthz").content)
    assert node.node == NODE and node.driver_version == "550.90.07" and node.read_at == NOW
    assert [g.index for g in node.gpus] == [0, 1] and node.unsupported == []
    first = node.gpus[0]
    assert (first.uuid, first.memory_used_mib, first.memory_total_mib) == ("GPU-0", 40000, 81559)
    assert (first.utilization_pct, first.temperature_c, first.power_w) == (60, 55, 400.0)
    assert first.ecc.volatile_uncorrected == 1 and first.ecc.aggregate_uncorrected == 5
    assert first.retired_pages.pending is False and first.retired_pages.double_bit_ecc == 0
    assert first.mig_enabled is False and first.unsupported == []
    assert health.status == "ok" and health.gpus == 2 and health.watching_xids
    with pytest.raises(pynvml.NVMLError_Uninitialized):  # stopping the agent shut NVML down
        nvml.nvmlDeviceGetCount()


def test_xids_registered_at_start_are_served_later_with_their_times() -> None:
    """Events that happened before the read (recorded, or queued while the agent runs) are kept."""
    past = datetime(2026, 6, 1, 9, 58, 12, tzinfo=UTC)
    nvml = FakeNvml([reading(0), reading(1, xid_events=[{"xid": 79, "at": past.isoformat()}])])
    with serving(nvml) as (http, _):
        first = gpus(http)
        assert first.gpus[0].xids == []
        assert [(x.xid, x.at, x.uuid, x.gpu_index) for x in first.gpus[1].xids] == [(79, past, "GPU-1", 1)]
        later = NOW - timedelta(minutes=2)
        nvml.queue_xid(0, 48, later, gpu_instance_id=2)
        deadline = time.monotonic() + 10
        while not gpus(http).gpus[0].xids and time.monotonic() < deadline:
            time.sleep(0.02)
        seen = gpus(http).gpus[0].xids
        assert [(x.xid, x.at, x.gpu_instance_id, x.compute_instance_id) for x in seen] == [
            (48, later, 2, None)
        ]
        assert gpus(http).gpus[1].xids == first.gpus[1].xids  # still there on a later read
        since = XidList.model_validate_json(
            http.get("/v1/xids", params={"since": "2026-06-01T10:00:00Z"}).content
        )
        assert [e.xid for e in since.events] == [48]
        every = XidList.model_validate_json(http.get("/v1/xids").content)
        assert [e.xid for e in every.events] == [79, 48]
        assert http.get("/v1/xids", params={"since": "yesterday"}).status_code == 400
        assert http.get("/v1/xids", params={"since": "2026-06-01T10:00:00"}).status_code == 400


def test_the_xid_buffer_is_bounded_in_count_and_age() -> None:
    buffer = XidBuffer(size=3, max_age=timedelta(hours=1))
    for minutes in (90, 50, 40, 30, 20):
        buffer.add(XidEvent(xid=minutes, at=NOW - timedelta(minutes=minutes)))
    assert [e.xid for e in buffer.since(None, now=NOW)] == [40, 30, 20]
    assert [e.xid for e in buffer.since(None, now=NOW + timedelta(minutes=25))] == [30, 20]
    assert [e.xid for e in buffer.since(NOW - timedelta(minutes=25), now=NOW)] == [20]


def test_an_agent_with_a_small_buffer_keeps_the_latest() -> None:
    events = [{"xid": 31, "at": (NOW - timedelta(minutes=m)).isoformat()} for m in (5, 4, 3, 2, 1)]
    with serving(FakeNvml([reading(0, xid_events=events)]), buffer=XidBuffer(size=2)) as (http, _):
        assert [x.at for x in gpus(http).gpus[0].xids] == [
            NOW - timedelta(minutes=2),
            NOW - timedelta(minutes=1),
        ]


def test_remapped_rows() -> None:
    rows = {"correctable": 0, "uncorrectable": 3, "pending": True, "failure": True}
    with serving(FakeNvml([reading(0, remapped_rows=rows)])) as (http, _):
        gpu = gpus(http).gpus[0]
    assert gpu.remapped_rows is not None
    assert (gpu.remapped_rows.uncorrectable, gpu.remapped_rows.pending, gpu.remapped_rows.failure) == (
        3,
        True,
        True,
    )
    assert gpu.needs_reset and gpu.remap_failed


def test_a_mig_gpu_is_read_with_its_instances_and_without_utilisation() -> None:
    mig = reading(
        0,
        mig_devices=[
            {
                "uuid": "MIG-a",
                "gpu_instance_id": 1,
                "compute_instance_id": 0,
                "memory_total_mib": 40192,
                "memory_used_mib": 100,
            },
            {"uuid": "MIG-b", "gpu_instance_id": 2, "compute_instance_id": 0, "memory_total_mib": 40192},
        ],
    )
    with serving(FakeNvml([mig, reading(1)])) as (http, _):
        node = gpus(http)
    gpu = node.gpus[0]
    assert gpu.mig_enabled and gpu.utilization_pct is None
    assert [(u.field, u.reason) for u in gpu.unsupported] == [("utilization", "NotSupported")]
    assert [(m.uuid, m.gpu_instance_id, m.memory_total_mib, m.memory_used_mib) for m in gpu.mig_devices] == [
        ("MIG-a", 1, 40192, 100),
        ("MIG-b", 2, 40192, 0),
    ]
    assert gpu.memory_total_mib == 81559 and gpu.temperature_c == 55  # the rest of the GPU is read
    assert node.gpus[1].utilization_pct == 60  # and the node's other GPU


def test_one_refused_call_nulls_one_field_not_the_gpu() -> None:
    refused = reading(
        0,
        unsupported=["nvmlDeviceGetRemappedRows", "nvmlDeviceGetRetiredPages"],
        no_permission=["nvmlDeviceGetPowerUsage"],
    )
    lost = reading(1, unsupported=["nvmlDeviceGetHandleByIndex"])
    with serving(FakeNvml([refused, lost])) as (http, _):
        node = gpus(http)
    gpu = node.gpus[0]
    assert gpu.power_w is None and gpu.remapped_rows is None and gpu.retired_pages.double_bit_ecc is None
    assert gpu.utilization_pct == 60 and gpu.retired_pages.pending is False
    assert {(u.field, u.reason) for u in gpu.unsupported} == {
        ("power", "NoPermission"),
        ("remapped_rows", "NotSupported"),
        ("retired_pages.single_bit_ecc", "NotSupported"),
        ("retired_pages.double_bit_ecc", "NotSupported"),
    }
    # a GPU whose handle NVML refuses is still listed, by index, with the reason
    assert node.gpus[1].index == 1 and node.gpus[1].uuid is None
    assert [(u.field, u.reason) for u in node.gpus[1].unsupported] == [("handle", "NotSupported")]
    # ... and the Xid registration it could not make is named node-wide
    assert [(u.field, u.reason) for u in node.unsupported] == [("gpu 1: handle", "NotSupported")]
