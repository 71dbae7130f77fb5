"""The failure taxonomy (rules/taxonomy.yaml): layers, codes and aliases, loaded once.

The one home of the vocabulary: the attribution rules, the classifier (a layer's category and its
rank in the earliest-cause rule), the LLM answer's validation, the runbooks and the packs all read
the same `Taxonomy` object, so editing the file changes the triage. Validated when loaded, with
errors that name the file, the line and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.datafile import did_you_mean, read_yaml
from bot.domain import Category
from bot.errors import ConfigError
from tools.yamlpos import compose, describe, dotted, line_of

DEFAULT_TAXONOMY = Path(__file__).with_name("rules") / "taxonomy.yaml"
UNATTRIBUTED = "UNATTRIBUTED"
NOT_AN_INCIDENT = "none"
UNRANKED = 99

Priority = Literal["P1", "P2", "P3"]
CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
LAYER = re.compile(r"^[A-Z][A-Z0-9]*$")


def prefix(code: str) -> str:
    """The layer a code names: the part before its first `_` (UNATTRIBUTED names none)."""
    return code.split("_", 1)[0] if "_" in code else UNATTRIBUTED


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _LayerSpec(_Strict):
    meaning: str = ""
    category: Category | Literal["none"]
    incident_category: Category | None = None
    priority: Priority
    rank: int = Field(ge=1, description="precedence when several layers match: the lowest wins")

    @model_validator(mode="after")
    def _incident_category(self) -> _LayerSpec:
        if self.category == NOT_AN_INCIDENT and self.incident_category is None:
            raise ValueError("a layer whose category is `none` needs an incident_category")
        return self


class _TaxonomyFile(_Strict):
    layers: dict[str, _LayerSpec] = Field(min_length=1)
    codes: dict[str, str] = Field(min_length=1)
    aliases: dict[str, str] = Field(default_factory=dict)
    decisive: list[str] = Field(default_factory=list)


class CodeInfo(NamedTuple):
    """What one error line's code says: its layer, the line's category and the code's meaning."""

    layer: str | None
    category: str | None
    meaning: str


@dataclass(frozen=True)
class Layer:
    """One layer of the taxonomy (the code prefix)."""

    name: str
    meaning: str
    category: str  # of one error line; `none` for the caller's own errors
    incident_category: Category  # the triage tag when an incident's cause is in this layer
    priority: str
    rank: int


@dataclass(frozen=True)
class Taxonomy:
    """Layers, codes and aliases, validated; every lookup accepts an alias."""

    layers: Mapping[str, Layer]
    codes: Mapping[str, str]  # code -> meaning
    aliases: Mapping[str, str]  # alias -> code
    decisive: frozenset[str] = frozenset()  # one line of these settles it: they compete by onset

    def resolve(self, code: str) -> str:
        """The canonical code (an alias resolved); KeyError when unknown."""
        canonical = self.aliases.get(code, code)
        if canonical != UNATTRIBUTED and canonical not in self.codes:
            raise KeyError(code)
        return canonical

    def canonical(self, code: str) -> str:
        """The canonical code, or the code itself when it is unknown."""
        try:
            return self.resolve(code)
        except KeyError:
            return code

    def knows(self, code: str) -> bool:
        """A declared code, an alias, or UNATTRIBUTED."""
        return code == UNATTRIBUTED or code in self.codes or code in self.aliases

    def layer_of(self, code: str) -> Layer:
        """The layer of a known code (KeyError otherwise)."""
        return self.layers[prefix(self.resolve(code))]

    def rank(self, layer: str | None) -> int:
        """Precedence of a layer in the earliest-cause rule (lowest first; unknown last)."""
        found = self.layers.get(layer or "")
        return found.rank if found else UNRANKED

    def category_of(self, code: str) -> Category:
        """The incident category a code's layer maps to (operational for what it does not know)."""
        try:
            return self.layer_of(code).incident_category
        except KeyError:
            return Category.OPERATIONAL

    def caller_error(self, code: str) -> bool:
        """Whether the code is the caller's own error (its layer's line category is `none`)."""
        try:
            return self.layer_of(code).category == NOT_AN_INCIDENT
        except KeyError:
            return False

    def info(self, code: str) -> CodeInfo:
        """(layer, line category, meaning) of a code or alias; UNATTRIBUTED has no layer."""
        canonical = self.resolve(code)
        if canonical == UNATTRIBUTED:
            return CodeInfo(None, None, "no rule matched the line")
        layer = self.layer_of(canonical)
        return CodeInfo(layer.name, layer.category, self.codes[canonical])

    def priority(self, code: str) -> str | None:
        """Default paging priority of the code's layer (P1 pages now, P3 never)."""
        canonical = self.resolve(code)
        return None if canonical == UNATTRIBUTED else self.layer_of(canonical).priority

    def meaning(self, code: str) -> str:
        """`CODE: Meaning` for a sentence."""
        text = self.codes.get(self.canonical(code), "")
        return f"{code}: {text[0].upper()}{text[1:]}" if text else code

    def fits(self, code: str, category: str) -> bool:
        """Whether an incident tagged `category` can have its cause in `code`'s layer."""
        try:
            return self.layer_of(code).incident_category.value == category
        except KeyError:
            return False

    def known(self) -> list[str]:
        return sorted([*self.codes, *self.aliases])


