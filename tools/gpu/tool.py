"""GPU evidence from the agents on the incident's nodes, read over HTTP under the tool's deadline.

Each node is its own read: a node without an agent pod, or whose agent is down or slow, becomes a
gap naming that node while the other nodes' GPUs still become evidence. A card is `faulty` when it
needs a reset or an RMA: a hardware Xid, volatile uncorrected ECC, pages waiting to retire, a row
remap pending or failed. Lifetime (aggregate) ECC counts are context, not a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TypeVar

import httpx

from tools.gpu.agents import AgentDirectory
from tools.gpu.readings import GpuState, Health, NodeGpus
from tools.result import DEFAULT_TIMEOUT, Evidence, Gap, Source, ToolResult, bounded
from tools.xid import application_fault
from tools.xid import meaning as xid_meaning

NO_AGENT = "DaemonSet pod missing or not ready"
T = TypeVar("T")


class AgentError(RuntimeError):
    """The agent answered, but not with a reading."""


class GpuTool:
    """Per-GPU readings from the node agents (`incident-bot gpu-agent`) of the nodes in scope."""

    def __init__(
        self, agents: AgentDirectory, *, timeout: float = DEFAULT_TIMEOUT, http: httpx.Client | None = None
    ) -> None:
        self._agents = agents
        self._timeout = timeout
        self._http = http or httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def read(self, nodes: list[str], *, as_of: datetime) -> ToolResult:
        """Every node's evidence in one result; its gap (if any) names the nodes that were not read."""
        results = self.read_nodes(nodes, as_of=as_of)
        evidence = [e for r in results for e in r.evidence]
        gaps = [r.gap for r in results if r.gap is not None]
        if not gaps:
            return ToolResult.of(evidence)
        gap = (
            gaps[0]
            if len(gaps) == 1
            else Gap(source=Source.GPU, what="nodes", reason="; ".join(f"{g.what}: {g.reason}" for g in gaps))
        )
        return ToolResult.partial(evidence, gap) if evidence else ToolResult.from_gap(gap)

    def read_nodes(self, nodes: list[str], *, as_of: datetime) -> list[ToolResult]:
        """One result per GPU node, in `nodes` order (or one gap when the agents cannot be found)."""
        located = bounded(
            Source.GPU,
            f"agent discovery ({self._agents.describe()})",
            lambda: self._agents.locate(nodes, timeout=self._timeout),
            timeout=self._timeout,
        )
        if isinstance(located, Gap):
            return [ToolResult.from_gap(located)]
        gpu_nodes = [n for n in nodes if n in located]  # the others have no GPUs to read
        if not gpu_nodes:
            return []
        with ThreadPoolExecutor(max_workers=min(8, len(gpu_nodes)), thread_name_prefix="gpu-agents") as pool:
            return list(pool.map(lambda node: self._node(node, located[node], as_of), gpu_nodes))

    def health(self) -> dict[str, Health | Gap] | Gap:
        """Every Ready agent's GET /healthz, by node (for `doctor`); a Gap when none can be found."""
        return self._each(self._health)

    def readings(self) -> dict[str, NodeGpus | Gap] | Gap:
        """Every Ready agent's GET /v1/gpus, by node (for `doctor`: MIG, what NVML refuses)."""
        return self._each(self._fetch)

    def _each(self, call: Callable[[str], T]) -> dict[str, T | Gap] | Gap:
        found = bounded(
            Source.GPU,
            f"agent discovery ({self._agents.describe()})",
            lambda: self._agents.every(timeout=self._timeout),
            timeout=self._timeout,
        )
        if isinstance(found, Gap):
            return found

        def check(node: str, url: str) -> T | Gap:
            return bounded(Source.GPU, f"agent on node {node}", lambda: call(url), timeout=self._timeout)

        with ThreadPoolExecutor(
            max_workers=max(1, min(8, len(found))), thread_name_prefix="gpu-agents"
        ) as pool:
            return dict(zip(found, pool.map(lambda item: check(*item), found.items()), strict=True))

    def _health(self, url: str) -> Health:
        response = self._http.get(f"{url}/healthz", timeout=self._timeout)
        if response.status_code != 200:
            raise AgentError(f"HTTP {response.status_code} from {url}")
        return Health.model_validate_json(response.content)

    def _node(self, node: str, url: str | None, as_of: datetime) -> ToolResult:
        if url is None:
            return ToolResult.failed(Source.GPU, f"no agent on node {node}", NO_AGENT)
        got = bounded(Source.GPU, f"agent on node {node}", lambda: self._fetch(url), timeout=self._timeout)
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        if not got.gpus and got.unsupported:
            why = ", ".join(f"{u.field} {u.reason}" for u in got.unsupported)
            return ToolResult.failed(Source.GPU, f"agent on node {node}", f"NVML: {why}")
        return ToolResult.of([gpu_evidence(node, gpu, as_of) for gpu in got.gpus])

    def _fetch(self, url: str) -> NodeGpus:
        response = self._http.get(f"{url}/v1/gpus", timeout=self._timeout)
        if response.status_code != 200:
            raise AgentError(f"HTTP {response.status_code} from {url}")
        return NodeGpus.model_validate_json(response.content)


