"""Resolving, the way a responder does it: an approved reroute verified, a note, every alert
resolved, the modal's final tag, then the summary in the channel with the postmortem draft in its
thread (every section filled from the real timeline), the channel archived, and the scorecard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from bot.config import Actions, BotConfig, SlackConfig
from tests.conftest import api_headers
from tests.heldout_actions.support import ROUTE_PACK, click_payload, eventually, find_button, harness
from tests.slack.conftest import SlackBot, running_bot

pytestmark = pytest.mark.timeout(300)

SECTIONS = [
    "## Summary",
    "## Impact",
    "## Triage tag against the final tag",
    "## Hypothesis and evidence",
    "## Actions",
    "## Durations",
    "## Timeline (UTC)",
    "## What the machine did",
    "## What the machine could have done",
    "## Action items",
]


def submission(view: dict[str, Any], reason: str, category: str | None, code: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {"reason": {"reason-input": {"type": "plain_text_input", "value": reason}}}
    for block, action, value in (
        ("final-category", "final-category-select", category),
        ("final-code", "final-code-select", code),
    ):
        chosen = {"selected_option": {"value": value, "text": {"type": "plain_text", "text": value}}}
        values[block] = {
            action: {"type": "static_select", **(chosen if value else {"selected_option": None})}
        }
    return {
        "type": "view_submission",
        "user": {"id": "U0BOB"},
        "team": {"id": "T0SANDBOX"},
        "api_app_id": "A0SANDBOX",
        "view": {
            "id": "V1",
            "type": "modal",
            "callback_id": view["callback_id"],
            "private_metadata": view["private_metadata"],
            "state": {"values": values},
        },
    }


def resolve_button_view(bot: SlackBot, incident: int, alert: bytes) -> dict[str, Any]:
    """Every alert resolves; the notice's button opens the modal, whose view is returned."""
    resolved = json.loads(alert)
    resolved["status"] = "resolved"
    for each in resolved["alerts"]:
        each["status"], each["endsAt"] = "resolved", datetime.now(UTC).isoformat().replace("+00:00", "Z")
    bot.alert(json.dumps(resolved).encode())
    channel = bot.channel(incident)

    def notice() -> Any:
        return next(
            (
                m
                for m in channel.messages
                if m.blocks and m.blocks[-1].get("block_id") == f"resolve-{incident}"
            ),
            None,
        )

    found = eventually(notice, what="the every-alert-resolved notice")
    button = found.blocks[-1]["elements"][0]
    before = len(bot.slack.views)
    bot.click(
        channel.id,
        found.ts,
        {"action_id": button["action_id"], "block_id": f"resolve-{incident}", "value": button["value"]},
    )
    eventually(lambda: len(bot.slack.views) > before, what="the resolve modal")
    return dict(bot.slack.views[-1].view)


