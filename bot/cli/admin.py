"""`db upgrade` and `config check`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bot.cli.app import config_app, db_app, fail, settings
from bot.errors import BotError


@db_app.command("upgrade")
def db_upgrade(revision: Annotated[str, typer.Argument(help="Target revision.")] = "head") -> None:
    """Apply the Alembic migrations to DATABASE_URL."""
    from bot.store.db import create_database

    loaded = settings()
    try:
        create_database(loaded.database_url, pool_size=1).upgrade(revision)
    except BotError as exc:
        fail(exc)
    typer.echo(f"database at revision {revision}")


@config_app.command("check")
def config_check(
    path: Annotated[Path | None, typer.Argument(help="YAML file (default INCIDENT_BOT_CONFIG).")] = None,
) -> None:
    """Validate the configuration file and the data files, and summarise them."""
    from bot.config import load_config
    from bot.triage.knowledge import Knowledge

    loaded = settings()
    target = path or loaded.incident_bot_config
    try:
        config = load_config(target)
        knowledge = Knowledge.from_settings(loaded)
    except BotError as exc:
        fail(exc)
    model = knowledge.attributor.model
    learned = (
        f"learned stage {model.path.name} (thresholds {model.threshold:.2f}, layer {model.layer_threshold:.2f})"
        if model
        else "learned stage off"
    )
    typer.echo(
        f"{target or '(embedded defaults)'}: ok, {len(config.services)} services, "
        f"{sum(len(s.slos) for s in config.services)} SLOs, {len(config.approvers)} approvers; "
        f"{len(knowledge.taxonomy.codes)} codes, {len(knowledge.attributor.rules)} attribution rules, "
        f"{learned}, {len(knowledge.catalog.signals)} signals, {len(knowledge.runbooks.runbooks)} runbooks"
    )
