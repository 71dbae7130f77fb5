"""Attribution rules as users write them: one YAML file per layer, validated with errors that name
the file, the line and the field, and compiled once into `Rule`s whose patterns carry the literals
a match needs (bot/triage/prefilter.py), so that a line is only tried against the patterns it can
match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.datafile import did_you_mean, read_yaml
from bot.errors import ConfigError
from bot.triage.prefilter import Check
from bot.triage.taxonomy import UNATTRIBUTED, Priority, Taxonomy
from tools.yamlpos import compose, describe, dotted, line_of

DEFAULT_RULES = Path(__file__).with_name("rules") / "attribution"  # one file per layer


# ------------------------------------------------------------------------------ file schemas


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _RuleSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    code: str = Field(min_length=1)
    patterns: list[str] | None = Field(default=None, min_length=1)
    any_: list[str] | None = Field(default=None, alias="any", min_length=1)
    all_: list[str] | None = Field(default=None, alias="all", min_length=1)
    engines: list[str] = Field(default_factory=list)
    priority: Priority | None = None
    examples: list[str] = Field(min_length=1)


class _RulesFile(_Strict):
    rules: list[_RuleSpec] = Field(min_length=1)


# ------------------------------------------------------------------------------ rules


@dataclass(frozen=True)
class Rule:
    """A compiled rule: matches when one `any` pattern and every `all` pattern is found."""

    id: str
    code: str
    layer: str
    priority: str  # effective paging priority: the rule's own, else its layer's
    explicit_priority: bool
    index: int
    any_of: tuple[Check, ...]
    all_of: tuple[Check, ...]
    engines: tuple[str, ...]
    examples: tuple[str, ...]

    @cached_property
    def gate(self) -> frozenset[str] | None:
        """Literals one of which every match of the whole rule contains (None: unknown), so that
        a line without any of them skips the rule in one set test."""
        if self.any_of:
            if any(c.needs is None for c in self.any_of):
                return None
            return frozenset().union(*(c.needs for c in self.any_of if c.needs is not None))
        return next((c.needs for c in self.all_of if c.needs is not None), None)

    @cached_property
    def any_index(self) -> tuple[tuple[int, ...], dict[str, tuple[int, ...]], frozenset[str]]:
        """Where to look among the `any` checks: those whose literals are unknown (positions), those
        each literal admits, and every such literal. A family rule holds a hundred patterns; a line
        is tried against the few its literals admit, found with one set intersection."""
        always = tuple(n for n, c in enumerate(self.any_of) if c.needs is None)
        by_literal: dict[str, list[int]] = {}
        for n, check in enumerate(self.any_of):
            for literal in check.needs or ():
                by_literal.setdefault(literal, []).append(n)
        return always, {k: tuple(v) for k, v in by_literal.items()}, frozenset(by_literal)

    def matches(self, text: str, folded: str | None = None, found: frozenset[str] | None = None) -> bool:
        if found is not None:  # the hot path, inlined: a check whose literals are absent never runs
            if self.gate is not None and self.gate.isdisjoint(found):
                return False
            if self.any_of and not self._any_admitted(text, found):
                return False
            return all(c.admits(found) and c.rx.search(text) for c in self.all_of)
        if self.any_of and not any(c.search(text, folded, found) for c in self.any_of):
            return False
        return all(c.search(text, folded, found) for c in self.all_of)

    def _any_admitted(self, text: str, found: frozenset[str]) -> bool:
        """Whether one `any` check that the literals `found` admit is found in `text`."""
        always, by_literal, literals = self.any_index
        hit = found & literals
        if len(hit) == 1 and not always:
            tried: Iterable[int] = by_literal[next(iter(hit))]
        else:  # in file order, each once
            tried = sorted({*always, *(n for literal in hit for n in by_literal[literal])})
        for n in tried:
            check = self.any_of[n]
            if check.also and any(s.isdisjoint(found) for s in check.also):
                continue
            if check.rx.search(text):
                return True
        return False


def rule_files(path: Path) -> list[Path]:
    """The rule files of `path`: the file itself, or every `*.yaml` of a folder in name order."""
    if not path.is_dir():
        return [path]
    files = sorted(path.glob("*.yaml"))
    if not files:
        raise ConfigError(f"{path}: no *.yaml attribution rule files in this folder")
    return files


def compile_all(path: Path, taxonomy: Taxonomy) -> list[Rule]:
    """Every rule of a rule file or folder, in file order; ids are unique across the files."""
    rules: list[Rule] = []
    first: dict[str, Path] = {}
    for file in rule_files(path):
        compiled = _compile_rules(file, taxonomy, start=len(rules))
        for rule in compiled:
            if rule.id in first:
                raise ConfigError(
                    f"invalid attribution rules\n  {file}: rule {rule.id!r}: id is used in {first[rule.id]}"
                )
            first[rule.id] = file
        rules.extend(compiled)
    return rules


def _compile_rules(path: Path, taxonomy: Taxonomy, start: int = 0) -> list[Rule]:
    text, data = read_yaml(path, "attribution rules")
    root = compose(text)
    try:
        spec = _RulesFile.model_validate(data)
    except ValidationError as exc:
        lines = describe(exc, str(path), root)
        raw = data.get("rules") if isinstance(data, dict) else None
        for n, err in enumerate(exc.errors()):
            rule_id = _raw_rule_id(raw, err["loc"])
            if rule_id:
                lines[n] += f" (rule {rule_id!r})"
        raise ConfigError("invalid attribution rules\n  " + "\n  ".join(lines)) from exc

    problems: list[str] = []

    def bad(loc: tuple[Any, ...], rule_id: str, message: str) -> None:
        problems.append(f"{path}:{line_of(root, loc)}: {dotted(loc)}: rule {rule_id!r}: {message}")

    rules: list[Rule] = []
    seen: set[str] = set()
    for i, r in enumerate(spec.rules):
        if r.id in seen:
            bad(("rules", i, "id"), r.id, "id is used by an earlier rule")
        seen.add(r.id)
        try:
            code = taxonomy.resolve(r.code)
        except KeyError:
            hint = did_you_mean(r.code, taxonomy.known())
            bad(("rules", i, "code"), r.id, f"unknown code {r.code!r}{hint}")
            continue
        if code == UNATTRIBUTED:
            bad(("rules", i, "code"), r.id, f"a rule cannot attribute {UNATTRIBUTED}")
            continue
        if r.patterns is not None and r.any_ is not None:
            bad(("rules", i, "any"), r.id, "`patterns` and `any` are synonyms: use one of them")
        if r.patterns is None and r.any_ is None and r.all_ is None:
            bad(("rules", i), r.id, "needs `patterns` (or `any`) or `all`")
            continue
        compiled: dict[str, list[Check]] = {}
        for field, patterns in (("patterns", r.patterns), ("any", r.any_), ("all", r.all_)):
            for j, pattern in enumerate(patterns or []):
                try:
                    rx = re.compile(pattern, re.IGNORECASE)
                except re.error as exc:
                    bad(("rules", i, field, j), r.id, f"invalid regex {pattern!r}: {exc}")
                    continue
                if rx.search("") is not None:
                    bad(
                        ("rules", i, field, j),
                        r.id,
                        f"pattern {pattern!r} matches an empty line, so every line",
                    )
                    continue
                compiled.setdefault(field, []).append(Check.of(rx))
        layer = taxonomy.layer_of(code)
        rules.append(
            Rule(
                id=r.id,
                code=code,
                layer=layer.name,
                priority=r.priority or layer.priority,
                explicit_priority=r.priority is not None,
                index=start + i,
                any_of=tuple(compiled.get("patterns", []) + compiled.get("any", [])),
                # The cheap refusals first: a check with literals is ruled out by the index.
                all_of=tuple(sorted(compiled.get("all", []), key=Check.selectivity)),
                engines=tuple(r.engines),
                examples=tuple(r.examples),
            )
        )
    if problems:
        raise ConfigError("invalid attribution rules\n  " + "\n  ".join(problems))
    return rules


def _raw_rule_id(raw: Any, loc: tuple[Any, ...]) -> str | None:
    """The `id` of the rule a validation error points into, when it has a usable one."""
    if not isinstance(raw, list) or len(loc) < 2 or loc[0] != "rules" or not isinstance(loc[1], int):
        return None
    if loc[1] >= len(raw) or not isinstance(raw[loc[1]], dict):
        return None
    rule_id = raw[loc[1]].get("id")
    return rule_id if isinstance(rule_id, str) and rule_id else None
