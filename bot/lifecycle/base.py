"""The timeline and the queue under every lifecycle transition: one event per change, and the
jobs each change implies, deduplicated so a retried transition queues nothing twice."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from bot.domain import EventKind, IncidentStatus
from bot.errors import InvalidTransitionError
from bot.jobs import JobKind, enqueue
from bot.store.models import IncidentRow, TimelineEventRow

BOT = "incident-bot"
MAX_NOTE = 4000


def actor_of(actor: str) -> str:
    """Who makes a change; every change needs one."""
    actor = actor.strip()
    if not actor:
        raise InvalidTransitionError("every change needs an actor (who is doing this?)")
    return actor[:200]


class Timeline:
    """Writes timeline events and queues jobs; `job_max_attempts` bounds the retries of every job,
    `chat_job_max_attempts` those that post to the chat, which outlast a chat outage: the backoff
    doubles up to five minutes, so 18 attempts span about an hour."""

    def __init__(
        self,
        *,
        job_max_attempts: int = 5,
        chat_job_max_attempts: int = 18,
        proposal_ttl: timedelta = timedelta(minutes=30),
        archive_after: timedelta | None = None,
    ) -> None:
        self._attempts = job_max_attempts
        self._chat_attempts = chat_job_max_attempts
        self._proposal_ttl = proposal_ttl  # how long a proposed action can be approved
        self._archive_after = archive_after  # archive the channel this long after resolve; None: never

    # -- the timeline and the queue ------------------------------------------------------------
    @staticmethod
    def event(
        session: Session,
        incident_id: int,
        at: datetime,
        actor: str,
        kind: EventKind,
        text: str,
        data: dict[str, Any] | None = None,
    ) -> TimelineEventRow:
        """One timeline entry: at `at`, `actor` did `kind`, in words and in data."""
        event = TimelineEventRow(
            incident_id=incident_id, at=at, actor=actor, kind=kind.value, text=text, data=data or {}
        )
        session.add(event)
        return event

    def act_job(
        self, session: Session, ids: tuple[int, int], phase: str, now: datetime, at: datetime | None = None
    ) -> None:
        """Queue a decision's execution (phase apply or undo), or the expiry check (phase expire, at `at`)."""
        kind, (incident_id, proposal_id) = JobKind.EXPIRE if phase == "expire" else JobKind.ACT, ids
        payload = {"incident_id": incident_id, "proposal_id": proposal_id, "phase": phase}
        key, attempts = f"{kind.value}:{proposal_id}:{phase}", self._attempts
        enqueue(
            session, kind=kind, payload=payload, now=now, dedup_key=key, max_attempts=attempts, run_after=at
        )

    def _job(
        self, session: Session, kind: JobKind, incident_id: int, now: datetime, run: int | None = None
    ) -> None:
        payload: dict[str, Any] = {"incident_id": incident_id}
        key = f"{kind.value}:{incident_id}"
        if run is not None:
            payload["run"] = run
            key += f":{run}"
        attempts = self.attempts(kind)
        enqueue(session, kind=kind, payload=payload, now=now, dedup_key=key, max_attempts=attempts)

    def attempts(self, kind: JobKind) -> int:
        """How often a job of `kind` is tried before it is dead."""
        return self._chat_attempts if kind in CHAT_JOBS else self._attempts


# The jobs whose work is a post to the chat: a chat outage must not make them dead within a minute.
CHAT_JOBS = frozenset(
    {JobKind.ANNOUNCE, JobKind.POST_TRIAGE, JobKind.ALERTS_RESOLVED, JobKind.POSTMORTEM, JobKind.ARCHIVE}
)


def run_label(run: int) -> str:
    """How the timeline names a triage run: the first is just "triage"."""
    return "triage" if run == 1 else f"triage run {run}"


def not_resolved(row: IncidentRow) -> None:
    if row.status == IncidentStatus.RESOLVED.value:
        raise InvalidTransitionError(f"incident {row.id} is already resolved")
