"""OpenMetrics text with timestamps, as `promtool tsdb create-blocks-from openmetrics` reads it.

One `# HELP` / `# TYPE` per family; counters are declared without `_total` and sampled with it
(exporters whose counters have no `_total`, like Envoy, TGI and Triton, are declared `unknown`);
histograms carry `_bucket{le=...}` including `+Inf`, `_sum` and `_count`. One sample per minute
with a Unix-seconds timestamp; the file ends with `# EOF`. Counters restart from zero when the
process restarts (`resets`) and are absent while the target cannot be scraped (`present`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .series import Clock, Dist, Series

Labels = dict[str, str]
Value = float | None

_SUFFIX_RANK = {"_bucket": 0, "_sum": 1, "_count": 2}


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def label_text(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape(str(v))}"' for k, v in sorted(labels.items())) + "}"


def le_python(bound: float) -> str:
    """Bucket bound as Python's prometheus_client prints it (`1.0`, `0.005`, `+Inf`)."""
    return "+Inf" if math.isinf(bound) else repr(float(bound))


def le_plain(bound: float) -> str:
    """Bucket bound as Go/C++/Rust exporters print it (`1`, `0.5`, `+Inf`)."""
    if math.isinf(bound):
        return "+Inf"
    return str(int(bound)) if float(bound).is_integer() else repr(float(bound))


def number(value: float, digits: int = 12) -> str:
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


@dataclass
class Family:
    name: str
    mtype: str
    help: str
    digits: int = 12
    rows: list[tuple[str, Labels, list[Value]]] = field(default_factory=list)

    def add(self, suffix: str, labels: Labels, values: Sequence[Value]) -> None:
        self.rows.append((suffix, dict(labels), list(values)))


def cumulate(
    increments: Iterable[float],
    present: Sequence[bool] | None = None,
    resets: Iterable[int] = (),
    initial: float = 0.0,
) -> list[Value]:
    """Running total of per-minute increments; restarts at `resets`, None where not `present`."""
    out: list[Value] = []
    reset_at = set(resets)
    total = initial
    for i, inc in enumerate(increments):
        if i in reset_at:
            total = 0.0
        total += max(0.0, inc)
        out.append(total if present is None or present[i] else None)
    return out


class OpenMetrics:
    """Collects families in declaration order and renders the whole file."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.families: dict[str, Family] = {}

    def family(self, name: str, mtype: str, help_text: str, digits: int = 12) -> Family:
        existing = self.families.get(name)
        if existing is not None:
            if existing.mtype != mtype:
                raise ValueError(f"{name}: declared {existing.mtype}, now {mtype}")
            return existing
        fam = Family(name, mtype, help_text, digits)
        self.families[name] = fam
        return fam

    def names(self) -> set[str]:
        """Every sample name the file will contain (for checking alert expressions)."""
        out: set[str] = set()
        for fam in self.families.values():
            for suffix, _, _ in fam.rows:
                out.add(fam.name + suffix)
        return out

    # -- families ------------------------------------------------------------------------------
    def gauge(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        values: Iterable[float],
        present: Sequence[bool] | None = None,
        digits: int = 6,
    ) -> None:
        vals = list(values)
        if present is not None:
            vals = [v if p else None for v, p in zip(vals, present, strict=True)]  # type: ignore[misc]
        self.family(name, "gauge", help_text, digits).add("", labels, vals)

    def counter(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        increments: Iterable[float],
        *,
        present: Sequence[bool] | None = None,
        resets: Iterable[int] = (),
        initial: float = 0.0,
        total_suffix: bool = True,
    ) -> None:
        """A counter from per-minute increments; `total_suffix=False` declares it `unknown`."""
        values = cumulate(increments, present, resets, float(round(initial)))
        if total_suffix:
            self.family(name, "counter", help_text).add("_total", labels, values)
        else:
            self.family(name, "unknown", help_text).add("", labels, values)

    def histogram(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        buckets: Sequence[float],
        counts: Sequence[float],
        dist: Dist,
        *,
        present: Sequence[bool] | None = None,
        resets: Iterable[int] = (),
        initial_count: float = 0.0,
        le_format: Callable[[float], str] = le_python,
        scale: float = 1.0,
    ) -> None:
        """Cumulative buckets from per-minute observation counts drawn from `dist`.

        `scale` converts the distribution's unit to the bucket unit (e.g. 1000 for ms buckets).
        `initial_count` observations (from before the window) are spread like minute 0.
        """
        fam = self.family(name, "histogram", help_text)
        bounds = [*sorted(buckets), math.inf]
        reset_at = set(resets)
        n = len(counts)
        cum = [0.0] * len(bounds)
        total_sum = 0.0
        total_count = 0.0
        if initial_count > 0:
            for b, bound in enumerate(bounds):
                cum[b] = float(math.floor(initial_count * dist.cdf(0, bound / scale) + 0.5))
            cum[-1] = float(round(initial_count))
            total_count = cum[-1]
            total_sum = initial_count * dist.mean(0) * scale
        series: list[list[Value]] = [[] for _ in bounds]
        sums: list[Value] = []
        cnts: list[Value] = []
        for i in range(n):
            if i in reset_at:
                cum = [0.0] * len(bounds)
                total_sum = total_count = 0.0
            c = float(round(max(0.0, counts[i])))
            if c:
                for b, bound in enumerate(bounds):
                    cum[b] += math.floor(c * dist.cdf(i, bound / scale) + 0.5) if b < len(bounds) - 1 else c
                total_sum += c * dist.mean(i) * scale
                total_count += c
            ok = present is None or present[i]
            for b in range(len(bounds)):
                series[b].append(cum[b] if ok else None)
            sums.append(round(total_sum, 3) if ok else None)
            cnts.append(total_count if ok else None)
        for b, bound in enumerate(bounds):
            fam.add("_bucket", {**labels, "le": le_format(bound)}, series[b])
        fam.add("_sum", labels, sums)
        fam.add("_count", labels, cnts)

    # -- output --------------------------------------------------------------------------------
    def render(self) -> str:
        out: list[str] = []
        stamps = [str(self.clock.ts(i)) for i in range(self.clock.n)]
        for fam in self.families.values():
            out.append(f"# HELP {fam.name} {fam.help}")
            out.append(f"# TYPE {fam.name} {fam.mtype}")
            rows = sorted(fam.rows, key=lambda r: (_SUFFIX_RANK.get(r[0], 0), label_text(r[1])))
            for suffix, labels, values in rows:
                head = fam.name + suffix + label_text(labels)
                digits = fam.digits if suffix in ("", "_sum") and fam.mtype == "gauge" else 12
                for i, v in enumerate(values):
                    if v is None:
                        continue
                    out.append(f"{head} {number(v, digits)} {stamps[i]}")
        out.append("# EOF")
        return "\n".join(out) + "\n"


def ratio(a: Sequence[float], b: Sequence[float]) -> Series:
    return Series((x / y) if y else 0.0 for x, y in zip(a, b, strict=True))
