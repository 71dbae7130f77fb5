"""`serve` (HTTP server and worker) and `worker` (a worker only)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from bot.cli.app import Termination, app, bound_socket, configure_logging, deps, fail, settings
from bot.errors import BotError
from bot.heap import settle


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0 picks a free one).")] = 8080,
    migrate: Annotated[bool, typer.Option(help="Apply database migrations first.")] = True,
) -> None:
    """Run the HTTP server (Alertmanager webhook, API, health, metrics) and the job worker."""
    import uvicorn

    from bot.server import build_app

    loaded = settings()
    configure_logging(loaded)
    built = deps(loaded)
    try:
        if migrate:
            built.db.upgrade()
        built.db.check_current()
    except BotError as exc:
        fail(exc)
    sock = bound_socket(host, port)
    sock.listen(2048)  # connections queue from now on, before uvicorn starts accepting
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    typer.echo(
        f"incident-bot listening on http://{shown}:{bound} "
        f"(database: {built.db.dialect}, worker threads: {loaded.worker_threads}, "
        f"webhook: POST /webhooks/alertmanager)"
    )
    sys.stdout.flush()
    config = uvicorn.Config(
        build_app(built), log_level=loaded.log_level.lower(), access_log=False, lifespan="on"
    )
    settle()
    uvicorn.Server(config).run(sockets=[sock])


@app.command()
def worker() -> None:
    """Run only the job worker (a replica that drains the shared queue)."""
    loaded = settings()
    configure_logging(loaded)
    built = deps(loaded)
    try:
        built.db.check_current()  # a replica never migrates: it waits for `db upgrade` or a `serve`
    except BotError as exc:
        fail(exc)
    settle()
    termination = Termination()
    built.worker.start()
    typer.echo(f"incident-bot worker {built.worker.name} running (database: {built.db.dialect})")
    termination.wait()
    built.worker.stop()
    built.close()
