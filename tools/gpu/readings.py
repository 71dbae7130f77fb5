"""The GPU agent's wire format: what one node's NVML says, typed, shared by the agent and the bot.

Every field NVML may refuse is optional: a call that answers NotSupported (utilisation on a
MIG-enabled parent, retired pages on Ampere, which remaps rows instead), NoPermission or GpuIsLost
leaves its field null and names itself in the GPU's `unsupported` list. A GPU is never dropped for
one refused call, nor a node for one GPU.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

API_VERSION = "v1"


class _Wire(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")  # an older bot reads a newer agent


class Unsupported(_Wire):
    """A field NVML did not give, and its answer ("NotSupported", "NoPermission", "GpuIsLost"...)."""

    field: str
    reason: str


class XidEvent(_Wire):
    """An Xid critical-error event as the agent buffered it: when, on which GPU (and MIG instance)."""

    xid: int
    at: datetime
    gpu_index: int | None = None
    uuid: str | None = None
    gpu_instance_id: int | None = None  # None: not on a MIG instance
    compute_instance_id: int | None = None


class EccCounts(_Wire):
    """Memory error counts: volatile (since the driver loaded) and aggregate (the card's lifetime)."""

    volatile_uncorrected: int | None = None
    volatile_corrected: int | None = None
    aggregate_uncorrected: int | None = None
    aggregate_corrected: int | None = None


class RetiredPages(_Wire):
    """Pages retired per cause (before Ampere) and whether a retirement waits for a reset."""

    single_bit_ecc: int | None = None
    double_bit_ecc: int | None = None
    pending: bool | None = None


class RemappedRows(_Wire):
    """Row remapping (Ampere and later): a pending remap needs a GPU reset, a failure an RMA."""

    correctable: int
    uncorrectable: int
    pending: bool
    failure: bool


class MigDevice(_Wire):
    index: int
    uuid: str | None = None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None


class GpuState(_Wire):
    """One physical GPU, in plain units (MiB, %, °C, W)."""

    index: int
    uuid: str | None = None
    name: str | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    utilization_pct: int | None = None
    temperature_c: int | None = None
    power_w: float | None = None
    ecc: EccCounts = Field(default_factory=EccCounts)
    retired_pages: RetiredPages = Field(default_factory=RetiredPages)
    remapped_rows: RemappedRows | None = None
    mig_enabled: bool | None = None
    mig_devices: list[MigDevice] = Field(default_factory=list)
    xids: list[XidEvent] = Field(default_factory=list)
    unsupported: list[Unsupported] = Field(default_factory=list)

    @property
    def needs_reset(self) -> bool:
        """A pending row remap or page retirement only takes effect after a GPU reset."""
        remap = self.remapped_rows
        return bool(self.retired_pages.pending or (remap is not None and remap.pending))

    @property
    def remap_failed(self) -> bool:
        """The row remapper ran out of spare rows: the card needs an RMA."""
        return self.remapped_rows is not None and self.remapped_rows.failure


class NodeGpus(_Wire):
    """GET /v1/gpus: every GPU of one node, read at `read_at` by the agent on that node."""

    api_version: str = API_VERSION
    node: str
    driver_version: str | None = None
    read_at: datetime
    gpus: list[GpuState] = Field(default_factory=list)
    unsupported: list[Unsupported] = Field(default_factory=list)  # node-wide: the device count, events


class XidList(_Wire):
    """GET /v1/xids?since=: the buffered Xid events at or after `since`, oldest first."""

    node: str
    since: datetime | None = None
    events: list[XidEvent] = Field(default_factory=list)


class Health(_Wire):
    """GET /healthz: NVML is open and the Xid watcher runs."""

    status: str
    node: str
    gpus: int
    watching_xids: bool
