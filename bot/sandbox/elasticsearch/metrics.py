"""The metric aggregations of the Elasticsearch stand-in: min, max, avg, sum, stats and their kin.

Each reduces the doc values of one field over the matched hits to a value (dates also printed as
strings), or counts them (`value_count`, `cardinality`); `top_hits` renders hits through the search.
None takes sub-aggregations. `aggs` lists them in its table of aggregation types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.sandbox.elasticsearch.agg_context import AggContext, doc_value_field, missing_value, unsupported
from bot.sandbox.elasticsearch.dates import date_formatter
from bot.sandbox.elasticsearch.errors import Json
from bot.sandbox.elasticsearch.mapping import Field, Hit, sortable_values

# ------------------------------------------------------------------------------------- metrics


def _numbers(params: Json, hits: list[Hit], ctx: AggContext, agg: str) -> tuple[Field | None, list[float]]:
    found = doc_value_field(params, ctx)
    if found is not None and found.kind not in ("number", "date", "boolean"):
        raise unsupported(found, agg)
    values: list[float] = []
    for hit in hits:
        own = sortable_values(hit.doc, found) if found else []
        values.extend(float(value) for value in own or missing_value(found, params, ctx))
    return found, values


def _value(found: Field | None, value: float | None, params: Json, name: str = "value") -> Json:
    out: Json = {name: value}
    if value is not None and found is not None and found.kind == "date":
        out[f"{name}_as_string"] = date_formatter(params.get("format"))(int(value))
    return out


def metric(
    pick: Callable[[list[float]], float | None], agg: str
) -> Callable[[Json, list[Hit], AggContext, Json], Json]:
    def run(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
        found, values = _numbers(params, hits, ctx, agg)
        return _value(found, pick(values), params)

    return run


def stats(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    found, values = _numbers(params, hits, ctx, "stats")
    out: Json = {"count": len(values)}
    for name, pick in (("min", min), ("max", max)):
        out |= _value(found, pick(values) if values else None, params, name)
    out["avg"] = sum(values) / len(values) if values else None
    out["sum"] = float(sum(values))
    return out


def _counted(params: Json, hits: list[Hit], ctx: AggContext) -> list[Any]:
    found = doc_value_field(params, ctx)
    values: list[Any] = []
    for hit in hits:
        values.extend((sortable_values(hit.doc, found) if found else []) or missing_value(found, params, ctx))
    return values


def value_count(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    return {"value": len(_counted(params, hits, ctx))}


def cardinality(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    return {"value": len(set(_counted(params, hits, ctx)))}


def top_hits(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    return ctx.top_hits(hits, params)
