"""The error lines `attribute` reads: JSON Lines records (ECS, Fluent Bit, a plain `message`) or
plain text, and what of each is attributed and when it happened."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from bot.triage.attribution import Attributor
from tools.result import parse_time

_TIME_FIELDS = ("@timestamp", "timestamp", "time", "ts")


def _record(line: str) -> dict[str, Any] | None:
    """The JSON object a line holds, None for plain text (or JSON that is not an object)."""
    if not line.startswith("{"):
        return None
    try:
        obj: Any = json.loads(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def read_line(line: str) -> tuple[str, datetime | None]:
    """The text to attribute and the time of one input line, parsing a JSON record once."""
    obj = _record(line)
    if obj is None:
        return line, None
    return _message(obj, line), _time(obj)


def message_of(line: str) -> str:
    """The text to attribute in one input line: a JSON object's message fields, else the line."""
    obj = _record(line)
    return line if obj is None else _message(obj, line)


def _message(obj: dict[str, Any], line: str) -> str:
    nested = obj.get("error")
    error: dict[str, Any] = nested if isinstance(nested, dict) else {}
    parts: list[str] = []
    for value in (
        obj.get("message", obj.get("msg", obj.get("log"))),
        obj.get("error.type", error.get("type")),
        obj.get("error.message", error.get("message")),
    ):
        if isinstance(value, str) and value.strip() and value not in parts:
            parts.append(value)
    code = obj.get("error.code", error.get("code"))
    if isinstance(code, str) and code:
        parts.append(f"error.code={code}")
    return " | ".join(parts) if parts else line


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