def _summary(node: str, gpu: GpuState) -> list[str]:
    used, total = gpu.memory_used_mib, gpu.memory_total_mib
    memory = f"memory {used}/{total} MiB ({used / total:.0%})" if used is not None and total else "memory n/a"
    util = f"{gpu.utilization_pct}%" if gpu.utilization_pct is not None else "n/a"
    parts = [
        f"{node} GPU {gpu.index} ({gpu.name or 'unknown'}): util {util}",
        memory,
        f"{gpu.temperature_c}°C" if gpu.temperature_c is not None else "temperature n/a",
        f"{gpu.power_w:.0f} W" if gpu.power_w is not None else "power n/a",
    ]
    ecc = gpu.ecc
    if ecc.volatile_uncorrected:
        parts.append(f"{ecc.volatile_uncorrected} uncorrected ECC errors")
    if ecc.aggregate_uncorrected and ecc.aggregate_uncorrected > (ecc.volatile_uncorrected or 0):
        parts.append(f"{ecc.aggregate_uncorrected} uncorrected ECC errors over the card's life")
    if gpu.retired_pages.pending:
        parts.append("page retirement pending")
    remap = gpu.remapped_rows
    if remap is not None and remap.failure:
        parts.append("row remapping failed (the card needs an RMA)")
    elif remap is not None and remap.pending:
        parts.append("row remap pending (the card needs a reset)")
    if remap is not None and remap.uncorrectable:
        parts.append(f"{remap.uncorrectable} rows remapped for uncorrectable errors")
    if gpu.mig_enabled:
        parts.append(f"MIG enabled, {len(gpu.mig_devices)} instances")
    for xid in gpu.xids:
        parts.append(f"Xid {xid.xid} ({xid_meaning(xid.xid)}) at {xid.at:%H:%M:%S}Z")
    if gpu.unsupported:
        parts.append("not read: " + ", ".join(f"{u.field} ({u.reason})" for u in gpu.unsupported))
    return parts


def gpu_evidence(node: str, gpu: GpuState, as_of: datetime) -> Evidence:
    """One GPU as evidence; labels `faulty`, `app_fault`, `xids` are what the findings read."""
    numbers = [x.xid for x in gpu.xids]
    hardware = [x for x in numbers if not application_fault(x)]
    ecc = bool(gpu.ecc.volatile_uncorrected)
    faulty = bool(hardware or ecc or gpu.needs_reset or gpu.remap_failed)
    crashed = [x for x in numbers if application_fault(x)]
    used, total = gpu.memory_used_mib, gpu.memory_total_mib
    labels = {
        "node": node,
        "gpu": str(gpu.index),
        "uuid": gpu.uuid or "",
        "faulty": str(faulty).lower(),  # the card itself: a hardware Xid, ECC, a reset or RMA due
        "app_fault": str(bool(crashed) and not faulty).lower(),  # only application-fault Xids
        "xids": ",".join(str(x) for x in numbers),
        "memory_used_ratio": f"{used / total:.3f}" if used is not None and total else "0.000",
    }
    if gpu.utilization_pct is not None:
        labels["utilization"] = str(gpu.utilization_pct)
    if gpu.remapped_rows is not None and (gpu.remap_failed or gpu.remapped_rows.pending):
        labels["remap"] = "failure" if gpu.remap_failed else "pending"
    if gpu.ecc.aggregate_uncorrected is not None:
        labels["ecc_aggregate_uncorrected"] = str(gpu.ecc.aggregate_uncorrected)
    if gpu.mig_enabled:
        labels["mig"] = "true"
    if gpu.unsupported:
        labels["unsupported"] = ",".join(u.field for u in gpu.unsupported)
    return Evidence(
        id=f"gpu:{node}:{gpu.index}",
        source=Source.GPU,
        query=f"nvml {node} device {gpu.index} ({gpu.uuid})",
        summary="; ".join(_summary(node, gpu)),
        value=max(numbers) if numbers else gpu.utilization_pct,
        at=as_of,
        link=f"kubectl debug node/{node} -it --image=nvidia/cuda -- nvidia-smi -q -i {gpu.index}",
        layer="INF",
        onset=min((x.at for x in gpu.xids), default=None),
        labels=labels,
    )
