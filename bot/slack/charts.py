"""The chart posted with a triage: the burning signal over the incident window, its threshold, and
when the alert started, the cause's first sign and the rollout (if one preceded it).

Drawn with matplotlib's object API (a `Figure` on the Agg canvas, never pyplot's global state, which
leaks figures in a long-running process) in the worker's thread, off any event loop.
"""

from __future__ import annotations

import gc
import io
from dataclasses import dataclass, field
from datetime import datetime

from matplotlib.dates import DateFormatter, date2num
from matplotlib.figure import Figure

from tools.prometheus import Series

MAX_SERIES = 8
WIDTH, HEIGHT, DPI = 12.8, 5.0, 100


@dataclass(frozen=True)
class Mark:
    at: datetime
    label: str
    color: str


@dataclass(frozen=True)
class Chart:
    """What to draw; `render` turns it into PNG bytes."""

    title: str
    series: list[Series]
    threshold: float | None = None
    marks: list[Mark] = field(default_factory=list)

    def alt_text(self) -> str:
        """What the chart says, for screen readers and for anyone who cannot load it."""
        latest = [s.points[-1][1] for s in self.series if s.points]
        value = f"latest {max(latest):.4g}" if latest else "no data"
        line = f", threshold {self.threshold:g}" if self.threshold is not None else ""
        when = "; ".join(f"{m.label} {m.at:%H:%M}Z" for m in self.marks)
        return f"{self.title}: {value}{line}" + (f"; {when}" if when else "")


def _legend(series: Series) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in sorted(series.labels.items()))
    return shown[:60] or "value"


def render(chart: Chart) -> bytes:
    """The chart as a PNG (1280 by 500 pixels)."""
    png = _draw(chart)
    # A Figure is a web of reference cycles (figure, axes, artists, canvas, its 2.5 MB renderer)
    # that reference counting never frees. Its objects are usually still young, so collecting the
    # young generations frees it now (~1 ms); one that a collection mid-draw promoted to the oldest
    # generation waits for a full collection, which `bot.heap.settle` keeps frequent in a server.
    gc.collect(1)
    return png


def _draw(chart: Chart) -> bytes:
    figure = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, layout="constrained")
    axes = figure.subplots()
    for series in chart.series[:MAX_SERIES]:
        if series.points:
            times, values = zip(*series.points, strict=True)
            axes.plot(times, values, linewidth=1.6, label=_legend(series))
    if chart.threshold is not None:
        axes.axhline(
            chart.threshold,
            color="#d62728",
            linestyle="--",
            linewidth=1.2,
            label=f"threshold {chart.threshold:g}",
        )
    for mark in chart.marks:
        at = float(date2num(mark.at))  # type: ignore[no-untyped-call]
        axes.axvline(
            at, color=mark.color, linestyle=":", linewidth=1.4, label=f"{mark.label} {mark.at:%H:%M}Z"
        )
    axes.set_title(chart.title[:120], loc="left", fontsize=11)
    axes.xaxis.set_major_formatter(DateFormatter("%H:%M"))  # type: ignore[no-untyped-call]
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(loc="upper left", fontsize=8)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()
