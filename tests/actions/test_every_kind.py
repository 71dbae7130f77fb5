"""Every catalog kind, from a triage's proposal to its undo, through signed Slack clicks.

A non-approver's click is refused (ephemeral, audited) and changes nothing; an approver's click
shows the dry run, applies, verifies and offers Undo in the same message; Undo by another approver
restores what was there. Each step is checked on the objects through the `kubernetes` client.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.sandbox.up import Sandbox
from tests.actions.conftest import (
    APPROVER_BY_EMAIL,
    APPROVER_BY_GROUP,
    NOT_APPROVER,
    PACKS,
    Cluster,
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
from tests.slack.conftest import eventually


def snapshot(cluster: Cluster, kind: str, target: str, namespace: str | None) -> Any:
    """What the action changes, as the cluster holds it now."""
    name = target.split("/", 1)[1]
    if kind == "reroute":
        assert namespace is not None
        route = cluster.custom.get_namespaced_custom_object(
            "gateway.networking.k8s.io", "v1", namespace, "httproutes", name
        )
        return [
            (ref["name"], ref.get("weight", 1))
            for rule in route["spec"]["rules"]
            for ref in rule["backendRefs"]
        ]
    if kind == "cordon_node":
        node = cluster.node(name)
        taints = [t.get("key") for t in (node.get("spec") or {}).get("taints") or []]
        return (bool(node["spec"].get("unschedulable")), "node.kubernetes.io/unschedulable" in taints)
    assert namespace is not None
    if kind == "restart_pod":
        pods = cluster.raw(cluster.core.list_namespaced_pod, namespace)["items"]
        return sorted(p["metadata"]["name"] for p in pods)
    deployment = cluster.raw(cluster.apps.read_namespaced_deployment, name, namespace)
    if kind == "rollback_deployment":
        template = deployment["spec"]["template"]
        template["metadata"].get("labels", {}).pop("pod-template-hash", None)
        return template
    return deployment["spec"].get("replicas", 1)


@pytest.fixture(params=sorted(PACKS))
def kind_and_sandbox(request: pytest.FixtureRequest) -> Iterator[tuple[str, Sandbox]]:
    kind = str(request.param)
    with Sandbox(pack_for(kind)) as sandbox:
        yield kind, sandbox


def test_a_proposal_is_refused_to_others_then_approved_verified_and_undone(
    kind_and_sandbox: tuple[str, Sandbox], database_url: str
) -> None:
    kind, sandbox = kind_and_sandbox
    cluster = cluster_of(sandbox)
    pack = pack_for(kind)
    with approval_bot(sandbox, database_url) as bot:
        incident = bot.alert(pack.alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, kind)
        action = proposal.action
        assert proposal.preview.get("ok"), proposal.preview  # the dry run shown before approval
        assert proposal.preview.get("diff"), proposal.preview
        before = snapshot(cluster, kind, action.target, action.namespace)

        refused = click(bot, incident, "approve-proposal", proposal.id, NOT_APPROVER)
        [said] = bot.replies(refused)
        assert "is not an approver" in said and "Nothing was changed" in said
        assert bot.slack.responses(refused)[0].response_type == "ephemeral"
        assert snapshot(cluster, kind, action.target, action.namespace) == before
        assert bot.deps.services.actions.get(proposal.id).status == "proposed"
        assert "action_refused" in kinds_on_timeline(bot, incident, proposal.id)

        click(bot, incident, "approve-proposal", proposal.id, APPROVER_BY_GROUP)
        done = wait_state(bot, proposal.id, {"done", "failed", "refused", "blocked"})
        assert done.status == "done", done.outcome
        assert done.decided_by == APPROVER_BY_GROUP and done.outcome.get("verified") is True, done.outcome
        after = snapshot(cluster, kind, action.target, action.namespace)
        assert after != before
        steps = kinds_on_timeline(bot, incident, proposal.id)
        for step in (
            "action_proposed",
            "action_approved",
            "action_dry_run",
            "action_executed",
            "action_verified",
        ):
            assert step in steps, steps
        eventually(
            lambda: "*done*" in message_text(bot, incident), timeout=20
        )  # edited in place after the job
        assert f"<@{APPROVER_BY_GROUP}>" in message_text(bot, incident)
        undo = [
            b
            for b in buttons(bot, incident)
            if b["action_id"] == "undo-proposal" and b["value"] == str(proposal.id)
        ]
        assert undo, "no Undo button on the updated message"

        click(bot, incident, "undo-proposal", proposal.id, APPROVER_BY_EMAIL)
        undone = wait_state(bot, proposal.id, {"undone", "undo_failed"})
        assert undone.status == "undone", undone.outcome
        restored = snapshot(cluster, kind, action.target, action.namespace)
        if kind == "restart_pod":  # nothing to restore: the replica set is whole again, with a new pod
            assert len(restored) == len(before) and action.target.split("/")[1] not in restored
        else:
            assert restored == before
        assert "action_undone" in kinds_on_timeline(bot, incident, proposal.id)
        eventually(lambda: "*undone*" in message_text(bot, incident), timeout=20)
        assert not [b for b in buttons(bot, incident) if b["value"] == str(proposal.id)]
