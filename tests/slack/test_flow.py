"""From a webhook to a ready Slack channel and a first triage, with nobody typing: the channel, its
responders, bookmarks and pinned announcement, the progress message that becomes the triage post,
the chart in its thread; then the resolved notice and its modal, all through signed requests."""

from __future__ import annotations

import re
import time
from urllib.parse import urlencode

import httpx

from bot.sandbox.pack import Pack
from tests.slack.conftest import SERVICE, SlackBot, eventually

NAME = re.compile(r"^[a-z0-9_-]{1,80}$")


def test_an_alert_becomes_a_ready_channel_and_a_first_triage(slack_bot: SlackBot, pack: Pack) -> None:
    incident_id = slack_bot.alert(pack.alert_body)
    timeline = slack_bot.wait_for(incident_id, "triage_posted")
    channel = slack_bot.channel(incident_id)
    # The channel: a valid name from the template, topic, purpose, the responders by ID, e-mail and group.
    # (the stand-in workspace outlives one database: a name taken by an earlier run gets a suffix)
    assert NAME.match(channel.name)
    assert re.fullmatch(rf"inc-\d{{8}}-{SERVICE}-{incident_id}(-\d+)?", channel.name), channel.name
    assert (
        channel.topic == f"critical · {SERVICE} · SupportBotTimePerOutputTokenHigh · incident {incident_id}"
    )
    assert channel.purpose.startswith("support-bot:")
    assert set(channel.members) == {
        "UBOT",
        "U0ANA",
        "U0BOB",
        "U0CAROL",
    }  # the bad ID and e-mail skipped, not blocking
    setup = slack_bot.deps.services.chat.channel(incident_id)
    assert setup is not None and setup.steps["invited"]["unknown"] == ["nobody@example.com (users_not_found)"]
    assert setup.steps["invited"]["refused"] == ["U0NOBODY (user_not_found)"]
    # Bookmarks: the dashboard scoped to the window, the alert's runbook and its source.
    titles = {b.title: b.link for b in channel.bookmarks}
    assert titles["vLLM engine"].startswith("https://grafana.example/d/vllm?var-ns=support-bot&from=")
    assert set(titles) == {"vLLM engine", "Runbook", "Alert in Prometheus"}
    # The announcement: pinned, with the alert's PromQL and the violating value.
    announcement = channel.messages[0]
    assert channel.pins == [announcement.ts]
    text = str(announcement.blocks)
    assert (
        "histogram_quantile(0.95" in text and "`0.141`" in text and "SupportBotTimePerOutputTokenHigh" in text
    )
    # The progress message became the triage post, in place.
    progress = slack_bot.deps.services.chat.message(incident_id, "progress", 1)
    triage = slack_bot.deps.services.chat.message(incident_id, "triage", 1)
    assert progress is not None and triage is not None and progress.ts == triage.ts
    post = channel.message(triage.ts)
    assert post is not None and post.blocks[0]["text"]["text"] == "Triage: inference_engine · ENG_KV_CACHE"
    body = str(post.blocks)
    assert "*Evidence*" in body and "kv_cache_usage" in body and "*Blast radius*" in body
    buttons = [e for b in post.blocks if b["type"] == "actions" for e in b["elements"]]
    assert [b["action_id"] for b in buttons][:2] == ["approve-proposal", "reject-proposal"]
    assert "kv-cache-exhaustion.md" in body  # the runbook link from runbook_url
    # The chart, through files upload v2, in the triage's thread.
    assert slack_bot.slack.calls_to("files.getUploadURLExternal") and slack_bot.slack.calls_to(
        "files.completeUploadExternal"
    )
    chart = channel.replies(triage.ts)
    assert len(chart) == 1 and chart[0].files
    upload = slack_bot.slack.files[chart[0].files[0]]
    assert upload.content is not None and upload.content[:4] == b"\x89PNG" and upload.name.endswith(".png")
    # The one-line notice in the announcements channel, and the timeline says where things went.
    notices = [
        m for c in slack_bot.slack.channels.values() if c.name.startswith("incidents-") for m in c.messages
    ]
    assert any(f"<#{channel.id}>" in m.text for m in notices)
    texts = [e["text"] for e in timeline]
    assert f"Slack channel #{channel.name} created" in texts
    assert any(t.startswith(f"announced in Slack channel #{channel.name}") for t in texts)
    assert any(t.startswith(f"triage posted in Slack channel #{channel.name}") for t in texts)


