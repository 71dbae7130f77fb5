"""Wiring: from Settings to the services, the worker and the triage engine, built once.

Every entry point (the server, the CLI, `triage --pack`, `eval`, the benchmarks, the demo) builds
one `Deps` here and hands its services down; nothing below the entry points builds its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from bot.actions.approvers import Approvers, Directory
from bot.actions.executors import Limits
from bot.actions.kube import KubeActions
from bot.actions.runner import ActionRunner
from bot.actions.service import ActionService
from bot.actions.store import ProposalStore
from bot.chatstore import ChatStore
from bot.clock import Clock, utc_now
from bot.config import BotConfig, load_config
from bot.errors import ConfigError
from bot.handlers import handlers
from bot.incidents import IncidentService
from bot.intake import Intake
from bot.lifecycle import Lifecycle
from bot.metrics import Metrics
from bot.postmortem.service import PostmortemService
from bot.publish import Publisher, TimelinePublisher
from bot.settings import Settings
from bot.store.db import Database, create_database
from bot.triage.engine import TriageEngine
from bot.triage.knowledge import Knowledge
from bot.triage.runbooks import DEFAULT_DIR as RUNBOOKS_DIR
from bot.triage.runbooks import RunbookCatalog
from bot.triage.taxonomy import Taxonomy, default_taxonomy, load_taxonomy
from bot.worker import Worker


@dataclass(frozen=True)
class Services:
    """What the HTTP API, the CLI, the worker and the chat surface call instead of touching rows."""

    incidents: IncidentService
    intake: Intake
    chat: ChatStore
    actions: ActionService
    postmortems: PostmortemService


@dataclass
class Deps:
    """Everything the entry points need, built once."""

    settings: Settings
    config: BotConfig
    knowledge: Knowledge
    db: Database
    services: Services
    engine: TriageEngine
    worker: Worker
    metrics: Metrics
    publisher: Publisher | None = None
    runner: ActionRunner | None = None

    def close(self) -> None:
        """Release clients and connections (after the worker has stopped)."""
        self.engine.close()
        if self.runner is not None:
            self.runner.close()
        self.db.dispose()


def build_services(
    settings: Settings,
    *,
    config: BotConfig | None = None,
    clock: Clock = utc_now,
    db: Database | None = None,
    pool_size: int | None = None,
) -> Services:
    """Only the services, for a short command that needs neither the worker nor the triage engine."""
    config = config if config is not None else load_config(settings.incident_bot_config)
    db = db or create_database(settings.database_url, pool_size=pool_size or settings.db_pool_size)
    return _services(settings, config, db, clock, on_queued=None)


def _services(
    settings: Settings,
    config: BotConfig,
    db: Database,
    clock: Clock,
    *,
    on_queued: Callable[[], None] | None,
    knowledge: Knowledge | None = None,
) -> Services:
    """The services on one lifecycle; `on_queued` hears of every change that queued jobs. Without
    `knowledge` (a short command), the runbooks are read only if a postmortem is drafted."""
    minutes = config.slack.archive_after_minutes
    lifecycle = Lifecycle(
        job_max_attempts=settings.job_max_attempts,
        chat_job_max_attempts=settings.chat_job_max_attempts,
        proposal_ttl=proposal_ttl(config),
        archive_after=timedelta(minutes=minutes) if minutes is not None else None,
    )
    approvers = Approvers(config, _directory(settings))
    taxonomy = knowledge.taxonomy if knowledge else _taxonomy(settings)
    incidents = IncidentService(db, lifecycle, clock=clock, on_queued=on_queued, taxonomy=taxonomy)
    runbooks = (lambda: knowledge.runbooks) if knowledge else _runbooks(settings, taxonomy)
    return Services(
        incidents=incidents,
        intake=Intake(db, config, lifecycle, clock=clock, on_queued=on_queued),
        chat=ChatStore(db, lifecycle, clock=clock),
        actions=ActionService(ProposalStore(db, lifecycle), approvers, clock=clock, on_queued=on_queued),
        postmortems=PostmortemService(db, incidents, runbooks, clock=clock),
    )


def _taxonomy(settings: Settings) -> Taxonomy:
    return load_taxonomy(settings.taxonomy_file) if settings.taxonomy_file else default_taxonomy()


def _runbooks(settings: Settings, taxonomy: Taxonomy) -> Callable[[], RunbookCatalog | None]:
    """The runbook folder, read on first use (a short command that drafts no postmortem never reads it)."""

    @cache
    def load() -> RunbookCatalog | None:
        return RunbookCatalog.load(settings.runbooks_dir or RUNBOOKS_DIR, taxonomy)

    return load


def proposal_ttl(config: BotConfig) -> timedelta:
    return timedelta(minutes=config.actions.expire_minutes)


def _directory(settings: Settings) -> Directory | None:
    """Slack's users and groups, for approvers named by group or e-mail; none without Slack."""
    if not settings.slack:
        return None
    from bot.slack.client import web_client
    from bot.slack.directory import SlackDirectory

    return SlackDirectory(web_client(settings))


