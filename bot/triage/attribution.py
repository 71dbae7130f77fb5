"""Attribution: one error line → one code of the failure taxonomy, or UNATTRIBUTED.

"inference failed" says nothing about who should look; a layered code (INF_GPU_OOM, DEP_CACHE,
BIZ_INPUT_TOO_LONG …) points at the dashboard and the team (seed 000). The taxonomy and the
rules are data (rules/taxonomy.yaml, rules/attribution/, one file per layer) that users extend, so both are
validated at start-up with errors naming the file, the line and the field. Patterns are compiled
once; attributing a line is a pass of precompiled regexes (thousands of lines per second).

When several rules match one line the layer of lowest rank in the taxonomy wins (infrastructure
first), then a rule's explicit priority, then file order; the other codes are kept in `also`.
UNATTRIBUTED is an answer, not a guess: the weekly report of frequent unattributed messages is
how rules get added (the share must stay under 10% of error volume).
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
from bot.triage.learned import LearnedModel
from bot.triage.prefilter import Check, LiteralIndex
from bot.triage.taxonomy import UNATTRIBUTED, Priority, Taxonomy
from tools.yamlpos import compose, describe, dotted, line_of

DEFAULT_RULES = Path(__file__).with_name("rules") / "attribution"  # one file per layer
PRIORITY_ORDER: dict[str, int] = {"P1": 1, "P2": 2, "P3": 3}
# Tracebacks put the exception last and banners first: scan both ends of a huge message, not all
# of it, so that one pathological line cannot stall a batch.
SCAN_LIMIT = 16_384

# A service that already stamps its error code (seed 000: error.code on the span) is believed.
_EXPLICIT = re.compile(
    r"""(?:\berror[._-]?code|\berr_code|\bcode)["']?\s*[:=]\s*["']?([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b"""
)
EXPLICIT_RULE = "explicit-code"


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

    def matches(self, text: str, folded: str | None = None, found: frozenset[str] | None = None) -> bool:
        if found is not None:  # the hot path, inlined: a check whose literals are absent never runs
            if self.gate is not None and self.gate.isdisjoint(found):
                return False
            if self.any_of and not any(c.rx.search(text) for c in self.any_of if c.admits(found)):
                return False
            return all(c.admits(found) and c.rx.search(text) for c in self.all_of)
        if self.any_of and not any(c.search(text, folded, found) for c in self.any_of):
            return False
        return all(c.search(text, folded, found) for c in self.all_of)


def rule_files(path: Path) -> list[Path]:
    """The rule files of `path`: the file itself, or every `*.yaml` of a folder in name order."""
    if not path.is_dir():
        return [path]
    files = sorted(path.glob("*.yaml"))
    if not files:
        raise ConfigError(f"{path}: no *.yaml attribution rule files in this folder")
    return files


def _compile_all(path: Path, taxonomy: Taxonomy) -> list[Rule]:
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


# ------------------------------------------------------------------------------ attribution


@dataclass(frozen=True)
class Attribution:
    """The code of one line, with the other codes that matched (lower precedence) in `also`."""

    code: str
    layer: str | None
    category: str | None
    rule: str | None
    also: tuple[str, ...] = ()
    priority: str | None = None  # paging priority: the rule's override, else its layer's
    stage: str = "rule"  # which stage answered: explicit, rule, model, or none
    confidence: float | None = None  # the model's probability, for stage "model"

    @property
    def attributed(self) -> bool:
        return self.code != UNATTRIBUTED

    def as_dict(self) -> dict[str, object]:
        """The `attribute` command's object: code, layer, category, rule (+ also when any)."""
        out: dict[str, object] = {
            "code": self.code,
            "layer": self.layer,
            "category": self.category,
            "rule": self.rule,
            "stage": self.stage,
        }
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 3)
        if self.also:
            out["also"] = list(self.also)
        return out


NOT_ATTRIBUTED = Attribution(UNATTRIBUTED, None, None, None, stage="none")


