"""`demo`: a bundled scenario through the whole product, on embedded defaults, in a terminal or a browser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from bot.cli.app import app, configure_logging, fail, settings
from bot.demo import DEFAULT_SCENARIO
from bot.errors import BotError

if TYPE_CHECKING:
    from rich.console import Console

    from bot.demo.session import DemoSession

BACKENDS = {
    "prometheus": "Prometheus, the real server, on the scenario's recorded metrics",
    "elasticsearch": "Elasticsearch 9 stand-in (Platinum), the scenario's logs",
    "kubernetes": "Kubernetes API stand-in, the scenario's objects (kubectl works on it)",
    "slack": "Slack Web API stand-in, the demo workspace",
}


@app.command()
def demo(
    scenario: Annotated[
        str, typer.Option("--scenario", help="Bundled scenario to run (see --list).")
    ] = DEFAULT_SCENARIO,
    yes: Annotated[
        bool, typer.Option("--yes", help="Approve the first proposed action without asking.")
    ] = False,
    web: Annotated[bool, typer.Option("--web", help="Show the channel in a browser page instead.")] = False,
    listing: Annotated[bool, typer.Option("--list", help="List the bundled scenarios and exit.")] = False,
    host: Annotated[str, typer.Option(help="Address of the --web page.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port of the --web page (0 picks a free one).")] = 8765,
    out: Annotated[Path, typer.Option(help="Folder the chart and other files are saved in.")] = Path(
        "demo-output"
    ),
) -> None:
    """Run a bundled scenario through the real flow: its backends in a sandbox, the bot on a
    throwaway SQLite store, the alert posted to the bot's own webhook, the channel shown as it fills,
    and the first proposed action approved through the same signed Slack click."""
    import signal

    from rich.console import Console

    from bot.demo import scenarios
    from bot.demo.session import DemoSession

    def stop(*_: object) -> None:
        raise KeyboardInterrupt  # unwinds the sandbox: Prometheus stopped, temporary folders removed

    signal.signal(signal.SIGTERM, stop)
    console = Console(highlight=False)
    try:
        if listing:
            for found in scenarios.bundled():
                console.print(f"[bold]{found.name}[/]  {found.summary}", soft_wrap=True)
            return
        pack = scenarios.load(scenario)
        environment = settings()
        configure_logging(environment.model_copy(update={"log_level": "WARNING"}))
        if web and environment.slack_bot_token is not None:
            raise BotError(
                "--web shows the sandbox's workspace; with SLACK_BOT_TOKEN set, your Slack shows it"
            )
        with console.status(f"starting the sandbox for {pack.name} …"):
            session = DemoSession(pack, environment).start()
        with session:
            intro(console, session)
            if web:
                _web(console, session, host, port)
            else:
                _terminal(console, session, yes=yes, out=out)
    except BotError as exc:
        fail(exc)
    except KeyboardInterrupt:
        console.print("stopped")


def intro(console: Console, session: DemoSession) -> None:
    """What runs where, and which engine triages (the LLM only when one is configured)."""
    env = session.environment
    console.rule(f"[bold]incident-bot demo[/] · {escape(session.pack.name)}")
    if session.pack.meta.description:
        console.print(escape(" ".join(session.pack.meta.description.split())), style="italic")
    console.print(
        f"A recorded incident, replayed: its evidence is read as of {session.pack.meta.as_of:%Y-%m-%d %H:%M}Z, "
        "while the channel, the timeline and the proposals' expiry run on today's clock.",
        style="grey50",
    )
    for name, url in session.sandbox.urls.items():
        console.print(f"  [bold]{name}[/] {url}  [grey50]{BACKENDS.get(name, '')}[/]")
    console.print(f"  [bold]bot[/] {session.url}  [grey50]incident-bot on a throwaway SQLite store[/]")
    if env.openai_base_url:
        console.print(
            f"  [bold]triage[/] rules engine, reviewed by {env.openai_model} at {env.openai_base_url}"
        )
    else:
        console.print("  [bold]triage[/] rules engine (no LLM: set OPENAI_BASE_URL to add its review)")
    if session.workspace.real:
        console.print(
            f"  [bold]Slack[/] your workspace ({env.slack_api_url}); {session.workspace.user_id} is invited "
            "and approves (Slack's own buttons reach the demo only through a tunnel to /slack/events)"
        )
    kubeconfig = session.sandbox.env.get("KUBECONFIG")
    if kubeconfig:
        console.print(f"  [bold]cluster[/] KUBECONFIG={kubeconfig} kubectl get deploy,nodes")
    console.print()


def _terminal(console: Console, session: DemoSession, *, yes: bool, out: Path) -> None:
    from rich.prompt import Confirm

    from bot.demo.terminal import TerminalDemo, summary_table

    interactive = sys.stdin.isatty()

    def approve(question: str) -> bool:
        if yes:
            console.print(f"{question} [bold]yes[/] (--yes)")
            return True
        if not interactive:
            console.print(f"{question} no (not a terminal: pass --yes to approve)")
            return False
        return Confirm.ask(question, default=False, console=console)

    def undo(question: str) -> bool:
        return interactive and not yes and Confirm.ask(question, default=False, console=console)

    summary = TerminalDemo(session, console, out_dir=out, approve=approve, undo=undo).run()
    console.print()
    console.print(summary_table(summary))


def _web(console: Console, session: DemoSession, host: str, port: int) -> None:
    """Serve the page, post the alert, then print the timeline as it grows until Ctrl-C."""
    import time
    from contextlib import ExitStack

    from bot.demo.web import serve_web

    with ExitStack() as stack:
        try:
            url = stack.enter_context(serve_web(session, host=host, port=port))
        except OSError as exc:
            raise BotError(
                f"cannot listen on {host}:{port}: {exc.strerror} (pick another with --port)"
            ) from exc
        incident = session.post_alert()
        console.print(f"web view: {url}/  (incident {incident}; Ctrl-C stops the demo)")
        shown = 0
        while True:
            timeline = session.timeline(incident)
            for event in timeline[shown:]:
                console.print(
                    f"  timeline · {event.at:%H:%M:%S} · {event.actor} · {event.text}", style="grey50"
                )
            shown = len(timeline)
            sys.stdout.flush()
            time.sleep(0.5)
