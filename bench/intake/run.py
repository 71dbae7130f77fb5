"""Benchmark of the Alertmanager intake: 10,000 alerts in 100 groups, posted concurrently.

Starts `incident-bot serve` on SQLite and on a real PostgreSQL (durable settings), drives it from
a separate client process over loopback, then counts what the database holds. Prints ack latency
p50/p99, alerts/s, incidents opened (must equal the groups) and alerts lost (must be 0).

    .venv/bin/python bench/intake/run.py [--db sqlite|postgresql|both] [--alerts N] [--groups N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from sqlalchemy import func, select

from bot.store.db import create_database
from bot.store.models import AlertRow, IncidentRow

# The throwaway PostgreSQL is a test helper, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.support.localpg import LocalPostgres

CLIENT = Path(__file__).with_name("client.py")


def bench(database_url: str, args: argparse.Namespace) -> dict[str, object]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "ALERTMANAGER_TOKEN": "",
        "LOG_LEVEL": "WARNING",
        "WORKER_THREADS": "2",
    }
    with subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as server:
        assert server.stdout is not None
        first = server.stdout.readline()
        if "listening on" not in first:
            raise SystemExit(f"server did not start: {first}")
        url = first.split()[3]
        try:
            out = subprocess.run(
                [
                    sys.executable,
                    str(CLIENT),
                    url,
                    "--alerts",
                    str(args.alerts),
                    "--groups",
                    str(args.groups),
                    "--concurrency",
                    str(args.concurrency),
                ],
                capture_output=True,
                text=True,
                check=True,
                timeout=1800,
            ).stdout
        finally:
            server.terminate()
            server.wait(30)
    result: dict[str, object] = json.loads(out)
    db = create_database(database_url, pool_size=1)
    with db.reader() as session:
        incidents = session.scalar(select(func.count()).select_from(IncidentRow))
        alerts = session.scalar(select(func.count()).select_from(AlertRow))
    db.dispose()
    result["incidents_opened"] = incidents
    result["alerts_stored"] = alerts
    result["alerts_lost"] = int(result["sent"]) - int(alerts or 0)  # type: ignore[call-overload]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--alerts", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, object]]] = []
    if args.db in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(("sqlite", bench(f"sqlite:///{tmp}/bench.db", args)))
    if args.db in ("postgresql", "both"):
        with LocalPostgres(durable=True) as pg:
            rows.append(("postgresql", bench(pg.create_database("bench"), args)))
    print(
        f"intake: {args.alerts} alerts in {args.groups} groups, {args.concurrency} concurrent requests, "
        f"one webhook per alert, loopback"
    )
    columns = ("p50 ms", 8), ("p99 ms", 8), ("alerts/s", 9), ("incidents", 10), ("lost", 5), ("errors", 7)
    print(f"{'database':<11} " + " ".join(f"{name:>{width}}" for name, width in columns))
    for name, r in rows:
        errors = sum(dict(r["failed"]).values())  # type: ignore[call-overload]
        print(
            f"{name:<11} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['alerts_per_s']:>9.0f} "
            f"{r['incidents_opened']:>10} {r['alerts_lost']:>5} {errors:>7}"
        )
    ok = all(r["incidents_opened"] == args.groups and r["alerts_lost"] == 0 for _, r in rows)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
