"""Attribution: one error line → one code of the failure taxonomy, or UNATTRIBUTED.

"inference failed" says nothing about who should look; a layered code (INF_GPU_OOM, DEP_CACHE,
BIZ_INPUT_TOO_LONG …) points at the dashboard and the team (seed 000). The taxonomy and the
rules are data (rules/taxonomy.yaml, rules/attribution/, one file per layer) that users extend, so both are
validated at start-up with errors naming the file, the line and the field (attribution_rules.py).
Patterns are compiled once; attributing a line is one pass of an automaton over its literals and
the few precompiled regexes those literals admit (thousands of lines per second).

When several rules match one line the layer of lowest rank in the taxonomy wins (infrastructure
first), then a rule's explicit priority, then file order; the other codes are kept in `also`.
UNATTRIBUTED is an answer, not a guess: the weekly report of frequent unattributed messages is
how rules get added (the share must stay under 10% of error volume).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bot.errors import ConfigError
from bot.triage.attribution_rules import DEFAULT_RULES, Rule, compile_all
from bot.triage.envelope import unwrap
from bot.triage.learned import LearnedModel
from bot.triage.log_header import strip_header
from bot.triage.prefilter import LiteralIndex
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy

PRIORITY_ORDER: dict[str, int] = {"P1": 1, "P2": 2, "P3": 3}
# Tracebacks put the exception last and banners first: scan both ends of a huge message, not all
# of it, so that one pathological line cannot stall a batch.
SCAN_LIMIT = 16_384

# A service that already stamps its error code (seed 000: error.code on the span) is believed.
_EXPLICIT = re.compile(
    r"""(?:\berror[._-]?code|\berr_code|\bcode)["']?\s*[:=]\s*["']?([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b"""
)
EXPLICIT_RULE = "explicit-code"
_ANCHOR = re.compile(r"(?<![\[\\])\^|\\A")  # a ^ that is not a class's negation or a literal
_Winner = tuple[tuple[int, int, int], str, str, str]  # rank, code, rule, priority


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
        self._ranks = tuple(map(self._rank, self._ranked))
        # Which rules a found literal makes possible: a line is only tried against those, plus
        # the rules whose literals are unknown (positions in precedence order).
        self._ungated = frozenset(n for n, r in enumerate(self._ranked) if r.gate is None)
        self._by_literal: dict[str, frozenset[int]] = {}
        for n, rule in enumerate(self._ranked):
            for literal in rule.gate or ():
                self._by_literal[literal] = self._by_literal.get(literal, frozenset()) | {n}
        self._index = LiteralIndex(c for r in rules for c in (*r.any_of, *r.all_of))
        # The rules a logger's header can hide a match from: those with an anchor. Any other
        # pattern found in the message behind a header is found in the whole line as well.
        self._anchored = frozenset(
            n
            for n, r in enumerate(self._ranked)
            if any(_ANCHOR.search(c.rx.pattern) for c in (*r.any_of, *r.all_of))
        )
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
        return cls(taxonomy, compile_all(rules, taxonomy), learned)

    def _rank(self, rule: Rule) -> tuple[int, int, int]:
        return (self.table.layers[rule.layer].rank, PRIORITY_ORDER[rule.priority], rule.index)

    def attribute(self, message: str) -> Attribution:
        """The highest-precedence code among the rules that match, or UNATTRIBUTED. The rules and the
        model read the message, not its shipper's envelope (envelope.py)."""
        message = unwrap(message)
        text = (
            message
            if len(message) <= SCAN_LIMIT
            else f"{message[: SCAN_LIMIT // 2]}\n{message[-SCAN_LIMIT // 2 :]}"
        )
        found = self._index.found_in(text)
        candidates = self._candidates(found)
        winner, codes = self._match(text, found, candidates)
        if winner is None:
            # A rule written for the bare message ("^KeyError: 'gemma3n'$") still reads it under
            # the logger's header; one that needs the header (a source file it names) matched above.
            # The message's literals are the line's, or fewer: `found` still gates its rules.
            anchored = [n for n in candidates if n in self._anchored]
            body = strip_header(text) if anchored else text
            if body != text:
                winner, codes = self._match(body, found, anchored)
        if winner is None:
            return self._learned(text)
        _, code, rule_id, priority = winner
        info = self.table.info(code)
        also = tuple(c for c in codes if c != code)
        stage = "explicit" if rule_id == EXPLICIT_RULE else "rule"
        return Attribution(code, info.layer, info.category, rule_id, also, priority, stage)

    def _match(
        self, text: str, found: frozenset[str], candidates: list[int]
    ) -> tuple[_Winner | None, list[str]]:
        """The best of the line's own code and the candidate rules that match it (positions in
        precedence order), and every code matched."""
        winner: _Winner | None = None
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
        for n in candidates:  # in precedence order: the first match is the best rule
            rule = self._ranked[n]
            if rule.code in codes or not rule.matches(text, found=found):
                continue
            rank = self._ranks[n]
            if winner is None or rank < winner[0]:
                winner = (rank, rule.code, rule.id, rule.priority)
            codes.append(rule.code)
        return winner, codes

    def _candidates(self, found: frozenset[str]) -> list[int]:
        """The rules that can match a line holding the literals `found` (positions in precedence
        order)."""
        positions = set(self._ungated)
        for literal in found:
            positions |= self._by_literal.get(literal, frozenset())
        return sorted(positions)

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