def load_taxonomy(path: Path = DEFAULT_TAXONOMY) -> Taxonomy:
    """Read and validate the taxonomy file."""
    text, data = read_yaml(path, "taxonomy")
    root = compose(text)
    try:
        spec = _TaxonomyFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("invalid taxonomy\n  " + "\n  ".join(describe(exc, str(path), root))) from exc
    problems: list[str] = []

    def bad(loc: tuple[Any, ...], message: str) -> None:
        problems.append(f"{path}:{line_of(root, loc)}: {dotted(loc)}: {message}")

    ranks: dict[int, str] = {}
    for name, layer in spec.layers.items():
        if not LAYER.match(name):
            bad(("layers", name), f"layer {name!r} must be upper case letters and digits")
        if layer.rank in ranks:
            bad(("layers", name, "rank"), f"rank {layer.rank} is already used by layer {ranks[layer.rank]!r}")
        ranks.setdefault(layer.rank, name)
    for code in spec.codes:
        if not CODE.match(code):
            bad(("codes", code), f"code {code!r} must look like LAYER_NAME (upper case, underscores)")
        elif prefix(code) not in spec.layers:
            bad(("codes", code), f"code {code!r} has no declared layer {prefix(code)!r}")
    if UNATTRIBUTED in spec.codes or UNATTRIBUTED in spec.aliases:
        bad(("codes",), f"{UNATTRIBUTED} is built in and cannot be declared")
    for alias, target in spec.aliases.items():
        if alias in spec.codes:
            bad(("aliases", alias), f"alias {alias!r} is also declared as a code")
        if target not in spec.codes:
            hint = did_you_mean(target, spec.codes)
            bad(("aliases", alias), f"alias {alias!r} points to unknown code {target!r}{hint}")
    for index, code in enumerate(spec.decisive):
        if code not in spec.codes:
            bad(("decisive", index), f"{code!r} is not a declared code{did_you_mean(code, spec.codes)}")
    if problems:
        raise ConfigError("invalid taxonomy\n  " + "\n  ".join(problems))
    layers = {
        name: Layer(
            name=name,
            meaning=layer.meaning,
            category=str(layer.category),
            incident_category=layer.incident_category or Category(layer.category),
            priority=layer.priority,
            rank=layer.rank,
        )
        for name, layer in spec.layers.items()
    }
    return Taxonomy(
        layers=layers, codes=dict(spec.codes), aliases=dict(spec.aliases), decisive=frozenset(spec.decisive)
    )


@cache
def default_taxonomy() -> Taxonomy:
    """The shipped taxonomy, for what is validated before any settings exist (pack files)."""
    return load_taxonomy(DEFAULT_TAXONOMY)
