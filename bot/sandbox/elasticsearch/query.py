"""The query DSL of the Elasticsearch stand-in: a query compiled into a function scoring a document.

Kept apart from the HTTP layer so that aggregations reuse exactly the query matching that searches
use; this holds the dispatch and the compound queries (bool, constant_score), the leaf queries on
single fields live in `leaf_queries`. Scores are simple and deterministic (matched terms times boost),
not BM25: tests assert on which documents match and in what sorted order, not on relevance numbers.
"""

from __future__ import annotations

from typing import Any

from bot.sandbox.elasticsearch.errors import Json, parsing_error
from bot.sandbox.elasticsearch.leaf_queries import (
    LEAF_QUERIES,
    Builder,
    Matcher,
    QueryContext,
    boost_of,
    match_all,
    minimum_should_match,
)
from bot.sandbox.elasticsearch.mapping import Document

MATCH_ALL: Json = {"match_all": {}}


def compile_query(query: Any, ctx: QueryContext) -> Matcher:
    """A function giving a document's score, or None when the document does not match."""
    if not isinstance(query, dict) or not query:
        raise parsing_error("query malformed, empty clause found" if query == {} else "query malformed")
    if len(query) > 1:
        raise parsing_error(
            f"[{next(iter(query))}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]"
        )
    ((kind, spec),) = query.items()
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise parsing_error(f"unknown query [{kind}]")
    return builder(spec, ctx)


def _constant_score(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict) or "filter" not in spec:
        raise parsing_error("[constant_score] requires a 'filter' element")
    inner = compile_query(spec["filter"], ctx)
    boost = boost_of(spec)
    return lambda doc: boost if inner(doc) is not None else None


_BOOL_KEYS = {
    "must",
    "filter",
    "should",
    "must_not",
    "minimum_should_match",
    "boost",
    "_name",
    "adjust_pure_negative",
}


def _bool(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict):
        raise parsing_error("[bool] query malformed, no start_object after query name")
    unknown = set(spec) - _BOOL_KEYS
    if unknown:
        raise parsing_error(f"[bool] query does not support [{sorted(unknown)[0]}]")
    clauses = {
        key: [compile_query(q, ctx) for q in _as_list(spec.get(key))]
        for key in ("must", "filter", "should", "must_not")
    }
    must, filters, should, must_not = (
        clauses["must"],
        clauses["filter"],
        clauses["should"],
        clauses["must_not"],
    )
    if not any(clauses.values()):
        return match_all(spec, ctx)
    default = 0 if must or filters or not should else 1
    required = minimum_should_match(spec.get("minimum_should_match"), len(should), default)
    boost = boost_of(spec)

    def match(doc: Document) -> float | None:
        if any(f(doc) is None for f in filters) or any(n(doc) is not None for n in must_not):
            return None
        score = 0.0
        for clause in must:
            part = clause(doc)
            if part is None:
                return None
            score += part
        matched = [part for part in (clause(doc) for clause in should) if part is not None]
        return (score + sum(matched)) * boost if len(matched) >= required else None

    return match


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


_BUILDERS: dict[str, Builder] = {
    "bool": _bool,
    "constant_score": _constant_score,
    **LEAF_QUERIES,
}
