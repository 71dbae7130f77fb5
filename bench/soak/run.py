"""Soak benchmark: the bot as a real process for a long time against the sandbox, with a realistic mix.

Starts the sandbox (one pack's backends, the Slack stand-in; the rules engine, no LLM) and
`python -m bot serve` on SQLite (or `--database-url`), then drives it: new alert groups (from
several packs' alerts) at `--rate` a minute, repeat notifications every `--repeat-seconds`, groups
that gain alerts, resolve, flap and fire again, `/incident` commands and API writes (notes, ack,
resolve with a code), so incidents open, triage, post to Slack, resolve and get their postmortem.
Every `--sample-seconds` it samples the bot's RSS, fds and threads (/proc), the due job queue, the
incidents, the Slack posts and the window's webhook latency. At the end it waits for the queue to
drain and checks that every alert fingerprint sent is stored. Exits non-zero on any 5xx or failed
request, a lost alert or incident, a dead job, an untriaged incident, or a queue that did not drain.

    .venv/bin/python bench/soak/run.py [--minutes 60 | --seconds N] [--rate 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # `bench.soak` from a checkout

from bench.soak import report
from bench.soak.driver import AM_TOKEN, API_TOKEN, Driver
from bench.soak.mix import Mix
from bench.soak.probe import Sample, fingerprints, percentile, process, queue_depth, store
from bench.soak.probe import channel as channel_of
from bot.config import BotConfig, SlackConfig
from bot.sandbox.pack import load_pack
from bot.sandbox.up import Sandbox
from bot.settings import Settings
from bot.store.db import Database, create_database
from bot.triage.taxonomy import UNATTRIBUTED, default_taxonomy

ROOT = Path(__file__).resolve().parents[2]
PACKS = (
    "kv-cache-preemption-traffic-surge",
    "gpu-xid79-fell-off-bus",
    "cuda-oom-after-max-num-seqs-rollout",
    "httproute-weight-skew-429",
    "rag-qdrant-timeouts",
    "no-logs-tgi-queue-full",
)


CLOCK = time.monotonic()


def note(text: str) -> None:
    """Progress on stderr, so a long run shows it is alive; the figures go to stdout."""
    print(f"[{time.monotonic() - CLOCK:7.1f} s] {text}", file=sys.stderr, flush=True)


def bot_env(sandbox: Sandbox, database_url: str, config: Path, workers: int) -> dict[str, str]:
    """The environment `sandbox up` prints, with nothing of the bot's settings inherited."""
    env = {k: v for k, v in os.environ.items() if k.lower() not in Settings.model_fields}
    return (
        env
        | sandbox.env
        | {
            "DATABASE_URL": database_url,
            "ALERTMANAGER_TOKEN": AM_TOKEN,
            "API_TOKEN": API_TOKEN,
            "INCIDENT_BOT_CONFIG": str(config),
            "WORKER_THREADS": str(workers),
            "KUBERNETES_IN_CLUSTER": "false",
            "LOG_LEVEL": "WARNING",
        }
    )


def start_bot(env: dict[str, str], log: IO[str]) -> tuple[subprocess.Popen[str], str]:
    bot = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        cwd=ROOT,
    )
    assert bot.stdout is not None
    first = bot.stdout.readline()
    if "listening on" not in first:
        bot.kill()
        bot.wait()
        raise SystemExit(f"the bot did not start: {first!r}\n{Path(log.name).read_text()[-3000:]}")
    out = bot.stdout
    threading.Thread(target=lambda: [log.write(line) for line in out], daemon=True).start()
    return bot, first.split()[3]


def sample(started: float, pid: int, db: Database, driver: Driver, since: float, sandbox: Sandbox) -> Sample:
    rss, fds, threads = process(pid)
    counts = store(db)
    window = [ms for at, ms in driver.latencies if at >= since]
    assert sandbox.slack is not None
    return Sample(
        seconds=round(time.monotonic() - started, 1),
        rss_mib=round(rss, 1),
        fds=fds,
        threads=threads,
        queue=counts.queue,
        dead_jobs=counts.dead_jobs,
        open=counts.open,
        resolved=counts.resolved,
        triages_posted=counts.triages_posted,
        slack_posts=len(sandbox.slack.calls_to("chat.postMessage")),
        webhooks=len(window),
        p50_ms=round(percentile(window, 50), 1),
        p95_ms=round(percentile(window, 95), 1),
        p99_ms=round(percentile(window, 99), 1),
    )


