"""Aggregations of the Elasticsearch stand-in, computed over the hits a search matched.

This dispatches a request's `aggs` to the aggregation types it lists in `_AGGS`, and holds the bucket
aggregations (terms, date_histogram, filters, filter, categorize_text), which run sub-aggregations per
bucket. Metrics live in `metrics`, the categorization algorithm in `categorize`, interval
rounding in `dates`, and what every aggregation reads of the search in `agg_context`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from bot.sandbox.elasticsearch.agg_context import AggContext, doc_value_field, missing_value, unsupported
from bot.sandbox.elasticsearch.categorize import Categorizer, Category, categorization_tokens, key_tokens
from bot.sandbox.elasticsearch.dates import Rounding, date_formatter, parse_date, parse_zone, rounding_of
from bot.sandbox.elasticsearch.errors import EsError, Json, shard_error
from bot.sandbox.elasticsearch.mapping import Field, Hit, sortable_values
from bot.sandbox.elasticsearch.metrics import cardinality, metric, stats, top_hits, value_count

MAX_BUCKETS = 65536


@dataclass(frozen=True)
class _Agg:
    run: Callable[[Json, list[Hit], AggContext, Json], Json]
    allowed: frozenset[str] | None  # None: the parameters are a query (`filter`)
    buckets: bool


def run_aggregations(spec: Any, hits: list[Hit], ctx: AggContext) -> Json:
    """Every named aggregation in `spec` (the request's `aggs`), computed over `hits`."""
    if not isinstance(spec, dict):
        raise EsError(400, "parsing_exception", "Expected [START_OBJECT] under [aggregations]")
    return {name: _run_one(name, body, hits, ctx) for name, body in spec.items()}


def _run_one(name: str, body: Any, hits: list[Hit], ctx: AggContext) -> Json:
    if not isinstance(body, dict):
        raise EsError(400, "parsing_exception", f"Expected [START_OBJECT] under [{name}]")
    subs = body.get("aggs", body.get("aggregations")) or {}
    kinds = [key for key in body if key not in ("aggs", "aggregations", "meta")]
    if len(kinds) != 1:
        raise EsError(
            400, "parsing_exception", f"Expected exactly one aggregation type for [{name}], got {kinds}"
        )
    kind = kinds[0]
    agg = _AGGS.get(kind)
    if agg is None:
        cause = {"type": "named_object_not_found_exception", "reason": f"[1:1] unknown field [{kind}]"}
        raise EsError(
            400, "parsing_exception", f"Unknown aggregation type [{kind}]", details={"caused_by": cause}
        )
    params = body[kind]
    if not isinstance(params, dict):
        raise EsError(400, "parsing_exception", f"[{kind}] of [{name}] must be an object")
    unknown = set() if agg.allowed is None else set(params) - agg.allowed
    if unknown:
        raise EsError(400, "x_content_parse_exception", f"[{kind}] unknown field [{sorted(unknown)[0]}]")
    if subs and not agg.buckets:
        reason = f"Aggregator [{name}] of type [{kind}] cannot accept sub-aggregations"
        raise EsError(400, "aggregation_initialization_exception", reason)
    result = agg.run(params, hits, ctx, subs)
    if "meta" in body:
        result["meta"] = body["meta"]
    return result


def _bucket(members: list[Hit], subs: Json, ctx: AggContext, head: Json) -> Json:
    unique = list({id(hit.doc): hit for hit in members}.values())
    return {**head, "doc_count": len(members), **(run_aggregations(subs, unique, ctx) if subs else {})}


def _key_fields(found: Field | None, key: Any) -> Json:
    if found is not None and found.kind == "date":
        return {"key": key, "key_as_string": date_formatter(None)(key)}
    if found is not None and found.kind == "boolean":
        return {"key": 1 if key else 0, "key_as_string": "true" if key else "false"}
    return {"key": key}


# ------------------------------------------------------------------------------------------- terms


def _terms(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    found = doc_value_field(params, ctx)
    size = int(params.get("size", 10))
    if size <= 0:
        raise EsError(400, "illegal_argument_exception", f"[size] must be greater than 0. Found [{size}]")
    groups: dict[Any, list[Hit]] = {}
    for hit in hits:
        values = list(dict.fromkeys(sortable_values(hit.doc, found))) if found else []
        for value in values or missing_value(found, params, ctx):
            groups.setdefault(value, []).append(hit)
    min_count = int(params.get("min_doc_count", 1))
    if min_count == 0 and found is not None:
        for doc in ctx.all_docs():
            for value in sortable_values(doc, found):
                groups.setdefault(value, [])
    keep = _include_exclude(params)
    rows = [
        (key, members, _bucket(members, subs, ctx, _key_fields(found, key)))
        for key, members in groups.items()
        if len(members) >= min_count and keep(key)
    ]
    rows = _ordered(rows, params.get("order"), default=[("_count", "desc")])
    other = sum(len(members) for _, members, _ in rows[size:])
    buckets = [bucket for _, _, bucket in rows[:size]]
    return {"doc_count_error_upper_bound": 0, "sum_other_doc_count": other, "buckets": buckets}


def _include_exclude(params: Json) -> Callable[[Any], bool]:
    def rule(spec: Any) -> Callable[[str], bool] | None:
        if spec is None:
            return None
        if isinstance(spec, list):
            return lambda key: key in {str(item) for item in spec}
        compiled = re.compile(str(spec))
        return lambda key: compiled.fullmatch(key) is not None

    include, exclude = rule(params.get("include")), rule(params.get("exclude"))
    return lambda key: (include is None or include(str(key))) and (exclude is None or not exclude(str(key)))


_Row = tuple[Any, list[Hit], Json]


def _ordered(rows: list[_Row], order: Any, default: list[tuple[str, str]]) -> list[_Row]:
    """Sort buckets by `order` (`_count`, `_key`, or a sub-aggregation's value), ties by key ascending."""
    criteria = [
        (path, str(direction)) for item in _as_list(order) for path, direction in item.items()
    ] or default
    if all(path != "_key" for path, _ in criteria):
        criteria.append(("_key", "asc"))
    for path, direction in reversed(criteria):
        if direction not in ("asc", "desc"):
            raise EsError(400, "parsing_exception", f"Unknown order direction [{direction}]")
        present = [row for row in rows if _order_value(row, path) is not None]
        absent = [row for row in rows if _order_value(row, path) is None]
        present.sort(key=lambda row: _order_value(row, path), reverse=direction == "desc")
        rows = present + absent
    return rows


def _order_value(row: _Row, path: str) -> Any:
    key, members, bucket = row
    if path == "_key":
        return key
    if path in ("_count", "_doc_count"):
        return len(members)
    name, _, prop = path.partition(".")
    if name not in bucket or not isinstance(bucket[name], dict):
        raise EsError(400, "aggregation_execution_exception", f"Invalid aggregation order path [{path}]")
    result: Json = bucket[name]
    return result.get(prop or "value", result.get("doc_count"))


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


# -------------------------------------------------------------------------------- date_histogram


def _date_histogram(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    found = doc_value_field(params, ctx)
    if found is not None and found.kind not in ("date", "number"):
        raise unsupported(found, "date_histogram")
    zone = parse_zone(str(params.get("time_zone", "UTC")))
    rounding = rounding_of(params, zone)
    groups: dict[int, list[Hit]] = {}
    for hit in hits:
        values = sortable_values(hit.doc, found) if found else []
        for key in {rounding.floor(int(value)) for value in values or missing_value(found, params, ctx)}:
            groups.setdefault(key, []).append(hit)
    min_count = int(params.get("min_doc_count", 0))
    keys = sorted(groups)
    if min_count == 0:
        keys = _filled(keys, rounding, params, ctx, zone)
    bounds = params.get("hard_bounds") or {}
    low, high = (_bound(bounds.get(side), ctx, zone) for side in ("min", "max"))
    keys = [k for k in keys if (low is None or k >= low) and (high is None or k <= high)]
    render = date_formatter(params.get("format"), zone)
    rows = [
        (
            key,
            groups.get(key, []),
            _bucket(groups.get(key, []), subs, ctx, {"key_as_string": render(key), "key": key}),
        )
        for key in keys
        if len(groups.get(key, [])) >= min_count
    ]
    rows = _ordered(rows, params.get("order"), default=[("_key", "asc")])
    return {"buckets": [bucket for _, _, bucket in rows]}


def _bound(value: Any, ctx: AggContext, zone: tzinfo) -> int | None:
    if value is None:
        return None
    try:
        return parse_date(value, now=ctx.now, zone=zone)
    except ValueError as exc:
        raise shard_error("parse_exception", f"failed to parse bound [{value}]: {exc}") from exc


def _filled(keys: list[int], rounding: Rounding, params: Json, ctx: AggContext, zone: tzinfo) -> list[int]:
    """Every bucket key from the first to the last, widened by `extended_bounds`, empty ones included."""
    bounds = params.get("extended_bounds") or {}
    low, high = (_bound(bounds.get(side), ctx, zone) for side in ("min", "max"))
    candidates_low = [
        k for k in (keys[0] if keys else None, None if low is None else rounding.floor(low)) if k is not None
    ]
    candidates_high = [
        k
        for k in (keys[-1] if keys else None, None if high is None else rounding.floor(high))
        if k is not None
    ]
    if not candidates_low or not candidates_high:
        return keys
    filled, key, last = [], min(candidates_low), max(candidates_high)
    while key <= last:
        filled.append(key)
        if len(filled) > MAX_BUCKETS:
            reason = f"Trying to create too many buckets. Must be less than or equal to: [{MAX_BUCKETS}]."
            raise EsError(400, "too_many_buckets_exception", reason, shard_level=True)
        key = rounding.next(key)
    return filled


# --------------------------------------------------------------------------------- filter(s)


def _filters(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    spec = params.get("filters")
    other = bool(params.get("other_bucket", "other_bucket_key" in params))
    other_key = str(params.get("other_bucket_key", "_other_"))
    named = sorted(spec.items()) if isinstance(spec, dict) else None
    queries = [query for _, query in named] if named is not None else _as_list(spec)
    matched = [[hit for hit in hits if ctx.matches(query, hit.doc)] for query in queries]
    rest = [hit for hit in hits if not any(ctx.matches(query, hit.doc) for query in queries)]
    if named is None:
        buckets = [_bucket(members, subs, ctx, {}) for members in matched]
        return {"buckets": buckets + ([_bucket(rest, subs, ctx, {})] if other else [])}
    keyed = {name: _bucket(members, subs, ctx, {}) for (name, _), members in zip(named, matched, strict=True)}
    if other:
        keyed[other_key] = _bucket(rest, subs, ctx, {})
    if params.get("keyed", True):
        return {"buckets": keyed}
    return {"buckets": [{"key": name, **bucket} for name, bucket in keyed.items()]}


def _filter(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    return _bucket([hit for hit in hits if ctx.matches(params, hit.doc)], subs, ctx, {})


# ---------------------------------------------------------------------------- categorize_text

_REGEX_SPECIALS = re.compile(r"([\\^$.|?*+()\[\]{}])")


def _categorize_text(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    name = params.get("field")
    found = ctx.field(name) if isinstance(name, str) else None
    if found is None:
        return {"buckets": []}
    if found.kind not in ("text", "keyword"):
        raise shard_error(
            "illegal_argument_exception",
            f"categorize_text only works on text and keyword fields, not [{name}]",
        )
    if params.get("categorization_analyzer") is not None:
        raise EsError(
            400,
            "illegal_argument_exception",
            "the stand-in supports only the default categorization_analyzer",
        )
    threshold = int(params.get("similarity_threshold", 70))
    if not 1 <= threshold <= 100:
        raise EsError(
            400,
            "illegal_argument_exception",
            f"[similarity_threshold] must be between 1 and 100, got {threshold}",
        )
    filters = [re.compile(str(pattern)) for pattern in params.get("categorization_filters", [])]
    categorizer = Categorizer(min(max(threshold / 100.0, 0.01), 0.99))
    for hit in hits:
        for value in hit.doc.values.get(found.name, ()):
            tokens = categorization_tokens(str(value), filters)
            if tokens:
                categorizer.add(tokens, len(str(value)), hit)
    size, min_count = int(params.get("size", 10)), int(params.get("min_doc_count", 1))
    chosen = [c for c in categorizer.categories[:size] if len(c.members) >= min_count]
    chosen.sort(key=lambda c: (-len(c.members), [token.encode() for token in key_tokens(c)]))
    return {"buckets": [_category_bucket(category, subs, ctx) for category in chosen]}


def _category_bucket(category: Category, subs: Json, ctx: AggContext) -> Json:
    ordered = [_REGEX_SPECIALS.sub(r"\\\1", token) for token in category.ordered()]
    regex = ".*?" + ".+?".join(ordered) + ".*?" if ordered else ".*"
    head = {
        "key": " ".join(key_tokens(category)),
        "regex": regex,
        "max_matching_length": category.max_matching_length(),
    }
    bucket = _bucket(category.members, subs, ctx, head)
    return {"doc_count": bucket.pop("doc_count"), **bucket}


_METRIC_KEYS = frozenset({"field", "missing", "format", "script"})
_AGGS: dict[str, _Agg] = {
    "terms": _Agg(
        _terms,
        frozenset({"field", "size", "order", "min_doc_count", "missing", "include", "exclude", "shard_size"})
        | {"execution_hint", "collect_mode", "show_term_doc_count_error", "shard_min_doc_count", "format"},
        True,
    ),
    "date_histogram": _Agg(
        _date_histogram,
        frozenset(
            {
                "field",
                "fixed_interval",
                "calendar_interval",
                "min_doc_count",
                "extended_bounds",
                "hard_bounds",
            }
        )
        | {"offset", "time_zone", "format", "order", "missing", "keyed"},
        True,
    ),
    "filters": _Agg(_filters, frozenset({"filters", "other_bucket", "other_bucket_key", "keyed"}), True),
    "filter": _Agg(_filter, None, True),
    "min": _Agg(metric(lambda values: min(values) if values else None, "min"), _METRIC_KEYS, False),
    "max": _Agg(metric(lambda values: max(values) if values else None, "max"), _METRIC_KEYS, False),
    "avg": _Agg(
        metric(lambda values: sum(values) / len(values) if values else None, "avg"), _METRIC_KEYS, False
    ),
    "sum": _Agg(metric(lambda values: float(sum(values)), "sum"), _METRIC_KEYS, False),
    "stats": _Agg(stats, _METRIC_KEYS, False),
    "value_count": _Agg(value_count, _METRIC_KEYS, False),
    "cardinality": _Agg(cardinality, _METRIC_KEYS | {"precision_threshold"}, False),
    "top_hits": _Agg(
        top_hits,
        frozenset({"size", "from", "sort", "_source", "version", "seq_no_primary_term", "track_scores"}),
        False,
    ),
    "categorize_text": _Agg(
        _categorize_text,
        frozenset({"field", "size", "min_doc_count", "similarity_threshold", "categorization_filters"})
        | {
            "categorization_analyzer",
            "shard_size",
            "shard_min_doc_count",
            "max_unique_tokens",
            "max_matched_tokens",
        },
        True,
    ),
}
