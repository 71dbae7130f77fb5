"""Search execution of the Elasticsearch stand-in: one `_search` over a set of indices.

`Search` matches the query per index (mappings differ between indices), applies `min_score` and
`post_filter`, runs the aggregations over the matches, sorts (`sort`, `search_after`, multi-value
modes), pages within the result window, filters `_source` and renders hits and totals. Kept apart
from the HTTP layer, which only resolves indices, records requests and turns errors into responses.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase
from typing import Any

from bot.sandbox.elasticsearch.agg_context import AggContext
from bot.sandbox.elasticsearch.aggs import run_aggregations
from bot.sandbox.elasticsearch.errors import EsError, Json, fielddata_error, parsing_error, shard_error
from bot.sandbox.elasticsearch.index import Index
from bot.sandbox.elasticsearch.leaf_queries import Matcher, QueryContext
from bot.sandbox.elasticsearch.mapping import Document, Field, Hit, resolve_field, sortable_values
from bot.sandbox.elasticsearch.query import MATCH_ALL, compile_query

MAX_RESULT_WINDOW = 10_000
_SEARCH_KEYS = {"query", "size", "from", "sort", "_source", "track_total_hits", "aggs", "aggregations"}
_SEARCH_KEYS |= {"search_after", "min_score", "post_filter", "track_scores", "version", "seq_no_primary_term"}
_IGNORED_KEYS = {"timeout", "stats", "request_cache"}
_UNSUPPORTED_KEYS = {
    "highlight",
    "collapse",
    "rescore",
    "knn",
    "pit",
    "suggest",
    "runtime_mappings",
    "fields",
}
_UNSUPPORTED_KEYS |= {"docvalue_fields", "stored_fields", "script_fields", "retriever", "slice", "explain"}
_UNSUPPORTED_KEYS |= {"profile", "terminate_after", "indices_boost", "rank", "ext"}


# ------------------------------------------------------------------------------------------ search


@dataclass(frozen=True)
class _SortKey:
    field: str
    descending: bool
    missing_first: bool
    mode: str | None


_BY_SCORE = _SortKey("_score", True, False, None)


@dataclass(frozen=True)
class _SourceFilter:
    enabled: bool
    includes: list[str]
    excludes: list[str]


class Search:
    """One search over a set of indices: matches the query per index, renders hits and aggregations."""

    def __init__(
        self, indices: list[Index], now: datetime, *, lost: Callable[[Document], bool] | None = None
    ) -> None:
        self.indices = indices
        self.now = now
        self._lost = lost  # documents on shards that failed: left out of the answer
        self._mappings = [index.mapping for index in indices]
        self._by_name = {index.name: index for index in indices}
        self._matchers: dict[
            tuple[int, str], tuple[Any, Matcher]
        ] = {}  # the query is kept so its id stays unique

    def field(self, name: str) -> Field | None:
        return resolve_field(name, self._mappings)

    def matcher(self, query: Any, index: str) -> Matcher:
        """The compiled query for one index (mappings differ between indices), compiled once per search."""
        key = (id(query), index)
        if key not in self._matchers:
            context = QueryContext(self._by_name[index].mapping, index, self.now)
            self._matchers[key] = (query, compile_query(query, context))
        return self._matchers[key][1]

    def matching(self, query: Any) -> list[Hit]:
        hits = []
        for index in self.indices:
            matcher = self.matcher(query, index.name)
            for doc in index.docs.values():
                if self._lost is not None and self._lost(doc):
                    continue
                score = matcher(doc)
                if score is not None:
                    hits.append(Hit(doc, score))
        return hits

    def run(self, spec: Json, params: Mapping[str, str]) -> Json:
        started = time.perf_counter()
        _check_keys(spec)
        hits = self.matching(spec.get("query", MATCH_ALL))
        if spec.get("min_score") is not None:
            hits = [hit for hit in hits if hit.score >= float(spec["min_score"])]
        aggs_spec = spec.get("aggs", spec.get("aggregations"))
        aggregations = run_aggregations(aggs_spec, hits, self._agg_context()) if aggs_spec else None
        if spec.get("post_filter") is not None:
            hits = [
                hit for hit in hits if self.matcher(spec["post_filter"], hit.doc.index)(hit.doc) is not None
            ]
        start, size = _int(spec, params, "from", 0), _int(spec, params, "size", 10)
        if start + size > MAX_RESULT_WINDOW:
            reason = f"Result window is too large, from + size must be less than or equal to: [{MAX_RESULT_WINDOW}] "
            raise shard_error("illegal_argument_exception", reason + f"but was [{start + size}].")
        section = self.hits_section(hits, spec.get("sort", _param_sort(params)), start, size, spec, params)
        total = _total(len(hits), spec.get("track_total_hits", _param_bool(params, "track_total_hits")))
        if total is not None:
            section = {
                "total": total if params.get("rest_total_hits_as_int") != "true" else total["value"],
                **section,
            }
        shards = {"total": len(self.indices), "successful": len(self.indices), "skipped": 0, "failed": 0}
        took = int((time.perf_counter() - started) * 1000)
        response: Json = {"took": took, "timed_out": False, "_shards": shards, "hits": section}
        if aggregations is not None:
            response["aggregations"] = aggregations
        return response

    def _agg_context(self) -> AggContext:
        return AggContext(
            field=self.field,
            index=self.indices[0].name if self.indices else None,
            now=self.now,
            matches=lambda query, doc: self.matcher(query, doc.index)(doc) is not None,
            top_hits=self.top_hits,
            all_docs=lambda: (doc for index in self.indices for doc in index.docs.values()),
        )

    def top_hits(self, hits: list[Hit], params: Json) -> Json:
        section = self.hits_section(
            hits, params.get("sort"), int(params.get("from", 0)), int(params.get("size", 3)), params, {}
        )
        return {"hits": {"total": {"value": len(hits), "relation": "eq"}, **section}}

    def hits_section(
        self, hits: list[Hit], sort_spec: Any, start: int, size: int, spec: Json, params: Mapping[str, str]
    ) -> Json:
        """`max_score` and one page of rendered hits, in sort order (score, then index order, by default)."""
        if size < 0 or start < 0:
            raise EsError(
                400, "illegal_argument_exception", f"[size] parameter cannot be negative, found [{size}]"
            )
        keys = self._sort_keys(sort_spec)
        order = keys or [_BY_SCORE]
        rows: list[tuple[Hit, list[Any]]] = [
            (hit, [self._sort_value(key, hit) for key in order]) for hit in hits
        ]

        def by_sort(first: tuple[Hit, list[Any]], second: tuple[Hit, list[Any]]) -> int:
            return _compare(first[1], second[1], order)

        rows.sort(key=functools.cmp_to_key(by_sort))
        after = spec.get("search_after")
        if after is not None:
            if len(after) != len(order):
                raise EsError(
                    400,
                    "illegal_argument_exception",
                    f"search_after has {len(after)} value(s) but sort has {len(order)}.",
                )
            rows = [row for row in rows if _compare(row[1], list(after), order) > 0]
        scored = not keys or bool(spec.get("track_scores")) or any(key.field == "_score" for key in keys)
        max_score = max((hit.score for hit in hits), default=None) if scored else None
        source = source_filter(spec.get("_source"), params)
        page = [
            self._render(hit, values if keys else None, scored, source, spec)
            for hit, values in rows[start : start + size]
        ]
        return {"max_score": max_score, "hits": page}

    def _sort_keys(self, spec: Any) -> list[_SortKey]:
        keys = []
        for item in [] if spec is None else spec if isinstance(spec, list) else [spec]:
            name, options = _sort_item(item)
            order = options.get("order", "desc" if name == "_score" else "asc")
            if order not in ("asc", "desc"):
                raise parsing_error(f"[sort] unknown order [{order}], expected [asc] or [desc]")
            if name not in ("_score", "_doc"):
                self._check_sortable(name, options)
            missing_first = options.get("missing", "_last") == "_first"
            keys.append(_SortKey(name, order == "desc", missing_first, options.get("mode")))
        return keys

    def _check_sortable(self, name: str, options: Json) -> None:
        found = self.field(name)
        if found is None and "unmapped_type" not in options and self.indices:
            raise shard_error("query_shard_exception", f"No mapping found for [{name}] in order to sort on")
        if found is not None and found.kind == "text" and not found.fielddata:
            raise fielddata_error(name, self.indices[0].name if self.indices else None)

    def _sort_value(self, key: _SortKey, hit: Hit) -> Any:
        if key.field == "_score":
            return hit.score
        if key.field == "_doc":
            return hit.doc.seq_no
        found = self._by_name[hit.doc.index].mapping.fields.get(key.field)
        values = sortable_values(hit.doc, found) if found else []
        if not values:
            return None
        picked = _pick(values, key.mode or ("max" if key.descending else "min"))
        return int(picked) if isinstance(picked, bool) else picked

    def _render(
        self, hit: Hit, sort: list[Any] | None, scored: bool, source: _SourceFilter, spec: Json
    ) -> Json:
        doc = hit.doc
        out: Json = {"_index": doc.index, "_id": doc.id}
        if spec.get("version"):
            out["_version"] = doc.version
        if spec.get("seq_no_primary_term"):
            out |= {"_seq_no": doc.seq_no, "_primary_term": 1}
        out["_score"] = hit.score if scored else None
        if source.enabled:
            out["_source"] = filter_source(doc.source, source.includes, source.excludes)
        if sort is not None:
            out["sort"] = sort
        return out


def _pick(values: list[Any], mode: str) -> Any:
    """The sort value of a multi-valued field under `mode` (min, max, sum, avg, median)."""
    if mode in ("min", "max"):
        return min(values) if mode == "min" else max(values)
    if mode == "sum":
        return sum(values)
    if mode == "median":
        ordered = sorted(values)
        return ordered[len(ordered) // 2]
    return sum(values) / len(values)


def _check_keys(spec: Json) -> None:
    for key, value in spec.items():
        if key in _SEARCH_KEYS or key in _IGNORED_KEYS:
            continue
        if key in _UNSUPPORTED_KEYS:
            raise EsError(
                400, "illegal_argument_exception", f"[{key}] is not supported by the Elasticsearch stand-in"
            )
        token = (
            "START_OBJECT"
            if isinstance(value, dict)
            else "START_ARRAY"
            if isinstance(value, list)
            else "VALUE"
        )
        raise parsing_error(f"Unknown key for a {token} in [{key}].")


def _sort_item(item: Any) -> tuple[str, Json]:
    if isinstance(item, str):
        return item, {}
    if isinstance(item, dict) and len(item) == 1:
        ((name, options),) = item.items()
        return name, {"order": options} if isinstance(options, str) else dict(options)
    raise parsing_error(f"malformed sort [{item}]")


def _param_sort(params: Mapping[str, str]) -> list[Any] | None:
    """The `sort=field:desc,other` query-string form the client uses for `field:order` strings."""
    text = params.get("sort")
    if not text:
        return None
    return [{name: order or "asc"} for name, _, order in (part.partition(":") for part in text.split(","))]


def _compare(first: list[Any], second: list[Any], keys: list[_SortKey]) -> int:
    for left, right, key in zip(first, second, keys, strict=True):
        if left == right:
            continue
        if left is None or right is None:
            return (-1 if left is None else 1) * (-1 if key.missing_first else 1)
        result = -1 if left < right else 1
        return -result if key.descending else result
    return 0


def source_filter(spec: Any, params: Mapping[str, str]) -> _SourceFilter:
    """`_source` as a bool, a field list or `{includes, excludes}`, plus the `_source_includes` params."""
    if spec is None and params.get("_source") is not None:
        text = params["_source"]
        spec = text == "true" if text in ("true", "false") else text.split(",")
    includes: list[str] = []
    excludes: list[str] = []
    enabled = spec if isinstance(spec, bool) else True
    if isinstance(spec, str | list):
        includes = [spec] if isinstance(spec, str) else list(spec)
    elif isinstance(spec, dict):
        includes = _as_list(spec.get("includes", spec.get("include")))
        excludes = _as_list(spec.get("excludes", spec.get("exclude")))
    for prefix in ("_source", "source"):
        includes = params[f"{prefix}_includes"].split(",") if params.get(f"{prefix}_includes") else includes
        excludes = params[f"{prefix}_excludes"].split(",") if params.get(f"{prefix}_excludes") else excludes
    return _SourceFilter(enabled, includes, excludes)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def filter_source(source: Json, includes: list[str], excludes: list[str]) -> Json:
    """`_source` limited to paths matching `includes` (wildcards; an object includes its children), minus `excludes`."""
    if not includes and not excludes:
        return source

    def wanted(path: str) -> bool:
        parts = path.split(".")
        ancestors = [".".join(parts[: i + 1]) for i in range(len(parts))]
        if any(fnmatchcase(a, p) for a in ancestors for p in excludes):
            return False
        return not includes or any(fnmatchcase(a, p) for a in ancestors for p in includes)

    def walk(value: Any, path: str) -> tuple[bool, Any]:
        if isinstance(value, dict):
            kept = {}
            for key, item in value.items():
                keep, filtered = walk(item, f"{path}.{key}" if path else key)
                if keep:
                    kept[key] = filtered
            return bool(kept), kept
        if isinstance(value, list) and any(isinstance(item, dict) for item in value):
            items = [filtered for keep, filtered in (walk(item, path) for item in value) if keep]
            return bool(items), items
        return wanted(path), value

    return dict(walk(source, "")[1])


def _total(count: int, track: Any) -> Json | None:
    if track is False:
        return None
    limit = None if track is True else MAX_RESULT_WINDOW if track is None else int(track)
    if limit is not None and count > limit:
        return {"value": limit, "relation": "gte"}
    return {"value": count, "relation": "eq"}


def _param_bool(params: Mapping[str, str], name: str) -> Any:
    value = params.get(name)
    return {"true": True, "false": False}.get(value, value) if value is not None else None


def _int(spec: Json, params: Mapping[str, str], name: str, default: int) -> int:
    value = spec.get(name, params.get(name, default))
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise parsing_error(f"[{name}] must be an integer, got [{value}]") from exc
