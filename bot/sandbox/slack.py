"""A local Slack Web API stand-in that slack_sdk talks to as if it were slack.com.

The bot's Slack flow (create the incident channel, invite responders, post and update the status
message, upload a timeline) must be testable without a workspace. This keeps the state those calls
change, answers with the real error codes and Block Kit complaints, and can rate-limit any method
on demand, so tests exercise the same code paths production does:

    standin = SlackStandIn(users=[SlackUser(id="U1", name="ana", email="ana@example.com")])
    with ServerThread(standin.app) as server:
        client = WebClient(token="xoxb-sandbox", base_url=server.url + "/api/")
"""

from __future__ import annotations

import itertools
import json
import mimetypes
import re
import threading
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
from starlette.routing import Route

from bot.sandbox.slack_blocks import (
    MESSAGE_BLOCK_LIMIT,
    BlocksFormatError,
    check_blocks,
    check_view,
    decode_blocks,
)

Params = dict[str, Any]
Answer = dict[str, Any]

TEAM_ID = "T0SANDBOX"
BOT_ID = "B0SANDBOX"
APP_ID = "A0SANDBOX"
CHANNEL_NAME = re.compile(r"[a-z0-9_-]+")
MAX_CHANNEL_NAME = 80
MAX_TOPIC = 250
MAX_TEXT = 40_000
MAX_ATTACHMENTS = 100
MAX_BOOKMARKS = 100
_NO_GROUPS: Mapping[str, list[str]] = MappingProxyType({})


# -- state ----------------------------------------------------------------------------------------


class SlackUser(BaseModel):
    """A workspace member the bot can look up, invite and mention."""

    id: str
    name: str
    real_name: str = ""
    email: str | None = None
    is_bot: bool = False
    tz: str = "UTC"

    def to_api(self) -> Answer:
        profile = {"real_name": self.real_name, "display_name": self.name, "email": self.email}
        return {
            "id": self.id,
            "team_id": TEAM_ID,
            "name": self.name,
            "real_name": self.real_name,
            "deleted": False,
            "is_bot": self.is_bot,
            "tz": self.tz,
            "profile": {key: value for key, value in profile.items() if value is not None},
        }


class SlackCall(BaseModel):
    """One Web API call as received (the token left out) and the error it was answered with."""

    method: str
    params: dict[str, Any]
    time: datetime
    error: str | None = None


class Message(BaseModel):
    ts: str
    user: str
    text: str = ""
    blocks: list[Any] = Field(default_factory=list)
    attachments: list[Any] = Field(default_factory=list)
    thread_ts: str | None = None
    files: list[str] = Field(default_factory=list)
    bot_id: str | None = None
    edited: bool = False

    def to_api(self) -> Answer:
        body: Answer = {"type": "message", "user": self.user, "text": self.text, "ts": self.ts}
        optional = {
            "bot_id": self.bot_id,
            "blocks": self.blocks,
            "attachments": self.attachments,
            "thread_ts": self.thread_ts,
            "files": [{"id": file_id} for file_id in self.files],
        }
        body.update({key: value for key, value in optional.items() if value})
        return body


class Ephemeral(BaseModel):
    """A message only `user` sees; Slack keeps no history of these, the stand-in does for tests."""

    ts: str
    user: str
    text: str = ""
    blocks: list[Any] = Field(default_factory=list)
    thread_ts: str | None = None


class Bookmark(BaseModel):
    id: str
    channel_id: str
    title: str
    type: str
    link: str
    emoji: str | None = None
    date_created: int

    def to_api(self) -> Answer:
        return {**self.model_dump(), "date_updated": 0, "rank": "g", "entity_id": None}


class SlackFile(BaseModel):
    """An external upload: declared by getUploadURLExternal, filled by the POST, shared on completion."""

    id: str
    name: str
    length: int
    title: str = ""
    content: bytes | None = None
    channels: list[str] = Field(default_factory=list)

    @property
    def mimetype(self) -> str:
        return mimetypes.guess_type(self.name)[0] or "text/plain"

    def to_api(self) -> Answer:
        return {
            "id": self.id,
            "name": self.name,
            "title": self.title or self.name,
            "mimetype": self.mimetype,
            "size": len(self.content or b""),
            "channels": self.channels,
        }


