"""Worker threads that drain the database job queue.

Any number of threads, processes or replicas may run workers on the same database: claiming
is atomic (see bot.jobs). Handlers must be idempotent, since a job whose worker died is retried.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import TypeVar

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from bot import jobs
from bot.clock import Clock, utc_now
from bot.store.db import Database

log = logging.getLogger(__name__)

Handler = Callable[[jobs.Job], None]
T = TypeVar("T")


class UnknownJobError(Exception):
    """No handler is registered for the job's kind."""


class Deferred(Exception):
    """Raised by a handler whose job must wait (what it needs is busy): retried later, no attempt spent."""

    def __init__(self, why: str, seconds: float = 2.0) -> None:
        super().__init__(why)
        self.why = why
        self.seconds = seconds


class Worker:
    """Claims and runs jobs until stopped; `wake()` cuts the poll wait short."""

    def __init__(
        self,
        db: Database,
        handlers: Mapping[str, Handler],
        *,
        clock: Clock = utc_now,
        threads: int = 1,
        poll_seconds: float = 1.0,
        lease_seconds: float = 300.0,
        name: str | None = None,
    ) -> None:
        self._db = db
        self._handlers = dict(handlers)
        self._clock = clock
        self._threads_wanted = threads
        self._poll = poll_seconds
        self._lease = timedelta(seconds=lease_seconds)
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self._stop = threading.Event()
        self._wake = threading.Condition()
        self._pending_wake = False
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for index in range(self._threads_wanted):
            thread = threading.Thread(
                target=self._loop, args=(f"{self.name}/{index}",), name=f"worker-{index}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop claiming; wait up to `timeout` in all for running jobs (a job left running is
        retried elsewhere once its lease expires)."""
        self._stop.set()
        self.wake()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads.clear()

    def wake(self) -> None:
        with self._wake:
            self._pending_wake = True
            self._wake.notify_all()

    def run_once(self, worker_id: str | None = None) -> bool:
        """Claim and run one job; False when none was due."""
        worker_id = worker_id or self.name
        with self._db.transaction() as session:
            job = jobs.claim(session, worker_id=worker_id, now=self._clock(), lease=self._lease)
        if job is None:
            return False
        try:
            handler = self._handlers.get(job.kind)
            if handler is None:
                raise UnknownJobError(f"no handler for job kind {job.kind!r}")
            handler(job)
        except Deferred as wait:
            seconds, why = wait.seconds, wait.why
            self._settle(
                job,
                lambda session: jobs.defer(
                    session, job=job, worker_id=worker_id, now=self._clock(), seconds=seconds, why=why
                ),
            )
            log.info("job %s (%s) deferred %.1f s: %s", job.id, job.kind, wait.seconds, wait.why)
        except Exception as exc:  # a failing job must never kill the worker
            error = f"{type(exc).__name__}: {exc}"
            status = self._settle(
                job,
                lambda session: jobs.fail(
                    session, job=job, worker_id=worker_id, now=self._clock(), error=error
                ),
            )
            log.warning(
                "job %s (%s) attempt %d failed, now %s: %s",
                job.id,
                job.kind,
                job.attempts,
                status,
                exc,
                exc_info=not isinstance(exc, UnknownJobError),
            )
        else:
            if not self._settle(
                job, lambda session: jobs.complete(session, job=job, worker_id=worker_id, now=self._clock())
            ):
                log.warning("job %s finished after its lease passed to another worker", job.id)
        return True

    def _settle(self, job: jobs.Job, write: Callable[[Session], T]) -> T:
        """Record a job's outcome, waiting out a database that went away meanwhile (restarted, failed
        over): left unrecorded, the job would sit running until its lease ran out. Given up only when
        the worker stops, which leaves the job to its lease as before."""
        pause = 0.2
        while True:
            try:
                with self._db.transaction() as session:
                    return write(session)
            except SQLAlchemyError as exc:
                if self._stop.is_set():
                    raise
                log.warning("job %s outcome not recorded yet, retrying in %.1f s: %s", job.id, pause, exc)
                self._stop.wait(pause)
                pause = min(5.0, pause * 2)

    def drain(self, timeout: float = 30.0) -> int:
        """Run due jobs in this thread until none is left (for the CLI and tests)."""
        deadline = time.monotonic() + timeout
        done = 0
        while time.monotonic() < deadline and self.run_once():
            done += 1
        return done

    def _loop(self, worker_id: str) -> None:
        while not self._stop.is_set():
            try:
                worked = self.run_once(worker_id)
            except Exception:  # database down: keep trying, the readiness probe reports it
                log.exception("worker %s could not reach the job queue", worker_id)
                worked = False
            if worked:
                continue
            with self._wake:
                if not self._pending_wake:
                    self._wake.wait(self._poll)
                self._pending_wake = False
