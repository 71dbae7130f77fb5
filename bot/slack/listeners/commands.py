"""`/incident`: ack at once, answer from a thread (the services are synchronous), reply ephemerally."""

from __future__ import annotations

import asyncio
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond

from bot.deps import Services
from bot.slack.commands import Invocation, answer


def register(app: AsyncApp, services: Services) -> None:
    @app.command("/incident")
    async def incident(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        invocation = Invocation(
            text=str(command.get("text") or ""),
            user_id=str(command["user_id"]),
            channel_id=str(command.get("channel_id") or ""),
        )
        reply = await asyncio.to_thread(answer, invocation, services)
        await respond(text=reply, response_type="ephemeral")
