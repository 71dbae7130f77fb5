"""The Kubernetes stand-in's object store: the objects by type, the resourceVersion counter, the changes.

Loading fills in what the API server sets at creation (namespace, uid, resourceVersion, generation)
and registers a type for any kind the table lacks (`generic`); reads, writes, controllers and
discovery then share the served types, the store, its lock and `_require`. Every change after
loading goes through `_put` or `_drop`, which hand out the next resourceVersion, append a `Change`
for watches and mark the object dirty for the controllers; loading records none, so nothing
reconciles what a pack recorded until a write touches it. Kept apart from the HTTP surface
(`standin`) and the write rules (`writes`) so that both work on one store.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.sandbox.kubernetes.apis import EVENTS_GROUP, EVENTS_V1, REVIEWS, ServedApis, as_core, as_events_v1
from bot.sandbox.kubernetes.generic import generic_resource
from bot.sandbox.kubernetes.objects import check_string_maps, jsonable, spec_part
from bot.sandbox.kubernetes.resources import GATEWAY, RESOURCES, Obj, Resource, not_found


@dataclass(frozen=True)
class Change:
    """One stored change as a watch reports it: the object after it, and before it (None when added)."""

    version: int
    type: str  # ADDED, MODIFIED or DELETED
    group_resource: str
    namespace: str
    obj: Obj
    old: Obj | None


@dataclass(frozen=True)
class Target:
    """What a request path names: a resource type, maybe a namespace, object and subresource."""

    resource: Resource
    namespace: str | None
    name: str | None
    sub: str | None


class Store:
    """The stored objects, keyed by type and (namespace or "", name), behind one lock."""

    def __init__(
        self,
        objects: Iterable[Mapping[str, Any]],
        *,
        now: Callable[[], datetime],
        apis: ServedApis | None = None,
    ) -> None:
        self._now = now
        self._lock = threading.RLock()
        self._apis = apis or ServedApis()
        self._served: list[Resource] = served_types(self._apis)
        self._by_path = {(res.group, res.version, res.plural): res for res in self._served}
        # By group and plural (`services`, `services.serving.knative.dev`): plurals repeat across groups.
        self._store: dict[str, dict[tuple[str, str], Obj]] = {res.group_resource: {} for res in self._served}
        self._rv = 0
        self._changes: list[Change] = []
        # What changed since the controllers last looked, with the object as it was before (None: new).
        self._dirty: dict[tuple[str, str, str], Obj | None] = {}
        self._load([jsonable(dict(obj)) for obj in objects])

    def get_object(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        """The stored object as it is now (a copy), or None when absent or deleted."""
        res = next((res for res in self._served if res.kind == kind), None)
        if res is None:
            served = ", ".join(r.kind for r in self._served)
            raise ValueError(f"kind {kind!r} is not served; served: {served}")
        with self._lock:
            self._advance()
            return self._find(res, namespace, name)

    def _advance(self) -> None:
        """Let time-driven work that is due happen before a read; the controllers override it."""

    # --- changes -----------------------------------------------------------------------------------

    def _find(self, res: Resource, namespace: str | None, name: str) -> Obj | None:
        found = self._store[res.stored].get(((namespace or "") if res.namespaced else "", name))
        return self._shown(res, found) if found is not None else None

    def _objects(self, res: Resource, namespace: str | None = None) -> list[Obj]:
        """Copies of the stored objects of a type, in one namespace or all, in key order."""
        stored = sorted(self._store[res.stored].items())
        return [self._shown(res, obj) for (ns, _), obj in stored if namespace in (None, ns)]

    def _shown(self, res: Resource, obj: Obj) -> Obj:
        """A copy of a stored object as `res` serves it: an events.k8s.io view converted, an
        object served under several versions (HTTPRoute) in the version asked for."""
        if res.stored_as:
            return as_events_v1(copy.deepcopy(obj))
        shown = copy.deepcopy(obj)
        if res.group and shown.get("apiVersion", res.api_version) != res.api_version:
            shown["apiVersion"] = res.api_version
        return shown

    def _put(self, res: Resource, obj: Obj) -> Obj | None:
        """Store a new or changed object under the next resourceVersion; None when nothing changed."""
        meta = obj["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        before = self._store[res.stored].get(key)
        if before is not None:
            unchanged = {
                **obj,
                "metadata": {**meta, "resourceVersion": before["metadata"]["resourceVersion"]},
            }
            if unchanged == before:
                return None
        self._rv += 1
        stored = copy.deepcopy(obj)
        stored["metadata"]["resourceVersion"] = str(self._rv)
        self._store[res.stored][key] = stored
        self._changed(res, "ADDED" if before is None else "MODIFIED", stored, before)
        return copy.deepcopy(stored)

    def _save(self, res: Resource, obj: Obj) -> Obj | None:
        """`_put` for the controllers' own writes: generation counts their spec changes as a client's."""
        meta = obj["metadata"]
        stored = self._store[res.stored].get((meta.get("namespace", ""), meta["name"]))
        if res.generation and stored is None:
            meta.setdefault("generation", 1)
        elif res.generation and stored is not None and spec_part(obj) != spec_part(stored):
            meta["generation"] = int(stored["metadata"].get("generation") or 0) + 1
        return self._put(res, obj)

    def _drop(self, res: Resource, obj: Obj) -> Obj:
        """Remove an object; the DELETED change carries it as it was last, under a new resourceVersion."""
        meta = obj["metadata"]
        before = self._store[res.stored].pop((meta.get("namespace", ""), meta["name"]))
        self._rv += 1
        gone = copy.deepcopy(obj)
        gone["metadata"]["resourceVersion"] = str(self._rv)
        self._changed(res, "DELETED", gone, before)
        return gone

    def _touch(self, res: Resource, obj: Obj) -> None:
        """Have the controllers look at an object that did not change itself (its pods did)."""
        meta = obj["metadata"]
        self._dirty.setdefault((res.group_resource, meta.get("namespace", ""), meta["name"]), obj)

    def _changed(self, res: Resource, kind: str, obj: Obj, before: Obj | None) -> None:
        meta = obj["metadata"]
        namespace = meta.get("namespace", "")
        change = Change(self._rv, kind, res.stored, namespace, copy.deepcopy(obj), before)
        self._changes.append(change)
        self._dirty.setdefault((res.group_resource, namespace, meta["name"]), before)

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
        """Fill what the server would have set at creation (namespace, uid, version, generation);
        an events.k8s.io/v1 Event is kept as the core/v1 Event it also is."""
        if doc.get("kind") == "Event" and str(doc.get("apiVersion", "")).startswith(f"{EVENTS_GROUP}/"):
            doc = as_core(doc)
        res = self._resource_for(doc)
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
        if key in self._store[res.stored]:
            raise ValueError(f"{res.kind} {'/'.join(filter(None, key))} appears twice")
        self._store[res.stored][key] = doc

    def _resource_for(self, doc: Obj) -> Resource:
        """The served type of a loaded object; a kind the table lacks is served as stored from now on."""
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        if not (isinstance(api_version, str) and api_version and isinstance(kind, str) and kind):
            raise ValueError(f"{api_version} {kind} is not served: an object needs apiVersion and kind")
        group, _, version = api_version.rpartition("/")
        found = next((r for r in self._served if r.group == group and r.kind == kind), None)
        if found is not None:
            return found
        if group == GATEWAY and not self._apis.httproute_versions:
            raise ValueError(f"{api_version} {kind} is not served: this cluster has no Gateway API")
        if group == GATEWAY and version not in self._apis.httproute_versions:
            # The gateway's other kinds come in the versions its HTTPRoutes do (one CRD bundle).
            api_version = f"{GATEWAY}/{self._apis.httproute_versions[0]}"
            doc["apiVersion"] = api_version
        res = generic_resource(api_version, kind, (doc.get("metadata") or {}).get("namespace"))
        if res.group_resource in self._store:
            raise ValueError(f"{api_version} {kind} is not served: {res.group_resource} names another kind")
        self._served.append(res)
        self._by_path[(res.group, res.version, res.plural)] = res
        self._store[res.group_resource] = {}
        return res

    def _require(self, target: Target) -> Obj:
        assert target.name is not None
        found = self._store[target.resource.stored].get((target.namespace or "", target.name))
        if found is None:
            raise not_found(target.resource, target.name)
        return self._shown(target.resource, found)


def served_types(apis: ServedApis) -> list[Resource]:
    """The resource table as `apis` switches it: HTTPRoute in each version served, events.k8s.io
    on or off, the access reviews."""
    types: list[Resource] = []
    for res in RESOURCES:
        if res.kind == "HTTPRoute":
            types += [dataclasses.replace(res, version=version) for version in apis.httproute_versions]
        else:
            types.append(res)
    return [*types, *([EVENTS_V1] if apis.events_v1 else []), *REVIEWS]
