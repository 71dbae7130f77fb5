"""A local Slack Web API stand-in that slack_sdk talks to as if it were slack.com.

The bot's Slack flow (create the incident channel, invite responders, post and update the status
message, upload a timeline, answer slash commands over Socket Mode) must be testable without a
workspace. This keeps the state those calls change, answers with the real error codes and Block Kit
complaints, and can rate-limit any method on demand, so tests exercise the same code paths
production does:

    standin = SlackStandIn(users=[SlackUser(id="U1", name="ana", email="ana@example.com")])
    with ServerThread(standin.app) as server:
        client = WebClient(token="xoxb-sandbox", base_url=server.url + "/api/")
        socket = SocketModeClient(app_token="xapp-sandbox", web_client=AsyncWebClient(base_url=...))

Besides `/api/<method>` it serves the URLs Slack itself hands out: upload URLs, response URLs
(`response_url`, `responses`) and the Socket Mode WebSocket (`socket_send`, `socket_acks`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.parser import BytesParser
from email.policy import default as default_policy
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from bot.sandbox.slack import respond, socket_mode
from bot.sandbox.slack.args import Args
from bot.sandbox.slack.methods import SlackMethods
from bot.sandbox.slack.respond import ResponsePost, ResponseUrls
from bot.sandbox.slack.scopes import ALL_SCOPES, APP_TOKEN_METHODS, NEEDED_SCOPES
from bot.sandbox.slack.socket_mode import SocketAck, SocketModeHub
from bot.sandbox.slack.state import (
    APP_ID,
    TEAM_ID,
    Answer,
    Params,
    SlackCall,
    SlackError,
    SlackUser,
)

_NO_GROUPS: Mapping[str, list[str]] = MappingProxyType({})


class RateLimitOrder(BaseModel):
    """Body of `POST /_sandbox/ratelimit`."""

    model_config = ConfigDict(extra="forbid")

    method: str = Field(min_length=1)
    times: int = Field(default=1, ge=1)
    retry_after: int = Field(default=1, ge=0)


@dataclass
class _RateLimit:
    times: int
    retry_after: int
    status: int = 429  # a 5xx for an outage on Slack's side


@dataclass(frozen=True)
class _Reply:
    body: Answer
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


# -- the stand-in ---------------------------------------------------------------------------------


class SlackStandIn(SlackMethods):
    """Serves `POST /api/<method>` for the methods the bot uses, keeping workspace state in memory."""

    def __init__(
        self,
        *,
        token: str = "xoxb-sandbox",
        app_token: str = "xapp-sandbox",
        users: Iterable[SlackUser] = (),
        usergroups: Mapping[str, list[str]] = _NO_GROUPS,
        bot_user_id: str = "UBOT",
        clock: Callable[[], float] = time.time,
        scopes: Iterable[str] = ALL_SCOPES,
    ) -> None:
        """`clock` (seconds) ages response URLs and trigger ids; tests pass one they can wind on.
        `scopes` are the bot token's (an app installed from an older manifest has fewer)."""
        self.token = token
        self.app_token = app_token
        self.scopes = frozenset(scopes)
        super().__init__(users=users, usergroups=usergroups, bot_user_id=bot_user_id, clock=clock)
        self.calls: list[SlackCall] = []
        # Called with each Web API call once it is answered (its change made), before the answer
        # goes out: tests use it to act at a precise step, e.g. stop the bot right after a create.
        self.after_call: Callable[[SlackCall], None] | None = None
        self._revoked: set[str] = set()
        self._limits: dict[str, _RateLimit] = {}
        self._responses = ResponseUrls(self)
        self._socket = SocketModeHub(app_id=APP_ID)
        self._methods = self._method_table() | {"apps.connections.open": self._apps_connections_open}
        self.app = Starlette(
            routes=[
                Route("/api/{method}", self._api, methods=["GET", "POST"]),
                Route("/_sandbox/ratelimit", self._ratelimit_route, methods=["POST"]),
                Route("/_sandbox/upload/{file_id}", self._upload_route, methods=["POST"]),
                Route(respond.ROUTE + "/{key}", self._respond_route, methods=["POST"]),
                WebSocketRoute(socket_mode.ROUTE, self._socket_route),
            ]
        )

    # -- test helpers ------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[SlackCall]:
        with self._lock:
            return [call for call in self.calls if call.method == method]

    def rate_limit(self, method: str, *, times: int = 1, retry_after: int = 1) -> None:
        """The next `times` calls of `method` answer 429 with `Retry-After: retry_after`."""
        with self._lock:
            self._limits[method] = _RateLimit(times=times, retry_after=retry_after)

    def fail(self, method: str, *, times: int = 1, status: int = 500) -> None:
        """The next `times` calls of `method` fail on Slack's side with HTTP `status` (a 5xx storm),
        changing nothing, as `{"ok": false, "error": "fatal_error"}`."""
        with self._lock:
            self._limits[method] = _RateLimit(times=times, retry_after=0, status=status)

    def revoke(self, token: str) -> None:
        """Every call with `token` answers `token_revoked`, as after an admin removes the app."""
        with self._lock:
            self._revoked.add(token)

    def reinstate(self, token: str) -> None:
        """Undoes `revoke` (a reinstalled app gets a new token in real life; tests keep the old)."""
        with self._lock:
            self._revoked.discard(token)

    def response_url(
        self, base_url: str, channel_id: str, user_id: str, *, message_ts: str | None = None
    ) -> str:
        """A `response_url` for a payload from `user_id` in `channel_id`, served at `base_url`.

        Give `message_ts` for an interaction on a message, so `replace_original` and
        `delete_original` act on it.
        """
        with self._lock:
            return self._responses.issue(base_url, channel_id, user_id, message_ts)

    def responses(self, url: str) -> list[ResponsePost]:
        """Every POST to a response URL from `response_url`, in order, with Slack's answer to it."""
        with self._lock:
            return self._responses.posts(url)

    def slash_command(
        self, base_url: str, command: str, *, text: str = "", user_id: str, channel_id: str
    ) -> dict[str, str]:
        """A slash command's payload as Slack sends it, with a live response_url and trigger_id."""
        channel = self.channel(channel_id)
        return {
            "token": "sandbox-verification-token",
            "team_id": TEAM_ID,
            "team_domain": "sandbox",
            "channel_id": channel.id,
            "channel_name": channel.name,
            "user_id": user_id,
            "user_name": self.users[user_id].name,
            "command": command,
            "text": text,
            "api_app_id": APP_ID,
            "is_enterprise_install": "false",
            "response_url": self.response_url(base_url, channel.id, user_id),
            "trigger_id": self.trigger_id(),
        }

    def socket_send(self, envelope: dict[str, Any]) -> str:
        """Pushes a Socket Mode envelope to every connected client, returning once each has it.

        Answers the envelope's `envelope_id` (made up when missing); RuntimeError when no client
        is connected, since Slack would have nobody to deliver to either.
        """
        return self._socket.send_envelope(envelope)

    def socket_acks(self) -> list[SocketAck]:
        """The acks Socket Mode clients sent back, oldest first."""
        return self._socket.acks()

    def socket_disconnect(self, reason: str = "refresh_requested") -> None:
        """Slack's `disconnect` message: a well-behaved client opens a new connection."""
        self._socket.send({"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-sandbox"}})

    @property
    def socket_connections(self) -> int:
        """Open Socket Mode connections (a reconnecting client briefly has none)."""
        return self._socket.connections

    # -- HTTP --------------------------------------------------------------------------------

    async def _api(self, request: Request) -> Response:
        method = request.path_params["method"]
        try:
            params = await _read_params(request)
        except SlackError as exc:
            return self._record(method, {}, _Reply(exc.body()))
        token = _token(request, params)
        args = Args(params, base_url=f"{request.url.scheme}://{request.url.netloc}")
        with self._lock:
            reply = self._answer(method, token, args)
        return self._record(method, params, reply)

    def _record(self, method: str, params: Params, reply: _Reply) -> Response:
        call = SlackCall(method=method, params=params, time=datetime.now(UTC), error=reply.body.get("error"))
        with self._lock:
            self.calls.append(call)
        hook = self.after_call
        if hook is not None:
            hook(call)
        return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)

    def _answer(self, method: str, token: str | None, args: Args) -> _Reply:
        if method not in self._methods:
            return _Reply({"ok": False, "error": "unknown_method", "req_method": method})
        error = self._token_error(method, token)
        if error is not None:
            return _Reply({"ok": False, "error": error})
        if token == self.token:
            granted = {"x-oauth-scopes": ",".join(sorted(self.scopes))}
            needed = NEEDED_SCOPES.get(method)
            if needed and needed not in self.scopes:
                body = {
                    "ok": False,
                    "error": "missing_scope",
                    "needed": needed,
                    "provided": granted["x-oauth-scopes"],
                }
                return _Reply(body, headers=granted)
            reply = self._granted(method, args)
            return _Reply(reply.body, reply.status, {**reply.headers, **granted})
        return self._granted(method, args)

    def _granted(self, method: str, args: Args) -> _Reply:
        handler = self._methods[method]
        limited = self._take_rate_limit(method)
        if limited is not None and limited.status != 429:
            return _Reply({"ok": False, "error": "fatal_error"}, status=limited.status)
        if limited is not None:
            headers = {"Retry-After": str(limited.retry_after)}
            return _Reply({"ok": False, "error": "ratelimited"}, status=429, headers=headers)
        try:
            return _Reply({"ok": True, **handler(args)})
        except SlackError as exc:
            return _Reply(exc.body())

    def _token_error(self, method: str, token: str | None) -> str | None:
        """Bot token for the Web API, app-level token for Socket Mode; the other kind is refused."""
        if token is None:
            return "not_authed"
        if token in self._revoked:
            return "token_revoked"
        wanted, other = (
            (self.app_token, self.token) if method in APP_TOKEN_METHODS else (self.token, self.app_token)
        )
        if token == other:
            return "not_allowed_token_type"
        return None if token == wanted else "invalid_auth"

    def _apps_connections_open(self, args: Args) -> Answer:
        return {"url": self._socket.open_url(args.base_url)}

    def _take_rate_limit(self, method: str) -> _RateLimit | None:
        limit = self._limits.get(method)
        if limit is None or limit.times <= 0:
            return None
        limit.times -= 1
        return limit

    async def _ratelimit_route(self, request: Request) -> Response:
        """Lets a person driving the sandbox by hand make the next calls of a method answer 429."""
        try:
            order = RateLimitOrder.model_validate_json(await request.body())
        except ValidationError as exc:
            return JSONResponse(
                {"ok": False, "error": "invalid_arguments", "detail": str(exc)}, status_code=400
            )
        self.rate_limit(order.method, times=order.times, retry_after=order.retry_after)
        return JSONResponse({"ok": True, **order.model_dump()})

    async def _upload_route(self, request: Request) -> Response:
        """The upload URL handed out by files.getUploadURLExternal: raw bytes or a multipart file."""
        body = await request.body()
        content_type = request.headers.get("content-type", "")
        if content_type.startswith("multipart/form-data"):
            try:
                body = next(iter(_multipart(body, content_type).values()), b"")
            except SlackError as exc:
                return PlainTextResponse(exc.error, status_code=400)
        with self._lock:
            upload = self.files.get(request.path_params["file_id"])
            if upload is None:
                return PlainTextResponse("file not found", status_code=404)
            upload.content = body
        return PlainTextResponse(f"OK - {len(body)}")

    async def _respond_route(self, request: Request) -> Response:
        """A response URL: JSON in, Slack's plain-text answer out."""
        body = await request.body()
        with self._lock:
            status, answer = self._responses.post(request.path_params["key"], body)
        return PlainTextResponse(answer, status_code=status)

    async def _socket_route(self, websocket: WebSocket) -> None:
        await self._socket.serve(websocket)


