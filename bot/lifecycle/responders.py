"""What responders do to an incident: acknowledge, severity, tag, note, resolve; and what follows
a resolution (the postmortem draft, the channel archived)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.domain import Category, EventKind, IncidentStatus, Severity
from bot.errors import InvalidTransitionError
from bot.jobs import JobKind, enqueue
from bot.lifecycle.base import BOT, MAX_NOTE, Timeline, not_resolved
from bot.store.models import IncidentRow, TimelineEventRow


class Responders(Timeline):
    """The responders' transitions, on the caller's transaction and locked row."""

    def acknowledge(self, session: Session, row: IncidentRow, *, actor: str, now: datetime) -> None:
        if row.status != IncidentStatus.OPEN.value:
            raise InvalidTransitionError(f"incident {row.id} is {row.status}, not open")
        row.status = IncidentStatus.ACKNOWLEDGED.value
        row.acknowledged_at, row.acknowledged_by = now, actor
        self.event(session, row.id, now, actor, EventKind.ACKNOWLEDGED, f"acknowledged by {actor}")

    def set_severity(
        self, session: Session, row: IncidentRow, severity: Severity, *, actor: str, now: datetime
    ) -> None:
        not_resolved(row)
        old = row.severity
        if old == severity.value:
            return
        row.severity = severity.value
        text = f"severity {old} → {severity.value}"
        self.event(
            session, row.id, now, actor, EventKind.SEVERITY_CHANGED, text, {"from": old, "to": severity.value}
        )

    def tag_category(
        self,
        session: Session,
        row: IncidentRow,
        category: Category,
        *,
        actor: str,
        now: datetime,
        reason: str | None = None,
    ) -> None:
        """Allowed after resolution too: the final tag is often set then. The reason says why a
        responder overrides the triage's tag."""
        old = row.category
        row.category = category.value
        why = f": {reason.strip()[:500]}" if reason and reason.strip() else ""
        text = f"category {old or 'untagged'} → {category.value}{why}"
        data = {"from": old, "to": category.value, "reason": reason.strip() if reason else None}
        self.event(session, row.id, now, actor, EventKind.CATEGORY_TAGGED, text, data)

    def add_note(
        self, session: Session, row: IncidentRow, text: str, *, actor: str, now: datetime
    ) -> TimelineEventRow:
        text = text.strip()
        if not text:
            raise InvalidTransitionError("a note cannot be empty")
        if len(text) > MAX_NOTE:
            raise InvalidTransitionError(f"a note is limited to {MAX_NOTE} characters")
        event = self.event(session, row.id, now, actor, EventKind.NOTE, text)
        session.flush()
        return event

    def resolve(
        self,
        session: Session,
        row: IncidentRow,
        *,
        reason: str,
        actor: str,
        now: datetime,
        category: Category | None = None,
        code: str | None = None,
    ) -> None:
        """Close the incident with its final tag (what the triage is scored against), then draft
        the postmortem and, when configured, archive the channel later."""
        reason = reason.strip()
        if not reason:
            raise InvalidTransitionError("resolving needs a reason")
        not_resolved(row)
        row.status = IncidentStatus.RESOLVED.value
        row.resolved_at, row.resolved_by, row.resolution = now, actor, reason[:4000]
        if category is not None:
            row.category = category.value
        if code is not None:
            row.code = code
        tag = f" as {row.category or 'untagged'} / {row.code}" if row.code else ""
        data = {"reason": reason, "category": row.category, "code": row.code}
        self.event(
            session, row.id, now, actor, EventKind.RESOLVED, f"resolved by {actor}{tag}: {reason}", data
        )
        self._job(session, JobKind.POSTMORTEM, row.id, now)
        if self._archive_after is not None:
            key, payload = f"{JobKind.ARCHIVE.value}:{row.id}", {"incident_id": row.id}
            enqueue(
                session,
                kind=JobKind.ARCHIVE,
                payload=payload,
                now=now,
                dedup_key=key,
                max_attempts=self.attempts(JobKind.ARCHIVE),
                run_after=now + self._archive_after,
            )

    def postmortem_drafted(self, session: Session, row: IncidentRow, *, now: datetime, where: str) -> None:
        """The draft reached its readers: said once, however often its job ran."""
        if not _said(session, row.id, EventKind.POSTMORTEM_DRAFTED):
            text = f"postmortem draft posted {where}"
            self.event(session, row.id, now, BOT, EventKind.POSTMORTEM_DRAFTED, text)

    def channel_archived(self, session: Session, row: IncidentRow, *, now: datetime, where: str) -> None:
        if not _said(session, row.id, EventKind.CHANNEL_ARCHIVED):
            self.event(session, row.id, now, BOT, EventKind.CHANNEL_ARCHIVED, f"channel archived {where}")


def _said(session: Session, incident_id: int, kind: EventKind) -> bool:
    found = session.scalar(
        select(TimelineEventRow.id)
        .where(TimelineEventRow.incident_id == incident_id, TimelineEventRow.kind == kind.value)
        .limit(1)
    )
    return found is not None
