"""A proposal on the triage post, state by state: the buttons it offers, what it says, and block
ids that change with every version (Slack wants fresh ones on each update)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.actions.catalog import ActionKind
from bot.domain import ActionProposal, ProposedAction
from bot.sandbox.slack.blocks import check_blocks
from bot.slack.blocks.proposals import proposal_blocks
from tests.slack.test_blocks import as_dicts

ACTION = ProposedAction(kind=ActionKind.CORDON_NODE, target="node/gpu-a", rationale="Xid 79", undo="uncordon")


def proposal(status: str, **fields: object) -> ActionProposal:
    values: dict[str, object] = {
        "id": 7,
        "incident_id": 1,
        "run": 1,
        "position": 0,
        "action": ACTION,
        "status": status,
        "expires_at": datetime(2026, 12, 1, 12, 30, tzinfo=UTC),
        "decided_by": "U0BOB",
        "preview": {
            "ok": True,
            "summary": "cordon node gpu-a",
            "diff": ["~ spec.unschedulable: false → true"],
        },
        "outcome": {"summary": "cordon node gpu-a: verified", "diff": ["~ spec.unschedulable: false → true"]},
        **fields,
    }
    return ActionProposal.model_validate(values)


def buttons(p: ActionProposal) -> list[tuple[str, str]]:
    blocks = as_dicts(proposal_blocks(p, 1, number=1))
    assert check_blocks(blocks) == []
    return [
        (e["action_id"], e["text"]["text"]) for b in blocks if b["type"] == "actions" for e in b["elements"]
    ]


@pytest.mark.parametrize(
    ("status", "offered"),
    [
        ("proposed", [("approve-proposal", "Approve"), ("reject-proposal", "Reject")]),
        ("done", [("undo-proposal", "Undo")]),
        *[
            (s, [])
            for s in ("approved", "running", "failed", "refused", "blocked", "rejected", "expired", "undone")
        ],
    ],
)
def test_each_state_offers_only_its_own_buttons(status: str, offered: list[tuple[str, str]]) -> None:
    assert buttons(proposal(status)) == offered


def test_the_dry_run_shows_before_and_the_result_after() -> None:
    before = str(as_dicts(proposal_blocks(proposal("proposed"), 1, number=1)))
    assert (
        "Dry run:" in before
        and "spec.unschedulable: false → true" in before
        and "Expires 12:30 UTC" in before
    )
    after = str(as_dicts(proposal_blocks(proposal("done"), 1, number=1)))
    assert "*done* (<@U0BOB>)" in after and "verified" in after


def test_a_proposal_that_cannot_run_offers_only_reject_and_says_why() -> None:
    blocked = proposal("proposed", preview={"ok": False, "reason": "no healthy backend would remain"})
    assert buttons(blocked) == [("reject-proposal", "Reject")]
    assert "Cannot run now: no healthy backend would remain" in str(
        as_dicts(proposal_blocks(blocked, 1, number=1))
    )


def test_a_delete_after_a_refused_eviction_is_its_own_danger_button() -> None:
    delete = proposal(
        "proposed",
        action=ACTION.model_copy(update={"kind": ActionKind.RESTART_POD, "params": {"mode": "delete"}}),
    )
    blocks = as_dicts(proposal_blocks(delete, 1, number=1))
    [button] = [
        e
        for b in blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == "approve-proposal"
    ]
    assert button["text"]["text"] == "Delete anyway" and button["style"] == "danger" and "confirm" in button


def test_block_ids_change_with_the_version() -> None:
    ids = {
        b["block_id"]
        for version in (0, 1)
        for b in as_dicts(proposal_blocks(proposal("proposed", version=version), 1, number=1))
        if b["type"] == "actions"
    }
    assert len(ids) == 2
