"""The `incident-bot` command line: one module per group of commands, all on one Typer app."""

from __future__ import annotations

from bot.cli import actions, admin, demo, incidents, sandbox, serve, triage
from bot.cli.app import app

__all__ = ["app", "main"]
_GROUPS = (actions, admin, demo, incidents, sandbox, serve, triage)  # importing them registers their commands


def main() -> None:
    app()
