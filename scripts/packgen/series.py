"""Minute-resolution time series: the pack's clock and the shapes that build a signal.

A `Series` is a list of floats, one per minute of the pack's window, with element-wise
arithmetic. Shapes (`flat`, `step`, `ramp`, `pulse`) are combined with `+`/`*` and made
realistic with `noisy`. Everything takes an explicit `random.Random`, so output is fixed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


def utc(text: str) -> datetime:
    """Parse `2026-06-01T10:07:00Z` (or with seconds fraction) into an aware UTC datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def iso(moment: datetime, *, ms: bool = False) -> str:
    """RFC 3339 in UTC with a `Z`; milliseconds when asked (log timestamps)."""
    moment = moment.astimezone(UTC)
    if ms:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Clock:
    """The pack's sampling grid: `n` samples one minute apart, the last one at `end`."""

    end: datetime
    n: int

    @property
    def start(self) -> datetime:
        return self.end - timedelta(minutes=self.n - 1)

    def at(self, i: int) -> datetime:
        return self.start + timedelta(minutes=i)

    def ts(self, i: int) -> int:
        return int(self.at(i).timestamp())

    def idx(self, moment: datetime) -> int:
        """Index of the first sample at or after `moment` (clamped to the window)."""
        delta = (moment - self.start).total_seconds() / 60.0
        return max(0, min(self.n, math.ceil(delta - 1e-9)))

    def minutes_between(self, a: datetime, b: datetime) -> float:
        return (b - a).total_seconds() / 60.0

    def times(self) -> list[datetime]:
        return [self.at(i) for i in range(self.n)]


