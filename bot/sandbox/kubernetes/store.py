"""The Kubernetes stand-in's object store: the loaded objects by type, and the resourceVersion counter.

Loading fills in what the API server sets at creation (namespace, uid, resourceVersion, generation)
and registers a type for any kind the table lacks (`generic`); reads, writes and discovery then share
the served types, the store, its lock and `_require`. Kept apart from the HTTP surface
(`standin`) and the write rules (`writes`) so that both work on one store.
"""

from __future__ import annotations

import copy
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.sandbox.kubernetes.generic import generic_resource
from bot.sandbox.kubernetes.objects import check_string_maps, jsonable
from bot.sandbox.kubernetes.resources import RESOURCES, Obj, Resource, not_found


@dataclass(frozen=True)
class Target:
    """What a request path names: a resource type, maybe a namespace, object and subresource."""

    resource: Resource
    namespace: str | None
    name: str | None
    sub: str | None


class Store:
    """The stored objects, keyed by type and (namespace or "", name), behind one lock."""

    def __init__(self, objects: Iterable[Mapping[str, Any]], *, now: Callable[[], datetime]) -> None:
        self._now = now
        self._lock = threading.RLock()
        self._served: list[Resource] = list(RESOURCES)
        self._by_path = {(res.group, res.version, res.plural): res for res in RESOURCES}
        # By group and plural (`services`, `services.serving.knative.dev`): plurals repeat across groups.
        self._store: dict[str, dict[tuple[str, str], Obj]] = {res.group_resource: {} for res in RESOURCES}
        self._rv = 0
        self._load([jsonable(dict(obj)) for obj in objects])

    def get_object(self, kind: str, namespace: str | None, name: str) -> Obj | None:
        """The stored object as it is now (a copy), or None when absent or deleted."""
        res = next((res for res in self._served if res.kind == kind), None)
        if res is None:
            served = ", ".join(r.kind for r in self._served)
            raise ValueError(f"kind {kind!r} is not served; served: {served}")
        with self._lock:
            found = self._store[res.group_resource].get(((namespace or "") if res.namespaced else "", name))
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
        if key in self._store[res.group_resource]:
            raise ValueError(f"{res.kind} {'/'.join(filter(None, key))} appears twice")
        self._store[res.group_resource][key] = doc

    def _resource_for(self, doc: Obj) -> Resource:
        """The served type of a loaded object; a kind the table lacks is served as stored from now on."""
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        if not (isinstance(api_version, str) and api_version and isinstance(kind, str) and kind):
            raise ValueError(f"{api_version} {kind} is not served: an object needs apiVersion and kind")
        group = api_version.rpartition("/")[0]
        found = next((r for r in self._served if r.group == group and r.kind == kind), None)
        if found is not None:
            return found
        res = generic_resource(api_version, kind, (doc.get("metadata") or {}).get("namespace"))
        if res.group_resource in self._store:
            raise ValueError(f"{api_version} {kind} is not served: {res.group_resource} names another kind")
        self._served.append(res)
        self._by_path[(res.group, res.version, res.plural)] = res
        self._store[res.group_resource] = {}
        return res

    def _require(self, target: Target) -> Obj:
        assert target.name is not None
        found = self._store[target.resource.group_resource].get((target.namespace or "", target.name))
        if found is None:
            raise not_found(target.resource, target.name)
        return copy.deepcopy(found)
