"""Live triage: the worker's `incident.triage` job, with tools pointed at the real backends and
the graph checkpointed in the bot's own database.
"""

from __future__ import annotations

import logging
import socket
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from sqlalchemy import select
from sqlalchemy.engine import make_url

from bot.alertmanager import WebhookPayload
from bot.clock import Clock, utc_now
from bot.config import BotConfig
from bot.domain import EventKind
from bot.errors import NotFoundError
from bot.incidents import add_event
from bot.intake import TRIAGE_JOB
from bot.jobs import Job
from bot.settings import Settings
from bot.store.db import Database
from bot.store.models import ActionProposalRow, AlertRow, IncidentRow, TriageRow
from bot.triage.gather import Backends
from bot.triage.graph import Reviewer, TriageDeps, TriageState, build_graph, run
from bot.triage.model import TriageResult
from bot.triage.service import Knowledge
from bot.triage.taxonomy import meaning
from tools.elasticsearch import LogTool
from tools.elasticsearch import connect as es_connect
from tools.gpu import GpuTool
from tools.kubernetes import KubeTool, api_client
from tools.prometheus import PrometheusTool
from tools.prometheus import connect as prom_connect
from tools.signals import DEFAULT_CATALOG, load_catalog

log = logging.getLogger(__name__)
__all__ = ["TRIAGE_JOB", "TriageHandler", "live_backends"]


def live_backends(settings: Settings, config: BotConfig) -> Backends:
    """The tools for the configured backends (environment first, then the YAML's `backends`)."""
    timeout = settings.tool_timeout_seconds
    prom_url = settings.prometheus_url or config.backends.prometheus_url
    es_url = settings.elasticsearch_url or config.backends.elasticsearch_url
    catalog = load_catalog(settings.signals_file or DEFAULT_CATALOG)
    backends = Backends()
    if prom_url:
        backends.prometheus = PrometheusTool(
            prom_connect(prom_url, timeout=timeout), catalog, link_base=prom_url, timeout=timeout
        )
    if es_url:
        key = settings.elasticsearch_api_key.get_secret_value() if settings.elasticsearch_api_key else None
        backends.logs = LogTool(
            es_connect(es_url, timeout=timeout, api_key=key),
            index=settings.logs_index or config.backends.logs_index,
            timeout=timeout,
            kibana_url=settings.kibana_url,
        )
    kube = _kube_client(settings)
    if kube is not None:
        backends.kube = KubeTool(kube, timeout=timeout)
    backends.gpu = _local_gpu(timeout)
    return backends


def _kube_client(settings: Settings) -> Any:
    """An explicit API URL, else KUBECONFIG, else the in-cluster service account, else none (a gap).

    Never a developer's ~/.kube/config by surprise: the bot talks to the cluster it is told about.
    """
    if settings.kubernetes_api_url:
        token = settings.kubernetes_token.get_secret_value() if settings.kubernetes_token else None
        return api_client(settings.kubernetes_api_url, token=token)
    from kubernetes import config

    if settings.kubeconfig is not None:
        return config.new_client_from_config(config_file=str(settings.kubeconfig))  # type: ignore[no-untyped-call]
    try:
        config.load_incluster_config()  # type: ignore[no-untyped-call]
    except config.ConfigException:
        return None
    from kubernetes import client

    return client.ApiClient()


def _local_gpu(timeout: float) -> GpuTool | None:
    """NVML on this host, when the bot runs on a GPU node (otherwise the gap says so)."""
    try:
        import pynvml
    except ImportError:
        return None
    return GpuTool({socket.gethostname(): pynvml}, timeout=timeout)


def checkpointer_for(db: Database) -> BaseCheckpointSaver[Any]:
    """LangGraph's saver on the bot's own database (its tables sit beside the bot's)."""
    url = db.engine.url
    if db.dialect == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        sqlite_saver = SqliteSaver(sqlite3.connect(str(url.database), check_same_thread=False))
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
    )
    pg_saver = PostgresSaver(conn)
    pg_saver.setup()
    return pg_saver


def llm_reviewer(settings: Settings, knowledge: Knowledge) -> Callable[[Backends], Reviewer] | None:
    """The LLM review when OPENAI_BASE_URL and OPENAI_MODEL are set (any OpenAI-compatible server)."""
    if not (settings.openai_base_url and settings.openai_model):
        return None
    from openai import OpenAI

    from bot.triage.llm import Limits, LlmReviewer

    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "EMPTY"
    client = OpenAI(base_url=settings.openai_base_url, api_key=key, max_retries=1)
    limits = Limits(
        max_steps=settings.llm_max_steps,
        max_seconds=settings.llm_max_seconds,
        max_tokens=settings.llm_max_tokens,
    )
    model = settings.openai_model
    return lambda backends: LlmReviewer(
        client, model=model, runbooks=knowledge.runbooks, backends=backends, limits=limits
    )


