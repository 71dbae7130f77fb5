"""A local stand-in for the Elasticsearch REST API, reached through the official `elasticsearch` client.

The bot's log tools must be testable without a cluster: this serves the endpoints they use (index,
bulk, search, count, index admin) with Elasticsearch's response and error shapes, the headers the
9.x client insists on, ECS-style dynamic mapping, the common query DSL and the aggregations the
tools run, `categorize_text` included. Documents are searchable as soon as they are written.

    standin = ElasticsearchStandIn(now=lambda: as_of)
    standin.index_documents("logs-inference", docs)
    with ServerThread(standin.app) as server, Elasticsearch(server.url) as es:
        es.search(index="logs-*", query={"term": {"log.level": "error"}}, aggs={...})
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import json
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.sandbox.es_aggs import AggContext, run_aggregations
from bot.sandbox.es_query import (
    MATCH_ALL,
    NODE_ID,
    Document,
    EsError,
    Field,
    Hit,
    IndexMapping,
    Json,
    Matcher,
    QueryContext,
    build_document,
    compile_query,
    fielddata_error,
    index_not_found,
    parsing_error,
    resolve_field,
    shard_error,
    sortable_values,
)

VERSION = "9.1.0"
COMPAT_JSON = "application/vnd.elasticsearch+json;compatible-with=9"
MAX_RESULT_WINDOW = 10_000
SHARDS_WRITE = {"total": 2, "successful": 1, "failed": 0}
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
_INVALID_NAME_CHARS = set('\\/*?"<>| ,#:')


class RecordedSearch(dict[str, Any]):
    """One `_search`/`_count` request body as received; `index`, `endpoint` and `params` say where it went."""

    def __init__(self, body: Json, *, index: str, endpoint: str, params: Mapping[str, str]) -> None:
        super().__init__(body)
        self.index = index
        self.endpoint = endpoint
        self.params = dict(params)


class _Index:
    """One index: its mapping and its documents in the order they were last written."""

    def __init__(self, name: str) -> None:
        _check_index_name(name)
        self.name = name
        self.uuid = _stable_id(f"index/{name}")[:22]
        self.mapping = IndexMapping()
        self.docs: dict[str, Document] = {}
        self._next_seq = 0

    def write(self, doc_id: str | None, source: Any, *, create_only: bool) -> tuple[Document, bool]:
        """Store `source` under `doc_id` (generated when None); True in the result when it is new."""
        if not isinstance(source, dict):
            raise EsError(
                400, "mapper_parsing_exception", "failed to parse, document is empty or not an object"
            )
        key = doc_id if doc_id is not None else _stable_id(f"{self.name}/{self._next_seq}")
        previous = self.docs.get(key)
        if previous is not None and create_only:
            reason = (
                f"[{key}]: version conflict, document already exists (current version [{previous.version}])"
            )
            details = {"index_uuid": self.uuid, "shard": "0", "index": self.name}
            raise EsError(409, "version_conflict_engine_exception", reason, details=details)
        version = previous.version + 1 if previous else 1
        doc = build_document(self.name, self.mapping, key, copy.deepcopy(source), version, self._next_seq)
        self._next_seq += 1
        self.docs.pop(key, None)
        self.docs[key] = doc
        return doc, previous is None

    def delete(self, doc_id: str) -> Document | None:
        return self.docs.pop(doc_id, None)

    def result(self, doc: Document, result: str) -> Json:
        return {
            "_index": self.name,
            "_id": doc.id,
            "_version": doc.version,
            "result": result,
            "_shards": SHARDS_WRITE,
            "_seq_no": doc.seq_no,
            "_primary_term": 1,
        }


def _stable_id(seed: str) -> str:
    """A 20-character id shaped like Elasticsearch's, but the same on every run."""
    return base64.urlsafe_b64encode(hashlib.sha1(seed.encode()).digest()).decode()[:20]


def _check_index_name(name: str) -> None:
    problem = None
    if name != name.lower():
        problem = "must be lowercase"
    elif name[:1] in ("_", "-", "+"):
        problem = "must not start with '_', '-', or '+'"
    elif set(name) & _INVALID_NAME_CHARS or not name:
        problem = 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?, #, :]'
    if problem:
        details = {"index_uuid": "_na_", "index": name}
        raise EsError(
            400, "invalid_index_name_exception", f"Invalid index name [{name}], {problem}", details=details
        )


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


class _Search:
    """One search over a set of indices: matches the query per index, renders hits and aggregations."""

    def __init__(self, indices: list[_Index], now: datetime) -> None:
        self.indices = indices
        self.now = now
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
        source = _source_filter(spec.get("_source"), params)
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


