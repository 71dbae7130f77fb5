"""The alert mix of the soak: alert groups that fire, repeat, grow, resolve, refire and are closed.

Each group is one pack's alert under its own groupKey, so the bot opens one incident per group;
its alerts get fingerprints of their own, so every one sent can be looked up in the store at the
end. A group lives a few repeat periods (Alertmanager's group_interval), may gain an alert, then
its alerts resolve; some fire again before a responder closes the incident, some fire again
after, which opens a new incident for the same group.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from enum import Enum

from bot.alertmanager import WebhookAlert, WebhookPayload
from bot.domain import AlertStatus

RESOLVED_AT = "2026-06-01T10:30:00Z"
NOT_ENDED = "0001-01-01T00:00:00Z"  # Go's zero time


class Phase(Enum):
    FIRING = "firing"  # notified every repeat period
    CLEARED = "cleared"  # its alerts resolved; the incident waits for a responder
    CLOSED = "closed"  # the incident is resolved; the group may fire again later


@dataclass
class Group:
    """One alert group and what the bot told us about it."""

    number: int
    template: WebhookPayload
    alerts: list[WebhookAlert]
    repeats_left: int
    due: float  # monotonic seconds of its next step
    phase: Phase = Phase.FIRING
    incident_id: int | None = None
    incidents: list[int] = field(default_factory=list)
    spoken: bool = False  # a responder already noted or acknowledged

    def body(self, status: AlertStatus) -> tuple[bytes, int]:
        """The notification as Alertmanager writes it (Go's zero time for alerts not ended), and
        how many alerts it carries."""
        alerts = [a.model_dump(mode="json") | {"status": status.value} for a in self.alerts]
        for alert in alerts:
            alert["endsAt"] = RESOLVED_AT if status is AlertStatus.RESOLVED else NOT_ENDED
        payload = self.template.model_dump(mode="json") | {
            "groupKey": f"{self.template.groupKey}#soak{self.number}",
            "status": status.value,
            "alerts": alerts,
        }
        return json.dumps(payload).encode(), len(alerts)


class Mix:
    """Decides, from a seeded generator, what each group does next; the driver sends it."""

    def __init__(self, templates: list[WebhookPayload], repeat_seconds: float, seed: int = 7) -> None:
        self.templates = templates
        self.repeat = repeat_seconds
        self.rng = random.Random(seed)
        self.groups: list[Group] = []
        self.fingerprints: set[str] = set()

    def jitter(self, seconds: float) -> float:
        return seconds * self.rng.uniform(0.7, 1.3)

    def new_group(self, now: float) -> Group:
        number = len(self.groups) + 1
        template = self.templates[(number - 1) % len(self.templates)]
        alerts = [self._alert(template, number, 0)]
        if self.rng.random() < 0.3:  # some groups start with a second alert (another pod, another SLO window)
            alerts.append(self._alert(template, number, 1))
        group = Group(
            number, template, alerts, repeats_left=self.rng.randint(2, 6), due=now + self.jitter(self.repeat)
        )
        self.groups.append(group)
        return group

    def _alert(self, template: WebhookPayload, number: int, index: int) -> WebhookAlert:
        base = template.alerts[0]
        labels = dict(base.labels)
        if index:
            labels["pod"] = f"{labels.get('pod', 'replica')}-{index}"
        fingerprint = f"{number:08x}{index:08x}"
        self.fingerprints.add(fingerprint)
        return base.model_copy(
            update={"labels": labels, "fingerprint": fingerprint, "status": AlertStatus.FIRING}
        )

    def grow(self, group: Group) -> None:
        """A new alert joins a firing group (the next notification carries it)."""
        group.alerts.append(self._alert(group.template, group.number, len(group.alerts)))

    def active(self) -> list[Group]:
        return [g for g in self.groups if g.due != float("inf")]
