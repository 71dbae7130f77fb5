"""Button clicks: the proposals' Approve / Reject, "Resolve incident" (opens the reason modal), links.

Clicks are acked first. Running an approved action is not part of this version: the click says
so and changes nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import Services
from bot.errors import BotError
from bot.slack.blocks.notices import resolve_modal
from bot.slack.blocks.text import escape
from bot.slack.ids import ActionId


def register(app: AsyncApp, services: Services) -> None:
    @app.action(ActionId.APPROVE.value)
    @app.action(ActionId.REJECT.value)
    async def decide(ack: AsyncAck, action: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        try:
            proposal = await asyncio.to_thread(services.incidents.proposal, int(action["value"]))
        except (BotError, ValueError):
            await respond(
                text="That proposal is unknown here.", response_type="ephemeral", replace_original=False
            )
            return
        what = f"{proposal.action.kind.value} `{escape(proposal.action.target)}`"
        await respond(
            text=f"Nothing was changed: running actions from Slack is not available in this version "
            f"(proposal {proposal.id}, {what}). Apply it by hand if you decide to, and note it with "
            "`/incident note`.",
            response_type="ephemeral",
            replace_original=False,
        )

    @app.action(ActionId.RESOLVE.value)
    async def resolve(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        incident = (await asyncio.to_thread(services.incidents.get, int(action["value"]))).incident
        channel = str(
            (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
        )
        await client.views_open(
            trigger_id=body["trigger_id"], view=resolve_modal(incident, channel_id=channel)
        )

    @app.action(ActionId.LINK.value)
    async def link(ack: AsyncAck) -> None:
        await ack()  # a link button posts a click too; unanswered, Slack marks it as failed
