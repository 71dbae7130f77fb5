"""Aggregations of the Elasticsearch stand-in, computed over the hits a search matched.

`categorize_text` follows Elasticsearch's own algorithm: messages are cut by the `ml_standard`
tokenizer (hex numbers and tokens starting with a digit are dropped), weighted, and grouped by a
weighted edit-distance similarity, so lines that differ only in ids fall into one category whose key
is the tokens they share. Real Elasticsearch weighs tokens with an English part-of-speech dictionary;
the stand-in approximates it (plain words weigh 3, `-ed`/`-ing` words 6, anything else 1).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from bot.sandbox.es_query import (
    Document,
    EsError,
    Field,
    Hit,
    Json,
    coerce,
    date_formatter,
    fielddata_error,
    floor_moment,
    from_millis,
    parse_date,
    parse_zone,
    shard_error,
    shift,
    sortable_values,
    to_millis,
)

MAX_BUCKETS = 65536


@dataclass(frozen=True)
class AggContext:
    """What aggregations need from the search: field types, query matching, hit rendering, the clock."""

    field: Callable[[str], Field | None]
    index: str | None
    now: datetime
    matches: Callable[[Any, Document], bool]
    top_hits: Callable[[list[Hit], Json], Json]
    all_docs: Callable[[], Iterable[Document]]


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
        raise EsError(400, "x_content_parse_exception", f"Unknown aggregation type [{kind}]")
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


def _doc_value_field(params: Json, ctx: AggContext) -> Field | None:
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


def _unsupported(found: Field, agg: str) -> EsError:
    return shard_error(
        "illegal_argument_exception",
        f"Field [{found.name}] of type [{found.es_type}] is not supported for aggregation [{agg}]",
    )


def _key_fields(found: Field | None, key: Any) -> Json:
    if found is not None and found.kind == "date":
        return {"key": key, "key_as_string": date_formatter(None)(key)}
    if found is not None and found.kind == "boolean":
        return {"key": 1 if key else 0, "key_as_string": "true" if key else "false"}
    return {"key": key}


def _missing_value(found: Field | None, params: Json, ctx: AggContext) -> list[Any]:
    if params.get("missing") is None:
        return []
    if found is None or found.kind in ("text", "keyword"):
        return [params["missing"]]
    try:
        return [coerce(found, params["missing"], now=ctx.now)]
    except ValueError as exc:
        raise shard_error("illegal_argument_exception", f"invalid [missing] value: {exc}") from exc


# ------------------------------------------------------------------------------------------- terms


def _terms(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    found = _doc_value_field(params, ctx)
    size = int(params.get("size", 10))
    if size <= 0:
        raise EsError(400, "illegal_argument_exception", f"[size] must be greater than 0. Found [{size}]")
    groups: dict[Any, list[Hit]] = {}
    for hit in hits:
        values = list(dict.fromkeys(sortable_values(hit.doc, found))) if found else []
        for value in values or _missing_value(found, params, ctx):
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

_CALENDAR = {"minute": "m", "1m": "m", "hour": "h", "1h": "h", "day": "d", "1d": "d", "week": "w", "1w": "w"}
_CALENDAR |= {"month": "M", "1M": "M", "quarter": "q", "1q": "q", "year": "y", "1y": "y"}
_FIXED_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


@dataclass(frozen=True)
class _Rounding:
    floor: Callable[[int], int]
    next: Callable[[int], int]


def _rounding(params: Json, zone: tzinfo) -> _Rounding:
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

        return _Rounding(floor_fixed, lambda millis: millis + step)
    unit = _CALENDAR.get(str(named))
    if unit is None:
        reason = f"The supplied interval [{named}] could not be parsed as a calendar interval."
        raise EsError(400, "illegal_argument_exception", reason)
    return _Rounding(
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


def _date_histogram(params: Json, hits: list[Hit], ctx: AggContext, subs: Json) -> Json:
    found = _doc_value_field(params, ctx)
    if found is not None and found.kind not in ("date", "number"):
        raise _unsupported(found, "date_histogram")
    zone = parse_zone(str(params.get("time_zone", "UTC")))
    rounding = _rounding(params, zone)
    groups: dict[int, list[Hit]] = {}
    for hit in hits:
        values = sortable_values(hit.doc, found) if found else []
        for key in {rounding.floor(int(value)) for value in values or _missing_value(found, params, ctx)}:
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


def _filled(keys: list[int], rounding: _Rounding, params: Json, ctx: AggContext, zone: tzinfo) -> list[int]:
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


# ------------------------------------------------------------------------------------- metrics


def _numbers(params: Json, hits: list[Hit], ctx: AggContext, agg: str) -> tuple[Field | None, list[float]]:
    found = _doc_value_field(params, ctx)
    if found is not None and found.kind not in ("number", "date", "boolean"):
        raise _unsupported(found, agg)
    values: list[float] = []
    for hit in hits:
        own = sortable_values(hit.doc, found) if found else []
        values.extend(float(value) for value in own or _missing_value(found, params, ctx))
    return found, values


def _value(found: Field | None, value: float | None, params: Json, name: str = "value") -> Json:
    out: Json = {name: value}
    if value is not None and found is not None and found.kind == "date":
        out[f"{name}_as_string"] = date_formatter(params.get("format"))(int(value))
    return out


def _metric(
    pick: Callable[[list[float]], float | None], agg: str
) -> Callable[[Json, list[Hit], AggContext, Json], Json]:
    def run(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
        found, values = _numbers(params, hits, ctx, agg)
        return _value(found, pick(values), params)

    return run


def _stats(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    found, values = _numbers(params, hits, ctx, "stats")
    out: Json = {"count": len(values)}
    for name, pick in (("min", min), ("max", max)):
        out |= _value(found, pick(values) if values else None, params, name)
    out["avg"] = sum(values) / len(values) if values else None
    out["sum"] = float(sum(values))
    return out


def _counted(params: Json, hits: list[Hit], ctx: AggContext) -> list[Any]:
    found = _doc_value_field(params, ctx)
    values: list[Any] = []
    for hit in hits:
        values.extend(
            (sortable_values(hit.doc, found) if found else []) or _missing_value(found, params, ctx)
        )
    return values


def _value_count(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    return {"value": len(_counted(params, hits, ctx))}


def _cardinality(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    return {"value": len(set(_counted(params, hits, ctx)))}


def _top_hits(params: Json, hits: list[Hit], ctx: AggContext, _: Json) -> Json:
    return ctx.top_hits(hits, params)


# ---------------------------------------------------------------------------- categorize_text

_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September"]
_MONTHS += ["October", "November", "December"]
_DATE_WORDS = frozenset([*_DAYS, *(d[:3] for d in _DAYS), *_MONTHS, *(m[:3] for m in _MONTHS), "GMT", "UTC"])
_MAX_TOKENS = 100
_REGEX_SPECIALS = re.compile(r"([\\^$.|?*+()\[\]{}])")
Weighted = list[tuple[str, int]]


def ml_standard_tokens(text: str) -> list[str]:
    """Tokens as Elasticsearch's `ml_standard` tokenizer cuts them.

    Letters and digits, with `_ . - @` inside a token, slashes anywhere (paths and URLs stay whole) and
    one colon after leading letters when a slash follows (`http://`). Tokens that are hex numbers or
    start with a digit are dropped, and `_ . - @ :` are trimmed from the end.
    """
    tokens, position = [], 0
    while position < len(text):
        token, position = _scan_token(text, position)
        if token:
            tokens.append(token)
    return tokens


def _scan_token(text: str, position: int) -> tuple[str, int]:
    chars: list[str] = []
    letters = slashes = 0
    colon = False
    first_backslash = -1
    non_hex = False
    while position < len(text):
        char = text[position]
        if not _token_char(char, chars, letters, colon, first_backslash):
            break
        if char == ":" and text[position + 1 : position + 2] not in ("/", "\\"):
            position += 1
            break
        chars.append(char)
        position += 1
        if char == ":":
            colon = True
        elif char in "/\\":
            slashes += 1
            if char == "\\" and first_backslash < 0:
                first_backslash = len(chars) - 1
        elif not colon and char.isalpha():
            letters += 1
        non_hex = non_hex or (char not in "0123456789abcdefABCDEF.-@:")
    if not chars:
        return "", position + 1
    if not non_hex or chars[0].isdigit() or len(chars) == slashes:
        return "", position
    return "".join(chars).rstrip("_.-@:"), position


def _token_char(char: str, chars: list[str], letters: int, colon: bool, first_backslash: int) -> bool:
    if char.isalnum() or char == "/":
        return True
    if chars and char in "_.-@":
        return True
    if chars and char == ":" and letters == len(chars):
        return True
    return char == "\\" and (not chars or (colon and letters == 1) or first_backslash == 0)


def categorization_tokens(text: str, filters: list[re.Pattern[str]]) -> Weighted:
    """The weighted tokens categorization compares: first line with letters, filters, tokens, weights."""
    line = next((line for line in text.splitlines() if any(c.isalpha() for c in line)), "")
    for pattern in filters:
        line = pattern.sub("", line)
    tokens = [token for token in ml_standard_tokens(line) if token not in _DATE_WORDS][:_MAX_TOKENS]
    weighted: Weighted = []
    run = 0
    for token in tokens:
        wordlike = (
            len(token) > 1 and token.isalpha() and (token.islower() or token.isupper() or token.istitle())
        )
        run = run + 1 if wordlike else 0
        verb = token.lower().endswith(("ed", "ing")) and len(token) > 4
        weight = ((6 if verb else 3) + (6 if run >= 3 else 0)) if wordlike else 1
        weighted.append((token, weight))
    return weighted


def _unique(tokens: Weighted) -> dict[str, int]:
    unique: dict[str, int] = {}
    for token, weight in tokens:
        unique[token] = unique.get(token, 0) + weight
    return unique


def _edit_distance(first: Weighted, second: Weighted) -> int:
    """Levenshtein distance where inserting or deleting a token costs its weight."""
    previous = [0]
    for _, weight in second:
        previous.append(previous[-1] + weight)
    for token, weight in first:
        current = [previous[0] + weight]
        for index, (other, other_weight) in enumerate(second):
            substitute = previous[index] + (0 if token == other else max(weight, other_weight))
            current.append(min(previous[index + 1] + weight, current[index] + other_weight, substitute))
        previous = current
    return previous[-1]


def _similarity(first: Weighted, first_weight: int, second: Weighted, second_weight: int) -> float:
    most = max(first_weight, second_weight)
    return 1.0 - _edit_distance(first, second) / most if most > 0 else 1.0


@dataclass
class _Category:
    base: Weighted
    base_length: int
    max_length: int
    common: dict[str, int]
    members: list[Hit]
    begin: int = 0
    end: int = 0
    base_weight: int = field(init=False)
    orig_weight: int = field(init=False)

    def __post_init__(self) -> None:
        self.base_weight = sum(weight for _, weight in self.base)
        self.orig_weight = sum(self.common.values())
        self.end = len(self.base)

    @property
    def common_weight(self) -> int:
        return sum(self.common.values())

    def max_matching_length(self) -> int:
        extended = min(self.max_length * 11 // 10, int(self.base_length * max(len(self.common) / 1.5, 2.0)))
        return max(self.max_length, extended)

    def ordered(self) -> list[str]:
        return [token for token, _ in self.base[self.begin : self.end] if token in self.common]

    def accepts(self, weight: int, length: int, unique: dict[str, int], tokens: Weighted) -> bool:
        """Would a search built from this category find the message (all common tokens, in order)?"""
        if (self.base_weight == 0) != (weight == 0) or self.max_matching_length() < length:
            return False
        if any(unique.get(token) != weight for token, weight in self.common.items()):
            return False
        position = 0
        for token in self.ordered():
            while position < len(tokens) and tokens[position][0] != token:
                position += 1
            if position >= len(tokens):
                return False
            position += 1
        return True

    def kept_weight(self, unique: dict[str, int]) -> int:
        return sum(weight for token, weight in self.common.items() if unique.get(token) == weight)

    def add(self, tokens: Weighted, unique: dict[str, int], length: int, hit: Hit) -> None:
        self.common = {token: weight for token, weight in self.common.items() if unique.get(token) == weight}
        self._narrow_order(tokens)
        self.max_length = max(self.max_length, length)
        self.members.append(hit)

    def _narrow_order(self, tokens: Weighted) -> None:
        """Keep the heaviest run of base tokens whose common tokens the new message has in the same order."""
        while self.end > self.begin and self.base[self.end - 1][0] not in self.common:
            self.end -= 1
        while self.begin < self.end and self.base[self.begin][0] not in self.common:
            self.begin += 1
        best_weight, best = 0, (self.end, self.end)
        for start in range(self.begin, self.end):
            position, weight, stop, complete = 0, 0, self.end, True
            for index in range(start, self.end):
                token, base_weight = self.base[index]
                if token not in self.common:
                    continue
                while position < len(tokens) and tokens[position][0] != token:
                    position += 1
                if position >= len(tokens):
                    stop, complete = index, False
                    break
                weight += tokens[position][1] + base_weight
            if weight > best_weight:
                best_weight, best = weight, (start, stop)
            if complete:
                break
        self.begin, self.end = best


class _Categorizer:
    """Elasticsearch's token-list categorizer: join the first close-enough category, else start one."""

    def __init__(self, threshold: float) -> None:
        self.lower = threshold
        self.upper = (1.0 + threshold) / 2.0
        self.categories: list[_Category] = []

    def add(self, tokens: Weighted, length: int, hit: Hit) -> None:
        weight, unique = sum(w for _, w in tokens), _unique(tokens)
        low, high = _weight_window(weight, self.lower)
        best, best_similarity = -1, self.lower
        for index, category in enumerate(self.categories):
            accepted = category.accepts(weight, length, unique, tokens)
            if not accepted and not self._plausible(category, low, high, unique):
                continue
            similarity = _similarity(tokens, weight, category.base, category.base_weight)
            if accepted or similarity > self.upper:
                self._join(index, tokens, unique, length, hit)
                return
            if similarity > best_similarity:
                best, best_similarity = index, similarity
                low, high = _weight_window(weight, similarity)
        if best >= 0:
            self._join(best, tokens, unique, length, hit)
        else:
            self.categories.append(_Category(list(tokens), length, length, dict(unique), [hit]))

    def _plausible(self, category: _Category, low: int, high: int, unique: dict[str, int]) -> bool:
        if not low <= category.base_weight <= high:
            return False
        return category.kept_weight(unique) / category.orig_weight >= self.lower

    def _join(self, index: int, tokens: Weighted, unique: dict[str, int], length: int, hit: Hit) -> None:
        category = self.categories[index]
        category.add(tokens, unique, length, hit)
        target = index
        while target > 0 and len(self.categories[target - 1].members) < len(category.members):
            target -= 1
        self.categories[index], self.categories[target] = self.categories[target], category


