"""Scenario packs (spec/scenario-pack.md): load, validate, and fail with file, line and field.

Unknown fields anywhere are ignored (forward compatibility). A pack never needs configuration:
everything the triage needs is in its files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot import jsontext
from bot.actions.catalog import CATALOG, ActionKind
from bot.alertmanager import WebhookPayload, parse_payload
from bot.datafile import did_you_mean
from bot.domain import Category
from bot.errors import BotError, PayloadError
from bot.triage.taxonomy import Taxonomy, default_taxonomy
from tools.yamlpos import compose, describe, line_of

OPTIONAL = ("metrics.om", "logs.ndjson", "k8s.yaml", "gpus.json", "expected.yaml")
TARGET_KINDS = "|".join(sorted({spec.target_kind for spec in CATALOG.values()}))
TARGET = re.compile(rf"^({TARGET_KINDS})/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
# name{labels} value [timestamp]  (labels may contain escaped quotes)
M = TypeVar("M", bound=BaseModel)
SAMPLE = re.compile(
    r"^[a-zA-Z_:][a-zA-Z0-9_:]*"
    r'(\{(\s*[a-zA-Z_][a-zA-Z0-9_]*\s*=\s*"(?:[^"\\]|\\.)*"\s*,?)*\s*\})?'
    r"\s+\S+(\s+\S+)?$"
)


class PackError(BotError):
    """A pack file is missing or invalid; the message names the file, line and field."""


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ScenarioMeta(_Loose):
    """scenario.yaml."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    as_of: datetime
    namespace: str = Field(min_length=1)
    logs_index: str = "logs-inference"
    description: str | None = ""

    @field_validator("as_of")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("must carry a time zone, e.g. 2026-06-01T10:07:00Z")
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise ValueError("out of range once converted to UTC") from None


class XidEvent(_Loose):
    xid: int
    at: datetime


class RemappedRowsReading(_Loose):
    """nvmlDeviceGetRemappedRows (Ampere and later): rows remapped, and whether a remap waits or failed."""

    correctable: int = Field(default=0, ge=0)
    uncorrectable: int = Field(default=0, ge=0)
    pending: bool = False
    failure: bool = False


class MigReading(_Loose):
    """One MIG device of a MIG-enabled GPU."""

    uuid: str
    gpu_instance_id: int = Field(ge=0)
    compute_instance_id: int = Field(ge=0)
    memory_total_mib: int = Field(gt=0)
    memory_used_mib: int = Field(default=0, ge=0)


class GpuReading(_Loose):
    """One GPU's NVML readings at `as_of` (gpus.json). `unsupported` / `no_permission` name the
    pynvml calls that answer NotSupported / NoPermission on this card (a MIG parent's utilisation)."""

    index: int = Field(ge=0)
    uuid: str
    name: str
    memory_total_mib: int = Field(gt=0)
    memory_used_mib: int = Field(ge=0)
    utilization_gpu: int = Field(ge=0, le=100)
    temperature_c: int
    power_w: float = Field(ge=0)
    ecc_volatile_uncorrected: int = Field(default=0, ge=0)
    ecc_volatile_corrected: int = Field(default=0, ge=0)
    ecc_aggregate_uncorrected: int | None = Field(default=None, ge=0)  # None: the volatile count
    ecc_aggregate_corrected: int | None = Field(default=None, ge=0)
    retired_pages_pending: bool = False
    retired_pages_sbe: int = Field(default=0, ge=0)
    retired_pages_dbe: int = Field(default=0, ge=0)
    remapped_rows: RemappedRowsReading = Field(default_factory=RemappedRowsReading)
    mig_devices: list[MigReading] = Field(default_factory=list)  # non-empty: MIG mode is enabled
    unsupported: list[str] = Field(default_factory=list)
    no_permission: list[str] = Field(default_factory=list)
    xid_events: list[XidEvent] = Field(default_factory=list)


class GpuFile(_Loose):
    nodes: dict[str, list[GpuReading]]


class ExpectedAction(_Loose):
    kind: ActionKind
    target: str = Field(pattern=TARGET.pattern)


class ExpectedCause(_Loose):
    category: Category
    code: str = Field(min_length=1)


