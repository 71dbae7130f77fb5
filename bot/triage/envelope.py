"""The message inside a log shipper's envelope: what attribution reads of a line.

The same engine line reaches the bot bare (`kubectl logs`), behind the container runtime's prefix
(a CRI log file read without the CRI parser), behind syslog or journald, as a JSON record (the
engine's own JSON logging, Docker's json-file, OpenTelemetry, structlog, zap) or as logfmt (Go's
slog and go-kit). Attribution is about the message, so every wrapping of it must read the same:
`unwrap` strips the envelope, repeatedly, and leaves the emitter's own words (its klog or Python
logging prefix included: those are how the emitter writes, and the corpus holds them).

An error *payload* is not an envelope: `{"error": {"message": ...}}` has no level or time, and is
read as it is. Only a record with a message field and a log field beside it (a level, a time, a
stream) is unwrapped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tools.dotted import lookup

# containerd / CRI-O log files: "<RFC 3339 time> <stream> <P|F> <message>" (kubelet's CRI logging).
_CRI = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) (?:stdout|stderr) [PF] ")
# syslog (RFC 3164) and journald's short format: "Dec  7 15:42:03 host ident[pid]: message";
# journald's short-iso needs the [pid], so that an engine's "<time>  WARN target: …" is not taken.
_SYSLOG = re.compile(
    r"(?:<\d{1,3}>)?(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w./@-]+(?:\[\d+\])?"
    r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) \S+ [\w./@-]+\[\d+\]): "
)
# RFC 5424: "<pri>1 time host app procid msgid [structured data] message".
_SYSLOG_5424 = re.compile(r"<\d{1,3}>1 \S+ \S+ \S+ \S+ \S+ (?:-|(?:\[(?:[^\]\\]|\\.)*\])+) ?")

# A JSON record's message, first found: ECS and most loggers, zap and klog's JSON, Fluent Bit and
# Docker, journald's export, OpenTelemetry's log data model, structlog, Google Cloud Logging, and
# Rust's tracing (TGI, TEI) which nests it under "fields".
MESSAGE_FIELDS = (
    "message",
    "msg",
    "log",
    "MESSAGE",
    "body",
    "event",
    "textPayload",
    "fields.message",
    "jsonPayload.message",
)
# What a record says beside its message about the error (ECS, zap and klog's "err", structlog's
# "exception"), kept after the message: the line itself may only say "request failed".
ERROR_FIELDS = ("error.type", "error.message", "error", "err", "exception", "exc_info")
# Fields that make a JSON object a log record rather than a payload that happens to hold "message";
# with those below, they are the envelope, and are dropped (a record's other fields are kept).
RECORD_FIELDS = frozenset(
    {
        "level",
        "levelname",
        "severity",
        "severity_text",
        "severityText",
        "log.level",
        "@timestamp",
        "timestamp",
        "time",
        "ts",
        "stream",
        "PRIORITY",
        "_SYSTEMD_UNIT",
        "logger",
        "target",
        "caller",
    }
)

# Where and when a logger wrote, not what failed.
META_FIELDS = RECORD_FIELDS | {
    "source",
    "line",
    "file",
    "function",
    "func",
    "module",
    "pid",
    "tid",
    "thread",
    "threadName",
    "hostname",
    "host",
    "lvl",
    "t",
    "v",
    "time_unix_nano",
    "timeUnixNano",
    "observedTimeUnixNano",
    "severity_number",
    "severityNumber",
    "trace_id",
    "traceId",
    "span_id",
    "spanId",
    "flags",
}

_LOGFMT_PAIR = re.compile(r'([\w.@-]+)=("(?:[^"\\]|\\.)*"|\S*)')
_LOGFMT_START = re.compile(r"[\w.@-]+=")
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
DEPTH = 4  # a JSON record inside a CRI line inside syslog is three; none nests deeper


def unwrap(line: str) -> str:
    """The message a log line carries, its shippers' envelopes taken off (the line when it has none)."""
    text = line.strip()
    for _ in range(DEPTH):
        inner = _unwrap_once(text)
        if inner is None or inner == text:
            return text
        text = inner.strip()
    return text


def _unwrap_once(text: str) -> str | None:
    if not text:
        return None
    first = text[0]
    if first == "{":
        record = json_record(text)
        return None if record is None else record_message(record)
    if first.isdigit():
        m = _CRI.match(text) or _SYSLOG.match(text)
        return text[m.end() :] if m else None
    if first == "<":
        m = _SYSLOG_5424.match(text) or _SYSLOG.match(text)
        return text[m.end() :] if m else None
    if first.isupper():
        m = _SYSLOG.match(text)
        if m:
            return text[m.end() :]
    if _LOGFMT_START.match(text):
        return _logfmt_message(text)
    return None


def json_record(text: str) -> dict[str, Any] | None:
    """The JSON object a line holds, None for anything else."""
    try:
        obj: Any = json.loads(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def record_message(record: dict[str, Any], *, known_record: bool = False) -> str | None:
    """A log record's message, then what it says of the error, then its other fields, joined by
    " | "; None when the object is not a log record: no message field, or (unless the caller knows
    it is one) nothing beside it that a logger writes."""
    if not known_record and not RECORD_FIELDS.intersection(record) and not _has_nested_record_field(record):
        return None
    message = next(
        (v for v in (lookup(record, name) for name in MESSAGE_FIELDS) if isinstance(v, str) and v.strip()),
        None,
    )
    if message is None:
        return None
    parts = [message]
    for name in ERROR_FIELDS:
        value = lookup(record, name)
        if value is None:
            value = lookup(record, f"fields.{name}")
        if isinstance(value, str) and value.strip() and value not in parts:
            parts.append(value)
    code = lookup(record, "error.code")
    if isinstance(code, str | int) and not isinstance(code, bool) and str(code):
        parts.append(f"error.code={code}")
    nested = record.get("fields")
    rest = [*record.items(), *(nested.items() if isinstance(nested, dict) else ())]
    return " | ".join([*parts, *_other_fields(rest, parts)])


def _other_fields(items: list[tuple[str, Any]], taken: list[str]) -> list[str]:
    """The record's other scalar fields as key=value (an engine's "limit=2048 prompt=4096" says
    why), in their order; the envelope's own fields and the values already taken are left out."""
    out = [
        f"{key}={value}"
        for key, value in items
        if key not in META_FIELDS
        and key not in MESSAGE_FIELDS
        and key not in ERROR_FIELDS
        and isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and str(value).strip()
        and value not in taken
    ]
    return [" ".join(out)] if out else []


def _has_nested_record_field(record: dict[str, Any]) -> bool:
    log = record.get("log")
    return isinstance(log, dict) and "level" in log


def _logfmt_message(text: str) -> str | None:
    """msg= (or message=) of a logfmt line that also says its level or time, then its err=/error=."""
    pairs = {key: _logfmt_value(value) for key, value in _LOGFMT_PAIR.findall(text)}
    if not {"level", "lvl", "time", "ts", "t"}.intersection(pairs):
        return None
    message = pairs.get("msg") or pairs.get("message")
    if not message:
        return None
    extra = [pairs[k] for k in ("err", "error") if pairs.get(k) and pairs[k] != message]
    taken = [message, *extra]
    rest = [(k, v) for k, v in pairs.items() if k not in {"msg", "message", "err", "error"}]
    return " | ".join([*taken, *_other_fields(rest, taken)])


def _logfmt_value(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw[1:-1])
    return raw
