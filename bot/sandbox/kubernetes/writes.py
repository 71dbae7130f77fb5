"""Writes to the Kubernetes stand-in: PATCH, PUT, scale, DELETE and eviction as the API server runs them.

Each mutating request is checked (dry run, identity, preconditions, optimistic concurrency), applied
to the store with the fields the server owns kept true, and recorded in `writes` with what came of
it, refused or not; a change that was stored is then reconciled by the controllers before the
answer goes out. Kept apart from reads and routing, which never change the store.
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

from bot.sandbox.kubernetes.controllers import Controllers
from bot.sandbox.kubernetes.eviction import EVICTED, check_budgets, eviction_options
from bot.sandbox.kubernetes.objects import (
    check_identity,
    check_preconditions,
    grace_period,
    is_dry_run,
    mark_terminating,
    rfc3339,
    spec_part,
    without_nulls,
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
from bot.sandbox.kubernetes.store import Target

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


class Writes(Controllers):
    """The write half of the API server over the store; every mutating request lands in `writes`."""

    def __init__(
        self, objects: Iterable[Mapping[str, Any]], *, now: Callable[[], datetime], **knobs: Any
    ) -> None:
        super().__init__(objects, now=now, **knobs)
        self.writes: list[Write] = []

    def _audited(self, request: Request, target: Target, body: bytes) -> Response:
        """Run a mutating request and record it, whether it succeeded, was a dry run, or was refused."""
        dry_run = False
        try:
            dry_run = is_dry_run(request.method, request.query_params, body)
            with self._lock:
                payload = self._mutate(request, target, body, dry_run)
                if not dry_run:
                    self._reconcile()
        except ApiFailure as failure:
            self._record(request, body, dry_run, failure.code, None)
            raise
        except PatchError as exc:
            self._record(request, body, dry_run, exc.code, None)
            raise ApiFailure(exc.code, exc.message) from exc
        is_status = payload.get("kind") == "Status"
        code = int(payload.get("code", 200)) if is_status else 200
        meta = payload.get("metadata") if not is_status else None
        self._record(request, body, dry_run, code, (meta or {}).get("resourceVersion"))
        return JSONResponse(payload, status_code=code)

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
        if method == "POST" and target.sub == "eviction" and res.kind == "Pod" and target.name is not None:
            return self._evict(target, body, dry_run)
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
        if dry_run or self._same(res, updated, stored):
            return updated
        return self._put(res, updated) or updated

    def _same(self, res: Resource, one: Obj, other: Obj) -> bool:
        """Equal as the server sees it: for a built-in kind, a null field is no field."""
        return one == other or (res.builtin and without_nulls(one) == without_nulls(other))

    def _settle(self, res: Resource, stored: Obj, candidate: Obj) -> Obj:
        """What the server makes of a candidate: its own fields restored, generation and taints kept true."""
        updated = without_nulls(candidate) if res.builtin else copy.deepcopy(candidate)
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
        if res.generation and not self._same(res, spec_part(updated), spec_part(stored)):
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

    def _evict(self, target: Target, body: bytes, dry_run: bool) -> Obj:
        """POST pods/{name}/eviction: the delete, if the pod's disruption budget allows it."""
        assert target.name is not None
        options = eviction_options(body, target.name)
        pod_target = Target(target.resource, target.namespace, target.name, None)
        pod = self._require(pod_target)
        check_budgets(pod, [(pdb, self._live_budget(pdb)) for pdb in self._budgets_for(pod)])
        self._remove(pod_target, QueryParams(), options, dry_run)
        return copy.deepcopy(EVICTED)

    def _delete(self, target: Target, query: QueryParams, body: bytes, dry_run: bool) -> Obj:
        options = decode_json(body) if body.strip() else {}
        if not isinstance(options, dict):
            raise ApiFailure(400, "DeleteOptions must be a JSON object")
        return self._remove(target, query, options, dry_run)

    def _remove(self, target: Target, query: QueryParams, options: Mapping[str, Any], dry_run: bool) -> Obj:
        """Pods come back terminating (deletionTimestamp set); other kinds answer a Success Status."""
        res = target.resource
        stored = self._require(target)
        check_preconditions(res, stored, options.get("preconditions") or {})
        gone = copy.deepcopy(stored)
        if res.kind == "Pod":
            mark_terminating(gone, grace_period(stored, query, options), self._now())
        if not dry_run:
            gone = self._drop(res, gone)
        if res.kind == "Pod":
            return gone
        details = status_details(res, stored["metadata"]["name"]) | {"uid": stored["metadata"]["uid"]}
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}
