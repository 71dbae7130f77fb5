"""response_url for the Slack stand-in: where a slash command's or an interaction's reply goes.

slack_bolt's `respond()` POSTs JSON to the `response_url` a payload carries instead of calling
chat.postMessage. Slack shows the reply to the invoking user only (`ephemeral`, the default), in
the channel (`in_channel`), or over the message the interaction came from (`replace_original`,
`delete_original`), and answers a plain `ok`. A URL takes 5 posts within 30 minutes; refusals are
plain-text codes with the HTTP status Slack's webhooks use, so the bot's error paths see them too.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.sandbox.slack.blocks import MESSAGE_BLOCK_LIMIT, check_blocks
from bot.sandbox.slack.state import BOT_ID, Channel, Ephemeral, Message, SlackWorkspace

MAX_USES = 5
LIFETIME_SECONDS = 30 * 60
ROUTE = "/_sandbox/respond"


class ResponsePost(BaseModel):
    """One POST to a response_url as the app sent it, and the answer it got (`ok` or a code)."""

    model_config = ConfigDict(extra="ignore")

    text: str = ""
    blocks: list[Any] = Field(default_factory=list)
    response_type: str = "ephemeral"
    replace_original: bool = False
    delete_original: bool = False
    thread_ts: str | None = None
    status: int = 200
    answer: str = "ok"


@dataclass
class ResponseUrl:
    """One handed-out URL: where its replies land and what was posted to it."""

    channel_id: str
    user_id: str
    message_ts: str | None
    issued: float
    posts: list[ResponsePost] = field(default_factory=list)

    @property
    def uses(self) -> int:
        return sum(post.status == 200 for post in self.posts)


class ResponseUrls:
    """The response URLs handed out so far, and Slack's handling of a POST to one."""

    def __init__(self, workspace: SlackWorkspace) -> None:
        self._workspace = workspace
        self._urls: dict[str, ResponseUrl] = {}

    def issue(self, base_url: str, channel_id: str, user_id: str, message_ts: str | None) -> str:
        """A fresh URL; `message_ts` names the original message an interaction came from."""
        channel = self._workspace.channel(channel_id)
        if user_id not in self._workspace.users:
            raise KeyError(user_id)
        key = secrets.token_urlsafe(16)
        self._urls[key] = ResponseUrl(channel.id, user_id, message_ts, issued=self._workspace.clock())
        return f"{base_url.rstrip('/')}{ROUTE}/{key}"

    def posts(self, url: str) -> list[ResponsePost]:
        """What was posted to `url`, refused posts included; KeyError for a URL never handed out."""
        return list(self._urls[url.rstrip("/").rsplit("/", 1)[-1]].posts)

    def post(self, key: str, body: bytes) -> tuple[int, str]:
        """Slack's answer to one POST: (HTTP status, plain-text body)."""
        target = self._urls.get(key)
        if target is None:
            return 404, "no_service"
        try:
            post = ResponsePost.model_validate(_json_object(body))
        except (ValueError, ValidationError):
            return 400, "invalid_payload"
        status, answer = self._refusal(target, post) or self._deliver(target, post)
        target.posts.append(post.model_copy(update={"status": status, "answer": answer}))
        return status, answer

    def _refusal(self, target: ResponseUrl, post: ResponsePost) -> tuple[int, str] | None:
        if self._workspace.clock() - target.issued > LIFETIME_SECONDS:
            return 404, "expired_url"
        if target.uses >= MAX_USES:
            return 404, "used_url"
        if check_blocks(post.blocks, limit=MESSAGE_BLOCK_LIMIT):
            return 400, "invalid_blocks"
        if not post.delete_original and not post.text and not post.blocks:
            return 400, "no_text"
        if self._workspace.channels[target.channel_id].is_archived:
            return 410, "channel_is_archived"
        return None

    def _deliver(self, target: ResponseUrl, post: ResponsePost) -> tuple[int, str]:
        channel = self._workspace.channels[target.channel_id]
        original = _original(channel, target.message_ts)
        if post.delete_original:
            if isinstance(original, Message):
                channel.messages.remove(original)
            elif isinstance(original, Ephemeral):
                channel.ephemerals.remove(original)
        elif post.replace_original and original is not None:
            original.text, original.blocks = post.text, post.blocks
        elif post.response_type == "in_channel":
            channel.messages.append(
                Message(
                    ts=self._workspace.new_ts(),
                    user=self._workspace.bot_user_id,
                    bot_id=BOT_ID,
                    text=post.text,
                    blocks=post.blocks,
                    thread_ts=post.thread_ts,
                )
            )
        else:
            ephemeral = Ephemeral(
                ts=self._workspace.new_ts(),
                user=target.user_id,
                text=post.text,
                blocks=post.blocks,
                thread_ts=post.thread_ts,
            )
            channel.ephemerals.append(ephemeral)
        return 200, "ok"


def _original(channel: Channel, ts: str | None) -> Message | Ephemeral | None:
    """The message an interaction came from: a channel message, or an ephemeral one."""
    if ts is None:
        return None
    return channel.message(ts) or next((e for e in channel.ephemerals if e.ts == ts), None)


def _json_object(body: bytes) -> dict[str, Any]:
    """A response_url takes a JSON object only (Slack: `invalid_payload` otherwise)."""
    decoded = json.loads(body)
    if not isinstance(decoded, dict):
        raise ValueError("not a JSON object")
    return decoded
