"""Two replicas of the bot on one PostgreSQL, each with its own engine pool, worker and Slack client.

Alertmanager in HA sends every notification from each of its peers, so both replicas get the same
notification at the same instant; clicks on one proposal arrive through both. Whatever the
interleaving, the store and the stand-ins must show one incident per alert group, one channel per
incident, one triage post per run and one Kubernetes write per approval. A PostgreSQL restarted in
the middle of a storm must make the webhook answer 503 (Alertmanager retries 5xx) and lose nothing.
"""

from __future__ import annotations

import copy
import hashlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from bot.clock import utc_now
from bot.config import BotConfig
from bot.deps import build_deps
from bot.sandbox.pack import Pack
from bot.sandbox.replay import replay_settings
from bot.sandbox.up import Sandbox
from bot.server import build_app
from bot.store.db import CONNECT_TIMEOUT_SECONDS, Database
from bot.store.models import AlertRow, IncidentRow, JobRow, TimelineEventRow
from tests.actions.conftest import (
    approval_config,
    click,
    kinds_on_timeline,
    pack_for,
    proposal_of,
    wait_state,
)
from tests.conftest import am_headers, api_headers, make_settings
from tests.slack.conftest import SlackBot
from tests.support.live import serve_in_thread
from tests.support.localpg import LocalPostgres

pytestmark = pytest.mark.postgres

KIND = "cordon_node"  # what the pack's triage proposes: one PATCH of a node per execution
GROUPS = 30
LEASE = timedelta(seconds=300)  # the default job lease
RESTART_GROUPS = 10
ALERTS = 5  # notifications per group, each with one more alert than the last
REFIRED = set(range(0, GROUPS, 3))  # groups whose first alert also resolves and fires again


@pytest.fixture(scope="module")
def pack() -> Pack:
    return pack_for(KIND)


@pytest.fixture(scope="module")
def sandbox(pack: Pack) -> Iterator[Sandbox]:
    with Sandbox(pack) as running:
        yield running


@contextmanager
def replicas(
    sandbox: Sandbox, database_url: str, config: BotConfig, *, slack: bool = True, count: int = 2
) -> Iterator[list[SlackBot]]:
    """`count` apps, each with its own `build_deps` (pool, worker threads, Slack client), each on its port."""
    own = make_settings(database_url, worker_threads=2).model_dump(
        include={"alertmanager_token", "api_token", "worker_threads", "worker_poll_seconds", "db_pool_size"}
    )
    assert sandbox.slack is not None
    slack_url = sandbox.urls["slack"].removesuffix("/api/")
    with ExitStack() as stack:
        bots = []
        for _ in range(count):
            deps = build_deps(replay_settings(sandbox, database_url, slack=slack, **own), config=config)
            stack.callback(deps.close)
            deps.db.upgrade()  # each replica migrates at start, as `serve` does
            url = stack.enter_context(serve_in_thread(build_app(deps)))
            bots.append(SlackBot(url=url, deps=deps, slack=sandbox.slack, slack_url=slack_url))
        yield bots


def fingerprint(group: int, index: int) -> str:
    return hashlib.sha256(f"storm-{group}-{index}".encode()).hexdigest()[:16]


def notification(pack: Pack, group: int, alerts: int, *, resolved: frozenset[int] = frozenset()) -> bytes:
    """The pack's notification as group `group` with its first `alerts` alerts (`resolved` ones resolved)."""
    body: dict[str, Any] = json.loads(pack.alert_body)
    template = body["alerts"][0]
    label = {"storm_group": f"g{group}"}
    items = []
    for index in range(alerts):
        item = copy.deepcopy(template)
        item["labels"].update(label, instance=f"10.0.{group}.{index}:8000")
        item["fingerprint"] = fingerprint(group, index)
        if index in resolved:
            item.update(status="resolved", endsAt="2026-06-02T03:40:00.000Z")
        items.append(item)
    body.update(
        alerts=items,
        status="firing" if any(a["status"] == "firing" for a in items) else "resolved",
        groupLabels=label,
        groupKey=f'{{}}/{{sloth_severity="page"}}:{{storm_group="g{group}"}}',
    )
    body["commonLabels"].update(label)
    return json.dumps(body).encode()


