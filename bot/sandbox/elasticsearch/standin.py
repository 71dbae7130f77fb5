"""A local stand-in for the Elasticsearch REST API, reached through the official `elasticsearch` client.

The bot's log tools must be testable without a cluster: this serves the endpoints they use (index,
bulk, search, count, field capabilities, licence, index admin) with Elasticsearch's response and
error shapes, ECS-style dynamic mapping (or the default text + keyword one), the common query DSL and
the aggregations the tools run, `categorize_text` included. Documents are searchable as soon as they
are written. `profile` says which server it answers as (Elasticsearch 9 Platinum by default, 8 on a
Basic licence, OpenSearch 2: see `profile`); `shard_failures` makes some shards fail every search.

    standin = ElasticsearchStandIn(now=lambda: as_of)
    standin.index_documents("logs-inference", docs)
    with ServerThread(standin.app) as server, Elasticsearch(server.url) as es:
        es.search(index="logs-*", query={"term": {"log.level": "error"}}, aggs={...})
"""

from __future__ import annotations

import hashlib
import json
import threading
import traceback
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.sandbox.elasticsearch.bulk import run_bulk
from bot.sandbox.elasticsearch.errors import EsError, Json, index_not_found, parsing_error
from bot.sandbox.elasticsearch.field_caps import field_caps
from bot.sandbox.elasticsearch.index import SHARDS_WRITE, Index
from bot.sandbox.elasticsearch.profile import ELASTICSEARCH_9, ServerProfile, ShardFailures, shard_failures
from bot.sandbox.elasticsearch.query import MATCH_ALL
from bot.sandbox.elasticsearch.search import Search, filter_source, source_filter


class RecordedSearch(dict[str, Any]):
    """One `_search`/`_count` request body as received; `index`, `endpoint` and `params` say where it went."""

    def __init__(self, body: Json, *, index: str, endpoint: str, params: Mapping[str, str]) -> None:
        super().__init__(body)
        self.index = index
        self.endpoint = endpoint
        self.params = dict(params)


# ------------------------------------------------------------------------------------------ server

Handler = Callable[[Request, bytes], tuple[int, Json | None]]