def payload_of(db: Database, incident_id: int) -> WebhookPayload | None:
    """The incident's alert group, rebuilt from the store in Alertmanager's shape."""
    with db.reader() as session:
        incident = session.get(IncidentRow, incident_id)
        if incident is None:
            raise NotFoundError(f"incident {incident_id} does not exist")
        alerts = session.scalars(select(AlertRow).where(AlertRow.incident_id == incident_id)).all()
        if not alerts:
            return None
        return WebhookPayload.model_validate(
            {
                "version": "4",
                "groupKey": incident.group_key or f"incident:{incident_id}",
                "status": "firing",
                "receiver": incident.receiver or "",
                "commonLabels": incident.labels or {},
                "alerts": [
                    {
                        "status": a.status,
                        "labels": a.labels,
                        "annotations": a.annotations,
                        "startsAt": a.starts_at,
                        "endsAt": a.ends_at,
                        "generatorURL": a.generator_url,
                        "fingerprint": a.fingerprint,
                    }
                    for a in alerts
                ],
            }
        )


class TriageHandler:
    """Job handler: triage an incident once, store the result and its proposals, note it."""

    def __init__(
        self,
        db: Database,
        knowledge: Knowledge,
        backends: Callable[[], Backends],
        *,
        clock: Clock = utc_now,
        as_of: Clock | None = None,
        reviewer: Callable[[Backends], Reviewer] | None = None,
    ) -> None:
        self._db, self._knowledge, self._backends, self._clock = db, knowledge, backends, clock
        self._as_of = as_of or clock  # the triage's "now"; pinned when a recorded incident is replayed
        self._reviewer_factory = reviewer
        self._reviewer: Reviewer | None = None
        self._checkpointer: BaseCheckpointSaver[Any] | None = None
        self._live: Backends | None = None
        self._graph: CompiledStateGraph[TriageState, None, TriageState, TriageState] | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the backends' clients and the checkpointer's connection."""
        with self._lock:
            if self._live is not None:
                self._live.close()
                self._live = None
            conn = getattr(self._checkpointer, "conn", None)
            if conn is not None:
                conn.close()
            self._checkpointer = None
            self._graph = None

    def _prepared(self) -> CompiledStateGraph[TriageState, None, TriageState, TriageState]:
        """The graph, compiled once with the live backends and the store's checkpointer."""
        with self._lock:
            if self._graph is None:
                self._live = self._backends()
                self._reviewer = self._reviewer_factory(self._live) if self._reviewer_factory else None
                self._checkpointer = checkpointer_for(self._db)
                deps = TriageDeps(
                    backends=self._live,
                    attributor=self._knowledge.attributor,
                    runbooks=self._knowledge.runbooks,
                    meaning=meaning,
                    reviewer=self._reviewer,
                )
                self._graph = build_graph(deps, checkpointer=self._checkpointer)
            return self._graph

    def __call__(self, job: Job) -> None:
        incident_id = int(job.payload["incident_id"])
        with self._db.reader() as session:
            done = session.scalar(select(TriageRow.id).where(TriageRow.incident_id == incident_id))
        if done is not None:
            return
        alert = payload_of(self._db, incident_id)
        if alert is None:
            return
        state = TriageState(alert=alert, as_of=self._as_of())
        result = run(self._prepared(), state, thread_id=f"incident:{incident_id}")
        self._store(incident_id, result)

    def _store(self, incident_id: int, result: TriageResult) -> None:
        now = self._clock()
        with self._db.transaction() as session:
            row = TriageRow(
                incident_id=incident_id,
                created_at=now,
                engine=result.engine,
                category=result.category,
                code=result.code,
                layer=result.layer,
                hypothesis=result.hypothesis,
                confidence=result.confidence,
                result=result.public(),
            )
            session.add(row)
            session.flush()
            for position, action in enumerate(result.actions):
                session.add(
                    ActionProposalRow(
                        incident_id=incident_id,
                        triage_id=row.id,
                        position=position,
                        kind=action.kind,
                        target=action.target,
                        namespace=action.namespace,
                        params=action.params,
                        rationale=action.rationale,
                        undo=action.undo,
                        status="proposed",
                        created_at=now,
                    )
                )
            first = (
                f"; first move: {result.actions[0].kind} {result.actions[0].target}" if result.actions else ""
            )
            add_event(
                session,
                incident_id=incident_id,
                at=now,
                actor="incident-bot",
                kind=EventKind.TRIAGED,
                text=f"triage ({result.engine}): {result.category} / {result.code}, "
                f"confidence {result.confidence:.0%}{first}",
                data={"triage_id": row.id, "gaps": result.gaps},
            )
