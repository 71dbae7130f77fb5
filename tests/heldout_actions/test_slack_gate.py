"""The approval gate as a responder meets it in Slack: the dry run on the triage post before anyone
clicks, a refusal for whoever may not decide, approvers named by e-mail or by user group, and the
post edited in place with who approved and an Undo button (README: Connect Slack, Approved actions).
"""

from __future__ import annotations

import json
import time

import pytest

from bot.config import Actions, BotConfig
from tests.heldout_actions.support import (
    ROUTE_PACK,
    SURGE_PACK,
    UNSCHEDULABLE_TAINT,
    XID_PACK,
    click_payload,
    eventually,
    find_button,
    harness,
    mentions,
    weights,
)

pytestmark = pytest.mark.timeout(300)

ROUTE_NS, ROUTE = "translate-svc", "translate-gemma"
SKEWED = {"vllm-gemma3-27b-a": 90, "vllm-gemma3-27b-b": 10}
SURGE_NS, SURGE_DEPLOYMENT = "support-bot", "vllm-llama31-8b-support"
XID_NODE = "ip-10-40-13-88.us-west-2.compute.internal"
VERIFY = Actions(verify_seconds=20)


def test_dry_run_is_on_the_triage_post_before_approval_and_the_cluster_is_untouched(
    database_url: str,
) -> None:
    config = BotConfig(approvers=["U0BOB"], actions=VERIFY)
    with harness(ROUTE_PACK, database_url, config) as h:
        before = h.cluster.snapshot(ROUTE_NS)
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "reroute")
        assert proposal["action"]["target"] == f"httproute/{ROUTE}"
        assert proposal["status"] == "proposed"

        # The dry run is the API server's own answer (dryRun=All on the route), kept as the preview.
        dry_runs = [w for w in h.all_writes() if w.dry_run and f"/httproutes/{ROUTE}" in w.path]
        assert dry_runs, [(w.verb, w.path, w.query) for w in h.all_writes()]
        assert all("dryRun=All" in w.query for w in dry_runs)
        preview = json.dumps(proposal["preview"]).lower()
        assert "weight" in preview, proposal["preview"]

        # ... and it is shown on the triage post, next to the Approve and Reject buttons.
        channel, ts = h.triage_post(incident)
        blocks = h.blocks(channel, ts)
        assert find_button(blocks, "approve", proposal["id"]) is not None, blocks
        assert find_button(blocks, "reject", proposal["id"]) is not None, blocks
        assert "weight" in json.dumps(blocks).lower(), "the dry run's diff is not on the triage post"

        # Between proposal and approval nothing in the cluster changes.
        time.sleep(1.0)
        assert h.real_writes() == [], [(w.verb, w.path) for w in h.real_writes()]
        assert h.cluster.snapshot(ROUTE_NS) == before
        assert weights(h.cluster.route(ROUTE_NS, ROUTE)) == SKEWED
        kinds = {e["kind"] for e in h.timeline(incident)}
        assert not kinds & {"action_approved", "action_executed"}, kinds


def test_non_approver_click_changes_nothing_gets_an_ephemeral_refusal_and_is_audited(
    database_url: str,
) -> None:
    config = BotConfig(approvers=["U0BOB"], actions=VERIFY)
    with harness(ROUTE_PACK, database_url, config) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "reroute")
        channel, ts = h.triage_post(incident)
        button = find_button(h.blocks(channel, ts), "approve", proposal["id"])
        assert button is not None
        route_before = h.cluster.route(ROUTE_NS, ROUTE)
        seen_ephemerals = len(h.bot.slack.channel(channel).ephemerals)

        url = h.bot.click(channel, ts, click_payload(button), user="U0ANA")

        refused = h.wait_event(incident, "action_refused", fail_on=("action_executed", "action_failed"))
        assert "U0ANA" in refused["actor"], refused
        assert refused["at"]

        def told() -> bool:
            posted = [
                p for p in h.bot.slack.responses(url) if not p.replace_original and not p.delete_original
            ]
            private = [
                e for e in h.bot.slack.channel(channel).ephemerals[seen_ephemerals:] if e.user == "U0ANA"
            ]
            return bool(posted or private)

        eventually(told, timeout=10, what="an ephemeral refusal to U0ANA")

        time.sleep(1.0)
        assert h.real_writes() == [], [(w.verb, w.path) for w in h.real_writes()]
        assert h.cluster.route(ROUTE_NS, ROUTE) == route_before
        stored = h.proposal(incident, proposal["id"])
        assert stored["status"] == "proposed", stored
        assert stored["decided_by"] is None, stored
        kinds = [e["kind"] for e in h.timeline(incident)]
        assert "action_approved" not in kinds and "action_executed" not in kinds, kinds
        # The post still offers the decision to those who may make it.
        assert find_button(h.blocks(channel, ts), "approve", proposal["id"]) is not None


