"""The signal catalog (signals.yaml): semantic signals mapped to PromQL per engine or exporter.

Users edit the catalog; it is validated when loaded, with errors naming the file, line and field,
every placeholder in a query must be one the scope can fill, and every layer one the bot's
taxonomy declares (the caller passes the layers: tools know nothing of the bot).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tools.yamlpos import DataFileError, compose, describe, line_of, read_yaml

DEFAULT_CATALOG = Path(__file__).with_name("signals.yaml")
PLACEHOLDERS = frozenset({"ns", "pods", "nodes", "model", "route", "claims"})
PLACEHOLDER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


class CatalogError(DataFileError):
    """The catalog is invalid; the message names the file, line and field."""


class Threshold(BaseModel):
    """When a signal is abnormal: compared as is (absolute) or against its baseline (relative)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["absolute", "relative"]
    direction: Literal["above", "below"]
    value: float
    floor: float | None = Field(default=None, description="relative mode: also require the value past this")

    def crossed(self, value: float, baseline: float | None) -> bool:
        if self.mode == "absolute":
            return value > self.value if self.direction == "above" else value < self.value
        if baseline is None or baseline <= 0:
            return False
        ratio = value / baseline
        past = ratio >= self.value if self.direction == "above" else ratio <= self.value
        if self.floor is not None:
            past = past and (value >= self.floor if self.direction == "above" else value <= self.floor)
        return past

    def describe(self) -> str:
        word = ">" if self.direction == "above" else "<"
        return f"{word} {self.value:g}" if self.mode == "absolute" else f"{word} {self.value:g}x baseline"


class Signal(BaseModel):
    """One semantic signal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    description: str
    layer: str = Field(pattern=r"^[A-Z][A-Z0-9]*$", description="a layer of the taxonomy (INF, ENG, ...)")
    unit: str = ""
    by: str | None = None
    threshold: Threshold
    queries: dict[str, str] = Field(min_length=1)

    @field_validator("queries")
    @classmethod
    def _known_placeholders(cls, queries: dict[str, str]) -> dict[str, str]:
        for engine, query in queries.items():
            unknown = set(PLACEHOLDER.findall(query)) - PLACEHOLDERS
            if unknown:
                raise ValueError(
                    f"{engine}: unknown placeholder ${sorted(unknown)[0]}; known: "
                    + ", ".join(f"${p}" for p in sorted(PLACEHOLDERS))
                )
        return queries


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    signals: dict[str, Signal] = Field(min_length=1)

    def get(self, name: str) -> Signal:
        return self.signals[name]

    @property
    def names(self) -> list[str]:
        return list(self.signals)


def load_catalog(path: Path = DEFAULT_CATALOG, *, layers: Collection[str] | None = None) -> Catalog:
    """Read and validate a catalog file; with `layers`, every signal's layer must be one of them."""
    text, data = read_yaml(path, "signal catalog")
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as exc:
        raise CatalogError(
            "invalid signal catalog\n  " + "\n  ".join(describe(exc, str(path), compose(text)))
        ) from exc
    if layers is not None:
        root = compose(text)
        unknown = [
            f"{path}:{line_of(root, ('signals', name, 'layer'))}: signals.{name}.layer: "
            f"{signal.layer!r} is not a layer of the taxonomy ({', '.join(sorted(layers))})"
            for name, signal in catalog.signals.items()
            if signal.layer not in layers
        ]
        if unknown:
            raise CatalogError("invalid signal catalog\n  " + "\n  ".join(unknown))
    return Catalog(signals={name: s.model_copy(update={"name": name}) for name, s in catalog.signals.items()})


@dataclass(frozen=True)
class Scope:
    """What the incident touches, as PromQL regex fragments (unknown parts match anything)."""

    namespace: str
    pods: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    model: str | None = None
    route: str | None = None
    pod_patterns: list[str] = field(default_factory=list)  # raw regexes, e.g. a deployment's "name-.+"
    claims: list[str] = field(default_factory=list)  # the PersistentVolumeClaims its pods mount

    def values(self) -> dict[str, str]:
        pods = "|".join([*(_escape(p) for p in sorted(set(self.pods))), *self.pod_patterns])
        return {
            "ns": _escape(self.namespace),
            "pods": pods or ".+",
            "nodes": "|".join(_escape(v) for v in sorted(set(self.nodes))),
            "model": _escape(self.model) if self.model else ".+",
            "route": _escape(self.route) if self.route else ".+",
            "claims": "|".join(_escape(c) for c in sorted(set(self.claims))),
        }

    def render(self, template: str) -> str | None:
        """The query for this scope; None for a per-node query when the scope names no node (an
        unresolved scope never widens a node's reading to the whole cluster)."""
        if (not self.nodes and "$nodes" in template) or (not self.claims and "$claims" in template):
            return None
        values = self.values()
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _escape(value: str) -> str:
    """Escape for a PromQL regex inside a double-quoted string (RE2 metacharacters, then quotes)."""
    return re.sub(r"([.+*?()|\[\]{}^$\\])", r"\\\\\1", value).replace('"', '\\"')
