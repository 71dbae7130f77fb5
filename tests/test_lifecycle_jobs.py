"""What each lifecycle transition queues, step by step and without a worker: the announcement and
the first triage at opening, the post once both a triage run and its announcement exist (in either
order), a new run on request, and nothing twice."""

from __future__ import annotations

import json

from bot.alertmanager import parse_payload
from bot.deps import Deps
from bot.domain import Category, IncidentSummary, Severity, TriageResult
from tests.support.payloads import alert, webhook
from tests.support.store import jobs_of

RESULT = TriageResult(
    incident=IncidentSummary(),
    category=Category.INFRASTRUCTURE,
    code="INF_GPU_XID",
    layer="INF",
    hypothesis="INF_GPU_XID on node gpu-3",
    confidence=0.8,
    evidence=[],
    blast_radius="1 of 2 replicas",
    actions=[],
    runbook=None,
)


def test_opening_queues_the_announcement_and_the_first_run(deps: Deps) -> None:
    incident = deps.services.incidents.declare(
        title="GPU fell off the bus", severity=Severity.CRITICAL, actor="U1"
    )
    assert incident.triage_runs == 1
    assert jobs_of(deps.db, incident.id) == [
        f"incident.announce:{incident.id}",
        f"incident.triage:{incident.id}:1",
    ]


def test_the_post_waits_for_the_announcement_whichever_comes_first(deps: Deps) -> None:
    incidents = deps.services.incidents
    first = incidents.declare(title="triage first", severity=Severity.MAJOR, actor="U1").id
    assert incidents.record_triage(first, 1, RESULT)
    assert f"incident.post_triage:{first}:1" not in jobs_of(deps.db, first)  # no channel to post in yet
    assert incidents.record_announcement(first, where="on the timeline", data={})
    assert jobs_of(deps.db, first)[-1] == f"incident.post_triage:{first}:1"
    second = incidents.declare(title="announcement first", severity=Severity.MAJOR, actor="U1").id
    assert incidents.record_announcement(second, where="on the timeline", data={})
    assert f"incident.post_triage:{second}:1" not in jobs_of(deps.db, second)
    assert incidents.record_triage(second, 1, RESULT)
    assert jobs_of(deps.db, second)[-1] == f"incident.post_triage:{second}:1"


def test_nothing_is_recorded_twice(deps: Deps) -> None:
    incidents = deps.services.incidents
    iid = incidents.declare(title="retried jobs", severity=Severity.MAJOR, actor="U1").id
    assert incidents.record_announcement(iid, where="on the timeline", data={})
    assert not incidents.record_announcement(iid, where="on the timeline", data={})  # a retried announce job
    assert incidents.record_triage(iid, 1, RESULT)
    assert not incidents.record_triage(iid, 1, RESULT)  # a second worker finishing the same run
    assert incidents.record_triage_post(iid, 1, where="on the timeline")
    assert not incidents.record_triage_post(iid, 1, where="on the timeline")
    kinds = [e.kind.value for e in incidents.get(iid).timeline]
    assert kinds == ["opened", "announced", "triaged", "triage_posted"]
    stored = incidents.triage(iid)
    assert stored is not None and stored.run == 1 and stored.posted_at is not None
    assert stored.result == RESULT


def test_a_new_run_is_its_own_job_and_its_own_result(deps: Deps) -> None:
    incidents = deps.services.incidents
    iid = incidents.declare(title="run it again", severity=Severity.MAJOR, actor="U1").id
    assert incidents.request_triage(iid, actor="U2") == 2
    assert jobs_of(deps.db, iid)[-1] == f"incident.triage:{iid}:2"
    assert incidents.record_triage(iid, 2, RESULT.model_copy(update={"code": "INF_NCCL"}))
    latest = incidents.triage(iid)
    assert latest is not None and (latest.run, latest.result.code) == (2, "INF_NCCL")
    assert incidents.triage(iid, run=1) is None  # run 1 has not finished: the runs are apart


def test_a_resolved_incident_is_not_triaged_again(deps: Deps) -> None:
    """A new run reads the backends as of now, which after resolution is no longer the incident."""
    import pytest

    from bot.errors import InvalidTransitionError

    incidents = deps.services.incidents
    iid = incidents.declare(title="over", severity=Severity.MAJOR, actor="U1").id
    incidents.resolve(iid, reason="rolled back", actor="U1")
    with pytest.raises(InvalidTransitionError, match="already resolved"):
        incidents.request_triage(iid, actor="U2")
    assert incidents.get(iid).incident.triage_runs == 1


def test_a_run_queued_by_an_older_version_still_moves_the_counter(deps: Deps) -> None:
    """A job queued before runs were counted stores its run; the next request gets a new number."""
    incidents = deps.services.incidents
    iid = incidents.declare(title="legacy", severity=Severity.MAJOR, actor="U1").id
    assert incidents.record_triage(iid, 3, RESULT)  # as if runs 2 and 3 had been queued elsewhere
    assert incidents.request_triage(iid, actor="U2") == 4


def test_an_slo_generators_service_label_names_the_incidents_service(deps: Deps) -> None:
    body = json.dumps(
        webhook(
            [alert(labels={"sloth_service": "assist-chat", "sloth_slo": "requests-availability"})], group="g1"
        )
    ).encode()
    opened = deps.services.intake.ingest(parse_payload(body))
    assert opened.incident_id is not None
    assert deps.services.incidents.get(opened.incident_id).incident.service == "assist-chat"
