"""The first post of an incident: what fired, its query and value, scoped dashboards, responders.

Built from the stored incident and the configuration; a publisher (`bot.publish`) sends it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from bot.config import BotConfig, Dashboard
from bot.domain import Incident

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
