"""Coverage: how much error volume the rules leave UNATTRIBUTED, and what to write rules for next.

Seed 000's target is under 10% of error volume unattributed, tracked weekly; the report groups the
unattributed messages by signature (their variable parts replaced) so the most frequent get a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
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


# ------------------------------------------------------------------------------ the weekly report

WEEK = timedelta(days=7)
FLAG_PER_WEEK = 5.0  # seed 000's loop: a template seen more than this a week deserves a rule


class _Staged(Protocol):
    @property
    def attributed(self) -> bool: ...
    @property
    def stage(self) -> str: ...


class AttributesStaged(Protocol):
    def attribute(self, message: str) -> _Staged: ...


@dataclass(frozen=True)
class Template:
    """One Drain template of unattributed lines: how often, how often a week, one real line."""

    template: str
    count: int
    per_week: float
    example: str
    hint: str | None = None  # the learned stage's best code for the example, below its threshold

    @property
    def flagged(self) -> bool:
        return self.per_week > FLAG_PER_WEEK


@dataclass(frozen=True)
class WeeklyReport:
    """What `attribute --report` prints: the share each stage answered and what to write next."""

    total: int  # error lines: attributed, or saying that something failed
    by_stage: dict[str, int]
    span: timedelta | None  # from the lines' own timestamps; None: the input counts as one week
    templates: tuple[Template, ...]
    not_errors: int = 0  # lines no stage attributed that report no failure (INFO, 200 OK): left out

    @property
    def unattributed(self) -> int:
        return self.by_stage.get("none", 0)

    def render(self, top: int = 20) -> str:
        share = self.unattributed / self.total if self.total else 0.0
        stages = ", ".join(f"{name} {n}" for name, n in sorted(self.by_stage.items(), key=lambda kv: -kv[1]))
        span = (
            f"the lines span {self.span.total_seconds() / 86400:.1f} days "
            f"({'counted as one day, ' if self.span < timedelta(days=1) else ''}rates scaled to a week)"
            if self.span is not None
            else "no timestamps: the input is counted as one week"
        )
        out = [
            f"unattributed: {self.unattributed}/{self.total} ({share:.1%}, target < {COVERAGE_TARGET:.0%})",
            f"answered by stage: {stages or 'nothing'}",
            f"left out: {self.not_errors} lines that report no failure (INFO lines, 200 OK …)",
            span,
            f"{len(self.templates)} templates of unattributed lines; "
            f"⚑ = more than {FLAG_PER_WEEK:g} a week, write a rule",
            "",
            f"{'count':>7} {'/week':>7}    template",
        ]
        for t in self.templates[:top]:
            flag = "⚑" if t.flagged else " "
            out.append(f"{t.count:>7} {t.per_week:>7.1f} {flag}  {t.template}")
            out.append(f"{'':>18}e.g. {t.example[:200]}")
            if t.hint:
                out.append(f"{'':>18}closest code: {t.hint}")
        if len(self.templates) > top:
            out.append(f"… and {len(self.templates) - top} more templates")
        return "\n".join(out)


def weekly_report(
    lines: Iterable[tuple[str, datetime | None]],
    attributor: AttributesStaged,
    hint: Callable[[str], str] | None = None,
) -> WeeklyReport:
    """Attribute (message, time) pairs, then group the unattributed error lines into Drain
    templates, most frequent first; rates are per week of the lines' own time span (at least one
    day). A line no stage attributed and that reports no failure is not an error line: it is
    counted apart, so that feeding a whole log does not inflate the unattributed share. `hint`
    gives each template's example the closest code (the learned stage's guess below its
    threshold), a start for the rule to write."""
    from bot.triage.failure_gate import says_failure
    from tools.logs.mining import new_miner, shape

    miner = new_miner()
    total = not_errors = 0
    by_stage: dict[str, int] = {}
    clusters: dict[int, list[Any]] = {}  # cluster id -> [count, example]
    times: list[datetime] = []
    for message, at in lines:
        if at is not None:
            times.append(at)
        stage = attributor.attribute(message).stage
        if stage == "none" and not says_failure(message):
            not_errors += 1
            continue
        total += 1
        by_stage[stage] = by_stage.get(stage, 0) + 1
        if stage != "none":
            continue
        cluster = miner.add_log_message(shape(message))["cluster_id"]
        clusters.setdefault(cluster, [0, message])[0] += 1
    span = max(times) - min(times) if len(times) >= 2 else None
    scale = WEEK / max(span, timedelta(days=1)) if span is not None else 1.0
    names = {c.cluster_id: c.get_template() for c in miner.drain.clusters}
    templates = sorted(
        (
            Template(names[c], n, n * scale, example, hint(example) if hint else None)
            for c, (n, example) in clusters.items()
        ),
        key=lambda t: (-t.count, t.template),
    )
    return WeeklyReport(total, by_stage, span, tuple(templates), not_errors)
