"""The resolve modal's submission: a reason is required, then the incident is resolved by the
user who submitted it, and the channel hears about it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import Services
from bot.errors import BotError
from bot.slack.blocks.text import escape
from bot.slack.ids import REASON_ACTION, BlockId, CallbackId


def register(app: AsyncApp, services: Services) -> None:
    @app.view(CallbackId.RESOLVE.value)
    async def resolve(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient
    ) -> None:
        values = (view.get("state") or {}).get("values") or {}
        reason = str(
            ((values.get(BlockId.REASON.value) or {}).get(REASON_ACTION) or {}).get("value") or ""
        ).strip()
        if not reason:
            await ack(response_action="errors", errors={BlockId.REASON.value: "Say why it is resolved."})
            return
        await ack()
        meta = json.loads(view.get("private_metadata") or "{}")
        user = str(body["user"]["id"])
        channel = str(meta.get("channel_id") or "")
        try:
            await asyncio.to_thread(
                services.incidents.resolve, int(meta["incident_id"]), reason=reason, actor=user
            )
        except BotError as exc:
            await client.chat_postEphemeral(
                channel=channel, user=user, text=f":warning: {escape(exc.message)}"
            )
            return
        await client.chat_postMessage(
            channel=channel, text=f":white_check_mark: Resolved by <@{user}>: {escape(reason)}"
        )
