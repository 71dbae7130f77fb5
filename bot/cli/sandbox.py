"""`sandbox up` (serve a pack's backends) and `sandbox validate` (check pack files)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.app import Termination, VariantOption, fail, sandbox_app
from bot.errors import BotError


@sandbox_app.command("up")
def sandbox_up(
    pack: Annotated[Path, typer.Option("--pack", help="Scenario pack directory.")],
    llm_script: Annotated[
        Path | None, typer.Option("--llm-script", help="YAML/JSON script the OpenAI stand-in plays.")
    ] = None,
    variant: VariantOption = "",
) -> None:
    """Serve a pack's backends until interrupted: Prometheus, Elasticsearch and Kubernetes for the
    files the pack has, Slack always, OpenAI only with a script.

    The first line printed is one JSON object: the URLs and `env`, the variables that point the
    bot at them (`serve` with that environment triages the pack's alert as `triage --pack` does).
    """
    from bot.sandbox.openai import load_script
    from bot.sandbox.pack import load_pack
    from bot.sandbox.up import Sandbox
    from bot.sandbox.variant import Variant

    try:
        loaded = load_pack(pack, with_expected=False)
        script = load_script(llm_script) if llm_script else None
        termination = Termination()
        served = Variant.parse(variant)
        with Sandbox(loaded, llm_script=script, variant=served) as running:
            first = {"pack": loaded.name, "variant": str(served), **running.urls, "env": running.env}
            typer.echo(json.dumps(first))
            sys.stdout.flush()
            termination.wait()
    except BotError as exc:
        fail(exc)
    typer.echo("sandbox stopped", err=True)


@sandbox_app.command("validate")
def sandbox_validate(packs: Annotated[list[Path], typer.Argument(help="Pack directories.")]) -> None:
    """Load and validate packs as `eval` does; exit 1 naming the first problem of each invalid one."""
    from bot.sandbox.pack import load_pack
    from bot.sandbox.prometheus import check_metrics

    failed = 0
    for path in packs:
        try:
            loaded = load_pack(path)
            if loaded.metrics is not None:
                check_metrics(loaded.metrics)
        except BotError as exc:
            failed += 1
            typer.echo(f"FAIL {path}: {exc.message}")
            continue
        expected = f"{loaded.expected.category.value}/{loaded.expected.code}" if loaded.expected else "-"
        typer.echo(
            f"ok   {loaded.name}: {len(loaded.logs)} log lines, {len(loaded.objects)} objects, {expected}"
        )
    raise typer.Exit(1 if failed else 0)
