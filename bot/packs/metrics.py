"""metrics.om: the raw samples behind the triage's queries, read back from Prometheus.

Each selector of the catalog's queries (rendered for the incident's scope) and of the alert's
own expression is read as one range-vector instant query at `as_of` (`selector[Ns]`), which
returns the stored samples themselves with their timestamps, not values computed at steps. The
samples are written as OpenMetrics, one line each, as `promtool tsdb create-blocks-from
openmetrics` loads them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.packs.redaction import text
from bot.packs.selectors import SelectorError, reads
from tools.prometheus import PromQLClient
from tools.result import Gap, Source, bounded

NAME = "__name__"


@dataclass(frozen=True)
class Wanted:
    """One selector to export, and the earliest moment its samples are needed from."""

    selector: str
    since: datetime


@dataclass
class Exported:
    """The samples read, by series (sorted label items), and what could not be read."""

    series: dict[tuple[tuple[str, str], ...], dict[float, str]] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(len(points) for points in self.series.values())


def wanted(queries: Iterable[str], start: datetime) -> tuple[list[Wanted], list[str]]:
    """The selectors of `queries`, each from `start` less the query's reach; and the queries
    that do not parse (named, not fatal: the other queries' series are still exported)."""
    since: dict[str, datetime] = {}
    bad: list[str] = []
    for query in queries:
        try:
            got = reads(query)
        except SelectorError as exc:
            bad.append(str(exc))
            continue
        for selector in got.selectors:
            earliest = start - got.reach
            since[selector] = min(since.get(selector, earliest), earliest)
    return [Wanted(s, t) for s, t in since.items()], bad


def export(client: PromQLClient, wants: list[Wanted], as_of: datetime, *, timeout: float) -> Exported:
    """Every sample the selectors match between their `since` and `as_of`, merged by series."""
    out = Exported()
    for want in wants:
        seconds = max(1, math.ceil((as_of - want.since).total_seconds()))
        query = f"{want.selector}[{seconds}s]"
        got = bounded(
            Source.PROMETHEUS,
            f"raw series {want.selector}",
            lambda q=query: client.custom_query(q, params={"time": as_of.timestamp()}),  # type: ignore[misc]
            timeout=timeout,
        )
        if isinstance(got, Gap):
            out.failed.append(str(got))
            continue
        for item in got or []:
            _merge(out, item)
    return out


def _merge(out: Exported, item: dict[str, Any]) -> None:
    labels = {str(k): text(str(v)) for k, v in (item.get("metric") or {}).items()}
    if NAME not in labels:
        return  # a computed series (none here: only plain selectors are read)
    key = tuple(sorted(labels.items()))
    points = out.series.setdefault(key, {})
    for stamp, value in item.get("values") or []:
        points[float(stamp)] = str(value)


def write(exported: Exported, path: Path) -> None:
    """OpenMetrics text with timestamps, series by series in time order, ending in `# EOF`."""
    with path.open("w", encoding="utf-8") as out:
        for key in sorted(exported.series, key=lambda k: (dict(k)[NAME], k)):
            labels = dict(key)
            name = labels.pop(NAME)
            rendered = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))
            head = f"{name}{{{rendered}}}" if rendered else name
            for stamp, value in sorted(exported.series[key].items()):
                out.write(f"{head} {value} {_stamp(stamp)}\n")
        out.write("# EOF\n")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _stamp(seconds: float) -> str:
    return f"{seconds:.3f}".rstrip("0").rstrip(".")
