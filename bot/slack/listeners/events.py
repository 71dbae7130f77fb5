"""Events: a mention of the bot answers with the commands it knows (retried deliveries are skipped)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltRequest, AsyncSay

from bot.deps import Services
from bot.slack.blocks.notices import HELP
from bot.slack.listeners import CALL_FAULTS, text_of

log = logging.getLogger(__name__)


def register(app: AsyncApp, services: Services) -> None:
    @app.event("app_mention")
    async def mentioned(event: dict[str, Any], say: AsyncSay, request: AsyncBoltRequest) -> None:
        if request.headers.get("x-slack-retry-num"):
            return  # Slack redelivers an event it thinks was lost; the first answer stands
        thread = text_of(event.get("thread_ts")) or text_of(event.get("ts")) or None
        try:
            await say(text=HELP, thread_ts=thread)
        except ValueError:  # no channel in the event: nowhere to answer
            log.warning("a mention without a channel: not answered")
        except CALL_FAULTS as exc:
            log.warning("a mention in %r not answered: %s", event.get("channel"), exc)
