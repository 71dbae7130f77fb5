"""The database job queue: exactly-once under concurrent workers, retries, leases, dedup."""

from __future__ import annotations

import itertools
import json
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from bot import jobs
from bot.deps import Deps
from bot.store.models import JobRow
from bot.worker import Worker

T0 = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)


def test_concurrent_workers_run_each_job_exactly_once(deps: Deps) -> None:
    with deps.db.transaction() as session:
        for n in range(120):
            jobs.enqueue(session, kind="count", payload={"n": n}, now=T0)
    seen: Counter[int] = Counter()
    lock = threading.Lock()

    def handler(job: jobs.Job) -> None:
        with lock:
            seen[job.payload["n"]] += 1

    clock = lambda: T0 + timedelta(seconds=1)  # noqa: E731
    workers = [Worker(deps.db, {"count": handler}, clock=clock, name=f"w{i}") for i in range(4)]
    threads = [threading.Thread(target=w.drain) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == list(range(120))
    assert set(seen.values()) == {1}
    with deps.db.reader() as session:
        assert jobs.depth(session) == {"queued": 0, "running": 0, "done": 120, "dead": 0}


def test_failures_retry_with_backoff_then_go_dead(deps: Deps) -> None:
    now = [T0]
    calls: list[int] = []

    def flaky(job: jobs.Job) -> None:
        calls.append(job.attempts)
        raise RuntimeError("slack is down")

    worker = Worker(deps.db, {"flaky": flaky}, clock=lambda: now[0])
    with deps.db.transaction() as session:
        jobs.enqueue(session, kind="flaky", payload={}, now=T0, max_attempts=3)
    assert worker.run_once() is True
    assert worker.run_once() is False  # backing off: not due yet
    now[0] = T0 + timedelta(seconds=3)
    assert worker.run_once() is True
    now[0] = T0 + timedelta(seconds=60)
    assert worker.run_once() is True
    now[0] = T0 + timedelta(hours=1)
    assert worker.run_once() is False
    assert calls == [1, 2, 3]
    with deps.db.reader() as session:
        row = session.scalars(select(JobRow)).one()
    assert row.status == "dead" and row.attempts == 3
    assert row.last_error == "RuntimeError: slack is down"


def test_unknown_kind_fails_instead_of_crashing_the_worker(deps: Deps) -> None:
    worker = Worker(deps.db, {}, clock=lambda: T0)
    with deps.db.transaction() as session:
        jobs.enqueue(session, kind="mystery", payload={}, now=T0, max_attempts=1)
    assert worker.run_once() is True
    with deps.db.reader() as session:
        row = session.scalars(select(JobRow)).one()
    assert row.status == "dead" and "no handler" in (row.last_error or "")


def test_expired_lease_is_reclaimed_and_the_late_worker_is_fenced(deps: Deps) -> None:
    lease = timedelta(seconds=30)
    with deps.db.transaction() as session:
        jobs.enqueue(session, kind="k", payload={}, now=T0)
    with deps.db.transaction() as session:
        crashed = jobs.claim(session, worker_id="dead-worker", now=T0, lease=lease)
    assert crashed is not None
    with deps.db.transaction() as session:
        assert jobs.claim(session, worker_id="other", now=T0 + timedelta(seconds=10), lease=lease) is None
    with deps.db.transaction() as session:
        rescued = jobs.claim(session, worker_id="other", now=T0 + timedelta(seconds=31), lease=lease)
    assert rescued is not None and rescued.id == crashed.id and rescued.attempts == 2
    with deps.db.transaction() as session:
        assert jobs.complete(session, job=crashed, worker_id="dead-worker", now=T0) is False
        assert jobs.complete(session, job=rescued, worker_id="other", now=T0) is True


def test_dedup_key_enqueues_once(deps: Deps) -> None:
    with deps.db.transaction() as session:
        assert jobs.enqueue(session, kind="k", payload={}, now=T0, dedup_key="announce:1") is True
        assert jobs.enqueue(session, kind="k", payload={}, now=T0, dedup_key="announce:1") is False
        assert jobs.enqueue(session, kind="k", payload={}, now=T0, dedup_key=None) is True
        assert jobs.enqueue(session, kind="k", payload={}, now=T0, dedup_key=None) is True
    with deps.db.reader() as session:
        assert jobs.depth(session)["queued"] == 3


def test_a_post_to_slack_outlasts_an_hour_of_outage_without_hot_looping(deps: Deps) -> None:
    """The announcement of a new incident, with Slack down, is tried again and again, further and further
    apart but never more than five minutes, for about an hour before it is dead; other jobs keep the
    short budget (5)."""
    from bot.alertmanager import parse_payload
    from tests.support.payloads import alert, webhook

    opened = deps.services.intake.ingest(parse_payload(json.dumps(webhook([alert()])).encode()))
    assert opened.incident_id is not None
    with deps.db.reader() as session:
        announce = session.scalars(select(JobRow).where(JobRow.kind == jobs.JobKind.ANNOUNCE.value)).one()
        triage = session.scalars(select(JobRow).where(JobRow.kind == jobs.JobKind.TRIAGE.value)).one()
    assert announce.max_attempts == 18 and triage.max_attempts == deps.settings.job_max_attempts == 5
    now = [announce.run_after.replace(tzinfo=UTC)]
    tried: list[datetime] = []

    def slack_down(job: jobs.Job) -> None:
        tried.append(now[0])
        raise RuntimeError("conversations.create: Slack unreachable")

    handlers = {jobs.JobKind.ANNOUNCE.value: slack_down, jobs.JobKind.TRIAGE.value: lambda job: None}
    worker = Worker(deps.db, handlers, clock=lambda: now[0])
    assert worker.run_once() is True  # the triage, which does not wait for Slack
    while True:
        assert worker.run_once() is True
        with deps.db.reader() as session:
            row = session.get(JobRow, announce.id)
            assert row is not None
        if row.status == "dead":
            break
        assert worker.run_once() is False  # not before its time
        now[0] = row.run_after.replace(tzinfo=UTC)
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(tried)]
    assert len(tried) == deps.settings.chat_job_max_attempts == 18
    assert gaps == sorted(gaps) and gaps[0] >= 2 and max(gaps) == 300
    assert 50 * 60 <= (tried[-1] - tried[0]).total_seconds() <= 70 * 60