def test_a_resolved_alert_asks_a_human_and_the_modal_resolves(slack_bot: SlackBot, pack: Pack) -> None:
    import json

    incident_id = slack_bot.alert(pack.alert_body)
    slack_bot.wait_for(incident_id, "announced")
    resolved = json.loads(pack.alert_body)
    resolved["status"] = "resolved"
    for alert in resolved["alerts"]:
        alert["status"], alert["endsAt"] = "resolved", "2026-06-16T19:10:00Z"
    slack_bot.alert(json.dumps(resolved).encode())
    channel = slack_bot.channel(incident_id)
    eventually(
        lambda: any(
            m.blocks and m.blocks[-1].get("block_id") == f"resolve-{incident_id}" for m in channel.messages
        )
    )
    notice = next(
        m for m in channel.messages if m.blocks and m.blocks[-1].get("block_id") == f"resolve-{incident_id}"
    )
    assert (
        slack_bot.deps.services.incidents.get(incident_id).incident.status.value == "open"
    )  # a human decides
    button = notice.blocks[-1]["elements"][0]
    slack_bot.click(
        channel.id,
        notice.ts,
        {"action_id": button["action_id"], "block_id": f"resolve-{incident_id}", "value": button["value"]},
    )
    eventually(lambda: bool(slack_bot.slack.views))
    view = slack_bot.slack.views[-1].view
    assert view["callback_id"] == "incident-resolve-modal"

    def submit(reason: str):  # type: ignore[no-untyped-def]
        return slack_bot.interaction(
            {
                "type": "view_submission",
                "user": {"id": "U0BOB"},
                "team": {"id": "T0SANDBOX"},
                "api_app_id": "A0SANDBOX",
                "view": {
                    "id": "V1",
                    "type": "modal",
                    "callback_id": view["callback_id"],
                    "private_metadata": view["private_metadata"],
                    "state": {
                        "values": {"reason": {"reason-input": {"type": "plain_text_input", "value": reason}}}
                    },
                },
            }
        )

    refused = submit("   ")
    assert refused.status_code == 200 and refused.json() == {
        "response_action": "errors",
        "errors": {"reason": "Say why it is resolved."},
    }
    assert submit("traffic back to normal after the surge").status_code == 200
    eventually(lambda: slack_bot.deps.services.incidents.get(incident_id).incident.status.value == "resolved")
    incident = slack_bot.deps.services.incidents.get(incident_id).incident
    assert incident.resolved_by == "U0BOB" and incident.resolution == "traffic back to normal after the surge"
    # The summary comes from the worker, as after any resolve (CLI, API, command).
    eventually(lambda: any("Resolved by <@U0BOB>" in str(m.blocks) for m in channel.messages))


def test_requests_not_signed_by_slack_are_refused(slack_bot: SlackBot) -> None:
    channel = slack_bot.slack.add_channel(f"lobby-{time.monotonic_ns()}", members=["UBOT", "U0ANA"])
    payload = slack_bot.slack.slash_command(
        slack_bot.slack_url, "/incident", text="help", user_id="U0ANA", channel_id=channel.id
    )
    body, form = urlencode(payload).encode(), "application/x-www-form-urlencoded"
    assert slack_bot.signed(body, content_type=form, secret="not-the-secret").status_code == 401
    assert slack_bot.signed(body, content_type=form, at=int(time.time()) - 301).status_code == 401  # stale
    assert (
        slack_bot.signed(body, content_type=form, at=int(time.time()) + 360).status_code == 401
    )  # from the future
    unsigned = httpx.post(
        f"{slack_bot.url}/slack/events", content=body, headers={"Content-Type": form}, timeout=10
    )
    assert unsigned.status_code == 401
    assert not slack_bot.slack.responses(payload["response_url"])  # nothing answered, nothing done
    assert (
        slack_bot.signed(body, content_type=form).status_code == 200
    )  # the same body, signed now with the app's secret
    assert slack_bot.replies(payload["response_url"])