class ElasticsearchStandIn:
    """The stand-in: `app` serves the REST API; `requests` records every search and count body."""

    def __init__(
        self, *, now: Callable[[], datetime] | None = None, profile: ServerProfile = ELASTICSEARCH_9
    ) -> None:
        self._clock = now or (lambda: datetime.now(UTC))
        self._lock = threading.RLock()
        self._indices: dict[str, Index] = {}
        self.profile = profile
        self.shard_failures: ShardFailures | None = None
        # A cluster whose `search.default_search_timeout` cut every search short: what was found
        # in time comes back, with `timed_out: true`.
        self.search_timed_out = False
        self.requests: list[RecordedSearch] = []
        self.app = Starlette(routes=self._routes())

    def _now(self) -> datetime:
        moment = self._clock()
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    def index_documents(self, index: str, docs: Iterable[Mapping[str, Any]], *, strings: str = "ecs") -> None:
        """Load parsed documents into `index` (created when missing), as a bulk request without ids would.

        `strings="default"` maps new string fields as Elasticsearch does with no index template
        (`text` with a `keyword` sub-field), instead of as ECS templates would (`keyword`)."""
        with self._lock:
            if index not in self._indices:
                self._indices[index] = Index(index, strings=strings)
            target = self._for_write(index)
            for doc in docs:
                target.write(None, dict(doc), create_only=False)

    def _routes(self) -> list[Route]:
        read, write = ["GET", "POST"], ["POST", "PUT"]
        table: list[tuple[str, Handler, list[str]]] = [
            ("/", self._info, ["GET", "HEAD"]),
            ("/_license", self._license, ["GET"]),
            ("/_bulk", self._bulk, write),
            ("/_search", self._search, read),
            ("/_count", self._count, read),
            ("/_refresh", self._refresh, read),
            ("/{index}/_bulk", self._bulk, write),
            ("/{index}/_search", self._search, read),
            ("/{index}/_count", self._count, read),
            ("/{index}/_refresh", self._refresh, read),
            ("/{index}/_mapping", self._mapping, ["GET"]),
            ("/{index}/_field_caps", self._field_caps, read),
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
                accept, sent = request.headers.get("accept", ""), request.headers.get("content-type", "")
                self.profile.check_media_types(accept, sent, bool(body.strip()))
                with self._lock:
                    status, payload = handler(request, body)
            except EsError as error:
                status, payload = error.status, error.body()
            except Exception as exc:  # a stand-in bug: answer like a cluster would, with the trace
                cause = {"type": "exception", "reason": f"{type(exc).__name__}: {exc}"}
                payload = {"error": {**cause, "stack_trace": traceback.format_exc()}, "status": 500}
                status = 500
            payload = None if request.method == "HEAD" else payload
            return _respond(self.profile, request, status, payload)

        return endpoint

    # -- cluster and index administration

    def _info(self, _request: Request, _body: bytes) -> tuple[int, Json]:
        return 200, self.profile.info()

    def _license(self, _request: Request, _body: bytes) -> tuple[int, Json]:
        return 200, self.profile.license()

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
        index = Index(name)
        mappings = spec.get("mappings") or {}
        index.mapping.add_properties(mappings.get("properties", {}))
        self._indices[name] = index
        return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}

    def _mapping(self, request: Request, _body: bytes) -> tuple[int, Json]:
        indices = self._resolve(request.path_params["index"], request.query_params)
        return 200, {index.name: {"mappings": index.mapping.to_json()} for index in indices}

    def _field_caps(self, request: Request, body: bytes) -> tuple[int, Json]:
        indices = self._resolve(request.path_params["index"], request.query_params)
        fields = request.query_params.get("fields") or ",".join(_json_body(body).get("fields", []))
        return 200, field_caps(indices, fields)

    def _refresh(self, request: Request, _body: bytes) -> tuple[int, Json]:
        indices = self._resolve(request.path_params.get("index"), request.query_params)
        return 200, {"_shards": {"total": 2 * len(indices), "successful": len(indices), "failed": 0}}

    def _for_write(self, name: str) -> Index:
        if name not in self._indices:
            self._indices[name] = Index(name)
        return self._indices[name]

    def _resolve(self, expression: str | None, params: Mapping[str, str]) -> list[Index]:
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
        source = source_filter(None, request.query_params)
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
        return 200, run_bulk(body, request.path_params.get("index"), self._for_write)

    # -- search

    def _search(self, request: Request, body: bytes) -> tuple[int, Json]:
        spec = self._record(request, body, "_search")
        self.profile.check_aggregations(spec.get("aggs", spec.get("aggregations")))
        failures = self.shard_failures
        search = Search(
            self._resolve(request.path_params.get("index"), request.query_params),
            self._now(),
            lost=None if failures is None else _lost_shards(failures),
        )
        try:
            answer = search.run(spec, request.query_params)
        except EsError as error:
            raise _located(error, search) from None
        if failures is not None and search.indices:
            answer["_shards"] = shard_failures(failures, search.indices[0].name)
        if self.search_timed_out:
            answer["timed_out"] = True
        return 200, answer

    def _count(self, request: Request, body: bytes) -> tuple[int, Json]:
        spec = self._record(request, body, "_count")
        unknown = sorted(set(spec) - {"query"})
        if unknown:
            raise parsing_error(f"request does not support [{unknown[0]}]")
        search = Search(self._resolve(request.path_params.get("index"), request.query_params), self._now())
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


def _lost_shards(failures: ShardFailures) -> Callable[[Any], bool]:
    """Whether a document sits on a failed shard (documents spread over shards by their id)."""

    def lost(doc: Any) -> bool:
        return int(hashlib.sha1(doc.id.encode()).hexdigest(), 16) % failures.total < failures.failed

    return lost


def _located(error: EsError, search: Search) -> EsError:
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


def _respond(profile: ServerProfile, request: Request, status: int, payload: Json | None) -> Response:
    """JSON with the server's product header (none from OpenSearch), in the compatible-with media type
    it asked for."""
    media = profile.response_media_type(request.headers.get("accept", ""))
    content = (
        b"" if payload is None else json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    )
    return Response(content, status_code=status, headers=profile.headers(), media_type=media)
