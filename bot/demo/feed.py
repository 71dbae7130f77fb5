"""The sandbox workspace as the demo user sees it: channels, posts (edits in place), threads, files,
and what only the user sees (ephemeral answers to clicks).

Both views (terminal and browser) read this and nothing else, so both show exactly what the bot
sent to Slack. `changes()` yields each post once per version, which is how the terminal follows the
progress message becoming the triage post.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.sandbox.slack import SlackStandIn
from bot.sandbox.slack.state import Channel, Message


@dataclass(frozen=True)
class Post:
    """One message as shown: top-level or in a thread, edited or not, or only for the viewer."""

    channel_id: str
    channel_name: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None
    files: tuple[str, ...] = ()
    edited: bool = False
    pinned: bool = False
    ephemeral: bool = False

    @property
    def fingerprint(self) -> str:
        # A pin is a change a reader sees (the announcement is pinned just after it is posted).
        state = [self.text, self.blocks, self.files, self.edited, self.pinned]
        body = json.dumps(state, sort_keys=True, default=str)
        return hashlib.sha256(body.encode()).hexdigest()

    def buttons(self) -> list[tuple[str, dict[str, Any]]]:
        """Every button on the post with the block id it sits in, in the order a reader sees them."""
        found: list[tuple[str, dict[str, Any]]] = []
        for block in self.blocks:
            if block.get("type") == "actions":
                found += [(str(block.get("block_id", "")), e) for e in block.get("elements", [])]
            accessory = block.get("accessory") or {}
            if block.get("type") == "section" and accessory.get("type") == "button":
                found.append((str(block.get("block_id", "")), accessory))
        return [(block_id, e) for block_id, e in found if e.get("type") == "button"]


@dataclass(frozen=True)
class ChannelView:
    id: str
    name: str
    topic: str
    bookmarks: list[tuple[str, str]]  # (title, link)
    posts: list[Post]  # top level, oldest first
    replies: dict[str, list[Post]] = field(default_factory=dict)  # thread ts → replies, oldest first


@dataclass(frozen=True)
class Names:
    """How mentions read: a member's display name, a channel's name, a user group's handle."""

    users: dict[str, str]
    channels: dict[str, str]

    def user(self, user_id: str) -> str:
        return f"@{self.users.get(user_id, user_id)}"

    def channel(self, channel_id: str, label: str = "") -> str:
        return f"#{label or self.channels.get(channel_id, channel_id)}"


@dataclass(frozen=True)
class Snapshot:
    """The user's channels and how their mentions read, from one copy of the workspace."""

    channels: list[ChannelView]  # the newest first: the incident's channel leads once it exists
    names: Names


class WorkspaceFeed:
    """Reads the stand-in's workspace for one member, and the bot's answers to their clicks."""

    def __init__(self, slack: SlackStandIn, user_id: str) -> None:
        self.slack = slack
        self.user_id = user_id
        self._clicks: list[tuple[str, str, float]] = []  # response URL, channel id, when
        self._seen: dict[tuple[str, str], str] = {}

    def clicked(self, response_url: str, channel_id: str) -> None:
        """Remember a click's response URL: what the bot answers there is shown to the user."""
        self._clicks.append((response_url, channel_id, time.time()))

    def snapshot(self) -> Snapshot:
        copies = self.slack.visible_to(self.user_id)
        names = Names(
            users={uid: user.name for uid, user in list(self.slack.users.items())},
            channels={c.id: c.name for c in copies},
        )
        return Snapshot([self._view(c) for c in reversed(copies) if not c.is_im], names)

    def channels(self) -> list[ChannelView]:
        return self.snapshot().channels

    def answers(self, names: Names, channel_id: str | None = None) -> list[Post]:
        """What the bot answered to the user's clicks (in one channel): shown to them alone."""
        posts: list[Post] = []
        for url, channel, at in list(self._clicks):
            if channel_id not in (None, channel):
                continue
            for n, answer in enumerate(self.slack.responses(url), start=1):
                ts = f"{at + n / 1e6:.6f}"
                name = names.channels.get(channel, channel)
                posts.append(Post(channel, name, ts, str(answer.text), list(answer.blocks), ephemeral=True))
        return posts

    def changes(self, snapshot: Snapshot) -> Iterator[Post]:
        """Posts that are new or changed since the last call (a thread's replies after their root)."""
        for view in reversed(snapshot.channels):
            for post in view.posts:
                yield from self._if_changed(post)
                for reply in view.replies.get(post.ts, []):
                    yield from self._if_changed(reply)
        for answer in self.answers(snapshot.names):
            yield from self._if_changed(answer)

    def file(self, file_id: str) -> tuple[str, bytes] | None:
        found = self.slack.file(file_id)
        if found is None or found.content is None:
            return None
        return found.name, found.content

    def _if_changed(self, post: Post) -> Iterator[Post]:
        key = (post.channel_id, post.ts)
        if self._seen.get(key) != post.fingerprint:
            self._seen[key] = post.fingerprint
            yield post

    def _view(self, channel: Channel) -> ChannelView:
        def post(message: Message) -> Post:
            return Post(
                channel_id=channel.id,
                channel_name=channel.name,
                ts=message.ts,
                text=message.text,
                blocks=list(message.blocks),
                thread_ts=message.thread_ts if message.thread_ts != message.ts else None,
                files=tuple(message.files),
                edited=message.edited,
                pinned=message.ts in channel.pins,
            )

        top = [post(m) for m in channel.messages if m.thread_ts in (None, m.ts)]
        for mine in channel.ephemerals:
            if mine.user == self.user_id:
                top.append(
                    Post(channel.id, channel.name, mine.ts, mine.text, list(mine.blocks), ephemeral=True)
                )
        replies: dict[str, list[Post]] = {}
        for message in channel.messages:
            if message.thread_ts not in (None, message.ts):
                replies.setdefault(str(message.thread_ts), []).append(post(message))
        return ChannelView(
            id=channel.id,
            name=channel.name,
            topic=channel.topic,
            bookmarks=[(b.title, b.link) for b in channel.bookmarks],
            posts=sorted(top, key=lambda p: p.ts),
            replies=replies,
        )