def storm(pack: Pack, group: int) -> list[bytes]:
    """A group's notifications in the order Alertmanager sends them."""
    bodies = [notification(pack, group, n) for n in range(1, ALERTS + 1)]
    if group in REFIRED:
        bodies += [notification(pack, group, ALERTS, resolved=frozenset({0})), bodies[-1]]
    return bodies


def post(client: httpx.Client, url: str, body: bytes) -> httpx.Response:
    return client.post(f"{url}/webhooks/alertmanager", content=body, headers=am_headers())


def send_everywhere(pack: Pack, urls: list[str]) -> list[int]:
    """Each group's notifications in order, each one to every replica at the same instant."""
    codes: list[int] = []
    with httpx.Client(timeout=30) as client, ThreadPoolExecutor(len(urls) * 8) as fan:

        def group(index: int) -> None:
            for body in storm(pack, index):
                answers = list(fan.map(post, [client] * len(urls), urls, [body] * len(urls)))
                codes.extend(a.status_code for a in answers)

        with ThreadPoolExecutor(8) as groups:
            list(groups.map(group, range(GROUPS)))
    return codes


def wait_jobs(db: Database, timeout: float, *, stranded_before: datetime | None = None) -> Counter[str]:
    """Wait until no job is running, due or retried (expiries wait for their time); the counts then.

    With `stranded_before`, a job still running on a claim made before then counts as `stranded`
    and is not waited for: its worker could not record the outcome while the database was away,
    so it runs again once its lease expires."""
    deadline = time.monotonic() + timeout
    while True:
        with db.reader() as session:
            rows = session.execute(
                select(JobRow.status, JobRow.run_after, JobRow.locked_until, JobRow.last_error)
            ).all()
        now = utc_now()
        counts: Counter[str] = Counter()
        for row in rows:
            claimed = row.locked_until - LEASE if row.locked_until else None
            stranded = row.status == "running" and stranded_before and claimed and claimed < stranded_before
            counts["stranded" if stranded else str(row.status)] += 1
            retried = row.last_error is not None  # a failed attempt waits out its backoff
            due = row.status == "queued" and (row.run_after <= now or retried)
            if not stranded and (row.status == "running" or due):
                counts["pending"] += 1
        if not counts["pending"]:
            return counts
        assert time.monotonic() < deadline, f"jobs still pending: {counts}"
        time.sleep(0.2)


def incidents_by_group(db: Database) -> dict[str, list[int]]:
    """Incident ids per `storm_group` label."""
    with db.reader() as session:
        rows = session.execute(select(IncidentRow.id, IncidentRow.labels)).all()
    found: dict[str, list[int]] = {}
    for row in rows:
        found.setdefault(str(row.labels.get("storm_group")), []).append(int(row.id))
    return found


def stored_fingerprints(db: Database) -> set[str]:
    with db.reader() as session:
        return set(session.scalars(select(AlertRow.fingerprint)))


