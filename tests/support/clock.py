"""A clock the test winds on, for what expires or is paced by time (response URLs, trigger ids,
posts to a channel)."""

from __future__ import annotations

import time


class Clock:
    """Seconds, as `time.time()` gives them, until the test moves `now`."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now

    def __call__(self) -> float:
        return self.now