class Channel(BaseModel):
    """A conversation and everything the bot did to it."""

    id: str
    name: str
    is_private: bool = False
    is_im: bool = False
    created: int
    creator: str
    members: list[str] = Field(default_factory=list)
    topic: str = ""
    purpose: str = ""
    messages: list[Message] = Field(default_factory=list)
    ephemerals: list[Ephemeral] = Field(default_factory=list)
    bookmarks: list[Bookmark] = Field(default_factory=list)
    pins: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)

    def message(self, ts: str) -> Message | None:
        return next((message for message in self.messages if message.ts == ts), None)

    def replies(self, thread_ts: str) -> list[Message]:
        return [
            message for message in self.messages if message.thread_ts == thread_ts and message.ts != thread_ts
        ]

    def to_api(self, viewer: str) -> Answer:
        def text_value(value: str) -> Answer:
            return {"value": value, "creator": self.creator if value else "", "last_set": 0}

        return {
            "id": self.id,
            "name": self.name,
            "name_normalized": self.name,
            "is_channel": not self.is_private and not self.is_im,
            "is_group": self.is_private,
            "is_im": self.is_im,
            "is_private": self.is_private,
            "is_archived": False,
            "is_member": viewer in self.members,
            "created": self.created,
            "creator": self.creator,
            "num_members": len(self.members),
            "topic": text_value(self.topic),
            "purpose": text_value(self.purpose),
        }


class RateLimitOrder(BaseModel):
    """Body of `POST /_sandbox/ratelimit`."""

    model_config = ConfigDict(extra="forbid")

    method: str = Field(min_length=1)
    times: int = Field(default=1, ge=1)
    retry_after: int = Field(default=1, ge=0)


class OpenedView(BaseModel):
    id: str
    trigger_id: str
    view: dict[str, Any]


class SlackError(Exception):
    """An `{"ok": false, "error": ...}` answer; `extra` carries e.g. `response_metadata`."""

    def __init__(self, error: str, **extra: Any) -> None:
        super().__init__(error)
        self.error = error
        self.extra = extra

    def body(self) -> Answer:
        return {"ok": False, "error": self.error, **self.extra}


def _invalid_arguments(*messages: str) -> SlackError:
    return SlackError("invalid_arguments", response_metadata={"messages": list(messages)})


@dataclass
class _RateLimit:
    times: int
    retry_after: int


@dataclass(frozen=True)
class _Args:
    """One call's parameters with typed accessors; form bodies give strings, JSON bodies anything."""

    params: Params
    base_url: str

    def get(self, key: str) -> str | None:
        value = self.params.get(key)
        if value is None or value == "":
            return None
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        return json.dumps(value)

    def need(self, key: str, error: str | None = None) -> str:
        value = self.get(key)
        if value is None:
            raise SlackError(error) if error else _invalid_arguments(f"[ERROR] missing required field: {key}")
        return value

    def flag(self, key: str) -> bool:
        value = self.params.get(key)
        return value is True or (isinstance(value, str) and value.lower() in ("true", "1"))

    def structured(self, key: str) -> Any:
        """A JSON argument: a string in a form body, already decoded in a JSON body."""
        value = self.params.get(key)
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError:
            raise _invalid_arguments(f"[ERROR] {key} must be valid JSON") from None

    def csv(self, key: str, error: str) -> list[str]:
        return [item.strip() for item in self.need(key, error).split(",") if item.strip()]


@dataclass(frozen=True)
class _Reply:
    body: Answer
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[_Args], Answer]


# -- the stand-in ---------------------------------------------------------------------------------


