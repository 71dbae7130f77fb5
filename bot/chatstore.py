"""Where each incident's chat channel and messages are recorded: the database decides who creates.

Slack lets two concurrent `conversations.create` calls with one name both succeed, and a job may be
retried after it created a channel. So a channel is claimed here first (a row per incident, held
by one owner for a lease), its ID is stored the moment it exists, every setup step is recorded as
done, and each message is recorded by purpose: whoever comes next continues, never repeats.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.clock import Clock, utc_now
from bot.domain import ChatChannel, ChatMessage
from bot.errors import NotFoundError
from bot.lifecycle import Lifecycle
from bot.store.db import Database
from bot.store.models import ChatChannelRow, ChatMessageRow, IncidentRow
from bot.store.upsert import insert_for


class ClaimState(StrEnum):
    MINE = "mine"  # this owner may create the channel and run the steps not yet done
    BUSY = "busy"  # another owner holds a live claim


@dataclass(frozen=True)
class Claim:
    state: ClaimState
    channel: ChatChannel


def _channel(row: ChatChannelRow) -> ChatChannel:
    return ChatChannel(
        incident_id=row.incident_id,
        name=row.name,
        channel_id=row.channel_id,
        attempts=row.attempts,
        steps=dict(row.steps or {}),
    )


class ChatStore:
    """Channel claims, setup steps and posted messages of incidents."""

    def __init__(self, db: Database, lifecycle: Lifecycle, *, clock: Clock = utc_now) -> None:
        self._db = db
        self._lifecycle = lifecycle
        self._clock = clock

    # -- the channel ---------------------------------------------------------------------------
    def claim(self, incident_id: int, *, name: str, owner: str, lease: timedelta) -> Claim:
        """Take (or renew, or take over once expired) the incident's channel claim."""
        now = self._clock()
        with self._db.transaction() as session:
            inserted = session.execute(
                insert_for(session, ChatChannelRow)
                .values(
                    incident_id=incident_id,
                    name=name,
                    claimed_by=owner,
                    claimed_until=now + lease,
                    attempts=1,
                    steps={},
                    created_at=now,
                )
                .on_conflict_do_nothing(index_elements=["incident_id"])
                .returning(ChatChannelRow.incident_id)
            ).scalar_one_or_none()
            row = session.get(ChatChannelRow, incident_id, with_for_update=True, populate_existing=True)
            assert row is not None
            if inserted is None:
                if row.claimed_by != owner and row.claimed_until > now:
                    return Claim(ClaimState.BUSY, _channel(row))
                if row.claimed_by != owner:
                    row.attempts += 1  # a previous owner may have created it and died before saying so
                row.claimed_by, row.claimed_until = owner, now + lease
            return Claim(ClaimState.MINE, _channel(row))

    def release(self, incident_id: int, *, owner: str) -> None:
        """Give the claim up early (the setup finished, or failed and its job will be retried)."""
        with self._db.transaction() as session:
            row = session.get(ChatChannelRow, incident_id, with_for_update=True)
            if row is not None and row.claimed_by == owner:
                row.claimed_until = self._clock()

    def created(self, incident_id: int, *, owner: str, channel_id: str, name: str) -> None:
        """The channel exists: store its ID at once, and say so on the timeline."""
        with self._db.transaction() as session:
            row = self._owned(session, incident_id, owner)
            row.channel_id, row.name = channel_id, name
            incident = session.get(IncidentRow, incident_id, with_for_update=True)
            assert incident is not None
            self._lifecycle.channel_created(
                session, incident, name=name, channel_id=channel_id, now=self._clock()
            )

    def step_done(self, incident_id: int, step: str, *, owner: str, value: Any = True) -> None:
        """Record one setup step (topic, invites, a bookmark, the pin …) as done."""
        with self._db.transaction() as session:
            row = self._owned(session, incident_id, owner)
            row.steps = {**(row.steps or {}), step: value}

    def channel(self, incident_id: int) -> ChatChannel | None:
        with self._db.reader() as session:
            row = session.get(ChatChannelRow, incident_id)
            return _channel(row) if row is not None else None

    def incident_of(self, channel_id: str) -> int | None:
        """The incident whose channel this is, if any."""
        with self._db.reader() as session:
            found: int | None = session.scalar(
                select(ChatChannelRow.incident_id).where(ChatChannelRow.channel_id == channel_id)
            )
            return found

    # -- messages ------------------------------------------------------------------------------
    def message(self, incident_id: int, purpose: str, run: int = 0) -> ChatMessage | None:
        with self._db.reader() as session:
            row = session.scalars(
                select(ChatMessageRow).where(
                    ChatMessageRow.incident_id == incident_id,
                    ChatMessageRow.purpose == purpose,
                    ChatMessageRow.run == run,
                )
            ).one_or_none()
            return _message(row) if row is not None else None

    def record_message(
        self, incident_id: int, purpose: str, *, channel_id: str, ts: str, run: int = 0
    ) -> ChatMessage:
        """Record a posted message; when one was recorded for that purpose already, that one stands."""
        with self._db.transaction() as session:
            session.execute(
                insert_for(session, ChatMessageRow)
                .values(
                    incident_id=incident_id,
                    purpose=purpose,
                    run=run,
                    channel_id=channel_id,
                    ts=ts,
                    created_at=self._clock(),
                )
                .on_conflict_do_nothing(index_elements=["incident_id", "purpose", "run"])
            )
            row = session.scalars(
                select(ChatMessageRow).where(
                    ChatMessageRow.incident_id == incident_id,
                    ChatMessageRow.purpose == purpose,
                    ChatMessageRow.run == run,
                )
            ).one()
            return _message(row)

    @staticmethod
    def _owned(session: Session, incident_id: int, owner: str) -> ChatChannelRow:
        row = session.get(ChatChannelRow, incident_id, with_for_update=True)
        if row is None:
            raise NotFoundError(f"incident {incident_id} has no channel claim")
        if row.claimed_by != owner:
            raise LostClaimError(f"the channel claim of incident {incident_id} passed to {row.claimed_by}")
        return row


class LostClaimError(RuntimeError):
    """The claim expired and another owner took it over: stop, it continues."""


def _message(row: ChatMessageRow) -> ChatMessage:
    return ChatMessage(
        incident_id=row.incident_id, purpose=row.purpose, run=row.run, channel_id=row.channel_id, ts=row.ts
    )
