"""A job queue in the database, safe to share between threads, processes and replicas.

Jobs are claimed with one UPDATE .. RETURNING whose subquery skips rows locked by other
claimers on PostgreSQL (FOR UPDATE SKIP LOCKED); SQLite serialises writers, so the same UPDATE
is atomic there. A claim is a lease: a worker that dies leaves a job whose lease expires and
that another worker then picks up. Completion is fenced on the lease holder.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from bot.store.models import JobRow
from bot.store.upsert import insert_for


class JobKind(StrEnum):
    """What the worker can be asked to do; each lifecycle transition enqueues the jobs it implies."""

    ANNOUNCE = "incident.announce"  # the first post: channel, responders, dashboards, query and value
    TRIAGE = "incident.triage"  # one triage run: gather, attribute, classify, review, propose, report
    POST_TRIAGE = "incident.post_triage"  # a stored triage run, posted under its announcement
    ALERTS_RESOLVED = "incident.alerts_resolved"  # every alert resolved: ask a human to resolve
    ACT = "incident.act"  # an approved decision: resume the run's paused triage, which executes it
    EXPIRE = "incident.expire_proposal"  # a proposal's time is up: expire it if undecided, say so
    POSTMORTEM = "incident.postmortem"  # resolved: draft the postmortem, post it with the summary
    ARCHIVE = "incident.archive_channel"  # some time after resolve: archive the incident's channel


QUEUED = "queued"
RUNNING = "running"
DONE = "done"
DEAD = "dead"


@dataclass(frozen=True)
class Job:
    """A claimed job."""

    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int
    max_attempts: int


def enqueue(
    session: Session,
    *,
    kind: str,
    payload: dict[str, Any],
    now: datetime,
    dedup_key: str | None = None,
    max_attempts: int = 5,
    run_after: datetime | None = None,
) -> bool:
    """Add a job (due at once, or at `run_after`); with a dedup_key already queued or run, do nothing.
    True when added."""
    stmt = (
        insert_for(session, JobRow)
        .values(
            kind=str(kind),
            payload=payload,
            dedup_key=dedup_key,
            status=QUEUED,
            attempts=0,
            max_attempts=max_attempts,
            run_after=run_after or now,
            created_at=now,
        )
        .on_conflict_do_nothing(index_elements=["dedup_key"])
        .returning(JobRow.id)
    )
    return session.execute(stmt).scalar_one_or_none() is not None


def claim(session: Session, *, worker_id: str, now: datetime, lease: timedelta) -> Job | None:
    """Take the oldest runnable job (queued and due, or running with an expired lease)."""
    candidate = (
        select(JobRow.id)
        .where(
            or_(
                and_(JobRow.status == QUEUED, JobRow.run_after <= now),
                and_(JobRow.status == RUNNING, JobRow.locked_until < now),
            )
        )
        .order_by(JobRow.run_after, JobRow.id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    stmt = (
        update(JobRow)
        .where(JobRow.id == candidate)
        .values(
            status=RUNNING,
            locked_by=worker_id,
            locked_until=now + lease,
            attempts=JobRow.attempts + 1,
        )
        .returning(JobRow.id, JobRow.kind, JobRow.payload, JobRow.attempts, JobRow.max_attempts)
    )
    row = session.execute(stmt).one_or_none()
    if row is None:
        return None
    return Job(
        id=row.id,
        kind=row.kind,
        payload=dict(row.payload),
        attempts=row.attempts,
        max_attempts=row.max_attempts,
    )


def complete(session: Session, *, job: Job, worker_id: str, now: datetime) -> bool:
    """Mark done; False when the lease was lost to another worker meanwhile."""
    stmt = (
        update(JobRow)
        .where(JobRow.id == job.id, JobRow.locked_by == worker_id, JobRow.status == RUNNING)
        .values(status=DONE, finished_at=now, locked_until=None, last_error=None)
    )
    return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined,no-any-return]


def fail(session: Session, *, job: Job, worker_id: str, now: datetime, error: str) -> str:
    """Requeue with exponential backoff, or mark dead after the last attempt. Returns the status."""
    status = DEAD if job.attempts >= job.max_attempts else QUEUED
    backoff = timedelta(seconds=min(300, 2**job.attempts))
    stmt = (
        update(JobRow)
        .where(JobRow.id == job.id, JobRow.locked_by == worker_id, JobRow.status == RUNNING)
        .values(
            status=status,
            run_after=now + backoff,
            locked_until=None,
            last_error=error[:2000],
            finished_at=now if status == DEAD else None,
        )
    )
    session.execute(stmt)
    return status


def defer(session: Session, *, job: Job, worker_id: str, now: datetime, seconds: float, why: str) -> None:
    """Put the job back for later without spending an attempt (what it waits on is busy, not broken)."""
    stmt = (
        update(JobRow)
        .where(JobRow.id == job.id, JobRow.locked_by == worker_id, JobRow.status == RUNNING)
        .values(
            status=QUEUED,
            attempts=JobRow.attempts - 1,
            run_after=now + timedelta(seconds=seconds),
            locked_until=None,
            last_error=f"deferred: {why}"[:2000],
        )
    )
    session.execute(stmt)


def depth(session: Session) -> dict[str, int]:
    """Number of jobs per status (queued, running, done, dead)."""
    rows = session.execute(select(JobRow.status, func.count()).group_by(JobRow.status)).all()
    counts = {QUEUED: 0, RUNNING: 0, DONE: 0, DEAD: 0}
    counts.update({status: int(n) for status, n in rows})
    return counts


def failures(session: Session, incident_id: int) -> list[tuple[str, int, str]]:
    """(kind, attempts, last error) of an incident's jobs that failed and were not done since."""
    rows = session.execute(
        select(JobRow.kind, JobRow.attempts, JobRow.last_error, JobRow.payload)
        .where(JobRow.last_error.is_not(None), JobRow.status != DONE)
        .order_by(JobRow.id)
    ).all()
    return [
        (row.kind, int(row.attempts), str(row.last_error))
        for row in rows
        if (row.payload or {}).get("incident_id") == incident_id
    ]
