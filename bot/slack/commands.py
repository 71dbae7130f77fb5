"""`/incident` subcommands: parse the text, call the services, say what happened.

Pure of Slack: the listener acks, runs `answer` in a thread (the services are synchronous) and
sends the reply as an ephemeral response. Every change goes through the incident service, so it
lands on the timeline with the Slack user as its actor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.deps import Services
from bot.domain import Category, Severity
from bot.errors import BotError
from bot.slack.blocks.notices import HELP, status_text, timeline_text
from bot.slack.blocks.text import escape

CODE = re.compile(r"[A-Z]{2,5}_[A-Z0-9_]+")
IN_CHANNEL = {"status", "triage", "tag", "severity", "ack", "note", "timeline", "resolve"}


@dataclass(frozen=True)
class Invocation:
    """What Slack sent with the command."""

    text: str
    user_id: str
    channel_id: str


def _enum_value(word: str, kind: type[Severity] | type[Category]) -> str | None:
    values = {member.value for member in kind}
    return word.lower() if word.lower() in values else None


def answer(invocation: Invocation, services: Services) -> str:
    """The reply to one `/incident …`; errors are replies too, never exceptions."""
    verb, _, rest = invocation.text.strip().partition(" ")
    verb, rest = verb.lower(), rest.strip()
    try:
        if verb in ("", "help"):
            return HELP
        if verb == "new":
            return _new(rest, invocation, services)
        if verb not in IN_CHANNEL:
            return f"Unknown subcommand `{escape(verb)}`.\n{HELP}"
        incident_id = services.chat.incident_of(invocation.channel_id)
        if incident_id is None:
            return (
                f"`/incident {escape(verb)}` works in an incident's channel, and this is not one. "
                "Use it there, or `/incident new <title>` to declare an incident."
            )
        return _in_channel(verb, rest, incident_id, invocation.user_id, services)
    except BotError as exc:
        return f":warning: {escape(exc.message)}"


def _new(rest: str, invocation: Invocation, services: Services) -> str:
    words = rest.split()
    severity = Severity(words.pop()) if words and _enum_value(words[-1], Severity) else Severity.MAJOR
    title = " ".join(words)
    if not title:
        return "Say what is wrong: `/incident new <title> [critical|major|minor|info]`."
    incident = services.incidents.declare(title=title, severity=severity, actor=invocation.user_id)
    return f"Incident {incident.id} declared ({severity.value}): its channel comes up in a moment."


def _in_channel(verb: str, rest: str, incident_id: int, actor: str, services: Services) -> str:
    incidents = services.incidents
    if verb == "status":
        detail = incidents.get(incident_id)
        return status_text(detail.incident, incidents.triage(incident_id))
    if verb == "timeline":
        detail = incidents.get(incident_id)
        return timeline_text(detail.incident, detail.timeline)
    if verb == "triage":
        run = incidents.request_triage(incident_id, actor=actor)
        return f"Triage run {run} queued: it posts here when done."
    if verb == "ack":
        incidents.acknowledge(incident_id, actor=actor)
        return f"Incident {incident_id} acknowledged."
    if verb == "tag":
        word, _, reason = rest.partition(" ")
        category = _enum_value(word, Category)
        if category is None:
            return f"Tag with one of {', '.join(c.value for c in Category)}: `/incident tag <category> [reason]`."
        incidents.tag_category(incident_id, Category(category), actor=actor, reason=reason.strip() or None)
        return f"Incident {incident_id} tagged `{category}`."
    if verb == "severity":
        level = _enum_value(rest, Severity)
        if level is None:
            return f"Severity is one of {', '.join(s.value for s in Severity)}: `/incident severity <level>`."
        incidents.set_severity(incident_id, Severity(level), actor=actor)
        return f"Incident {incident_id} is now `{level}`."
    if verb == "note":
        if not rest:
            return "Say what to note: `/incident note <text>`."
        incidents.add_note(incident_id, rest, actor=actor)
        return "Noted on the timeline."
    # resolve [CODE | category] <reason>
    category, code, reason = _final_tag(rest)
    if not reason:
        return "Say why it is resolved: `/incident resolve [CODE] <reason>`, e.g. `resolve ENG_KV_CACHE surge over`."
    resolved = incidents.resolve(incident_id, reason=reason, actor=actor, category=category, code=code)
    tag = f" as `{resolved.category}` / `{resolved.code}`" if resolved.code else ""
    return f"Incident {incident_id} resolved{tag}: the summary and the postmortem draft follow here."


def _final_tag(rest: str) -> tuple[Category | None, str | None, str]:
    """A leading code or category of `resolve`, and the reason after it."""
    word, _, after = rest.partition(" ")
    if CODE.fullmatch(word):  # an unknown one is refused by the service, with a did-you-mean
        return None, word, after.strip()
    category = _enum_value(word, Category)
    if category is not None:
        return Category(category), None, after.strip()
    return None, None, rest
