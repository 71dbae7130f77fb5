"""A field of a JSON log record by its dotted name, however the shipper nested it.

ECS and Fluent Bit send `{"kubernetes": {"pod": {"name": ...}}}`, `{"kubernetes.pod.name": ...}`
or a mix of both; a record's `error.type` may be flat or under `error`. The log tool reads
`_source` documents this way and attribution reads log records this way: one reader for both.
"""

from __future__ import annotations

from typing import Any


def lookup(source: Any, path: str) -> Any:
    """The value at a dotted `_source` path, nested or sent as a dotted key (or a mix of both)."""
    if not isinstance(source, dict):
        return None
    if path in source:
        return source[path]
    head, _, rest = path.partition(".")
    while rest:
        if head in source:
            found = lookup(source[head], rest)
            if found is not None:
                return found
        step, _, rest = rest.partition(".")
        head = f"{head}.{step}"
    return source.get(head)
