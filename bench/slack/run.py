"""Benchmark of the Slack surface: per pack, alert to triage post in the incident channel, next to
alert to stored triage without Slack.

Each run is the production path on the sandbox: the pack's alert (as a new alert group, so a new
incident and a new channel) goes through intake into the bot's store and the worker runs the jobs.
With Slack (the stand-in, through slack_sdk), the announce job creates and furnishes the channel
and pins the announcement, the triage updates its progress message, and the triage post replaces
it, then the chart is rendered and uploaded in its thread. "post" is the moment the stand-in
received the call that put the triage in the channel; "chart" the moment the upload completed.
Without Slack, the floor: the same runs ending at the stored triage (the posts go to the timeline).

    .venv/bin/python bench/slack/run.py [--runs N] [PACK_DIR ...]   (default: scenarios/*)
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from bot.config import BotConfig
from bot.sandbox.evaluate import find_packs
from bot.sandbox.pack import load_pack
from bot.sandbox.replay import Replay, replaying
from bot.sandbox.slack import SlackStandIn
from bot.sandbox.up import Sandbox
from bot.triage.knowledge import Knowledge

ROOT = Path(__file__).resolve().parents[2]
CONFIG = BotConfig(responders=["U0ANA", "bob@example.com", "S0ONCALL"])


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def without_slack(replay: Replay) -> float:
    started = time.perf_counter()
    replay.triage()
    return (time.perf_counter() - started) * 1000


def with_slack(replay: Replay, slack: SlackStandIn) -> tuple[float, float]:
    """(ms to the triage post, ms to the uploaded chart) for one new incident."""
    started = datetime.now(UTC)
    stored = replay.triage()
    incident = replay.deps.services.incidents.list(limit=1)[0]
    posted = replay.deps.services.chat.message(incident.id, "triage", stored.run)
    assert posted is not None, "the triage was not posted"
    post = next(
        c.time
        for c in slack.calls
        if c.method in ("chat.update", "chat.postMessage")
        and c.params.get("channel") == posted.channel_id
        and c.error is None
        and "Triage:" in str(c.params.get("blocks"))
    )
    charts = [
        c.time
        for c in slack.calls_to("files.completeUploadExternal")
        if c.params.get("channel_id") == posted.channel_id and c.error is None
    ]
    chart = charts[-1] if charts else post
    return (post - started).total_seconds() * 1000, (chart - started).total_seconds() * 1000


def bench_pack(
    folder: Path, knowledge: Knowledge, runs: int
) -> tuple[str, list[float], list[float], list[float]]:
    pack = load_pack(folder)
    with Sandbox(pack) as sandbox:
        assert sandbox.slack is not None
        with replaying(sandbox, knowledge=knowledge, config=CONFIG) as replay:
            replay.triage()  # warm-up
            floor = [without_slack(replay) for _ in range(runs)]
        with replaying(sandbox, knowledge=knowledge, config=CONFIG, slack=True) as replay:
            with_slack(replay, sandbox.slack)  # warm-up: the client's connections, the chart's fonts
            timed = [with_slack(replay, sandbox.slack) for _ in range(runs)]
    return pack.name, floor, [t[0] for t in timed], [t[1] for t in timed]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("packs", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    folders = args.packs or find_packs(ROOT / "scenarios")
    knowledge = Knowledge.load()
    rows = [bench_pack(f, knowledge, args.runs) for f in folders]
    width = max(len(r[0]) for r in rows)
    print(
        "alert to triage post in Slack (stand-in) vs alert to stored triage without Slack, "
        f"{args.runs} runs per pack"
    )
    print(
        f"{'pack':<{width}}  {'floor p50':>9}  {'post p50':>8}  {'post p95':>8}  {'chart p50':>9}  {'added p50':>9}"
    )
    for name, floor, post, chart in rows:
        f50, s50 = statistics.median(floor), statistics.median(post)
        print(
            f"{name:<{width}}  {f50:>9.0f}  {s50:>8.0f}  {p95(post):>8.0f}  "
            f"{statistics.median(chart):>9.0f}  {s50 - f50:>9.0f}"
        )
    every_floor = [v for r in rows for v in r[1]]
    every_post = [v for r in rows for v in r[2]]
    every_chart = [v for r in rows for v in r[3]]
    f50, s50 = statistics.median(every_floor), statistics.median(every_post)
    print(
        f"{'all runs':<{width}}  {f50:>9.0f}  {s50:>8.0f}  {p95(every_post):>8.0f}  "
        f"{statistics.median(every_chart):>9.0f}  {s50 - f50:>9.0f}"
    )


if __name__ == "__main__":
    main()
