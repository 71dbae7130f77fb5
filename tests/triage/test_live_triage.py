"""The bot end to end: Alertmanager webhook → incident → worker triage against the backends (a pack
served by the sandbox) → triage row, proposals, timeline and post, checkpointed in the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select, text

from bot.config import BotConfig
from bot.deps import build_deps
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.replay import replay_settings
from bot.sandbox.up import Sandbox
from bot.server import build_app
from bot.store.models import ActionProposalRow, TriageRow
from tests.conftest import ROOT, am_headers, api_headers, make_settings
from tests.support.live import serve_in_thread
from tests.support.stored import stored_request

EXAMPLE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"
DEPLOYMENT = "deployment/vllm-llama31-8b-support"


@pytest.fixture(scope="module")
def pack() -> Pack:
    return load_pack(EXAMPLE)


@pytest.fixture(scope="module")
def sandbox(pack: Pack) -> Iterator[Sandbox]:
    with Sandbox(pack) as running:
        yield running


def wait_for_kind(client: httpx.Client, incident_id: int, kind: str) -> list[dict[str, object]]:
    deadline = time.monotonic() + 60
    while True:
        timeline = client.get(f"/api/incidents/{incident_id}", headers=api_headers()).json()["timeline"]
        if any(e["kind"] == kind for e in timeline):
            return list(timeline)
        assert time.monotonic() < deadline, f"no {kind} event on the timeline"
        time.sleep(0.1)


def test_webhook_to_stored_and_posted_triage(database_url: str, sandbox: Sandbox, pack: Pack) -> None:
    env = sandbox.env
    settings = make_settings(
        database_url,
        prometheus_url=env["PROMETHEUS_URL"],
        elasticsearch_url=env["ELASTICSEARCH_URL"],
        logs_index=env["LOGS_INDEX"],
        kubernetes_api_url=env["KUBERNETES_API_URL"],
        triage_as_of=pack.meta.as_of,
        worker_threads=2,
    )
    deps = build_deps(settings, config=BotConfig())
    deps.db.upgrade()
    with serve_in_thread(build_app(deps)) as url, httpx.Client(base_url=url, timeout=10) as client:
        opened = client.post("/webhooks/alertmanager", content=pack.alert_body, headers=am_headers()).json()
        incident_id = opened["incident_id"]
        timeline = wait_for_kind(client, incident_id, "triage_posted")
        detail = client.get(f"/api/incidents/{incident_id}", headers=api_headers()).json()
    kinds = [e["kind"] for e in timeline]
    # The triage is posted only once both it and its announcement exist, whichever finished first.
    assert kinds.index("triage_posted") > max(kinds.index("announced"), kinds.index("triaged"))
    triaged = next(e for e in timeline if e["kind"] == "triaged")
    assert "inference_engine / ENG_KV_CACHE" in str(triaged["text"])
    assert f"first move: add_replica {DEPLOYMENT}" in str(triaged["text"])
    assert (
        detail["triage"]["code"] == "ENG_KV_CACHE" and detail["triage"]["incident"]["severity"] == "critical"
    )
    assert detail["incident"]["triage_runs"] == 1 and detail["incident"]["announced_at"]
    with deps.db.reader() as session:
        row = session.scalars(select(TriageRow)).one()
        proposals = session.scalars(select(ActionProposalRow).order_by(ActionProposalRow.position)).all()
        checkpoints = session.execute(text("SELECT count(*) FROM checkpoints")).scalar_one()
    assert (row.run, row.code) == (1, "ENG_KV_CACHE") and row.posted_at is not None
    assert row.result["runbook"] == "runbooks/kv-cache-exhaustion.md"
    assert next((p.kind, p.target, p.status) for p in proposals) == ("add_replica", DEPLOYMENT, "proposed")
    assert checkpoints > 0  # the graph's state lives in the bot's own database
    deps.close()
    shown = subprocess.run(
        [sys.executable, "-m", "bot", "incidents", "show", str(incident_id), "--json"],
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=60,
    )
    stored = json.loads(shown.stdout)["triage"]  # the triage result JSON of the scenario-pack contract
    assert stored == row.result and {"incident", "category", "code", "actions", "runbook", "engine"} <= set(
        stored
    )


def test_no_backends_still_posts_a_triage_with_named_gaps(database_url: str) -> None:
    """Nothing configured: the triage is UNATTRIBUTED, says what it could not see, and is stored."""
    deps = build_deps(make_settings(database_url, worker_threads=1), config=BotConfig())
    deps.db.upgrade()
    with serve_in_thread(build_app(deps)) as url, httpx.Client(base_url=url, timeout=10) as client:
        body = (EXAMPLE / "alert.json").read_bytes()
        incident_id = client.post("/webhooks/alertmanager", content=body, headers=am_headers()).json()[
            "incident_id"
        ]
        wait_for_kind(client, incident_id, "triaged")
    with deps.db.reader() as session:
        row = session.scalars(select(TriageRow)).one()
    assert row.code == "UNATTRIBUTED" and row.layer is None and row.result["actions"] == []
    gaps = row.result["gaps"]
    assert "prometheus: evidence: not configured (set PROMETHEUS_URL)" in gaps
    assert any(g.startswith("kubernetes: topology: not configured") for g in gaps)
    deps.close()


def test_an_interrupted_triage_resumes_from_its_checkpoint(
    database_url: str, sandbox: Sandbox, pack: Pack, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Stopped after gathering (as a worker that died would be), the run resumes from the store's
    checkpoint: the backends are not asked again, and the result is the full triage."""
    from bot.triage.checkpoints import checkpointer_for
    from bot.triage.graph import TriageDeps, build_graph, run

    deps = build_deps(replay_settings(sandbox, database_url), config=BotConfig())
    deps.db.upgrade()
    saver = checkpointer_for(deps.db)
    triage = TriageDeps(backends=deps.engine.backends, knowledge=deps.knowledge)
    request = stored_request(pack, tmp_path)
    assert sandbox.elasticsearch is not None
    paused = build_graph(triage, checkpointer=saver, pause_after=["gather"])
    with pytest.raises(RuntimeError, match="paused before its report"):
        run(paused, request)
    searches = len(sandbox.elasticsearch.requests)
    resumed = run(build_graph(triage, checkpointer=saver), request)
    assert len(sandbox.elasticsearch.requests) == searches  # gather was not run again
    assert resumed.code == "ENG_KV_CACHE" and resumed.actions
    again = run(build_graph(triage, checkpointer=saver), request)
    assert again == resumed and len(sandbox.elasticsearch.requests) == searches
    rerun = run(build_graph(triage, checkpointer=saver), replace(request, run=2))
    assert (
        rerun.code == resumed.code and len(sandbox.elasticsearch.requests) > searches
    )  # a new run asks anew
    # Every type the state holds is one the serializer was told about: nothing warned, nothing blocked.
    assert not [r for r in caplog.records if "msgpack" in r.getMessage()]
    getattr(saver, "conn").close()  # noqa: B009
    deps.close()
