"""Slack limits and faults: a retried announcement and two racing replicas make one channel, 429s
wait their Retry-After, and with Slack unreachable or the token revoked the incident still opens
and triages while the timeline says what did not reach Slack, until a retry gets it there."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bot.announce import build_announcement
from bot.clock import utc_now
from bot.deps import build_deps
from bot.domain import Severity
from bot.sandbox.pack import Pack
from bot.sandbox.up import Sandbox
from bot.slack.client import web_client
from bot.slack.publisher import SlackPublisher
from tests.slack.conftest import SlackBot, running_bot, slack_config


def failures(timeline: list[dict[str, object]]) -> list[str]:
    return [str(e["text"]) for e in timeline if e["kind"] == "post_failed"]


def test_a_retried_announce_job_furnishes_the_one_channel_it_made(slack_bot: SlackBot, pack: Pack) -> None:
    # pins.add answers 429 four times: once and the three retries of the first attempt.
    slack_bot.slack.rate_limit("pins.add", times=4, retry_after=0)
    incident_id = slack_bot.alert(pack.alert_body)
    timeline = slack_bot.wait_for(incident_id, "announced")
    assert failures(timeline) == [
        "the announcement did not reach Slack: pins.add: ratelimited (attempt 1 of 18, retried)"
    ]
    channel = slack_bot.channel(incident_id)
    cid = channel.id
    assert (
        len(
            [
                c
                for c in slack_bot.slack.calls_to("conversations.create")
                if c.error is None and c.params["name"] == channel.name
            ]
        )
        == 1
    )
    # The second attempt skipped what the first had done: one topic, one announcement, pinned once.
    assert (
        len([c for c in slack_bot.slack.calls_to("conversations.setTopic") if c.params["channel"] == cid])
        == 1
    )
    announcements = [
        m for m in channel.messages if "SupportBotTimePerOutputTokenHigh" in str(m.blocks) and not m.thread_ts
    ]
    assert len(announcements) == 1 and channel.pins == [announcements[0].ts]
    assert (
        len([c for c in slack_bot.slack.calls_to("pins.add") if c.params["channel"] == cid]) == 5
    )  # 4 refused, 1 done


def test_a_429_waits_its_retry_after_and_then_goes_through(slack_bot: SlackBot, pack: Pack) -> None:
    slack_bot.slack.rate_limit("conversations.setTopic", times=1, retry_after=2)
    incident_id = slack_bot.alert(pack.alert_body)
    timeline = slack_bot.wait_for(incident_id, "announced")
    assert failures(timeline) == []  # the client's retry handler waited; the job never failed
    cid = slack_bot.channel(incident_id).id
    calls = [c for c in slack_bot.slack.calls_to("conversations.setTopic") if c.params["channel"] == cid]
    assert [c.error for c in calls] == ["ratelimited", None]
    assert (calls[1].time - calls[0].time).total_seconds() >= 2.0


def test_posts_to_one_channel_keep_to_about_one_a_second(slack_bot: SlackBot, pack: Pack) -> None:
    incident_id = slack_bot.alert(pack.alert_body)
    slack_bot.wait_for(incident_id, "triage_posted")
    cid = slack_bot.channel(incident_id).id
    posting = {"chat.postMessage", "chat.update", "files.completeUploadExternal"}
    stamps = [
        c.time.timestamp()
        for c in slack_bot.slack.calls
        if c.method in posting and cid in (c.params.get("channel"), c.params.get("channel_id"))
    ]
    assert len(stamps) >= 3  # the announcement, the progress or the triage post, the chart
    # A burst of three, then one a second: never more than 3 + t posts in t seconds.
    for i, first in enumerate(stamps):
        for j in range(i, len(stamps)):
            assert j - i + 1 <= 3 + (stamps[j] - first) + 0.05, stamps


def test_two_replicas_racing_make_one_channel(sandbox: Sandbox, database_url: str) -> None:
    with running_bot(sandbox, database_url) as bot:
        other = build_deps(bot.deps.settings, config=slack_config(None))  # a second replica
        try:
            title = f"race {time.monotonic_ns()}"
            incident = bot.deps.services.incidents.declare(
                title=title, severity=Severity.MAJOR, actor="U0ANA"
            )
            detail = bot.deps.services.incidents.get(incident.id)
            announcement = build_announcement(detail, bot.deps.config, now=utc_now())
            replicas = [
                SlackPublisher(web_client(d.settings), d.services.chat, d.services.incidents, d.config)
                for d in (bot.deps, other)
            ]
            start = threading.Barrier(len(replicas))

            def announce(publisher: SlackPublisher) -> str:
                start.wait()
                return publisher.announce(incident, announcement)

            with ThreadPoolExecutor(len(replicas)) as pool:
                where = list(pool.map(announce, replicas))
            bot.wait_for(incident.id, "announced")  # the bot's own worker ran the job too
        finally:
            other.close()
        assert where[0] == where[1]
        created = [
            c
            for c in bot.slack.calls_to("conversations.create")
            if title.replace(" ", "-") in str(c.params["name"])
        ]
        assert len(created) == 1 and created[0].error is None
        channel = bot.channel(incident.id)
        assert len([m for m in channel.messages if not m.thread_ts and title in str(m.blocks)]) == 1
        assert len(channel.pins) == 1


def test_a_revoked_token_still_opens_and_triages_and_the_retry_posts(slack_bot: SlackBot, pack: Pack) -> None:
    token = slack_bot.slack.token
    slack_bot.slack.revoke(token)
    try:
        incident_id = slack_bot.alert(pack.alert_body)
        slack_bot.wait_for(incident_id, "triaged")  # the triage does not wait for Slack
        timeline = slack_bot.wait_for(incident_id, "post_failed")
        assert failures(timeline)[0] == (
            "the announcement did not reach Slack: conversations.create: token_revoked (the bot's token was revoked: "
            "reinstall the app and set SLACK_BOT_TOKEN) (attempt 1 of 18, retried)"
        )
        stored = slack_bot.deps.services.chat.channel(incident_id)
        assert stored is None or stored.channel_id is None
        assert slack_bot.deps.services.incidents.triage(incident_id) is not None
    finally:
        slack_bot.slack.reinstate(token)
    timeline = slack_bot.wait_for(incident_id, "triage_posted", timeout=90)
    assert any(e["kind"] == "announced" for e in timeline)
    triage = slack_bot.deps.services.chat.message(incident_id, "triage", 1)
    assert triage is not None and slack_bot.slack.channel(triage.channel_id).message(triage.ts) is not None


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_slack_unreachable_still_opens_and_triages(sandbox: Sandbox, database_url: str, pack: Pack) -> None:
    with running_bot(sandbox, database_url, slack_api_url=f"http://127.0.0.1:{closed_port()}/api/") as bot:
        incident_id = bot.alert(pack.alert_body)
        bot.wait_for(incident_id, "triaged")
        timeline = bot.wait_for(incident_id, "post_failed")
        failed = failures(timeline)
        assert failed[0].startswith(
            "the announcement did not reach Slack: conversations.create: Slack unreachable ("
        )
        assert failed[0].endswith("(attempt 1 of 18, retried)")
        stored = bot.deps.services.incidents.triage(incident_id)
        assert stored is not None and stored.result.category is not None  # the responder can still read it
