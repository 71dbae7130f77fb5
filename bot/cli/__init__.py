"""The `incident-bot` command line: one module per group of commands, all on one Typer app."""

from __future__ import annotations

from bot.cli import (
    actions,
    admin,
    demo,
    doctor,
    gpu_agent,
    incidents,
    report,
    runbooks,
    sandbox,
    serve,
    triage,
)
from bot.cli.app import app

__all__ = ["app", "main"]
# importing them registers their commands
_GROUPS = (actions, admin, demo, doctor, gpu_agent, incidents, report, runbooks, sandbox, serve, triage)


def main() -> None:
    app()
