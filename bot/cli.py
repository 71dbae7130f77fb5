"""The `incident-bot` command line: serve, worker, incidents, db, config."""

from __future__ import annotations

import json
import logging
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from bot.domain import Category, IncidentStatus, Severity
from bot.errors import BotError, ConfigError
from bot.settings import Settings, load_settings

if TYPE_CHECKING:
    from bot.app import Deps
    from bot.incidents import IncidentService

app = typer.Typer(add_completion=False, no_args_is_help=True, help="ChatOps incident bot for AI inference.")
incidents_app = typer.Typer(no_args_is_help=True, help="List, show and change incidents.")
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
config_app = typer.Typer(no_args_is_help=True, help="Configuration file.")
app.add_typer(incidents_app, name="incidents")
app.add_typer(db_app, name="db")
app.add_typer(config_app, name="config")
sandbox_app = typer.Typer(no_args_is_help=True, help="Scenario packs served through the real protocols.")
app.add_typer(sandbox_app, name="sandbox")

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
Actor = Annotated[str, typer.Option("--actor", help="Who makes the change (recorded on the timeline).")]


def _fail(exc: BotError) -> NoReturn:
    typer.echo(f"error: {exc.message}", err=True)
    raise typer.Exit(2 if isinstance(exc, ConfigError) else 1)


def _settings() -> Settings:
    try:
        return load_settings()
    except BotError as exc:
        _fail(exc)


def _deps(settings: Settings) -> Deps:
    from bot.app import build_deps

    try:
        return build_deps(settings)
    except BotError as exc:
        _fail(exc)


def _service() -> IncidentService:
    from bot.incidents import IncidentService
    from bot.store.db import create_database

    settings = _settings()
    return IncidentService(create_database(settings.database_url, pool_size=2))


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0 picks a free one).")] = 8080,
    migrate: Annotated[bool, typer.Option(help="Apply database migrations first.")] = True,
) -> None:
    """Run the HTTP server (Alertmanager webhook, API, health, metrics) and the job worker."""
    import uvicorn

    from bot.server import build_app

    settings = _settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)
    deps = _deps(settings)
    try:
        if migrate:
            deps.db.upgrade()
        deps.db.ping()
    except BotError as exc:
        _fail(exc)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        typer.echo(f"error: cannot listen on {host}:{port}: {exc.strerror}", err=True)
        raise typer.Exit(1) from exc
    sock.listen(2048)  # connections queue from now on, before uvicorn starts accepting
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    typer.echo(
        f"incident-bot listening on http://{shown}:{bound} "
        f"(database: {deps.db.dialect}, worker threads: {settings.worker_threads}, "
        f"webhook: POST /webhooks/alertmanager)"
    )
    sys.stdout.flush()
    config = uvicorn.Config(
        build_app(deps), log_level=settings.log_level.lower(), access_log=False, lifespan="on"
    )
    uvicorn.Server(config).run(sockets=[sock])


@app.command()
def worker() -> None:
    """Run only the job worker (a replica that drains the shared queue)."""
    import signal
    import threading

    settings = _settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    deps = _deps(settings)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    deps.worker.start()
    typer.echo(f"incident-bot worker {deps.worker.name} running (database: {deps.db.dialect})")
    stop.wait()
    deps.worker.stop()


@db_app.command("upgrade")
def db_upgrade(revision: Annotated[str, typer.Argument(help="Target revision.")] = "head") -> None:
    """Apply the Alembic migrations to DATABASE_URL."""
    from bot.store.db import create_database

    settings = _settings()
    try:
        create_database(settings.database_url, pool_size=1).upgrade(revision)
    except BotError as exc:
        _fail(exc)
    typer.echo(f"database at revision {revision}")


@config_app.command("check")
def config_check(
    path: Annotated[Path | None, typer.Argument(help="YAML file (default INCIDENT_BOT_CONFIG).")] = None,
) -> None:
    """Validate the configuration file and summarise it."""
    from bot.config import load_config

    target = path or _settings().incident_bot_config
    try:
        config = load_config(target)
    except BotError as exc:
        _fail(exc)
    typer.echo(
        f"{target or '(embedded defaults)'}: ok, {len(config.services)} services, "
        f"{sum(len(s.slos) for s in config.services)} SLOs, {len(config.approvers)} approvers"
    )