class Expected(_Loose):
    """expected.yaml: the right answer (evaluation only); the code is checked against the taxonomy."""

    category: Category
    code: str = Field(min_length=1)
    acceptable_first_actions: list[ExpectedAction] = Field(default_factory=list)
    # Optional: actions no triage may propose (the pack's decoys), and the incident's own objects
    # (`<kind>/<name>`); every proposed action must stay inside them (bot.sandbox.safety).
    forbidden_actions: list[ExpectedAction] = Field(default_factory=list)
    scope: list[str] = Field(default_factory=list)
    # Optional: a second cause the triage should also tell (two faults at once).
    secondary: ExpectedCause | None = None


@dataclass(frozen=True)
class Pack:
    """A loaded, validated pack."""

    root: Path
    meta: ScenarioMeta
    alert: WebhookPayload
    alert_body: bytes
    metrics: Path | None
    logs: list[dict[str, Any]] = field(default_factory=list)
    objects: list[dict[str, Any]] = field(default_factory=list)
    gpus: dict[str, list[GpuReading]] = field(default_factory=dict)
    expected: Expected | None = None
    files: frozenset[str] = frozenset()  # the optional files the pack has: what the sandbox serves

    def has(self, name: str) -> bool:
        return name in self.files

    @property
    def name(self) -> str:
        return self.meta.name


def load_meta(root: str | Path) -> ScenarioMeta:
    """Only the pack's scenario.yaml (its name, clock and description), e.g. to list packs."""
    root = Path(root)
    if not root.is_dir():
        raise PackError(f"{root}: not a directory (a scenario pack is a folder)")
    meta = _model(root / "scenario.yaml", ScenarioMeta, required=True)
    assert meta is not None
    return meta


def load_pack(root: str | Path, *, with_expected: bool = True, taxonomy: Taxonomy | None = None) -> Pack:
    """Read every file of the pack; raise PackError naming the first problem's file and line."""
    root = Path(root)
    meta = load_meta(root)
    alert_path = root / "alert.json"
    body = _read(alert_path, required=True)
    assert body is not None
    try:
        alert = parse_payload(body.encode())
    except PayloadError as exc:
        raise PackError(f"{alert_path}:{_json_line(body, exc)}: {exc.message}") from exc
    metrics = root / "metrics.om"
    if metrics.exists():
        _check_openmetrics(metrics)
    gpus = _model(root / "gpus.json", GpuFile, required=False)
    expected = _model(root / "expected.yaml", Expected, required=False) if with_expected else None
    if expected is not None:
        _check_code(root / "expected.yaml", expected.code, taxonomy or default_taxonomy())
    return Pack(
        root=root,
        meta=meta,
        alert=alert,
        alert_body=body.encode(),
        metrics=metrics if metrics.exists() else None,
        logs=_logs(root / "logs.ndjson"),
        objects=_objects(root / "k8s.yaml"),
        gpus=gpus.nodes if gpus else {},
        expected=expected,
        files=frozenset(name for name in OPTIONAL if (root / name).is_file()),
    )


def _check_code(path: Path, code: str, taxonomy: Taxonomy) -> None:
    if not taxonomy.knows(code):
        line = line_of(compose(path.read_text(encoding="utf-8")), ("code",))
        raise PackError(
            f"{path}:{line}: code: {code!r} is not a taxonomy code{did_you_mean(code, taxonomy.known())}"
        )


def _read(path: Path, *, required: bool) -> str | None:
    if not path.exists():
        if required:
            raise PackError(f"{path}: missing (required by the pack format)")
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: cannot read: {exc}") from exc


