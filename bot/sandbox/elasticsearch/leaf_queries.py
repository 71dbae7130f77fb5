"""Leaf queries of the Elasticsearch stand-in: each tests one field of a document (or its id).

term, terms, match, match_phrase, range, exists, prefix, wildcard, regexp, ids, match_all and
match_none, with the field-option parsing and error messages they share. `query` combines them in
the compound queries (bool, constant_score) and dispatches a query to its builder.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase
from typing import Any

from bot.sandbox.elasticsearch.dates import DEFAULT_DATE_FORMAT, parse_date, parse_zone
from bot.sandbox.elasticsearch.errors import Json, parsing_error, shard_error
from bot.sandbox.elasticsearch.mapping import Document, Field, IndexMapping, analyze, coerce, sortable_values

Matcher = Callable[[Document], float | None]
Builder = Callable[[Any, "QueryContext"], Matcher]


@dataclass(frozen=True)
class QueryContext:
    """What a query compiles against: the index's mapping and name, and the moment `now` means."""

    mapping: IndexMapping
    index: str
    now: datetime


def _never(_: Document) -> float | None:
    return None


def boost_of(options: Mapping[str, Any]) -> float:
    return float(options.get("boost", 1.0))


def _field_options(kind: str, spec: Any, value_key: str | None) -> tuple[str, Json]:
    """Split `{"field": value}` or `{"field": {value_key: value, ...}}` into the field and its options."""
    if not isinstance(spec, dict):
        raise parsing_error(f"[{kind}] query malformed, no start_object after query name")
    names = [key for key in spec if key not in ("boost", "_name")]
    if not names:
        raise parsing_error(f"[{kind}] query requires a field name")
    if len(names) > 1:
        raise parsing_error(
            f"[{kind}] query doesn't support multiple fields, found [{names[0]}] and [{names[1]}]"
        )
    name = names[0]
    raw = spec[name]
    options: Json = dict(raw) if isinstance(raw, dict) else {value_key or "value": raw}
    if "boost" in spec:
        options.setdefault("boost", spec["boost"])
    if value_key and value_key not in options:
        raise parsing_error(f"[{kind}] query on [{name}] requires [{value_key}]")
    return name, options


def _query_value(field: Field, value: Any, ctx: QueryContext) -> Any:
    if field.kind == "text":
        return str(value)
    try:
        return coerce(field, value, now=ctx.now)
    except ValueError as exc:
        raise shard_error("query_shard_exception", f"failed to create query: {exc}") from exc


def _equals(field: Field, wanted: set[Any], boost: float, insensitive: bool = False) -> Matcher:
    if insensitive:
        wanted = {str(value).lower() for value in wanted}
    if field.kind == "text":
        return lambda doc: (
            boost if any(t in wanted for ts in doc.tokens.get(field.name, ()) for t in ts) else None
        )

    def match(doc: Document) -> float | None:
        values = doc.values.get(field.name, ())
        return boost if any((str(v).lower() if insensitive else v) in wanted for v in values) else None

    return match


