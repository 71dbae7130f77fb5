"""Draft, store and read postmortems: one per resolved incident, rebuilt when its timeline grew
since (a note or a tag added after resolve belongs in it)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select

from bot.clock import Clock, utc_now
from bot.errors import InvalidTransitionError
from bot.incidents import IncidentService
from bot.jobs import QUEUED, RUNNING, JobKind
from bot.postmortem.draft import Offer, draft
from bot.postmortem.model import AFTERWORD, Postmortem
from bot.store.db import Database
from bot.store.models import JobRow, PostmortemRow, TimelineEventRow
from bot.store.upsert import insert_for
from bot.triage.runbooks import RunbookCatalog
from bot.triage.taxonomy import UNATTRIBUTED

RunbookSource = Callable[[], RunbookCatalog | None]


class PostmortemService:
    """Postmortem drafts of resolved incidents; `runbooks` is read only when a draft is built."""

    def __init__(
        self, db: Database, incidents: IncidentService, runbooks: RunbookSource, *, clock: Clock = utc_now
    ) -> None:
        self._db, self._incidents, self._runbooks, self._clock = db, incidents, runbooks, clock

    def build(self, incident_id: int) -> Postmortem:
        """The draft as the store now stands (not stored)."""
        detail = self._incidents.get(incident_id)
        incident = detail.incident
        if incident.resolved_at is None:
            raise InvalidTransitionError(
                f"incident {incident_id} is not resolved: its postmortem is drafted when it resolves"
            )
        return draft(
            detail,
            self._incidents.triages(incident_id),
            self._incidents.proposals(incident_id),
            self._offer(incident.code, incident.category.value if incident.category else None),
            now=self._clock(),
        )

    def record(self, incident_id: int) -> Postmortem:
        """Build the draft and store it (replacing an older one)."""
        pm = self.build(incident_id)
        values = {"updated_at": pm.built_at, "events": pm.events, "draft": pm.public()}
        with self._db.transaction() as session:
            stmt = insert_for(session, PostmortemRow).values(
                incident_id=incident_id, created_at=pm.built_at, **values
            )
            session.execute(stmt.on_conflict_do_update(index_elements=["incident_id"], set_=values))
        return pm

    def get(self, incident_id: int) -> Postmortem:
        """The stored draft, rebuilt first when the timeline has grown since it was made."""
        with self._db.reader() as session:
            row = session.get(PostmortemRow, incident_id)
            count = session.scalar(
                select(func.count())
                .select_from(TimelineEventRow)
                .where(
                    TimelineEventRow.incident_id == incident_id,
                    TimelineEventRow.kind.not_in([k.value for k in AFTERWORD]),
                )
            )
            stored = Postmortem.model_validate(row.draft) if row is not None else None
        if stored is not None and stored.events >= (count or 0):
            return stored
        return self.record(incident_id)

    def drafting(self, incident_id: int) -> bool:
        """Whether the incident's draft job is still to run (queued, or running now)."""
        key = f"{JobKind.POSTMORTEM.value}:{incident_id}"
        with self._db.reader() as session:
            status = session.scalar(select(JobRow.status).where(JobRow.dedup_key == key))
        return status in (QUEUED, RUNNING)

    def _offer(self, code: str | None, category: str | None) -> Offer | None:
        if code is None:
            return None
        catalog = self._runbooks()
        if catalog is None:
            return None
        book = catalog.match(code, category)
        if book is None or (code not in book.meta.matches.codes and UNATTRIBUTED in book.meta.matches.codes):
            return Offer(runbook=None)  # only the catch-all runbook: none was written for this cause
        return Offer(
            runbook=book.relative(), actions=[(a.kind.value, a.target, a.when) for a in book.meta.actions]
        )
