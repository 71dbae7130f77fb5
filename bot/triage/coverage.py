"""Coverage: how much error volume the rules leave UNATTRIBUTED, and what to write rules for next.

Seed 000's target is under 10% of error volume unattributed, tracked weekly; the report groups the
unattributed messages by signature (their variable parts replaced) so the most frequent get a rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

COVERAGE_TARGET = 0.10  # seed 000: unattributed errors must stay under 10% of error volume


class _Attributed(Protocol):
    @property
    def attributed(self) -> bool: ...


class Attributes(Protocol):
    """What the report needs of an attributor."""

    def attribute(self, message: str) -> _Attributed: ...


_SIGNATURE_SUBS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<ts>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<ts>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]+", re.I), "<url>"),
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}\b", re.I), "<ip>"),
    (re.compile(r"(?<![\w.])(?:~|\.{1,2})?(?:/[\w.@%+=~-]+){2,}/?"), "<path>"),
    (re.compile(r"-[a-z0-9]{8,10}-[a-z0-9]{5}\b"), "-<id>"),  # Deployment pod suffix
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b[0-9a-f]{8,}\b", re.I), "<hex>"),
    (
        re.compile(
            r"\b((?:request|req|trace|span|correlation)[_-]?id)([\"']?\s*[:=]\s*[\"']?)[\w.:-]+", re.I
        ),
        r"\1\2<id>",
    ),
    (re.compile(r"\b(?:req|cmpl|chatcmpl|run|job)-[\w-]+", re.I), "<id>"),
    (re.compile(r"\b(?=[a-z0-9]*\d[a-z0-9]*\d[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,}\b", re.I), "<id>"),
    (re.compile(r"(?<![A-Za-z_<])\d+(?:\.\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
)
SIGNATURE_LENGTH = 200


def signature(message: str) -> str:
    """The message with its variable parts (times, numbers, hex, ids, uuids, paths, IPs) replaced."""
    out = message
    for pattern, replacement in _SIGNATURE_SUBS:
        out = pattern.sub(replacement, out)
    return out.strip()[:SIGNATURE_LENGTH]


@dataclass(frozen=True)
class Signature:
    """A frequent unattributed message shape, with how often it occurred and one real example."""

    signature: str
    count: int
    example: str


@dataclass(frozen=True)
class UnattributedReport:
    """How much error volume the rules leave unattributed, and what to write rules for next."""

    total: int
    unattributed: int
    top: tuple[Signature, ...]

    @property
    def share(self) -> float:
        return self.unattributed / self.total if self.total else 0.0

    @property
    def within_target(self) -> bool:
        return self.share < COVERAGE_TARGET

    def render(self) -> str:
        head = f"unattributed: {self.unattributed}/{self.total} ({self.share:.1%}, target < {COVERAGE_TARGET:.0%})"
        return "\n".join([head, *(f"{s.count:>8}  {s.signature}" for s in self.top)])


def unattributed_report(
    messages: Iterable[tuple[str, int]], attributor: Attributes, top: int = 10
) -> UnattributedReport:
    """Share of error volume left UNATTRIBUTED and its most frequent signatures, from (message, count)."""
    total = unattributed = 0
    verdicts: dict[str, bool] = {}
    groups: dict[str, list[Any]] = {}  # signature -> [count, example]
    for message, count in messages:
        if count <= 0:
            continue
        total += count
        if message not in verdicts:
            verdicts[message] = attributor.attribute(message).attributed
        if verdicts[message]:
            continue
        unattributed += count
        group = groups.setdefault(signature(message), [0, message])
        group[0] += count
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0]))[: max(top, 0)]
    return UnattributedReport(
        total=total,
        unattributed=unattributed,
        top=tuple(Signature(sig, int(count), str(example)) for sig, (count, example) in ranked),
    )
