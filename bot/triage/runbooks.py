"""Runbooks: Markdown with YAML front matter saying which codes they match and which reversible
first actions they offer, with target templates resolved from the evidence.

Validated when loaded, every problem of every file at once (a responder fixing five runbooks
wants all the errors), each as `FILE:LINE: field: message`. `incident-bot runbooks check` reports
the same problems and a few more (ties, the body's sections), so what it accepts start-up accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.actions.catalog import CATALOG, ActionKind
from bot.datafile import did_you_mean
from bot.domain import Category
from bot.errors import ConfigError
from bot.shipped import RUNBOOKS
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy
from tools.yamlpos import compose, describe, dotted, line_of

DEFAULT_DIR = RUNBOOKS  # the top-level runbooks/, or the wheel's copy (bot.shipped)
PLACEHOLDERS = frozenset({"deployment", "pod", "node", "route"})
PLACE = re.compile(r"^(?P<file>.*?):(?P<line>\d+): ")
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
    model_config = ConfigDict(extra="forbid", frozen=True)  # a misspelt field is a mistake, not a no-op

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
    header: str = ""  # the front matter's text, for the line of a field

    @property
    def id(self) -> str:
        return self.meta.id

    def where(self, loc: tuple[Any, ...]) -> str:
        """`FILE:LINE: field` of a front-matter field, for a problem found after loading."""
        return f"{self.path}:{line_of(compose(self.header), loc)}: {dotted(loc)}"

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
        """Every runbook of the folder; ConfigError listing every problem of every file otherwise."""
        books, problems = read_folder(folder, taxonomy)
        if problems:
            count = f"{len(problems)} problem{'' if len(problems) == 1 else 's'}"
            raise ConfigError(f"invalid runbooks ({count})\n  " + "\n  ".join(problems))
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
        fallback = [b for b in self.runbooks if UNATTRIBUTED in b.meta.matches.codes]
        return max(fallback, key=lambda b: b.meta.priority) if fallback else None

    def ties(self) -> list[str]:
        """Runbooks claiming one code (or category) at the same top priority: `match` would always
        pick the first by file name and never show the others. Start-up accepts them (as it always
        has); `runbooks check` refuses them."""
        problems: list[str] = []
        for field_name in ("codes", "categories"):
            claimed: dict[str, list[tuple[Runbook, int]]] = {}
            for book in self.runbooks:
                for index, key in enumerate(getattr(book.meta.matches, field_name)):
                    claimed.setdefault(str(key), []).append((book, index))
            for key, claims in claimed.items():
                top = max(book.meta.priority for book, _ in claims)
                tied = [(book, index) for book, index in claims if book.meta.priority == top]
                for book, index in tied[1:]:
                    problems.append(
                        f"{book.where(('matches', field_name, index))}: {key} is also matched by "
                        f"{tied[0][0].path.name} at the same priority {top}, so {book.id} would never be "
                        "chosen; give one of them a higher priority"
                    )
        return problems

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
    """One runbook; ConfigError listing every problem of the file otherwise."""
    book, problems = read_runbook(path, taxonomy)
    if book is None or problems:
        raise ConfigError("invalid runbook\n  " + "\n  ".join(problems))
    return book


def read_folder(folder: Path, taxonomy: Taxonomy) -> tuple[list[Runbook], list[str]]:
    """The folder's valid runbooks, and the problems of every file and of the set (a duplicate id)."""
    books: list[Runbook] = []
    problems: list[str] = []
    for path in sorted(folder.glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        book, found = read_runbook(path, taxonomy)
        problems += found
        if book is not None:
            books.append(book)
    return books, sorted(problems + duplicates(books), key=place)


def place(problem: str) -> tuple[str, int]:
    """(file, line) of a `FILE:LINE: field: message` problem, to list them like a compiler."""
    found = PLACE.match(problem)
    return (found["file"], int(found["line"])) if found else (problem, 0)


@dataclass(frozen=True)
class Parts:
    """A runbook file cut in two: the front matter's text, and the body with the line it starts on."""

    path: Path
    header: str
    body: str
    body_line: int


def split(path: Path) -> tuple[Parts | None, list[str]]:
    """The file's front matter and body, or the problem that keeps them apart."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return None, [f"{path}:1: (file): cannot read the runbook: {exc.strerror or exc}"]
    if not text.startswith("---"):
        return None, [f"{path}:1: front matter: a runbook starts with YAML front matter between '---' lines"]
    end = text.find("\n---", 3)
    if end < 0:
        return None, [f"{path}:1: front matter: not closed by a '---' line"]
    rest = text[end + 4 :]
    body = rest.lstrip("\n")
    closing = text[: end + 4].count("\n") + 1  # the line of the closing '---'
    body_line = closing + len(rest) - len(body) if body.strip() else closing
    return Parts(path, text[3:end], body, body_line), []


def read_runbook(path: Path, taxonomy: Taxonomy) -> tuple[Runbook | None, list[str]]:
    """The runbook (None when it has a problem) and every problem of its front matter."""
    parts, problems = split(path)
    if parts is None:
        return None, problems
    header = parts.header
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = (mark.line + 1) if mark else 1
        return None, [f"{path}:{line}: front matter: not valid YAML: {getattr(exc, 'problem', None) or exc}"]
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        return None, [
            f"{path}:2: front matter: must be a mapping of fields (id, title, matches...), not {kind}"
        ]
    root = compose(header)

    def bad(loc: tuple[Any, ...], message: str) -> None:
        problems.append(f"{path}:{line_of(root, loc)}: {dotted(loc)}: {message}")

    meta: FrontMatter | None = None
    try:
        meta = FrontMatter.model_validate(data)
    except ValidationError as exc:
        problems += [p.replace(": Value error, ", ": ", 1) for p in describe(exc, str(path), root)]
    matches = data.get("matches")
    codes = matches.get("codes") if isinstance(matches, dict) else None
    for index, code in enumerate(codes if isinstance(codes, list) else []):
        if isinstance(code, str) and not taxonomy.knows(code):
            hint = did_you_mean(code, taxonomy.known())
            bad(("matches", "codes", index), f"{code!r} is not a taxonomy code{hint}")
    if isinstance(data.get("id"), str) and data["id"] != path.stem:
        bad(("id",), f"{data['id']!r} must equal the file name {path.stem!r}")
    if meta is None or problems:
        return None, problems
    for index, code in enumerate(meta.matches.codes):
        category = taxonomy.category_of(code)
        if code != UNATTRIBUTED and meta.matches.categories and category not in meta.matches.categories:
            listed = ", ".join(c.value for c in meta.matches.categories)
            bad(("matches", "codes", index), f"{code} is of category {category.value}, not of {listed}")
    codes = [taxonomy.canonical(code) for code in meta.matches.codes]  # an alias matches its code
    meta = meta.model_copy(update={"matches": meta.matches.model_copy(update={"codes": codes})})
    book = Runbook(meta=meta, path=path, body=parts.body, header=header)
    return (None, problems) if problems else (book, [])


def duplicates(books: Iterable[Runbook]) -> list[str]:
    """Two runbooks with one id (the triage names a runbook by its id)."""
    problems: list[str] = []
    first: dict[str, Runbook] = {}
    for book in books:
        if book.id in first:
            problems.append(f"{book.where(('id',))}: {book.id!r} is already used by {first[book.id].path}")
        first.setdefault(book.id, book)
    return problems
