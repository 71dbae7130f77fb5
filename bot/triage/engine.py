"""The triage engine: one per process, built once from the settings, used by every entry point.

The worker's triage job, `triage --pack`, `eval`, the benchmarks and the demo all run a stored
incident through this engine: the same tools (pointed wherever the settings say), the same data
files, the same graph, checkpointed in the bot's own database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from bot.actions.model import ActionDecision
from bot.clock import Clock, utc_now
from bot.config import BotConfig
from bot.domain import Alert, Incident, TriageResult
from bot.settings import Settings
from bot.store.db import Database
from bot.triage.backends import Backends, live_backends
from bot.triage.checkpoints import checkpointer_for
from bot.triage.graph import Graph, Reviewer, TriageDeps, build_graph, pending, resume, run
from bot.triage.knowledge import Knowledge
from bot.triage.progress import Progress
from bot.triage.request import TriageRequest


class TriageEngine:
    """Runs triage requests: the backends' clients are built with it, the checkpointer and the
    compiled graph on the first run."""

    def __init__(
        self,
        knowledge: Knowledge,
        backends: Backends,
        db: Database,
        *,
        reviewer: Reviewer | None = None,
        clock: Clock = utc_now,
        as_of: Clock | None = None,
        act: Callable[[ActionDecision], object] | None = None,
    ) -> None:
        self.knowledge = knowledge
        self.act = act  # executes an approved decision inside the resumed run (set once wired)
        self.backends = backends
        self._db = db
        self._reviewer = reviewer
        self._clock = as_of or clock  # the triage's "now": pinned when a recorded incident is replayed
        self._graph: Graph | None = None
        self._checkpointer: BaseCheckpointSaver[Any] | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        config: BotConfig,
        db: Database,
        knowledge: Knowledge,
        *,
        clock: Clock = utc_now,
    ) -> TriageEngine:
        """The engine for the configured backends and, when set, the configured LLM reviewer."""
        from bot.triage.llm import LlmReviewer

        backends = live_backends(settings, config, knowledge.catalog)
        pinned = settings.triage_as_of
        return cls(
            knowledge,
            backends,
            db,
            reviewer=LlmReviewer.from_settings(settings, knowledge, backends),
            clock=clock,
            as_of=(lambda: pinned) if pinned is not None else None,
        )

    def request(self, incident: Incident, alerts: list[Alert], *, run: int = 1) -> TriageRequest:
        """A request for one run of `incident`, as of the engine's clock."""
        return TriageRequest(incident=incident, alerts=alerts, as_of=self._clock(), run=run)

    def run(self, request: TriageRequest, *, progress: Progress | None = None) -> TriageResult:
        """Triage one run to its end (resuming it when a checkpoint of it exists)."""
        return run(self._prepared(), request, progress=progress)

    def pending(self, thread_id: str) -> str | None:
        """The interrupt a run is paused at for a decision (None when it proposed nothing)."""
        return pending(self._prepared(), thread_id)

    def resume(self, thread_id: str, expected: str | None, decision: ActionDecision) -> str | None:
        """Resume a paused run with a decision (see `graph.resume`); the interrupt it pauses at next."""
        return resume(self._prepared(), thread_id, expected, decision)

    def _prepared(self) -> Graph:
        with self._lock:
            conn = getattr(self._checkpointer, "conn", None)
            # PostgreSQL restarted under the saver's connection (SQLite's has no such state): reconnect
            if conn is not None and (getattr(conn, "closed", False) or getattr(conn, "broken", False)):
                conn.close()
                self._checkpointer = None
                self._graph = None
            if self._graph is None:
                self._checkpointer = checkpointer_for(self._db)
                deps = TriageDeps(
                    backends=self.backends,
                    knowledge=self.knowledge,
                    reviewer=self._reviewer,
                    act=lambda decision: self.act(decision) if self.act else _no_executor(),
                )
                self._graph = build_graph(deps, checkpointer=self._checkpointer)
            return self._graph

    def close(self) -> None:
        """Close the backends' clients and the checkpointer's connection."""
        with self._lock:
            self.backends.close()
            if self._reviewer is not None:
                self._reviewer.close()
            conn = getattr(self._checkpointer, "conn", None)
            if conn is not None:
                conn.close()
            self._checkpointer = None
            self._graph = None


def _no_executor() -> None:
    raise RuntimeError("this triage engine was built without an action executor")
