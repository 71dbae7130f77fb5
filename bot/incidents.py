"""Incident lifecycle: open, acknowledge, severity, category, notes, resolve, list, get.

Every change writes a timeline event carrying its actor and time, in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.clock import Clock, utc_now
from bot.domain import (
    Alert,
    Category,
    EventKind,
    Incident,
    IncidentDetail,
    IncidentStatus,
    Severity,
    TimelineEvent,
)
from bot.errors import InvalidTransitionError, NotFoundError
from bot.store.db import Database
from bot.store.models import AlertRow, IncidentRow, TimelineEventRow

MAX_NOTE = 4000


def add_event(
    session: Session,
    *,
    incident_id: int,
    at: datetime,
    actor: str,
    kind: EventKind,
    text: str,
    data: dict[str, Any] | None = None,
) -> None:
    """Append one timeline event (the caller's transaction commits it with the change)."""
    session.add(
        TimelineEventRow(
            incident_id=incident_id, at=at, actor=actor, kind=kind.value, text=text, data=data or {}
        )
    )


def _actor(actor: str) -> str:
    actor = actor.strip()
    if not actor:
        raise InvalidTransitionError("every change needs an actor (who is doing this?)")
    return actor[:200]


class IncidentService:
    """The lifecycle operations every entry point (API, CLI, Slack) goes through."""

    def __init__(self, db: Database, *, clock: Clock = utc_now) -> None:
        self._db = db
        self._clock = clock

    # -- reads ---------------------------------------------------------------------------------
    def get(self, incident_id: int) -> IncidentDetail:
        with self._db.reader() as session:
            row = session.get(IncidentRow, incident_id)
            if row is None:
                raise NotFoundError(f"incident {incident_id} does not exist")
            alerts = session.scalars(
                select(AlertRow).where(AlertRow.incident_id == incident_id).order_by(AlertRow.id)
            ).all()
            events = session.scalars(
                select(TimelineEventRow)
                .where(TimelineEventRow.incident_id == incident_id)
                .order_by(TimelineEventRow.at, TimelineEventRow.id)
            ).all()
            return IncidentDetail(
                incident=Incident.model_validate(row),
                alerts=[Alert.model_validate(a) for a in alerts],
                timeline=[TimelineEvent.model_validate(e) for e in events],
            )

    def list(
        self, *, status: IncidentStatus | None = None, active: bool = False, limit: int = 100
    ) -> list[Incident]:
        """Newest first; `active` means not resolved."""
        stmt = select(IncidentRow).order_by(IncidentRow.id.desc()).limit(limit)
        if status is not None:
            stmt = stmt.where(IncidentRow.status == status.value)
        elif active:
            stmt = stmt.where(IncidentRow.status != IncidentStatus.RESOLVED.value)
        with self._db.reader() as session:
            return [Incident.model_validate(r) for r in session.scalars(stmt).all()]

    # -- writes --------------------------------------------------------------------------------
    def declare(
        self,
        *,
        title: str,
        severity: Severity,
        actor: str,
        service: str | None = None,
        model: str | None = None,
        namespace: str | None = None,
    ) -> Incident:
        """Open an incident by hand (no alert group behind it)."""
        actor = _actor(actor)
        title = title.strip()
        if not title:
            raise InvalidTransitionError("an incident needs a title")
        now = self._clock()
        with self._db.transaction() as session:
            row = IncidentRow(
                title=title[:500],
                status=IncidentStatus.OPEN.value,
                severity=severity.value,
                service=service,
                model=model,
                namespace=namespace,
                labels={},
                started_at=now,
                opened_at=now,
            )
            session.add(row)
            session.flush()
            add_event(
                session,
                incident_id=row.id,
                at=now,
                actor=actor,
                kind=EventKind.OPENED,
                text=f"declared by {actor}: {row.title}",
                data={"severity": severity.value},
            )
            return Incident.model_validate(row)

    def acknowledge(self, incident_id: int, *, actor: str) -> Incident:
        actor = _actor(actor)
        with self._change(incident_id) as (session, row, now):
            if row.status != IncidentStatus.OPEN.value:
                raise InvalidTransitionError(f"incident {incident_id} is {row.status}, not open")
            row.status = IncidentStatus.ACKNOWLEDGED.value
            row.acknowledged_at, row.acknowledged_by = now, actor
            add_event(
                session,
                incident_id=row.id,
                at=now,
                actor=actor,
                kind=EventKind.ACKNOWLEDGED,
                text=f"acknowledged by {actor}",
            )
        return Incident.model_validate(row)

    def set_severity(self, incident_id: int, severity: Severity, *, actor: str) -> Incident:
        actor = _actor(actor)
        with self._change(incident_id) as (session, row, now):
            self._not_resolved(row)
            old = row.severity
            if old == severity.value:
                return Incident.model_validate(row)
            row.severity = severity.value
            add_event(
                session,
                incident_id=row.id,
                at=now,
                actor=actor,
                kind=EventKind.SEVERITY_CHANGED,
                text=f"severity {old} → {severity.value}",
                data={"from": old, "to": severity.value},
            )
        return Incident.model_validate(row)

    def tag_category(self, incident_id: int, category: Category, *, actor: str) -> Incident:
        """Tag the category (allowed after resolution too: the final tag is often set then)."""
        actor = _actor(actor)
        with self._change(incident_id) as (session, row, now):
            old = row.category
            row.category = category.value
            add_event(
                session,
                incident_id=row.id,
                at=now,
                actor=actor,
                kind=EventKind.CATEGORY_TAGGED,
                text=f"category {old or 'untagged'} → {category.value}",
                data={"from": old, "to": category.value},
            )
        return Incident.model_validate(row)

    def add_note(self, incident_id: int, text: str, *, actor: str) -> TimelineEvent:
        actor = _actor(actor)
        text = text.strip()
        if not text:
            raise InvalidTransitionError("a note cannot be empty")
        if len(text) > MAX_NOTE:
            raise InvalidTransitionError(f"a note is limited to {MAX_NOTE} characters")
        with self._change(incident_id) as (session, row, now):
            event = TimelineEventRow(
                incident_id=row.id, at=now, actor=actor, kind=EventKind.NOTE.value, text=text, data={}
            )
            session.add(event)
            session.flush()
        return TimelineEvent.model_validate(event)

    def resolve(self, incident_id: int, *, reason: str, actor: str) -> Incident:
        actor = _actor(actor)
        reason = reason.strip()
        if not reason:
            raise InvalidTransitionError("resolving needs a reason")
        with self._change(incident_id) as (session, row, now):
            self._not_resolved(row)
            row.status = IncidentStatus.RESOLVED.value
            row.resolved_at, row.resolved_by, row.resolution = now, actor, reason[:4000]
            add_event(
                session,
                incident_id=row.id,
                at=now,
                actor=actor,
                kind=EventKind.RESOLVED,
                text=f"resolved by {actor}: {reason}",
            )
        return Incident.model_validate(row)

    # -- helpers -------------------------------------------------------------------------------
    @contextmanager
    def _change(self, incident_id: int) -> Iterator[tuple[Session, IncidentRow, datetime]]:
        """A transaction holding the incident's row lock, and the time of the change."""
        with self._db.transaction() as session:
            row = session.get(IncidentRow, incident_id, with_for_update=True)
            if row is None:
                raise NotFoundError(f"incident {incident_id} does not exist")
            yield session, row, self._clock()

    @staticmethod
    def _not_resolved(row: IncidentRow) -> None:
        if row.status == IncidentStatus.RESOLVED.value:
            raise InvalidTransitionError(f"incident {row.id} is already resolved")
