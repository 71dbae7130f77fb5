"""The incident service: what every entry point (API, CLI, worker, Slack) reads and changes.

Reads return domain objects; each change is one transaction on the incident's locked row that
calls the matching `Lifecycle` transition, so the entry points never touch rows or sessions
(intake, the other service, stores the alerts themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from bot.clock import Clock, utc_now
from bot.datafile import did_you_mean
from bot.domain import (
    ActionProposal,
    Alert,
    Category,
    Incident,
    IncidentDetail,
    IncidentStatus,
    ProposedAction,
    Severity,
    StoredTriage,
    TimelineEvent,
    TriageResult,
)
from bot.errors import InvalidTransitionError, NotFoundError, PayloadError
from bot.lifecycle import Lifecycle, actor_of
from bot.store.db import Database
from bot.store.models import ActionProposalRow, AlertRow, IncidentRow, TimelineEventRow, TriageRow
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy, default_taxonomy


class IncidentService:
    """Reads and lifecycle changes of incidents, each change with its actor and time."""

    def __init__(
        self,
        db: Database,
        lifecycle: Lifecycle,
        *,
        clock: Clock = utc_now,
        on_queued: Callable[[], None] | None = None,
        taxonomy: Taxonomy | None = None,
    ) -> None:
        self._db = db
        self._lifecycle = lifecycle
        self._clock = clock
        self.taxonomy = taxonomy or default_taxonomy()  # the codes a final tag may name
        self._on_queued = on_queued  # a change that queued jobs: wake the worker

    # -- reads ---------------------------------------------------------------------------------
    def get(self, incident_id: int) -> IncidentDetail:
        """The incident with its alerts, its timeline and its latest triage."""
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
            latest = _triage(session, incident_id, None)
            return IncidentDetail(
                incident=Incident.model_validate(row),
                alerts=[Alert.model_validate(a) for a in alerts],
                timeline=[TimelineEvent.model_validate(e) for e in events],
                triage=latest.result if latest else None,
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

    def resolved_since(self, since: datetime) -> Sequence[Incident]:
        """Incidents resolved at or after `since`, oldest first."""
        stmt = (
            select(IncidentRow)
            .where(IncidentRow.status == IncidentStatus.RESOLVED.value, IncidentRow.resolved_at >= since)
            .order_by(IncidentRow.resolved_at)
        )
        with self._db.reader() as session:
            return [Incident.model_validate(r) for r in session.scalars(stmt).all()]

    def proposals(self, incident_id: int, run: int | None = None) -> Sequence[ActionProposal]:
        """The actions a stored triage run proposed, first move first (every run's, by run, without `run`)."""
        stmt = with_run().where(ActionProposalRow.incident_id == incident_id)
        if run is not None:
            stmt = stmt.where(TriageRow.run == run)
        with self._db.reader() as session:
            rows = session.execute(stmt.order_by(TriageRow.run, ActionProposalRow.position)).all()
            return [proposal_of(row, run_no) for row, run_no in rows]

    def triages(self, incident_id: int) -> Sequence[StoredTriage]:
        """Every stored triage run of the incident, first run first."""
        with self._db.reader() as session:
            rows = session.scalars(
                select(TriageRow).where(TriageRow.incident_id == incident_id).order_by(TriageRow.run)
            ).all()
            return [_stored(row) for row in rows]

    def triage(self, incident_id: int, run: int | None = None) -> StoredTriage | None:
        """One stored triage run (the latest when `run` is None), or None when not stored yet."""
        with self._db.reader() as session:
            return _triage(session, incident_id, run)

    # -- what responders do --------------------------------------------------------------------
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
        """Open an incident by hand; it is announced and triaged like one opened by an alert."""
        actor = actor_of(actor)
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
                triage_runs=0,
            )
            session.add(row)
            session.flush()
            self._lifecycle.declare(session, row, actor=actor)
            incident = Incident.model_validate(row)
        self._queued()
        return incident

    def acknowledge(self, incident_id: int, *, actor: str) -> Incident:
        actor = actor_of(actor)
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.acknowledge(session, row, actor=actor, now=now)
        return Incident.model_validate(row)

    def set_severity(self, incident_id: int, severity: Severity, *, actor: str) -> Incident:
        actor = actor_of(actor)
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.set_severity(session, row, severity, actor=actor, now=now)
        return Incident.model_validate(row)

    def tag_category(
        self, incident_id: int, category: Category, *, actor: str, reason: str | None = None
    ) -> Incident:
        actor = actor_of(actor)
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.tag_category(session, row, category, actor=actor, now=now, reason=reason)
        return Incident.model_validate(row)

    def add_note(self, incident_id: int, text: str, *, actor: str) -> TimelineEvent:
        actor = actor_of(actor)
        with self._change(incident_id) as (session, row, now):
            event = self._lifecycle.add_note(session, row, text, actor=actor, now=now)
        return TimelineEvent.model_validate(event)

    def resolve(
        self,
        incident_id: int,
        *,
        reason: str,
        actor: str,
        category: Category | None = None,
        code: str | None = None,
    ) -> Incident:
        """Close the incident with its final tag: a code settles the category (PayloadError when
        they disagree or the code is unknown); the postmortem draft is queued."""
        actor = actor_of(actor)
        category, code = self.final_tag(category, code)
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.resolve(
                session, row, reason=reason, actor=actor, now=now, category=category, code=code
            )
        self._queued()
        return Incident.model_validate(row)

    def codes(self) -> Sequence[tuple[str, str, str]]:
        """(code, meaning, category) of every code a final tag may name, by category then code."""
        rows = [(c, m, self.taxonomy.category_of(c).value) for c, m in self.taxonomy.codes.items()]
        return sorted(rows, key=lambda r: (r[2], r[0]))

    def final_tag(self, category: Category | None, code: str | None) -> tuple[Category | None, str | None]:
        """The canonical code and the category it belongs to, checked against the taxonomy."""
        if code is None or not code.strip():
            return category, None
        word = code.strip().upper()
        try:
            canonical = self.taxonomy.resolve(word)
        except KeyError:
            hint = did_you_mean(word, self.taxonomy.known())
            raise PayloadError(f"{word} is not a code of the taxonomy{hint}") from None
        if canonical == UNATTRIBUTED:
            raise PayloadError(f"the final code names the cause: {UNATTRIBUTED} is not one")
        belongs = self.taxonomy.category_of(canonical)
        if category is not None and category != belongs:
            raise PayloadError(f"{canonical} is a {belongs.value} code, not {category.value}")
        return belongs, canonical

    def request_triage(self, incident_id: int, *, actor: str) -> int:
        """Queue a new triage run of the incident; returns the run's number."""
        actor = actor_of(actor)
        with self._change(incident_id) as (session, row, now):
            run = self._lifecycle.request_triage(session, row, actor=actor, now=now)
        self._queued()
        return run

    # -- what the worker records ---------------------------------------------------------------
    def record_announcement(self, incident_id: int, *, where: str, data: dict[str, object]) -> bool:
        """The announcement went out (`where` says where); False when it had been recorded already."""
        with self._change(incident_id) as (session, row, now):
            done = self._lifecycle.announced(session, row, now=now, where=where, data=dict(data))
        self._queued()
        return done

    def record_triage(
        self,
        incident_id: int,
        run: int,
        result: TriageResult,
        *,
        thread_id: str | None = None,
        interrupt_id: str | None = None,
    ) -> bool:
        """Store a finished triage run, and the pause its approvals resume; False when stored already."""
        with self._change(incident_id) as (session, row, now):
            done = self._lifecycle.triage_recorded(
                session, row, run, result, now=now, thread_id=thread_id, interrupt_id=interrupt_id
            )
        self._queued()
        return done

    def record_post_failure(self, incident_id: int, *, what: str, error: str, attempt: int, of: int) -> None:
        """Something did not reach the chat (the job that posts it is retried up to `of` times)."""
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.post_failed(session, row, what=what, error=error, attempt=attempt, of=of, now=now)

    def record_triage_post(self, incident_id: int, run: int, *, where: str) -> bool:
        """A stored run was posted (`where` says where); False when it was posted already."""
        with self._change(incident_id) as (session, row, now):
            return self._lifecycle.triage_posted(session, row, run, now=now, where=where)

    def record_postmortem(self, incident_id: int, *, where: str) -> None:
        """The postmortem draft was posted (`where` says where)."""
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.postmortem_drafted(session, row, now=now, where=where)

    def record_archive(self, incident_id: int, *, where: str) -> None:
        with self._change(incident_id) as (session, row, now):
            self._lifecycle.channel_archived(session, row, now=now, where=where)

    # -- helpers -------------------------------------------------------------------------------
    def _queued(self) -> None:
        if self._on_queued is not None:
            self._on_queued()

    @contextmanager
    def _change(self, incident_id: int) -> Iterator[tuple[Session, IncidentRow, datetime]]:
        """A transaction holding the incident's row lock, and the time of the change."""
        with self._db.transaction() as session:
            row = session.get(IncidentRow, incident_id, with_for_update=True)
            if row is None:
                raise NotFoundError(f"incident {incident_id} does not exist")
            yield session, row, self._clock()


