"""Deciding on a proposal safely: two approvers at once run it once, a bot restarted between the
proposal and the click still runs it, an expired proposal runs never, and the HTTP API and the CLI
apply the same approver check as the buttons."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from bot.sandbox.up import Sandbox
from tests.actions.conftest import (
    APPROVER_BY_EMAIL,
    APPROVER_BY_GROUP,
    approval_bot,
    click,
    cluster_of,
    kinds_on_timeline,
    pack_for,
    proposal_of,
    wait_state,
)
from tests.conftest import api_headers

NODE_KIND = "cordon_node"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(pack_for(NODE_KIND)) as running:
        yield running


def node_patches(sandbox: Sandbox, node: str) -> list[bool]:
    """The dry-run flag of every PATCH the cluster got for the node."""
    assert sandbox.kubernetes is not None
    return [
        w.dry_run
        for w in sandbox.kubernetes.writes
        if w.verb == "PATCH" and w.path.endswith(f"/nodes/{node}")
    ]


def test_two_approvers_clicking_at_once_run_the_action_once(sandbox: Sandbox, database_url: str) -> None:
    with approval_bot(sandbox, database_url) as bot:
        incident = bot.alert(pack_for(NODE_KIND).alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, NODE_KIND)
        node = proposal.action.target.split("/", 1)[1]
        urls: list[str] = []
        gate = threading.Barrier(4)

        def approve(user: str) -> None:
            gate.wait()
            urls.append(click(bot, incident, "approve-proposal", proposal.id, user))

        clickers = [
            threading.Thread(target=approve, args=(u,)) for u in (APPROVER_BY_GROUP, APPROVER_BY_EMAIL) * 2
        ]
        for thread in clickers:
            thread.start()
        for thread in clickers:
            thread.join()
        done = wait_state(bot, proposal.id, {"done", "failed", "refused"})
        assert done.status == "done", done.outcome
        steps = kinds_on_timeline(bot, incident, proposal.id)
        assert steps.count("action_approved") == 1 and steps.count("action_executed") == 1, steps
        assert node_patches(sandbox, node).count(False) == 1  # one real write, whatever the clicks
        answers = [said for url in urls for said in bot.replies(url, timeout=2)]
        assert len(answers) == 3 and all("already handled" in a for a in answers), answers
        assert cluster_of(sandbox).cordoned(node)


def test_a_bot_restarted_between_proposal_and_click_runs_it_on_the_click(
    sandbox: Sandbox, database_url: str
) -> None:
    with approval_bot(sandbox, database_url) as first:
        incident = first.alert(pack_for(NODE_KIND).alert_body)
        first.wait_for(incident, "triage_posted")
        proposal = proposal_of(first, incident, NODE_KIND)
    node = proposal.action.target.split("/", 1)[1]
    assert not cluster_of(sandbox).cordoned(node)
    with approval_bot(sandbox, database_url) as second:  # a new process: only the database remains
        click(second, incident, "approve-proposal", proposal.id, APPROVER_BY_GROUP)
        done = wait_state(second, proposal.id, {"done", "failed", "refused"})
        assert done.status == "done", done.outcome
        assert cluster_of(sandbox).cordoned(node)


def test_an_expired_proposal_is_refused_and_its_expiry_audited(sandbox: Sandbox, database_url: str) -> None:
    with approval_bot(sandbox, database_url, expire_minutes=0.001) as bot:  # 60 ms
        incident = bot.alert(pack_for(NODE_KIND).alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, NODE_KIND)
        url = click(bot, incident, "approve-proposal", proposal.id, APPROVER_BY_GROUP)
        [said] = bot.replies(url)
        assert f"proposal {proposal.id} expired" in said
        assert bot.deps.services.actions.get(proposal.id).status == "expired"
        assert "action_expired" in kinds_on_timeline(bot, incident, proposal.id)
        node = proposal.action.target.split("/", 1)[1]
        assert node_patches(sandbox, node).count(False) == 0


def test_the_http_api_applies_the_same_approver_check(sandbox: Sandbox, database_url: str) -> None:
    with approval_bot(sandbox, database_url) as bot:
        incident = bot.alert(pack_for(NODE_KIND).alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, NODE_KIND)
        listed = httpx.get(f"{bot.url}/api/incidents/{incident}/actions", headers=api_headers(), timeout=10)
        assert proposal.id in [p["id"] for p in listed.json()["actions"]]
        url = f"{bot.url}/api/actions/{proposal.id}/approve"
        refused = httpx.post(url, json={"actor": "ana@example.com"}, headers=api_headers(), timeout=10)
        assert refused.status_code == 403 and "not an approver" in refused.json()["error"]
        approved = httpx.post(url, json={"actor": "carol@example.com"}, headers=api_headers(), timeout=10)
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "approved"
        done = wait_state(bot, proposal.id, {"done", "failed", "refused"})
        assert done.status == "done" and done.decided_by == "carol@example.com"
        again = httpx.post(url, json={"actor": "carol@example.com"}, headers=api_headers(), timeout=10)
        assert again.status_code == 409 and "already handled" in again.json()["error"]
        undo = httpx.post(
            f"{bot.url}/api/actions/{proposal.id}/undo",
            json={"actor": "carol@example.com"},
            headers=api_headers(),
        )
        assert undo.status_code == 200
        assert wait_state(bot, proposal.id, {"undone", "undo_failed"}).status == "undone"


def test_the_cli_lists_approves_and_undoes_without_slack(
    sandbox: Sandbox, database_url: str, tmp_path: Path
) -> None:
    with approval_bot(sandbox, database_url) as bot:
        incident = bot.alert(pack_for(NODE_KIND).alert_body)
        bot.wait_for(incident, "triage_posted")
        proposal = proposal_of(bot, incident, NODE_KIND)
    config = tmp_path / "bot.yaml"
    config.write_text(yaml.safe_dump({"approvers": ["carol@example.com"], "actions": {"verify_seconds": 20}}))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "KUBE"))},
        **{k: v for k, v in sandbox.env.items() if not k.startswith("SLACK_")},
        "DATABASE_URL": database_url,
        "INCIDENT_BOT_CONFIG": str(config),
        "KUBERNETES_IN_CLUSTER": "false",
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot", *args], env=env, capture_output=True, text=True, timeout=120
        )

    listed = cli("actions", "list", str(incident))
    assert listed.returncode == 0, listed.stderr
    assert f"{proposal.id}" in listed.stdout and "proposed" in listed.stdout and NODE_KIND in listed.stdout
    refused = cli("actions", "approve", str(proposal.id), "--actor", "U0BOB", "--run")
    assert refused.returncode == 4 and "not an approver" in refused.stderr  # no Slack: no group to expand
    approved = cli("actions", "approve", str(proposal.id), "--actor", "carol@example.com", "--run")
    assert approved.returncode == 0, approved.stderr
    assert " done " in approved.stdout, approved.stdout
    node = proposal.action.target.split("/", 1)[1]
    assert cluster_of(sandbox).cordoned(node)
    undone = cli("actions", "undo", str(proposal.id), "--actor", "carol@example.com", "--run")
    assert undone.returncode == 0 and " undone " in undone.stdout, undone.stdout + undone.stderr
    assert not cluster_of(sandbox).cordoned(node)
