"""The durable pause: a decision resumes only the run it belongs to, at the interrupt stored for it,
and acting on a decision twice (a retried job, a worker that died after its write) writes once."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import update

from bot.actions.model import ActionDecision
from bot.sandbox.replay import Replay, replaying
from bot.sandbox.up import Sandbox
from bot.store.models import ActionProposalRow, TriageRow
from bot.triage.graph import NotPending
from tests.actions.conftest import approval_config, pack_for

KIND = "cordon_node"


@pytest.fixture
def replay() -> Iterator[Replay]:
    with Sandbox(pack_for(KIND)) as sandbox, replaying(sandbox, config=approval_config()) as running:
        yield running


def node_writes(replay: Replay) -> list[bool]:
    assert replay.sandbox.kubernetes is not None
    return [w.dry_run for w in replay.sandbox.kubernetes.writes if w.verb == "PATCH" and "/nodes/" in w.path]


def test_the_run_pauses_for_a_decision_and_the_interrupt_is_stored(replay: Replay) -> None:
    stored = replay.triage()
    with replay.deps.db.reader() as session:
        row = session.get(TriageRow, 1)
        assert row is not None and row.thread_id == f"incident:{stored.incident_id}:triage:1"
        assert row.interrupt_id and replay.deps.engine.pending(row.thread_id) == row.interrupt_id


def test_a_decision_for_an_unknown_thread_or_a_stale_interrupt_resumes_nothing(replay: Replay) -> None:
    stored = replay.triage()
    [proposal] = [p for p in replay.deps.services.actions.list(stored.incident_id) if p.action.kind == KIND]
    decision = ActionDecision(proposal_id=proposal.id, phase="apply", actor="carol@example.com")
    engine = replay.deps.engine
    with pytest.raises(NotPending, match="not paused"):
        engine.resume("incident:999:triage:1", None, decision)  # LangGraph would start a fresh run
    assert engine.pending("incident:999:triage:1") is None
    thread = f"incident:{stored.incident_id}:triage:1"
    with pytest.raises(NotPending, match="not at the stored"):
        engine.resume(thread, "0" * 32, decision)
    assert node_writes(replay) == [True]  # only the preview's dry run reached the cluster


def test_a_decision_acted_on_again_writes_nothing_more(replay: Replay) -> None:
    stored = replay.triage()
    actions = replay.deps.services.actions
    [proposal] = [p for p in actions.list(stored.incident_id) if p.action.kind == KIND]
    actions.approve(proposal.id, actor="carol@example.com")
    replay.deps.worker.drain(timeout=60)
    assert actions.get(proposal.id).status == "done"
    assert node_writes(replay).count(False) == 1
    # As if the worker had died after its write, before it recorded the end: the retry reuses the
    # stored plan, finds the write landed, and verifies instead of writing again.
    with replay.deps.db.transaction() as session:
        session.execute(
            update(ActionProposalRow).where(ActionProposalRow.id == proposal.id).values(status="running")
        )
    assert replay.deps.runner is not None
    outcome = replay.deps.runner.execute(
        ActionDecision(proposal_id=proposal.id, phase="apply", actor="carol@example.com")
    )
    assert outcome.state == "done" and outcome.verified is True
    assert node_writes(replay).count(False) == 1
    # The same decision resumed again is a no-op for the paused run too.
    thread = f"incident:{stored.incident_id}:triage:1"
    decision = ActionDecision(proposal_id=proposal.id, phase="apply", actor="carol@example.com")
    assert replay.deps.engine.resume(thread, None, decision) == replay.deps.engine.pending(thread)
    assert node_writes(replay).count(False) == 1


def test_a_target_outside_the_incident_scope_is_refused(replay: Replay) -> None:
    stored = replay.triage()
    actions = replay.deps.services.actions
    [proposal] = [p for p in actions.list(stored.incident_id) if p.action.kind == KIND]
    with replay.deps.db.transaction() as session:  # a node no triage of this incident named
        session.execute(
            update(ActionProposalRow)
            .where(ActionProposalRow.id == proposal.id)
            .values(target="node/ip-10-40-2-19.us-west-2.compute.internal")
        )
    actions.approve(proposal.id, actor="carol@example.com")
    replay.deps.worker.drain(timeout=60)
    refused = actions.get(proposal.id)
    assert refused.status == "refused" and "not in the incident's scope" in refused.outcome["summary"]
    assert node_writes(replay).count(False) == 0


def test_a_proposal_left_undecided_expires_on_its_own_with_its_audit_entry() -> None:
    with (
        Sandbox(pack_for(KIND)) as sandbox,
        replaying(sandbox, config=approval_config(expire_minutes=0.001)) as replay,
    ):
        stored = replay.triage()
        [proposal] = [
            p
            for p in replay.deps.services.actions.store.of_incident(stored.incident_id)
            if p.action.kind == KIND
        ]
        time.sleep(0.1)
        replay.deps.worker.drain(timeout=30)  # the expiry job, due at the proposal's expiry
        assert replay.deps.services.actions.store.get(proposal.id).status == "expired"
        timeline = replay.deps.services.incidents.get(stored.incident_id).timeline
        assert [e.kind for e in timeline if e.data.get("proposal_id") == proposal.id].count(
            "action_expired"
        ) == 1
