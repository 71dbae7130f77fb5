"""A local stand-in of the Kubernetes API server, spoken to through the official `kubernetes` client.

It serves a fixed set of objects (a scenario's k8s.yaml, as `kubectl get -o yaml` prints them) over the
real REST paths, so the bot's read-only tools and its approved actions run through the real client and
meet real answers: lists with selectors, pod logs, the three PATCH formats, scale, delete, dry runs,
optimistic concurrency and `Status` errors. Nothing runs behind it: no controller reconciles, except
for the cordon taint the node controller would add. Every mutating request is kept in `writes`.
"""

from __future__ import annotations

import copy
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.sandbox.kubernetes.logs import LogOptions, int_param, log_container
from bot.sandbox.kubernetes.objects import (
    check_identity,
    check_preconditions,
    check_string_maps,
    grace_period,
    is_dry_run,
    jsonable,
    mark_terminating,
    rfc3339,
    spec_part,
)
from bot.sandbox.kubernetes.patch import (
    PatchError,
    apply_patch,
    decode_json,
    replacement,
    scale_of,
    sync_cordon_taint,
)
from bot.sandbox.kubernetes.resources import (
    RESOURCES,
    SCALE,
    ApiFailure,
    Discovery,
    Obj,
    Resource,
    conflict,
    no_route,
    not_found,
    status_details,
)
from bot.sandbox.kubernetes.selectors import SelectorError, page, parse_field_selector, parse_label_selector

_SERVER_OWNED = (
    "name",
    "namespace",
    "uid",
    "creationTimestamp",
    "resourceVersion",
    "generation",
    "deletionTimestamp",
)


@dataclass(frozen=True)
class Write:
    """One mutating request as it arrived, and what came of it (`resource_version` None when refused)."""

    verb: str
    path: str
    query: str
    content_type: str | None
    body: Any
    dry_run: bool
    status: int
    resource_version: str | None
    at: datetime


@dataclass(frozen=True)
class _Target:
    """What a request path names: a resource type, maybe a namespace, object and subresource."""

    resource: Resource
    namespace: str | None
    name: str | None
    sub: str | None