def _weight_window(weight: int, threshold: float) -> tuple[int, int]:
    """Base weights a category can have and still be more than `threshold` similar."""
    if weight == 0:
        return 0, 0
    return math.floor(weight * threshold + 1e-6) + 1, math.ceil(weight / threshold - 1e-6) - 1


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
    categorizer = _Categorizer(min(max(threshold / 100.0, 0.01), 0.99))
    for hit in hits:
        for value in hit.doc.values.get(found.name, ()):
            tokens = categorization_tokens(str(value), filters)
            if tokens:
                categorizer.add(tokens, len(str(value)), hit)
    size, min_count = int(params.get("size", 10)), int(params.get("min_doc_count", 1))
    chosen = [c for c in categorizer.categories[:size] if len(c.members) >= min_count]
    chosen.sort(key=lambda c: (-len(c.members), [token.encode() for token in _key_tokens(c)]))
    return {"buckets": [_category_bucket(category, subs, ctx) for category in chosen]}


def _key_tokens(category: _Category) -> list[str]:
    return [token for token, _ in category.base if token in category.common]


def _category_bucket(category: _Category, subs: Json, ctx: AggContext) -> Json:
    ordered = [_REGEX_SPECIALS.sub(r"\\\1", token) for token in category.ordered()]
    regex = ".*?" + ".+?".join(ordered) + ".*?" if ordered else ".*"
    head = {
        "key": " ".join(_key_tokens(category)),
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
    "min": _Agg(_metric(lambda values: min(values) if values else None, "min"), _METRIC_KEYS, False),
    "max": _Agg(_metric(lambda values: max(values) if values else None, "max"), _METRIC_KEYS, False),
    "avg": _Agg(
        _metric(lambda values: sum(values) / len(values) if values else None, "avg"), _METRIC_KEYS, False
    ),
    "sum": _Agg(_metric(lambda values: float(sum(values)), "sum"), _METRIC_KEYS, False),
    "stats": _Agg(_stats, _METRIC_KEYS, False),
    "value_count": _Agg(_value_count, _METRIC_KEYS, False),
    "cardinality": _Agg(_cardinality, _METRIC_KEYS | {"precision_threshold"}, False),
    "top_hits": _Agg(
        _top_hits,
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
