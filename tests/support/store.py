"""Read the store directly, to check what a request did (or did not) write."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.store.db import Database
from bot.store.models import AlertRow, Base, IncidentRow, JobRow, TimelineEventRow


def count(db: Database, model: type[Base]) -> int:
    with db.reader() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def totals(db: Database) -> dict[str, int]:
    """Row counts of the tables intake writes."""
    return {
        "incidents": count(db, IncidentRow),
        "alerts": count(db, AlertRow),
        "timeline": count(db, TimelineEventRow),
        "jobs": count(db, JobRow),
    }


def jobs_by_kind(db: Database) -> dict[str, int]:
    """How many jobs of each kind were ever queued."""
    with db.reader() as session:
        rows = session.execute(select(JobRow.kind, func.count()).group_by(JobRow.kind)).all()
    return {str(kind): int(n) for kind, n in rows}


def jobs_of(db: Database, incident_id: int) -> list[str]:
    """The dedup keys of the jobs queued for one incident, in order."""
    with db.reader() as session:
        keys = session.scalars(select(JobRow.dedup_key).order_by(JobRow.id)).all()
    return [k for k in keys if k and k.split(":")[1] == str(incident_id)]
