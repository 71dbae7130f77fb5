"""Where an incident's posts go: the announcement, then each triage run under it.

The seam the Slack surface implements; without Slack the posts stay on the incident's timeline,
so an incident is complete and auditable either way.
"""

from __future__ import annotations

from typing import Protocol

from bot.announce import Announcement
from bot.domain import Incident, StoredTriage


class Publisher(Protocol):
    """Sends posts and says where they went (the words land on the timeline)."""

    def announce(self, announcement: Announcement) -> str: ...

    def post_triage(self, incident: Incident, triage: StoredTriage) -> str: ...


class TimelinePublisher:
    """The publisher when Slack is not configured: the timeline event is the post."""

    WHERE = "on the timeline (Slack is not configured)"

    def announce(self, announcement: Announcement) -> str:
        return self.WHERE

    def post_triage(self, incident: Incident, triage: StoredTriage) -> str:
        return self.WHERE