class SlackStandIn:
    """Serves `POST /api/<method>` for the methods the bot uses, keeping workspace state in memory."""

    def __init__(
        self,
        *,
        token: str = "xoxb-sandbox",
        users: Iterable[SlackUser] = (),
        usergroups: Mapping[str, list[str]] = _NO_GROUPS,
        bot_user_id: str = "UBOT",
    ) -> None:
        self.token = token
        self.bot_user_id = bot_user_id
        bot = SlackUser(id=bot_user_id, name="incident-bot", real_name="Incident Bot", is_bot=True)
        self.users: dict[str, SlackUser] = {bot.id: bot} | {user.id: user for user in users}
        self.usergroups: dict[str, list[str]] = {group: list(ids) for group, ids in usergroups.items()}
        self.channels: dict[str, Channel] = {}
        self.files: dict[str, SlackFile] = {}
        self.views: list[OpenedView] = []
        self.calls: list[SlackCall] = []
        self._limits: dict[str, _RateLimit] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._methods = self._method_table()
        self.app = Starlette(
            routes=[
                Route("/api/{method}", self._api, methods=["GET", "POST"]),
                Route("/_sandbox/ratelimit", self._ratelimit_route, methods=["POST"]),
                Route("/_sandbox/upload/{file_id}", self._upload_route, methods=["POST"]),
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

    def channel(self, name_or_id: str) -> Channel:
        """A channel by id or name (leading `#` allowed); KeyError when there is none."""
        key = name_or_id.removeprefix("#")
        found = self.channels.get(key) or self._by_name(key)
        if found is None:
            raise KeyError(name_or_id)
        return found

    def add_channel(self, name: str, *, members: Iterable[str] = (), is_private: bool = False) -> Channel:
        """A channel that already exists, e.g. one the bot has not joined (to test `not_in_channel`)."""
        ids = list(members)
        with self._lock:
            creator = ids[0] if ids else "USLACKBOT"
            return self._new_channel(name, creator=creator, members=ids, is_private=is_private)

    # -- HTTP --------------------------------------------------------------------------------

    async def _api(self, request: Request) -> Response:
        method = request.path_params["method"]
        try:
            params = await _read_params(request)
        except SlackError as exc:
            return self._record(method, {}, _Reply(exc.body()))
        token = _token(request, params)
        args = _Args(params, base_url=f"{request.url.scheme}://{request.url.netloc}")
        with self._lock:
            reply = self._answer(method, token, args)
        return self._record(method, params, reply)

    def _record(self, method: str, params: Params, reply: _Reply) -> Response:
        call = SlackCall(method=method, params=params, time=datetime.now(UTC), error=reply.body.get("error"))
        with self._lock:
            self.calls.append(call)
        return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)

    def _answer(self, method: str, token: str | None, args: _Args) -> _Reply:
        handler = self._methods.get(method)
        if handler is None:
            return _Reply({"ok": False, "error": "unknown_method", "req_method": method})
        if token is None:
            return _Reply({"ok": False, "error": "not_authed"})
        if token != self.token:
            return _Reply({"ok": False, "error": "invalid_auth"})
        limited = self._take_rate_limit(method)
        if limited is not None:
            headers = {"Retry-After": str(limited)}
            return _Reply({"ok": False, "error": "ratelimited"}, status=429, headers=headers)
        try:
            return _Reply({"ok": True, **handler(args)})
        except SlackError as exc:
            return _Reply(exc.body())

    def _take_rate_limit(self, method: str) -> int | None:
        limit = self._limits.get(method)
        if limit is None or limit.times <= 0:
            return None
        limit.times -= 1
        return limit.retry_after

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

    # -- lookups -----------------------------------------------------------------------------

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08X}"

    def _new_ts(self) -> str:
        return f"{int(time.time())}.{next(self._ids):06d}"

    def _by_name(self, name: str) -> Channel | None:
        return next((channel for channel in self.channels.values() if channel.name == name), None)

    def _new_channel(
        self, name: str, *, creator: str, members: Iterable[str], is_private: bool = False, prefix: str = "C"
    ) -> Channel:
        channel = Channel(
            id=self._new_id(prefix),
            name=name,
            is_private=is_private,
            is_im=prefix == "D",
            created=int(time.time()),
            creator=creator,
            members=list(dict.fromkeys(members)),
        )
        self.channels[channel.id] = channel
        return channel

    def _channel(self, channel_id: str | None, error: str = "channel_not_found") -> Channel:
        channel = self.channels.get(channel_id or "")
        if channel is None:
            raise SlackError(error)
        return channel

    def _joined(self, channel_id: str | None) -> Channel:
        """A channel the bot is a member of; Slack refuses most writes elsewhere."""
        channel = self._channel(channel_id)
        if self.bot_user_id not in channel.members:
            raise SlackError("not_in_channel")
        return channel

    def _post_target(self, target: str | None) -> Channel:
        """chat.* accept a channel id, a channel name, or a user id (which opens a DM)."""
        if target and target in self.users:
            return self._dm(target)
        key = (target or "").removeprefix("#")
        found = self.channels.get(key) or self._by_name(key)
        if found is None:
            raise SlackError("channel_not_found")
        if self.bot_user_id not in found.members:
            raise SlackError("not_in_channel")
        return found

    def _dm(self, user_id: str) -> Channel:
        members = {self.bot_user_id, user_id}
        for channel in self.channels.values():
            if channel.is_im and set(channel.members) == members:
                return channel
        return self._new_channel(
            user_id, creator=self.bot_user_id, members=[self.bot_user_id, user_id], prefix="D"
        )

    def _user(self, user_id: str | None) -> SlackUser:
        user = self.users.get(user_id or "")
        if user is None:
            raise SlackError("user_not_found")
        return user

    def _blocks(self, args: _Args) -> list[Any] | None:
        """Decoded, checked `blocks`, or None when absent; Block Kit violations answer invalid_blocks."""
        raw = args.params.get("blocks")
        if raw is None or raw == "":
            return None
        try:
            blocks = decode_blocks(raw)
        except BlocksFormatError:
            raise SlackError("invalid_blocks_format") from None
        errors = check_blocks(blocks, limit=MESSAGE_BLOCK_LIMIT)
        if errors:
            raise SlackError("invalid_blocks", response_metadata={"messages": errors})
        return blocks

    def _attachments(self, args: _Args) -> list[Any]:
        attachments = args.structured("attachments") or []
        if not isinstance(attachments, list):
            raise _invalid_arguments("[ERROR] attachments must be an array")
        if len(attachments) > MAX_ATTACHMENTS:
            raise SlackError("too_many_attachments")
        return attachments

    # -- methods -----------------------------------------------------------------------------

    def _method_table(self) -> dict[str, Handler]:
        return {
            "auth.test": self._auth_test,
            "conversations.create": self._conversations_create,
            "conversations.info": self._conversations_info,
            "conversations.invite": self._conversations_invite,
            "conversations.join": self._conversations_join,
            "conversations.members": self._conversations_members,
            "conversations.setTopic": self._set_text("topic"),
            "conversations.setPurpose": self._set_text("purpose"),
            "chat.postMessage": self._chat_post_message,
            "chat.update": self._chat_update,
            "chat.postEphemeral": self._chat_post_ephemeral,
            "bookmarks.add": self._bookmarks_add,
            "pins.add": self._pins_add,
            "users.lookupByEmail": self._users_lookup_by_email,
            "users.info": self._users_info,
            "usergroups.users.list": self._usergroups_users_list,
            "views.open": self._views_open,
            "files.getUploadURLExternal": self._files_get_upload_url,
            "files.completeUploadExternal": self._files_complete_upload,
        }

    def _auth_test(self, _args: _Args) -> Answer:
        bot = self.users[self.bot_user_id]
        return {
            "url": "https://sandbox.slack.com/",
            "team": "Sandbox",
            "user": bot.name,
            "team_id": TEAM_ID,
            "user_id": bot.id,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _conversations_create(self, args: _Args) -> Answer:
        name = args.need("name", "invalid_name_required")
        if len(name) > MAX_CHANNEL_NAME:
            raise SlackError("invalid_name_maxlength")
        if not CHANNEL_NAME.fullmatch(name):
            raise SlackError("invalid_name_specials")
        if not name.strip("-_"):
            raise SlackError("invalid_name_punctuation")
        if self._by_name(name) is not None:
            raise SlackError("name_taken")
        channel = self._new_channel(
            name, creator=self.bot_user_id, members=[self.bot_user_id], is_private=args.flag("is_private")
        )
        return {"channel": channel.to_api(self.bot_user_id)}

    def _conversations_info(self, args: _Args) -> Answer:
        return {"channel": self._channel(args.get("channel")).to_api(self.bot_user_id)}

    def _conversations_invite(self, args: _Args) -> Answer:
        channel = self._joined(args.get("channel"))
        failures: list[Answer] = []
        invited: list[str] = []
        for user_id in args.csv("users", "no_user"):
            error = self._invite_error(channel, user_id)
            if error:
                failures.append({"user": user_id, "ok": False, "error": error})
            else:
                invited.append(user_id)
        if failures and not args.flag("force"):
            raise SlackError(failures[0]["error"], errors=failures)
        channel.members.extend(dict.fromkeys(invited))
        answer: Answer = {"channel": channel.to_api(self.bot_user_id)}
        if failures:
            answer["errors"] = failures
        return answer

    def _invite_error(self, channel: Channel, user_id: str) -> str | None:
        if user_id == self.bot_user_id:
            return "cant_invite_self"
        if user_id not in self.users:
            return "user_not_found"
        if user_id in channel.members:
            return "already_in_channel"
        return None

    def _conversations_join(self, args: _Args) -> Answer:
        channel = self._channel(args.get("channel"))
        if channel.is_private or channel.is_im:
            raise SlackError("method_not_supported_for_channel_type")
        if self.bot_user_id in channel.members:
            return {"channel": channel.to_api(self.bot_user_id), "warning": "already_in_channel"}
        channel.members.append(self.bot_user_id)
        return {"channel": channel.to_api(self.bot_user_id)}

    def _conversations_members(self, args: _Args) -> Answer:
        channel = self._channel(args.get("channel"))
        return {"members": list(channel.members), "response_metadata": {"next_cursor": ""}}

    def _set_text(self, attribute: str) -> Handler:
        """conversations.setTopic / setPurpose: same rules, different field."""

        def handler(args: _Args) -> Answer:
            channel = self._joined(args.get("channel"))
            value = args.get(attribute) or ""
            if len(value) > MAX_TOPIC:
                raise SlackError("too_long")
            setattr(channel, attribute, value)
            return {"channel": channel.to_api(self.bot_user_id)}

        return handler

    def _chat_post_message(self, args: _Args) -> Answer:
        channel = self._post_target(args.get("channel"))
        blocks = self._blocks(args)
        attachments = self._attachments(args)
        text = args.get("text") or ""
        if not text and not blocks and not attachments:
            raise SlackError("no_text")
        message = Message(
            ts=self._new_ts(),
            user=self.bot_user_id,
            bot_id=BOT_ID,
            text=text[:MAX_TEXT],
            blocks=blocks or [],
            attachments=attachments,
            thread_ts=self._thread_root(channel, args.get("thread_ts")),
        )
        channel.messages.append(message)
        return {"channel": channel.id, "ts": message.ts, "message": message.to_api()}

    def _thread_root(self, channel: Channel, thread_ts: str | None) -> str | None:
        """Replying to a reply threads under its parent, as Slack does."""
        if thread_ts is None:
            return None
        parent = channel.message(thread_ts)
        return (parent.thread_ts or thread_ts) if parent else thread_ts

    def _chat_update(self, args: _Args) -> Answer:
        channel = self._channel(args.get("channel"))
        message = channel.message(args.need("ts", "message_not_found"))
        if message is None:
            raise SlackError("message_not_found")
        if message.user != self.bot_user_id:
            raise SlackError("cant_update_message")
        blocks = self._blocks(args)
        text = args.get("text")
        if text is None and blocks is None:
            raise SlackError("no_text")
        # Sending text without blocks drops the old blocks, as it does on Slack.
        message.blocks = blocks or []
        message.text = (text or "")[:MAX_TEXT]
        message.edited = True
        return {"channel": channel.id, "ts": message.ts, "text": message.text, "message": message.to_api()}

    def _chat_post_ephemeral(self, args: _Args) -> Answer:
        channel = self._post_target(args.get("channel"))
        user = self._user(args.need("user", "user_not_found"))
        if user.id not in channel.members:
            raise SlackError("user_not_in_channel")
        blocks = self._blocks(args)
        text = args.get("text") or ""
        if not text and not blocks:
            raise SlackError("no_text")
        ephemeral = Ephemeral(
            ts=self._new_ts(),
            user=user.id,
            text=text[:MAX_TEXT],
            blocks=blocks or [],
            thread_ts=args.get("thread_ts"),
        )
        channel.ephemerals.append(ephemeral)
        return {"message_ts": ephemeral.ts}

    def _bookmarks_add(self, args: _Args) -> Answer:
        channel = self._channel(args.get("channel_id"))
        title = args.need("title")
        if args.need("type") != "link":
            raise SlackError("invalid_bookmark_type")
        link = args.get("link") or ""
        if not link.startswith(("http://", "https://")):
            raise SlackError("invalid_link")
        if len(channel.bookmarks) >= MAX_BOOKMARKS:
            raise SlackError("too_many_bookmarks")
        bookmark = Bookmark(
            id=self._new_id("Bk"),
            channel_id=channel.id,
            title=title,
            type="link",
            link=link,
            emoji=args.get("emoji"),
            date_created=int(time.time()),
        )
        channel.bookmarks.append(bookmark)
        return {"bookmark": bookmark.to_api()}

    def _pins_add(self, args: _Args) -> Answer:
        channel = self._channel(args.get("channel"))
        ts = args.need("timestamp", "no_item_specified")
        if channel.message(ts) is None:
            raise SlackError("message_not_found")
        if ts in channel.pins:
            raise SlackError("already_pinned")
        channel.pins.append(ts)
        return {}

    def _users_lookup_by_email(self, args: _Args) -> Answer:
        email = args.need("email", "users_not_found").lower()
        for user in self.users.values():
            if user.email and user.email.lower() == email:
                return {"user": user.to_api()}
        raise SlackError("users_not_found")

    def _users_info(self, args: _Args) -> Answer:
        return {"user": self._user(args.get("user")).to_api()}

    def _usergroups_users_list(self, args: _Args) -> Answer:
        members = self.usergroups.get(args.need("usergroup", "no_such_subteam"))
        if members is None:
            raise SlackError("no_such_subteam")
        return {"users": list(members)}

    def _views_open(self, args: _Args) -> Answer:
        trigger_id = args.need("trigger_id")
        if any(opened.trigger_id == trigger_id for opened in self.views):
            raise SlackError("exchanged_trigger_id")
        view = args.structured("view")
        if not isinstance(view, dict):
            raise _invalid_arguments("[ERROR] must provide an object [json-pointer:/view]")
        errors = check_view(view)
        if errors:
            raise _invalid_arguments(*errors)
        opened = OpenedView(id=self._new_id("V"), trigger_id=trigger_id, view=view)
        self.views.append(opened)
        return {"view": self._view_answer(opened)}

    def _view_answer(self, opened: OpenedView) -> Answer:
        return {
            "callback_id": "",
            "private_metadata": "",
            "external_id": "",
            **opened.view,
            "id": opened.id,
            "team_id": TEAM_ID,
            "state": {"values": {}},
            "hash": f"{int(time.time())}.{opened.id}",
            "root_view_id": opened.id,
            "app_id": APP_ID,
            "bot_id": BOT_ID,
        }

    def _files_get_upload_url(self, args: _Args) -> Answer:
        filename = args.need("filename")
        length = args.need("length")
        if not length.isdigit():
            raise _invalid_arguments("[ERROR] length must be an integer")
        upload = SlackFile(id=self._new_id("F"), name=filename, length=int(length))
        self.files[upload.id] = upload
        return {"upload_url": f"{args.base_url}/_sandbox/upload/{upload.id}", "file_id": upload.id}

    def _files_complete_upload(self, args: _Args) -> Answer:
        entries = args.structured("files")
        if not isinstance(entries, list) or not entries:
            raise _invalid_arguments("[ERROR] missing required field: files")
        uploads = [self._uploaded(entry) for entry in entries]
        channel_id = args.get("channel_id")
        if channel_id is not None:
            self._share(uploads, self._sharing_target(channel_id), args)
        return {"files": [upload.to_api() for upload in uploads]}

    def _uploaded(self, entry: object) -> SlackFile:
        spec = entry if isinstance(entry, dict) else {}
        upload = self.files.get(str(spec.get("id", "")))
        if upload is None or upload.content is None:
            raise SlackError("file_not_found")
        upload.title = str(spec.get("title") or upload.title or upload.name)
        return upload

    def _sharing_target(self, channel_id: str) -> Channel:
        channel = self._channel(channel_id, error="invalid_channel")
        if self.bot_user_id not in channel.members:
            raise SlackError("not_in_channel")
        return channel

    def _share(self, uploads: list[SlackFile], channel: Channel, args: _Args) -> None:
        """Files land in the channel as one message carrying `initial_comment`, as on Slack."""
        for upload in uploads:
            upload.channels.append(channel.id)
            channel.files.append(upload.id)
        message = Message(
            ts=self._new_ts(),
            user=self.bot_user_id,
            bot_id=BOT_ID,
            text=args.get("initial_comment") or "",
            files=[upload.id for upload in uploads],
            thread_ts=self._thread_root(channel, args.get("thread_ts")),
        )
        channel.messages.append(message)


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
