"""The conversations.* methods (and users.conversations) of the Slack stand-in, with Slack's rules.

Creating the incident channel, inviting responders, setting its topic, archiving it when the
incident closes and listing what the bot is in all work on channels, so they share one module:
the same membership, archive and cursor rules apply to each, the way Slack applies them.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from bot.sandbox.slack.args import Args, Handler
from bot.sandbox.slack.state import Answer, Channel, SlackError, SlackWorkspace

CHANNEL_NAME = re.compile(r"[a-z0-9_-]+")
MAX_CHANNEL_NAME = 80
MAX_TOPIC = 250
DEFAULT_PAGE = 100
MAX_PAGE = 1000
CHANNEL_TYPES = frozenset({"public_channel", "private_channel", "mpim", "im"})

Item = TypeVar("Item")


def page(items: Sequence[Item], args: Args, key: Callable[[Item], str]) -> tuple[list[Item], str]:
    """One page of `items` and the `next_cursor` for the rest ("" on the last page), as Slack pages.

    The cursor is opaque to callers (base64, like Slack's); it names the first item of the next
    page, so a cursor that names nothing in the list is `invalid_cursor`.
    """
    raw_limit = args.get("limit") or str(DEFAULT_PAGE)
    if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_PAGE:
        raise SlackError("invalid_limit")
    limit = int(raw_limit)
    start = 0
    cursor = args.get("cursor")
    if cursor is not None:
        keys = [key(item) for item in items]
        wanted = _decode_cursor(cursor)
        if wanted not in keys:
            raise SlackError("invalid_cursor")
        start = keys.index(wanted)
    chunk = list(items[start : start + limit])
    rest = items[start + limit :]
    return chunk, _encode_cursor(key(rest[0])) if rest else ""


def _encode_cursor(item_key: str) -> str:
    return base64.b64encode(f"next:{item_key}".encode()).decode()


def _decode_cursor(cursor: str) -> str | None:
    try:
        decoded = base64.b64decode(cursor, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    prefix, _, item_key = decoded.partition(":")
    return item_key if prefix == "next" else None


class ConversationMethods(SlackWorkspace):
    """Handlers for the methods that create, change, archive and list conversations."""

    def _conversation_methods(self) -> dict[str, Handler]:
        return {
            "conversations.archive": self._conversations_archive,
            "conversations.create": self._conversations_create,
            "conversations.info": self._conversations_info,
            "conversations.invite": self._conversations_invite,
            "conversations.join": self._conversations_join,
            "conversations.members": self._conversations_members,
            "conversations.setTopic": self._set_text("topic"),
            "conversations.setPurpose": self._set_text("purpose"),
            "users.conversations": self._users_conversations,
        }

    def _conversations_create(self, args: Args) -> Answer:
        name = args.need("name", "invalid_name_required")
        if len(name) > MAX_CHANNEL_NAME:
            raise SlackError("invalid_name_maxlength")
        if not CHANNEL_NAME.fullmatch(name):
            raise SlackError("invalid_name_specials")
        if not name.strip("-_"):
            raise SlackError("invalid_name_punctuation")
        # Archived channels keep their names: Slack answers name_taken for those too.
        if self._by_name(name) is not None:
            raise SlackError("name_taken")
        channel = self._new_channel(
            name, creator=self.bot_user_id, members=[self.bot_user_id], is_private=args.flag("is_private")
        )
        return {"channel": channel.to_api(self.bot_user_id)}

    def _conversations_info(self, args: Args) -> Answer:
        channel = self._channel(args.get("channel"))
        return {"channel": channel.to_api(self.bot_user_id, num_members=args.flag("include_num_members"))}

    def _conversations_archive(self, args: Args) -> Answer:
        channel = self._channel(args.get("channel"))
        if channel.is_im:
            raise SlackError("method_not_supported_for_channel_type")
        if channel.is_archived:
            raise SlackError("already_archived")
        if channel.is_general:
            raise SlackError("cant_archive_general")
        if self.bot_user_id not in channel.members:
            raise SlackError("not_in_channel")
        channel.is_archived = True
        return {}

    def _conversations_invite(self, args: Args) -> Answer:
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

    def _conversations_join(self, args: Args) -> Answer:
        channel = self._channel(args.get("channel"))
        if channel.is_private or channel.is_im:
            raise SlackError("method_not_supported_for_channel_type")
        if channel.is_archived:
            raise SlackError("is_archived")
        if self.bot_user_id in channel.members:
            return {"channel": channel.to_api(self.bot_user_id), "warning": "already_in_channel"}
        channel.members.append(self.bot_user_id)
        return {"channel": channel.to_api(self.bot_user_id)}

    def _conversations_members(self, args: Args) -> Answer:
        channel = self._channel(args.get("channel"))
        members, next_cursor = page(channel.members, args, key=str)
        return {"members": members, "response_metadata": {"next_cursor": next_cursor}}

    def _set_text(self, attribute: str) -> Handler:
        """conversations.setTopic / setPurpose: same rules, different field."""

        def handler(args: Args) -> Answer:
            channel = self._joined(args.get("channel"))
            value = args.get(attribute) or ""
            if len(value) > MAX_TOPIC:
                raise SlackError("too_long")
            setattr(channel, attribute, value)
            return {"channel": channel.to_api(self.bot_user_id)}

        return handler

    def _users_conversations(self, args: Args) -> Answer:
        """The conversations a user is in (the caller by default); others' private ones only if shared."""
        types = args.get("types") or "public_channel"
        wanted = {kind.strip() for kind in types.split(",") if kind.strip()}
        if not wanted or not wanted <= CHANNEL_TYPES:
            raise SlackError("invalid_types")
        user = self._user(args.get("user") or self.bot_user_id)
        listed = [
            channel
            for channel in self.channels.values()
            if channel.kind in wanted
            and user.id in channel.members
            and (channel.kind == "public_channel" or self.bot_user_id in channel.members)
            and not (channel.is_archived and args.flag("exclude_archived"))
        ]
        chunk, next_cursor = page(listed, args, key=lambda channel: channel.id)
        return {
            "channels": [channel.to_api(self.bot_user_id) for channel in chunk],
            "response_metadata": {"next_cursor": next_cursor},
        }
