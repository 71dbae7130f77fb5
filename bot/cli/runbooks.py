"""`runbooks check`: every problem of a runbook folder, like a compiler, before the bot loads it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bot.cli.app import fail, runbooks_app, settings
from bot.errors import BotError


@runbooks_app.command("check")
def runbooks_check(
    folder: Annotated[
        Path | None,
        typer.Argument(
            help="Runbook folder (default RUNBOOKS_DIR, else the bundled runbooks/).", file_okay=False
        ),
    ] = None,
    coverage: Annotated[
        bool, typer.Option("--coverage", help="Also warn about the taxonomy codes no runbook names.")
    ] = False,
) -> None:
    """Check every runbook of the folder against the taxonomy (TAXONOMY_FILE) and the action catalog:
    print each problem as FILE:LINE: field: message and exit 1, or a one-line summary and exit 0."""
    from bot.triage.runbook_check import check_folder
    from bot.triage.runbooks import DEFAULT_DIR
    from bot.triage.taxonomy import DEFAULT_TAXONOMY, load_taxonomy

    loaded = settings()
    target = folder or loaded.runbooks_dir or DEFAULT_DIR
    try:
        taxonomy = load_taxonomy(loaded.taxonomy_file or DEFAULT_TAXONOMY)
    except BotError as exc:
        fail(exc)
    result = check_folder(target, taxonomy)
    for line in [*result.problems, *(result.warnings if coverage else [])]:
        typer.echo(line, err=True)
    if not result.ok:
        typer.echo(result.failure(), err=True)
        raise typer.Exit(1)
    typer.echo(result.summary(taxonomy))
