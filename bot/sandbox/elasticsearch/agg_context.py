"""What an aggregation of the Elasticsearch stand-in sees of its search, and how it reads a field.

`AggContext` hands field types, query matching, hit rendering and the clock from the search to the
aggregations, so they need not depend on search execution. The helpers resolve an aggregation's
`field` as a cluster does (text fields refuse without fielddata), apply `missing`, and name the
unsupported-field error; bucket and metric aggregations share them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.sandbox.elasticsearch.errors import EsError, Json, fielddata_error, shard_error
from bot.sandbox.elasticsearch.mapping import Document, Field, Hit, coerce


@dataclass(frozen=True)
class AggContext:
    """What aggregations need from the search: field types, query matching, hit rendering, the clock."""

    field: Callable[[str], Field | None]
    index: str | None
    now: datetime
    matches: Callable[[Any, Document], bool]
    top_hits: Callable[[list[Hit], Json], Json]
    all_docs: Callable[[], Iterable[Document]]


def doc_value_field(params: Json, ctx: AggContext) -> Field | None:
    name = params.get("field")
    if not isinstance(name, str):
        raise EsError(
            400,
            "illegal_argument_exception",
            "Required one of fields [field, script], but none were specified.",
        )
    found = ctx.field(name)
    if found is not None and found.kind == "text" and not found.fielddata:
        raise fielddata_error(name, ctx.index)
    return found


def unsupported(found: Field, agg: str) -> EsError:
    return shard_error(
        "illegal_argument_exception",
        f"Field [{found.name}] of type [{found.es_type}] is not supported for aggregation [{agg}]",
    )


def missing_value(found: Field | None, params: Json, ctx: AggContext) -> list[Any]:
    if params.get("missing") is None:
        return []
    if found is None or found.kind in ("text", "keyword"):
        return [params["missing"]]
    try:
        return [coerce(found, params["missing"], now=ctx.now)]
    except ValueError as exc:
        raise shard_error("illegal_argument_exception", f"invalid [missing] value: {exc}") from exc
