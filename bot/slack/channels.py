"""An incident's channel, created once and furnished step by step: topic, purpose, responders,
bookmarks, the pinned announcement, the notice in the announcements channel.

The database holds the claim before Slack is called (two replicas, or a retried job, find it and
wait or continue); the channel's ID is stored the moment Slack returns it, each step is recorded
when done, and a retry after a crash mid-creation adopts the channel it finds among the bot's own
instead of making a second one.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.announce import Announcement, DashboardLink
from bot.chatstore import ChatStore, ClaimState
from bot.config import BotConfig
from bot.domain import ChatChannel, Incident
from bot.publish import PublishError
from bot.slack.blocks.announcement import announcement_blocks, announcement_text, notice_text
from bot.slack.blocks.text import cut
from bot.slack.client import SLACK_FAULTS, ChannelPacer, failed
from bot.slack.names import candidates, channel_name

LEASE = timedelta(seconds=60)
WAIT_FOR_OTHER = 15.0  # seconds to wait for another worker's claim before giving the job back
TOPIC = 250  # Slack's limit on a topic or a purpose


class ChannelSetup:
    """Creates and furnishes an incident's channel, once, step by step."""

    def __init__(self, client: WebClient, store: ChatStore, config: BotConfig, pacer: ChannelPacer) -> None:
        self._client = client
        self._store = store
        self._config = config
        self._pacer = pacer

    def ensure(self, incident: Incident, announcement: Announcement) -> ChatChannel:
        """The incident's channel with every setup step done (those done before are skipped)."""
        owner = f"channel:{uuid.uuid4().hex}"
        name = channel_name(self._config.slack.channel_name, incident)
        claim = self._store.claim(incident.id, name=name, owner=owner, lease=LEASE)
        deadline = time.monotonic() + WAIT_FOR_OTHER
        while claim.state is ClaimState.BUSY and time.monotonic() < deadline:
            time.sleep(0.2)  # another worker is creating it right now
            claim = self._store.claim(incident.id, name=name, owner=owner, lease=LEASE)
        if claim.state is ClaimState.BUSY:
            raise PublishError(f"channel of incident {incident.id}: another worker is still creating it")
        try:
            channel = claim.channel
            if channel.channel_id is None:
                channel = self._create(incident, channel, owner)
            self._furnish(incident, announcement, channel, owner)
        finally:
            self._store.release(incident.id, owner=owner)
        found = self._store.channel(incident.id)
        assert found is not None
        return found

    # -- creation ------------------------------------------------------------------------------
    def _create(self, incident: Incident, claim: ChatChannel, owner: str) -> ChatChannel:
        names = candidates(claim.name)
        adopted = self._ours(names) if claim.attempts > 1 else None
        if adopted is not None:
            channel_id, name = adopted
        else:
            channel_id, name = self._first_free(names)
        self._store.created(incident.id, owner=owner, channel_id=channel_id, name=name)
        return claim.model_copy(update={"channel_id": channel_id, "name": name})

    def _first_free(self, names: list[str]) -> tuple[str, str]:
        for name in names:
            try:
                created = self._client.conversations_create(name=name, is_private=self._config.slack.private)
            except SlackApiError as exc:
                if exc.response.get("error") == "name_taken":
                    continue  # another channel, or an archived one, has it
                raise failed(exc, "conversations.create") from exc
            except OSError as exc:
                raise failed(exc, "conversations.create") from exc
            return str(created["channel"]["id"]), name
        raise PublishError(f"conversations.create: every name from {names[0]} to {names[-1]} is taken")

    def _ours(self, names: list[str]) -> tuple[str, str] | None:
        """A channel of one of these names the bot is already in: made by an earlier attempt that
        died before recording it."""
        wanted = set(names)
        cursor = None
        try:
            while True:
                page = self._client.users_conversations(
                    types="private_channel" if self._config.slack.private else "public_channel",
                    exclude_archived=True,
                    limit=200,
                    cursor=cursor,
                )
                for channel in page.get("channels") or []:
                    if channel.get("name") in wanted:
                        return str(channel["id"]), str(channel["name"])
                cursor = (page.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    return None
        except SLACK_FAULTS as exc:
            raise failed(exc, "users.conversations") from exc

    # -- furnishing ----------------------------------------------------------------------------
    def _furnish(self, incident: Incident, a: Announcement, channel: ChatChannel, owner: str) -> None:
        assert channel.channel_id is not None
        cid, done = channel.channel_id, channel.steps

        def step(key: str, call: str, work: Callable[[], object]) -> None:
            if key in done:
                return
            try:
                value = work()
            except SLACK_FAULTS as exc:
                raise failed(exc, call) from exc
            self._store.step_done(incident.id, key, owner=owner, value=value if value is not None else True)

        topic = " · ".join(x for x in (a.severity, a.service, a.alertname, f"incident {a.incident_id}") if x)
        step(
            "topic",
            "conversations.setTopic",
            lambda: self._client.conversations_setTopic(channel=cid, topic=cut(topic, TOPIC)).get("ok"),
        )
        step(
            "purpose",
            "conversations.setPurpose",
            lambda: self._client.conversations_setPurpose(channel=cid, purpose=cut(a.title, TOPIC)).get("ok"),
        )
        step("invited", "conversations.invite", lambda: self._invite(cid, a.responders))
        links = [*a.dashboards, *([a.runbook] if a.runbook else []), *([a.source] if a.source else [])]
        for bookmark in links:
            step(
                f"bookmark:{bookmark.title}",
                "bookmarks.add",
                functools.partial(self._bookmark, cid, bookmark),
            )
        step("announcement", "chat.postMessage", lambda: self._announce(incident, a, cid))
        step("pinned", "pins.add", lambda: self._pin(incident, cid))
        notices = self._config.slack.announcements_channel
        if notices:
            step("notice", "chat.postMessage", lambda: self._notice(incident, a, cid, notices))

    def _invite(self, channel: str, principals: list[str]) -> dict[str, object]:
        """Users by ID, e-mail or user group; `force` so one bad ID does not keep out the rest."""
        users: list[str] = []
        unknown: list[str] = []
        for principal in principals:
            try:
                if "@" in principal:
                    users.append(str(self._client.users_lookupByEmail(email=principal)["user"]["id"]))
                elif principal.startswith("S"):
                    users += [
                        str(u) for u in self._client.usergroups_users_list(usergroup=principal)["users"]
                    ]
                else:
                    users.append(principal)
            except SlackApiError as exc:
                unknown.append(f"{principal} ({exc.response.get('error')})")
        invited = list(dict.fromkeys(users))
        refused: list[str] = []
        if invited:
            answer = self._client.conversations_invite(channel=channel, users=",".join(invited), force=True)
            refused = [
                f"{e.get('user')} ({e.get('error')})"
                for e in answer.get("errors") or []
                if e.get("error") != "already_in_channel"
            ]
        return {"invited": invited, "unknown": unknown, "refused": refused}

    def _bookmark(self, channel: str, bookmark: DashboardLink) -> str:
        added = self._client.bookmarks_add(
            channel_id=channel, title=bookmark.title, type="link", link=bookmark.url
        )
        return str((added.get("bookmark") or {}).get("id", ""))

    def _announce(self, incident: Incident, a: Announcement, channel: str) -> str:
        self._pacer.wait(channel)
        posted = self._client.chat_postMessage(
            channel=channel, text=announcement_text(a), blocks=announcement_blocks(a), unfurl_links=False
        )
        ts = str(posted["ts"])
        self._store.record_message(incident.id, "announcement", channel_id=channel, ts=ts)
        return ts

    def _pin(self, incident: Incident, channel: str) -> None:
        message = self._store.message(incident.id, "announcement")
        assert message is not None
        try:
            self._client.pins_add(channel=channel, timestamp=message.ts)
        except SlackApiError as exc:
            if exc.response.get("error") != "already_pinned":
                raise

    def _notice(self, incident: Incident, a: Announcement, channel: str, notices: str) -> str:
        self._pacer.wait(notices)
        text = notice_text(a, channel)
        posted = self._client.chat_postMessage(channel=notices, text=text, unfurl_links=False)
        self._store.record_message(incident.id, "notice", channel_id=notices, ts=str(posted["ts"]))
        return str(posted["ts"])
