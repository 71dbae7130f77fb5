"""The error lines `attribute` reads: JSON Lines records (ECS, Fluent Bit, a plain `message`) or
plain text in any envelope `envelope.unwrap` knows, and what of each is attributed and when it
happened."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from bot.triage.attribution import Attributor
from bot.triage.envelope import json_record, record_message, unwrap
from tools.result import parse_time

_TIME_FIELDS = ("@timestamp", "timestamp", "time", "ts")


def _record(line: str) -> dict[str, Any] | None:
    """The JSON object a line holds, None for plain text (or JSON that is not an object)."""
    return json_record(line) if line.startswith("{") else None


def read_line(line: str) -> tuple[str, datetime | None]:
    """The text to attribute and the time of one input line, parsing a JSON record once."""
    obj = _record(line)
    if obj is None:
        return unwrap(line), None
    return _message(obj, line), _time(obj)


def message_of(line: str) -> str:
    """The text to attribute in one input line: a JSON object's message fields, else the message
    inside the line's envelope (envelope.py)."""
    return read_line(line)[0]


def _message(obj: dict[str, Any], line: str) -> str:
    """A record's message; an object given here is taken as a record even with no level or time
    beside its message (`{"message": ...}` is how a file of error lines may be written)."""
    message = record_message(obj, known_record=True)
    return unwrap(message) if message else line


def attribute_lines(lines: Iterable[str], attributor: Attributor) -> Iterator[dict[str, object]]:
    """One attribution object per non-blank input line (JSON Lines with `message`, or plain text)."""
    for raw in lines:
        line = raw.strip()
        if line:
            yield attributor.attribute(message_of(line)).as_dict()


def time_of(line: str) -> datetime | None:
    """The time of a JSON Lines record (@timestamp, timestamp, time or ts), None for plain text."""
    obj = _record(line)
    return None if obj is None else _time(obj)


def _time(obj: dict[str, Any]) -> datetime | None:
    for name in _TIME_FIELDS:
        try:
            found = parse_time(obj.get(name))
        except (ValueError, TypeError, OverflowError, OSError):
            continue
        if found is not None:
            return found
    return None
