"""The first post of an incident: what fired, its query and value, scoped dashboards, responders.

The announcement is built from the stored incident and the configuration, then handed to a
publisher. Without Slack configured the publisher records it on the incident's timeline, so the
incident is complete and auditable either way.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from bot.clock import Clock, utc_now
from bot.config import BotConfig, Dashboard
from bot.domain import EventKind, Incident
from bot.errors import NotFoundError
from bot.incidents import add_event
from bot.jobs import Job
from bot.store.db import Database
from bot.store.models import IncidentRow, TimelineEventRow

WINDOW_BEFORE = timedelta(hours=1)


class DashboardLink(BaseModel):
    model_config = ConfigDict(frozen=True)

    title: str
    url: str


class Announcement(BaseModel):
    """Everything the first post of an incident shows."""

    model_config = ConfigDict(frozen=True)

    incident_id: int
    title: str
    severity: str
    service: str | None
    model: str | None
    namespace: str | None
    query: str | None
    value: str | None
    started_at: datetime
    dashboards: list[DashboardLink]
    responders: list[str]


class Publisher(Protocol):
    """Where announcements go (Slack, or the timeline when Slack is not configured)."""

    def publish(self, announcement: Announcement) -> str:
        """Post it and return a short description of where it went."""
        ...


def build_announcement(incident: Incident, config: BotConfig, *, now: datetime) -> Announcement:
    """Resolve dashboards (scoped to the window from an hour before the start until now)."""
    service = config.service(incident.service)
    start, end = incident.started_at - WINDOW_BEFORE, now
    fields = {
        "service": incident.service or "",
        "model": incident.model or "",
        "namespace": incident.namespace or "",
        "alertname": incident.alertname or "",
        "incident_id": str(incident.id),
        "from_ms": str(int(start.timestamp() * 1000)),
        "to_ms": str(int(end.timestamp() * 1000)),
        "from_iso": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "to_iso": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    boards: list[Dashboard] = [*config.dashboards, *(service.dashboards if service else [])]
    responders = list(dict.fromkeys([*config.responders, *(service.responders if service else [])]))
    return Announcement(
        incident_id=incident.id,
        title=incident.title,
        severity=incident.severity.value,
        service=incident.service,
        model=incident.model,
        namespace=incident.namespace,
        query=incident.query,
        value=incident.value,
        started_at=incident.started_at,
        dashboards=[DashboardLink(title=b.title, url=b.render(**fields)) for b in boards],
        responders=responders,
    )


class TimelinePublisher:
    """Records the announcement on the timeline (the publisher when Slack is not configured)."""

    def __init__(self, db: Database, *, clock: Clock = utc_now) -> None:
        self._db = db
        self._clock = clock

    def publish(self, announcement: Announcement) -> str:
        with self._db.transaction() as session:
            add_event(
                session,
                incident_id=announcement.incident_id,
                at=self._clock(),
                actor="incident-bot",
                kind=EventKind.ANNOUNCED,
                text="announced on the timeline (Slack is not configured)",
                data=announcement.model_dump(mode="json"),
            )
        return "timeline"


class AnnounceHandler:
    """Job handler for `incident.announce`; idempotent (a retried job does not post twice)."""

    def __init__(self, db: Database, config: BotConfig, publisher: Publisher, *, clock: Clock = utc_now):
        self._db, self._config, self._publisher, self._clock = db, config, publisher, clock

    def __call__(self, job: Job) -> None:
        incident_id = int(job.payload["incident_id"])
        with self._db.reader() as session:
            row = session.get(IncidentRow, incident_id)
            if row is None:
                raise NotFoundError(f"incident {incident_id} does not exist")
            done = session.scalar(
                select(TimelineEventRow.id).where(
                    TimelineEventRow.incident_id == incident_id,
                    TimelineEventRow.kind == EventKind.ANNOUNCED.value,
                )
            )
            incident = Incident.model_validate(row)
        if done is not None:
            return
        self._publisher.publish(build_announcement(incident, self._config, now=self._clock()))