def _source_filter(spec: Any, params: Mapping[str, str]) -> _SourceFilter:
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


# ------------------------------------------------------------------------------------------ server

Handler = Callable[[Request, bytes], tuple[int, Json | None]]


class ElasticsearchStandIn:
    """The stand-in: `app` serves the REST API; `requests` records every search and count body."""

    def __init__(self, *, now: Callable[[], datetime] | None = None) -> None:
        self._clock = now or (lambda: datetime.now(UTC))
        self._lock = threading.RLock()
        self._indices: dict[str, _Index] = {}
        self.requests: list[RecordedSearch] = []
        self.app = Starlette(routes=self._routes())

    def _now(self) -> datetime:
        moment = self._clock()
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    def index_documents(self, index: str, docs: Iterable[Mapping[str, Any]]) -> None:
        """Load parsed documents into `index` (created when missing), as a bulk request without ids would."""
        with self._lock:
            target = self._for_write(index)
            for doc in docs:
                target.write(None, dict(doc), create_only=False)

    def _routes(self) -> list[Route]:
        read, write = ["GET", "POST"], ["POST", "PUT"]
        table: list[tuple[str, Handler, list[str]]] = [
            ("/", self._info, ["GET", "HEAD"]),
            ("/_bulk", self._bulk, write),
            ("/_search", self._search, read),
            ("/_count", self._count, read),
            ("/_refresh", self._refresh, read),
            ("/{index}/_bulk", self._bulk, write),
            ("/{index}/_search", self._search, read),
            ("/{index}/_count", self._count, read),
            ("/{index}/_refresh", self._refresh, read),
            ("/{index}/_mapping", self._mapping, ["GET"]),
            ("/{index}/_doc", self._post_doc, ["POST"]),
            ("/{index}/_doc/{id}", self._doc, ["GET", "HEAD", "PUT", "POST", "DELETE"]),
            ("/{index}/_create/{id}", self._create_doc, write),
            ("/{index}", self._index_admin, ["GET", "HEAD", "PUT", "DELETE"]),
            ("/{rest:path}", self._no_handler, ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]),
        ]
        return [Route(path, self._endpoint(handler), methods=methods) for path, handler, methods in table]

    def _endpoint(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            body = await request.body()
            try:
                with self._lock:
                    status, payload = handler(request, body)
            except EsError as error:
                status, payload = error.status, error.body()
            except Exception as exc:  # a stand-in bug: answer like a cluster would, with the trace
                cause = {"type": "exception", "reason": f"{type(exc).__name__}: {exc}"}
                payload = {"error": {**cause, "stack_trace": traceback.format_exc()}, "status": 500}
                status = 500
            return _respond(request, status, None if request.method == "HEAD" else payload)

        return endpoint

    # -- cluster and index administration

    def _info(self, _request: Request, _body: bytes) -> tuple[int, Json]:
        version = {
            "number": VERSION,
            "build_flavor": "default",
            "build_type": "docker",
            "build_hash": "standin",
            "build_date": "2025-07-01T00:00:00.000Z",
            "build_snapshot": False,
            "lucene_version": "10.2.2",
            "minimum_wire_compatibility_version": "8.19.0",
            "minimum_index_compatibility_version": "8.0.0",
        }
        cluster = {"name": "standin-0", "cluster_name": "incident-bot-sandbox", "cluster_uuid": NODE_ID}
        return 200, {**cluster, "version": version, "tagline": "You Know, for Search"}

    def _index_admin(self, request: Request, body: bytes) -> tuple[int, Json | None]:
        name = request.path_params["index"]
        if request.method == "PUT":
            return self._create_index(name, _json_body(body))
        if request.method == "HEAD":
            try:
                self._resolve(name, {"allow_no_indices": "false"})
            except EsError:
                return 404, None
            return 200, None
        indices = self._resolve(name, request.query_params)
        if request.method == "DELETE":
            for index in indices:
                del self._indices[index.name]
            return 200, {"acknowledged": True}
        settings = {
            "index": {"number_of_shards": "1", "number_of_replicas": "1", "uuid": "", "provided_name": ""}
        }
        return 200, {
            index.name: {"aliases": {}, "mappings": index.mapping.to_json(), "settings": settings}
            for index in indices
        }

    def _create_index(self, name: str, spec: Json) -> tuple[int, Json]:
        existing = self._indices.get(name)
        if existing is not None:
            details = {"index_uuid": existing.uuid, "index": name}
            reason = f"index [{name}/{existing.uuid}] already exists"
            raise EsError(400, "resource_already_exists_exception", reason, details=details)
        index = _Index(name)
        mappings = spec.get("mappings") or {}
        index.mapping.add_properties(mappings.get("properties", {}))
        self._indices[name] = index
        return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}

    def _mapping(self, request: Request, _body: bytes) -> tuple[int, Json]:
        indices = self._resolve(request.path_params["index"], request.query_params)
        return 200, {index.name: {"mappings": index.mapping.to_json()} for index in indices}

    def _refresh(self, request: Request, _body: bytes) -> tuple[int, Json]:
        indices = self._resolve(request.path_params.get("index"), request.query_params)
        return 200, {"_shards": {"total": 2 * len(indices), "successful": len(indices), "failed": 0}}

    def _for_write(self, name: str) -> _Index:
        if name not in self._indices:
            self._indices[name] = _Index(name)
        return self._indices[name]

    def _resolve(self, expression: str | None, params: Mapping[str, str]) -> list[_Index]:
        """Indices named by a comma list of names, wildcards (`logs-*`) and exclusions (`-logs-old`)."""
        ignore_unavailable = params.get("ignore_unavailable") == "true"
        allow_no_indices = params.get("allow_no_indices", "true") == "true"
        names: dict[str, None] = {}
        for part in (expression or "_all").split(","):
            if part in ("_all", "*"):
                names |= dict.fromkeys(sorted(self._indices))
            elif part.startswith("-") and names:
                names = {name: None for name in names if not fnmatchcase(name, part[1:])}
            elif "*" in part:
                matched = [name for name in sorted(self._indices) if fnmatchcase(name, part)]
                if not matched and not allow_no_indices:
                    raise index_not_found(part)
                names |= dict.fromkeys(matched)
            elif part in self._indices:
                names[part] = None
            elif not ignore_unavailable:
                raise index_not_found(part)
        if not names and not allow_no_indices:
            raise index_not_found(expression or "_all")
        return [self._indices[name] for name in names]

    # -- documents

    def _post_doc(self, request: Request, body: bytes) -> tuple[int, Json]:
        index = self._for_write(request.path_params["index"])
        doc, _ = index.write(None, _json_body(body), create_only=False)
        return 201, _with_refresh(index.result(doc, "created"), request)

    def _create_doc(self, request: Request, body: bytes) -> tuple[int, Json]:
        index = self._for_write(request.path_params["index"])
        doc, _ = index.write(request.path_params["id"], _json_body(body), create_only=True)
        return 201, _with_refresh(index.result(doc, "created"), request)

    def _doc(self, request: Request, body: bytes) -> tuple[int, Json | None]:
        name, doc_id = request.path_params["index"], request.path_params["id"]
        if request.method in ("PUT", "POST"):
            index = self._for_write(name)
            create_only = request.query_params.get("op_type") == "create"
            written, created = index.write(doc_id, _json_body(body), create_only=create_only)
            result = index.result(written, "created" if created else "updated")
            return (201 if created else 200), _with_refresh(result, request)
        found = self._indices.get(name)
        if found is None:
            raise index_not_found(name)
        if request.method == "DELETE":
            deleted = found.delete(doc_id)
            if deleted is None:
                return 404, {"_index": name, "_id": doc_id, "result": "not_found", "_shards": SHARDS_WRITE}
            return 200, found.result(deleted, "deleted") | {"_version": deleted.version + 1}
        doc = found.docs.get(doc_id)
        if doc is None:
            return 404, {"_index": name, "_id": doc_id, "found": False}
        source = _source_filter(None, request.query_params)
        head = {
            "_index": name,
            "_id": doc_id,
            "_version": doc.version,
            "_seq_no": doc.seq_no,
            "_primary_term": 1,
        }
        filtered = filter_source(doc.source, source.includes, source.excludes)
        return 200, {**head, "found": True, **({"_source": filtered} if source.enabled else {})}

    def _bulk(self, request: Request, body: bytes) -> tuple[int, Json]:
        started = time.perf_counter()
        default_index = request.path_params.get("index")
        lines = [line for line in body.split(b"\n") if line.strip()]
        items, position = [], 0
        while position < len(lines):
            action, meta = _bulk_action(lines[position], position)
            position += 1
            source = None
            if action != "delete":
                if position >= len(lines):
                    raise EsError(
                        400, "illegal_argument_exception", f"Missing source for the [{action}] action"
                    )
                source = _bulk_line(lines[position], position)
                position += 1
            index_name = meta.get("_index", default_index)
            if not index_name:
                raise EsError(
                    400, "action_request_validation_exception", "Validation Failed: 1: index is missing;"
                )
            doc_id = None if meta.get("_id") is None else str(meta["_id"])
            items.append({action: self._bulk_item(action, index_name, doc_id, source)})
        errors = any("error" in item for result in items for item in result.values())
        return 200, {"errors": errors, "took": int((time.perf_counter() - started) * 1000), "items": items}

    def _bulk_item(self, action: str, name: str, doc_id: str | None, source: Any) -> Json:
        try:
            if action == "update":
                raise EsError(
                    400, "illegal_argument_exception", "the stand-in does not support bulk [update]"
                )
            index = self._for_write(name)
            if action == "delete":
                deleted = index.delete(doc_id or "")
                if deleted is None:
                    return {
                        "_index": name,
                        "_id": doc_id,
                        "result": "not_found",
                        "_shards": SHARDS_WRITE,
                        "status": 404,
                    }
                return index.result(deleted, "deleted") | {"status": 200}
            doc, created = index.write(doc_id, source, create_only=action == "create")
            return index.result(doc, "created" if created else "updated") | {
                "status": 201 if created else 200
            }
        except EsError as error:
            return {"_index": name, "_id": doc_id, "status": error.status, "error": error.cause()}

    # -- search

    def _search(self, request: Request, body: bytes) -> tuple[int, Json]:
        spec = self._record(request, body, "_search")
        search = _Search(self._resolve(request.path_params.get("index"), request.query_params), self._now())
        try:
            return 200, search.run(spec, request.query_params)
        except EsError as error:
            raise _located(error, search) from None

    def _count(self, request: Request, body: bytes) -> tuple[int, Json]:
        spec = self._record(request, body, "_count")
        unknown = sorted(set(spec) - {"query"})
        if unknown:
            raise parsing_error(f"request does not support [{unknown[0]}]")
        search = _Search(self._resolve(request.path_params.get("index"), request.query_params), self._now())
        try:
            count = len(search.matching(spec.get("query", MATCH_ALL)))
        except EsError as error:
            raise _located(error, search) from None
        shards = {"total": len(search.indices), "successful": len(search.indices), "skipped": 0, "failed": 0}
        return 200, {"count": count, "_shards": shards}

    def _record(self, request: Request, body: bytes, endpoint: str) -> Json:
        spec = _json_body(body)
        index = request.path_params.get("index", "_all")
        self.requests.append(
            RecordedSearch(spec, index=index, endpoint=endpoint, params=request.query_params)
        )
        return spec

    def _no_handler(self, request: Request, _body: bytes) -> tuple[int, Json]:
        return 400, {
            "error": f"no handler found for uri [{request.url.path}] and method [{request.method}]",
            "status": 400,
        }


