"""Incident channel names: the configured template, filled, then made a name Slack accepts.

Slack validates rather than normalises (`conversations.create` refuses upper case with
`invalid_name_specials`): lower case, `[a-z0-9-_]`, at most 80 characters. The incident id stays
whole when a name is cut, and a taken name gets a numbered suffix.
"""

from __future__ import annotations

import re

from bot.domain import Incident

MAX_NAME = 80
_NOT_ALLOWED = re.compile(r"[^a-z0-9_-]+")
_REPEATS = re.compile(r"-{2,}")


def slug(text: str) -> str:
    """Lower case, runs of anything Slack refuses as one dash, no dashes at the ends."""
    return _REPEATS.sub("-", _NOT_ALLOWED.sub("-", text.lower())).strip("-_")


def channel_name(template: str, incident: Incident) -> str:
    """The template filled for `incident` and cut to Slack's rules (its id is never cut away)."""
    fields = {
        "date": f"{incident.opened_at:%Y%m%d}",
        "service": slug(incident.service or incident.alertname or incident.title) or "incident",
        "id": str(incident.id),
        "alertname": slug(incident.alertname or "declared"),
        "severity": incident.severity.value,
    }
    name = slug(template.format(**fields)) or f"inc-{incident.id}"
    if len(name) <= MAX_NAME:
        return name
    tail = f"-{incident.id}" if name.endswith(f"-{incident.id}") else ""
    return name[: MAX_NAME - len(tail)].rstrip("-_") + tail


def candidates(name: str, *, tries: int = 8) -> list[str]:
    """The name, then numbered variants for when it is taken (an archived channel keeps its name)."""
    out = [name]
    for n in range(2, tries + 1):
        suffix = f"-{n}"
        out.append(name[: MAX_NAME - len(suffix)].rstrip("-_") + suffix)
    return out
