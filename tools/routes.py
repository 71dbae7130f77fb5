"""What a route says about itself: when its spec last changed, and whether its split is a canary's.

A skewed split is a fault only when it is new and unplanned: one set long before the incident is
how the service runs, and one that a progressive-delivery controller (Flagger, Argo Rollouts) or a
hand-made canary owns is the plan.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from tools.result import parse_time

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CANARY = re.compile(r"(canary|primary|stable|flagger|argo-?rollouts|rollouts\.argoproj\.io)", re.I)


def backend_services(route: dict[str, Any]) -> set[str]:
    """The Services an HTTPRoute sends traffic to, over all its rules."""
    return {
        str(name)
        for rule in (route.get("spec") or {}).get("rules") or []
        for ref in rule.get("backendRefs") or []
        if (name := ref.get("name"))
    }


def deliberate_split(route: dict[str, Any]) -> bool:
    """Whether the route's split is a progressive delivery's (Flagger, Argo Rollouts, a hand-made
    canary): its labels, annotations or backends say so, and its skew is the plan, not a fault."""
    meta = route.get("metadata") or {}
    marks = [*(meta.get("labels") or {}).items(), *(meta.get("annotations") or {}).items()]
    marked = any(CANARY.search(f"{k}={v}") for k, v in marks if k != LAST_APPLIED)
    names = backend_services(route)
    managers = [str(m.get("manager", "")) for m in meta.get("managedFields") or []]
    return marked or any(CANARY.search(n) for n in names) or any(CANARY.search(m) for m in managers)


def route_changed_at(route: dict[str, Any]) -> datetime | None:
    """When the route's spec last changed, as far as the object tells: its managers' last writes,
    else when its controller last accepted the current generation."""
    meta = route.get("metadata") or {}
    writes = [
        t
        for m in meta.get("managedFields") or []
        if m.get("subresource") != "status" and (t := parse_time(m.get("time"))) is not None
    ]
    if writes:
        return max(writes)
    generation = meta.get("generation")
    accepted = [
        t
        for parent in (route.get("status") or {}).get("parents") or []
        for cond in parent.get("conditions") or []
        if cond.get("type") == "Accepted"
        and (generation is None or cond.get("observedGeneration") == generation)
        and (t := parse_time(cond.get("lastTransitionTime"))) is not None
    ]
    return max(accepted) if accepted else None


def ingress_services(ingress: dict[str, Any]) -> set[str]:
    """The Services an Ingress sends traffic to (its rules' paths and its default backend)."""
    spec = ingress.get("spec") or {}
    backends = [spec.get("defaultBackend") or {}]
    backends += [
        path.get("backend") or {}
        for rule in spec.get("rules") or []
        for path in (rule.get("http") or {}).get("paths") or []
    ]
    return {str(name) for b in backends if (name := (b.get("service") or {}).get("name"))}
