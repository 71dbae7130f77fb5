"""What a route says about itself: when its spec last changed, and whether its split is a canary's.

A skewed split is a fault only when it is new and unplanned: one set long before the incident is
how the service runs, and one that a progressive-delivery controller (Flagger, Argo Rollouts) or a
hand-made canary owns is the plan.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from tools.result import Evidence, Source, parse_time

GATEWAY = "gateway.networking.k8s.io"

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CANARY = re.compile(r"(canary|primary|stable|flagger|argo-?rollouts|rollouts\.argoproj\.io)", re.I)


def ref_namespace(route: dict[str, Any], ref: dict[str, Any]) -> str:
    """The namespace a backendRef points into: its own `namespace`, else the route's (Gateway API:
    "When unspecified, the local namespace is inferred"; another namespace needs a ReferenceGrant)."""
    return str(ref.get("namespace") or (route.get("metadata") or {}).get("namespace") or "")


def backend_services(route: dict[str, Any], namespace: str | None = None) -> set[str]:
    """The backends an HTTPRoute sends traffic to, over all its rules (only those in `namespace`,
    when given): Services, or an InferencePool, whose name a scope resolves the same way."""
    return {
        str(name)
        for rule in (route.get("spec") or {}).get("rules") or []
        for ref in rule.get("backendRefs") or []
        if (name := ref.get("name")) and (namespace is None or ref_namespace(route, ref) == namespace)
    }


def serves_namespace(route: dict[str, Any], namespace: str) -> bool:
    """Whether the route is the namespace's: it lives there, or one of its backends does."""
    home = (route.get("metadata") or {}).get("namespace")
    return home == namespace or bool(backend_services(route, namespace))


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


def backend_name(route: dict[str, Any], ref: dict[str, Any]) -> str:
    """A backendRef's name, as `namespace/name` when it points out of the route's namespace."""
    where = ref_namespace(route, ref)
    home = (route.get("metadata") or {}).get("namespace") or where
    return str(ref.get("name")) if where == home else f"{where}/{ref.get('name')}"


def route_evidence(route: dict[str, Any], *, version: str, namespace: str) -> list[Evidence]:
    """One evidence item per rule: its backends' shares of the traffic (weight / sum of weights,
    1 when unset, 0 for none), when the route last changed, and whether the split is a canary's.
    `namespace` is the route's own, `version` the gateway.networking.k8s.io version read."""
    name = route["metadata"]["name"]
    changed = route_changed_at(route)
    canary = deliberate_split(route)
    path = f"/apis/{GATEWAY}/{version}/namespaces/{namespace}/httproutes/{name}"
    evidence = []
    for index, rule in enumerate((route.get("spec") or {}).get("rules") or []):
        refs = rule.get("backendRefs") or []
        total = sum(int(r.get("weight", 1)) for r in refs) or 1
        named = [(backend_name(route, r), int(r.get("weight", 1)), r.get("weight", 1)) for r in refs]
        evidence.append(
            Evidence(
                id=f"k8s:route:{namespace}/{name}:{index}",
                source=Source.KUBERNETES,
                query=f"GET {path}",
                summary=f"httproute/{name} rule {index}: "
                + ", ".join(f"{n} {w / total:.0%}" for n, w, _ in named),
                value=max((w / total for _, w, _ in named), default=0.0),
                link=f"kubectl -n {namespace} get httproute {name} -o yaml",
                labels={
                    "kind": "route",
                    "route": name,
                    "namespace": namespace,
                    "rule": str(index),
                    "backends": ",".join(f"{n}={raw}" for n, _, raw in named),
                    **({"changed_at": f"{changed:%Y-%m-%dT%H:%M:%SZ}"} if changed else {}),
                    "canary": str(canary).lower(),
                },
            )
        )
    return evidence
