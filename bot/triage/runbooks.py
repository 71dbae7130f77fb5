"""Runbooks: Markdown with YAML front matter saying which codes they match and which reversible
first actions they offer, with target templates resolved from the evidence.

Validated when loaded; a mistake names the file, the line and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.actions.catalog import CATALOG, ActionKind
from bot.datafile import did_you_mean
from bot.domain import Category
from bot.errors import ConfigError
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy
from tools.yamlpos import compose, describe, line_of

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "runbooks"
PLACEHOLDERS = frozenset({"deployment", "pod", "node", "route"})
TEMPLATE = re.compile(r"^(?P<kind>[a-z]+)/\{(?P<slot>[a-z]+)\}$")
Condition = Literal[
    "always",
    "rollout",
    "config_rollout",
    "single_node",
    "single_pod",
    "multi_backend_route",
    "fleet_healthy",
    "hardware_fault",
]


class RunbookAction(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ActionKind
    target: str
    when: Condition = "always"
    rationale: str = ""
    undo: str = ""

    @model_validator(mode="after")
    def _target_fits_kind(self) -> RunbookAction:
        match = TEMPLATE.match(self.target)
        if match is None:
            raise ValueError(f"target {self.target!r} must look like <kind>/{{placeholder}}")
        expected = CATALOG[self.kind].target_kind
        if match["kind"] != expected:
            raise ValueError(f"{self.kind.value} acts on a {expected}, not a {match['kind']}")
        if match["slot"] not in PLACEHOLDERS:
            raise ValueError(f"unknown placeholder {{{match['slot']}}}; known: {sorted(PLACEHOLDERS)}")
        return self

    @property
    def slot(self) -> str:
        match = TEMPLATE.match(self.target)
        assert match is not None
        return match["slot"]


class Matches(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    codes: list[str] = Field(default_factory=list)  # checked against the taxonomy when loaded
    categories: list[Category] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> Matches:
        if not self.codes and not self.categories:
            raise ValueError("a runbook must match at least one code or category")
        return self


class FrontMatter(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=1)
    matches: Matches
    priority: int = 0
    actions: list[RunbookAction] = Field(default_factory=list)


@dataclass(frozen=True)
class Runbook:
    meta: FrontMatter
    path: Path
    body: str

    @property
    def id(self) -> str:
        return self.meta.id

    def relative(self) -> str:
        return f"runbooks/{self.path.name}"


@dataclass(frozen=True)
class ActionContext:
    """Facts from the evidence that decide which runbook actions apply, and their targets."""

    targets: dict[str, str] = field(default_factory=dict)  # deployment, pod, node, route → name
    rollout: bool = False
    config_rollout: bool = False
    single_node: bool = False
    single_pod: bool = False
    multi_backend_route: bool = False
    fleet_healthy: bool = False
    hardware_fault: bool = False  # the target node's card or link shows a fault of its own

    def allows(self, condition: str) -> bool:
        return condition == "always" or bool(getattr(self, condition))


@dataclass(frozen=True)
class ResolvedAction:
    kind: ActionKind
    target: str
    rationale: str
    undo: str


class RunbookCatalog:
    """All runbooks, and the choice of one per triage."""

    def __init__(self, runbooks: list[Runbook]) -> None:
        self.runbooks = runbooks

    @classmethod
    def load(cls, folder: Path, taxonomy: Taxonomy) -> RunbookCatalog:
        """Every runbook of the folder; each code it matches must be a code of `taxonomy`."""
        books = [
            load_runbook(p, taxonomy) for p in sorted(folder.glob("*.md")) if p.name.lower() != "readme.md"
        ]
        seen: dict[str, Path] = {}
        for book in books:
            if book.id in seen:
                raise ConfigError(f"{book.path}:2: id: {book.id!r} is already used by {seen[book.id]}")
            seen[book.id] = book.path
        return cls(books)

    def get(self, runbook_id: str) -> Runbook | None:
        return next((b for b in self.runbooks if b.id == runbook_id), None)

    def match(self, code: str, category: str | None) -> Runbook | None:
        """The code-specific runbook of highest priority, else one for the category, else the fallback."""
        by_code = [b for b in self.runbooks if code in b.meta.matches.codes]
        if by_code:
            return max(by_code, key=lambda b: b.meta.priority)
        by_category = [b for b in self.runbooks if category and category in b.meta.matches.categories]
        if by_category:
            return max(by_category, key=lambda b: b.meta.priority)
        return next((b for b in self.runbooks if UNATTRIBUTED in b.meta.matches.codes), None)

    @staticmethod
    def permits(book: Runbook | None, kind: ActionKind, context: ActionContext) -> bool:
        """Whether the runbook lists an action of `kind` whose condition holds: the review's own
        actions pass the same conditions as the rules' (no cordon without a node-level fault)."""
        return book is not None and any(a.kind is kind and context.allows(a.when) for a in book.meta.actions)

    @staticmethod
    def resolve(book: Runbook, context: ActionContext) -> list[ResolvedAction]:
        """The runbook's actions whose condition holds and whose target the evidence names."""
        resolved: list[ResolvedAction] = []
        for action in book.meta.actions:
            name = context.targets.get(action.slot)
            if not name or not context.allows(action.when):
                continue
            target = action.target.replace("{" + action.slot + "}", name)
            if any(r.kind == action.kind and r.target == target for r in resolved):
                continue
            resolved.append(
                ResolvedAction(
                    kind=action.kind,
                    target=target,
                    rationale=action.rationale.strip(),
                    undo=action.undo.strip() or CATALOG[action.kind].undo,
                )
            )
        return resolved


def load_runbook(path: Path, taxonomy: Taxonomy) -> Runbook:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        raise ConfigError(f"{path}:1: a runbook starts with YAML front matter between '---' lines")
    end = text.find("\n---", 3)
    if end < 0:
        raise ConfigError(f"{path}:1: the front matter is not closed by a '---' line")
    header = text[3:end]
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"{path}:{(mark.line + 1) if mark else 1}: front matter is not valid YAML") from exc
    try:
        meta = FrontMatter.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            "invalid runbook\n  " + "\n  ".join(describe(exc, str(path), compose(header)))
        ) from exc
    for index, code in enumerate(meta.matches.codes):
        if not taxonomy.knows(code):
            line = line_of(compose(header), ("matches", "codes", index))
            hint = did_you_mean(code, taxonomy.known())
            raise ConfigError(f"{path}:{line}: matches.codes[{index}]: {code!r} is not a taxonomy code{hint}")
    codes = [taxonomy.canonical(code) for code in meta.matches.codes]  # an alias matches its code
    meta = meta.model_copy(update={"matches": meta.matches.model_copy(update={"codes": codes})})
    if meta.id != path.stem:
        line = line_of(compose(header), ("id",))
        raise ConfigError(f"{path}:{line}: id: {meta.id!r} must equal the file name {path.stem!r}")
    return Runbook(meta=meta, path=path, body=text[end + 4 :].lstrip("\n"))
