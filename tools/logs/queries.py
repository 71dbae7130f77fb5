"""Which documents belong to an incident, which lines are problems, and how a line is read back.

Every query is built from the resolved fields (`fields.Fields`), so the same scope selects the same
lines whether a shipper wrote ECS, Fluent Bit or flat keys. `tools.dotted.lookup` reads a `_source`
path whether it was sent nested (`{"kubernetes": {"pod": ...}}`) or as a dotted key
(`{"kubernetes.pod.name": ...}`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tools.dotted import lookup
from tools.logs.fields import ECS, TIMESTAMP, Fields, assume
from tools.result import Window

PROBLEM_LEVELS = [
    "warn",
    "warning",
    "WARN",
    "WARNING",
    "error",
    "ERROR",
    "err",
    "critical",
    "CRITICAL",
    "crit",
    "fatal",
    "FATAL",
    "alert",
    "emerg",
    "panic",
]
DEFAULT_FIELDS = assume(ECS)


def iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True)
class LogScope:
    """Which documents belong to the incident."""

    namespace: str | None = None
    pods: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    deployments: list[str] = field(default_factory=list)  # their pods, past and present, by name

    def filters(self, window: Window, fields: Fields = DEFAULT_FIELDS) -> list[dict[str, Any]]:
        """The incident's documents: its pods' lines in its namespace, and the node-level lines
        (kernel, kubelet, device plugin: a node name and no namespace) of the nodes its pods run on,
        where an Xid or a NIC going down is logged."""
        clauses: list[dict[str, Any]] = [
            {"range": {TIMESTAMP: {"gte": iso(window.start), "lte": iso(window.as_of)}}}
        ]
        mine: list[dict[str, Any]] = []
        if self.namespace and fields.namespace is not None:
            mine.append(fields.namespace.equals([self.namespace]))
        who: list[dict[str, Any]] = []
        if self.pods and fields.pod is not None:
            who.append(fields.pod.equals(self.pods))
        if self.services and fields.service is not None:
            who.append(fields.service.equals(self.services))
        if fields.pod is not None:
            who.extend(fields.pod.pods_of(deployment) for deployment in self.deployments)
        if who:
            mine.append({"bool": {"should": who, "minimum_should_match": 1}})
        if not self.nodes or not fields.hosts:
            return clauses + mine
        on_nodes = [host.equals(self.nodes) for host in fields.hosts]
        node_level: dict[str, Any] = {
            "bool": {"filter": [{"bool": {"should": on_nodes, "minimum_should_match": 1}}]}
        }
        if fields.namespace is not None:
            node_level["bool"]["must_not"] = [{"exists": {"field": fields.namespace.name}}]
        either = [{"bool": {"filter": mine}}, node_level] if mine else [node_level]
        return [*clauses, {"bool": {"should": either, "minimum_should_match": 1}}]


def problems(fields: Fields) -> dict[str, Any]:
    """Warning and error lines: by level, by a 4xx/5xx status, or by an error type."""
    should: list[dict[str, Any]] = []
    for level in fields.levels:
        if level.exact is not None:
            should.append({"terms": {level.exact: PROBLEM_LEVELS}})
        else:
            should.append({"match": {level.name: " ".join(sorted({v.lower() for v in PROBLEM_LEVELS}))}})
    if fields.status is not None:
        should.append({"range": {fields.status.exact or fields.status.name: {"gte": 400, "lte": 599}}})
    if fields.error_type:
        should.append({"exists": {"field": fields.error_type}})
    return {"bool": {"should": should or [{"match_none": {}}], "minimum_should_match": 1}}


def text(source: Any, path: str | None) -> str:
    value = lookup(source, path) if path else None
    if isinstance(value, list):
        value = value[0] if value else None
    return "" if value is None else str(value)
