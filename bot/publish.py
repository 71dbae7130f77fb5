"""Where an incident's posts go: the announcement, the triage's progress, each triage run, the
notice that every alert resolved, the resolution with its postmortem draft, the archived channel.

The seam the Slack surface implements; without Slack the posts stay on the incident's timeline,
so an incident is complete and auditable either way. A publisher raises PublishError when a post
did not get through; the job that asked for it is retried and the timeline says what failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from bot.announce import Announcement
from bot.domain import Incident, StoredTriage
from bot.errors import BotError
from bot.postmortem.model import Postmortem
from bot.triage.progress import Progress

if TYPE_CHECKING:
    from bot.incidents import IncidentService


class PublishError(BotError):
    """A post did not reach the chat (the message says which call and why)."""


class Publisher(Protocol):
    """Sends posts and says where they went (the words land on the timeline)."""

    def announce(self, incident: Incident, announcement: Announcement) -> str: ...

    def progress(self, incident: Incident, run: int) -> Progress | None: ...

    def post_triage(self, incident: Incident, triage: StoredTriage) -> str: ...

    def alerts_resolved(self, incident: Incident) -> str: ...

    def resolved(self, incident: Incident, postmortem: Postmortem) -> str:
        """The summary of a resolved incident, with its postmortem draft."""
        ...

    def archive(self, incident: Incident) -> str:
        """Archive the incident's channel (some time after resolve)."""
        ...

    def actions_changed(self, incident: Incident, triage: StoredTriage) -> None:
        """A proposal of a posted triage changed state: show it where the triage was posted."""
        ...


class TimelinePublisher:
    """The publisher when Slack is not configured: the timeline event is the post."""

    WHERE = "on the timeline (Slack is not configured)"

    def announce(self, incident: Incident, announcement: Announcement) -> str:
        return self.WHERE

    def progress(self, incident: Incident, run: int) -> Progress | None:
        return None

    def post_triage(self, incident: Incident, triage: StoredTriage) -> str:
        return self.WHERE

    def alerts_resolved(self, incident: Incident) -> str:
        return self.WHERE

    def resolved(self, incident: Incident, postmortem: Postmortem) -> str:
        return self.WHERE

    def archive(self, incident: Incident) -> str:
        return "nowhere (Slack is not configured)"

    def actions_changed(self, incident: Incident, triage: StoredTriage) -> None:
        return None  # the timeline entries are the record


def show_actions(publisher: Publisher, incidents: IncidentService, incident_id: int, run: int) -> None:
    """Edit a posted triage run to show its proposals as they now stand; nothing before it is posted.

    Raises PublishError when the edit did not get through (the caller says so where it can).
    """
    stored = incidents.triage(incident_id, run)
    if stored is not None and stored.posted_at is not None:
        publisher.actions_changed(incidents.get(incident_id).incident, stored)