def _term(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("term", spec, "value")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    value = _query_value(field, options["value"], ctx)
    return _equals(field, {value}, boost_of(options), bool(options.get("case_insensitive", False)))


def _terms(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict):
        raise parsing_error("[terms] query malformed, no start_object after query name")
    names = [key for key in spec if key not in ("boost", "_name")]
    if len(names) != 1 or not isinstance(spec[names[0]], list):
        raise parsing_error("[terms] query requires exactly one field with an array of values")
    field = ctx.mapping.fields.get(names[0])
    if field is None:
        return _never
    return _equals(field, {_query_value(field, v, ctx) for v in spec[names[0]]}, boost_of(spec))


def _match(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("match", spec, "query")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    boost = boost_of(options)
    if field.kind != "text":
        return _equals(field, {_query_value(field, options["query"], ctx)}, boost)
    terms = set(analyze(str(options["query"])))
    operator_name = str(options.get("operator", "or")).lower()
    if operator_name not in ("or", "and"):
        raise parsing_error(f"[match] unknown operator [{operator_name}]")
    default = len(terms) if operator_name == "and" else 1
    required = max(1, minimum_should_match(options.get("minimum_should_match"), len(terms), default))

    def match(doc: Document) -> float | None:
        present = {token for tokens in doc.tokens.get(field.name, ()) for token in tokens}
        found = len(terms & present)
        return boost * found if found >= required else None

    return match


def _match_phrase(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("match_phrase", spec, "query")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    boost = boost_of(options)
    if field.kind != "text":
        return _equals(field, {_query_value(field, options["query"], ctx)}, boost)
    phrase = analyze(str(options["query"]))
    slop = int(options.get("slop", 0))
    return lambda doc: (
        boost if any(_has_phrase(t, phrase, slop) for t in doc.tokens.get(field.name, ())) else None
    )


def _has_phrase(tokens: list[str], phrase: list[str], slop: int) -> bool:
    """The phrase in order, with at most `slop` other tokens in between (earliest matches minimise gaps)."""
    if not phrase:
        return False
    for start, token in enumerate(tokens):
        if token != phrase[0]:
            continue
        position, gaps = start, 0
        for term in phrase[1:]:
            following = next((i for i in range(position + 1, len(tokens)) if tokens[i] == term), None)
            if following is None:
                break
            gaps += following - position - 1
            position = following
        else:
            if gaps <= slop:
                return True
    return False


_RANGE_OPS = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}
_RANGE_KEYS = {*_RANGE_OPS, "from", "to", "include_lower", "include_upper", "format", "time_zone", "boost"}


def _range(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("range", spec, None)
    unknown = set(options) - _RANGE_KEYS
    if unknown:
        raise parsing_error(f"[range] query does not support [{sorted(unknown)[0]}]")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    bounds = [
        (op, _range_bound(field, options, key, value, ctx)) for key, op, value in _range_limits(options)
    ]
    boost = boost_of(options)

    def match(doc: Document) -> float | None:
        values = sortable_values(doc, field)
        return boost if any(all(op(v, bound) for op, bound in bounds) for v in values) else None

    return match


def _range_limits(options: Json) -> list[tuple[str, Callable[[Any, Any], bool], Any]]:
    limits = [(key, op, options[key]) for key, op in _RANGE_OPS.items() if options.get(key) is not None]
    if options.get("from") is not None:
        key = "gte" if options.get("include_lower", True) else "gt"
        limits.append((key, _RANGE_OPS[key], options["from"]))
    if options.get("to") is not None:
        key = "lte" if options.get("include_upper", True) else "lt"
        limits.append((key, _RANGE_OPS[key], options["to"]))
    return limits


def _range_bound(field: Field, options: Json, key: str, value: Any, ctx: QueryContext) -> Any:
    if field.kind in ("text", "keyword"):
        return str(value)
    if field.kind == "number":
        return _query_value(Field(field.name, "double", field.source), value, ctx)
    if field.kind != "date":
        return _query_value(field, value, ctx)
    zone = parse_zone(str(options.get("time_zone", "UTC")))
    pattern = str(options.get("format", DEFAULT_DATE_FORMAT))
    try:
        if pattern == "epoch_second":
            return int(float(value) * 1000)
        return parse_date(value, now=ctx.now, round_up=key in ("gt", "lte"), zone=zone)
    except ValueError as exc:
        reason = f"failed to parse date field [{value}] with format [{pattern}]: [{exc}]"
        raise shard_error("parse_exception", reason) from exc


def _exists(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict) or not isinstance(spec.get("field"), str):
        raise parsing_error("[exists] must be provided with a [field]")
    pattern: str = spec["field"]
    boost = boost_of(spec)

    def present(path: str) -> bool:
        return fnmatchcase(path, pattern) or path.startswith(pattern + ".")

    return lambda doc: boost if any(present(path) for path in doc.values) else None


def _string_query(kind: str, alias: str, make: Callable[[str, bool], Callable[[str], bool]]) -> Builder:
    """prefix/wildcard/regexp: test whole keyword values, or single tokens of a text field."""

    def build(spec: Any, ctx: QueryContext) -> Matcher:
        name, options = _field_options(kind, spec, None)
        value = options.get("value", options.get(alias))
        if value is None:
            raise parsing_error(f"[{kind}] query on [{name}] requires [value]")
        field = ctx.mapping.fields.get(name)
        if field is None:
            return _never
        test = make(str(value), bool(options.get("case_insensitive", False)))
        boost = boost_of(options)
        if field.kind == "text":
            return lambda doc: (
                boost if any(test(t) for ts in doc.tokens.get(field.name, ()) for t in ts) else None
            )
        return lambda doc: boost if any(test(str(v)) for v in doc.values.get(field.name, ())) else None

    return build


def _prefix_test(value: str, insensitive: bool) -> Callable[[str], bool]:
    if insensitive:
        return lambda candidate: candidate.lower().startswith(value.lower())
    return lambda candidate: candidate.startswith(value)


def _wildcard_test(value: str, insensitive: bool) -> Callable[[str], bool]:
    parts = re.split(r"(\\.|[*?])", value)
    pattern = "".join(
        ".*" if p == "*" else "." if p == "?" else re.escape(p[-1:] if p.startswith("\\") else p)
        for p in parts
    )
    compiled = re.compile(pattern, re.IGNORECASE if insensitive else 0)
    return lambda candidate: compiled.fullmatch(candidate) is not None


def _regexp_test(value: str, insensitive: bool) -> Callable[[str], bool]:
    compiled = re.compile(value, re.IGNORECASE if insensitive else 0)
    return lambda candidate: compiled.fullmatch(candidate) is not None


def _ids(spec: Any, _: QueryContext) -> Matcher:
    if not isinstance(spec, dict) or not isinstance(spec.get("values"), list):
        raise parsing_error("[ids] query requires [values]")
    wanted = {str(value) for value in spec["values"]}
    boost = boost_of(spec)
    return lambda doc: boost if doc.id in wanted else None


def match_all(spec: Any, _: QueryContext) -> Matcher:
    boost = boost_of(spec or {})
    return lambda _doc: boost


def _match_none(_spec: Any, _: QueryContext) -> Matcher:
    return _never


def minimum_should_match(spec: Any, count: int, default: int) -> int:
    """`minimum_should_match` as an absolute count: 2, -1, "75%", "-25%"."""
    if spec is None:
        return default
    text = str(spec).strip()
    try:
        if text.endswith("%"):
            percent = int(text[:-1])
            part = math.floor(count * abs(percent) / 100)
            result = part if percent >= 0 else count - part
        else:
            number = int(text)
            result = number if number >= 0 else count + number
    except ValueError as exc:
        raise parsing_error(f"unsupported minimum_should_match [{spec}]") from exc
    return max(0, result)


LEAF_QUERIES: dict[str, Builder] = {
    "match_all": match_all,
    "match_none": _match_none,
    "term": _term,
    "terms": _terms,
    "match": _match,
    "match_phrase": _match_phrase,
    "range": _range,
    "exists": _exists,
    "prefix": _string_query("prefix", "value", _prefix_test),
    "wildcard": _string_query("wildcard", "wildcard", _wildcard_test),
    "regexp": _string_query("regexp", "value", _regexp_test),
    "ids": _ids,
}
