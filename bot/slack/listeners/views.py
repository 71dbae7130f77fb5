"""The resolve modal's submission: a reason is required, the final tag is checked against the
taxonomy, then the incident is resolved by the user who submitted it. The summary and the
postmortem draft reach the channel through the worker, as they do after any resolve.

A form whose metadata names no incident (it was not opened by the bot) is refused in the form
itself, before anything changes."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.deps import Services
from bot.domain import Category
from bot.errors import BotError, PayloadError
from bot.slack.blocks.text import escape
from bot.slack.ids import CATEGORY_ACTION, CODE_ACTION, REASON_ACTION, BlockId, CallbackId
from bot.slack.listeners import CALL_FAULTS, part, record_id, text_of

log = logging.getLogger(__name__)
STALE = "This form does not belong to an incident the bot knows: close it and click Resolve again."


def _value(values: dict[str, Any], block: BlockId, action: str) -> str | None:
    state = part(part(values, block.value), action)
    raw = part(state, "selected_option").get("value") if "selected_option" in state else state.get("value")
    return text_of(raw).strip() or None


def _metadata(raw: object) -> dict[str, Any]:
    """The modal's private metadata as the bot wrote it (a JSON object), or an empty one."""
    try:
        meta = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def register(app: AsyncApp, services: Services) -> None:
    @app.view(CallbackId.RESOLVE.value)
    async def resolve(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient
    ) -> None:
        values = part(part(view, "state"), "values")
        reason = _value(values, BlockId.REASON, REASON_ACTION) or ""
        if not reason:
            await ack(response_action="errors", errors={BlockId.REASON.value: "Say why it is resolved."})
            return
        meta = _metadata(view.get("private_metadata"))
        incident_id = record_id(meta.get("incident_id"))
        user = text_of(part(body, "user").get("id")).strip()
        if incident_id is None or not user or not await _known(services, incident_id):
            await ack(response_action="errors", errors={BlockId.REASON.value: STALE})
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
        channel = text_of(meta.get("channel_id"))
        try:
            await asyncio.to_thread(
                services.incidents.resolve,
                incident_id,
                reason=reason,
                actor=user,
                category=category,
                code=code,
            )
        except BotError as exc:
            await _warn(client, channel, user, exc.message)


async def _known(services: Services, incident_id: int) -> bool:
    try:
        await asyncio.to_thread(services.incidents.get, incident_id)
    except BotError:
        return False
    return True


async def _warn(client: AsyncWebClient, channel: str, user: str, message: str) -> None:
    """Why the resolve did not happen, to the user who submitted it, in the incident's channel."""
    try:
        await client.chat_postEphemeral(channel=channel, user=user, text=f":warning: {escape(message)}")
    except CALL_FAULTS as exc:
        log.warning("resolve refused (%s), and the warning to %s not posted: %s", message, user, exc)
