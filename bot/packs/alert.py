"""alert.json: the Alertmanager webhook (version 4) rebuilt from the stored incident and alerts.

What intake kept is enough to send the notification again: the group key, the receiver and the
group labels (the `opened` event's data), the common labels (the incident's), and each alert's
labels, annotations, times, generator URL and fingerprint. An alert counts as firing when it had
not ended by `as_of`, so the rebuilt notification opens an incident again, on the same scope.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.domain import EventKind, IncidentDetail
from bot.packs.redaction import scrub, text

GO_ZERO_TIME = "0001-01-01T00:00:00Z"


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def payload(detail: IncidentDetail, as_of: datetime) -> dict[str, Any]:
    """The webhook body as Alertmanager would have sent it at `as_of`."""
    incident = detail.incident
    opened = next((e.data for e in detail.timeline if e.kind is EventKind.OPENED), {})
    alerts = [_alert(a.model_dump(), as_of) for a in detail.alerts]
    if alerts and not any(a["status"] == "firing" for a in alerts):
        alerts[0] = {**alerts[0], "status": "firing", "endsAt": GO_ZERO_TIME}  # what opened it
    annotations = [a["annotations"] for a in alerts]
    common = (
        {k: v for k, v in annotations[0].items() if all(o.get(k) == v for o in annotations[1:])}
        if annotations
        else {}
    )
    return {
        "version": "4",
        "groupKey": text(incident.group_key or f"incident-{incident.id}"),
        "truncatedAlerts": 0,
        "status": "firing",
        "receiver": text(str(opened.get("receiver") or "")),
        "groupLabels": scrub(dict(opened.get("group_labels") or {})),
        "commonLabels": scrub(dict(incident.labels)),
        "commonAnnotations": common,
        "externalURL": "",
        "alerts": alerts,
    }


def _alert(alert: dict[str, Any], as_of: datetime) -> dict[str, Any]:
    ended: datetime | None = alert["ends_at"]
    firing = ended is None or ended > as_of
    return {
        "status": "firing" if firing else "resolved",
        "labels": scrub(alert["labels"]),
        "annotations": scrub(alert["annotations"]),
        "startsAt": stamp(alert["starts_at"]),
        "endsAt": GO_ZERO_TIME if firing or ended is None else stamp(ended),
        "generatorURL": text(alert["generator_url"]),
        "fingerprint": alert["fingerprint"],
    }


def write(body: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
