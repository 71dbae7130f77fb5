"""The gateway's status controller for HTTPRoutes: a changed route is accepted and its refs resolved.

After a spec change (a generation bump) every parent the route names gets a status entry, under
the controller that already reported for it or Envoy Gateway's: Accepted, and ResolvedRefs — False
with BackendNotFound when a backendRef names a Service the namespace lacks (judged only when the
stand-in holds Services there; a pack without them is taken to resolve). Both carry the new
generation as observedGeneration, which is how a client knows its change was taken up.
`route_accept_seconds` delays it, as a gateway's reconcile loop does.
"""

from __future__ import annotations

import functools

from bot.sandbox.kubernetes.clock import Clocked
from bot.sandbox.kubernetes.resources import GATEWAY, RESOURCES, Obj

_BY_KIND = {res.kind: res for res in RESOURCES}
ROUTE, SERVICE = _BY_KIND["HTTPRoute"], _BY_KIND["Service"]
CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller"


class Routes(Clocked):
    """HTTPRoute status after a spec change."""

    def _route_changed(self, route: Obj, before: Obj | None) -> None:
        generation = route["metadata"].get("generation", 1)
        if before is not None and before["metadata"].get("generation", 1) == generation:
            return
        accept = functools.partial(
            self._accept_route, route["metadata"]["namespace"], route["metadata"]["name"]
        )
        if self._route_accept_seconds:
            self._later(self._route_accept_seconds, accept)
        else:
            accept()

    def _accept_route(self, namespace: str, name: str) -> None:
        route = self._find(ROUTE, namespace, name)
        if route is None:
            return
        generation = route["metadata"].get("generation", 1)
        spec, status = route.get("spec") or {}, dict(route.get("status") or {})
        reported = status.get("parents") or []
        missing = self._missing_backend(route)
        parents = []
        for ref in spec.get("parentRefs") or []:
            parent_ref = {"group": GATEWAY, "kind": "Gateway", **ref}
            found: Obj = next(
                (p for p in reported if _same_parent(p.get("parentRef") or {}, parent_ref, namespace)), {}
            )
            before = {c.get("type"): c for c in found.get("conditions") or []}
            resolved = (
                ("False", "BackendNotFound", missing)
                if missing
                else ("True", "ResolvedRefs", "Resolved all the Object references for the Route")
            )
            wanted = [("Accepted", "True", "Accepted", "Route is accepted"), ("ResolvedRefs", *resolved)]
            conditions = []
            for kind, state, reason, message in wanted:
                old = before.get(kind) or {}
                kept = old.get("status") == state and old.get("lastTransitionTime")
                condition = {"type": kind, "status": state, "reason": reason, "message": message}
                condition |= {"observedGeneration": generation, "lastTransitionTime": kept or self._stamp()}
                conditions.append(condition)
            controller = found.get("controllerName") or next(
                (p["controllerName"] for p in reported if p.get("controllerName")), CONTROLLER
            )
            parents.append({"parentRef": parent_ref, "controllerName": controller, "conditions": conditions})
        self._put(ROUTE, route | {"status": status | {"parents": parents}})

    def _missing_backend(self, route: Obj) -> str | None:
        """The message for the first backendRef naming a Service that is not there, if any."""
        home = route["metadata"]["namespace"]
        for index, rule in enumerate((route.get("spec") or {}).get("rules") or []):
            for number, ref in enumerate(rule.get("backendRefs") or []):
                if ref.get("group", "") != "" or ref.get("kind", "Service") != "Service":
                    continue
                namespace = ref.get("namespace", home)
                services = self._objects(SERVICE, namespace)
                if services and all(s["metadata"]["name"] != ref.get("name") for s in services):
                    where = f"{namespace}/{ref.get('name')}"
                    return f"Failed to process route rule {index} backendRef {number}: service {where} not found."
        return None


def _same_parent(reported: Obj, wanted: Obj, home: str) -> bool:
    keys = ("name", "sectionName", "port")
    if any(reported.get(key) != wanted.get(key) for key in keys):
        return False
    return bool(reported.get("namespace", home) == wanted.get("namespace", home))
