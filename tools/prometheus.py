"""Prometheus evidence: each catalog signal's value at `as_of`, an hour before, and its onset.

One range query per signal and engine covers all three (window start - 1 h ... as_of, 1-minute
steps). Reads go through prometheus-api-client behind the small `PromQLClient` protocol.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlencode

from prometheus_api_client import PrometheusConnect
from urllib3.util.retry import Retry

from tools.prom_probe import scope_gap
from tools.result import DEFAULT_TIMEOUT, Evidence, Gap, Source, ToolResult, Window, bounded
from tools.signals import Catalog, Scope, Signal, family_of

STEP = timedelta(minutes=1)
BASELINE_POINTS = 15
SUSTAIN = 2  # a crossing counts once it holds for this many consecutive samples


class PromQLClient(Protocol):
    """The two calls of prometheus-api-client's PrometheusConnect the tool uses."""

    def custom_query(self, query: str, params: dict[str, Any] | None = None) -> Any: ...

    def custom_query_range(
        self,
        query: str,
        start_time: datetime,
        end_time: datetime,
        step: str,
        params: dict[str, Any] | None = None,
    ) -> Any: ...


def connect(url: str, *, timeout: float = DEFAULT_TIMEOUT) -> PrometheusConnect:
    """A client whose HTTP calls give up at the tool's deadline and never retry: a retry with
    backoff into a struggling Prometheus would spend the triage's whole budget on one query."""
    return PrometheusConnect(url=url, disable_ssl=True, timeout=timeout, retry=Retry(total=0))


def _series_key(metric: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(metric.items()) if k != "__name__")


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


@dataclass(frozen=True)
class Series:
    """One labelled series of a range query."""

    labels: dict[str, str]
    points: list[tuple[datetime, float]]


