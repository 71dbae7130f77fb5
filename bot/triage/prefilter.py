"""A cheap prefilter for the attribution regexes: literals one of which every match contains.

Searching ~900 case-insensitive regexes one by one costs ~2 ms a line. Every literal of every
pattern sits in one Aho-Corasick automaton (pyahocorasick), so one pass over the lowered line says
which literals it holds, and a pattern is run only when the line holds one literal of each set its
parse tree requires. It never changes the answer: a pattern whose literals are unknown always runs,
and a line in any script is lowered so that an ASCII literal a match holds is always seen.
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
    also: tuple[frozenset[str], ...] = ()  # more sets, each of which a match holds one of

    @classmethod
    def of(cls, rx: re.Pattern[str]) -> Check:
        """The check of a compiled pattern, with every literal set its parse tree guarantees."""
        sets = required_sets(rx.pattern)
        return cls(rx, sets[0], sets[1:]) if sets else cls(rx, None)

    def selectivity(self) -> tuple[int, int, int, int]:
        """Sort key of checks, the likeliest to refuse a line cheaply first."""
        if self.needs is None:
            return (1, 0, 0, 0)
        common, shortest, size, _ = _selectivity(self.needs)
        return (0, int(common), shortest, size)

    def admits(self, found: frozenset[str]) -> bool:
        """Whether a line holding the literals `found` can match (False: the regex need not run)."""
        if self.needs is None:
            return True
        return not self.needs.isdisjoint(found) and all(not s.isdisjoint(found) for s in self.also)

    def search(self, text: str, folded: str | None = None, found: frozenset[str] | None = None) -> bool:
        """Whether the pattern is found; `folded` is the lowered text when it is ASCII, `found`
        the literals a LiteralIndex saw in it (faster than testing each literal)."""
        if self.needs is not None:
            if found is not None:
                if not self.admits(found):
                    return False
            elif folded is not None and not all(
                any(n in folded for n in s) for s in (self.needs, *self.also)
            ):
                return False
        return self.rx.search(text) is not None


class LiteralIndex:
    """The required literals of many checks in one automaton: which of them a lowered line holds."""

    def __init__(self, checks: Iterable[Check]) -> None:
        self._automaton: Any = ahocorasick.Automaton()
        for check in checks:
            for literal in (check.needs or frozenset()).union(*check.also):
                self._automaton.add_word(literal, literal)
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()
        self._non_ascii = frozenset(w for w in self._automaton if not w.isascii())

    def found(self, folded: str) -> frozenset[str]:
        """Every indexed literal that occurs in `folded` (overlapping occurrences included)."""
        if self._empty:
            return frozenset()
        return frozenset(literal for _, literal in self._automaton.iter(folded))

    def found_in(self, text: str) -> frozenset[str]:
        """The literals a line of any script may hold: those found in it once lowered, with the
        characters re.IGNORECASE matches to an ASCII letter mapped to it, so that an ASCII literal
        a match holds is always seen; and every non-ASCII literal (their case folding is re's, not
        str.lower's: never ruled out)."""
        if text.isascii():
            return self.found(text.lower())
        return self.found(text.translate(_TO_ASCII).lower()) | self._non_ascii


def required_sets(pattern: str) -> tuple[frozenset[str], ...]:
    """Every useful set of lower-case strings that each match of `pattern` holds one of, the most
    selective first: a line must hold one string of each set before the regex is worth running."""
    try:
        parser: Any = importlib.import_module("re._parser")
        consts: Any = importlib.import_module("re._constants")
        options = _options(list(parser.parse(pattern, re.IGNORECASE)), consts)
    except Exception:  # private module: any surprise only disables the prefilter
        return ()
    return tuple(sorted(set(options), key=_selectivity))


MIN_LITERAL = 3


def _never_ascii(text: str) -> bool:
    """Whether no ASCII line can hold `text` even case-insensitively ("余额不足" yes; the Kelvin
    sign, which matches "k", no): such a literal rules its regex out of every ASCII line, the only
    lines the index reads."""
    return any(ord(ch) > 127 and not _ASCII_ALIKE.match(ch) for ch in text)


# The non-ASCII characters re.IGNORECASE matches to an ASCII letter: dotted and dotless i, long s,
# the Kelvin sign (every such character below U+10000; tests/triage/test_attribution.py checks it).
ASCII_ALIKE = "\u0130\u0131\u017f\u212a"
_ASCII_ALIKE = re.compile(f"[{ASCII_ALIKE}]")
_TO_ASCII = str.maketrans(dict(zip(ASCII_ALIKE, "iisk", strict=True)))


def _selectivity(s: frozenset[str]) -> tuple[bool, int, int, tuple[str, ...]]:
    """Sort key, most selective first: no everyday word, longest shortest member, fewest members."""
    return (any(x.strip() in COMMON for x in s), -min(len(x) for x in s), len(s), tuple(sorted(s)))


def _needs(items: list[Any], c: Any) -> frozenset[str] | None:
    """The most selective required-literal set of a sequence of parsed items."""
    options = _options(items, c)
    return min(options, key=_selectivity) if options else None


def _options(items: list[Any], c: Any) -> list[frozenset[str]]:
    """The required-literal sets of a sequence of parsed items that are worth testing (each member
    at least MIN_LITERAL long, or one no ASCII line holds); every one of them holds for each match."""
    options: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        text = "".join(run).lower()
        if text and (text.isascii() or _never_ascii(text)):
            options.append(frozenset({text}))
        run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        if op is c.BRANCH and run and all(all(o is c.LITERAL for o, _ in b) for b in av[1]):
            # re factors a common prefix out of literal alternatives ("CU(?:DA|BLAS)"): join it back
            prefix = "".join(run)
            options.append(frozenset((prefix + "".join(chr(v) for _, v in b)).lower() for b in av[1]))
        flush()
        inner: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            options.extend(_options(list(av[3]), c))
            continue
        elif op is c.BRANCH:
            alternatives = [_needs(list(branch), c) for branch in av[1]]
            if alternatives and all(alternatives):
                inner = frozenset().union(*[a for a in alternatives if a])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
            options.extend(_options(list(av[2]), c))
            continue
        elif op is getattr(c, "ATOMIC_GROUP", None):
            options.extend(_options(list(av), c))
            continue
        if inner:
            options.append(inner)
    flush()
    return [s for s in options if all(len(x) >= MIN_LITERAL or _never_ascii(x) for x in s)]


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
