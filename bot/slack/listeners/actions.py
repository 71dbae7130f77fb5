"""Button clicks: a proposal's Approve / Reject / Undo, "Resolve incident" (opens the reason modal), links.

Clicks are acked first. The decision is the action service's (the approver check, the claim in
the database, the queued execution); a refusal or a click that came second is answered to the
clicker alone, and the message is edited in place for everyone else.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import Services
from bot.domain import ActionProposal
from bot.errors import BotError, ForbiddenError
from bot.publish import Publisher, PublishError, show_actions
from bot.slack.blocks.notices import resolve_modal
from bot.slack.ids import ActionId

log = logging.getLogger(__name__)
DECISION = re.compile(r"^(approve|reject|undo)")  # the action ids' prefixes, and the verb they name


def register(app: AsyncApp, services: Services, publisher: Publisher | None = None) -> None:
    decisions: dict[str, Callable[..., ActionProposal]] = {
        "approve": services.actions.approve,
        "reject": services.actions.reject,
        "undo": services.actions.undo,
    }

    def refresh(proposal: ActionProposal) -> None:
        if publisher is None:
            return
        try:
            show_actions(publisher, services.incidents, proposal.incident_id, proposal.run)
        except PublishError as exc:
            log.warning("proposal %s: message not updated: %s", proposal.id, exc.message)

    @app.action(DECISION)
    async def decide(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond
    ) -> None:
        await ack()
        matched = DECISION.match(str(action["action_id"]))
        assert matched is not None  # the listener is registered on this pattern
        verb = matched.group(1)
        user = str((body.get("user") or {}).get("id") or "")
        try:
            proposal = await asyncio.to_thread(decisions[verb], int(action["value"]), actor=user)
        except ForbiddenError as exc:
            await respond(
                text=f":no_entry: {exc.message}. Nothing was changed.",
                response_type="ephemeral",
                replace_original=False,
            )
            return
        except (BotError, ValueError) as exc:
            message = exc.message if isinstance(exc, BotError) else "That proposal is unknown here."
            await respond(text=message, response_type="ephemeral", replace_original=False)
            return
        await asyncio.to_thread(refresh, proposal)

    @app.action(ActionId.RESOLVE.value)
    async def resolve(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        incidents = services.incidents
        incident = (await asyncio.to_thread(incidents.get, int(action["value"]))).incident
        triage = await asyncio.to_thread(incidents.triage, incident.id, 1)
        channel = str(
            (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
        )
        view = resolve_modal(incident, channel_id=channel, codes=incidents.codes(), triage=triage)
        await client.views_open(trigger_id=body["trigger_id"], view=view)

    @app.action(ActionId.LINK.value)
    async def link(ack: AsyncAck) -> None:
        await ack()  # a link button posts a click too; unanswered, Slack marks it as failed