class PrometheusTool:
    """Signals from the catalog, and free PromQL for the agent, anchored on the window."""

    def __init__(
        self, client: PromQLClient, catalog: Catalog, *, link_base: str, timeout: float = DEFAULT_TIMEOUT
    ):
        self._client = client
        self._catalog = catalog
        self._link_base = link_base.rstrip("/")
        self._timeout = timeout

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    def link(self, query: str, at: datetime, *, hours: int = 2) -> str:
        """A Prometheus graph link showing the query over the window ending at `at`."""
        params = {
            "g0.expr": query,
            "g0.tab": "0",
            "g0.range_input": f"{hours}h",
            "g0.end_input": at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
        }
        return f"{self._link_base}/graph?{urlencode(params)}"

    # -- signals -------------------------------------------------------------------------------
    def read_signals(self, names: Iterable[str], scope: Scope, window: Window) -> list[ToolResult]:
        """Every named signal, read in parallel; then a gap for each engine that runs the scope's
        pods (by their images) but gave no series at all."""
        names = list(names)
        with ThreadPoolExecutor(max_workers=8, thread_name_prefix="prom") as pool:
            results = list(pool.map(lambda n: self.read_signal(n, scope, window), names))
        return results + self.silent_engines(names, scope, window, results)

    def silent_engines(
        self, names: list[str], scope: Scope, window: Window, results: list[ToolResult]
    ) -> list[ToolResult]:
        """One gap per expected engine family whose signals found nothing and that has no series for
        the scope in the window (its hint says where its series are, if anywhere). Engines that no
        pod of the scope runs say nothing: their silence is expected."""
        heard = {family_of(e.labels.get("engine", "")) for r in results for e in r.evidence}
        read = {family_of(key) for n in names for key in self._catalog.get(n).queries}
        start = min(window.start, window.as_of - timedelta(hours=1))
        out = []
        for family in self._catalog.expected(scope.images):
            if family.name in heard or family.name not in read:
                continue
            gap = scope_gap(self._client, family, scope, start, window.as_of, timeout=self._timeout)
            if gap is not None:
                out.append(ToolResult.from_gap(gap))
        return out

    def read_signal(self, name: str, scope: Scope, window: Window) -> ToolResult:
        signal = self._catalog.get(name)
        evidence: list[Evidence] = []
        gaps: list[Gap] = []
        start = min(window.start, window.as_of - timedelta(hours=1))
        for engine, template in signal.queries.items():
            query = scope.render(template, window=window.as_of - window.start)
            if query is None:
                continue
            got = bounded(
                Source.PROMETHEUS,
                f"{name} ({engine})",
                self._ranger(query, start, window.as_of),
                timeout=self._timeout,
            )
            if isinstance(got, Gap):
                gaps.append(got)
                continue
            evidence.extend(self._series_evidence(signal, engine, query, got, window))
        if evidence:
            return ToolResult.of(evidence)
        if gaps:
            return ToolResult.failed(Source.PROMETHEUS, f"signal {name}", gaps[0].reason)
        return ToolResult.of([])

    def _ranger(self, query: str, start: datetime, end: datetime) -> Callable[[], Any]:
        """A range query whose last step is `end` itself, so the value "at as_of" is read at as_of."""
        steps = math.ceil((end - start) / STEP)
        return lambda: _matrix(
            self._client.custom_query_range(query, end - steps * STEP, end, f"{int(STEP.total_seconds())}s")
        )

    def _series_evidence(
        self, signal: Signal, engine: str, query: str, result: Any, window: Window
    ) -> list[Evidence]:
        out = []
        for found in result:
            points = [(t, v) for t, v in found.points if not math.isnan(v)]
            if points:
                out.append(self._evidence(signal, engine, query, found.labels, points, window))
        return out

    def _evidence(
        self,
        signal: Signal,
        engine: str,
        query: str,
        labels: dict[str, str],
        points: list[tuple[datetime, float]],
        window: Window,
    ) -> Evidence:
        at, value = points[-1]
        hour_before = _value_at(points, window.as_of - timedelta(hours=1))
        in_window = [(t, v) for t, v in points if t >= window.start]
        baseline = statistics.median(v for _, v in in_window[:BASELINE_POINTS]) if in_window else None
        onset = _onset(signal, in_window, baseline)
        abnormal = signal.threshold.crossed(value, baseline)
        where = ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "all"
        parts = [f"{signal.name} [{where}] = {_fmt(value)}{(' ' + signal.unit) if signal.unit else ''}"]
        if hour_before is not None:
            parts.append(f"an hour before {_fmt(hour_before)}")
        if onset is not None:
            parts.append(f"{signal.threshold.describe()} since {onset:%H:%M}Z")
        elif abnormal:
            parts.append(f"{signal.threshold.describe()} (already at window start)")
        return Evidence(
            id=f"prom:{signal.name}:{engine}:{_series_key(labels)}"[:200],
            source=Source.PROMETHEUS,
            query=query,
            summary="; ".join(parts),
            value=round(value, 6),
            at=at,
            link=self.link(query, window.as_of),
            layer=signal.layer,
            onset=onset,
            labels={
                "signal": signal.name,
                "engine": engine,
                "abnormal": str(abnormal).lower(),
                **({"hour_before": _fmt(hour_before)} if hour_before is not None else {}),
                **labels,
            },
        )

    def alert_expression(self, expr: str, window: Window) -> ToolResult:
        """The alert's own PromQL over the window: its value at `as_of` and when it started firing."""
        start = min(window.start, window.as_of - timedelta(hours=1))
        got = bounded(
            Source.PROMETHEUS,
            "alert expression",
            self._ranger(expr, start, window.as_of),
            timeout=self._timeout,
        )
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        stamps = sorted(t for found in got for t, _ in found.points)
        in_window = [t for t in stamps if t >= window.start]
        if not in_window:
            return ToolResult.of([])
        onset = in_window[0]
        last_at, value = max((found.points[-1] for found in got if found.points), key=lambda p: p[0])
        already = stamps[0] < window.start
        summary = f"alert expression = {_fmt(value)}; true since {onset:%H:%M}Z" + (
            " (already true at window start)" if already else ""
        )
        return ToolResult.of(
            [
                Evidence(
                    id="prom:alert",
                    source=Source.PROMETHEUS,
                    query=expr,
                    summary=summary,
                    value=value,
                    at=last_at,
                    link=self.link(expr, window.as_of),
                    onset=None if already else onset,
                    labels={"signal": "alert_expression"},
                )
            ]
        )

    def series(self, expr: str, window: Window) -> list[Series] | Gap:
        """Every series of `expr` over the window, one point a step (for a chart of the signal)."""
        got = bounded(
            Source.PROMETHEUS,
            "chart series",
            self._ranger(expr, window.start, window.as_of),
            timeout=self._timeout,
        )
        if isinstance(got, Gap):
            return got
        return [
            Series(labels=found.labels, points=[(t, v) for t, v in found.points if not math.isnan(v)])
            for found in got
        ]

    # -- free PromQL for the agent -------------------------------------------------------------
    def promql(self, query: str, at: datetime) -> ToolResult:
        """Evaluate any PromQL at `at` (instant query)."""
        got = bounded(
            Source.PROMETHEUS,
            "promql",
            lambda: _vector(self._client.custom_query(query, params={"time": at.timestamp()})),
            timeout=self._timeout,
        )
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        evidence = []
        for labels, value in got:
            where = ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "result"
            evidence.append(
                Evidence(
                    source=Source.PROMETHEUS,
                    query=query,
                    summary=f"{where} = {_fmt(value)}",
                    value=value,
                    at=at,
                    link=self.link(query, at),
                    labels=labels,
                )
            )
        return ToolResult.of(evidence)


