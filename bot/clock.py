"""The one place that reads the wall clock; everything else is handed a Clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """Now, timezone-aware, in UTC."""
    return datetime.now(UTC)
