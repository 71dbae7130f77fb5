"""The signal catalog (signals.yaml): semantic signals mapped to PromQL per engine or exporter.

Users edit the catalog; it is validated when loaded, with errors naming the file, line and field,
every placeholder in a query must be one the scope can fill, every query key must name a declared
family (`vllm`, or `vllm.<variant>`), and every layer one the bot's taxonomy declares (the caller
passes the layers: tools know nothing of the bot).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tools.yamlpos import DataFileError, compose, describe, line_of, read_yaml

DEFAULT_CATALOG = Path(__file__).with_name("signals.yaml")
PLACEHOLDERS = frozenset({"ns", "pods", "nodes", "model", "route", "claims", "window"})
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


FamilyKind = Literal["engine", "gpu", "gateway", "cluster", "slo", "app"]


class Family(BaseModel):
    """An exporter or engine the catalog reads: how to tell it is scraped, and what runs it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    kind: FamilyKind
    probe: str = Field(
        pattern=r"^[A-Za-z_:]*\{.+\}$", description="a PromQL selector whose series say the family is scraped"
    )
    images: list[str] = Field(default_factory=list, description="container-image substrings that run it")
    hint: str = ""


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    families: dict[str, Family] = Field(default_factory=dict)
    signals: dict[str, Signal] = Field(min_length=1)

    def get(self, name: str) -> Signal:
        return self.signals[name]

    @property
    def names(self) -> list[str]:
        return list(self.signals)

    def family(self, key: str) -> Family | None:
        """The family a query key (`vllm`, `ingress-nginx.ns`) belongs to."""
        return self.families.get(family_of(key))

    def expected(self, images: Collection[str]) -> list[Family]:
        """The engine families some container image of the scope runs (the ones whose silence is a gap)."""
        return [
            f
            for f in self.families.values()
            if f.kind == "engine" and any(pattern in image for image in images for pattern in f.images)
        ]


def family_of(key: str) -> str:
    """`ingress-nginx.ns` → `ingress-nginx`: a query key is its family, or the family and a variant."""
    return key.split(".", 1)[0]


def load_catalog(path: Path = DEFAULT_CATALOG, *, layers: Collection[str] | None = None) -> Catalog:
    """Read and validate a catalog file; with `layers`, every signal's layer must be one of them."""
    text, data = read_yaml(path, "signal catalog")
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as exc:
        raise CatalogError(
            "invalid signal catalog\n  " + "\n  ".join(describe(exc, str(path), compose(text)))
        ) from exc
    root = compose(text)
    problems = [
        f"{path}:{line_of(root, ('signals', name, 'queries', key))}: signals.{name}.queries.{key}: "
        f"{family_of(key)!r} is not a family of the catalog ({', '.join(sorted(catalog.families))})"
        for name, signal in catalog.signals.items()
        for key in signal.queries
        if catalog.families and family_of(key) not in catalog.families  # none declared: an older catalog
    ]
    if layers is not None:
        problems += [
            f"{path}:{line_of(root, ('signals', name, 'layer'))}: signals.{name}.layer: "
            f"{signal.layer!r} is not a layer of the taxonomy ({', '.join(sorted(layers))})"
            for name, signal in catalog.signals.items()
            if signal.layer not in layers
        ]
    if problems:
        raise CatalogError("invalid signal catalog\n  " + "\n  ".join(problems))
    return Catalog(
        families={name: f.model_copy(update={"name": name}) for name, f in catalog.families.items()},
        signals={name: s.model_copy(update={"name": name}) for name, s in catalog.signals.items()},
    )


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
    images: list[str] = field(default_factory=list)  # its pods' container images: which engine serves it

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

    def render(self, template: str, *, window: timedelta = timedelta(hours=1)) -> str | None:
        """The query for this scope, `$window` the incident window's length; None for a per-node
        query when the scope names no node (an unresolved scope never widens a node's reading to the
        whole cluster)."""
        if (not self.nodes and "$nodes" in template) or (not self.claims and "$claims" in template):
            return None
        values = {**self.values(), "window": f"{max(60, int(window.total_seconds()))}s"}
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def promql_regex(pattern: str) -> str:
    """A raw regex (RE2) made fit to sit inside a double-quoted PromQL string."""
    return pattern.replace("\\", "\\\\").replace('"', '\\"')


def _escape(value: str) -> str:
    """Escape for a PromQL regex inside a double-quoted string (RE2 metacharacters, then quotes)."""
    return re.sub(r"([.+*?()|\[\]{}^$\\])", r"\\\\\1", value).replace('"', '\\"')
