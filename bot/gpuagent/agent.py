"""The agent: NVML opened once, Xid events watched from start-up, readings on request.

Xid critical errors are events, not state: NVML only delivers those that happen after a set is
registered, and only to that set. So the agent registers every GPU at start and a background thread
waits on the set (with a real timeout, so that stopping is prompt), keeping each event with its time
in a bounded buffer; a reading then carries the Xids of the last `max_age`, however long ago they
came. Read-only: the agent never changes a GPU setting.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pynvml

from tools.gpu.nvml import nvml_reason, read_node, register_xids, wait_xid
from tools.gpu.readings import Health, NodeGpus, Unsupported, XidEvent, XidList

log = logging.getLogger(__name__)

WAIT_MS = 1000
BUFFER_EVENTS = 256
MAX_AGE = timedelta(hours=24)


class XidBuffer:
    """The last `size` Xid events no older than `max_age`, oldest first; safe across threads."""

    def __init__(self, *, size: int = BUFFER_EVENTS, max_age: timedelta = MAX_AGE) -> None:
        self._events: deque[XidEvent] = deque(maxlen=size)
        self._max_age = max_age
        self._lock = threading.Lock()

    def add(self, event: XidEvent) -> None:
        with self._lock:
            self._events.append(event)

    def since(self, since: datetime | None, *, now: datetime) -> list[XidEvent]:
        oldest = now - self._max_age
        start = max(since, oldest) if since is not None else oldest
        with self._lock:
            while self._events and self._events[0].at < oldest:
                self._events.popleft()
            return [e for e in self._events if e.at >= start]


class GpuAgent:
    """NVML on this node for the agent's lifetime; `start()` then `reading()`, `stop()` at exit."""

    def __init__(
        self,
        nvml: Any,
        node: str,
        *,
        clock: Callable[[], datetime],
        wait_ms: int = WAIT_MS,
        buffer: XidBuffer | None = None,
    ) -> None:
        self.nvml = nvml
        self.node = node
        self._clock = clock
        self._wait_ms = wait_ms
        self.buffer = buffer or XidBuffer()
        self._events: Any = None
        self._event_problems: list[Unsupported] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="gpu-agent-xids", daemon=True)
        self._lock = threading.Lock()
        self._open = False

    def start(self) -> GpuAgent:
        """Open NVML, register every GPU for Xid events, take what is already queued, then watch."""
        self.nvml.nvmlInit()
        self._open = True
        try:
            self._events, self._event_problems = register_xids(self.nvml)
        except pynvml.NVMLError as exc:  # no event support at all: readings still work, it is listed
            self._event_problems = [Unsupported(field="xid events", reason=nvml_reason(exc))]
        if self._events is not None:
            self._drain()
            self._thread.start()
        return self

    def _drain(self) -> None:
        while (event := wait_xid(self.nvml, self._events, 0, now=self._clock)) is not None:
            self._keep(event)

    def _keep(self, event: XidEvent) -> None:
        log.info("Xid %s on GPU %s (%s)", event.xid, event.gpu_index, event.uuid)
        self.buffer.add(event)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                event = wait_xid(self.nvml, self._events, self._wait_ms, now=self._clock)
            except Exception:
                log.exception("waiting for Xid events failed; retrying")
                self._stop.wait(self._wait_ms / 1000)
                continue
            if event is not None:
                self._keep(event)

    @property
    def watching(self) -> bool:
        return self._thread.is_alive()

    def reading(self) -> NodeGpus:
        now = self._clock()
        with self._lock:
            got = read_node(self.nvml, self.node, self.buffer.since(None, now=now), now=now)
        return got.model_copy(update={"unsupported": [*got.unsupported, *self._event_problems]})

    def xids(self, since: datetime | None) -> XidList:
        return XidList(node=self.node, since=since, events=self.buffer.since(since, now=self._clock()))

    def health(self) -> Health:
        with self._lock:
            count = int(self.nvml.nvmlDeviceGetCount())
        return Health(status="ok", node=self.node, gpus=count, watching_xids=self.watching)

    def stop(self) -> None:
        """Stop watching (within one wait), free the event set, close NVML."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(self._wait_ms / 1000 + 5)
        if not self._open:
            return
        if self._events is not None:
            try:
                self.nvml.nvmlEventSetFree(self._events)
            except Exception:
                log.exception("freeing the event set failed")
        self.nvml.nvmlShutdown()
        self._open = False

    def __enter__(self) -> GpuAgent:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
