"""The database job queue: exactly-once under concurrent workers, retries, leases, dedup."""

from __future__ import annotations

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
