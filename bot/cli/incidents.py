"""`incidents …`: list, show and change incidents through the incident service."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated

import typer

from bot.cli.app import Actor, JsonFlag, fail, incidents_app, services
from bot.domain import Category, IncidentStatus, Severity
from bot.errors import BotError
from bot.incidents import IncidentService


def _apply(change: Callable[[IncidentService], object], message: Callable[[object], str] | str) -> None:
    try:
        done = change(services().incidents)
    except BotError as exc:
        fail(exc)
    typer.echo(message(done) if callable(message) else message)


@incidents_app.command("list")
def incidents_list(
    status: Annotated[IncidentStatus | None, typer.Option(help="Only incidents in this status.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """List incidents, newest first."""
    from bot.render import incident_table

    try:
        found = services().incidents.list(status=status)
    except BotError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps([i.model_dump(mode="json") for i in found], indent=2))
    else:
        typer.echo(incident_table(found))


@incidents_app.command("show")
def incidents_show(incident_id: int, as_json: JsonFlag = False) -> None:
    """Show one incident with its alerts, timeline and latest triage (the triage result JSON)."""
    from bot.render import incident_detail

    try:
        detail = services().incidents.get(incident_id)
    except BotError as exc:
        fail(exc)
    typer.echo(detail.model_dump_json(indent=2) if as_json else incident_detail(detail))


@incidents_app.command("declare")
def incidents_declare(
    title: str,
    actor: Actor,
    severity: Annotated[Severity, typer.Option(help="Severity.")] = Severity.MAJOR,
    service: Annotated[str | None, typer.Option(help="Affected service.")] = None,
    namespace: Annotated[str | None, typer.Option(help="Namespace of the service.")] = None,
) -> None:
    """Open an incident by hand (it is announced and triaged like an alert's)."""
    _apply(
        lambda s: s.declare(
            title=title, severity=severity, actor=actor, service=service, namespace=namespace
        ),
        lambda incident: f"incident {getattr(incident, 'id', '?')} opened",
    )


@incidents_app.command("ack")
def incidents_ack(incident_id: int, actor: Actor) -> None:
    """Acknowledge an incident."""
    _apply(lambda s: s.acknowledge(incident_id, actor=actor), f"incident {incident_id} acknowledged")


@incidents_app.command("severity")
def incidents_severity(incident_id: int, severity: Severity, actor: Actor) -> None:
    """Set an incident's severity."""
    _apply(
        lambda s: s.set_severity(incident_id, severity, actor=actor), f"incident {incident_id} is {severity}"
    )


@incidents_app.command("tag")
def incidents_tag(incident_id: int, category: Category, actor: Actor) -> None:
    """Tag an incident's category."""
    _apply(
        lambda s: s.tag_category(incident_id, category, actor=actor),
        f"incident {incident_id} tagged {category}",
    )


@incidents_app.command("note")
def incidents_note(incident_id: int, text: str, actor: Actor) -> None:
    """Add a note to an incident's timeline."""
    _apply(lambda s: s.add_note(incident_id, text, actor=actor), f"note added to incident {incident_id}")


@incidents_app.command("triage")
def incidents_triage(incident_id: int, actor: Actor) -> None:
    """Queue a new triage run of an incident (the worker runs it and posts it again)."""
    _apply(
        lambda s: s.request_triage(incident_id, actor=actor),
        lambda run: f"incident {incident_id}: triage run {run} queued",
    )


@incidents_app.command("resolve")
def incidents_resolve(
    incident_id: int,
    actor: Actor,
    reason: Annotated[str, typer.Option(help="Why it is resolved.")],
) -> None:
    """Resolve an incident with a reason."""
    _apply(lambda s: s.resolve(incident_id, reason=reason, actor=actor), f"incident {incident_id} resolved")
