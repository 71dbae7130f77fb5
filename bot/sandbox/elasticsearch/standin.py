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

import json
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.sandbox.elasticsearch.errors import NODE_ID, EsError, Json, index_not_found, parsing_error
from bot.sandbox.elasticsearch.index import SHARDS_WRITE, Index
from bot.sandbox.elasticsearch.query import MATCH_ALL
from bot.sandbox.elasticsearch.search import Search, filter_source, source_filter

VERSION = "9.1.0"
COMPAT_JSON = "application/vnd.elasticsearch+json;compatible-with=9"


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

    def __init__(self, *, now: Callable[[], datetime] | None = None) -> None:
        self._clock = now or (lambda: datetime.now(UTC))
        self._lock = threading.RLock()
        self._indices: dict[str, Index] = {}
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
        index = Index(name)
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
        search = Search(self._resolve(request.path_params.get("index"), request.query_params), self._now())
        try:
            return 200, search.run(spec, request.query_params)
        except EsError as error:
            raise _located(error, search) from None

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
