"""Watches: `?watch=true` on a list path, streamed as the API server streams them.

The answer is one JSON event per line, `{"type": "ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK", "object":
...}`, chunked, until `timeoutSeconds` (at most `MAX_SECONDS`), the client leaves, or the stand-in
closes. Without a resourceVersion (or "0") the current objects come first as ADDED; with one, the
store's changes after it are replayed, then new ones follow; `sendInitialEvents=true` sends the
current objects and a bookmark marking their end, as client-go's streaming lists ask. Selectors
apply to both sides of a change, so an object leaving the selection is DELETED for that watch.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import QueryParams

from bot.sandbox.kubernetes.resources import ApiFailure, Obj, Resource
from bot.sandbox.kubernetes.selectors import FieldSelector, LabelSelector
from bot.sandbox.kubernetes.store import Change

MAX_SECONDS = 60.0
POLL_SECONDS = 0.05
_INITIAL_END = "k8s.io/initial-events-end"


@dataclass(frozen=True)
class Selection:
    """What one watch covers: a type, maybe a namespace, and the selectors."""

    resource: Resource
    namespace: str | None
    labels: LabelSelector
    fields: FieldSelector
    view: Callable[[Obj], Obj] | None = None  # a stored object as this type shows it (events.k8s.io)

    def matches(self, obj: Obj) -> bool:
        shown = self.view(obj) if self.view is not None else obj
        return self.labels.matches(shown["metadata"].get("labels")) and self.fields.matches(shown)

    def event(self, change: Change) -> Obj | None:
        """The event this watch sees for a change, if any."""
        if change.group_resource != self.resource.stored:
            return None
        if self.namespace is not None and change.namespace != self.namespace:
            return None
        now = self.matches(change.obj)
        was = change.old is not None and self.matches(change.old)
        if change.type == "DELETED":
            kind = "DELETED" if now or was else None
        elif now:
            kind = "MODIFIED" if was else "ADDED"
        else:
            kind = "DELETED" if was else None
        return {"type": kind, "object": change.obj} if kind else None


@dataclass(frozen=True)
class WatchOptions:
    """The watch's own query parameters."""

    since: int | None  # None: start with the current objects
    timeout: float
    initial_events: bool

    @classmethod
    def parse(cls, query: QueryParams) -> WatchOptions:
        version = query.get("resourceVersion", "")
        if version not in ("", "0") and not version.isdigit():
            raise ApiFailure(400, f"resourceVersion: Invalid value: {version!r}: must be an integer")
        try:
            timeout = float(query.get("timeoutSeconds") or 0) or MAX_SECONDS  # 0: the server's own
        except ValueError as exc:
            raise ApiFailure(400, "timeoutSeconds: must be an integer") from exc
        initial = query.get("sendInitialEvents", "false").lower() == "true"
        since = None if version in ("", "0") or initial else int(version)
        return cls(since, min(max(timeout, 0.0), MAX_SECONDS), initial)


@dataclass(frozen=True)
class Feed:
    """What a watch reads from the stand-in; each call takes its lock and lets due work happen first."""

    snapshot: Callable[[Selection], tuple[list[Obj], int]]  # matching objects, and their version
    after: Callable[[int], list[Change]]  # the changes since a version, oldest first
    closed: Callable[[], bool]


async def stream(
    feed: Feed,
    selection: Selection,
    options: WatchOptions,
    gone: Callable[[], Awaitable[bool]],
    shown: Callable[[Obj], Obj] = lambda obj: obj,
) -> AsyncIterator[bytes]:
    """The watch's events as lines of JSON, until its time is up, its client leaves or the feed closes.

    `shown` is how an event's object goes out: as stored, or as a one-row Table for `kubectl get -w`.
    """
    deadline = time.monotonic() + options.timeout
    since = options.since
    if since is None:
        objects, since = feed.snapshot(selection)
        for obj in objects:
            yield _line({"type": "ADDED", "object": shown(obj)})
        if options.initial_events:
            yield _line({"type": "BOOKMARK", "object": _bookmark(selection.resource, since)})
    while not feed.closed() and time.monotonic() < deadline:
        for change in feed.after(since):
            since = change.version
            event = selection.event(change)
            if event is not None:
                yield _line(event | {"object": shown(event["object"])})
        if await gone():
            return
        await asyncio.sleep(POLL_SECONDS)


def _bookmark(res: Resource, version: int) -> Obj:
    meta = {"resourceVersion": str(version), "annotations": {_INITIAL_END: "true"}}
    return {"kind": res.kind, "apiVersion": res.api_version, "metadata": meta}


def _line(event: Any) -> bytes:
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"
