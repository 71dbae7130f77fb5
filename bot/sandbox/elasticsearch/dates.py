"""Dates of the Elasticsearch stand-in: parsing, date math, time zones, formatting and interval rounding.

Date fields are stored as epoch millis; this turns ISO-8601 strings, epoch numbers and date math
(`now-15m`, `now-1h/m`, `2025-01-01||+1d`) into millis the way a cluster does (including the round-up
of `gt`/`lte` bounds), prints millis back as `key_as_string`/`value_as_string` would, and rounds
millis to the calendar or fixed intervals `date_histogram` buckets by. Field typing, queries and
aggregations all read dates through here, so they agree on every boundary.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.sandbox.elasticsearch.errors import EsError, Json

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DEFAULT_DATE_FORMAT = "strict_date_optional_time||epoch_millis"


# ---------------------------------------------------------------------------------------------- dates

_MATH_STEP = re.compile(r"([+-])(\d+)([yMwdhHms])|/([yMwdhHms])")
_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_STEPS = {"w": timedelta(weeks=1), "d": timedelta(days=1), "h": timedelta(hours=1), "H": timedelta(hours=1)}
_STEPS |= {"m": timedelta(minutes=1), "s": timedelta(seconds=1)}


def to_millis(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(milliseconds=1)


def from_millis(millis: int, zone: tzinfo = UTC) -> datetime:
    return (EPOCH + timedelta(milliseconds=millis)).astimezone(zone)


def parse_zone(name: str) -> tzinfo:
    """A `time_zone` parameter: `UTC`, an offset such as `+02:00`, or an IANA name."""
    if name in ("Z", "UTC", "utc", "GMT"):
        return UTC
    offset = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", name)
    if offset:
        delta = timedelta(hours=int(offset[2]), minutes=int(offset[3]))
        return timezone(-delta if offset[1] == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise EsError(400, "illegal_argument_exception", f"Unknown time-zone ID: {name}") from exc


def add_months(moment: datetime, months: int) -> datetime:
    total = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(total, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def shift(moment: datetime, amount: int, unit: str) -> datetime:
    """Move by calendar units: y, q (quarter), M, w, d, h/H, m, s."""
    months = {"y": 12, "q": 3, "M": 1}.get(unit)
    if months is not None:
        return add_months(moment, amount * months)
    return moment + amount * _STEPS[unit]


def floor_moment(moment: datetime, unit: str) -> datetime:
    """The start of the calendar unit `moment` falls in, in its own time zone."""
    if unit in ("h", "H"):
        return moment.replace(minute=0, second=0, microsecond=0)
    if unit == "m":
        return moment.replace(second=0, microsecond=0)
    if unit == "s":
        return moment.replace(microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "w":
        return day - timedelta(days=day.weekday())
    first_month = {"y": 1, "q": (moment.month - 1) // 3 * 3 + 1, "M": moment.month}.get(unit)
    return day if first_month is None else day.replace(month=first_month, day=1)


def parse_date(value: Any, *, now: datetime, round_up: bool = False, zone: tzinfo = UTC) -> int:
    """Epoch millis of an ISO-8601 string, an epoch_millis number or date math (`now-15m`, `now-1h/m`).

    `round_up` is how a real cluster treats `gt`/`lte` bounds: rounding and missing date parts go to
    the end of the unit instead of its start.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError(f"cannot parse [{value}] as a date")
    if isinstance(value, int | float):
        return int(value)
    text = str(value).strip()
    if text.startswith("now"):
        return to_millis(_apply_math(now.astimezone(zone), text[3:], round_up))
    base, _, steps = text.partition("||")
    if re.fullmatch(r"-?\d+", base):
        anchor = from_millis(int(base), zone)
    else:
        anchor = _parse_iso(base, zone)
        if not steps and round_up and _DATE_ONLY.fullmatch(base):
            return to_millis(anchor + timedelta(days=1)) - 1
    return to_millis(_apply_math(anchor, steps, round_up))


def _parse_iso(text: str, zone: tzinfo) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"failed to parse date [{text}]") from exc
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def _apply_math(moment: datetime, steps: str, round_up: bool) -> datetime:
    position = 0
    while position < len(steps):
        step = _MATH_STEP.match(steps, position)
        if step is None:
            raise ValueError(f"invalid date math [{steps}]")
        sign, amount, unit, rounding = step.groups()
        if rounding:
            start = floor_moment(moment, rounding)
            moment = shift(start, 1, rounding) - timedelta(milliseconds=1) if round_up else start
        else:
            moment = shift(moment, int(amount) * (-1 if sign == "-" else 1), unit)
        position = step.end()
    return moment


