"""The Typer app, its groups, and how every command reports an error and builds what it needs."""

from __future__ import annotations

import logging
import signal
import socket
import time
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from bot.errors import BotError
from bot.settings import Settings, load_settings

if TYPE_CHECKING:
    from bot.deps import Deps, Services

app = typer.Typer(add_completion=False, no_args_is_help=True, help="ChatOps incident bot for AI inference.")
incidents_app = typer.Typer(no_args_is_help=True, help="List, show and change incidents.")
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
config_app = typer.Typer(no_args_is_help=True, help="Configuration file.")
sandbox_app = typer.Typer(no_args_is_help=True, help="Scenario packs served through the real protocols.")
actions_app = typer.Typer(no_args_is_help=True, help="Proposed actions: list, approve, reject, undo.")
runbooks_app = typer.Typer(no_args_is_help=True, help="Runbooks: check a folder before the bot loads it.")
app.add_typer(incidents_app, name="incidents")
app.add_typer(actions_app, name="actions")
app.add_typer(db_app, name="db")
app.add_typer(config_app, name="config")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(runbooks_app, name="runbooks")

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
Actor = Annotated[str, typer.Option("--actor", help="Who makes the change (recorded on the timeline).")]
VariantOption = Annotated[
    str,
    typer.Option(
        "--variant",
        help="Serve the pack as other servers, e.g. logs=opensearch-2,shipper=fluentbit,gateway-api=v1beta1. "
        "logs: elasticsearch-9 | elasticsearch-8-basic | opensearch-2; shipper: ecs | fluentbit | flat; "
        "gateway-api: v1 | v1beta1 | both; events: events.k8s.io | core.",
    ),
]


def fail(exc: BotError) -> NoReturn:
    """Print the error's own text and exit with its code (see bot.errors)."""
    typer.echo(f"error: {exc.message}", err=True)
    raise typer.Exit(exc.exit_code)


def settings() -> Settings:
    try:
        return load_settings()
    except BotError as exc:
        fail(exc)


def deps(loaded: Settings) -> Deps:
    """Everything a long-running command needs, built once from the settings."""
    from bot.deps import build_deps

    try:
        return build_deps(loaded)
    except BotError as exc:
        fail(exc)


def services() -> Services:
    """The services of a short command (no worker, no triage engine)."""
    from bot.deps import build_services

    loaded = settings()
    try:
        return build_services(loaded, pool_size=2)
    except BotError as exc:
        fail(exc)


def bound_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (IPv6 when the host is one), or one clear error line and exit 1."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        typer.echo(f"error: cannot listen on {host}:{port}: {exc.strerror}", err=True)
        raise typer.Exit(1) from exc
    return sock


def configure_logging(loaded: Settings) -> None:
    logging.basicConfig(
        level=loaded.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)


class Termination:
    """SIGTERM and SIGINT for a command that runs until told to stop (`worker`, `sandbox up`).

    The handlers only record the signal: one that took a lock (`Event.set`) could deadlock against
    the main thread holding that lock when the signal lands. The main thread sleeps in short steps
    because a signal the kernel hands to another thread only trips CPython's flag, which the main
    thread acts on when it next wakes: a fresh-clone run once left a worker blocked for good in an
    untimed wait after its SIGTERM.
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda signum, _frame: self.received.append(signum))

    def wait(self) -> None:
        while not self.received:
            time.sleep(0.25)