def test_a_resolved_incident_leaves_a_postmortem_draft_filled_from_its_timeline(database_url: str) -> None:
    config = BotConfig(
        approvers=["U0BOB"], actions=Actions(verify_seconds=20), slack=SlackConfig(archive_after_minutes=0)
    )
    with harness(ROUTE_PACK, database_url, config) as h:
        bot = h.bot
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "reroute")
        channel, ts = h.triage_post(incident)
        approve = find_button(h.blocks(channel, ts), "approve", proposal["id"])
        assert approve is not None
        bot.click(channel, ts, click_payload(approve), user="U0BOB")
        h.wait_event(incident, "action_verified", fail_on=("action_refused", "action_failed"), timeout=90)
        answer, _ = bot.command(
            "note traffic moved to replica b, 429s falling", channel=channel, user="U0CAROL"
        )
        assert answer.status_code == 200
        h.wait_event(incident, "note")

        view = resolve_button_view(bot, incident, (ROUTE_PACK / "alert.json").read_bytes())
        blocks = {b.get("block_id"): b for b in view["blocks"]}
        # The modal starts from the triage's tag.
        assert blocks["final-category"]["element"]["initial_option"]["value"] == "operational"
        assert blocks["final-code"]["element"]["initial_option"]["value"] == "GW_ROUTING"
        offered = {o["value"] for g in blocks["final-code"]["element"]["option_groups"] for o in g["options"]}
        assert {"GW_ROUTING", "GW_RATE_LIMIT", "ENG_KV_CACHE"} <= offered

        # A code of another category is refused on the form; nothing is resolved.
        refused = bot.interaction(submission(view, "weights fixed", "infrastructure", "GW_RATE_LIMIT"))
        assert refused.json()["response_action"] == "errors"
        assert "GW_RATE_LIMIT is a operational code" in refused.json()["errors"]["final-category"]
        assert bot.deps.services.incidents.get(incident).incident.status.value != "resolved"

        reason = "weights back to 50/50; the per-client limit was the real trigger"
        assert bot.interaction(submission(view, reason, None, "GW_RATE_LIMIT")).status_code == 200
        h.wait_event(incident, "postmortem_drafted")
        h.wait_event(incident, "channel_archived")
        final = bot.deps.services.incidents.get(incident).incident
        assert (final.status.value, final.category, final.code) == (
            "resolved",
            "operational",
            "GW_RATE_LIMIT",
        )

        # The summary in the channel, the draft as a Markdown file in its thread.
        room = bot.slack.channel(channel)
        posted = bot.deps.services.chat.message(incident, "resolution")
        assert posted is not None
        summary = room.message(posted.ts)
        assert summary is not None
        assert summary.blocks[0]["text"]["text"] == f"Resolved: incident {incident}"
        said = json.dumps(summary.blocks)
        assert "GW_RATE_LIMIT" in said and "GW_ROUTING" in said and ":x:" in said and "reroute" in said
        thread = room.replies(summary.ts)
        upload = bot.slack.files[thread[0].files[0]]
        assert upload.name == f"incident-{incident}-postmortem.md" and upload.content is not None
        text = upload.content.decode()
        assert [s for s in SECTIONS if s not in text] == []
        assert "reroute httproute/translate-gemma" in text and "U0BOB" in text
        assert "traffic moved to replica b" in text and reason in text
        assert room.is_archived

        # The stored draft, through the API: the same text, and every section from the records.
        api = f"{bot.url}/api/incidents/{incident}/postmortem"
        md = httpx.get(api, params={"format": "md"}, headers=api_headers(), timeout=10)
        assert md.status_code == 200 and md.text == text
        draft = httpx.get(api, headers=api_headers(), timeout=10).json()
        tag = draft["tag"]
        assert (tag["triage_code"], tag["final_code"], tag["code_ok"], tag["category_ok"]) == (
            "GW_ROUTING",
            "GW_RATE_LIMIT",
            False,
            True,
        )
        [action] = [a for a in draft["actions"] if a["kind"] == "reroute"]
        assert action["decided_by"] == "U0BOB" and action["verified"] is True and action["executed_at"]
        assert all(d["seconds"] is not None and d["seconds"] >= 0 for d in draft["durations"]), draft[
            "durations"
        ]
        timeline = [
            e["kind"]
            for e in h.timeline(incident)
            if e["kind"] not in ("postmortem_drafted", "channel_archived")
        ]
        assert [e["kind"] for e in draft["timeline"]] == timeline
        assert {
            "opened",
            "triaged",
            "action_approved",
            "action_executed",
            "action_verified",
            "note",
            "resolved",
        } <= set(timeline)
        assert draft["evidence"] and draft["hypothesis"] and draft["blast_radius"]
        assert any(
            d.startswith("ran reroute httproute/translate-gemma after U0BOB") for d in draft["machine_did"]
        )
        rule = [f for f in draft["findings"] if f["gap"] == "missing_rule"]
        assert rule and "the final code is GW_RATE_LIMIT" in rule[0]["text"]
        assert f"incidents export-pack {incident}" in rule[0]["action_item"]
        assert draft["action_items"] == [f["action_item"] for f in draft["findings"]]

        # The scorecard counts it: category right, code wrong, first action right.
        env = {**os.environ, "DATABASE_URL": database_url}
        done = cli(env, "report", "--since", "1d", "--json")
        assert done.returncode == 0, done.stderr
        total = json.loads(done.stdout)["total"]
        assert total["incidents"] >= 1 and total["category_ok"]["of"] >= 1
        # The CLI prints the same stored draft; a window it cannot read is refused with the reason.
        printed = cli(env, "incidents", "postmortem", str(incident))
        assert printed.returncode == 0 and printed.stdout == text
        wrong = cli(env, "report", "--since", "a month")
        assert wrong.returncode == 2 and "--since takes a number and a unit" in wrong.stderr


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_resolve_by_command_takes_a_code_and_refuses_an_unknown_one(database_url: str) -> None:
    from bot.sandbox.pack import load_pack
    from bot.sandbox.up import Sandbox

    with Sandbox(load_pack(ROUTE_PACK)) as sandbox, running_bot(sandbox, database_url) as bot:
        incident = bot.alert((ROUTE_PACK / "alert.json").read_bytes())
        bot.wait_for(incident, "announced")
        channel = bot.channel(incident).id
        answer, url = bot.command("resolve GW_ROUTNG skew fixed", channel=channel)
        assert answer.status_code == 200
        [refusal] = bot.replies(url)
        assert "GW_ROUTNG is not a code of the taxonomy" in refusal and "GW_ROUTING" in refusal
        assert bot.deps.services.incidents.get(incident).incident.status.value != "resolved"
        answer, url = bot.command("resolve GW_ROUTING skew fixed", channel=channel)
        [done] = bot.replies(url)
        assert "resolved as `operational` / `GW_ROUTING`" in done
        resolved = bot.deps.services.incidents.get(incident).incident
        assert resolved.code == "GW_ROUTING" and resolved.resolution == "skew fixed"
