"""The triage chart: a real PNG of the signal with its threshold and marks, drawn without pyplot."""

from __future__ import annotations

import gc
import struct
import sys
from datetime import UTC, datetime, timedelta

from matplotlib.figure import Figure

from bot.slack.charts import Chart, Mark, render
from tools.prometheus import Series

T0 = datetime(2026, 6, 16, 18, 0, tzinfo=UTC)


def test_render_gives_a_1280_by_500_png_and_says_what_it_shows() -> None:
    points = [(T0 + timedelta(minutes=m), 0.05 + (0.1 if m > 40 else 0.0)) for m in range(65)]
    chart = Chart(
        title="SupportBotTimePerOutputTokenHigh",
        series=[Series(labels={"pod": "vllm-0"}, points=points), Series(labels={}, points=[])],
        threshold=0.08,
        marks=[
            Mark(T0 + timedelta(minutes=51), "alert", "#d62728"),
            Mark(T0 + timedelta(minutes=41), "first sign", "#ff7f0e"),
        ],
    )
    png = render(chart)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (1280, 500) and 10_000 < len(png) < 300_000
    assert (
        chart.alt_text()
        == "SupportBotTimePerOutputTokenHigh: latest 0.15, threshold 0.08; alert 18:51Z; first sign 18:41Z"
    )
    assert "matplotlib.pyplot" not in sys.modules  # no global figure state in a long-running process


def test_no_data_still_draws() -> None:
    assert render(Chart(title="nothing", series=[]))[:4] == b"\x89PNG"
    assert Chart(title="nothing", series=[]).alt_text() == "nothing: no data"


def figures_alive() -> int:
    return sum(isinstance(o, Figure) for o in gc.get_objects())


def test_a_rendered_chart_leaves_no_figure_for_the_collector() -> None:
    """A figure is all reference cycles: unless render frees it, it waits for a full collection
    with its pixel buffer, and in a long-running bot those waits fragmented the heap."""
    points = [(T0 + timedelta(minutes=m), float(m % 7)) for m in range(65)]
    chart = Chart(title="burn", series=[Series(labels={"pod": "vllm-0"}, points=points)], threshold=3.0)
    gc.collect()
    gc.disable()  # only what render itself frees counts
    try:
        before = figures_alive()
        for _ in range(3):
            render(chart)
        assert figures_alive() == before
    finally:
        gc.enable()