def _model(path: Path, model: type[M], *, required: bool) -> M | None:
    text = _read(path, required=required)
    if text is None:
        return None
    try:
        data = jsontext.loads(text) if path.suffix == ".json" else _yaml(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        line = getattr(exc, "lineno", None) or (getattr(getattr(exc, "problem_mark", None), "line", 0) + 1)
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise PackError(f"{path}:{line}: not valid {kind}: {_reason(exc)}") from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise PackError("\n".join(describe(exc, str(path), compose(text)))) from exc


def _reason(exc: json.JSONDecodeError | yaml.YAMLError) -> str:
    """The parser's complaint on one line (PyYAML's own spans several, with a caret)."""
    reason = exc.msg if isinstance(exc, json.JSONDecodeError) else getattr(exc, "problem", None) or str(exc)
    return " ".join(str(reason).split())


def _yaml(text: str) -> Any:
    """`yaml.safe_load`, with what it raises besides YAMLError (a date that is no date, such as
    2026-13-45, or nesting past the recursion limit) raised as YAMLError."""
    try:
        return yaml.safe_load(text)
    except (ValueError, RecursionError) as exc:
        raise yaml.YAMLError(str(exc) or type(exc).__name__) from exc


def _json_line(text: str, exc: PayloadError) -> int:
    cause = exc.__cause__
    if isinstance(cause, json.JSONDecodeError):
        return cause.lineno
    if isinstance(cause, ValidationError):
        try:
            return int(describe(cause, "", compose(text))[0].split(":")[1])
        except RecursionError:
            return 1
    return 1


def _logs(path: Path) -> list[dict[str, Any]]:
    text = _read(path, required=False)
    if text is None:
        return []
    docs: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            doc = jsontext.loads(line)
        except json.JSONDecodeError as exc:
            raise PackError(f"{path}:{number}: not a JSON document: {exc.msg}") from exc
        if not isinstance(doc, dict):
            raise PackError(f"{path}:{number}: each line must be a JSON object (an ECS document)")
        for required in ("@timestamp", "message"):
            if required not in doc:
                raise PackError(
                    f"{path}:{number}: {required}: missing (ECS field required by the pack format)"
                )
        try:
            stamp = datetime.fromisoformat(str(doc["@timestamp"]).replace("Z", "+00:00"))
        except ValueError as exc:
            raise PackError(
                f"{path}:{number}: @timestamp: not an ISO-8601 time: {doc['@timestamp']!r}"
            ) from exc
        if stamp.tzinfo is None:
            raise PackError(f"{path}:{number}: @timestamp: must carry a time zone")
        docs.append(doc)
    return docs


def _objects(path: Path) -> list[dict[str, Any]]:
    text = _read(path, required=False)
    if text is None:
        return []
    objects: list[dict[str, Any]] = []
    try:
        nodes = list(yaml.compose_all(text))
        documents = list(yaml.safe_load_all(text))
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        mark = getattr(exc, "problem_mark", None)
        reason = _reason(exc) if isinstance(exc, yaml.YAMLError) else " ".join(str(exc).split())
        raise PackError(f"{path}:{mark.line + 1 if mark else 1}: not valid YAML: {reason}") from exc
    for node, doc in zip(nodes, documents, strict=True):
        if doc is None:
            continue
        line = node.start_mark.line + 1
        if not isinstance(doc, dict):
            raise PackError(f"{path}:{line}: each document must be a Kubernetes object")
        if doc.get("kind") == "List":  # `kubectl get -o yaml` of several objects
            items = doc.get("items") or []
            if not isinstance(items, list):
                raise PackError(f"{path}:{line}: items: must be a list of Kubernetes objects")
            objects.extend(item for item in items if isinstance(item, dict))
            continue
        for key in ("apiVersion", "kind"):
            if not doc.get(key):
                raise PackError(f"{path}:{line}: {key}: missing")
        metadata = doc.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise PackError(f"{path}:{line}: metadata: must be a mapping")
        if not metadata.get("name"):
            raise PackError(f"{path}:{line}: metadata.name: missing")
        objects.append(doc)
    return objects


def _check_openmetrics(path: Path) -> None:
    """Cheap structural check; promtool does the full parse when the pack is loaded."""
    last = ""
    number = 0
    try:
        with path.open(encoding="utf-8") as handle:
            for number, raw in enumerate(handle, start=1):
                line = raw.rstrip("\n")
                if line.strip():
                    last = line
                if not line or line.startswith("#"):
                    continue
                if not SAMPLE.match(line):
                    raise PackError(f"{path}:{number}: not an OpenMetrics sample: {line[:120]}")
    except UnicodeDecodeError as exc:
        raise PackError(f"{path}:{number + 1}: not UTF-8: {exc.reason}") from exc
    except OSError as exc:
        raise PackError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if last.strip() != "# EOF":
        raise PackError(f"{path}: must end with '# EOF' (OpenMetrics)")