def date_formatter(pattern: str | None, zone: tzinfo = UTC) -> Callable[[int], str]:
    """How `key_as_string`/`value_as_string` print: ISO with millis by default, or a simple Java pattern."""
    if pattern is None or pattern.split("||")[0] in ("strict_date_optional_time", "date_optional_time"):
        return lambda millis: _iso(from_millis(millis, zone))
    if pattern.split("||")[0] == "epoch_millis":
        return str
    java = re.compile(r"'[^']*'|yyyy|yy|MM|dd|HH|mm|ss|SSS|XXX|.")
    codes = {"yyyy": "%Y", "yy": "%y", "MM": "%m", "dd": "%d", "HH": "%H", "mm": "%M", "ss": "%S"}
    parts = java.findall(pattern.split("||")[0])

    def render(millis: int) -> str:
        moment = from_millis(millis, zone)
        out = []
        for part in parts:
            if part == "SSS":
                out.append(f"{moment.microsecond // 1000:03d}")
            elif part == "XXX":
                out.append(_iso(moment)[23:])
            elif part in codes:
                out.append(moment.strftime(codes[part]))
            else:
                out.append(part.strip("'") if part.startswith("'") else part)
        return "".join(out)

    return render


def _iso(moment: datetime) -> str:
    offset = moment.utcoffset() or timedelta(0)
    suffix = "Z" if not offset else moment.strftime("%z")[:3] + ":" + moment.strftime("%z")[3:]
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}" + suffix


def format_millis(millis: int) -> str:
    return _iso(from_millis(millis))


# ------------------------------------------------------------------------------ date_histogram intervals

_CALENDAR = {"minute": "m", "1m": "m", "hour": "h", "1h": "h", "day": "d", "1d": "d", "week": "w", "1w": "w"}
_CALENDAR |= {"month": "M", "1M": "M", "quarter": "q", "1q": "q", "year": "y", "1y": "y"}
_FIXED_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


@dataclass(frozen=True)
class Rounding:
    floor: Callable[[int], int]
    next: Callable[[int], int]


def rounding_of(params: Json, zone: tzinfo) -> Rounding:
    fixed, named = params.get("fixed_interval"), params.get("calendar_interval")
    if fixed is None and named is None:
        raise EsError(
            400, "illegal_argument_exception", "Invalid interval specified, must be non-null and non-empty"
        )
    if fixed is not None and named is not None:
        reason = "Cannot use [fixed_interval] with [calendar_interval] configuration option."
        raise EsError(400, "illegal_argument_exception", reason)
    offset = _fixed_millis(str(params["offset"]).lstrip("+"), "offset") if "offset" in params else 0
    if fixed is not None:
        step = _fixed_millis(str(fixed), "date_histogram.fixedInterval")

        def floor_fixed(millis: int) -> int:
            wall = millis + _utc_offset(millis, zone)
            return (wall - offset) // step * step + offset - _utc_offset(millis, zone)

        return Rounding(floor_fixed, lambda millis: millis + step)
    unit = _CALENDAR.get(str(named))
    if unit is None:
        reason = f"The supplied interval [{named}] could not be parsed as a calendar interval."
        raise EsError(400, "illegal_argument_exception", reason)
    return Rounding(
        lambda millis: to_millis(floor_moment(from_millis(millis - offset, zone), unit)) + offset,
        lambda millis: to_millis(shift(from_millis(millis - offset, zone), 1, unit)) + offset,
    )


def _utc_offset(millis: int, zone: tzinfo) -> int:
    delta = from_millis(millis, zone).utcoffset()
    return 0 if delta is None else int(delta.total_seconds() * 1000)


def _fixed_millis(text: str, setting: str) -> int:
    match = re.fullmatch(r"(-?\d+)(ms|s|m|h|d)", text)
    if match is None:
        reason = f"failed to parse setting [{setting}] with value [{text}] as a time value: "
        reason += "unit is missing or unrecognized"
        raise EsError(400, "illegal_argument_exception", reason)
    return int(match[1]) * _FIXED_UNITS[match[2]]
