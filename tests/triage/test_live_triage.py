"""The bot end to end: Alertmanager webhook → incident → worker triage against the backends
(the example pack served by the sandbox) → triage row, proposals and timeline, checkpointed in the store."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select, text

from bot.app import build_deps
from bot.config import BotConfig
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.up import Sandbox
from bot.server import build_app
from bot.store.models import ActionProposalRow, TriageRow
from tests.conftest import SHARED, am_headers, api_headers, make_settings
from tests.support.live import serve_in_thread

EXAMPLE = SHARED / "examples" / "kv-cache-exhaustion-after-deploy"


@pytest.fixture(scope="module")
def pack() -> Pack:
    return load_pack(EXAMPLE)


@pytest.fixture(scope="module")
def sandbox(pack: Pack) -> Iterator[Sandbox]:
    with Sandbox(pack) as running:
        yield running


def test_webhook_to_stored_triage(database_url: str, sandbox: Sandbox, pack: Pack) -> None:
    env = sandbox.env
    settings = make_settings(
        database_url,
        prometheus_url=env["PROMETHEUS_URL"],
        elasticsearch_url=env["ELASTICSEARCH_URL"],
        logs_index=env["LOGS_INDEX"],
        kubernetes_api_url=env["KUBERNETES_API_URL"],
        worker_threads=2,
    )
    deps = build_deps(settings, config=BotConfig(), clock=lambda: pack.meta.as_of)
    deps.db.upgrade()
    with serve_in_thread(build_app(deps)) as url, httpx.Client(base_url=url, timeout=10) as client:
        opened = client.post("/webhooks/alertmanager", content=pack.alert_body, headers=am_headers()).json()
        incident_id = opened["incident_id"]
        deadline = time.monotonic() + 60
        while True:
            timeline = client.get(f"/api/incidents/{incident_id}", headers=api_headers()).json()["timeline"]
            triaged = [e for e in timeline if e["kind"] == "triaged"]
            if triaged:
                break
            assert time.monotonic() < deadline, "the worker did not triage the incident"
            time.sleep(0.2)
    assert "inference_engine / ENG_KV_CACHE" in triaged[0]["text"]
    assert "first move: rollback_deployment deployment/vllm-llama" in triaged[0]["text"]
    with deps.db.reader() as session:
        row = session.scalars(select(TriageRow)).one()
        proposals = session.scalars(select(ActionProposalRow).order_by(ActionProposalRow.position)).all()
        checkpoints = session.execute(text("SELECT count(*) FROM checkpoints")).scalar_one()
    assert row.code == "ENG_KV_CACHE" and row.result["runbook"] == "runbooks/kv-cache-exhaustion.md"
    assert next((p.kind, p.target, p.status) for p in proposals) == (
        "rollback_deployment",
        "deployment/vllm-llama",
        "proposed",
    )
    assert checkpoints > 0  # the graph's state lives in the bot's own database
    assert json.dumps(row.result)  # stored as JSON
    deps.close()


def test_no_backends_still_posts_a_triage_with_named_gaps(database_url: str) -> None:
    """Nothing configured: the triage is UNATTRIBUTED, says what it could not see, and is stored."""
    deps = build_deps(make_settings(database_url, worker_threads=1), config=BotConfig())
    deps.db.upgrade()
    with serve_in_thread(build_app(deps)) as url, httpx.Client(base_url=url, timeout=10) as client:
        body = (EXAMPLE / "alert.json").read_bytes()
        incident_id = client.post("/webhooks/alertmanager", content=body, headers=am_headers()).json()[
            "incident_id"
        ]
        deadline = time.monotonic() + 60
        while not any(
            e["kind"] == "triaged"
            for e in client.get(f"/api/incidents/{incident_id}", headers=api_headers()).json()["timeline"]
        ):
            assert time.monotonic() < deadline, "no triage was stored"
            time.sleep(0.2)
    with deps.db.reader() as session:
        row = session.scalars(select(TriageRow)).one()
    assert row.code == "UNATTRIBUTED" and row.layer is None and row.result["actions"] == []
    gaps = row.result["gaps"]
    assert "prometheus: evidence: not configured (set PROMETHEUS_URL)" in gaps
    assert any(g.startswith("kubernetes: topology: not configured") for g in gaps)
    deps.close()


def test_an_interrupted_triage_resumes_from_its_checkpoint(
    database_url: str, sandbox: Sandbox, pack: Pack
) -> None:
    """Stopped after gathering (as a worker that died would be), the triage resumes from the store's
    checkpoint: the backends are not asked again, and the result is the full triage."""
    from bot.triage.graph import TriageDeps, TriageState, build_graph, run
    from bot.triage.live import checkpointer_for
    from bot.triage.service import Knowledge, sandbox_backends
    from bot.triage.taxonomy import meaning

    settings = make_settings(database_url)
    deps = build_deps(settings, config=BotConfig())
    deps.db.upgrade()
    knowledge = Knowledge.load()
    backends, close = sandbox_backends(sandbox)
    saver = checkpointer_for(deps.db)
    triage = TriageDeps(
        backends=backends, attributor=knowledge.attributor, runbooks=knowledge.runbooks, meaning=meaning
    )
    state = TriageState(alert=pack.alert, as_of=pack.meta.as_of, namespace=pack.meta.namespace)
    assert sandbox.elasticsearch is not None
    paused = build_graph(triage, checkpointer=saver, pause_after=["gather"])
    with pytest.raises(RuntimeError, match="paused before its report"):
        run(paused, state, thread_id="incident:resume")
    searches = len(sandbox.elasticsearch.requests)
    resumed = run(build_graph(triage, checkpointer=saver), state, thread_id="incident:resume")
    assert len(sandbox.elasticsearch.requests) == searches  # gather was not run again
    assert resumed.code == "ENG_KV_CACHE" and resumed.actions
    again = run(build_graph(triage, checkpointer=saver), state, thread_id="incident:resume")
    assert again == resumed and len(sandbox.elasticsearch.requests) == searches
    close()
    getattr(saver, "conn").close()  # noqa: B009
    deps.close()
