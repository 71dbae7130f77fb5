"""Events: a mention of the bot answers with the commands it knows (retried deliveries are skipped)."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltRequest, AsyncSay

from bot.deps import Services
from bot.slack.blocks.notices import HELP


def register(app: AsyncApp, services: Services) -> None:
    @app.event("app_mention")
    async def mentioned(event: dict[str, Any], say: AsyncSay, request: AsyncBoltRequest) -> None:
        if request.headers.get("x-slack-retry-num"):
            return  # Slack redelivers an event it thinks was lost; the first answer stands
        await say(text=HELP, thread_ts=event.get("thread_ts") or event.get("ts"))
