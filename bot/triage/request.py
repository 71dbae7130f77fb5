"""What one triage run starts from: a stored incident, its alerts, the run's clock and number.

The same input for the worker, `triage --pack`, `eval` and the demo, so what the evaluation scores
is what production posts. The incident's own values (namespace, service, model, severity, filled
from the configuration at intake) come before the raw labels of its alerts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.domain import Alert, AlertStatus, Incident


@dataclass(frozen=True)
class TriageRequest:
    """One triage run of one stored incident, as of a moment (now live; a pack's `as_of` replayed)."""

    incident: Incident
    alerts: list[Alert]
    as_of: datetime
    run: int = 1

    @property
    def thread_id(self) -> str:
        """The run's identity: its checkpoint thread, so a run resumes and a re-run starts afresh."""
        return f"incident:{self.incident.id}:triage:{self.run}"

    @property
    def firing(self) -> list[Alert]:
        return [a for a in self.alerts if a.status is AlertStatus.FIRING] or list(self.alerts)

    @property
    def started_at(self) -> datetime:
        """When the symptoms began: the earliest firing alert, else the incident's start."""
        return min((a.starts_at for a in self.firing), default=self.incident.started_at)

    @property
    def queries(self) -> list[str]:
        """The alerts' PromQL, the incident's own first."""
        found = [self.incident.query, *(a.query for a in self.alerts)]
        return list(dict.fromkeys(q for q in found if q))

    def label(self, *names: str) -> str | None:
        """First of `names` in the incident's labels, else in its alerts' labels."""
        for labels in (self.incident.labels, *(a.labels for a in self.firing)):
            for name in names:
                if labels.get(name):
                    return labels[name]
        return None

    def labels(self, name: str) -> list[str]:
        """Every value of a label across the incident and its alerts."""
        found = [self.incident.labels.get(name), *(a.labels.get(name) for a in self.firing)]
        return list(dict.fromkeys(v for v in found if v))
