"""A cheap prefilter for the attribution regexes: literals one of which every match contains.

Searching ~150 case-insensitive regexes one by one costs ~0.5 ms a line; a substring test on the
lowered line rules most of them out for a fraction of that, and never changes the answer.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Check:
    """One compiled pattern, with lower-case strings one of which every match contains."""

    rx: re.Pattern[str]
    needs: frozenset[str] | None  # None: nothing known, always run the regex

    def search(self, text: str, folded: str | None = None) -> bool:
        """Whether the pattern is found; `folded` is the lowered text when it is ASCII."""
        if folded is not None and self.needs is not None and not any(n in folded for n in self.needs):
            return False
        return self.rx.search(text) is not None


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
    return max(options, key=lambda s: (min(len(x) for x in s), -len(s)))
