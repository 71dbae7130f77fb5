"""Alertmanager webhook payloads (version 4), exactly as Alertmanager posts them.

The fingerprint is Prometheus' label-set fingerprint (FNV-1a 64 over sorted names and values,
each followed by the 0xff separator); the generator URL is Prometheus' graph link with the
rule's expression escaped by Go's `url.QueryEscape` (spaces become `+`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote_plus

from .series import iso

FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211
MASK = (1 << 64) - 1


def fingerprint(labels: dict[str, str]) -> str:
    h = FNV_OFFSET
    for name in sorted(labels):
        for chunk in (name.encode(), b"\xff", labels[name].encode(), b"\xff"):
            for byte in chunk:
                h ^= byte
                h = (h * FNV_PRIME) & MASK
    return f"{h:016x}"


def generator_url(prometheus: str, expr: str) -> str:
    return f"{prometheus.rstrip('/')}/graph?g0.expr={quote_plus(expr, safe='')}&g0.tab=1"


def group_key(route: str, group_labels: dict[str, str]) -> str:
    inner = ", ".join(f'{k}="{v}"' for k, v in sorted(group_labels.items()))
    return f"{route}:{{{inner}}}"


def webhook(
    *,
    labels: dict[str, str],
    annotations: dict[str, str],
    starts_at: datetime,
    expr: str,
    prometheus: str,
    alertmanager: str,
    receiver: str = "incident-bot",
    group_by: tuple[str, ...] = ("alertname", "namespace"),
    route: str = '{}/{severity="page"}',
) -> dict[str, Any]:
    alert = {
        "status": "firing",
        "labels": dict(labels),
        "annotations": dict(annotations),
        "startsAt": iso(starts_at, ms=True),
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": generator_url(prometheus, expr),
        "fingerprint": fingerprint(labels),
    }
    group_labels = {k: labels[k] for k in group_by if k in labels}
    return {
        "receiver": receiver,
        "status": "firing",
        "alerts": [alert],
        "groupLabels": group_labels,
        "commonLabels": dict(labels),
        "commonAnnotations": dict(annotations),
        "externalURL": alertmanager,
        "version": "4",
        "groupKey": group_key(route, group_labels),
        "truncatedAlerts": 0,
    }
