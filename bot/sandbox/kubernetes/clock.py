"""The controllers' clock: their timing knobs, and work put off until a moment on the wall clock.

A pack freezes `now` at the pack's time, yet a rollout has to take time for a client to watch it: a
pod the stand-in creates turns Ready `pod_ready_seconds` later, a changed HTTPRoute is accepted
`route_accept_seconds` later, both measured with `time.monotonic`. No thread keeps this clock: work
falls due when someone looks (any request, `get_object`, an open watch polling), which a client
cannot tell apart from a controller acting on its own.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from bot.sandbox.kubernetes.apis import ServedApis
from bot.sandbox.kubernetes.objects import rfc3339
from bot.sandbox.kubernetes.store import Store

Work = Callable[[], None]


class Clocked(Store):
    """The store with the controllers' knobs and a queue of work due at a monotonic deadline."""

    def __init__(
        self,
        objects: Iterable[Mapping[str, Any]],
        *,
        now: Callable[[], datetime],
        pod_ready_seconds: float = 0.2,
        route_accept_seconds: float = 0.0,
        apis: ServedApis | None = None,
    ) -> None:
        if pod_ready_seconds < 0 or route_accept_seconds < 0:
            raise ValueError("pod_ready_seconds and route_accept_seconds must not be negative")
        super().__init__(objects, now=now, apis=apis)
        self._pod_ready_seconds = pod_ready_seconds
        self._route_accept_seconds = route_accept_seconds
        self._timers: list[tuple[float, int, Work]] = []
        self._order = itertools.count()

    def _later(self, delay: float, work: Work) -> None:
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._order), work))

    def _due(self) -> list[Work]:
        """The work whose moment has come, soonest first, taken off the queue."""
        due: list[Work] = []
        moment = time.monotonic()
        while self._timers and self._timers[0][0] <= moment:
            due.append(heapq.heappop(self._timers)[2])
        return due

    def _stamp(self) -> str:
        """The stand-in's time as the API writes it (the pack's time when frozen)."""
        return rfc3339(self._now())