# -- request decoding -----------------------------------------------------------------------------


async def _read_params(request: Request) -> Params:
    """Query string plus body, the way Slack reads them: JSON, form-encoded or multipart."""
    params: Params = dict(request.query_params)
    body = await request.body()
    if not body:
        return params
    content_type = request.headers.get("content-type", "")
    kind = content_type.split(";")[0].strip().lower()
    if kind == "application/json":
        params.update(_json_object(body))
    elif kind in ("application/x-www-form-urlencoded", "text/plain"):
        params.update(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))
    elif kind == "multipart/form-data":
        fields = _multipart(body, content_type)
        params.update({name: value.decode("utf-8", errors="replace") for name, value in fields.items()})
    elif not kind:
        raise SlackError("missing_post_type")
    else:
        raise SlackError("invalid_post_type")
    return params


def _json_object(body: bytes) -> Params:
    try:
        decoded = json.loads(body)
    except ValueError:
        raise SlackError("invalid_json") from None
    if not isinstance(decoded, dict):
        raise SlackError("invalid_json")
    return decoded


def _multipart(body: bytes, content_type: str) -> dict[str, bytes]:
    """Form fields of a multipart body, decoded with the stdlib (no python-multipart needed)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=default_policy).parsebytes(head + body)
    if not message.is_multipart():
        raise SlackError("invalid_form_data")
    fields: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = payload
    return fields


def _token(request: Request, params: Params) -> str | None:
    """The bearer token, or the legacy `token` argument; never kept in the recorded params."""
    from_param = params.pop("token", None)
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and given.strip():
        return given.strip()
    return str(from_param) if from_param else None
