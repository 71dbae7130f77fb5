"""The worker's job handlers, one per `JobKind`: each reads and records through the services.

Handlers must be idempotent (a job whose worker died is run again): each first asks whether its
step is already recorded, and the store's constraints make a second record a no-op.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.announce import build_announcement
from bot.clock import Clock, utc_now
from bot.config import BotConfig
from bot.errors import NotFoundError
from bot.incidents import IncidentService
from bot.jobs import Job, JobKind
from bot.publish import Publisher
from bot.triage.engine import TriageEngine
from bot.worker import Handler


def _ids(job: Job) -> tuple[int, int]:
    return int(job.payload["incident_id"]), int(job.payload.get("run", 1))


def handlers(
    incidents: IncidentService,
    engine: TriageEngine,
    publisher: Publisher,
    config: BotConfig,
    *,
    clock: Clock = utc_now,
) -> Mapping[str, Handler]:
    """The handler of every job kind the lifecycle enqueues."""

    def announce(job: Job) -> None:
        incident = incidents.get(_ids(job)[0]).incident
        if incident.announced_at is not None:
            return
        announcement = build_announcement(incident, config, now=clock())
        where = publisher.announce(announcement)
        incidents.record_announcement(incident.id, where=where, data=announcement.model_dump(mode="json"))

    def triage(job: Job) -> None:
        incident_id, run = _ids(job)
        if incidents.triage(incident_id, run) is not None:
            return
        detail = incidents.get(incident_id)
        result = engine.run(engine.request(detail.incident, detail.alerts, run=run))
        incidents.record_triage(incident_id, run, result)

    def post_triage(job: Job) -> None:
        incident_id, run = _ids(job)
        stored = incidents.triage(incident_id, run)
        if stored is None:
            raise NotFoundError(f"incident {incident_id} has no stored triage run {run} to post")
        if stored.posted_at is not None:
            return
        where = publisher.post_triage(incidents.get(incident_id).incident, stored)
        incidents.record_triage_post(incident_id, run, where=where)

    return {JobKind.ANNOUNCE: announce, JobKind.TRIAGE: triage, JobKind.POST_TRIAGE: post_triage}
