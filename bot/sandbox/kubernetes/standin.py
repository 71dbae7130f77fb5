"""A local stand-in of the Kubernetes API server, spoken to through the official `kubernetes` client.

It serves a fixed set of objects (a scenario's k8s.yaml, as `kubectl get -o yaml` prints them) over the
real REST paths, so the bot's read-only tools and its approved actions run through the real client and
meet real answers: lists with selectors, pod logs, the three PATCH formats, scale, delete, dry runs,
optimistic concurrency and `Status` errors. Nothing runs behind it: no controller reconciles, except
for the cordon taint the node controller would add. Every mutating request is kept in `writes`.
This module routes requests and answers reads; the objects live in `store`, the write rules in `writes`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.sandbox.kubernetes.logs import LogOptions, int_param, log_container
from bot.sandbox.kubernetes.patch import scale_of
from bot.sandbox.kubernetes.resources import ApiFailure, Discovery, Obj, no_route
from bot.sandbox.kubernetes.selectors import SelectorError, page, parse_field_selector, parse_label_selector
from bot.sandbox.kubernetes.store import Target
from bot.sandbox.kubernetes.writes import Writes


class KubernetesStandIn(Writes, Discovery):
    """The API server's REST surface over an in-memory store; `app` is the ASGI application to serve.

    `pod_logs` maps (namespace, pod, container) to log lines, oldest first; a line may start with an
    RFC 3339 timestamp and a space (as `kubectl logs --timestamps` prints it), which `sinceSeconds`,
    `sinceTime` and `timestamps` then use. The previous instance's lines go under container + PREVIOUS.
    """

    def __init__(
        self,
        objects: Iterable[Mapping[str, Any]],
        *,
        pod_logs: Mapping[tuple[str, str, str], list[str]] | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(objects, now=now or (lambda: datetime.now(UTC)))
        self._pod_logs = {key: list(lines) for key, lines in (pod_logs or {}).items()}
        self.app = Starlette(routes=self._routes())

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
        return self._serve(request, "", "v1", request.path_params["rest"], await request.body())

    async def _grouped(self, request: Request) -> Response:
        params = request.path_params
        return self._serve(request, params["group"], params["version"], params["rest"], await request.body())

    def _serve(self, request: Request, group: str, version: str, rest: str, body: bytes) -> Response:
        try:
            target = self._target(group, version, rest)
            if request.method == "GET":
                return self._read(target, request.query_params)
            return self._audited(request, target, body)
        except ApiFailure as failure:
            return JSONResponse(failure.status(), status_code=failure.code)

    def _target(self, group: str, version: str, rest: str) -> Target:
        parts = [part for part in rest.split("/") if part]
        namespace = None
        if len(parts) >= 3 and parts[0] == "namespaces":
            namespace, parts = parts[1], parts[2:]
        res = self._by_path.get((group, version, parts[0])) if 1 <= len(parts) <= 3 else None
        if res is None or (namespace is not None and not res.namespaced):
            raise no_route()
        name = parts[1] if len(parts) > 1 else None
        if res.namespaced and name is not None and namespace is None:
            raise no_route()
        return Target(res, namespace, name, parts[2] if len(parts) > 2 else None)

    # --- reads -------------------------------------------------------------------------------------

    def _read(self, target: Target, query: QueryParams) -> Response:
        res = target.resource
        with self._lock:
            if target.name is None:
                return JSONResponse(self._list(target, query))
            if target.sub is None:
                return JSONResponse(self._require(target))
            if target.sub == "log" and res.kind == "Pod":
                return PlainTextResponse(self._log(self._require(target), query))
            if target.sub == "scale" and res.scalable:
                return JSONResponse(scale_of(self._require(target)))
        raise no_route()

    def _list(self, target: Target, query: QueryParams) -> Obj:
        res = target.resource
        if query.get("watch", "false").lower() in ("true", "1"):
            raise ApiFailure(400, "watch is not supported by the stand-in")
        try:
            labels = parse_label_selector(query.get("labelSelector", ""))
            fields = parse_field_selector(query.get("fieldSelector", ""), res.kind)
            items = [
                copy.deepcopy(obj)
                for (namespace, _), obj in sorted(self._store[res.group_resource].items())
                if target.namespace in (None, namespace)
                and labels.matches(obj["metadata"].get("labels"))
                and fields.matches(obj)
            ]
            shown, meta = page(items, int_param(query, "limit"), query.get("continue"))
        except SelectorError as exc:
            raise ApiFailure(400, str(exc)) from exc
        list_meta = {"resourceVersion": str(self._rv), **meta}
        return {
            "kind": f"{res.kind}List",
            "apiVersion": res.api_version,
            "metadata": list_meta,
            "items": shown,
        }

    def _log(self, pod: Obj, query: QueryParams) -> str:
        meta = pod["metadata"]
        container = log_container(pod, query.get("container"))
        options = LogOptions.parse(query, self._now())
        lines = self._pod_logs.get((meta["namespace"], meta["name"], container + options.suffix))
        if lines is None and options.previous:
            message = f'previous terminated container "{container}" in pod "{meta["name"]}" not found'
            raise ApiFailure(400, message)
        return options.render(lines or [])
