"""Benchmark of the demo a new user runs: per bundled scenario, `incident-bot demo --yes` in one
process, its terminal output discarded.

"start" is the sandbox and the bot coming up (Prometheus loading the scenario's metrics, the
stand-ins, migrations on a fresh SQLite store); "triage" the alert posted to the bot's webhook to
the triage post in the channel; "action" the signed Approve click to the verified result; "total"
the whole run, stop included. Each scenario once, then the medians.

    .venv/bin/python bench/demo/run.py [--scenario NAME ...]
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console

from bot.demo import scenarios
from bot.demo.session import DemoSession
from bot.demo.terminal import TerminalDemo
from bot.settings import Settings


def one(name: str, out: Path) -> tuple[float, float, float | None, float, str]:
    """(start s, triage s, action s or None, total s, first action state) of one demo run."""
    began = time.perf_counter()
    session = DemoSession(scenarios.load(name), Settings(log_level="ERROR")).start()
    started = time.perf_counter()
    with session:
        console = Console(file=io.StringIO(), width=120)
        demo = TerminalDemo(session, console, out_dir=out, approve=lambda _: True, undo=lambda _: False)
        summary = demo.run()
    total = time.perf_counter() - began
    state = summary.action_state or "-"
    return started - began, summary.seconds_to_triage, summary.seconds_to_result, total, state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", action="append", help="only these (default: every bundled one)")
    names = parser.parse_args().scenario or [s.name for s in scenarios.bundled()]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            rows.append((name, *one(name, Path(folder))))
    print("incident-bot demo --yes per bundled scenario, one run each, seconds")
    print(f"{'scenario':40} {'start':>6} {'triage':>7} {'action':>7} {'total':>6}  first action")
    for name, start, triage, action, total, state in rows:
        shown = f"{action:7.1f}" if action is not None else f"{'-':>7}"
        print(f"{name:40} {start:6.1f} {triage:7.1f} {shown} {total:6.1f}  {state}")
    actions = [r[3] for r in rows if r[3] is not None]
    print(
        f"{'median':40} {statistics.median(r[1] for r in rows):6.1f} {statistics.median(r[2] for r in rows):7.1f}"
        f" {statistics.median(actions) if actions else 0:7.1f} {statistics.median(r[4] for r in rows):6.1f}"
    )


if __name__ == "__main__":
    main()