def test_two_replicas_under_a_storm_and_concurrent_clicks_do_everything_once(
    sandbox: Sandbox, pack: Pack, postgres: LocalPostgres
) -> None:
    """30 groups x 5+ notifications, each to both replicas at once; then 8 clicks on one proposal."""
    with replicas(sandbox, postgres.create_database(), approval_config()) as (one, two):
        db = one.deps.db
        codes = send_everywhere(pack, [one.url, two.url])
        assert Counter(codes) == {200: len(codes)}
        groups = incidents_by_group(db)
        assert sorted(groups) == sorted(f"g{g}" for g in range(GROUPS))
        assert all(len(ids) == 1 for ids in groups.values()), groups
        expected = {fingerprint(g, i) for g in range(GROUPS) for i in range(ALERTS)}
        assert stored_fingerprints(db) == expected  # no alert lost, none doubled into another group
        with db.reader() as session:
            events = Counter(
                (int(row.incident_id), str(row.kind))
                for row in session.execute(select(TimelineEventRow.incident_id, TimelineEventRow.kind))
            )
        for g in range(GROUPS):
            [incident] = groups[f"g{g}"]
            changes = 1 if g in REFIRED else 0  # a repeat of a notification writes no event
            assert events[(incident, "alert_firing")] == ALERTS + changes, g
            assert events[(incident, "alert_resolved")] == changes, g

        counts = wait_jobs(db, timeout=90)
        assert counts["dead"] == 0, counts
        incident_ids = [ids[0] for ids in groups.values()]
        assert sandbox.slack is not None
        created = [c for c in sandbox.slack.calls_to("conversations.create") if c.error is None]
        posts = Counter(
            str(c.params["channel"])
            for c in sandbox.slack.calls_to("chat.postMessage")
            if c.error is None and not c.params.get("thread_ts")
        )
        names = Counter(str(c.params["name"]) for c in created)
        assert len(created) == len(incident_ids) and all(n == 1 for n in names.values()), names
        for incident in incident_ids:
            stored = one.deps.services.chat.channel(incident)
            assert stored is not None and names[stored.name] == 1
            channel = one.channel(incident)
            top = [m for m in channel.messages if not m.thread_ts]
            triage = one.deps.services.chat.message(incident, "triage", 1)
            assert triage is not None and one.deps.services.chat.message(incident, "triage", 2) is None
            assert len(top) == 2, [m.text[:60] for m in top]  # the announcement and the one run's triage
            assert triage.ts in {m.ts for m in top}
            assert posts[channel.id] == 2, posts[channel.id]  # nothing posted twice and deleted since

        incident = incident_ids[0]
        proposal = proposal_of(one, incident, KIND)
        node = proposal.action.target.split("/", 1)[1]
        gate = threading.Barrier(8)
        api_answers: list[int] = []
        urls: list[str] = []

        def by_api(bot: SlackBot) -> None:
            gate.wait()
            answer = httpx.post(
                f"{bot.url}/api/actions/{proposal.id}/approve",
                json={"actor": "carol@example.com"},
                headers=api_headers(),
                timeout=30,
            )
            api_answers.append(answer.status_code)

        def by_button(bot: SlackBot) -> None:
            gate.wait()
            urls.append(click(bot, incident, "approve-proposal", proposal.id, "U0BOB"))

        clickers = [
            threading.Thread(target=f, args=(b,)) for f in (by_api, by_button) for b in (one, two) * 2
        ]
        for thread in clickers:
            thread.start()
        for thread in clickers:
            thread.join()
        done = wait_state(one, proposal.id, {"done", "failed", "refused"})
        assert done.status == "done", done.outcome
        steps = kinds_on_timeline(one, incident, proposal.id)
        assert steps.count("action_approved") == 1 and steps.count("action_executed") == 1, steps
        assert sandbox.kubernetes is not None
        writes = [
            w for w in sandbox.kubernetes.writes if w.verb == "PATCH" and w.path.endswith(f"/nodes/{node}")
        ]
        assert [w.dry_run for w in writes].count(False) == 1, writes
        refused = [said for url in urls for said in one.replies(url, timeout=2) if "already handled" in said]
        assert api_answers.count(409) + len(refused) == 7, (api_answers, refused)
        assert set(api_answers) <= {200, 409} and api_answers.count(200) <= 1


@dataclass
class Answer:
    """One try of one notification, as the sender saw it."""

    notification: int
    fingerprints: frozenset[str]
    status: int  # 0: no HTTP answer (connection refused or timed out)
    seconds: float
    body: dict[str, Any]


@dataclass
class Sender:
    """Alertmanager: notifications in a loop, each retried on a 5xx or no answer until a replica says
    200; the groups of the second phase are new, so they open incidents after the restart."""

    pack: Pack
    urls: list[str]
    answers: list[Answer]
    stop: threading.Event
    second_phase: threading.Event
    delivered_late: int = 0  # notifications stored in the second phase

    def run(self) -> None:
        with httpx.Client(timeout=15) as client:
            sent = 0
            while not self.stop.is_set():
                group = 100 + sent % RESTART_GROUPS + (RESTART_GROUPS if self.second_phase.is_set() else 0)
                alerts = 1 + sent // RESTART_GROUPS % ALERTS
                body = notification(self.pack, group, alerts)
                prints = frozenset(fingerprint(group, i) for i in range(alerts))
                for attempt in range(400):
                    started = time.monotonic()
                    try:
                        reply = post(client, self.urls[(sent + attempt) % len(self.urls)], body)
                        status, data = reply.status_code, reply.json()
                    except httpx.TransportError as exc:
                        status, data = 0, {"error": type(exc).__name__}
                    self.answers.append(Answer(sent, prints, status, time.monotonic() - started, data))
                    if status == 200:
                        self.delivered_late += self.second_phase.is_set()
                        break
                    time.sleep(0.05)
                sent += 1