def action_runner(settings: Settings, config: BotConfig, services: Services, clock: Clock) -> ActionRunner:
    """The executors on their own client (the actions' service account when it has a token)."""
    from bot.triage.backends import kube_client

    token = (
        settings.kubernetes_actions_token.get_secret_value() if settings.kubernetes_actions_token else None
    )
    api = kube_client(settings, token=token) if config.actions.enabled else None
    limits = Limits(
        min_ready_replicas=config.actions.min_ready_replicas, verify_seconds=config.actions.verify_seconds
    )
    kube = KubeActions(api, timeout=settings.tool_timeout_seconds * 2) if api is not None else None
    return ActionRunner(services.actions.store, kube, limits, ttl=proposal_ttl(config), clock=clock)


def build_deps(
    settings: Settings,
    *,
    config: BotConfig | None = None,
    clock: Clock = utc_now,
    publisher: Publisher | None = None,
    knowledge: Knowledge | None = None,
) -> Deps:
    """Load and validate the configuration and the data files (ConfigError on a mistake), then wire.

    `knowledge` reuses data files already loaded from the same settings (a run over many packs).
    """
    config = config if config is not None else load_config(settings.incident_bot_config)
    if config.actions.verify_seconds + 60 > settings.job_lease_seconds:
        raise ConfigError(
            f"actions.verify_seconds ({config.actions.verify_seconds:g}) must end a minute before a job's lease "
            f"(JOB_LEASE_SECONDS, {settings.job_lease_seconds:g}): raise the lease or shorten the verify"
        )
    knowledge = knowledge or Knowledge.from_settings(settings)
    db = create_database(settings.database_url, pool_size=settings.db_pool_size)
    worker: Worker | None = None  # built below, on these services; woken when they queue jobs
    services = _services(
        settings, config, db, clock, on_queued=lambda: worker.wake() if worker else None, knowledge=knowledge
    )
    engine = TriageEngine.from_settings(settings, config, db, knowledge, clock=clock)
    runner = action_runner(settings, config, services, clock)
    engine.act = runner.execute
    publisher = publisher or _publisher(settings, config, services, engine)
    worker = Worker(
        db,
        handlers(
            services.incidents,
            engine,
            publisher,
            config,
            runner,
            services.actions,
            services.postmortems,
            clock=clock,
            lease=timedelta(seconds=settings.job_lease_seconds),
        ),
        clock=clock,
        threads=settings.worker_threads,
        poll_seconds=settings.worker_poll_seconds,
        lease_seconds=settings.job_lease_seconds,
    )
    return Deps(
        settings=settings,
        config=config,
        knowledge=knowledge,
        db=db,
        services=services,
        engine=engine,
        worker=worker,
        metrics=Metrics(db),
        publisher=publisher,
        runner=runner,
    )


def _publisher(settings: Settings, config: BotConfig, services: Services, engine: TriageEngine) -> Publisher:
    """Slack when it is configured, else the timeline."""
    if not settings.slack:
        return TimelinePublisher()
    from bot.slack.client import web_client
    from bot.slack.publisher import SlackPublisher

    return SlackPublisher(
        web_client(settings), services.chat, services.incidents, config, prometheus=engine.backends.prometheus
    )
