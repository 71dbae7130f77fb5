"""`/incident`: ack at once, answer from a thread (the services are synchronous), reply ephemerally."""

from __future__ import annotations

import asyncio
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond

from bot.deps import Services
from bot.slack.commands import Invocation, answer
from bot.slack.listeners import tell, text_of


def register(app: AsyncApp, services: Services) -> None:
    @app.command("/incident")
    async def incident(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond | None) -> None:
        await ack()
        invocation = Invocation(
            text=text_of(command.get("text")),
            user_id=text_of(command.get("user_id")),  # none: the services refuse a change without an actor
            channel_id=text_of(command.get("channel_id")),
        )
        reply = await asyncio.to_thread(answer, invocation, services)
        await tell(respond, reply)
