"""Typed domain objects that travel between intake, store, worker and the entry points."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class IncidentStatus(StrEnum):
    """Where an incident stands in its lifecycle."""

    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


class Severity(StrEnum):
    """Incident severity, most urgent first."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"
    INFO = "info"


class Category(StrEnum):
    """Incident categories of the failure taxonomy (spec/taxonomy.md section 1)."""

    INFRASTRUCTURE = "infrastructure"
    MODEL_CONFIG = "model_config"
    INFERENCE_ENGINE = "inference_engine"
    OPERATIONAL = "operational"


class AlertStatus(StrEnum):
    """Alertmanager's status of one alert."""

    FIRING = "firing"
    RESOLVED = "resolved"


class EventKind(StrEnum):
    """Kinds of timeline events; every incident change writes one."""

    OPENED = "opened"
    ALERT_FIRING = "alert_firing"
    ALERT_RESOLVED = "alert_resolved"
    ACKNOWLEDGED = "acknowledged"
    SEVERITY_CHANGED = "severity_changed"
    CATEGORY_TAGGED = "category_tagged"
    NOTE = "note"
    RESOLVED = "resolved"
    ANNOUNCED = "announced"
    TRIAGED = "triaged"


class Frozen(BaseModel):
    """Base for immutable domain objects."""

    model_config = ConfigDict(frozen=True, from_attributes=True)


class Alert(Frozen):
    """One alert of an incident, as last notified by Alertmanager."""

    id: int
    fingerprint: str
    status: AlertStatus
    alertname: str
    labels: dict[str, str]
    annotations: dict[str, str]
    starts_at: datetime
    ends_at: datetime | None
    generator_url: str
    query: str | None
    value: str | None
    first_received_at: datetime
    last_received_at: datetime
    notifications: int


class TimelineEvent(Frozen):
    """One entry of an incident's timeline: who did what, when."""

    id: int
    at: datetime
    actor: str
    kind: EventKind
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class Incident(Frozen):
    """An incident: one Alertmanager group (or one manual declaration) and its state."""

    id: int
    title: str
    status: IncidentStatus
    severity: Severity
    category: Category | None
    group_key: str | None
    service: str | None
    model: str | None
    namespace: str | None
    alertname: str | None
    query: str | None
    value: str | None
    started_at: datetime
    opened_at: datetime
    acknowledged_at: datetime | None
    acknowledged_by: str | None
    resolved_at: datetime | None
    resolved_by: str | None
    resolution: str | None
    labels: dict[str, str]


class IncidentDetail(Frozen):
    """An incident with its alerts and timeline, for `show` and the API."""

    incident: Incident
    alerts: list[Alert]
    timeline: list[TimelineEvent]


class IntakeOutcome(StrEnum):
    """What one webhook did to the store."""

    OPENED = "opened"
    ATTACHED = "attached"
    IGNORED = "ignored"


class IntakeResult(Frozen):
    """Answer of the intake for one webhook."""

    outcome: IntakeOutcome
    incident_id: int | None
    new_alerts: int
    updated_alerts: int
    reason: str | None = None
