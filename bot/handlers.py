"""The worker's job handlers, one per `JobKind`: each reads and records through the services.

Handlers must be idempotent (a job whose worker died is run again): each first asks whether its
step is already recorded, and the store's constraints make a second record a no-op. A post that
did not get through is said on the timeline before the job is retried.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.announce import build_announcement
from bot.clock import Clock, utc_now
from bot.config import BotConfig
from bot.errors import NotFoundError
from bot.incidents import IncidentService
from bot.jobs import Job, JobKind
from bot.lifecycle import run_label
from bot.publish import Publisher, PublishError
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

    def posting(job: Job, incident_id: int, what: str, post: Callable[[], str]) -> str:
        try:
            return post()
        except PublishError as exc:
            incidents.record_post_failure(
                incident_id, what=what, error=exc.message, attempt=job.attempts, of=job.max_attempts
            )
            raise

    def announce(job: Job) -> None:
        detail = incidents.get(_ids(job)[0])
        incident = detail.incident
        if incident.announced_at is not None:
            return
        announcement = build_announcement(detail, config, now=clock())
        where = posting(job, incident.id, "announcement", lambda: publisher.announce(incident, announcement))
        incidents.record_announcement(incident.id, where=where, data=announcement.model_dump(mode="json"))

    def triage(job: Job) -> None:
        incident_id, run = _ids(job)
        if incidents.triage(incident_id, run) is not None:
            return
        detail = incidents.get(incident_id)
        progress = publisher.progress(detail.incident, run)
        result = engine.run(engine.request(detail.incident, detail.alerts, run=run), progress=progress)
        incidents.record_triage(incident_id, run, result)

    def post_triage(job: Job) -> None:
        incident_id, run = _ids(job)
        stored = incidents.triage(incident_id, run)
        if stored is None:
            raise NotFoundError(f"incident {incident_id} has no stored triage run {run} to post")
        if stored.posted_at is not None:
            return
        incident = incidents.get(incident_id).incident
        where = posting(job, incident_id, run_label(run), lambda: publisher.post_triage(incident, stored))
        incidents.record_triage_post(incident_id, run, where=where)

    def alerts_resolved(job: Job) -> None:
        incident = incidents.get(_ids(job)[0]).incident
        posting(
            job, incident.id, "notice that every alert resolved", lambda: publisher.alerts_resolved(incident)
        )

    return {
        JobKind.ANNOUNCE: announce,
        JobKind.TRIAGE: triage,
        JobKind.POST_TRIAGE: post_triage,
        JobKind.ALERTS_RESOLVED: alerts_resolved,
    }