class NotPrometheusError(ValueError):
    """An answer that is not the Prometheus API's (a proxy's page, another service, a newer format)."""


def _labels(series: Any) -> dict[str, str]:
    metric = series.get("metric", {}) if isinstance(series, dict) else None
    if not isinstance(metric, dict):
        raise NotPrometheusError("the answer is not a Prometheus result: a series without labels")
    return {str(k): str(v) for k, v in metric.items() if k != "__name__"}


def _sample(pair: Any) -> tuple[datetime, float]:
    try:
        t, v = pair
        return datetime.fromtimestamp(float(t), UTC), float(v)
    except (TypeError, ValueError, OverflowError, OSError):
        raise NotPrometheusError(
            f"the answer is not a Prometheus result: sample {str(pair)[:40]!r}"
        ) from None


def _matrix(result: Any) -> list[Series]:
    """A range query's result, checked: what the client hands back is whatever the server sent."""
    if not isinstance(result, list | None):
        raise NotPrometheusError("the answer is not a Prometheus matrix")
    return [
        Series(labels=_labels(series), points=[_sample(p) for p in (series.get("values") or [])])
        for series in result or []
    ]


def _vector(result: Any) -> list[tuple[dict[str, str], float]]:
    """An instant query's result, checked likewise."""
    if not isinstance(result, list | None):
        raise NotPrometheusError("the answer is not a Prometheus vector")
    return [(_labels(series), _sample(series.get("value", (0, "NaN")))[1]) for series in result or []]


def _value_at(points: list[tuple[datetime, float]], when: datetime) -> float | None:
    """The last sample at or before `when` (within two steps), else None."""
    best = None
    for t, v in points:
        if t <= when:
            best = (t, v)
    if best is None or when - best[0] > 2 * STEP:
        return None
    return best[1]


def _onset(signal: Signal, points: list[tuple[datetime, float]], baseline: float | None) -> datetime | None:
    """When the signal first crossed its threshold in the window and stayed past it a while.

    None when it never did, or when it was already past the threshold at the window's start
    (the onset then lies before the window).
    """
    crossed = [signal.threshold.crossed(v, baseline) for _, v in points]
    if not crossed or crossed[0]:
        return None
    for i in range(len(points)):
        run = crossed[i : i + SUSTAIN]
        if all(run) and (len(run) == SUSTAIN or i + len(run) == len(points)):
            return points[i][0]
    return None
