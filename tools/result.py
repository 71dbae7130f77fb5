"""What every evidence tool returns: typed evidence, or a named gap, never an exception.

Tools are read-only and bounded: each call runs under a deadline, and a backend that is down or
slow becomes a `Gap` ("prometheus: connection refused after 5 s") that the triage reports while
it carries on with what the other backends said. Every query is anchored on the incident window
and the `as_of` clock; no tool reads the wall clock.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_TIMEOUT = 5.0
T = TypeVar("T")

# One pool for all tools: a call that overstays its deadline keeps its thread until the client's
# own timeout ends it, but the triage no longer waits for it.
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="evidence")


class Source(StrEnum):
    PROMETHEUS = "prometheus"
    ELASTICSEARCH = "elasticsearch"
    KUBERNETES = "kubernetes"
    GPU = "gpu"


class Status(StrEnum):
    OK = "ok"
    NO_DATA = "no_data"
    ERROR = "error"


class Window(BaseModel):
    """The incident window: from before the alert started until `as_of` ("now", or the pack's)."""

    model_config = ConfigDict(frozen=True)

    start: datetime
    as_of: datetime

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.start.tzinfo is None or self.as_of.tzinfo is None:
            raise ValueError("window times must be timezone-aware")
        if self.start >= self.as_of:
            raise ValueError("window start must be before as_of")
        return self

    @classmethod
    def around(
        cls, started_at: datetime, as_of: datetime, *, before: timedelta = timedelta(hours=1)
    ) -> Window:
        """From `before` ahead of the alert's start until `as_of`."""
        return cls(start=min(started_at, as_of) - before, as_of=as_of)


class Evidence(BaseModel):
    """One fact a responder can click: the exact query, its value, when, and where to look."""

    model_config = ConfigDict(frozen=True)

    id: str = ""
    source: Source
    query: str
    summary: str
    value: float | int | str | None = None
    at: datetime | None = None
    link: str | None = None
    layer: str | None = None
    onset: datetime | None = None
    labels: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _stable_id(self) -> Evidence:
        if not self.id:
            digest = hashlib.sha1(
                f"{self.source}|{self.query}|{sorted(self.labels.items())}".encode()
            ).hexdigest()
            object.__setattr__(self, "id", f"{self.source.value[:4]}-{digest[:8]}")
        return self

    def public(self) -> dict[str, Any]:
        """The triage JSON's evidence item."""
        return self.model_dump(
            mode="json", include={"id", "source", "query", "summary", "value", "at", "link"}
        )


class Gap(BaseModel):
    """What could not be seen, and why, in one line."""

    model_config = ConfigDict(frozen=True)

    source: Source
    what: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source.value}: {self.what}: {self.reason}"


class ToolResult(BaseModel):
    """Evidence, or nothing found, or a gap."""

    model_config = ConfigDict(frozen=True)

    status: Status
    evidence: list[Evidence] = Field(default_factory=list)
    gap: Gap | None = None

    @classmethod
    def of(cls, evidence: list[Evidence]) -> ToolResult:
        return cls(status=Status.OK if evidence else Status.NO_DATA, evidence=evidence)

    @classmethod
    def failed(cls, source: Source, what: str, reason: str) -> ToolResult:
        return cls.from_gap(Gap(source=source, what=what, reason=reason))

    @classmethod
    def from_gap(cls, gap: Gap) -> ToolResult:
        return cls(status=Status.ERROR, gap=gap)

    @classmethod
    def partial(cls, evidence: list[Evidence], gap: Gap | None) -> ToolResult:
        """What was seen, plus what could not be (some shards failed): the status stays OK or NO_DATA,
        and the gap is reported beside the evidence, not instead of it."""
        return cls(status=Status.OK if evidence else Status.NO_DATA, evidence=evidence, gap=gap)


def parse_time(value: Any) -> datetime | None:
    """A backend's time: RFC 3339 text ("Z" or offset), epoch milliseconds, or a datetime; None if absent."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000, UTC)
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def describe_error(exc: BaseException) -> str:
    """A short, human reason for a backend failure (no stack traces, no 2 kB URLs in a triage).

    Client libraries bury the cause in long messages ("Max retries exceeded with url: ... (Caused
    by ReadTimeoutError(...))"), so the whole text and the exception types are searched.
    """
    full = " ".join(_text(e) for e in _chain(exc)).lower()
    names = " ".join(type(e).__name__.lower() for e in _chain(exc))
    if "connection refused" in full or "connectionrefused" in names:
        return "connection refused"
    if "timed out" in full or "timeout" in names:
        return "timed out"
    if "name or service not known" in full or "nodename nor servname" in full or "name resolution" in full:
        return "host not found"
    text = _text(exc).strip()
    first = (text.splitlines()[0] if text else type(exc).__name__)[:160]
    if "jsondecodeerror" in names or "deserialize as json" in full:
        return f"the answer is not JSON ({first}): is the URL the backend's API?"
    if isinstance(exc, KeyError | TypeError | AttributeError | IndexError):
        # the client read a field the answer did not have: not the API it speaks (a proxy, another service)
        return f"the answer is not the shape its API returns ({type(exc).__name__}: {first})"
    return first


def _text(exc: BaseException) -> str:
    """str() of an exception, which some libraries' exceptions cannot always give (pynvml's)."""
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    # identity, not ==: some libraries' exceptions define __eq__ that fails on other types (pynvml)
    while current is not None and not any(current is e for e in seen) and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def bounded(source: Source, what: str, call: Callable[[], T], *, timeout: float) -> T | Gap:
    """Run `call` with a deadline; a failure or overrun comes back as a Gap, never raised."""
    future = _POOL.submit(call)
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        return Gap(source=source, what=what, reason=f"no answer within {timeout:g} s")
    except Exception as exc:
        reason = describe_error(exc)
        if reason == "timed out":  # the client's own deadline is the tool's
            reason = f"no answer within {timeout:g} s"
        return Gap(source=source, what=what, reason=reason)
