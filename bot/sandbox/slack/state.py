"""The Slack stand-in's workspace: its pydantic models and the state the Web API methods change.

Users, channels (with their messages, ephemerals, bookmarks, pins and files), uploads and opened
views live here, with the lookups every method shares (a channel by id or name, a joined channel, a
DM target, a user) and the `SlackError` they raise. Kept apart from the HTTP layer and from the
per-method handlers so that both work on one typed state without depending on each other.
"""

from __future__ import annotations

import itertools
import mimetypes
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

Params = dict[str, Any]
Answer = dict[str, Any]

TEAM_ID = "T0SANDBOX"
BOT_ID = "B0SANDBOX"
APP_ID = "A0SANDBOX"


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
    is_general: bool = False
    is_archived: bool = False
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

    @property
    def kind(self) -> str:
        """The `types` name users.conversations filters on."""
        if self.is_im:
            return "im"
        return "private_channel" if self.is_private else "public_channel"

    def to_api(self, viewer: str, *, num_members: bool = False) -> Answer:
        """The channel object; Slack counts members only when asked (`include_num_members`)."""

        def text_value(value: str) -> Answer:
            return {"value": value, "creator": self.creator if value else "", "last_set": 0}

        body: Answer = {
            "id": self.id,
            "name": self.name,
            "name_normalized": self.name,
            "is_channel": self.kind == "public_channel",
            "is_group": self.is_private,
            "is_im": self.is_im,
            "is_mpim": False,
            "is_private": self.is_private,
            "is_general": self.is_general,
            "is_archived": self.is_archived,
            "is_member": viewer in self.members,
            "created": self.created,
            "creator": self.creator,
            "topic": text_value(self.topic),
            "purpose": text_value(self.purpose),
        }
        if num_members:
            body["num_members"] = len(self.members)
        return body


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


def invalid_arguments(*messages: str) -> SlackError:
    return SlackError("invalid_arguments", response_metadata={"messages": list(messages)})


# -- the workspace --------------------------------------------------------------------------------


class SlackWorkspace:
    """Workspace state in memory: members, user groups, channels, uploads and opened views."""

    def __init__(
        self,
        *,
        users: Iterable[SlackUser],
        usergroups: Mapping[str, list[str]],
        bot_user_id: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.bot_user_id = bot_user_id
        self.clock = clock
        bot = SlackUser(id=bot_user_id, name="incident-bot", real_name="Incident Bot", is_bot=True)
        self.users: dict[str, SlackUser] = {bot.id: bot} | {user.id: user for user in users}
        self.usergroups: dict[str, list[str]] = {group: list(ids) for group, ids in usergroups.items()}
        self.channels: dict[str, Channel] = {}
        self.files: dict[str, SlackFile] = {}
        self.views: list[OpenedView] = []
        self.triggers: dict[str, float] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def channel(self, name_or_id: str) -> Channel:
        """A channel by id or name (leading `#` allowed); KeyError when there is none."""
        key = name_or_id.removeprefix("#")
        found = self.channels.get(key) or self._by_name(key)
        if found is None:
            raise KeyError(name_or_id)
        return found

    def add_channel(
        self, name: str, *, members: Iterable[str] = (), is_private: bool = False, is_general: bool = False
    ) -> Channel:
        """A channel that already exists, e.g. one the bot has not joined (to test `not_in_channel`)."""
        ids = list(members)
        with self._lock:
            creator = ids[0] if ids else "USLACKBOT"
            channel = self._new_channel(name, creator=creator, members=ids, is_private=is_private)
            channel.is_general = is_general
            return channel

    def add_user(self, user: SlackUser) -> None:
        """A member who joins the workspace after it started (the demo's user)."""
        with self._lock:
            self.users[user.id] = user

    def visible_to(self, user_id: str) -> list[Channel]:
        """Copies of the channels `user_id` is in, taken under the lock: a reader beside the Web
        API (the demo's views) sees whole messages, never one a method is half-way through."""
        with self._lock:
            return [c.model_copy(deep=True) for c in self.channels.values() if user_id in c.members]

    def file(self, file_id: str) -> SlackFile | None:
        with self._lock:
            found = self.files.get(file_id)
            return found.model_copy() if found else None

    def new_ts(self) -> str:
        """A fresh message timestamp, unique within the workspace."""
        return f"{int(self.clock())}.{next(self._ids):06d}"

    def trigger_id(self) -> str:
        """A trigger_id as an interaction carries one: views.open takes it once, within 3 seconds."""
        with self._lock:
            trigger_id = f"{int(self.clock())}.{next(self._ids)}.{secrets.token_hex(16)}"
            self.triggers[trigger_id] = self.clock()
            return trigger_id

    # -- lookups -----------------------------------------------------------------------------

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08X}"

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
            created=int(self.clock()),
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
        """A live channel the bot is a member of; Slack refuses most writes elsewhere."""
        channel = self._channel(channel_id)
        if channel.is_archived:
            raise SlackError("is_archived")
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
        if found.is_archived:
            raise SlackError("is_archived")
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
