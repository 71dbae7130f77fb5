"""Where a shipper puts each part of a log line: field presets, and a preset resolved against an index.

Filebeat and Elastic Agent write ECS (`kubernetes.pod.name`, `message`), Fluent Bit's Kubernetes
filter writes `kubernetes.pod_name` and `log`, other shippers write flat keys (`pod`, `namespace`).
A preset lists, per role, the field names to look for; resolving it against the index's field
capabilities (`_field_caps`, which the `read` privilege allows) gives the concrete fields, and for a
string field without a template, which form is exact: the field itself when it is a keyword, its
`.keyword` sub-field when it is text, or none (text only: matched by phrase, not aggregated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TIMESTAMP = "@timestamp"


@dataclass(frozen=True)
class FieldPreset:
    """Candidate field names per role, first found wins; `hosts` and `levels` use all that exist."""

    name: str
    message: tuple[str, ...]
    namespace: tuple[str, ...]
    pod: tuple[str, ...]
    node: tuple[str, ...]  # the node a pod's line came from
    hosts: tuple[str, ...]  # where a node-level line (kernel, kubelet) names its node
    service: tuple[str, ...]
    levels: tuple[str, ...]
    status: tuple[str, ...]
    error_type: tuple[str, ...] = ()
    error_message: tuple[str, ...] = ()

    def candidates(self) -> list[str]:
        """Every name the preset may use, with the `.keyword` sub-field of each."""
        names = [
            *self.message,
            *self.namespace,
            *self.pod,
            *self.node,
            *self.hosts,
            *self.service,
            *self.levels,
            *self.status,
            *self.error_type,
            *self.error_message,
        ]
        return sorted({TIMESTAMP, *names, *(f"{n}.keyword" for n in names)})


ECS = FieldPreset(
    name="ecs",
    message=("message",),
    namespace=("kubernetes.namespace",),
    pod=("kubernetes.pod.name",),
    node=("kubernetes.node.name",),
    hosts=("kubernetes.node.name", "host.name", "host.hostname"),
    service=("service.name",),
    levels=("log.level", "log.syslog.severity.name"),
    status=("http.response.status_code",),
    error_type=("error.type",),
    error_message=("error.message",),
)
FLUENTBIT = FieldPreset(
    name="fluentbit",
    message=("log", "message", "MESSAGE"),
    namespace=("kubernetes.namespace_name",),
    pod=("kubernetes.pod_name",),
    node=("kubernetes.host",),
    hosts=("kubernetes.host", "_HOSTNAME", "hostname", "host"),
    service=(
        "kubernetes.labels.app.kubernetes.io/name",
        "kubernetes.labels.app",
        "kubernetes.container_name",
    ),
    levels=("level", "log.level", "severity"),
    status=("status", "response_code", "http.response.status_code"),
    error_type=("error.type", "exc_type"),
    error_message=("error.message",),
)
FLAT = FieldPreset(
    name="flat",
    message=("message", "msg", "log"),
    namespace=("namespace", "kubernetes_namespace", "k8s.namespace.name"),
    pod=("pod", "pod_name", "k8s.pod.name"),
    node=("node", "node_name", "k8s.node.name"),
    hosts=("node", "node_name", "k8s.node.name", "hostname", "host"),
    service=("service", "app", "service_name"),
    levels=("level", "severity", "log_level"),
    status=("status", "status_code", "http_status"),
    error_type=("error_type", "error.type"),
    error_message=("error_message", "error.message"),
)
PRESETS: dict[str, FieldPreset] = {p.name: p for p in (ECS, FLUENTBIT, FLAT)}


# What a ReplicaSet adds to its Deployment's name for a pod: `-<pod-template-hash>-<5 random>`.
POD_SUFFIX = "-[a-z0-9]{1,10}-[a-z0-9]{5}"


@dataclass(frozen=True)
class LogField:
    """One concrete field: `name` as stored (match, exists, `_source`), `exact` as aggregated (None: text only)."""

    name: str
    exact: str | None

    def equals(self, values: list[str]) -> dict[str, Any]:
        if self.exact is not None:
            return {"terms": {self.exact: values}}
        return {
            "bool": {"should": [{"match_phrase": {self.name: v}} for v in values], "minimum_should_match": 1}
        }

    def pods_of(self, deployment: str) -> dict[str, Any]:
        """A Deployment's pods, past and present, by the name they get (`<deploy>-<hash>-<suffix>`):
        a bare prefix would also take `<deploy>-canary-…`. Lucene regexp syntax, anchored; a text
        field without an exact sub-field can only match the name's words."""
        if self.exact is not None:
            return {"regexp": {self.exact: {"value": deployment.replace(".", "\\.") + POD_SUFFIX}}}
        return {"match_phrase": {self.name: deployment}}