class KubernetesStandIn(Discovery):
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
        self._now = now or (lambda: datetime.now(UTC))
        self._pod_logs = {key: list(lines) for key, lines in (pod_logs or {}).items()}
        self._lock = threading.RLock()
        self._by_path = {(res.group, res.version, res.plural): res for res in RESOURCES}
        self._store: dict[str, dict[tuple[str, str], Obj]] = {res.plural: {} for res in RESOURCES}
        self._rv = 0
        self.writes: list[Write] = []
        self._load([jsonable(dict(obj)) for obj in objects])
        self.app = Starlette(routes=self._routes())

    def get_object(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        """The stored object as it is now (a copy), or None when absent or deleted."""
        res = next((res for res in RESOURCES if res.kind == kind), None)
        if res is None:
            raise ValueError(f"kind {kind!r} is not served; served: {', '.join(r.kind for r in RESOURCES)}")
        with self._lock:
            found = self._store[res.plural].get(((namespace or "") if res.namespaced else "", name))
            return copy.deepcopy(found)

    @property
    def resource_version(self) -> str:
        """The latest resourceVersion handed out (the one lists carry)."""
        return str(self._rv)

    # --- loading -----------------------------------------------------------------------------------

    def _load(self, docs: list[Obj]) -> None:
        """Start the counter above every loaded resourceVersion, so later writes sort after them."""
        versions = [str((doc.get("metadata") or {}).get("resourceVersion", "")) for doc in docs]
        self._rv = max((int(v) for v in versions if v.isdigit()), default=0)
        for doc in docs:
            self._admit(doc)

    def _admit(self, doc: Obj) -> None:
        """Fill what the server would have set at creation (namespace, uid, version, generation)."""
        group = str(doc.get("apiVersion", "")).rpartition("/")[0]
        res = next((r for r in RESOURCES if r.group == group and r.kind == doc.get("kind")), None)
        if res is None:
            served = ", ".join(f"{r.api_version} {r.kind}" for r in RESOURCES)
            raise ValueError(
                f"{doc.get('apiVersion')} {doc.get('kind')} is not served by the stand-in ({served})"
            )
        meta = doc.setdefault("metadata", {})
        if not isinstance(meta.get("name"), str) or not meta["name"]:
            raise ValueError(f"{res.kind} without metadata.name")
        check_string_maps(res, meta)
        doc["apiVersion"] = res.api_version
        if res.namespaced:
            meta["namespace"] = str(meta.get("namespace") or "default")
        else:
            meta.pop("namespace", None)
        key = (meta.get("namespace", ""), meta["name"])
        meta.setdefault("uid", str(uuid.uuid5(uuid.NAMESPACE_URL, f"{res.api_version}/{res.kind}/{key}")))
        if "resourceVersion" not in meta:
            self._rv += 1
        meta["resourceVersion"] = str(meta.get("resourceVersion", self._rv))
        if res.generation:
            meta.setdefault("generation", 1)
        if key in self._store[res.plural]:
            raise ValueError(f"{res.kind} {'/'.join(filter(None, key))} appears twice")
        self._store[res.plural][key] = doc

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

    def _target(self, group: str, version: str, rest: str) -> _Target:
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
        return _Target(res, namespace, name, parts[2] if len(parts) > 2 else None)

    # --- reads -------------------------------------------------------------------------------------

    def _read(self, target: _Target, query: QueryParams) -> Response:
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

    def _require(self, target: _Target) -> Obj:
        assert target.name is not None
        found = self._store[target.resource.plural].get((target.namespace or "", target.name))
        if found is None:
            raise not_found(target.resource, target.name)
        return copy.deepcopy(found)

    def _list(self, target: _Target, query: QueryParams) -> Obj:
        res = target.resource
        if query.get("watch", "false").lower() in ("true", "1"):
            raise ApiFailure(400, "watch is not supported by the stand-in")
        try:
            labels = parse_label_selector(query.get("labelSelector", ""))
            fields = parse_field_selector(query.get("fieldSelector", ""), res.kind)
            items = [
                copy.deepcopy(obj)
                for (namespace, _), obj in sorted(self._store[res.plural].items())
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

    # --- writes ------------------------------------------------------------------------------------

    def _audited(self, request: Request, target: _Target, body: bytes) -> Response:
        """Run a mutating request and record it, whether it succeeded, was a dry run, or was refused."""
        dry_run = False
        try:
            dry_run = is_dry_run(request.method, request.query_params, body)
            with self._lock:
                payload = self._mutate(request, target, body, dry_run)
        except ApiFailure as failure:
            self._record(request, body, dry_run, failure.code, None)
            raise
        except PatchError as exc:
            self._record(request, body, dry_run, exc.code, None)
            raise ApiFailure(exc.code, exc.message) from exc
        meta = payload.get("metadata") if payload.get("kind") != "Status" else None
        self._record(request, body, dry_run, 200, (meta or {}).get("resourceVersion"))
        return JSONResponse(payload)

    def _record(self, request: Request, body: bytes, dry_run: bool, status: int, version: str | None) -> None:
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        content_type = request.headers.get("content-type")
        write = Write(
            request.method,
            request.url.path,
            request.url.query,
            content_type,
            parsed,
            dry_run,
            status,
            version,
            self._now(),
        )
        with self._lock:
            self.writes.append(write)

    def _mutate(self, request: Request, target: _Target, body: bytes, dry_run: bool) -> Obj:
        method, res = request.method, target.resource
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if target.name is None or method == "POST":
            raise ApiFailure(405, "the server does not allow this method on the requested resource")
        if method == "DELETE" and target.sub is None:
            return self._delete(target, request.query_params, body, dry_run)
        if target.sub is None:
            stored = self._require(target)
            candidate = (
                replacement(res.kind, media, body)
                if method == "PUT"
                else apply_patch(stored, media, body, builtin=res.builtin)
            )
            return self._commit(res, stored, candidate, dry_run)
        if target.sub == "scale" and res.scalable and method != "DELETE":
            return self._write_scale(target, method, media, body, dry_run)
        raise no_route()

    def _commit(self, res: Resource, stored: Obj, candidate: Obj, dry_run: bool) -> Obj:
        """Validate and store `candidate`; a no-op or a dry run stores nothing and keeps the version."""
        check_identity(res, stored, candidate)
        wanted = candidate["metadata"].get("resourceVersion")
        if wanted not in (None, "") and str(wanted) != stored["metadata"]["resourceVersion"]:
            raise conflict(res, stored["metadata"]["name"])
        updated = self._settle(res, stored, candidate)
        if dry_run or updated == stored:
            return updated
        self._rv += 1
        meta = updated["metadata"]
        meta["resourceVersion"] = str(self._rv)
        self._store[res.plural][(meta.get("namespace", ""), meta["name"])] = copy.deepcopy(updated)
        return updated

    def _settle(self, res: Resource, stored: Obj, candidate: Obj) -> Obj:
        """What the server makes of a candidate: its own fields restored, generation and taints kept true."""
        updated = copy.deepcopy(candidate)
        updated["kind"], updated["apiVersion"] = res.kind, res.api_version
        meta, before = updated["metadata"], stored["metadata"]
        for key in _SERVER_OWNED:
            if key in before:
                meta[key] = before[key]
            else:
                meta.pop(key, None)
        if res.has_status:
            updated.pop("status", None)
            updated |= {"status": copy.deepcopy(stored["status"])} if "status" in stored else {}
        if res.generation and spec_part(updated) != spec_part(stored):
            meta["generation"] = int(before.get("generation") or 0) + 1
        if res.kind == "Node":
            sync_cordon_taint(updated, stored, rfc3339(self._now()))
        return updated

    def _write_scale(self, target: _Target, method: str, media: str, body: bytes, dry_run: bool) -> Obj:
        """The scale subresource: a Scale in, spec.replicas of the workload changed, a Scale out."""
        stored = self._require(target)
        scale = scale_of(stored)
        wanted = (
            replacement("Scale", media, body)
            if method == "PUT"
            else apply_patch(scale, media, body, builtin=True)
        )
        check_identity(SCALE, scale, wanted)
        replicas = (wanted.get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            name = stored["metadata"]["name"]
            raise ApiFailure(
                422, f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: {replicas}'
            )
        candidate = copy.deepcopy(stored)
        candidate["spec"]["replicas"] = replicas
        candidate["metadata"]["resourceVersion"] = wanted["metadata"].get("resourceVersion")
        return scale_of(self._commit(target.resource, stored, candidate, dry_run))

    def _delete(self, target: _Target, query: QueryParams, body: bytes, dry_run: bool) -> Obj:
        """Pods come back terminating (deletionTimestamp set); other kinds answer a Success Status."""
        res = target.resource
        options = decode_json(body) if body.strip() else {}
        if not isinstance(options, dict):
            raise ApiFailure(400, "DeleteOptions must be a JSON object")
        stored = self._require(target)
        check_preconditions(res, stored, options.get("preconditions") or {})
        gone = copy.deepcopy(stored)
        if res.kind == "Pod":
            mark_terminating(gone, grace_period(stored, query, options), self._now())
        if not dry_run:
            self._rv += 1
            gone["metadata"]["resourceVersion"] = str(self._rv)
            del self._store[res.plural][(target.namespace or "", stored["metadata"]["name"])]
        if res.kind == "Pod":
            return gone
        details = status_details(res, stored["metadata"]["name"]) | {"uid": stored["metadata"]["uid"]}
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}