class Series(list[float]):
    """A list of floats with element-wise arithmetic against numbers or other series."""

    def _zip(self, other: float | Iterable[float], op: Callable[[float, float], float]) -> Series:
        if isinstance(other, int | float):
            return Series(op(a, float(other)) for a in self)
        values = list(other)
        if len(values) != len(self):
            raise ValueError(f"length mismatch: {len(self)} vs {len(values)}")
        return Series(op(a, b) for a, b in zip(self, values, strict=True))

    def __add__(self, other: float | Iterable[float]) -> Series:  # type: ignore[override]
        return self._zip(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other: float | Iterable[float]) -> Series:
        return self._zip(other, lambda a, b: a - b)

    def __rsub__(self, other: float | Iterable[float]) -> Series:
        return self._zip(other, lambda a, b: b - a)

    def __mul__(self, other: float | Iterable[float]) -> Series:  # type: ignore[override]
        return self._zip(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __truediv__(self, other: float | Iterable[float]) -> Series:
        return self._zip(other, lambda a, b: a / b if b else 0.0)

    def clip(self, lo: float = -math.inf, hi: float = math.inf) -> Series:
        return Series(min(hi, max(lo, v)) for v in self)

    def map(self, fn: Callable[[float], float]) -> Series:
        return Series(fn(v) for v in self)

    def maximum(self, other: float | Iterable[float]) -> Series:
        return self._zip(other, max)

    def minimum(self, other: float | Iterable[float]) -> Series:
        return self._zip(other, min)

    def ints(self) -> Series:
        """Round to whole numbers (counts), keeping the running total unbiased."""
        out, carry = Series(), 0.0
        for v in self:
            carry += max(0.0, v)
            whole = math.floor(carry + 0.5)
            out.append(float(whole))
            carry -= whole
        return out

    def smooth(self, width: int = 3) -> Series:
        half = width // 2
        out = Series()
        for i in range(len(self)):
            window = self[max(0, i - half) : i + half + 1]
            out.append(sum(window) / len(window))
        return out


def flat(clock: Clock, value: float) -> Series:
    return Series([float(value)] * clock.n)


def step(clock: Clock, at: datetime, before: float, after: float) -> Series:
    """`before` until `at`, `after` from the first sample at or after `at`."""
    k = clock.idx(at)
    return Series(float(before if i < k else after) for i in range(clock.n))


def ramp(clock: Clock, t0: datetime, t1: datetime, v0: float, v1: float, *, ease: bool = False) -> Series:
    """`v0` before `t0`, `v1` after `t1`, linear (or smooth-step) in between."""
    out = Series()
    span = max(1e-9, (t1 - t0).total_seconds())
    for i in range(clock.n):
        x = (clock.at(i) - t0).total_seconds() / span
        x = min(1.0, max(0.0, x))
        if ease:
            x = x * x * (3 - 2 * x)
        out.append(v0 + (v1 - v0) * x)
    return out


def pulse(clock: Clock, t0: datetime, t1: datetime, base: float, peak: float) -> Series:
    """`peak` on samples in [t0, t1), `base` elsewhere."""
    a, b = clock.idx(t0), clock.idx(t1)
    return Series(float(peak if a <= i < b else base) for i in range(clock.n))


def mask(clock: Clock, t0: datetime | None = None, t1: datetime | None = None) -> list[bool]:
    """True on samples in [t0, t1) (open ends when None)."""
    a = 0 if t0 is None else clock.idx(t0)
    b = clock.n if t1 is None else clock.idx(t1)
    return [a <= i < b for i in range(clock.n)]


def where(cond: list[bool], a: Iterable[float], b: Iterable[float]) -> Series:
    return Series(x if c else y for c, x, y in zip(cond, a, b, strict=True))


def noisy(series: Iterable[float], rng: random.Random, rel: float = 0.03, absolute: float = 0.0) -> Series:
    """Gaussian jitter: `rel` relative plus `absolute` additive, never changing the sign."""
    out = Series()
    for v in series:
        jitter = v * rng.gauss(0.0, rel) + rng.gauss(0.0, absolute) if (rel or absolute) else 0.0
        w = v + jitter
        out.append(w if (v >= 0) == (w >= 0) else v * 0.5)
    return out


def diurnal(clock: Clock, rng: random.Random, amplitude: float = 0.06) -> Series:
    """A slow multiplicative wobble around 1.0 (traffic is never perfectly flat)."""
    phase = rng.uniform(0, 2 * math.pi)
    period = rng.uniform(45, 90)
    return Series(1.0 + amplitude * math.sin(phase + 2 * math.pi * i / period) for i in range(clock.n))


def lognormal_cdf(x: float, median: float, sigma: float) -> float:
    """P(X <= x) for a log-normal with the given median and log-space sigma."""
    if x <= 0 or median <= 0:
        return 0.0
    if math.isinf(x):
        return 1.0
    z = (math.log(x) - math.log(median)) / (sigma * math.sqrt(2.0))
    return 0.5 * (1.0 + math.erf(z))


def lognormal_mean(median: float, sigma: float) -> float:
    return median * math.exp(sigma * sigma / 2.0)


@dataclass
class Dist:
    """A per-minute latency (or size) distribution: log-normal, optionally with a second mode.

    `tail_frac[i]` of the observations of minute `i` come from the second mode
    (`tail_median`, `tail_sigma`): long generations, preempted requests, timeouts.
    """

    median: Series
    sigma: float = 0.5
    tail_frac: Series | None = None
    tail_median: Series | None = None
    tail_sigma: float = 0.4

    def cdf(self, i: int, x: float) -> float:
        main = lognormal_cdf(x, self.median[i], self.sigma)
        if self.tail_frac is None or self.tail_median is None:
            return main
        f = min(1.0, max(0.0, self.tail_frac[i]))
        return (1 - f) * main + f * lognormal_cdf(x, self.tail_median[i], self.tail_sigma)

    def mean(self, i: int) -> float:
        main = lognormal_mean(self.median[i], self.sigma)
        if self.tail_frac is None or self.tail_median is None:
            return main
        f = min(1.0, max(0.0, self.tail_frac[i]))
        return (1 - f) * main + f * lognormal_mean(self.tail_median[i], self.tail_sigma)

    def quantile(self, i: int, q: float, hi: float = 1e5) -> float:
        """Numerical inverse of `cdf` (bisection in log space)."""
        lo_x, hi_x = 1e-6, hi
        for _ in range(80):
            mid = math.sqrt(lo_x * hi_x)
            if self.cdf(i, mid) < q:
                lo_x = mid
            else:
                hi_x = mid
        return hi_x
