"""The bolt app inside the bot's own server: `POST /slack/events` (signed), or Socket Mode.

One endpoint takes events, interactivity and slash commands; bolt verifies each request's v0
signature within its 5-minute window (a bad or stale one is answered 401) and answers Slack's URL
verification itself. Listeners ack first and hand slow work to the services (which queue jobs in
the database), never to in-process background tasks.
"""

from __future__ import annotations

from slack_bolt.adapter.starlette.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncApp
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.deps import Deps
from bot.slack.client import async_web_client
from bot.slack.listeners import actions, commands, events, views


def build_bolt(deps: Deps) -> AsyncApp:
    settings = deps.settings
    assert settings.slack_bot_token is not None, "Slack is not configured"
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    app = AsyncApp(
        signing_secret=secret,
        client=async_web_client(settings),  # carries the bot token
        # Socket Mode traffic is not signed (it comes over the app-token WebSocket); HTTP always is.
        request_verification_enabled=secret is not None,
    )
    for listeners in (commands, views, events):
        listeners.register(app, deps.services)
    actions.register(app, deps.services, deps.publisher)
    return app


def slack_routes(bolt: AsyncApp) -> list[Route]:
    """`POST /slack/events` for HTTP mode."""
    handler = AsyncSlackRequestHandler(bolt)

    async def slack_events(request: Request) -> Response:
        return await handler.handle(request)

    return [Route("/slack/events", slack_events, methods=["POST"])]
