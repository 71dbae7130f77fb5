"""The bolt app inside the bot's own server: `POST /slack/events` (signed), or Socket Mode.

One endpoint takes events, interactivity and slash commands. The door checks each request's v0
signature within its 5-minute window itself (a bad or stale one is answered 401) before anything
reads the body, then refuses with 400 a signed body bolt could not read (not UTF-8, not JSON, or
the fields bolt's own routing reads of the wrong type): bolt would fail on those with a 500. Bolt
checks the signature again and answers Slack's URL verification itself. Listeners ack first and
hand slow work to the services (which queue jobs in the database), never to in-process
background tasks.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Mapping
from typing import Any

from slack_bolt.adapter.starlette.async_handler import to_async_bolt_request, to_starlette_response
from slack_bolt.async_app import AsyncApp
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bot.deps import Deps
from bot.slack.client import async_web_client
from bot.slack.listeners import actions, commands, events, views

log = logging.getLogger(__name__)
WINDOW_SECONDS = 5 * 60  # Slack's replay window for a signed request
# Payload fields bolt reads to route a request and build its context, by the type Slack sends.
OBJECTS = ("view", "event", "message", "previous_message", "item", "assistant_thread", "function_data")
NAMED = ("enterprise", "team", "user", "channel")  # an object with an `id`, or the id alone
TEXTS = ("type", "command", "callback_id", "response_url", "trigger_id", "user_id", "channel_id", "team_id")
NESTED = ("event", "message", "previous_message", "item", "assistant_thread")  # read like the payload


class SignedApp(AsyncApp):
    """The bolt app, keeping the signing secret the HTTP door checks before bolt reads a body."""

    def __init__(self, *, signing_secret: str | None, **kwargs: Any) -> None:
        super().__init__(signing_secret=signing_secret, **kwargs)
        self.signing_secret = signing_secret


def build_bolt(deps: Deps) -> SignedApp:
    settings = deps.settings
    assert settings.slack_bot_token is not None, "Slack is not configured"
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    app = SignedApp(
        signing_secret=secret,
        client=async_web_client(settings),  # carries the bot token
        # Socket Mode traffic is not signed (it comes over the app-token WebSocket); HTTP always is.
        request_verification_enabled=secret is not None,
    )
    for listeners in (commands, views, events):
        listeners.register(app, deps.services)
    actions.register(app, deps.services, deps.publisher)
    return app


def signed(secret: str, body: bytes, headers: Mapping[str, str], now: float) -> bool:
    """Slack's v0 signature over the raw bytes, made within the window around `now`."""
    stamp = headers.get("x-slack-request-timestamp", "")
    given = headers.get("x-slack-signature", "")
    if (
        not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12)
        or abs(now - int(stamp)) > WINDOW_SECONDS
    ):
        return False
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"v0={digest}".encode(), given.encode("utf-8", "replace"))


def malformed(payload: object, depth: int = 0) -> str | None:
    """Why bolt could not route `payload`, or None: a field it reads is not what Slack sends."""
    if not isinstance(payload, dict):
        return "the payload is not a JSON object"
    for key in OBJECTS:
        if payload.get(key) is not None and not isinstance(payload[key], dict):
            return f"`{key}` is not an object"
    for key in NAMED:
        value = payload.get(key)
        if value is not None and not isinstance(value, str | dict):
            return f"`{key}` is neither an id nor an object"
    for key in TEXTS:
        if payload.get(key) is not None and not isinstance(payload[key], str):
            return f"`{key}` is not a string"
    authorizations = payload.get("authorizations")
    if authorizations is not None and not (
        isinstance(authorizations, list) and all(isinstance(a, dict) for a in authorizations)
    ):
        return "`authorizations` is not a list of objects"
    actions_sent = payload.get("actions")
    if actions_sent is not None and not (
        isinstance(actions_sent, list)
        and all(isinstance(a, dict) and isinstance(a.get("action_id", ""), str) for a in actions_sent)
    ):
        return "`actions` is not a list of objects with a string `action_id`"
    kind = payload.get("type")
    if kind in ("view_submission", "view_closed"):
        view = payload.get("view") or {}
        if not all(isinstance(view.get(k), str) for k in ("type", "callback_id")):
            return f"a {kind} without its view's `type` and `callback_id`"
    if kind == "event_callback" and not isinstance((payload.get("event") or {}).get("type"), str):
        return "an event_callback without its event's `type`"
    if depth < 3:
        nested = [payload[k] for k in NESTED if isinstance(payload.get(k), dict)]
        for inner in nested + (authorizations or [])[:1]:
            if (why := malformed(inner, depth + 1)) is not None:
                return why
    return None


def slack_routes(bolt: SignedApp) -> list[Route]:
    """`POST /slack/events` for HTTP mode."""

    async def slack_events(request: Request) -> Response:
        body = await request.body()
        secret = bolt.signing_secret
        if secret is not None and not signed(secret, body, request.headers, time.time()):
            return PlainTextResponse("invalid request signature", status_code=401)
        try:
            bolt_request = to_async_bolt_request(request, body)
            why = malformed(bolt_request.body)
        except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError) as exc:
            why = f"the body is unreadable: {type(exc).__name__}"
        if why is not None:
            log.warning("refused a signed Slack request: %s", why)
            return PlainTextResponse(f"malformed Slack payload: {why}", status_code=400)
        return to_starlette_response(await bolt.async_dispatch(bolt_request))

    return [Route("/slack/events", slack_events, methods=["POST"])]
