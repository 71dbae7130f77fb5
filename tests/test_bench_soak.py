"""The soak benchmark's smoke run: the real bot process, the sandbox and the whole mix, briefly."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.soak.probe import Sample, Store
from bench.soak.report import figures
from tests.conftest import ROOT

SOAK = ROOT / "bench" / "soak" / "run.py"


def figure(out: str, line: str, name: str) -> float:
    """The number after `name` on the summary line starting with `line`."""
    found = re.search(rf"^{re.escape(line)}:.*?\b{re.escape(name)} (-?\d+(?:\.\d+)?)", out, re.MULTILINE)
    assert found, f"no {line} {name} in the summary:\n{out}"
    return float(found.group(1))


def test_a_short_soak_runs_the_whole_mix_clean(tmp_path: Path) -> None:
    """A 20 s soak exits 0 with every figure printed, and what it drove really happened in the bot."""
    written = tmp_path / "soak.json"
    run = subprocess.run(
        [
            sys.executable,
            str(SOAK),
            *("--seconds", "20", "--rate", "15", "--repeat-seconds", "2", "--sample-seconds", "5"),
            *("--grace", "60", "--json", str(written)),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    out = run.stdout
    assert run.returncode == 0, f"{out}\n{run.stderr[-3000:]}"
    assert "result: ok" in out
    start, end, peak = (figure(out, "rss MiB", name) for name in ("start", "end", "max"))
    assert 10 < start <= peak and end <= peak  # a Python process with the bot loaded
    figure(out, "rss MiB", "slope")
    assert figure(out, "fds", "end") > 0
    assert figure(out, "queue", "max") >= 0
    p50, p99 = figure(out, "webhook ms", "p50"), figure(out, "webhook ms", "p99")
    assert 0 < p50 <= p99
    opened = figure(out, "counts", "incidents opened")
    assert opened >= 3
    assert figure(out, "counts", "incidents expected") == opened
    assert figure(out, "counts", "triages posted") == opened
    assert figure(out, "counts", "alerts sent") > opened
    assert figure(out, "counts", "slack posts") >= opened
    for error in (
        "5xx",
        "dead jobs",
        "lost alerts",
        "lost incidents",
        "untriaged incidents",
        "command warnings",
    ):
        assert figure(out, "errors", error) == 0
    assert figure(out, "log", "errors") == 0
    saved = json.loads(written.read_text())
    assert saved["figures"]["ok"] is True
    assert saved["figures"]["counts"]["incidents opened"] == opened
    assert len(saved["samples"]) >= 3  # the start, one every 5 s, the end


def clean_result() -> dict[str, Any]:
    sample = Sample(
        seconds=0,
        rss_mib=100,
        fds=10,
        threads=5,
        queue=0,
        dead_jobs=0,
        open=1,
        resolved=1,
        triages_posted=2,
        slack_posts=8,
        webhooks=4,
        p50_ms=5,
        p95_ms=9,
        p99_ms=9,
    )
    middle = dataclasses.replace(sample, seconds=1800, rss_mib=105)
    later = dataclasses.replace(sample, seconds=3600, rss_mib=106)
    final = Store(
        queue=0, scheduled=0, dead_jobs=0, open=1, resolved=1, incidents=2, triages_posted=2, postmortems=1
    )
    return {
        "seconds": 3600,
        "samples": [sample, middle, later],
        "store": final,
        "drained": True,
        "drain_seconds": 1.0,
        "max_queue": 2,
        "lost_alerts": 0,
        "latencies": [5.0, 9.0],
        "counts": {"alerts sent": 6, "webhooks": 4},
        "incidents_expected": 2,
        "log_errors": [],
        "command_warnings": 0,
    }


def test_the_verdict_fails_on_each_kind_of_error() -> None:
    """A 5xx, a lost alert, a dead job, an error logged, an undrained queue each fail the run; a clean one passes."""
    assert figures(clean_result())["ok"] is True
    assert figures(clean_result())["rss_mib"]["slope_per_hour"] == 2.0
    final = clean_result()["store"]
    for change in (
        {"counts": {"5xx": 1}},
        {"counts": {"transport errors": 1}},
        {"lost_alerts": 1},
        {"drained": False},
        {"incidents_expected": 3},
        {"command_warnings": 1},
        {"log_errors": ["2026-06-01 10:00:00 ERROR bot.worker job 3 failed"]},
        {"store": dataclasses.replace(final, dead_jobs=1)},
        {"store": dataclasses.replace(final, triages_posted=1)},
        {"store": dataclasses.replace(final, postmortems=0)},
    ):
        assert figures(clean_result() | change)["ok"] is False, change


def test_an_hour_whose_memory_or_descriptors_climb_fails_and_a_short_run_is_not_judged() -> None:
    """Flat means through the second half: RSS at most 5 MiB an hour, no descriptor kept for good."""
    clean = clean_result()
    start, middle, later = clean["samples"]
    assert figures(clean)["flat"] | {"judged": True, "rss": True, "fds": True} == figures(clean)["flat"]
    climbing = clean | {"samples": [start, middle, dataclasses.replace(later, rss_mib=115)]}
    assert figures(climbing)["flat"]["rss_slope_per_hour"] == 20.0
    assert figures(climbing)["ok"] is False
    leaking = clean | {"samples": [start, middle, dataclasses.replace(later, fds=middle.fds + 3)]}
    assert figures(leaking)["flat"]["fds"] is False and figures(leaking)["ok"] is False
    short = climbing | {
        "seconds": 600,
        "samples": [dataclasses.replace(s, seconds=s.seconds / 6) for s in climbing["samples"]],
    }
    assert figures(short)["flat"]["judged"] is False and figures(short)["ok"] is True