@incidents_app.command("list")
def incidents_list(
    status: Annotated[IncidentStatus | None, typer.Option(help="Only incidents in this status.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """List incidents, newest first."""
    from bot.render import incident_table

    found = _service().list(status=status)
    if as_json:
        typer.echo(json.dumps([i.model_dump(mode="json") for i in found], indent=2))
    else:
        typer.echo(incident_table(found))


@incidents_app.command("show")
def incidents_show(incident_id: int, as_json: JsonFlag = False) -> None:
    """Show one incident with its alerts and timeline."""
    from bot.render import incident_detail

    try:
        detail = _service().get(incident_id)
    except BotError as exc:
        _fail(exc)
    typer.echo(detail.model_dump_json(indent=2) if as_json else incident_detail(detail))


@incidents_app.command("declare")
def incidents_declare(
    title: str,
    actor: Actor,
    severity: Annotated[Severity, typer.Option(help="Severity.")] = Severity.MAJOR,
    service: Annotated[str | None, typer.Option(help="Affected service.")] = None,
) -> None:
    """Open an incident by hand."""
    try:
        incident = _service().declare(title=title, severity=severity, actor=actor, service=service)
    except BotError as exc:
        _fail(exc)
    typer.echo(f"incident {incident.id} opened")


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


@incidents_app.command("resolve")
def incidents_resolve(
    incident_id: int,
    actor: Actor,
    reason: Annotated[str, typer.Option(help="Why it is resolved.")],
) -> None:
    """Resolve an incident with a reason."""
    _apply(lambda s: s.resolve(incident_id, reason=reason, actor=actor), f"incident {incident_id} resolved")


def _apply(change: Callable[[IncidentService], object], message: str) -> None:
    try:
        change(_service())
    except BotError as exc:
        _fail(exc)
    typer.echo(message)


@sandbox_app.command("up")
def sandbox_up(
    pack: Annotated[Path, typer.Option("--pack", help="Scenario pack directory.")],
    llm_script: Annotated[
        Path | None, typer.Option("--llm-script", help="YAML/JSON script the OpenAI stand-in plays.")
    ] = None,
) -> None:
    """Serve a pack (Prometheus, Elasticsearch, Kubernetes, Slack, OpenAI) until interrupted.

    The first line printed is one JSON object: the URLs and `env`, the variables that point the
    bot at them.
    """
    import signal
    import threading

    from bot.sandbox.openai import load_script
    from bot.sandbox.pack import load_pack
    from bot.sandbox.up import Sandbox

    try:
        loaded = load_pack(pack, with_expected=False)
        script = load_script(llm_script) if llm_script else []
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        with Sandbox(loaded, llm_script=script) as sandbox:
            typer.echo(json.dumps({"pack": loaded.name, **sandbox.urls, "env": sandbox.env}))
            sys.stdout.flush()
            stop.wait()
    except BotError as exc:
        _fail(exc)
    typer.echo("sandbox stopped", err=True)


@sandbox_app.command("validate")
def sandbox_validate(packs: Annotated[list[Path], typer.Argument(help="Pack directories.")]) -> None:
    """Load and validate packs; exit 1 naming the first problem of each invalid one."""
    from bot.sandbox.pack import load_pack

    failed = 0
    for path in packs:
        try:
            loaded = load_pack(path)
        except BotError as exc:
            failed += 1
            typer.echo(f"FAIL {path}: {exc.message}")
            continue
        expected = f"{loaded.expected.category.value}/{loaded.expected.code}" if loaded.expected else "-"
        typer.echo(
            f"ok   {loaded.name}: {len(loaded.logs)} log lines, {len(loaded.objects)} objects, {expected}"
        )
    raise typer.Exit(1 if failed else 0)


@app.command()
def triage(
    pack: Annotated[Path, typer.Option("--pack", help="Scenario pack directory.")],
    as_json: JsonFlag = False,
    llm_script: Annotated[
        Path | None,
        typer.Option(
            "--llm-script", help="Add the LLM review, played by the OpenAI stand-in from this script."
        ),
    ] = None,
) -> None:
    """Triage a pack end to end through the real clients (real Prometheus, local API stand-ins)."""
    from bot.sandbox.openai import load_script
    from bot.sandbox.pack import load_pack
    from bot.triage.service import Knowledge, triage_pack

    try:
        script = load_script(llm_script) if llm_script else None
        result = triage_pack(load_pack(pack, with_expected=False), Knowledge.load(), llm_script=script)
    except BotError as exc:
        _fail(exc)
    if as_json:
        typer.echo(json.dumps(result.public(), indent=2))
        return
    from bot.triage.text import render

    typer.echo(render(result))


@app.command("eval")
def eval_packs(
    root: Annotated[Path, typer.Argument(help="Directory holding packs (searched recursively).")],
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the scores as JSON here.")
    ] = None,
) -> None:
    """Triage every pack with an expected.yaml; print per-pack pass/fail and totals (exit 0)."""
    from bot.triage.evaluate import evaluate, table, totals
    from bot.triage.service import Knowledge

    try:
        scores = evaluate(root, Knowledge.load())
    except BotError as exc:
        _fail(exc)
    typer.echo(table(scores))
    if json_file is not None:
        json_file.write_text(
            json.dumps({"packs": [s.public() for s in scores], "totals": totals(scores)}, indent=2)
        )


@app.command()
def attribute(
    file: Annotated[
        Path | None, typer.Argument(help="JSON Lines with `message` (or plain lines); default stdin.")
    ] = None,
    report: Annotated[
        bool, typer.Option("--report", help="Then print the unattributed share and top signatures to stderr.")
    ] = False,
) -> None:
    """Attribute each error line to a taxonomy code; one JSON object per input line."""
    from bot.triage.attribution import Attributor, attribute_lines, unattributed_report

    try:
        attributor = Attributor.load()
    except BotError as exc:
        _fail(exc)
    lines = (file.read_text(encoding="utf-8") if file else sys.stdin.read()).splitlines()
    for answer in attribute_lines(lines, attributor):
        typer.echo(json.dumps(answer))
    if report:
        messages = [(_message_of(line), 1) for line in lines if line.strip()]
        typer.echo(unattributed_report(messages, attributor).render(), err=True)


def _message_of(line: str) -> str:
    if line.lstrip().startswith("{"):
        try:
            return str(json.loads(line).get("message", line))
        except (json.JSONDecodeError, AttributeError):
            return line
    return line


def main() -> None:
    app()
