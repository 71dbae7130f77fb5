"""Kubernetes events of the incident's own objects, grouped by reason and object, dated inside the window.

A cluster holds events of every tenant, and a recurring series (a pod pending for GPUs for three
days, a node flapping for a week) keeps its `firstTimestamp` from the first time: dated by that, the
oldest unrelated series would always be the "earliest cause". So only events of the objects in the
incident's scope are kept, and each is dated by when it happened inside the window: its first
occurrence when that is inside, else its last. A series that began before the window is marked
`recurring_since`: it was already there before the incident, so it cannot be what started it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tools.result import Evidence, Source, Window, parse_time


@dataclass(frozen=True)
class Subjects:
    """The objects whose events belong to the incident, by lower-case kind."""

    names: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, **kinds: Iterable[str]) -> Subjects:
        return cls({kind: frozenset(n for n in names if n) for kind, names in kinds.items()})

    def __contains__(self, obj: tuple[str, str]) -> bool:
        kind, name = obj
        return name in self.names.get(kind.lower(), frozenset())

    @property
    def nodes(self) -> frozenset[str]:
        return self.names.get("node", frozenset())


def event_times(event: dict[str, Any]) -> tuple[datetime | None, datetime | None]:
    """First and last occurrence, of a core/v1 event (`firstTimestamp`, `lastTimestamp`) or of an
    events.k8s.io/v1 one (`eventTime`, `series.lastObservedTime`, and the `deprecated...` copies
    an event written through core/v1 carries when read through events.k8s.io)."""
    first = (
        parse_time(event.get("firstTimestamp"))
        or parse_time(event.get("deprecatedFirstTimestamp"))
        or parse_time(event.get("eventTime"))
    )
    last = (
        parse_time(event.get("lastTimestamp"))
        or parse_time(event.get("deprecatedLastTimestamp"))
        or parse_time(event.get("eventTime"))
        or first
    )
    series = event.get("series") or {}
    if series.get("lastObservedTime"):
        last = parse_time(series["lastObservedTime"])
    return first, last


def event_count(event: dict[str, Any]) -> int:
    """How many times it happened: a series' count (events.k8s.io, and core/v1 events its writers
    made, whose `count` is empty), else the core/v1 count or its events.k8s.io copy, else once."""
    series = event.get("series") or {}
    return int(series.get("count") or event.get("count") or event.get("deprecatedCount") or 1)


def scoped_events(
    events: Iterable[dict[str, Any]],
    subjects: Subjects,
    window: Window,
    *,
    namespace: str,
    api: str = "/api/v1",
) -> list[Evidence]:
    """Warning events (and every event of a node) of the subjects that occurred inside the window;
    `api` is where they were read (`/api/v1`, or `/apis/events.k8s.io/v1`)."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for event in events:
        obj = event.get("involvedObject") or event.get("regarding") or {}
        kind, name = str(obj.get("kind", "")), str(obj.get("name", ""))
        if (kind, name) not in subjects:
            continue
        if event.get("type") != "Warning" and kind != "Node":
            continue
        first, last = event_times(event)
        if last is None or last < window.start or (first is not None and first > window.as_of):
            continue
        groups.setdefault((str(event.get("reason")), kind.lower(), name), []).append(event)
    return [_evidence(key, group, window, namespace, api) for key, group in sorted(groups.items())]


def _evidence(
    key: tuple[str, str, str], group: list[dict[str, Any]], window: Window, namespace: str, api: str
) -> Evidence:
    reason, kind, name = key
    times = [event_times(e) for e in group]
    firsts = [f for f, _ in times if f is not None]
    lasts = [t for _, t in times if t is not None]
    first, last = (min(firsts) if firsts else None), (max(lasts) if lasts else None)
    inside = [f for f in firsts if f >= window.start]
    # When it happened inside the window: its first occurrence there, else its latest.
    onset = min(inside) if inside else last
    before = first is not None and first < window.start
    count = sum(event_count(e) for e in group)
    message = str(group[-1].get("message") or group[-1].get("note") or "").strip()
    where = f"{api}/namespaces/{namespace}/events" if kind != "node" else f"{api}/events"
    field = "regarding" if "events.k8s.io" in api else "involvedObject"
    summary = f"{group[-1].get('type', 'Event')} {reason} {kind}/{name} x{count}: {message[:200]}"
    if before and first is not None:
        summary += f" (recurring since {first:%Y-%m-%d %H:%M}Z, before the incident)"
    return Evidence(
        id=f"k8s:event:{reason}:{kind}/{name}",
        source=Source.KUBERNETES,
        query=f"GET {where} ({field} {kind}/{name})",
        summary=summary,
        value=count,
        at=last,
        onset=onset,
        link=f"kubectl -n {namespace} get events --field-selector involvedObject.name={name}",
        labels={
            "kind": "event",
            "reason": reason,
            "object_kind": kind,
            "object": name,
            "message": message[:500],
            **({"recurring_since": f"{first:%Y-%m-%dT%H:%M:%SZ}"} if before and first else {}),
        },
    )
