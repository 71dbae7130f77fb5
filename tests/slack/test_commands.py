"""`/incident` subcommands against the real services and store: what each replies and records."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.deps import Deps
from bot.slack.commands import Invocation, answer

CHANNEL = "C0INCIDENT"


def say(deps: Deps, text: str, *, channel: str = CHANNEL, user: str = "U0ANA") -> str:
    return answer(Invocation(text=text, user_id=user, channel_id=channel), deps.services)


@pytest.fixture
def incident_id(deps: Deps) -> int:
    """An incident declared from Slack, whose channel is CHANNEL."""
    reply = say(deps, "new GPU fell off the bus critical", channel="C0GENERAL")
    iid = int(reply.split()[1])
    chat = deps.services.chat
    chat.claim(iid, name="inc-test", owner="t", lease=timedelta(seconds=5))
    chat.created(iid, owner="t", channel_id=CHANNEL, name="inc-test")
    return iid


def test_new_declares_with_the_user_as_actor(deps: Deps, incident_id: int) -> None:
    incident = deps.services.incidents.get(incident_id)
    assert (
        incident.incident.title == "GPU fell off the bus" and incident.incident.severity.value == "critical"
    )
    assert incident.timeline[0].actor == "U0ANA" and incident.timeline[0].kind.value == "opened"
    assert say(deps, "new").startswith("Say what is wrong")


def test_every_change_lands_on_the_timeline_with_the_slack_user(deps: Deps, incident_id: int) -> None:
    assert say(deps, "ack", user="U0BOB") == f"Incident {incident_id} acknowledged."
    assert say(deps, "severity major", user="U0BOB") == f"Incident {incident_id} is now `major`."
    assert (
        say(deps, "tag infrastructure the Xid says so", user="U0CAROL")
        == f"Incident {incident_id} tagged `infrastructure`."
    )
    assert say(deps, "note cordoned by hand", user="U0CAROL") == "Noted on the timeline."
    assert say(deps, "triage", user="U0DAVE") == "Triage run 2 queued: it posts here when done."
    said = say(deps, "resolve card replaced", user="U0BOB")
    assert said == f"Incident {incident_id} resolved: the summary and the postmortem draft follow here."
    events = [(e.actor, e.kind.value, e.text) for e in deps.services.incidents.get(incident_id).timeline]
    assert [e for e in events if e[0] not in ("U0ANA", "incident-bot")] == [
        ("U0BOB", "acknowledged", "acknowledged by U0BOB"),
        ("U0BOB", "severity_changed", "severity critical → major"),
        ("U0CAROL", "category_tagged", "category untagged → infrastructure: the Xid says so"),
        ("U0CAROL", "note", "cordoned by hand"),
        ("U0DAVE", "triage_requested", "triage run 2 requested by U0DAVE"),
        ("U0BOB", "resolved", "resolved by U0BOB: card replaced"),
    ]


def test_status_and_timeline_read_the_incident(deps: Deps, incident_id: int) -> None:
    status = say(deps, "status")
    assert f"*Incident {incident_id}*: GPU fell off the bus" in status and "severity `critical`" in status
    timeline = say(deps, "timeline")
    assert timeline.startswith(f"*Incident {incident_id} timeline* (last 2 of 2)")
    assert (
        "declared by U0ANA: GPU fell off the bus" in timeline
        and "Slack channel #inc-test created" in timeline
    )


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("", "*`/incident` commands*"),
        ("help", "*`/incident` commands*"),
        ("explode now", "Unknown subcommand `explode`."),
        ("tag gremlins", "Tag with one of infrastructure, model_config"),
        ("severity apocalyptic", "Severity is one of critical"),
        ("note", "Say what to note"),
        ("resolve", "Say why it is resolved"),
    ],
)
def test_mistakes_get_the_help_they_need(deps: Deps, incident_id: int, text: str, starts: str) -> None:
    assert say(deps, text).startswith(starts)


def test_channel_commands_outside_an_incident_channel_say_so(deps: Deps, incident_id: int) -> None:
    reply = say(deps, "ack", channel="C0GENERAL")
    assert reply.startswith("`/incident ack` works in an incident's channel, and this is not one.")
    assert deps.services.incidents.get(incident_id).incident.status.value == "open"  # nothing changed


def test_refused_transitions_are_replies(deps: Deps, incident_id: int) -> None:
    say(deps, "resolve done")
    assert say(deps, "ack") == f":warning: incident {incident_id} is resolved, not open"
    assert say(deps, "triage") == f":warning: incident {incident_id} is already resolved"
