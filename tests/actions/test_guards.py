"""The guards around a pod restart: a disruption budget that refuses the eviction turns the
action into a second, explicit "delete anyway" approval; a restart that would leave fewer Ready
replicas than configured is refused before anything is written."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import httpx
import pytest

from bot.sandbox.up import Sandbox
from tests.actions.conftest import (
    APPROVER_BY_GROUP,
    approval_bot,
    buttons,
    click,
    cluster_of,
    kinds_on_timeline,
    message_text,
    pack_for,
    proposal_of,
    wait_state,
)
from tests.conftest import api_headers
from tests.slack.conftest import eventually

KIND = "restart_pod"
BUDGET = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "vllm-qwen25-14b", "namespace": "assist-chat"},
    "spec": {"minAvailable": 3, "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm-qwen25-14b"}}},
}


@pytest.fixture
def budgeted() -> Iterator[Sandbox]:
    pack = pack_for(KIND)
    namespace = next(o for o in pack.objects if o["kind"] == "Deployment")["metadata"]["namespace"]
    budget = {**BUDGET, "metadata": {**BUDGET["metadata"], "namespace": namespace}}
    with Sandbox(dataclasses.replace(pack, objects=[*pack.objects, budget])) as running:
        yield running


def pod_names(sandbox: Sandbox, namespace: str) -> list[str]:
    cluster = cluster_of(sandbox)
    return sorted(
        p["metadata"]["name"] for p in cluster.raw(cluster.core.list_namespaced_pod, namespace)["items"]
    )


def test_a_budget_that_refuses_the_eviction_offers_a_delete_as_a_second_approval(
    budgeted: Sandbox, database_url: str
) -> None:
    with approval_bot(budgeted, database_url) as bot:
        incident = bot.alert(pack_for(KIND).alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, KIND)
        assert proposal.preview.get("blocked"), proposal.preview  # the dry run already says so
        namespace, pod = proposal.action.namespace, proposal.action.target.split("/", 1)[1]
        assert namespace is not None
        before = pod_names(budgeted, namespace)
        click(bot, incident, "approve-proposal", proposal.id, APPROVER_BY_GROUP)
        blocked = wait_state(bot, proposal.id, {"blocked", "done", "failed"})
        assert blocked.status == "blocked" and "disruption budget" in blocked.outcome["summary"].lower()
        assert pod_names(budgeted, namespace) == before
        [delete] = [p for p in bot.deps.services.actions.list(incident) if p.follows == proposal.id]
        assert delete.action.params["mode"] == "delete" and delete.status == "proposed"
        eventually(lambda: "Delete anyway" in message_text(bot, incident), timeout=20)
        assert [
            b
            for b in buttons(bot, incident)
            if b["value"] == str(delete.id) and b["action_id"] == "approve-proposal"
        ]
        click(bot, incident, "approve-proposal", delete.id, APPROVER_BY_GROUP)
        done = wait_state(bot, delete.id, {"done", "failed", "refused"})
        assert done.status == "done" and done.outcome["verified"] is True, done.outcome
        after = pod_names(budgeted, namespace)
        assert pod not in after and len(after) == len(before)
        assert "action_refused" in kinds_on_timeline(bot, incident, proposal.id)
        assert "action_executed" in kinds_on_timeline(bot, incident, delete.id)


def test_a_restart_that_would_leave_too_few_ready_replicas_is_refused(database_url: str) -> None:
    with Sandbox(pack_for(KIND)) as sandbox, approval_bot(sandbox, database_url, min_ready_replicas=3) as bot:
        incident = bot.alert(pack_for(KIND).alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, KIND)
        assert proposal.preview["ok"] is False and "minimum is 3" in proposal.preview["reason"]
        assert not [
            b
            for b in buttons(bot, incident)
            if b["value"] == str(proposal.id) and b["action_id"].startswith("approve")
        ]
        namespace = proposal.action.namespace
        assert namespace is not None
        before = pod_names(sandbox, namespace)
        answer = httpx.post(
            f"{bot.url}/api/actions/{proposal.id}/approve",
            json={"actor": "carol@example.com"},
            headers=api_headers(),
        )
        assert answer.status_code == 200  # approving is allowed; the execution checks again and refuses
        refused = wait_state(bot, proposal.id, {"refused", "done", "failed"})
        assert refused.status == "refused" and "minimum is 3" in refused.outcome["summary"]
        assert pod_names(sandbox, namespace) == before
        assert sandbox.kubernetes is not None
        assert not [w for w in sandbox.kubernetes.writes if w.path.endswith("/eviction")]
