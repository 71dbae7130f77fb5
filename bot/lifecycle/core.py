"""Every lifecycle transition of an incident: the only writer of its timeline, and of the jobs each implies.

Each method runs inside the caller's transaction, on the incident's row (locked by the caller when
it changes), and writes the change, its timeline event and the follow-up jobs in one commit: an
incident is never opened without its announcement and first triage queued, and a triage is posted
only once both it and the announcement it belongs under exist, whichever finishes first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.domain import EventKind, IncidentStatus, TriageResult
from bot.errors import NotFoundError
from bot.jobs import JobKind, enqueue
from bot.lifecycle.base import BOT, not_resolved, run_label
from bot.lifecycle.responders import Responders
from bot.store.models import ACTIVE, ActionProposalRow, IncidentRow, TimelineEventRow, TriageRow
from bot.store.upsert import insert_for


class Lifecycle(Responders):
    """Every transition: opening, alerts, announcement and triage here, the responders' in `Responders`."""

    def _opened(
        self, session: Session, row: IncidentRow, *, actor: str, text: str, data: dict[str, Any]
    ) -> None:
        """Both ways in (an alert group, a declaration) announce and triage alike."""
        self.event(session, row.id, row.opened_at, actor, EventKind.OPENED, text, data)
        self._job(session, JobKind.ANNOUNCE, row.id, row.opened_at)
        self._start_triage(session, row, actor=actor, now=row.opened_at, first=True)

    # -- opening -------------------------------------------------------------------------------
    def open_from_group(
        self, session: Session, values: dict[str, Any], *, group_labels: dict[str, str]
    ) -> int | None:
        """Open the group's incident; None when a concurrent notification of the group won the race."""
        stmt = (
            insert_for(session, IncidentRow)
            .values(**values, triage_runs=0)
            .on_conflict_do_nothing(index_elements=["group_hash"], index_where=ACTIVE)
            .returning(IncidentRow.id)
        )
        created: int | None = session.execute(stmt).scalar_one_or_none()
        if created is None:
            return None
        row = session.get(IncidentRow, created)
        assert row is not None
        data = {
            "receiver": values.get("receiver"),
            "group_labels": group_labels,
            "query": values.get("query"),
            "value": values.get("value"),
        }
        self._opened(
            session, row, actor="alertmanager", text=f"opened from alert group {row.group_key}", data=data
        )
        return created

    def declare(self, session: Session, row: IncidentRow, *, actor: str) -> None:
        """Record a hand-declared incident (the row is new and flushed)."""
        self._opened(
            session,
            row,
            actor=actor,
            text=f"declared by {actor}: {row.title}",
            data={"severity": row.severity},
        )

    # -- alerts --------------------------------------------------------------------------------
    def alert_changed(
        self,
        session: Session,
        incident_id: int,
        *,
        now: datetime,
        resolved: bool,
        text: str,
        data: dict[str, Any],
    ) -> None:
        """A new alert of the group, or one that resolved or fired again."""
        kind = EventKind.ALERT_RESOLVED if resolved else EventKind.ALERT_FIRING
        self.event(session, incident_id, now, "alertmanager", kind, text, data)

    def alerts_truncated(self, session: Session, incident_id: int, truncated: int, *, now: datetime) -> None:
        """Say that Alertmanager left alerts out (max_alerts), once per new count."""
        notes = session.scalars(
            select(TimelineEventRow.data)
            .where(
                TimelineEventRow.incident_id == incident_id,
                TimelineEventRow.kind == EventKind.NOTE.value,
                TimelineEventRow.actor == "alertmanager",
            )
            .order_by(TimelineEventRow.id.desc())
            .limit(50)
        )
        last = next((n for n in notes if n and "truncated_alerts" in n), None)
        if last and last.get("truncated_alerts") == truncated:
            return
        text = (
            f"Alertmanager left {truncated} alerts of this group out of its notification (max_alerts): "
            "the incident holds only the alerts it was sent"
        )
        self.event(
            session, incident_id, now, "alertmanager", EventKind.NOTE, text, {"truncated_alerts": truncated}
        )

    def alerts_resolved(self, session: Session, row: IncidentRow, *, now: datetime, stamp: str) -> None:
        """Every alert of the incident resolved: queue the notice that asks a human to resolve it
        (once per resolution, `stamp`, however often Alertmanager repeats it)."""
        if row.status == IncidentStatus.RESOLVED.value:
            return
        key = f"{JobKind.ALERTS_RESOLVED.value}:{row.id}:{stamp}"
        payload = {"incident_id": row.id}
        enqueue(
            session,
            kind=JobKind.ALERTS_RESOLVED,
            payload=payload,
            now=now,
            dedup_key=key,
            max_attempts=self.attempts(JobKind.ALERTS_RESOLVED),
        )

    # -- announcement and triage ---------------------------------------------------------------
    def announced(
        self, session: Session, row: IncidentRow, *, now: datetime, where: str, data: dict[str, Any]
    ) -> bool:
        """Record the announcement once; triage runs already stored are then queued for posting."""
        if row.announced_at is not None:
            return False
        row.announced_at = now
        text = f"announced {where}"
        self.event(session, row.id, now, BOT, EventKind.ANNOUNCED, text, data)
        waiting = session.scalars(
            select(TriageRow.run).where(TriageRow.incident_id == row.id, TriageRow.posted_at.is_(None))
        ).all()
        for run in waiting:
            self._job(session, JobKind.POST_TRIAGE, row.id, now, run)
        return True

    def channel_created(
        self, session: Session, row: IncidentRow, *, name: str, channel_id: str, now: datetime
    ) -> None:
        """The incident's chat channel exists (created, or found after a crash mid-creation)."""
        data = {"channel_id": channel_id, "name": name}
        self.event(
            session, row.id, now, BOT, EventKind.CHANNEL_CREATED, f"Slack channel #{name} created", data
        )

    def post_failed(
        self,
        session: Session,
        row: IncidentRow,
        *,
        what: str,
        error: str,
        attempt: int,
        of: int,
        now: datetime,
    ) -> None:
        """Something did not reach the chat; the timeline says what, why, and whether it is retried:
        on the first attempt, the last, each power of two, and whenever the reason changes, so an
        hour of outage is a handful of entries."""
        if 1 < attempt < of and attempt & (attempt - 1) and _last_failure(session, row.id, what) == error:
            return
        then = f"attempt {attempt} of {of}, retried" if attempt < of else f"gave up after {of} attempts"
        text, data = f"the {what} did not reach Slack: {error} ({then})", {"what": what, "error": error}
        self.event(
            session, row.id, now, BOT, EventKind.POST_FAILED, text, {**data, "attempt": attempt, "of": of}
        )

    def request_triage(self, session: Session, row: IncidentRow, *, actor: str, now: datetime) -> int:
        """Queue another triage run (a responder asked for one); returns its number.

        Not after resolution: a run reads the backends as of now, which is no longer the incident.
        """
        not_resolved(row)
        return self._start_triage(session, row, actor=actor, now=now, first=False)

    def _start_triage(
        self, session: Session, row: IncidentRow, *, actor: str, now: datetime, first: bool
    ) -> int:
        row.triage_runs = (row.triage_runs or 0) + 1
        run = row.triage_runs
        if not first:
            text = f"triage run {run} requested by {actor}"
            self.event(session, row.id, now, actor, EventKind.TRIAGE_REQUESTED, text, {"run": run})
        self._job(session, JobKind.TRIAGE, row.id, now, run)
        return run

    def triage_recorded(
        self,
        session: Session,
        row: IncidentRow,
        run: int,
        result: TriageResult,
        *,
        now: datetime,
        thread_id: str | None = None,
        interrupt_id: str | None = None,
    ) -> bool:
        """Store one run's result and its proposals; False when that run was already stored."""
        stored = session.execute(
            insert_for(session, TriageRow)
            .values(
                incident_id=row.id,
                run=run,
                created_at=now,
                engine=result.engine,
                category=result.category.value,
                code=result.code,
                layer=result.layer,
                hypothesis=result.hypothesis,
                confidence=result.confidence,
                result=result.public(),
                thread_id=thread_id,
                interrupt_id=interrupt_id,
            )
            .on_conflict_do_nothing(index_elements=["incident_id", "run"])
            .returning(TriageRow.id)
        ).scalar_one_or_none()
        if stored is None:
            return False
        # A run queued before runs were counted (an older version's job) still moves the counter on.
        row.triage_runs = max(row.triage_runs or 0, run)
        for position, action in enumerate(result.actions):
            proposal = ActionProposalRow(
                incident_id=row.id,
                triage_id=stored,
                position=position,
                kind=action.kind.value,
                target=action.target,
                namespace=action.namespace,
                params=action.params,
                rationale=action.rationale,
                undo=action.undo,
                status="proposed",
                created_at=now,
                expires_at=now + self._proposal_ttl,
                version=0,
            )
            session.add(proposal)
            session.flush()
            text = f"proposed {action.kind.value} {action.target} (proposal {proposal.id}, {run_label(run)})"
            data = {
                "proposal_id": proposal.id,
                "kind": action.kind.value,
                "target": action.target,
                "run": run,
            }
            self.event(session, row.id, now, BOT, EventKind.ACTION_PROPOSED, text, data)
            self.act_job(session, (row.id, proposal.id), "expire", now, at=proposal.expires_at)
        first = f"; first move: {result.actions[0].kind} {result.actions[0].target}" if result.actions else ""
        said = f"{result.category} / {result.code}, confidence {result.confidence:.0%}{first}"
        text, data = f"{run_label(run)} ({result.engine}): {said}", {"triage_id": stored, "run": run}
        self.event(session, row.id, now, BOT, EventKind.TRIAGED, text, {**data, "gaps": result.gaps})
        if row.announced_at is not None:
            self._job(session, JobKind.POST_TRIAGE, row.id, now, run)
        return True

    def triage_posted(
        self, session: Session, row: IncidentRow, run: int, *, now: datetime, where: str
    ) -> bool:
        """A stored run reached its readers; False when it had been posted already."""
        triage = session.scalars(
            select(TriageRow).where(TriageRow.incident_id == row.id, TriageRow.run == run)
        ).one_or_none()
        if triage is None:
            raise NotFoundError(f"incident {row.id} has no stored triage run {run}")
        if triage.posted_at is not None:
            return False
        triage.posted_at = now
        text = f"{run_label(run)} posted {where}"
        self.event(session, row.id, now, BOT, EventKind.TRIAGE_POSTED, text, {"run": run})
        return True

    # -- what responders do --------------------------------------------------------------------


def _last_failure(session: Session, incident_id: int, what: str) -> str | None:
    """The reason of the newest post failure of `what` on the incident's timeline."""
    rows = session.scalars(
        select(TimelineEventRow.data)
        .where(
            TimelineEventRow.incident_id == incident_id,
            TimelineEventRow.kind == EventKind.POST_FAILED.value,
        )
        .order_by(TimelineEventRow.id.desc())
    )
    for data in rows:
        if data.get("what") == what:
            return str(data.get("error"))
    return None
