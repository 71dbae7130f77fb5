"""A pack being built: its clock, metrics, logs, Kubernetes objects, GPU readings and answer.

Scenario modules fill a `Pack` and `write()` produces the folder in the format of
spec/scenario-pack.md. Helpers here are the pieces most scenarios share: GPU nodes with their
devices, pods named the Kubernetes way, and sampled access logs that follow the metrics.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from . import k8s
from .logs import Ids, LogBook, Source, ecs
from .openmetrics import OpenMetrics
from .series import Clock, iso, utc
from .traffic import GpuDevice, GpuSeries, Replica, gpu_uuid

GPU_PCI = {
    "NVIDIA H100 80GB HBM3": ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"],
    "NVIDIA H200": ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"],
    "NVIDIA A100-SXM4-80GB": ["07", "0F", "47", "4E", "87", "90", "B7", "BD"],
    "NVIDIA A100-SXM4-40GB": ["07", "0F", "47", "4E", "87", "90", "B7", "BD"],
    "NVIDIA L40S": ["01", "25", "41", "61", "81", "A1", "C1", "E1"],
}
GPU_MEM = {
    "NVIDIA H100 80GB HBM3": 81559,
    "NVIDIA H200": 143771,
    "NVIDIA A100-SXM4-80GB": 81920,
    "NVIDIA A100-SXM4-40GB": 40960,
    "NVIDIA L40S": 46068,
    "NVIDIA L4": 23034,
}


@dataclass
class Expected:
    category: str
    code: str
    actions: list[tuple[str, str]] = field(default_factory=list)


class Pack:
    def __init__(
        self,
        name: str,
        *,
        as_of: str,
        namespace: str,
        seed: int,
        description: str,
        minutes: int = 60,
        logs_index: str = "logs-inference",
    ) -> None:
        self.name = name
        self.as_of = utc(as_of)
        self.namespace = namespace
        self.description = description
        self.logs_index = logs_index
        self.clock = Clock(self.as_of, minutes + 1)
        self.rng = random.Random(seed)
        self.ids = Ids(random.Random(seed * 7 + 1))
        self.om = OpenMetrics(self.clock)
        self.logs = LogBook()
        self.objects: list[dict[str, Any]] = []
        self.gpus: dict[str, list[dict[str, Any]]] = {}
        self.alert: dict[str, Any] | None = None
        self.expected: Expected | None = None
        self.notes: dict[str, Any] = {}

    # -- time helpers ----------------------------------------------------------------------------------
    def t(self, hhmmss: str) -> datetime:
        """A time on the as_of day: `t("09:58:12")`."""
        h, m, *s = (int(x) for x in hhmmss.split(":"))
        return self.as_of.replace(hour=h, minute=m, second=s[0] if s else 0, microsecond=0)

    def ago(self, **delta: float) -> datetime:
        return self.as_of - timedelta(**delta)

    # -- GPU nodes -----------------------------------------------------------------------------------------
    def gpu_node(
        self,
        name: str,
        *,
        ip: str,
        zone: str,
        instance_type: str,
        product: str,
        count: int = 8,
        pod_cidr: str,
        **kw: Any,
    ) -> tuple[k8s.Node, list[GpuDevice]]:
        node = k8s.Node(
            name=name,
            internal_ip=ip,
            zone=zone,
            instance_type=instance_type,
            gpu_product=product,
            gpu_count=count,
            uid=k8s.new_uid(self.rng),
            pod_cidr=pod_cidr,
            **kw,
        )
        devices = [
            GpuDevice(
                node=name,
                index=i,
                uuid=gpu_uuid(self.rng),
                pci=(
                    f"00000000:00:{3 + i:02X}.0"  # GCE VMs put the GPUs on bus 0
                    if product == "NVIDIA L4"
                    else f"00000000:{GPU_PCI.get(product, GPU_PCI['NVIDIA H100 80GB HBM3'])[i % 8]}:00.0"
                ),
                product=product,
                memory_mib=GPU_MEM.get(product, 81559),
            )
            for i in range(count)
        ]
        return node, devices

    def pod_name(self, workload: str, rev_hash: str) -> str:
        return f"{workload}-{rev_hash}-{k8s.safe_string(self.rng, 5)}"

    def revision(
        self, number: int, created: datetime, image: str, args: list[str], **kw: Any
    ) -> k8s.Revision:
        return k8s.Revision(
            number=number,
            hash=k8s.template_hash(self.rng),
            created=created,
            image=image,
            args=args,
            uid=k8s.new_uid(self.rng),
            **kw,
        )

    # -- GPU readings (gpus.json) ----------------------------------------------------------------------
    def record_gpus(self, gpus: list[GpuSeries]) -> None:
        last = self.clock.n - 1
        for g in gpus:
            lost = g.present is not None and not g.present[last]
            self.gpus.setdefault(g.dev.node, []).append(
                {
                    "index": g.dev.index,
                    "uuid": g.dev.uuid,
                    "name": g.dev.product,
                    "memory_total_mib": g.dev.memory_mib,
                    "memory_used_mib": 0 if lost else int(g.fb_used[last]),
                    "utilization_gpu": 0 if lost else int(g.util[last]),
                    "temperature_c": int(g.temp[last]),
                    "power_w": 0.0 if lost else round(float(g.power[last]), 1),
                    "ecc_volatile_uncorrected": g.ecc_uncorrected,
                    "retired_pages_pending": False,
                    "xid_events": [{"xid": x, "at": iso(at)} for x, at in g.xid_events],
                }
            )

    # -- logs ------------------------------------------------------------------------------------------
    def access_logs(
        self,
        rep: Replica,
        src: Source,
        line: Callable[[datetime, int, str], str],
        *,
        every: int = 1,
        errors_per_minute: int = 2,
        level_of: Callable[[int], str] | None = None,
        extra: Callable[[int], dict[str, Any]] | None = None,
        errors_after: datetime | None = None,
        clients: list[str] | None = None,
    ) -> None:
        """Sampled access lines that agree with the replica's status counts."""
        for i in range(self.clock.n - 1):
            if not rep.present[i]:
                continue
            minute = self.clock.at(i)
            for code, series in sorted(rep.codes.items()):
                count = int(series[i + 1]) if i + 1 < len(series) else 0
                if count <= 0:
                    continue
                k = (1 if i % every == 0 else 0) if code < 300 else min(count, errors_per_minute)
                for _ in range(k):
                    lo = 0.0
                    if code >= 400 and errors_after is not None and errors_after > minute:
                        lo = min(59.0, (errors_after - minute).total_seconds() + 0.2)
                    ts = self.ids.within(minute, lo)
                    client = (
                        f"{self.rng.choice(clients)}:{self.rng.randint(32768, 60999)}"
                        if clients
                        else self.ids.client()
                    )
                    level = level_of(code) if level_of else "info"
                    self.logs.add(
                        ecs(
                            ts,
                            line(ts, code, client),
                            src,
                            level=level,
                            status=code,
                            **(extra(code) if extra else {}),
                        )
                    )

    # -- output --------------------------------------------------------------------------------------------
    def expect(self, category: str, code: str, *actions: tuple[str, str]) -> None:
        self.expected = Expected(category, code, list(actions))

    def write(self, root: Path) -> Path:
        out = root / self.name
        out.mkdir(parents=True, exist_ok=True)
        meta = {
            "name": self.name,
            "as_of": iso(self.as_of),
            "namespace": self.namespace,
            "logs_index": self.logs_index,
            "description": self.description,
        }
        (out / "scenario.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, width=100), encoding="utf-8")
        if self.alert is None or self.expected is None:
            raise ValueError(f"{self.name}: alert and expected answer must be set")
        (out / "alert.json").write_text(json.dumps(self.alert, indent=2) + "\n", encoding="utf-8")
        (out / "metrics.om").write_text(self.om.render(), encoding="utf-8")
        lo, hi = iso(self.clock.start, ms=True), iso(self.as_of, ms=True)
        self.logs.docs = [d for d in self.logs.docs if lo <= d["@timestamp"] <= hi]  # nothing after "now"
        (out / "logs.ndjson").write_text(self.logs.dump(), encoding="utf-8")
        (out / "k8s.yaml").write_text(
            yaml.safe_dump_all(self.objects, sort_keys=False, width=120, default_flow_style=False),
            encoding="utf-8",
        )
        (out / "gpus.json").write_text(json.dumps({"nodes": self.gpus}, indent=2) + "\n", encoding="utf-8")
        expected = {
            "category": self.expected.category,
            "code": self.expected.code,
            "acceptable_first_actions": [{"kind": k, "target": t} for k, t in self.expected.actions],
        }
        (out / "expected.yaml").write_text(yaml.safe_dump(expected, sort_keys=False), encoding="utf-8")
        return out
