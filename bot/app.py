"""Wiring: from Settings to the services, the worker and the ASGI application."""

from __future__ import annotations

from dataclasses import dataclass

from bot.announce import AnnounceHandler, TimelinePublisher
from bot.clock import Clock, utc_now
from bot.config import BotConfig, load_config
from bot.incidents import IncidentService
from bot.intake import ANNOUNCE_JOB, Intake
from bot.metrics import Metrics
from bot.settings import Settings
from bot.store.db import Database, create_database
from bot.triage.live import TRIAGE_JOB, TriageHandler, live_backends, llm_reviewer
from bot.triage.runbooks import DEFAULT_DIR
from bot.triage.service import Knowledge
from bot.worker import Worker
from tools.signals import DEFAULT_CATALOG, load_catalog


@dataclass
class Deps:
    """Everything the entry points need, built once."""

    settings: Settings
    config: BotConfig
    db: Database
    incidents: IncidentService
    intake: Intake
    worker: Worker
    metrics: Metrics
    triage: TriageHandler

    def close(self) -> None:
        """Release connections (after the worker has stopped)."""
        self.triage.close()
        self.db.dispose()


def build_deps(settings: Settings, *, config: BotConfig | None = None, clock: Clock = utc_now) -> Deps:
    """Load the configuration (fails on an invalid file) and build the services."""
    config = config if config is not None else load_config(settings.incident_bot_config)
    knowledge = Knowledge.load(runbooks=settings.runbooks_dir or DEFAULT_DIR)  # validated at start-up
    load_catalog(settings.signals_file or DEFAULT_CATALOG)
    db = create_database(settings.database_url, pool_size=settings.db_pool_size)
    publisher = TimelinePublisher(db, clock=clock)
    pinned = settings.triage_as_of
    triage = TriageHandler(
        db,
        knowledge,
        lambda: live_backends(settings, config),
        clock=clock,
        as_of=(lambda: pinned) if pinned is not None else None,
        reviewer=llm_reviewer(settings, knowledge),
    )
    worker = Worker(
        db,
        {ANNOUNCE_JOB: AnnounceHandler(db, config, publisher, clock=clock), TRIAGE_JOB: triage},
        clock=clock,
        threads=settings.worker_threads,
        poll_seconds=settings.worker_poll_seconds,
        lease_seconds=settings.job_lease_seconds,
    )
    intake = Intake(
        db,
        config,
        clock=clock,
        job_max_attempts=settings.job_max_attempts,
        on_opened=lambda _id: worker.wake(),
    )
    return Deps(
        settings=settings,
        config=config,
        db=db,
        incidents=IncidentService(db, clock=clock),
        intake=intake,
        worker=worker,
        metrics=Metrics(db),
        triage=triage,
    )
