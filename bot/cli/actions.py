"""`actions …`: the proposals of an incident, and the same approval as the Slack buttons.

The approver check is by identity (`--actor`, a Slack user ID or an e-mail of the configuration's
`approvers`). A decision queues its execution for the server's worker; `--run` executes it in
this process instead (no server running: a laptop, the demo).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from bot.cli.app import Actor, JsonFlag, actions_app, deps, fail, services, settings
from bot.domain import ActionProposal
from bot.errors import BotError

RunFlag = Annotated[
    bool, typer.Option("--run", help="Execute it here and now instead of in the server's worker.")
]


def _line(p: ActionProposal) -> str:
    expires = f" expires {p.expires_at:%H:%M}Z" if p.expires_at and p.status == "proposed" else ""
    by = f" by {p.decided_by}" if p.decided_by else ""
    said = p.outcome.get("summary") or (p.preview.get("summary") or p.preview.get("reason") or "")
    return f"{p.id:>5}  run {p.run}  {p.status:<14} {p.action.kind.value:<20} {p.action.target}{by}{expires}  {said}"


@actions_app.command("list")
def actions_list(incident_id: int, as_json: JsonFlag = False) -> None:
    """The incident's proposed actions and where each stands."""
    try:
        found = services().actions.list(incident_id)
    except BotError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps([p.model_dump(mode="json") for p in found], indent=2))
        return
    typer.echo("   id  run    state          kind                 target" if found else "no proposed actions")
    for proposal in found:
        typer.echo(_line(proposal))
        for line in (proposal.outcome.get("diff") or proposal.preview.get("diff") or [])[:8]:
            typer.echo(f"         {line}")


def _decide(verb: str, proposal_id: int, actor: str, run: bool) -> None:
    if run:
        wired = deps(settings())
        svc = wired.services.actions
    else:
        svc = services().actions
    try:
        proposal = getattr(svc, verb)(proposal_id, actor=actor)
        if run:
            wired.worker.drain(timeout=wired.config.actions.verify_seconds + 60)
            proposal = svc.get(proposal_id)
    except BotError as exc:
        fail(exc)
    finally:
        if run:
            wired.close()
    typer.echo(_line(proposal))
    for line in (proposal.outcome.get("diff") or [])[:8]:
        typer.echo(f"         {line}")


@actions_app.command("approve")
def actions_approve(proposal_id: int, actor: Actor, run: RunFlag = False) -> None:
    """Approve a proposed action (dry-run again, applied, verified)."""
    _decide("approve", proposal_id, actor, run)


@actions_app.command("reject")
def actions_reject(proposal_id: int, actor: Actor) -> None:
    """Reject a proposed action: it will not run."""
    _decide("reject", proposal_id, actor, False)


@actions_app.command("undo")
def actions_undo(proposal_id: int, actor: Actor, run: RunFlag = False) -> None:
    """Undo an action that ran (only while what it wrote is still there)."""
    _decide("undo", proposal_id, actor, run)
