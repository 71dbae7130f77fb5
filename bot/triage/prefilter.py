"""A cheap prefilter for the attribution regexes: literals one of which every match contains.

Searching ~300 case-insensitive regexes one by one costs ~0.5 ms a line. Every literal of every
pattern sits in one Aho-Corasick automaton (pyahocorasick), so one pass over the lowered line says
which literals it holds, and a pattern none of whose literals is there is never run. It never changes
the answer: a pattern whose literals are unknown always runs.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import ahocorasick


@dataclass(frozen=True)
class Check:
    """One compiled pattern, with lower-case strings one of which every match contains."""

    rx: re.Pattern[str]
    needs: frozenset[str] | None  # None: nothing known, always run the regex

    def search(self, text: str, folded: str | None = None, found: frozenset[str] | None = None) -> bool:
        """Whether the pattern is found; `folded` is the lowered text when it is ASCII, `found`
        the literals a LiteralIndex saw in it (faster than testing each literal)."""
        if self.needs is not None:
            if found is not None:
                if self.needs.isdisjoint(found):
                    return False
            elif folded is not None and not any(n in folded for n in self.needs):
                return False
        return self.rx.search(text) is not None


class LiteralIndex:
    """The required literals of many checks in one automaton: which of them a lowered line holds."""

    def __init__(self, checks: Iterable[Check]) -> None:
        self._automaton: Any = ahocorasick.Automaton()
        for check in checks:
            for literal in check.needs or ():
                self._automaton.add_word(literal, literal)
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()

    def found(self, folded: str) -> frozenset[str]:
        """Every indexed literal that occurs in `folded` (overlapping occurrences included)."""
        if self._empty:
            return frozenset()
        return frozenset(literal for _, literal in self._automaton.iter(folded))


def required_literals(pattern: str) -> frozenset[str] | None:
    """Lower-case strings one of which every match of `pattern` contains, from its parse tree;
    None when the pattern offers nothing useful (the regex then always runs)."""
    try:
        parser: Any = importlib.import_module("re._parser")
        consts: Any = importlib.import_module("re._constants")
        found = _needs(list(parser.parse(pattern, re.IGNORECASE)), consts)
    except Exception:  # private module: any surprise only disables the prefilter
        return None
    if not found or min(len(s) for s in found) < MIN_LITERAL:
        return None
    return found


MIN_LITERAL = 3


def _needs(items: list[Any], c: Any) -> frozenset[str] | None:
    """Best required-literal set of a sequence of parsed items (longest shortest member)."""
    options: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        text = "".join(run).lower()
        if text and text.isascii():
            options.append(frozenset({text}))
        run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        inner: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            inner = _needs(list(av[3]), c)
        elif op is c.BRANCH:
            alternatives = [_needs(list(branch), c) for branch in av[1]]
            if alternatives and all(alternatives):
                inner = frozenset().union(*[a for a in alternatives if a])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
            inner = _needs(list(av[2]), c)
        elif op is getattr(c, "ATOMIC_GROUP", None):
            inner = _needs(list(av), c)
        if inner:
            options.append(inner)
    flush()
    if not options:
        return None
    return max(
        options, key=lambda s: (not any(x.strip() in COMMON for x in s), min(len(x) for x in s), -len(s))
    )


# Words nearly every error line holds: a literal set with one of them admits its regex almost
# always, so another literal of the same pattern is chosen when there is one.
COMMON = frozenset(
    {
        "error",
        "error:",
        "errors",
        "failed",
        "fail",
        "failure",
        "exception",
        "time",
        "timeout",
        "http/",
        "invalid",
        "warning",
        "info",
        "model",
        "request",
        "the",
        "failed to",
        "not",
        "out of",
    }
)
