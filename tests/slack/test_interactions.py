"""Clicks, mentions and Socket Mode: with no approver configured a proposal's buttons are refused, a mention
answers with the commands, Slack's URL check is answered, and with SLACK_APP_TOKEN the same
listeners run over the WebSocket instead of `/slack/events`."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from bot.sandbox.pack import Pack
from bot.sandbox.up import Sandbox
from tests.slack.conftest import SlackBot, eventually, running_bot


def test_a_click_is_refused_when_nobody_may_approve_and_the_refusal_is_audited(
    slack_bot: SlackBot, pack: Pack
) -> None:
    incident_id = slack_bot.alert(pack.alert_body)
    slack_bot.wait_for(incident_id, "triage_posted")
    triage = slack_bot.deps.services.chat.message(incident_id, "triage", 1)
    assert triage is not None
    post = slack_bot.slack.channel(triage.channel_id).message(triage.ts)
    assert post is not None
    buttons = [e for b in post.blocks if b["type"] == "actions" for e in b["elements"]]
    approve = next(b for b in buttons if b["action_id"] == "approve-proposal")
    reject = next(b for b in buttons if b["action_id"] == "reject-proposal")
    for button in (approve, reject):
        url = slack_bot.click(
            triage.channel_id,
            triage.ts,
            {"action_id": button["action_id"], "value": button["value"], "block_id": "b"},
        )
        [said] = slack_bot.replies(url)
        assert "no approvers are configured" in said and said.endswith("Nothing was changed.")
        assert slack_bot.slack.responses(url)[0].replace_original is False  # the triage post stays
    refusals = [
        e for e in slack_bot.deps.services.incidents.get(incident_id).timeline if e.kind == "action_refused"
    ]
    assert [e.actor for e in refusals] == ["U0ANA", "U0ANA"]
    assert {p.status for p in slack_bot.deps.services.actions.list(incident_id)} == {"proposed"}
    unknown = slack_bot.click(
        triage.channel_id,
        triage.ts,
        {"action_id": "approve-proposal", "value": "999999", "block_id": "b"},
    )
    assert slack_bot.replies(unknown) == ["proposal 999999 does not exist"]


def event_callback(event: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "token": "sandbox-verification-token",
            "team_id": "T0SANDBOX",
            "api_app_id": "A0SANDBOX",
            "type": "event_callback",
            "event_id": f"Ev{time.monotonic_ns()}",
            "event_time": int(time.time()),
            "event": event,
            "authorizations": [{"team_id": "T0SANDBOX", "user_id": "UBOT", "is_bot": True}],
        }
    ).encode()


def test_a_mention_answers_with_the_commands_in_its_thread(slack_bot: SlackBot) -> None:
    channel = slack_bot.slack.add_channel(f"lobby-{time.monotonic_ns()}", members=["UBOT", "U0ANA"])
    ts = slack_bot.slack.new_ts()
    mention = {
        "type": "app_mention",
        "user": "U0ANA",
        "text": "<@UBOT> what now?",
        "ts": ts,
        "channel": channel.id,
    }
    assert slack_bot.signed(event_callback(mention), content_type="application/json").status_code == 200
    eventually(lambda: bool(channel.replies(ts)))
    [answer] = channel.replies(ts)
    assert answer.text.startswith("*`/incident` commands*")
    # Slack's URL check when the Request URL is saved in the app's settings.
    check = json.dumps({"token": "t", "challenge": "c-123", "type": "url_verification"}).encode()
    answered = slack_bot.signed(check, content_type="application/json")
    assert answered.status_code == 200 and answered.json() == {"challenge": "c-123"}


def test_socket_mode_runs_the_same_listeners_over_the_websocket(sandbox: Sandbox, database_url: str) -> None:
    assert sandbox.slack is not None
    with running_bot(sandbox, database_url, slack_app_token="xapp-sandbox", slack_signing_secret=None) as bot:
        eventually(lambda: bot.slack.socket_connections > 0)
        assert (
            httpx.post(f"{bot.url}/slack/events", content=b"{}", timeout=10).status_code == 404
        )  # no HTTP door
        channel = bot.slack.add_channel(f"lobby-{time.monotonic_ns()}", members=["UBOT", "U0ANA"])
        payload = bot.slack.slash_command(
            bot.slack_url, "/incident", text="help", user_id="U0ANA", channel_id=channel.id
        )
        envelope_id = bot.slack.socket_send(
            {
                "type": "slash_commands",
                "payload": payload,
                "accepts_response_payload": True,
                "retry_attempt": 0,
                "retry_reason": "",
            }
        )
        eventually(lambda: any(a.envelope_id == envelope_id for a in bot.slack.socket_acks()))
        assert bot.replies(payload["response_url"])[0].startswith("*`/incident` commands*")
        # `new` over the socket opens a declared incident with its channel, like over HTTP.
        declare = bot.slack.slash_command(
            bot.slack_url,
            "/incident",
            text="new socket-declared outage",
            user_id="U0ANA",
            channel_id=channel.id,
        )
        bot.slack.socket_send(
            {"type": "slash_commands", "payload": declare, "accepts_response_payload": True}
        )
        [said] = bot.replies(declare["response_url"])
        incident_id = int(said.split()[1])
        bot.wait_for(incident_id, "announced")
        assert "socket-declared-outage" in bot.channel(incident_id).name
