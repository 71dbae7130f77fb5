"""A local stand-in of the Kubernetes API server, spoken to through the official `kubernetes` client and kubectl.

It serves a scenario's objects (its k8s.yaml, as `kubectl get -o yaml` prints them) over the real REST
paths, so the bot's read-only tools and its approved actions run through the real client and meet
real answers: lists with selectors, watches, server-side Tables, pod logs, the three PATCH formats,
scale, delete, eviction under PodDisruptionBudgets, dry runs, optimistic concurrency and `Status`
errors. Behind it run the controllers a verification reads the outcome of (ReplicaSet, Deployment,
HorizontalPodAutoscaler, the gateway's HTTPRoute status, disruption budgets, the cordon taint), but
only on change: a loaded pack stays exactly as recorded until a write touches it (`controllers`).
Every mutating request is kept in `writes`. This module routes requests and answers reads; the
objects live in `store`, the write rules in `writes`.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from bot.sandbox.kubernetes.apis import (
    EVENTS_V1_FIELDS,
    REVIEWS,
    ServedApis,
    access_review,
    forbidden,
    request_verb,
    self_review,
)
from bot.sandbox.kubernetes.logs import LogOptions, int_param, log_container
from bot.sandbox.kubernetes.patch import decode_json, scale_of
from bot.sandbox.kubernetes.resources import ApiFailure, Discovery, Obj, Resource, no_route, not_served
from bot.sandbox.kubernetes.selectors import SelectorError, page, parse_field_selector, parse_label_selector
from bot.sandbox.kubernetes.store import Change, Target
from bot.sandbox.kubernetes.tables import table, wants_table
from bot.sandbox.kubernetes.watch import Feed, Selection, WatchOptions, stream
from bot.sandbox.kubernetes.writes import Writes


class KubernetesStandIn(Writes, Discovery):
    """The API server's REST surface over an in-memory store; `app` is the ASGI application to serve.

    `pod_logs` maps (namespace, pod, container) to log lines, oldest first; a line may start with an
    RFC 3339 timestamp and a space (as `kubectl logs --timestamps` prints it), which `sinceSeconds`,
    `sinceTime` and `timestamps` then use. The previous instance's lines go under container + PREVIOUS.
    A pod the controllers create turns Ready `pod_ready_seconds` after it was scheduled, an HTTPRoute
    is accepted `route_accept_seconds` after its change (wall-clock seconds; 0 is at once). `apis`
    switches what is served and who may do what (see `apis.ServedApis`). No thread runs: `close()`
    only ends the watches still open, so that the server can stop at once.
    """

    def __init__(
        self,
        objects: Iterable[Mapping[str, Any]],
        *,
        pod_logs: Mapping[tuple[str, str, str], list[str]] | None = None,
        now: Callable[[], datetime] | None = None,
        pod_ready_seconds: float = 0.2,
        route_accept_seconds: float = 0.0,
        apis: ServedApis | None = None,
    ) -> None:
        super().__init__(
            objects,
            now=now or (lambda: datetime.now(UTC)),
            pod_ready_seconds=pod_ready_seconds,
            route_accept_seconds=route_accept_seconds,
            apis=apis,
        )
        self._pod_logs = {key: list(lines) for key, lines in (pod_logs or {}).items()}
        self._closed = False
        # Called with each request under /api/v1 or /apis once it is answered (a write has landed),
        # before the answer goes out: tests use it to act at a precise step, e.g. stop the client.
        self.after_request: Callable[[Request, Response], None] | None = None
        self.app = Starlette(routes=self._routes())

    def close(self) -> None:
        """End the open watches (their clients see the stream end and may come back, as after a timeout)."""
        self._closed = True

    # --- routing -----------------------------------------------------------------------------------

    def _routes(self) -> list[Route]:
        """Discovery answers with and without the trailing slash the generated client puts on some paths."""
        discovery = [
            ("/version", self._version),
            ("/api", self._core_versions),
            ("/api/v1", self._core_resources),
            ("/apis", self._groups),
            ("/apis/{group}", self._group),
            ("/apis/{group}/{version}", self._group_resources),
        ]
        routes = [Route(path + slash, endpoint) for path, endpoint in discovery for slash in ("", "/")]
        methods = ["GET", "PATCH", "PUT", "DELETE", "POST"]
        return [
            *routes,
            Route("/api/v1/{rest:path}", self._core, methods=methods),
            Route("/apis/{group}/{version}/{rest:path}", self._grouped, methods=methods),
        ]

    async def _core(self, request: Request) -> Response:
        answer = self._serve(request, "", "v1", request.path_params["rest"], await request.body())
        return self._answered(request, answer)

    async def _grouped(self, request: Request) -> Response:
        params = request.path_params
        body = await request.body()
        return self._answered(
            request, self._serve(request, params["group"], params["version"], params["rest"], body)
        )

    def _answered(self, request: Request, answer: Response) -> Response:
        hook = self.after_request
        if hook is not None:
            hook(request, answer)
        return answer

    def _serve(self, request: Request, group: str, version: str, rest: str, body: bytes) -> Response:
        try:
            target = self._target(group, version, rest)
            policy = self._apis.policy(request.headers.get("authorization", ""))
            if target.resource in REVIEWS:
                return self._review(request, target.resource, policy, body)
            watch = request.query_params.get("watch", "false").lower() in ("true", "1")
            verb = request_verb(request.method, target.name, watch)
            resource = target.resource.plural + (f"/{target.sub}" if target.sub else "")
            if policy is not None and not policy.decide(verb, group, resource, target.namespace)[0]:
                raise forbidden(policy, verb, target.resource, target.namespace, target.name)
            self._advance()
            if request.method == "GET":
                return self._read(target, request)
            if target.resource.stored_as:
                raise ApiFailure(405, "the server does not allow this method on the requested resource")
            return self._audited(request, target, body)
        except ApiFailure as failure:
            return failure.response()

    def _review(self, request: Request, res: Resource, policy: Any, body: bytes) -> Response:
        """SelfSubjectAccessReview and SelfSubjectReview: create-only, answered 201, stored nowhere."""
        if request.method != "POST":
            raise ApiFailure(405, "the server does not allow this method on the requested resource")
        if res.kind == "SelfSubjectReview":
            return JSONResponse(self_review(policy), status_code=201)
        posted = decode_json(body) if body.strip() else {}
        if not isinstance(posted, dict):
            raise ApiFailure(400, "the body of the request was in an unknown format")
        return JSONResponse(access_review(policy, posted), status_code=201)

    def _target(self, group: str, version: str, rest: str) -> Target:
        parts = [part for part in rest.split("/") if part]
        namespace = None
        if len(parts) >= 3 and parts[0] == "namespaces":
            namespace, parts = parts[1], parts[2:]
        if not any(r.group == group and r.version == version for r in self._served):
            raise not_served()
        res = self._by_path.get((group, version, parts[0])) if 1 <= len(parts) <= 3 else None
        if res is None or (namespace is not None and not res.namespaced):
            raise no_route()
        name = parts[1] if len(parts) > 1 else None
        if res.namespaced and name is not None and namespace is None:
            raise no_route()
        return Target(res, namespace, name, parts[2] if len(parts) > 2 else None)

    # --- reads -------------------------------------------------------------------------------------

    def _read(self, target: Target, request: Request) -> Response:
        res, query = target.resource, request.query_params
        with self._lock:
            if target.name is None and query.get("watch", "false").lower() in ("true", "1"):
                return self._watch(target, request)
            if target.name is None:
                listed = self._list(target, query)
                return JSONResponse(self._tabled(request, res, listed["items"], listed["metadata"]) or listed)
            if target.sub is None:
                found = self._require(target)
                version = {"resourceVersion": str(self._rv)}
                return JSONResponse(self._tabled(request, res, [found], version) or found)
            if target.sub == "log" and res.kind == "Pod":
                return PlainTextResponse(self._log(self._require(target), query))
            if target.sub == "scale" and res.scalable:
                return JSONResponse(scale_of(self._require(target)))
        raise no_route()

    def _tabled(self, request: Request, res: Resource, items: list[Obj], meta: Obj) -> Obj | None:
        """The Table kubectl asks for (`Accept: application/json;as=Table;...`), or None for plain JSON."""
        if not wants_table(request.headers.get("accept", "")):
            return None
        return table(
            res.kind, items, meta, request.query_params.get("includeObject", "Metadata"), self._now()
        )

    def _list(self, target: Target, query: QueryParams) -> Obj:
        res = target.resource
        selection = self._selection(target, query)
        try:
            items = self._objects(res, target.namespace)
            shown, meta = page(
                [obj for obj in items if selection.matches(obj)],
                int_param(query, "limit"),
                query.get("continue"),
            )
        except SelectorError as exc:
            raise ApiFailure(400, str(exc)) from exc
        list_meta = {"resourceVersion": str(self._rv), **meta}
        return {
            "kind": f"{res.kind}List",
            "apiVersion": res.api_version,
            "metadata": list_meta,
            "items": shown,
        }

    def _selection(self, target: Target, query: QueryParams) -> Selection:
        try:
            labels = parse_label_selector(query.get("labelSelector", ""))
            fields = parse_field_selector(
                query.get("fieldSelector", ""),
                target.resource.kind,
                EVENTS_V1_FIELDS if target.resource.stored_as else None,
            )
        except SelectorError as exc:
            raise ApiFailure(400, str(exc)) from exc
        res = target.resource
        view = (lambda obj: self._shown(res, obj)) if res.stored_as else None
        return Selection(res, target.namespace, labels, fields, view)

    # --- watches -----------------------------------------------------------------------------------

    def _watch(self, target: Target, request: Request) -> Response:
        """A watch; asked for Tables (`kubectl get -w`), each event carries a one-row Table."""
        selection = self._selection(target, request.query_params)
        options = WatchOptions.parse(request.query_params)
        feed = Feed(self._snapshot, self._changes_after, lambda: self._closed)

        def shown(obj: Obj) -> Obj:
            obj = self._shown(target.resource, obj)
            version = {"resourceVersion": obj["metadata"].get("resourceVersion", "")}
            return self._tabled(request, target.resource, [obj], version) or obj

        events = stream(feed, selection, options, request.is_disconnected, shown)
        return StreamingResponse(events, media_type="application/json")

    def _snapshot(self, selection: Selection) -> tuple[list[Obj], int]:
        with self._lock:
            self._advance()
            objects = self._objects(selection.resource, selection.namespace)
            return [obj for obj in objects if selection.matches(obj)], self._rv

    def _changes_after(self, version: int) -> list[Change]:
        with self._lock:
            self._advance()
            return self._changes[bisect.bisect_right(self._changes, version, key=lambda c: c.version) :]

    def _log(self, pod: Obj, query: QueryParams) -> str:
        meta = pod["metadata"]
        container = log_container(pod, query.get("container"))
        options = LogOptions.parse(query, self._now())
        lines = self._pod_logs.get((meta["namespace"], meta["name"], container + options.suffix))
        if lines is None and options.previous:
            message = f'previous terminated container "{container}" in pod "{meta["name"]}" not found'
            raise ApiFailure(400, message)
        return options.render(lines or [])
