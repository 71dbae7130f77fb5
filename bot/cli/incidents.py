"""`incidents …`: list, show and change incidents through the incident service."""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
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
    category: Annotated[Category | None, typer.Option(help="Final category (a code settles it).")] = None,
    code: Annotated[str | None, typer.Option(help="Final root-cause code of the taxonomy.")] = None,
) -> None:
    """Resolve an incident with a reason and its final tag; the worker drafts the postmortem."""
    _apply(
        lambda s: s.resolve(incident_id, reason=reason, actor=actor, category=category, code=code),
        lambda i: (
            f"incident {incident_id} resolved"
            + (
                f" as {getattr(i, 'category', None)} / {getattr(i, 'code', None)}"
                if getattr(i, "code", None)
                else ""
            )
        ),
    )


class Format(StrEnum):
    MD = "md"
    JSON = "json"


@incidents_app.command("postmortem")
def incidents_postmortem(
    incident_id: int,
    form: Annotated[Format, typer.Option("--format", help="Markdown or JSON.")] = Format.MD,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file.")] = None,
) -> None:
    """Print a resolved incident's postmortem draft (rebuilt when its timeline grew since)."""
    from bot.postmortem.render import markdown

    try:
        draft = services().postmortems.get(incident_id)
    except BotError as exc:
        fail(exc)
    text = markdown(draft) if form is Format.MD else json.dumps(draft.public(), indent=2) + "\n"
    if output is None:
        typer.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    typer.echo(f"postmortem draft of incident {incident_id} written to {output}")


@incidents_app.command("export-pack")
def incidents_export_pack(
    incident_id: int,
    directory: Annotated[Path, typer.Argument(help="Where to write the pack (new, or an empty directory).")],
) -> None:
    """Export an incident as a scenario pack, read from the live backends over its window (redacted).

    A backend that is not configured or fails leaves its file out, as printed; the pack is usable
    (exit 0) as long as alert.json and scenario.yaml are written."""
    from bot.cli.app import settings
    from bot.config import load_config
    from bot.errors import ConfigError
    from bot.packs.export import export_pack
    from tools.signals import DEFAULT_CATALOG, load_catalog
    from tools.yamlpos import DataFileError

    loaded = settings()
    try:
        config = load_config(loaded.incident_bot_config)
        try:
            catalog = load_catalog(loaded.signals_file or DEFAULT_CATALOG)
        except DataFileError as exc:
            raise ConfigError(exc.message) from exc
        report = export_pack(
            incident_id, directory, settings=loaded, config=config, services=services(), catalog=catalog
        )
    except BotError as exc:
        fail(exc)
    typer.echo(f"incident {incident_id} exported to {report.root}")
    for name in report.written:
        typer.echo(f"  wrote {name}")
    for name, why in report.left_out.items():
        typer.echo(f"  left out {name}: {why}")
    for note in report.notes:
        typer.echo(f"  note: {note}")