class Attributor:
    """Attributes error lines with the compiled rules of one taxonomy."""

    def __init__(self, taxonomy: Taxonomy, rules: list[Rule], model: LearnedModel | None = None) -> None:
        self.table = taxonomy
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._ranked = tuple(sorted(rules, key=self._rank))
        # Which rules a found literal makes possible: a line is only tried against those, plus
        # the rules whose literals are unknown (positions in precedence order).
        self._ungated = frozenset(n for n, r in enumerate(self._ranked) if r.gate is None)
        self._by_literal: dict[str, frozenset[int]] = {}
        for n, rule in enumerate(self._ranked):
            for literal in rule.gate or ():
                self._by_literal[literal] = self._by_literal.get(literal, frozenset()) | {n}
        self._index = LiteralIndex(c for r in rules for c in (*r.any_of, *r.all_of))
        self.model = model
        if model is not None:
            unknown = sorted(set(model.classes) - set(taxonomy.codes) - {UNATTRIBUTED})
            if unknown:
                raise ConfigError(
                    f"{model.path}: the model answers {', '.join(unknown)}, which the taxonomy does not "
                    "declare: retrain it (python -m bot.triage.training) or set ATTRIBUTION_MODEL=off"
                )

    @classmethod
    def load(cls, taxonomy: Taxonomy, rules: Path = DEFAULT_RULES, model: Path | None = None) -> Attributor:
        """Read, validate and compile a rule file or folder (and the learned stage's file, if
        any); ConfigError names file, line and field."""
        learned = LearnedModel.load(model) if model is not None else None
        return cls(taxonomy, _compile_all(rules, taxonomy), learned)

    def _rank(self, rule: Rule) -> tuple[int, int, int]:
        return (self.table.layers[rule.layer].rank, PRIORITY_ORDER[rule.priority], rule.index)

    def attribute(self, message: str) -> Attribution:
        """The highest-precedence code among the rules that match, or UNATTRIBUTED."""
        text = (
            message
            if len(message) <= SCAN_LIMIT
            else f"{message[: SCAN_LIMIT // 2]}\n{message[-SCAN_LIMIT // 2 :]}"
        )
        winner: tuple[tuple[int, int, int], str, str, str] | None = None  # rank, code, rule, priority
        codes: list[str] = []
        explicit = self._explicit(text)
        if explicit is not None:
            layer = self.table.layer_of(explicit)
            winner = (
                (layer.rank, PRIORITY_ORDER[layer.priority], -1),
                explicit,
                EXPLICIT_RULE,
                layer.priority,
            )
            codes.append(explicit)
        found = self._index.found_in(text)
        for rule in self._candidates(found):  # in precedence order: the first match is the best rule
            if rule.code in codes or not rule.matches(text, found=found):
                continue
            rank = self._rank(rule)
            if winner is None or rank < winner[0]:
                winner = (rank, rule.code, rule.id, rule.priority)
            codes.append(rule.code)
        if winner is None:
            return self._learned(text)
        _, code, rule_id, priority = winner
        info = self.table.info(code)
        also = tuple(c for c in codes if c != code)
        stage = "explicit" if rule_id == EXPLICIT_RULE else "rule"
        return Attribution(code, info.layer, info.category, rule_id, also, priority, stage)

    def _candidates(self, found: frozenset[str]) -> Iterable[Rule]:
        """The rules that can match a line holding the literals `found`."""
        positions = set(self._ungated)
        for literal in found:
            positions |= self._by_literal.get(literal, frozenset())
        return [self._ranked[n] for n in sorted(positions)]

    def _learned(self, text: str) -> Attribution:
        """The second stage, for a line no rule matched: the model's code when it is confident."""
        if self.model is None:
            return NOT_ATTRIBUTED
        guess = self.model.guess(text)
        if not guess.confident or guess.code == UNATTRIBUTED:
            return NOT_ATTRIBUTED
        info = self.table.info(guess.code)
        layer = self.table.layer_of(guess.code)
        return Attribution(
            guess.code, info.layer, info.category, None, (), layer.priority, "model", guess.probability
        )

    def _explicit(self, text: str) -> str | None:
        for m in _EXPLICIT.finditer(text):
            try:
                code = self.table.resolve(m.group(1))
            except KeyError:
                continue
            if code != UNATTRIBUTED:
                return code
        return None

    def check_examples(self) -> list[str]:
        """Every example that does not match its own rule (run by the test suite)."""
        return [
            f"rule {rule.id!r}: example does not match: {example!r}"
            for rule in self.rules
            for example in rule.examples
            if not rule.matches(example)
        ]


def _raw_rule_id(raw: Any, loc: tuple[Any, ...]) -> str | None:
    """The `id` of the rule a validation error points into, when it has a usable one."""
    if not isinstance(raw, list) or len(loc) < 2 or loc[0] != "rules" or not isinstance(loc[1], int):
        return None
    if loc[1] >= len(raw) or not isinstance(raw[loc[1]], dict):
        return None
    rule_id = raw[loc[1]].get("id")
    return rule_id if isinstance(rule_id, str) and rule_id else None
