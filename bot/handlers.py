"""The worker's job handlers, one per `JobKind`: each reads and records through the services.

Handlers must be idempotent (a job whose worker died is run again): each first asks whether its
step is already recorded, and the store's constraints make a second record a no-op. A post that
did not get through is said on the timeline before the job is retried.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import timedelta

from bot.actions.model import ActionDecision, ProposalState
from bot.actions.runner import ActionRunner
from bot.actions.service import ActionService
from bot.announce import build_announcement
from bot.clock import Clock, utc_now
from bot.config import BotConfig
from bot.domain import EventKind
from bot.errors import NotFoundError
from bot.incidents import IncidentService
from bot.jobs import Job, JobKind
from bot.lifecycle import BOT, run_label
from bot.postmortem.service import PostmortemService
from bot.publish import Publisher, PublishError, show_actions
from bot.triage.engine import TriageEngine
from bot.triage.graph import NotPending
from bot.worker import Deferred, Handler

log = logging.getLogger(__name__)


def _ids(job: Job) -> tuple[int, int]:
    return int(job.payload["incident_id"]), int(job.payload.get("run", 1))


def handlers(
    incidents: IncidentService,
    engine: TriageEngine,
    publisher: Publisher,
    config: BotConfig,
    runner: ActionRunner,
    actions: ActionService,
    postmortems: PostmortemService,
    *,
    clock: Clock = utc_now,
    lease: timedelta = timedelta(minutes=5),
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
        request = engine.request(detail.incident, detail.alerts, run=run)
        result = engine.run(request, progress=progress)
        paused = engine.pending(request.thread_id)
        incidents.record_triage(incident_id, run, result, thread_id=request.thread_id, interrupt_id=paused)

    def post_triage(job: Job) -> None:
        incident_id, run = _ids(job)
        stored = incidents.triage(incident_id, run)
        if stored is None:
            raise NotFoundError(f"incident {incident_id} has no stored triage run {run} to post")
        if stored.posted_at is not None:
            return
        for proposal in incidents.proposals(incident_id, run):  # the dry run shown before approval
            if not proposal.preview and proposal.status == ProposalState.PROPOSED:
                preview = runner.preview(proposal)
                runner.store.set_preview(proposal.id, preview)
                said = "; ".join(preview.get("diff") or []) or preview.get("reason") or preview.get("summary")
                text = f"dry run of {proposal.action.kind.value} {proposal.action.target}: {said}"
                runner.store.audit(
                    proposal, EventKind.ACTION_DRY_RUN, text, actor=BOT, now=clock(), data=preview
                )
        incident = incidents.get(incident_id).incident
        where = posting(job, incident_id, run_label(run), lambda: publisher.post_triage(incident, stored))
        incidents.record_triage_post(incident_id, run, where=where)

    def alerts_resolved(job: Job) -> None:
        incident = incidents.get(_ids(job)[0]).incident
        posting(
            job, incident.id, "notice that every alert resolved", lambda: publisher.alerts_resolved(incident)
        )

    def postmortem(job: Job) -> None:
        """Draft (again, on a retry: the timeline may have grown) and post it with the summary."""
        incident_id = _ids(job)[0]
        draft = postmortems.record(incident_id)
        where = posting(
            job, incident_id, "postmortem draft", lambda: publisher.resolved(draft.incident, draft)
        )
        incidents.record_postmortem(incident_id, where=where)

    def archive(job: Job) -> None:
        """The summary and draft first (both are posted once, whichever job gets there first)."""
        incident_id = _ids(job)[0]
        if postmortems.drafting(incident_id):  # one job posts the draft at a time
            raise Deferred(f"incident {incident_id}'s postmortem draft is being posted", seconds=5)
        draft = postmortems.get(incident_id)
        where = posting(
            job, incident_id, "postmortem draft", lambda: publisher.resolved(draft.incident, draft)
        )
        incidents.record_postmortem(incident_id, where=where)
        incident = draft.incident
        where = posting(job, incident.id, "channel archive", lambda: publisher.archive(incident))
        incidents.record_archive(incident.id, where=where)

    def refresh(incident_id: int, run: int) -> None:
        """The proposals' message shows their state; a failed edit is said, and does not undo the action."""
        try:
            show_actions(publisher, incidents, incident_id, run)
        except PublishError as exc:
            log.warning("proposal message of incident %s not updated: %s", incident_id, exc.message)
            incidents.record_post_failure(
                incident_id, what="proposal update", error=exc.message, attempt=1, of=1
            )

    def act(job: Job) -> None:
        proposal = runner.store.get(int(job.payload["proposal_id"]))
        phase = "undo" if job.payload.get("phase") == "undo" else "apply"
        row = runner.store.triage_row(proposal)
        holder, now = f"job-{job.id}/{job.attempts}", clock()
        if not runner.store.lease_run(row.id, holder, now=now, until=now + lease):
            raise Deferred(
                f"incident {proposal.incident_id} {run_label(proposal.run)} is acting on another decision"
            )
        decision = ActionDecision(
            proposal_id=proposal.id, phase=phase, actor=proposal.decided_by or "unknown"
        )
        resumed, paused = False, None
        try:
            refresh(proposal.incident_id, proposal.run)  # "approved by …, applying"
            paused = engine.resume(row.thread_id or "", row.interrupt_id, decision)
            resumed = True
        except NotPending as exc:
            runner.abandon(decision, f"nothing was changed: {exc}")
        finally:
            runner.store.release_run(row.id, holder, interrupt_id=paused, resumed=resumed)
        refresh(proposal.incident_id, proposal.run)

    def expire(job: Job) -> None:
        """A proposal's time is up: expired (audited) unless decided, and its buttons go."""
        before = runner.store.get(int(job.payload["proposal_id"]))
        after = actions.get(before.id)  # reading a proposal past its time expires it
        if after.status != before.status:
            refresh(after.incident_id, after.run)

    return {
        JobKind.ANNOUNCE: announce,
        JobKind.TRIAGE: triage,
        JobKind.POST_TRIAGE: post_triage,
        JobKind.ALERTS_RESOLVED: alerts_resolved,
        JobKind.ACT: act,
        JobKind.EXPIRE: expire,
        JobKind.POSTMORTEM: postmortem,
        JobKind.ARCHIVE: archive,
    }
