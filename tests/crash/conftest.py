"""A bot run as real `incident-bot serve` processes that are SIGKILLed at a chosen step and started again.

Each `CrashBot` has its own SQLite file and its own Slack, Kubernetes and OpenAI stand-ins (what
the stand-ins record is then that bot's alone); Prometheus and the logs are the shared sandbox's,
read-only. A `Tripwire` on a stand-in's per-request hook kills the process from the outside while
the request is in the stand-in: the change is made (a channel created, a write landed) but the bot
never reads the answer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlalchemy import select

from bot.config import Actions, BotConfig, Service
from bot.deps import Services, build_services
from bot.domain import ActionProposal, Incident, TimelineEvent
from bot.sandbox.gpuagents import agent_objects
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.openai import OpenAIStandIn, ScriptedReply
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn
from bot.sandbox.up import (
    OPENAI_KEY,
    OPENAI_MODEL,
    SLACK_GROUPS,
    SLACK_TOKEN,
    SLACK_USERS,
    Sandbox,
    pod_logs,
)
from bot.settings import Settings
from bot.store.db import Database, create_database
from bot.store.models import JobRow
from tests.conftest import ALERTMANAGER_TOKEN, API_TOKEN, am_headers, api_headers
from tests.slack.conftest import SERVICE, SURGE

APPROVER = "U0BOB"  # in the on-call group S0ONCALL
VERIFY_SECONDS = 5.0
LEASE_SECONDS = VERIFY_SECONDS + 60  # the shortest lease the bot accepts with that verify
HTTP_SECONDS = 60  # a bot starting up on a busy machine may take long to answer


@pytest.fixture(scope="module")
def pack() -> Pack:
    return load_pack(SURGE)


@pytest.fixture(scope="module")
def sandbox(pack: Pack) -> Iterator[Sandbox]:
    with Sandbox(pack) as running:
        yield running


class Tripwire:
    """Kills the bot's process the first time `matches` holds for a stand-in's request, then waits
    for it to be gone, so the answer being sent is never read."""

    def __init__(self, matches: Callable[..., bool]) -> None:
        self.matches = matches
        self.proc: subprocess.Popen[str] | None = None  # armed once set
        self.fired = threading.Event()

    def __call__(self, *request: Any) -> None:
        proc = self.proc
        if proc is None or self.fired.is_set() or not self.matches(*request):
            return
        self.fired.set()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)


@dataclass
class CrashBot:
    """One bot's database, stand-ins and (current) process."""

    folder: Path
    env: dict[str, str]
    slack: SlackStandIn
    kube: KubernetesStandIn
    openai: OpenAIStandIn
    alert_body: bytes
    proc: subprocess.Popen[str] | None = None
    url: str = ""
    starts: int = 0
    services: Services | None = None
    db: Database | None = None
    _log: Any = None
    steps: list[tuple[float, str]] = field(default_factory=list)
    t0: float = field(default_factory=time.monotonic)
    _servers: list[ServerThread] = field(default_factory=list)

    # -- the process ---------------------------------------------------------------------------
    def start(self, *, worker_threads: int = 1, tripwire: Tripwire | None = None) -> None:
        """`incident-bot serve` on a free port; `tripwire`, already on a stand-in's hook, is armed with it."""
        assert self.proc is None or self.proc.poll() is not None, "the previous process still runs"
        self._close_files()
        self.starts += 1
        self._log = open(self.folder / f"serve-{self.starts}.log", "w")  # noqa: SIM115 (closed in stop)
        env = {**self.env, "WORKER_THREADS": str(worker_threads)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve", "--port", "0"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        if tripwire is not None:
            tripwire.proc = self.proc
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        assert first.startswith("incident-bot listening on http://"), first + self.log()
        self.url = first.split()[3]
        self.note(f"process {self.starts} serving")

    def killed(self, tripwire: Tripwire, timeout: float = 90) -> None:
        """Wait until the tripwire has killed the process."""
        assert tripwire.fired.wait(timeout), f"the bot was never stopped at its step:\n{self.log()}"
        assert self.proc is not None and tripwire.proc is self.proc
        assert self.proc.wait(10) == -signal.SIGKILL
        self.note("killed by the tripwire")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        assert self.proc.wait(10) == -signal.SIGKILL

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._close_files()

    def _close_files(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def note(self, what: str) -> None:
        """A milestone, at seconds since the bot was made, for the failure messages."""
        self.steps.append((round(time.monotonic() - self.t0, 1), what))

    def log(self) -> str:
        logs = sorted(self.folder.glob("serve-*.log"))
        return "\n".join(f"--- {p.name}\n{p.read_text()[-6000:]}" for p in logs)

    # -- talking to it -------------------------------------------------------------------------
    def alert(self, body: bytes) -> int:
        answer = httpx.post(
            f"{self.url}/webhooks/alertmanager", content=body, headers=am_headers(), timeout=HTTP_SECONDS
        )
        assert answer.status_code == 200, answer.text
        return int(answer.json()["incident_id"])

    def approve(self, proposal_id: int) -> None:
        answer = httpx.post(
            f"{self.url}/api/actions/{proposal_id}/approve",
            json={"actor": APPROVER},
            headers=api_headers(),
            timeout=HTTP_SECONDS,
        )
        assert answer.status_code == 200, answer.text

    # -- reading what it stored (a second client on its database) -----------------------------
    @property
    def store(self) -> Services:
        if self.services is None:
            self.db = create_database(self.env["DATABASE_URL"], pool_size=2)
            self.services = build_services(Settings(database_url=self.env["DATABASE_URL"]), db=self.db)
        return self.services

    def timeline(self, incident_id: int) -> list[TimelineEvent]:
        return self.store.incidents.get(incident_id).timeline

    def kinds(self, incident_id: int) -> list[str]:
        return [e.kind.value for e in self.timeline(incident_id)]

    def incident(self, incident_id: int) -> Incident:
        return self.store.incidents.get(incident_id).incident

    def proposals(self, incident_id: int) -> list[ActionProposal]:
        return self.store.actions.list(incident_id)

    def jobs(self) -> list[tuple[str, str, int]]:
        """(kind, status, attempts) of every job, oldest first."""
        self.store  # noqa: B018 (opens the database)
        assert self.db is not None
        with self.db.reader() as session:
            rows = session.execute(select(JobRow.kind, JobRow.status, JobRow.attempts).order_by(JobRow.id))
            return [(r.kind, r.status, int(r.attempts)) for r in rows]

    def until(self, check: Callable[[], bool], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, (
                f"{what} not reached in {timeout:g} s; steps {self.steps}; jobs {self.jobs()}\n{self.log()}"
            )
            time.sleep(0.1)
        self.note(what)

    def close(self) -> None:
        self.stop()
        if self.db is not None:
            self.db.dispose()
        for server in reversed(self._servers):
            server.stop()
        self.kube.close()


def crash_bot(sandbox: Sandbox, folder: Path, *, llm_script: list[ScriptedReply] | None = None) -> CrashBot:
    """A bot wired to the sandbox's metrics and logs and to stand-ins of its own."""
    pack = sandbox.pack
    as_of = pack.meta.as_of
    slack = SlackStandIn(token=SLACK_TOKEN, users=SLACK_USERS, usergroups=SLACK_GROUPS)
    kube = KubernetesStandIn(
        [*pack.objects, *agent_objects(sandbox.gpu_agents, as_of=as_of)],
        pod_logs=pod_logs(pack.logs),
        now=lambda: as_of,
    )
    openai = OpenAIStandIn(llm_script or [], api_key=OPENAI_KEY, model=OPENAI_MODEL)
    servers = [
        ServerThread(app, name=f"crash-{n}").start()
        for n, app in (("slack", slack.app), ("kube", kube.app), ("llm", openai.app))
    ]
    config = BotConfig(
        services=[Service(name=SERVICE, responders=["U0ANA"])],
        approvers=[APPROVER],
        actions=Actions(verify_seconds=VERIFY_SECONDS),
    )
    config_file = folder / "incident-bot.yaml"
    config_file.write_text(yaml.safe_dump(config.model_dump(mode="json", exclude_defaults=True)))
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "KUBE", "OPENAI_", "DATABASE_"))
    }
    env.update({k: v for k, v in sandbox.env.items() if not k.startswith(("SLACK_", "KUBE", "OPENAI_"))})
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'bot.db'}",
        INCIDENT_BOT_CONFIG=str(config_file),
        ALERTMANAGER_TOKEN=ALERTMANAGER_TOKEN,
        API_TOKEN=API_TOKEN,
        SLACK_API_URL=servers[0].url + "/api/",
        SLACK_BOT_TOKEN=SLACK_TOKEN,
        SLACK_SIGNING_SECRET="crash-signing-secret",
        KUBERNETES_API_URL=servers[1].url,
        KUBERNETES_NAMESPACE=pack.meta.namespace,
        KUBERNETES_IN_CLUSTER="false",
        WORKER_POLL_SECONDS="0.1",
        JOB_LEASE_SECONDS=str(LEASE_SECONDS),
        LOG_LEVEL="INFO",
    )
    if llm_script is not None:
        env.update(
            OPENAI_BASE_URL=servers[2].url + "/v1", OPENAI_API_KEY=OPENAI_KEY, OPENAI_MODEL=OPENAI_MODEL
        )
    return CrashBot(
        folder=folder,
        env=env,
        slack=slack,
        kube=kube,
        openai=openai,
        alert_body=pack.alert_body,
        _servers=servers,
    )
