"""Typed domain objects that travel between intake, store, worker, triage and the entry points.

The triage result is the contract other people rely on (the JSON of `triage --json`, `eval` and
`incidents show --json`); its field names follow it exactly.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.actions.catalog import ActionKind


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
    CHANNEL_CREATED = "channel_created"
    TRIAGE_REQUESTED = "triage_requested"
    TRIAGED = "triaged"
    TRIAGE_POSTED = "triage_posted"
    POST_FAILED = "post_failed"
    ACTION_PROPOSED = "action_proposed"
    ACTION_APPROVED = "action_approved"
    ACTION_REFUSED = "action_refused"  # someone who may not approve clicked, or a precondition failed
    ACTION_REJECTED = "action_rejected"
    ACTION_EXPIRED = "action_expired"
    ACTION_DRY_RUN = "action_dry_run"
    ACTION_EXECUTED = "action_executed"
    ACTION_VERIFIED = "action_verified"
    ACTION_FAILED = "action_failed"
    ACTION_UNDO_REQUESTED = "action_undo_requested"
    ACTION_UNDONE = "action_undone"
    POSTMORTEM_DRAFTED = "postmortem_drafted"
    CHANNEL_ARCHIVED = "channel_archived"


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
    code: str | None = None  # the final root-cause code, set when resolved
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
    announced_at: datetime | None = None
    triage_runs: int = 0


class IncidentSummary(Frozen):
    """The incident as the triage result shows it (the incident's values, not the raw labels)."""

    service: str | None = None
    model: str | None = None
    namespace: str | None = None
    started_at: datetime | None = None
    severity: str | None = None


class ProposedAction(Frozen):
    """One reversible action of the catalog, with a target taken from the evidence."""

    kind: ActionKind
    target: str
    namespace: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    reversible: bool = True
    undo: str = ""
    rationale: str = ""


class TimelineEntry(Frozen):
    """One onset the tools saw, for the triage's timeline across layers."""

    at: datetime
    layer: str | None
    what: str
    evidence: str


class Alternative(Frozen):
    """A second plausible cause: its code and category, why, and the evidence for it."""

    code: str
    category: Category
    hypothesis: str
    evidence: list[str] = Field(default_factory=list)


class TriageResult(Frozen):
    """What every triage produces and stores; `public()` is the triage result JSON."""

    incident: IncidentSummary
    category: Category
    code: str
    layer: str | None
    hypothesis: str
    confidence: float = Field(ge=0, le=1)
    evidence: list[dict[str, Any]]
    blast_radius: str
    actions: list[ProposedAction]
    runbook: str | None
    engine: Literal["rules", "llm"] = "rules"
    timings_ms: dict[str, float] = Field(default_factory=dict)
    gaps: list[str] = Field(default_factory=list)
    timeline: list[TimelineEntry] = Field(default_factory=list)
    scope: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    attribution: dict[str, Any] = Field(default_factory=dict)
    as_of: datetime | None = None  # the moment the evidence was read as of
    onset: datetime | None = None  # the cause's first sign, when the evidence dates it
    alternatives: list[Alternative] = Field(default_factory=list)  # other plausible causes

    def public(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class ActionProposal(Frozen):
    """A proposed action as stored: its id is what an approval button carries, its state is here."""

    id: int
    incident_id: int
    run: int
    position: int
    action: ProposedAction
    status: str
    created_at: datetime | None = None
    expires_at: datetime | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    follows: int | None = None
    preview: dict[str, Any] = Field(default_factory=dict)  # the dry run shown before approval
    outcome: dict[str, Any] = Field(default_factory=dict)  # what came of it
    version: int = 0


class StoredTriage(Frozen):
    """One triage run of an incident, as stored: run 1 at opening, one more per re-run."""

    incident_id: int
    run: int
    created_at: datetime
    posted_at: datetime | None
    result: TriageResult


class ChatChannel(Frozen):
    """An incident's chat channel: its name once claimed, its ID once created, the setup steps done."""

    incident_id: int
    name: str
    channel_id: str | None
    attempts: int
    steps: dict[str, Any] = Field(default_factory=dict)


class ChatMessage(Frozen):
    """A message the bot posted for an incident, by purpose (and triage run)."""

    incident_id: int
    purpose: str
    run: int
    channel_id: str
    ts: str  # the message's timestamp, or the file id of an upload


class IncidentDetail(Frozen):
    """An incident with its alerts, timeline and latest triage, for `show` and the API."""

    incident: Incident
    alerts: list[Alert]
    timeline: list[TimelineEvent]
    triage: TriageResult | None = None


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
