"""SQLAlchemy 2 models: incidents, alerts, timeline, triages, action proposals and executions, jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.store.types import JsonColumn, UtcDateTime

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# An incident is active until resolved: the predicate of the one-active-incident-per-group index.
ACTIVE = text("status <> 'resolved'")
# SQLite only auto-increments INTEGER PRIMARY KEY; PostgreSQL gets BIGINT identities.
Id = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class IncidentRow(Base):
    __tablename__ = "incidents"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    title: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(20), index=True)
    severity: Mapped[str] = mapped_column(String(20))
    category: Mapped[str | None] = mapped_column(String(40))
    code: Mapped[str | None] = mapped_column(String(60))  # the final root-cause code, set at resolve
    group_key: Mapped[str | None] = mapped_column(Text)
    group_hash: Mapped[str | None] = mapped_column(String(64))
    receiver: Mapped[str | None] = mapped_column(String(200))
    service: Mapped[str | None] = mapped_column(String(200), index=True)
    model: Mapped[str | None] = mapped_column(String(200))
    namespace: Mapped[str | None] = mapped_column(String(200))
    alertname: Mapped[str | None] = mapped_column(String(200))
    query: Mapped[str | None] = mapped_column(Text)
    value: Mapped[str | None] = mapped_column(String(200))
    labels: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    opened_at: Mapped[datetime] = mapped_column(UtcDateTime)
    acknowledged_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    acknowledged_by: Mapped[str | None] = mapped_column(String(200))
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    resolved_by: Mapped[str | None] = mapped_column(String(200))
    resolution: Mapped[str | None] = mapped_column(Text)
    announced_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    triage_runs: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    __table_args__ = (
        # One active incident per Alertmanager group: the constraint that makes intake idempotent
        # across threads, processes and replicas.
        Index(
            "uq_incidents_active_group",
            "group_hash",
            unique=True,
            sqlite_where=ACTIVE,
            postgresql_where=ACTIVE,
        ),
    )


class AlertRow(Base):
    __tablename__ = "alerts"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"))
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20))
    alertname: Mapped[str] = mapped_column(String(200))
    labels: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    annotations: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    starts_at: Mapped[datetime] = mapped_column(UtcDateTime)
    ends_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    generator_url: Mapped[str] = mapped_column(Text, default="")
    query: Mapped[str | None] = mapped_column(Text)
    value: Mapped[str | None] = mapped_column(String(200))
    first_received_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_received_at: Mapped[datetime] = mapped_column(UtcDateTime)
    notifications: Mapped[int] = mapped_column(Integer, default=1)

    __table_args__ = (UniqueConstraint("incident_id", "fingerprint", name="uq_alerts_incident_fingerprint"),)


class TimelineEventRow(Base):
    __tablename__ = "timeline_events"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    actor: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(Text)
    data: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)


class TriageRow(Base):
    __tablename__ = "triages"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"), index=True)
    run: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    posted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    engine: Mapped[str] = mapped_column(String(20))
    category: Mapped[str | None] = mapped_column(String(40))
    code: Mapped[str | None] = mapped_column(String(60))
    layer: Mapped[str | None] = mapped_column(String(10))
    hypothesis: Mapped[str] = mapped_column(Text, default="")
    confidence: Mapped[float | None]
    result: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    thread_id: Mapped[str | None] = mapped_column(String(200))  # the run's checkpoint thread
    interrupt_id: Mapped[str | None] = mapped_column(String(64))  # the pause its approvals resume
    acting_by: Mapped[str | None] = mapped_column(String(200))  # who resumes it now (one at a time)
    acting_until: Mapped[datetime | None] = mapped_column(UtcDateTime)

    # One stored result per triage run: a retried job or a second worker cannot store it twice.
    __table_args__ = (UniqueConstraint("incident_id", "run", name="uq_triages_incident_run"),)


class ActionProposalRow(Base):
    __tablename__ = "action_proposals"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"), index=True)
    triage_id: Mapped[int | None] = mapped_column(ForeignKey("triages.id", ondelete="SET NULL"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(300))
    namespace: Mapped[str | None] = mapped_column(String(200))
    params: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    rationale: Mapped[str] = mapped_column(Text, default="")
    undo: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), default="proposed")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    decided_by: Mapped[str | None] = mapped_column(String(200))
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    follows: Mapped[int | None] = mapped_column(Id)  # the proposal this one is the second approval of
    preview: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)  # the dry run shown before
    outcome: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)  # what came of it, shown after
    version: Mapped[int] = mapped_column(Integer, default=0)  # bumped per change: fresh Slack block ids


class ActionExecutionRow(Base):
    __tablename__ = "action_executions"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    proposal_id: Mapped[int] = mapped_column(
        ForeignKey("action_proposals.id", ondelete="CASCADE"), index=True
    )
    actor: Mapped[str] = mapped_column(String(200))
    phase: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    dry_run: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    result: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    undo_state: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    plan: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)  # stored before the first write

    # One row per phase (apply, undo): a retried execution finds its plan instead of making another.
    __table_args__ = (UniqueConstraint("proposal_id", "phase", name="uq_action_executions_phase"),)


class PostmortemRow(Base):
    """The postmortem draft of a resolved incident, as built from its timeline (`events` of them)."""

    __tablename__ = "postmortems"

    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    events: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    draft: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)


class ChatChannelRow(Base):
    """An incident's chat channel: claimed in the database before Slack is asked to create it, so a
    retried job or a second replica finds the claim (or the channel) instead of making another."""

    __tablename__ = "chat_channels"

    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    channel_id: Mapped[str | None] = mapped_column(String(40), unique=True)
    claimed_by: Mapped[str] = mapped_column(String(200))
    claimed_until: Mapped[datetime] = mapped_column(UtcDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    steps: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)  # setup steps already done
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ChatMessageRow(Base):
    """A message the bot posted for an incident (announcement, progress, triage, notice), by purpose."""

    __tablename__ = "chat_messages"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    incident_id: Mapped[int] = mapped_column(ForeignKey("incidents.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(40))
    run: Mapped[int] = mapped_column(Integer, default=0)  # the triage run it belongs to; 0 for none
    channel_id: Mapped[str] = mapped_column(String(40))
    ts: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)

    __table_args__ = (UniqueConstraint("incident_id", "purpose", "run", name="uq_chat_messages_purpose"),)


class JobRow(Base):
    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(60))
    payload: Mapped[dict[str, Any]] = mapped_column(JsonColumn, default=dict)
    dedup_key: Mapped[str | None] = mapped_column(String(200), unique=True)
    status: Mapped[str] = mapped_column(String(20))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=5)
    run_after: Mapped[datetime] = mapped_column(UtcDateTime)
    locked_by: Mapped[str | None] = mapped_column(String(200))
    locked_until: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    __table_args__ = (Index("ix_jobs_claim", "status", "run_after"),)