def triaged_by(db: Database) -> set[str]:
    """The workers that finished a triage job (their names are `<replica worker>/<thread>`)."""
    with db.reader() as session:
        rows = session.scalars(
            select(JobRow.locked_by).where(JobRow.kind == "incident.triage", JobRow.status == "done")
        )
        return {str(name).rsplit("/", 1)[0] for name in rows}


def test_a_postgresql_restart_mid_storm_answers_503_and_loses_nothing(sandbox: Sandbox, pack: Pack) -> None:
    """Fast stop, two seconds down, start on the same data directory: the replicas are not restarted."""
    with LocalPostgres(durable=True) as server:
        url = server.create_database()
        with replicas(sandbox, url, BotConfig(), slack=False) as bots:
            db = bots[0].deps.db
            sender = Sender(pack, [b.url for b in bots], [], threading.Event(), threading.Event())
            thread = threading.Thread(target=sender.run)
            thread.start()
            try:  # each replica has triaged before the restart, so each holds connections that it cuts
                deadline = time.monotonic() + 40
                while triaged_by(db) != {b.deps.worker.name for b in bots}:
                    assert time.monotonic() < deadline, triaged_by(db)
                    time.sleep(0.2)
                server.restart(down_seconds=2.0)
                recovered = utc_now()
                sender.second_phase.set()
                deadline = time.monotonic() + 30
                while sender.delivered_late < 2 * RESTART_GROUPS:  # each new group opened, and repeated
                    assert time.monotonic() < deadline, sender.delivered_late
                    time.sleep(0.1)
            finally:
                sender.stop.set()
                thread.join(60)
            assert not thread.is_alive()
            answers = sender.answers
            statuses = Counter(a.status for a in answers)
            assert set(statuses) <= {200, 503}, statuses  # never a 500, never a dropped connection
            assert statuses[503] > 0, statuses  # the outage was seen
            failed = [a for a in answers if a.status == 503]
            assert all("could not store the notification" in a.body["error"] for a in failed), failed[:3]
            assert max(a.seconds for a in answers) < 5, max(answers, key=lambda a: a.seconds)
            delivered = [a for a in answers if a.status == 200]
            numbers = {a.notification for a in delivered}
            assert numbers == set(range(max(numbers) + 1))  # each one was finally stored
            assert max(a.notification for a in failed) < max(numbers)  # and intake went on after
            groups = incidents_by_group(db)
            assert len(groups) == 2 * RESTART_GROUPS and all(len(ids) == 1 for ids in groups.values()), groups
            assert frozenset().union(*(a.fingerprints for a in delivered)) <= stored_fingerprints(db)
            # The workers went on after the restart: every job claimed since has finished.
            counts = wait_jobs(db, timeout=45, stranded_before=recovered)
            assert counts["dead"] == 0 and counts["done"] >= 2 * len(groups), counts
            assert counts["stranded"] == 0, counts  # an outcome the outage interrupted is recorded after it


def test_a_database_that_never_answers_fails_the_webhook_in_seconds() -> None:
    """A server that takes the TCP connection and then says nothing (a hung primary, a dead route
    behind a proxy): the connect timeout turns it into a 503 long before Alertmanager gives up."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # never accepted: the kernel completes the handshake, nobody ever answers
        url = f"postgresql://postgres@127.0.0.1:{silent.getsockname()[1]}/bot"
        deps = build_deps(make_settings(url, worker_threads=0), config=BotConfig())
        try:
            with (
                serve_in_thread(build_app(deps, run_worker=False)) as base,
                httpx.Client(timeout=30) as client,
            ):
                started = time.monotonic()
                answer = post(client, base, notification(pack_for(KIND), 0, 1))
                took = time.monotonic() - started
        finally:
            deps.close()
    assert answer.status_code == 503 and "could not store the notification" in answer.json()["error"]
    assert took < CONNECT_TIMEOUT_SECONDS + 3, took
