"""Pod logs of the Kubernetes stand-in: the `pods/log` options and how they cut a container's lines.

Picks the container a request names (or the only one), parses PodLogOptions from the query string
(`tailLines`, `sinceSeconds`, `sinceTime`, `timestamps`, `limitBytes`, `previous`) with the server's
validation messages, and renders stored lines as the kubelet would: tail first, then the time
filter on each line's RFC 3339 stamp. The stand-in keeps a previous instance's lines under
container + `PREVIOUS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from starlette.datastructures import QueryParams

from bot.sandbox.kubernetes.resources import ApiFailure, Obj

# pod_logs key of a container's previous (terminated) instance: (namespace, pod, container + PREVIOUS).
PREVIOUS = ":previous"
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d) ")


# --- log helpers -----------------------------------------------------------------------------------


def int_param(query: QueryParams, name: str) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError as exc:
        raise ApiFailure(400, f"{name}: invalid value {value!r}: not an integer") from exc


def log_container(pod: Obj, wanted: str | None) -> str:
    """The container asked for, or the only one; several and none named is a 400, as on a real cluster."""
    spec, name = pod.get("spec") or {}, pod["metadata"]["name"]
    names = [str(c.get("name")) for c in spec.get("containers") or []]
    others = (spec.get("initContainers") or []) + (spec.get("ephemeralContainers") or [])
    if wanted:
        if wanted not in names + [str(c.get("name")) for c in others]:
            raise ApiFailure(400, f"container {wanted} is not valid for pod {name}")
        return wanted
    if len(names) != 1:
        raise ApiFailure(
            400, f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]"
        )
    return names[0]


@dataclass(frozen=True)
class LogOptions:
    """PodLogOptions from the query string."""

    previous: bool
    timestamps: bool
    tail: int | None
    since: datetime | None
    limit_bytes: int | None

    @property
    def suffix(self) -> str:
        return PREVIOUS if self.previous else ""

    @classmethod
    def parse(cls, query: QueryParams, now: datetime) -> LogOptions:
        tail, seconds = int_param(query, "tailLines"), int_param(query, "sinceSeconds")
        limit_bytes, since_time = int_param(query, "limitBytes"), query.get("sinceTime")
        problems = []
        if seconds is not None and since_time:
            problems.append("at most one of `sinceTime` or `sinceSeconds` may be specified")
        for label, value in (("sinceSeconds", seconds), ("limitBytes", limit_bytes)):
            if value is not None and value < 1:
                problems.append(f"{label}: Invalid value: {value}: must be greater than 0")
        if tail is not None and tail < 0:
            problems.append(f"tailLines: Invalid value: {tail}: must be greater than or equal to 0")
        if problems:
            raise ApiFailure(422, "PodLogOptions is invalid: " + "; ".join(problems))
        since = now - timedelta(seconds=seconds) if seconds is not None else _parse_time(since_time)
        flags = {
            name: query.get(name, "false").lower() in ("true", "1") for name in ("previous", "timestamps")
        }
        return cls(flags["previous"], flags["timestamps"], tail, since, limit_bytes)

    def render(self, lines: list[str]) -> str:
        """Tail first, then the time filter, as the kubelet reads a container log; stamps only if asked."""
        picked = lines if self.tail is None else lines[max(len(lines) - self.tail, 0) :] if self.tail else []
        out = []
        for line in picked:
            stamp, message = _split_stamp(line)
            if self.since is None or stamp is None or stamp >= self.since:
                out.append((line if self.timestamps else message) + "\n")
        text = "".join(out)
        if self.limit_bytes is not None:
            text = text.encode()[: self.limit_bytes].decode("utf-8", "ignore")
        return text


def _split_stamp(line: str) -> tuple[datetime | None, str]:
    found = _STAMP.match(line)
    if not found:
        return None, line
    fraction = (found[2] or "")[:7]  # Python keeps microseconds; the kubelet writes nanoseconds
    return datetime.fromisoformat(found[1] + fraction + found[3].replace("Z", "+00:00")), line[found.end() :]


def _parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ApiFailure(400, f"sinceTime: invalid value {text!r}: not an RFC 3339 time") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