def with_run() -> Select[ActionProposalRow, int]:
    """Proposals with the number of the triage run that made them (how a proposal is read)."""
    return select(ActionProposalRow, TriageRow.run).join(
        TriageRow, TriageRow.id == ActionProposalRow.triage_id
    )


def proposal_of(row: ActionProposalRow, run: int) -> ActionProposal:
    action = ProposedAction(
        kind=row.kind,
        target=row.target,
        namespace=row.namespace,
        params=row.params or {},
        undo=row.undo,
        rationale=row.rationale,
    )
    return ActionProposal(
        id=row.id,
        incident_id=row.incident_id,
        run=run,
        position=row.position,
        status=row.status,
        action=action,
        created_at=row.created_at,
        expires_at=row.expires_at,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        follows=row.follows,
        preview=row.preview or {},
        outcome=row.outcome or {},
        version=row.version or 0,
    )


def _triage(session: Session, incident_id: int, run: int | None) -> StoredTriage | None:
    stmt = select(TriageRow).where(TriageRow.incident_id == incident_id)
    stmt = stmt.where(TriageRow.run == run) if run is not None else stmt.order_by(TriageRow.run.desc())
    row = session.scalars(stmt.limit(1)).first()
    return _stored(row) if row is not None else None


def _stored(row: TriageRow) -> StoredTriage:
    return StoredTriage(
        incident_id=row.incident_id,
        run=row.run,
        created_at=row.created_at,
        posted_at=row.posted_at,
        result=TriageResult.model_validate(row.result),
    )