def soak(args: argparse.Namespace, folder: Path) -> dict[str, object]:
    packs = [load_pack(ROOT / "scenarios" / name) for name in args.packs]
    seconds = args.seconds if args.seconds is not None else args.minutes * 60
    with Sandbox(packs[0]) as sandbox:
        assert sandbox.slack is not None
        note(f"sandbox up: {packs[0].name}'s backends")
        notices = sandbox.slack.add_channel("incidents", members=["UBOT", "U0ANA"])
        config = BotConfig(
            responders=["U0ANA", "bob@example.com", "S0ONCALL"],
            slack=SlackConfig(announcements_channel=notices.id),
        )
        config_file = folder / "config.yaml"
        config_file.write_text(yaml.safe_dump(config.model_dump(mode="json", exclude_defaults=True)))
        database_url = args.database_url or f"sqlite:///{folder / 'soak.db'}"
        with (folder / "bot.log").open("w") as log:
            bot, url = start_bot(bot_env(sandbox, database_url, config_file, args.workers), log)
            note(f"bot up at {url} (pid {bot.pid})")
            db = create_database(database_url, pool_size=2)
            try:
                codes = [c for c in default_taxonomy().codes if c != UNATTRIBUTED]
                mix = Mix([p.alert for p in packs], args.repeat_seconds, seed=args.seed)
                slack_base = sandbox.urls["slack"].removesuffix("/api/")
                driver = Driver(url, mix, sandbox.slack, slack_base, codes, lambda i: channel_of(db, i))
                result = drive(args, seconds, bot.pid, db, driver, sandbox)
            finally:
                note("stopping the bot")
                bot.terminate()
                try:
                    bot.wait(30)
                except subprocess.TimeoutExpired:
                    bot.kill()
                    bot.wait()
                db.dispose()
                note("bot stopped")
        log_text = (folder / "bot.log").read_text()
    note("sandbox stopped")
    lines = log_text.splitlines()
    result["log_errors"] = [line for line in lines if " ERROR " in line or "Traceback" in line]
    result["log_warnings"] = [line for line in lines if " WARNING " in line]
    return result


def drive(
    args: argparse.Namespace, seconds: float, pid: int, db: Database, driver: Driver, sandbox: Sandbox
) -> dict[str, object]:
    started = time.monotonic()
    end = started + seconds
    samples = [sample(started, pid, db, driver, started, sandbox)]
    next_sample = started + args.sample_seconds
    next_group = started + 1.0
    interval = 60.0 / args.rate
    max_queue, next_depth = 0, started
    while (now := time.monotonic()) < end:
        if now >= next_group:
            driver.open_group(now)
            next_group = now + driver.mix.jitter(interval)
        driver.step(now)
        if now >= next_depth:  # the backlog between samples too, every 2 s
            max_queue, next_depth = max(max_queue, queue_depth(db)), now + 2.0
        if now >= next_sample:
            driver.read_open()
            samples.append(sample(started, pid, db, driver, next_sample - args.sample_seconds, sandbox))
            last = samples[-1]
            note(f"rss {last.rss_mib} MiB, fds {last.fds}, queue {last.queue}, open {last.open}")
            next_sample += args.sample_seconds
        time.sleep(0.1)
    note(f"mix over after {len(driver.mix.groups)} groups; draining the queue")
    drained_at = time.monotonic()
    max_queue, quiet = max(max_queue, *(s.queue for s in samples)), 0
    # Drained: no due job and every command answered, twice in a row (a command's change, e.g. a
    # resolve and its postmortem job, lands after Slack's ack).
    while quiet < 2 and time.monotonic() < drained_at + args.grace:
        depth = queue_depth(db)
        max_queue = max(max_queue, depth)
        quiet = quiet + 1 if depth == 0 and driver.unanswered() == 0 else 0
        time.sleep(0.5)
    drain_seconds = time.monotonic() - drained_at
    samples.append(sample(started, pid, db, driver, samples[-1].seconds + started, sandbox))
    driver.http.close()
    final = store(db)
    stored = fingerprints(db)
    return {
        "seconds": seconds,
        "samples": samples,
        "store": final,
        "drained": quiet >= 2,
        "drain_seconds": round(drain_seconds, 1),
        "max_queue": max_queue,
        "lost_alerts": len(driver.mix.fingerprints - stored),
        "latencies": [ms for _, ms in driver.latencies],
        "counts": dict(driver.counts),
        "incidents_expected": driver.incidents_expected,
        "incidents_seen": len(driver.incident_ids),
        "command_warnings": driver.warnings(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seconds", type=float, default=None, help="overrides --minutes (a smoke run)")
    parser.add_argument("--rate", type=float, default=1.0, help="new alert groups (incidents) a minute")
    parser.add_argument("--repeat-seconds", type=float, default=30.0, help="repeat period of an open group")
    parser.add_argument("--sample-seconds", type=float, default=30.0)
    parser.add_argument(
        "--grace", type=float, default=120.0, help="seconds the queue gets to drain at the end"
    )
    parser.add_argument("--workers", type=int, default=2, help="the bot's WORKER_THREADS")
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temporary folder")
    parser.add_argument(
        "--packs", nargs="+", default=list(PACKS), help="alerts of these packs; backends of the first"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="write the samples and the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="incident-bot-soak-") as folder:
        result = soak(args, Path(folder))
    note("done")
    figures = report.figures(result)
    report.show(args, result, figures)
    if args.json:
        samples = [s.row() for s in result["samples"]]  # type: ignore[attr-defined]
        args.json.write_text(json.dumps({"figures": figures, "samples": samples}, indent=2) + "\n")
    sys.exit(0 if figures["ok"] else 1)


if __name__ == "__main__":
    main()
