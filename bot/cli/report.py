"""`report`: how often the first triage's category, code and first action matched the final
ones, per final category, over the incidents resolved in a window."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Annotated

import typer

from bot.cli.app import JsonFlag, app, fail, services
from bot.errors import BotError, PayloadError

UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def window(text: str) -> timedelta:
    """`30d`, `12h`, `2w`, `90m` as a duration (PayloadError otherwise)."""
    match = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text)
    if match is None or int(match[1]) == 0:
        raise PayloadError(f"--since takes a number and a unit (m, h, d, w), e.g. 30d, not {text!r}")
    return timedelta(**{UNITS[match[2]]: int(match[1])})


@app.command("report")
def report(
    since: Annotated[str, typer.Option(help="Incidents resolved in this window: 30d, 12h, 2w.")] = "30d",
    as_json: JsonFlag = False,
) -> None:
    """Score the first triage against the final tag, per final category."""
    from bot.clock import utc_now
    from bot.postmortem.scorecard import scorecard, table

    try:
        span = window(since)
        svc = services()
        resolved = svc.incidents.resolved_since(utc_now() - span)
        card = scorecard([svc.postmortems.get(i.id) for i in resolved])
    except BotError as exc:
        fail(exc)
    typer.echo(json.dumps(card.model_dump(mode="json"), indent=2) if as_json else table(card, since=since))