def _located(error: EsError, search: _Search) -> EsError:
    if error.shard_level and error.index is None and search.indices:
        error.index = search.indices[0].name
    return error


def _with_refresh(result: Json, request: Request) -> Json:
    return result | {"forced_refresh": True} if request.query_params.get("refresh") == "true" else result


def _json_body(body: bytes) -> Json:
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except ValueError as exc:
        raise EsError(400, "x_content_parse_exception", f"Failed to parse request body: {exc}") from exc
    if not isinstance(value, dict):
        raise EsError(400, "x_content_parse_exception", "request body must be a JSON object")
    return value


def _bulk_line(line: bytes, position: int) -> Any:
    try:
        return json.loads(line)
    except ValueError as exc:
        raise EsError(
            400, "x_content_parse_exception", f"[{position + 1}:1] Malformed bulk line: {exc}"
        ) from exc


def _bulk_action(line: bytes, position: int) -> tuple[str, Json]:
    parsed = _bulk_line(line, position)
    if not isinstance(parsed, dict) or len(parsed) != 1 or not isinstance(next(iter(parsed.values())), dict):
        reason = f"Malformed action/metadata line [{position + 1}], expected START_OBJECT or END_OBJECT"
        raise EsError(400, "illegal_argument_exception", reason)
    ((action, meta),) = parsed.items()
    if action not in ("index", "create", "delete", "update"):
        reason = f"Malformed action/metadata line [{position + 1}], expected one of [create, delete, index, update]"
        raise EsError(400, "illegal_argument_exception", f"{reason} but found [{action}]")
    return action, meta


def _respond(request: Request, status: int, payload: Json | None) -> Response:
    """JSON with the product header the client checks, in the compatible-with media type it asked for."""
    media = COMPAT_JSON if "vnd.elasticsearch" in request.headers.get("accept", "") else "application/json"
    content = (
        b"" if payload is None else json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    )
    return Response(
        content, status_code=status, headers={"X-Elastic-Product": "Elasticsearch"}, media_type=media
    )
