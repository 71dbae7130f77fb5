"""The resolve modal's submission: a reason is required, the final tag is checked against the
taxonomy, then the incident is resolved by the user who submitted it. The summary and the
postmortem draft reach the channel through the worker, as they do after any resolve."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import Services
from bot.domain import Category
from bot.errors import BotError, PayloadError
from bot.slack.blocks.text import escape
from bot.slack.ids import CATEGORY_ACTION, CODE_ACTION, REASON_ACTION, BlockId, CallbackId


def _value(values: dict[str, Any], block: BlockId, action: str) -> str | None:
    state = (values.get(block.value) or {}).get(action) or {}
    chosen = state.get("selected_option") or {}
    raw = chosen.get("value") if "selected_option" in state else state.get("value")
    return str(raw).strip() if raw else None


def register(app: AsyncApp, services: Services) -> None:
    @app.view(CallbackId.RESOLVE.value)
    async def resolve(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient
    ) -> None:
        values = (view.get("state") or {}).get("values") or {}
        reason = _value(values, BlockId.REASON, REASON_ACTION) or ""
        if not reason:
            await ack(response_action="errors", errors={BlockId.REASON.value: "Say why it is resolved."})
            return
        word, code = (
            _value(values, BlockId.CATEGORY, CATEGORY_ACTION),
            _value(values, BlockId.CODE, CODE_ACTION),
        )
        try:
            category = Category(word) if word else None
            services.incidents.final_tag(category, code)
        except (ValueError, PayloadError) as exc:
            said = exc.message if isinstance(exc, PayloadError) else f"{word} is not a category"
            await ack(response_action="errors", errors={BlockId.CATEGORY.value: said})
            return
        await ack()
        meta = json.loads(view.get("private_metadata") or "{}")
        user = str(body["user"]["id"])
        channel = str(meta.get("channel_id") or "")
        try:
            await asyncio.to_thread(
                services.incidents.resolve,
                int(meta["incident_id"]),
                reason=reason,
                actor=user,
                category=category,
                code=code,
            )
        except BotError as exc:
            await client.chat_postEphemeral(
                channel=channel, user=user, text=f":warning: {escape(exc.message)}"
            )
