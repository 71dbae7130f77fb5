"""The `incident-bot` command line, run as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bot.alertmanager import parse_payload
from bot.deps import build_deps
from bot.settings import Settings
from tests.support.live import serve_process
from tests.support.payloads import alert, webhook


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def env(database_url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url, "ALERTMANAGER_TOKEN": "", "API_TOKEN": ""}


@pytest.fixture
def served(env: dict[str, str]) -> Iterator[str]:
    with serve_process(env) as url:
        yield url


def test_serve_then_list_and_show(served: str, env: dict[str, str]) -> None:
    a = alert(labels={"service": "llama-chat", "namespace": "llm-serving"}, annotations={"value": "0.2"})
    answer = httpx.post(f"{served}/webhooks/alertmanager", content=json.dumps(webhook([a])), timeout=10)
    assert answer.status_code == 200
    iid = answer.json()["incident_id"]
    listed = run(env, "incidents", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [i["id"] for i in json.loads(listed.stdout)] == [iid]
    table = run(env, "incidents", "list").stdout
    assert "llama-chat" in table and "open" in table
    shown = json.loads(run(env, "incidents", "show", str(iid), "--json").stdout)
    assert shown["incident"]["value"] == "0.2" and shown["alerts"][0]["fingerprint"] == a["fingerprint"]
    text = run(env, "incidents", "show", str(iid)).stdout
    assert "query      slo:sli_error:ratio_rate5m" in text


def test_lifecycle_commands(env: dict[str, str]) -> None:
    assert run(env, "db", "upgrade").returncode == 0
    assert (
        run(env, "incidents", "declare", "GPU fell off the bus", "--actor", "U1").stdout.strip()
        == "incident 1 opened"
    )
    for args in (
        ["ack", "1"],
        ["severity", "1", "critical"],
        ["tag", "1", "infrastructure"],
        ["note", "1", "Xid 79 on gpu-node-3"],
        ["triage", "1"],
        ["resolve", "1", "--reason", "node drained"],
    ):
        result = run(env, "incidents", *args, "--actor", "U2")
        assert result.returncode == 0, (args, result.stderr)
    shown = json.loads(run(env, "incidents", "show", "1", "--json").stdout)
    assert [e["kind"] for e in shown["timeline"]] == [
        "opened",
        "acknowledged",
        "severity_changed",
        "category_tagged",
        "note",
        "triage_requested",
        "resolved",
    ]
    assert shown["incident"]["triage_runs"] == 2  # run 1 queued at declaration, run 2 asked for
    again = run(env, "incidents", "resolve", "1", "--reason", "x", "--actor", "U2")
    assert again.returncode == 5 and "already resolved" in again.stderr  # InvalidTransitionError
    missing = run(env, "incidents", "show", "42")
    assert missing.returncode == 3 and "incident 42 does not exist" in missing.stderr  # NotFoundError


def test_an_uninitialised_database_says_what_to_run(env: dict[str, str]) -> None:
    for args in (["incidents", "list"], ["incidents", "show", "1"]):
        result = run(env, *args)
        assert result.returncode == 7, result.stderr  # StoreError
        assert "has no incident-bot tables yet: run `incident-bot db upgrade`" in result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_db_upgrade_is_idempotent(env: dict[str, str], tmp_path: Path) -> None:
    for _ in range(2):
        result = run(env, "db", "upgrade")
        assert result.returncode == 0 and "head" in result.stdout


def test_worker_process_drains_the_shared_queue(env: dict[str, str]) -> None:
    """A separate `incident-bot worker` replica runs the announcement queued by another process."""
    assert run(env, "db", "upgrade").returncode == 0
    deps = build_deps(Settings(database_url=env["DATABASE_URL"], worker_threads=0))
    result = deps.services.intake.ingest(parse_payload(json.dumps(webhook([alert()])).encode()))
    assert result.incident_id is not None
    worker_env = {**env, "WORKER_POLL_SECONDS": "0.1"}
    with subprocess.Popen(
        [sys.executable, "-m", "bot", "worker"],
        env=worker_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            deadline = time.monotonic() + 20
            while not any(
                e.kind == "announced" for e in deps.services.incidents.get(result.incident_id).timeline
            ):
                assert time.monotonic() < deadline, "the worker replica did not run the job"
                time.sleep(0.1)
        finally:
            proc.terminate()
            assert proc.wait(20) == 0
            assert proc.stdout is not None and proc.stderr is not None
            assert "worker" in proc.stdout.read()
            proc.stderr.read()
    deps.close()


def test_a_replica_refuses_a_schema_older_than_its_version(env: dict[str, str]) -> None:
    """A worker never migrates: on a database one migration behind it says so and exits, instead of
    failing every job on a missing column."""
    assert run(env, "db", "upgrade", "0001").returncode == 0
    worker = run(env, "worker")
    assert worker.returncode == 7, worker.stderr
    assert "is at schema revision 0001, this version needs" in worker.stderr
    assert "run `incident-bot db upgrade`" in worker.stderr
    listed = run(env, "incidents", "list")
    assert listed.returncode == 7 and "has an older schema than this version" in listed.stderr
    assert run(env, "db", "upgrade").returncode == 0 and run(env, "incidents", "list").returncode == 0
