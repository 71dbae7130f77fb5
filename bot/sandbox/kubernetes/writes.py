"""Writes to the Kubernetes stand-in: PATCH, PUT, scale and DELETE as the API server runs them.

Each mutating request is checked (dry run, identity, preconditions, optimistic concurrency), applied
to the store with the fields the server owns kept true, and recorded in `writes` with what came of
it, refused or not. Kept apart from reads and routing, which never change the store.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from bot.sandbox.kubernetes.objects import (
    check_identity,
    check_preconditions,
    grace_period,
    is_dry_run,
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
    SCALE,
    ApiFailure,
    Obj,
    Resource,
    conflict,
    no_route,
    status_details,
)
from bot.sandbox.kubernetes.store import Store, Target

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


class Writes(Store):
    """The write half of the API server over the store; every mutating request lands in `writes`."""

    def __init__(self, objects: Iterable[Mapping[str, Any]], *, now: Callable[[], datetime]) -> None:
        super().__init__(objects, now=now)
        self.writes: list[Write] = []

    def _audited(self, request: Request, target: Target, body: bytes) -> Response:
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

    def _mutate(self, request: Request, target: Target, body: bytes, dry_run: bool) -> Obj:
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
        self._store[res.group_resource][(meta.get("namespace", ""), meta["name"])] = copy.deepcopy(updated)
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

    def _write_scale(self, target: Target, method: str, media: str, body: bytes, dry_run: bool) -> Obj:
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

    def _delete(self, target: Target, query: QueryParams, body: bytes, dry_run: bool) -> Obj:
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
            del self._store[res.group_resource][(target.namespace or "", stored["metadata"]["name"])]
        if res.kind == "Pod":
            return gone
        details = status_details(res, stored["metadata"]["name"]) | {"uid": stored["metadata"]["uid"]}
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}
