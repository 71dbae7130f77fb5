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
from bot.worker import Worker


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


def build_deps(settings: Settings, *, config: BotConfig | None = None, clock: Clock = utc_now) -> Deps:
    """Load the configuration (fails on an invalid file) and build the services."""
    config = config if config is not None else load_config(settings.incident_bot_config)
    db = create_database(settings.database_url, pool_size=settings.db_pool_size)
    publisher = TimelinePublisher(db, clock=clock)
    worker = Worker(
        db,
        {ANNOUNCE_JOB: AnnounceHandler(db, config, publisher, clock=clock)},
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
    )
