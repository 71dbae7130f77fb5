"""`/incident` through signed requests to `/slack/events`: every subcommand, its errors, and the
timeline saying which Slack user did what. Replies go to the command's response URL, ephemerally."""

from __future__ import annotations

import re
import time

from bot.sandbox.slack.state import Channel
from tests.slack.conftest import SlackBot, eventually

HELP_LINE = "*`/incident` commands*"


def reply(bot: SlackBot, text: str, *, channel: str, user: str = "U0ANA") -> str:
    """The one ephemeral reply to `/incident text`, after the command was acked at once."""
    answer, url = bot.command(text, channel=channel, user=user)
    assert answer.status_code == 200 and answer.text == "", answer.text  # an empty ack, no inline reply
    texts = bot.replies(url)
    assert len(texts) == 1, texts
    post = bot.slack.responses(url)[0]
    assert post.response_type == "ephemeral" and (post.status, post.answer) == (200, "ok")
    return texts[0]


def events(bot: SlackBot, incident_id: int) -> list[tuple[str, str, str]]:
    timeline = bot.deps.services.incidents.get(incident_id).timeline
    return [(e.kind.value, e.actor, e.text) for e in timeline]


def declared(bot: SlackBot, channel: str) -> tuple[int, Channel]:
    """`/incident new …` from a channel, then the declared incident's own channel once announced."""
    text = reply(bot, "new  Pool B lost two GPU nodes   minor", channel=channel, user="U0BOB")
    found = re.fullmatch(r"Incident (\d+) declared \(minor\): its channel comes up in a moment\.", text)
    assert found, text
    incident_id = int(found.group(1))
    bot.wait_for(incident_id, "announced")
    return incident_id, bot.channel(incident_id)


def test_help_unknown_and_channel_commands_outside_an_incident(slack_bot: SlackBot) -> None:
    lobby = slack_bot.slack.add_channel(f"lobby-{time.monotonic_ns()}", members=["UBOT", "U0ANA"]).id
    assert reply(slack_bot, "", channel=lobby).startswith(HELP_LINE)
    assert reply(slack_bot, "HELP", channel=lobby).startswith(HELP_LINE)
    unknown = reply(slack_bot, "frobnicate now", channel=lobby)
    assert unknown.startswith("Unknown subcommand `frobnicate`.") and HELP_LINE in unknown
    # Slack sends the user's text as typed: markup in it is escaped, never echoed as a mention.
    assert "&lt;!channel&gt;" in reply(slack_bot, "<!channel>", channel=lobby)
    for verb in (
        "status",
        "triage",
        "tag network",
        "severity minor",
        "ack",
        "note hi",
        "timeline",
        "resolve ok",
    ):
        said = reply(slack_bot, verb, channel=lobby)
        assert said.startswith(
            f"`/incident {verb.split()[0]}` works in an incident's channel, and this is not one."
        ), said
    assert (
        reply(slack_bot, "new", channel=lobby)
        == "Say what is wrong: `/incident new <title> [critical|major|minor|info]`."
    )


def test_every_subcommand_in_the_incident_channel(slack_bot: SlackBot) -> None:
    lobby = slack_bot.slack.add_channel(f"lobby-{time.monotonic_ns()}", members=["UBOT", "U0BOB"]).id
    incident_id, channel = declared(slack_bot, lobby)
    assert re.fullmatch(rf"inc-\d{{8}}-pool-b-lost-two-gpu-nodes-{incident_id}(-\d+)?", channel.name), (
        channel.name
    )
    assert channel.messages and channel.pins == [channel.messages[0].ts]  # announced like an alert's
    here = channel.id

    status = reply(slack_bot, "status", channel=here)
    assert f"Incident {incident_id}" in status and "minor" in status and "open" in status

    assert reply(slack_bot, "ack", channel=here) == f"Incident {incident_id} acknowledged."
    assert (
        reply(slack_bot, "severity CRITICAL", channel=here, user="U0CAROL")
        == f"Incident {incident_id} is now `critical`."
    )
    assert reply(slack_bot, "severity sky-high", channel=here).startswith(
        "Severity is one of critical, major, minor, info"
    )
    tagged = reply(slack_bot, "tag infrastructure two nodes NotReady in pool b", channel=here)
    assert tagged == f"Incident {incident_id} tagged `infrastructure`."
    assert reply(slack_bot, "tag gremlins", channel=here).startswith(
        "Tag with one of infrastructure, model_config"
    )
    assert reply(slack_bot, "note drained pool b by hand", channel=here) == "Noted on the timeline."
    assert reply(slack_bot, "note", channel=here) == "Say what to note: `/incident note <text>`."

    run = reply(slack_bot, "triage", channel=here)
    assert run == "Triage run 2 queued: it posts here when done."
    slack_bot.wait_for(incident_id, "triage_posted")
    eventually(lambda: slack_bot.deps.services.chat.message(incident_id, "triage", 2) is not None, timeout=60)
    second = slack_bot.deps.services.chat.message(incident_id, "triage", 2)
    assert second is not None and second.channel_id == here and channel.message(second.ts) is not None

    timeline = reply(slack_bot, "timeline", channel=here)
    assert "drained pool b by hand" in timeline and "acknowledged" in timeline

    assert (
        reply(slack_bot, "resolve", channel=here)
        == "Say why it is resolved: `/incident resolve [CODE] <reason>`, e.g. `resolve ENG_KV_CACHE surge over`."
    )
    assert (
        reply(slack_bot, "resolve nodes replaced, pool b back", channel=here, user="U0CAROL")
        == f"Incident {incident_id} resolved: the summary and the postmortem draft follow here."
    )
    assert "resolved" in reply(slack_bot, "status", channel=here)
    # A change the lifecycle refuses is an ephemeral warning, not a failed command.
    refused = reply(slack_bot, "ack", channel=here)
    assert refused.startswith(":warning:"), refused

    # Every change is on the timeline with the Slack user who made it.
    by_kind = {(kind, actor) for kind, actor, _ in events(slack_bot, incident_id)}
    assert {
        ("opened", "U0BOB"),
        ("acknowledged", "U0ANA"),
        ("severity_changed", "U0CAROL"),
        ("category_tagged", "U0ANA"),
        ("note", "U0ANA"),
        ("triage_requested", "U0ANA"),
        ("resolved", "U0CAROL"),
    } <= by_kind, by_kind
    tag = next(text for kind, _, text in events(slack_bot, incident_id) if kind == "category_tagged")
    assert "two nodes NotReady in pool b" in tag
