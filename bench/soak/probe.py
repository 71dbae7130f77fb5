"""What the soak samples: the bot process from /proc, its queue and incidents from its database."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select

from bot.domain import EventKind, IncidentStatus
from bot.jobs import DEAD, QUEUED, RUNNING
from bot.store.db import Database
from bot.store.models import AlertRow, ChatChannelRow, IncidentRow, JobRow, TimelineEventRow


@dataclass(frozen=True)
class Sample:
    """One row of the table: the process, the queue, the incidents, the window's webhook latency."""

    seconds: float
    rss_mib: float
    fds: int
    threads: int
    queue: int  # queued or running jobs that are due (later ones, e.g. proposal expiries, wait)
    dead_jobs: int
    open: int
    resolved: int
    triages_posted: int
    slack_posts: int
    webhooks: int  # in the window
    p50_ms: float
    p95_ms: float
    p99_ms: float

    def row(self) -> dict[str, float | int]:
        return asdict(self)


def process(pid: int) -> tuple[float, int, int]:
    """(RSS in MiB, open fds, threads) of a running process."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
    )
    rss_kib = int(fields["VmRSS"].split()[0])
    return rss_kib / 1024, len(os.listdir(f"/proc/{pid}/fd")), int(fields["Threads"])


@dataclass(frozen=True)
class Store:
    """Counts read from the bot's own database (a second connection; the bot's writes go on)."""

    queue: int
    scheduled: int
    dead_jobs: int
    open: int
    resolved: int
    incidents: int
    triages_posted: int
    postmortems: int


def store(db: Database) -> Store:
    now = datetime.now(UTC)
    pending = JobRow.status.in_((QUEUED, RUNNING))
    with db.reader() as session:

        def count(*where: object) -> int:
            return int(session.scalar(select(func.count()).select_from(JobRow).where(*where)) or 0)  # type: ignore[arg-type]

        def events(kind: EventKind) -> int:
            stmt = select(func.count(func.distinct(TimelineEventRow.incident_id))).where(
                TimelineEventRow.kind == kind.value
            )
            return int(session.scalar(stmt) or 0)

        by_status = dict(
            session.execute(select(IncidentRow.status, func.count()).group_by(IncidentRow.status))
            .tuples()
            .all()
        )
        resolved = int(by_status.get(IncidentStatus.RESOLVED.value, 0))
        return Store(
            queue=count(pending, JobRow.run_after <= now),
            scheduled=count(pending, JobRow.run_after > now),
            dead_jobs=count(JobRow.status == DEAD),
            open=sum(int(n) for n in by_status.values()) - resolved,
            resolved=resolved,
            incidents=sum(int(n) for n in by_status.values()),
            triages_posted=events(EventKind.TRIAGE_POSTED),
            postmortems=events(EventKind.POSTMORTEM_DRAFTED),
        )


def queue_depth(db: Database) -> int:
    """Queued or running jobs that are due: the backlog."""
    stmt = select(func.count()).select_from(JobRow)
    stmt = stmt.where(JobRow.status.in_((QUEUED, RUNNING)), JobRow.run_after <= datetime.now(UTC))
    with db.reader() as session:
        return int(session.scalar(stmt) or 0)


def channel(db: Database, incident_id: int) -> str | None:
    with db.reader() as session:
        return session.scalar(
            select(ChatChannelRow.channel_id).where(ChatChannelRow.incident_id == incident_id)
        )


def fingerprints(db: Database) -> set[str]:
    with db.reader() as session:
        return set(session.scalars(select(AlertRow.fingerprint).distinct()).all())


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, per hour; 0 with fewer than two."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return 0.0
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread * 3600