def test_email_approver_approves_by_slack_id_and_the_post_is_edited_in_place_with_undo(
    database_url: str,
) -> None:
    config = BotConfig(approvers=["bob@example.com"], actions=VERIFY)
    with harness(SURGE_PACK, database_url, config) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "add_replica")
        assert proposal["action"]["target"] == f"deployment/{SURGE_DEPLOYMENT}"
        assert h.cluster.deployment(SURGE_NS, SURGE_DEPLOYMENT)["spec"]["replicas"] == 3
        channel, ts = h.triage_post(incident)
        button = find_button(h.blocks(channel, ts), "approve", proposal["id"])
        assert button is not None

        h.bot.click(channel, ts, click_payload(button), user="U0BOB")

        approved = h.wait_event(incident, "action_approved", fail_on=("action_refused", "action_failed"))
        assert mentions(approved["actor"], "U0BOB", "bob"), approved
        h.wait_event(incident, "action_verified")
        assert h.cluster.deployment(SURGE_NS, SURGE_DEPLOYMENT)["spec"]["replicas"] == 4
        scaled = h.real_writes(f"/deployments/{SURGE_DEPLOYMENT}/scale")
        assert len(scaled) == 1, [(w.verb, w.path) for w in h.real_writes()]

        # The same message (same ts) now says who approved and carries Undo for this proposal.
        def edited() -> bool:
            text = h.message_text(channel, ts)
            undo = find_button(h.blocks(channel, ts), "undo", proposal["id"])
            return undo is not None and mentions(text, "U0BOB", "bob")

        eventually(edited, timeout=20, what="the triage post showing the approver and Undo")
        undo = find_button(h.blocks(channel, ts), "undo", proposal["id"])
        assert undo is not None

        mark = h.last_event_id(incident)
        h.bot.click(channel, ts, click_payload(undo), user="U0BOB")
        h.wait_event(incident, "action_undone", after=mark, fail_on=("action_refused", "action_failed"))
        eventually(
            lambda: h.cluster.deployment(SURGE_NS, SURGE_DEPLOYMENT)["spec"]["replicas"] == 3,
            timeout=10,
            what="the replica count back at 3",
        )


def test_group_approver_cordons_via_slack_undo_uncordons_and_the_node_names_who_and_which_incident(
    database_url: str,
) -> None:
    config = BotConfig(approvers=["S0ONCALL"], actions=VERIFY)  # S0ONCALL = U0BOB, U0CAROL
    with harness(XID_PACK, database_url, config) as h:
        others_before = {n: o for n, o in h.cluster.nodes().items() if n != XID_NODE}
        annotations_before = dict(h.cluster.node(XID_NODE)["metadata"].get("annotations") or {})
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "cordon_node")
        assert proposal["action"]["target"] == f"node/{XID_NODE}"
        channel, ts = h.triage_post(incident)
        button = find_button(h.blocks(channel, ts), "approve", proposal["id"])
        assert button is not None

        h.bot.click(channel, ts, click_payload(button), user="U0CAROL")

        approved = h.wait_event(incident, "action_approved", fail_on=("action_refused", "action_failed"))
        assert mentions(approved["actor"], "U0CAROL", "carol"), approved
        h.wait_event(incident, "action_verified")
        node = h.cluster.node(XID_NODE)
        assert node["spec"].get("unschedulable") is True, node["spec"]
        assert any(t["key"] == UNSCHEDULABLE_TAINT for t in node["spec"].get("taints") or [])
        cordoned_annotations = dict(node["metadata"].get("annotations") or {})
        assert all(f"/nodes/{XID_NODE}" in w.path for w in h.real_writes()), [
            (w.verb, w.path) for w in h.real_writes()
        ]
        assert {n: o for n, o in h.cluster.nodes().items() if n != XID_NODE} == others_before

        def edited() -> bool:
            text = h.message_text(channel, ts)
            return find_button(h.blocks(channel, ts), "undo", proposal["id"]) is not None and mentions(
                text, "U0CAROL", "carol"
            )

        eventually(edited, timeout=20, what="the triage post showing the approver and Undo")
        undo = find_button(h.blocks(channel, ts), "undo", proposal["id"])
        assert undo is not None

        mark = h.last_event_id(incident)
        h.bot.click(channel, ts, click_payload(undo), user="U0BOB")  # the other member of the group
        h.wait_event(incident, "action_undone", after=mark, fail_on=("action_refused", "action_failed"))
        node = h.cluster.node(XID_NODE)
        assert not node["spec"].get("unschedulable"), node["spec"]
        assert not any(t["key"] == UNSCHEDULABLE_TAINT for t in node["spec"].get("taints") or [])

        # While cordoned, the node said who cordoned it and for which incident.
        added = {k: v for k, v in cordoned_annotations.items() if annotations_before.get(k) != v}
        shown = json.dumps(added)
        assert added, f"no annotation was added to the cordoned node: {cordoned_annotations}"
        assert mentions(shown, "U0CAROL", "carol"), added
        assert str(incident) in shown, added
