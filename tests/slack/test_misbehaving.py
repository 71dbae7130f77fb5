"""Slack refusing for longer than a retry: a channel a human archived mid-incident, and failures said on
the timeline without drowning it while a job retries for an hour."""

from __future__ import annotations

import json

import httpx

from bot.alertmanager import parse_payload
from bot.deps import Deps
from bot.sandbox.pack import Pack
from tests.conftest import api_headers
from tests.slack.conftest import SlackBot, eventually
from tests.slack.test_faults import failures
from tests.support.payloads import alert, webhook


def timeline(bot: SlackBot, incident_id: int) -> list[dict[str, object]]:
    answer = httpx.get(f"{bot.url}/api/incidents/{incident_id}", headers=api_headers(), timeout=10)
    return list(answer.json()["timeline"])


def test_a_channel_archived_mid_incident_is_named_and_the_post_follows_its_unarchiving(
    slack_bot: SlackBot, pack: Pack
) -> None:
    """The second triage run is stored whatever Slack says; its post is refused with the reason and what
    to do, retried with backoff, and goes through once someone unarchives the channel."""
    incident_id = slack_bot.alert(pack.alert_body)
    slack_bot.wait_for(incident_id, "triage_posted")
    channel = slack_bot.channel(incident_id)
    channel.is_archived = True  # as a person archiving it in Slack leaves it
    asked = httpx.post(
        f"{slack_bot.url}/api/incidents/{incident_id}/triage",
        json={"actor": "ana"},
        headers=api_headers(),
        timeout=10,
    )
    assert asked.status_code == 200 and asked.json()["run"] == 2
    eventually(lambda: len(failures(timeline(slack_bot, incident_id))) >= 2, timeout=30)
    said = failures(timeline(slack_bot, incident_id))
    assert said[0] == (
        "the triage run 2 did not reach Slack: chat.postMessage: is_archived (someone archived the channel "
        "in Slack: unarchive it and the post follows) (attempt 1 of 18, retried)"
    )
    assert said[1].endswith("(attempt 2 of 18, retried)")
    assert slack_bot.deps.services.incidents.triage(incident_id, 2) is not None  # stored all the same
    channel.is_archived = False
    events = slack_bot.wait_for(incident_id, "triage_posted", timeout=30)
    eventually(
        lambda: sum(e["kind"] == "triage_posted" for e in timeline(slack_bot, incident_id)) == 2, timeout=30
    )
    assert [e["kind"] for e in events].count("opened") == 1
    run2 = slack_bot.deps.services.chat.message(incident_id, "triage", 2)
    assert run2 is not None and channel.message(run2.ts) is not None
    posted = [m for m in channel.messages if not m.thread_ts and "triage" in m.text.lower()]
    assert len(posted) == 2, [m.text for m in posted]  # one post a run, however many attempts


def test_an_hour_of_failures_is_a_handful_of_timeline_entries(deps: Deps) -> None:
    """Attempts 1, 2, 4, 8, 16 and the last are said; so is any attempt whose reason changed."""
    opened = deps.services.intake.ingest(parse_payload(json.dumps(webhook([alert()])).encode()))
    assert opened.incident_id is not None
    incidents = deps.services.incidents
    for attempt in range(1, 19):
        error = "chat.postMessage: Slack unreachable (timed out)"
        if attempt in (6, 7):
            error = "chat.postMessage: ratelimited"
        incidents.record_post_failure(
            opened.incident_id, what="announcement", error=error, attempt=attempt, of=18
        )
    said = [
        (e.data["attempt"], e.data["error"])
        for e in incidents.get(opened.incident_id).timeline
        if e.kind == "post_failed"
    ]
    assert [a for a, _ in said] == [1, 2, 4, 6, 8, 16, 18]
    assert said[3][1] == "chat.postMessage: ratelimited" and said[4][1].endswith("(timed out)")
    last = [e.text for e in incidents.get(opened.incident_id).timeline if e.kind == "post_failed"][-1]
    assert last.endswith("(gave up after 18 attempts)")


def test_a_storm_of_5xx_from_slack_delays_the_post_and_it_lands_once(slack_bot: SlackBot, pack: Pack) -> None:
    """Slack failing on its side (HTTP 500, nothing changed) for several calls in a row: the incident
    triages meanwhile, each failed attempt is said, and the triage is posted once when Slack is back."""
    before = len(slack_bot.slack.calls)  # the stand-in serves the whole module
    slack_bot.slack.fail("chat.postMessage", times=6, status=503)
    incident_id = slack_bot.alert(pack.alert_body)
    events = slack_bot.wait_for(incident_id, "triage_posted", timeout=120)
    said = failures(events)
    assert said and all("fatal_error" in s for s in said), said
    assert slack_bot.deps.services.incidents.triage(incident_id) is not None
    channel = slack_bot.channel(incident_id)
    triage = slack_bot.deps.services.chat.message(incident_id, "triage", 1)
    assert triage is not None and channel.message(triage.ts) is not None
    tops = [m for m in channel.messages if not m.thread_ts]
    assert len({m.ts for m in tops}) == len(tops)
    assert (
        sum(e["kind"] == "triage_posted" for e in events) == 1
        and [e["kind"] for e in events].count("announced") == 1
    )
    refused = [c for c in slack_bot.slack.calls[before:] if c.error == "fatal_error"]
    assert len(refused) == 6  # each failure was a real call: retried, none skipped
