"""The triage graph's checkpoints, in the bot's own database, holding only the types it knows.

A checkpoint is deserialized when a run resumes or is read back; LangGraph's serializer warns about
(and in strict mode blocks) any type it was not told about, so the state's types are named here
once, and nothing else found in a checkpoint is ever turned back into an object.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from sqlalchemy.engine import make_url

from bot.actions.catalog import ActionKind
from bot.actions.model import ActionDecision
from bot.domain import (
    Alert,
    AlertStatus,
    Category,
    Incident,
    IncidentStatus,
    IncidentSummary,
    ProposedAction,
    Severity,
    TimelineEntry,
    TriageResult,
)
from bot.store.db import Database
from bot.triage.classify import Decision
from bot.triage.findings import Finding
from bot.triage.gather import Gathered
from bot.triage.request import TriageRequest
from bot.triage.scope import IncidentScope
from bot.triage.verdict import Verdict
from tools.kubernetes import Topology
from tools.result import Evidence, Gap, Source, Status, Window

STATE_TYPES: tuple[type, ...] = (
    *(Incident, Alert, IncidentStatus, Severity, AlertStatus, Category, TriageRequest),
    *(IncidentScope, Topology, Gathered, Window, Evidence, Gap, Source, Status),
    *(Finding, Decision, Verdict, ActionKind, ProposedAction, ActionDecision),
    *(TriageResult, IncidentSummary, TimelineEntry),
)


def serializer() -> JsonPlusSerializer:
    """Deserializes the triage state's own types and nothing else."""
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


SETUP_TRIES = 5


def checkpointer_for(db: Database) -> BaseCheckpointSaver[Any]:
    """LangGraph's saver on the bot's own database (its tables sit beside the bot's)."""
    url = db.engine.url
    if db.dialect == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        sqlite_saver = SqliteSaver(
            sqlite3.connect(str(url.database), check_same_thread=False), serde=serializer()
        )
        sqlite_saver.setup()
        return sqlite_saver
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    plain = make_url(url.render_as_string(hide_password=False)).set(drivername="postgresql")
    conn = psycopg.connect(
        plain.render_as_string(hide_password=False),
        autocommit=True,
        prepare_threshold=0,
        row_factory=dict_row,
        connect_timeout=5,
    )
    try:
        pg_saver = PostgresSaver(conn, serde=serializer())
        _set_up(pg_saver, psycopg.errors.UniqueViolation)
    except BaseException:
        conn.close()
        raise
    return pg_saver


def _set_up(saver: Any, raced: type[Exception]) -> None:
    """The saver's migrations. Replicas that triage for the first time at once race on them (one
    creates a table or records a migration the other is creating): the loser tries again, and finds
    them done. Nothing waits on another session, so nothing can deadlock on the saver's
    CREATE INDEX CONCURRENTLY."""
    for attempt in range(1, SETUP_TRIES + 1):
        try:
            saver.setup()
            return
        except raced:
            if attempt == SETUP_TRIES:
                raise
            time.sleep(0.1 * attempt)
