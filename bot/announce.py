"""The first post of an incident: what fired, its query and value, scoped dashboards, responders.

Built from the stored incident and the configuration; a publisher (`bot.publish`) sends it. What
the alert said is redacted here (bot.triage.redact), so the channel's topic, purpose, bookmarks and
first post never carry a credential; the post's blocks escape it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from bot.config import BotConfig, Dashboard
from bot.domain import IncidentDetail
from bot.triage.redact import redact

WINDOW_BEFORE = timedelta(hours=1)


class DashboardLink(BaseModel):
    """A titled link: a dashboard scoped to the window, the runbook, the alert's source."""

    model_config = ConfigDict(frozen=True)

    title: str
    url: str


class Announcement(BaseModel):
    """Everything the first post of an incident shows."""

    model_config = ConfigDict(frozen=True)

    incident_id: int
    title: str
    severity: str
    alertname: str | None = None
    service: str | None
    model: str | None
    namespace: str | None
    query: str | None
    value: str | None
    started_at: datetime
    opened_at: datetime | None = None
    dashboards: list[DashboardLink]
    responders: list[str]
    runbook: DashboardLink | None = None  # the alert's own `runbook_url` annotation
    source: DashboardLink | None = None  # the alert's graph in Prometheus (`generatorURL`)


def build_announcement(detail: IncidentDetail, config: BotConfig, *, now: datetime) -> Announcement:
    """Resolve dashboards (scoped to the window from an hour before the start until now), and the
    links the alert itself carries."""
    incident = _redacted(detail).incident
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
    first = detail.alerts[0] if detail.alerts else None
    runbook = redact(first.annotations.get("runbook_url") or "") if first else ""
    source = redact(first.generator_url) if first else ""
    return Announcement(
        incident_id=incident.id,
        title=incident.title,
        severity=incident.severity.value,
        alertname=incident.alertname,
        service=incident.service,
        model=incident.model,
        namespace=incident.namespace,
        query=incident.query,
        value=incident.value,
        started_at=incident.started_at,
        opened_at=incident.opened_at,
        dashboards=[DashboardLink(title=b.title, url=b.render(**fields)) for b in boards],
        responders=responders,
        runbook=DashboardLink(title="Runbook", url=runbook) if runbook.startswith(WEB) else None,
        source=DashboardLink(title="Alert in Prometheus", url=source) if source.startswith(WEB) else None,
    )


WEB = ("http://", "https://")


def _redacted(detail: IncidentDetail) -> IncidentDetail:
    """The incident's own texts (title, labels' values, query, value) with credentials redacted."""
    i = detail.incident
    texts = {
        name: redact(value)
        for name in ("title", "service", "model", "namespace", "alertname", "query", "value")
        if isinstance(value := getattr(i, name), str)
    }
    return detail.model_copy(update={"incident": i.model_copy(update=texts)})
