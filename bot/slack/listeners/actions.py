"""Button clicks: a proposal's Approve / Reject / Undo, "Resolve incident" (opens the reason modal), links.

Clicks are acked first. The decision is the action service's (the approver check, the claim in
the database, the queued execution); a refusal or a click that came second is answered to the
clicker alone, and the message is edited in place for everyone else. A click carrying an id the
bot never sent (or no user, or no trigger) is answered with why too, never raised.
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
from bot.slack.listeners import CALL_FAULTS, part, record_id, tell, text_of

log = logging.getLogger(__name__)
DECISION = re.compile(r"^(approve|reject|undo)")  # the action ids' prefixes, and the verb they name
NOT_OPENED = "Slack did not open the form: click Resolve again."


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
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond | None
    ) -> None:
        await ack()
        matched = DECISION.match(text_of(action.get("action_id")))
        assert matched is not None  # the listener is registered on this pattern
        verb = matched.group(1)
        user = text_of(part(body, "user").get("id"))  # none: the service refuses a decision without an actor
        proposal_id = record_id(action.get("value"))
        if proposal_id is None:
            await tell(respond, "That proposal is unknown here.", replace_original=False)
            return
        try:
            proposal = await asyncio.to_thread(decisions[verb], proposal_id, actor=user)
        except ForbiddenError as exc:
            await tell(respond, f":no_entry: {exc.message}. Nothing was changed.", replace_original=False)
            return
        except BotError as exc:
            await tell(respond, exc.message, replace_original=False)
            return
        await asyncio.to_thread(refresh, proposal)

    @app.action(ActionId.RESOLVE.value)
    async def resolve(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        client: AsyncWebClient,
        respond: AsyncRespond | None,
    ) -> None:
        await ack()
        incidents = services.incidents
        incident_id = record_id(action.get("value"))
        trigger = text_of(body.get("trigger_id"))
        if incident_id is None or not trigger:
            said = "That incident is unknown here." if incident_id is None else NOT_OPENED
            await tell(respond, said, replace_original=False)
            return
        try:
            incident = (await asyncio.to_thread(incidents.get, incident_id)).incident
            triage = await asyncio.to_thread(incidents.triage, incident.id, 1)
        except BotError as exc:
            await tell(respond, exc.message, replace_original=False)
            return
        channel = text_of(part(body, "channel").get("id")) or text_of(
            part(body, "container").get("channel_id")
        )
        view = resolve_modal(incident, channel_id=channel, codes=incidents.codes(), triage=triage)
        try:
            await client.views_open(trigger_id=trigger, view=view)
        except CALL_FAULTS as exc:
            log.warning("incident %s: resolve form not opened: %s", incident.id, exc)
            await tell(respond, NOT_OPENED, replace_original=False)

    @app.action(ActionId.LINK.value)
    async def link(ack: AsyncAck) -> None:
        await ack()  # a link button posts a click too; unanswered, Slack marks it as failed
