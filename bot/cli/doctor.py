"""`doctor`: what each configured backend is and what the bot can get from it."""

from __future__ import annotations

import typer

from bot.cli.app import JsonFlag, app, fail, settings
from bot.errors import BotError


@app.command("doctor")
def doctor(as_json: JsonFlag = False) -> None:
    """Check every configured backend (Prometheus, logs, Kubernetes, GPU agents, Slack, LLM);
    exit 1 when one of them is unusable."""
    from bot.config import load_config
    from bot.doctor.run import diagnose

    loaded = settings()
    try:
        config = load_config(loaded.incident_bot_config)
    except BotError as exc:
        fail(exc)
    diagnosis = diagnose(loaded, config)
    typer.echo(diagnosis.to_json() if as_json else diagnosis.to_text())
    raise typer.Exit(0 if diagnosis.healthy else 1)