@dataclass(frozen=True)
class Fields:
    """A preset resolved against one index: the field of each role, and what it cannot do there."""

    preset: str
    message: str
    namespace: LogField | None
    pod: LogField | None
    node: LogField | None
    hosts: tuple[LogField, ...]
    service: LogField | None
    levels: tuple[LogField, ...]
    status: LogField | None
    error_type: str | None
    error_message: str | None
    matched: bool = True  # False: nothing in the mapping matched; the preset's first names are assumed
    problems: tuple[str, ...] = field(default_factory=tuple)

    def source_fields(self) -> list[str]:
        """The `_source` paths a sampled line needs."""
        named = [self.message, TIMESTAMP, self.error_type, self.error_message]
        named += [f.name for f in (self.pod, self.namespace, *self.hosts, *self.levels[:1]) if f is not None]
        return sorted({n for n in named if n})


Caps = dict[str, dict[str, Any]]  # `_field_caps` answer's `fields`: name -> type -> capabilities


def assume(preset: FieldPreset) -> Fields:
    """The preset's first names, taken as keyword fields: what is used when the mapping cannot be read."""

    def one(names: tuple[str, ...]) -> LogField | None:
        return LogField(names[0], names[0]) if names else None

    return Fields(
        preset=preset.name,
        message=preset.message[0],
        namespace=one(preset.namespace),
        pod=one(preset.pod),
        node=one(preset.node),
        hosts=tuple(LogField(n, n) for n in preset.hosts),
        service=one(preset.service),
        levels=tuple(LogField(n, n) for n in preset.levels),
        status=one(preset.status),
        error_type=preset.error_type[0] if preset.error_type else None,
        error_message=preset.error_message[0] if preset.error_message else None,
        matched=False,
    )


def resolve(preset: FieldPreset, caps: Caps) -> Fields:
    """The preset's fields as the mapping has them; `matched` when its message and a pod or namespace exist."""
    problems: list[str] = []

    def found(name: str) -> LogField | None:
        types = caps.get(name)
        if not types:
            return None
        if any(c.get("aggregatable") for c in types.values()):
            return LogField(name, name)
        keyword = caps.get(f"{name}.keyword") or {}
        if any(c.get("aggregatable") for c in keyword.values()):
            return LogField(name, f"{name}.keyword")
        return LogField(name, None)

    def first(role: str, names: tuple[str, ...]) -> LogField | None:
        got = next((f for f in map(found, names) if f is not None), None)
        if (
            got is not None
            and got.exact is None
            and role in ("pod", "namespace", "node", "service", "status")
        ):
            problems.append(f"{got.name} is text without a keyword sub-field: no per-{role} counts")
        return got

    def every(names: tuple[str, ...]) -> tuple[LogField, ...]:
        return tuple(f for f in map(found, names) if f is not None)

    message = next((n for n in preset.message if n in caps), None)
    namespace, pod = first("namespace", preset.namespace), first("pod", preset.pod)
    fields = Fields(
        preset=preset.name,
        message=message or preset.message[0],
        namespace=namespace,
        pod=pod,
        node=first("node", preset.node),
        hosts=every(preset.hosts),
        service=first("service", preset.service),
        levels=every(preset.levels),
        status=first("status", preset.status),
        error_type=next((n for n in preset.error_type if n in caps), None),
        error_message=next((n for n in preset.error_message if n in caps), None),
        matched=message is not None and (namespace is not None or pod is not None),
        problems=tuple(problems),
    )
    return fields


def choose(caps: Caps, wanted: str = "auto") -> tuple[Fields, str | None]:
    """The preset to use (the named one, or under `auto` the one the mapping matches best), and why
    none matched when none did."""
    if wanted != "auto":
        chosen = resolve(PRESETS[wanted], caps)
        if chosen.matched:
            return chosen, None
        return assume(PRESETS[wanted]), _mismatch(PRESETS[wanted], caps)
    resolved = [resolve(preset, caps) for preset in PRESETS.values()]
    matching = [f for f in resolved if f.matched]
    if not matching:
        return assume(ECS), _mismatch(ECS, caps)
    return max(matching, key=_coverage), None


def _coverage(fields: Fields) -> int:
    roles = (fields.namespace, fields.pod, fields.node, fields.service, fields.status)
    return sum(f is not None for f in roles) + len(fields.hosts) + len(fields.levels)


def _mismatch(preset: FieldPreset, caps: Caps) -> str:
    if not caps:
        return "the index has no mapped fields (no documents yet?)"
    if not any(n in caps for n in (*ECS.message, *FLUENTBIT.message, *FLAT.message)):
        return "no field preset matches: no message field found"
    return "no field preset matches: no namespace or pod field found"
