"""Resolve what an alert touches: namespace, route, services, pods, deployments, nodes.

Names differ from team to team and the alert's labels rarely name everything, so the scope is
derived, never assumed: from the alert's labels, the label matchers of its own PromQL, and the
cluster's topology (an HTTPRoute's backends → Services → their pods → ReplicaSets → Deployments,
and the pods' nodes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.alertmanager import MODEL_LABELS, SERVICE_LABELS
from bot.promql import NAMESPACE_LABELS, alert_namespace, contour_services, envoy_routes, matchers
from bot.triage.request import TriageRequest
from tools.events import Subjects
from tools.kubernetes import Topology
from tools.routes import backend_services, ingress_services
from tools.templates import flags

DEFAULT_NAMESPACE = "default"
# Labels (and PromQL matchers) that may name the incident's objects: the plain ones, and those of
# meshes and ingress controllers (Istio's destination, ingress-nginx's exported service).
NAME_KEYS = (
    "service",
    "deployment",
    "app",
    "job",
    "route",
    "httproute",
    "model",
    "model_name",
    "container",
    "destination_service_name",
    "destination_workload",
    "destination_app",
    "exported_service",
    "ingress",
)


@dataclass(frozen=True)
class IncidentScope:
    """Everything the tools need to point at the right objects."""

    namespace: str
    service: str | None = None
    model: str | None = None
    routes: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    deployments: list[str] = field(default_factory=list)
    # Other deployments of the same application (`app.kubernetes.io/part-of`): the model servers an
    # alerting API calls. Their rollouts are read (a model change there breaks the API), nothing else.
    related: list[str] = field(default_factory=list)
    pods: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)  # PersistentVolumeClaims its pods mount
    notes: list[str] = field(default_factory=list)
    namespace_assumed: bool = False  # nothing named it: Kubernetes' `default`, a guess
    unresolved: str | None = None  # why no pod of the cluster could be tied to the alert

    def public(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "service": self.service,
            "model": self.model,
            "routes": self.routes,
            "services": self.services,
            "deployments": self.deployments,
            "related": self.related,
            "pods": self.pods,
            "nodes": self.nodes,
            "claims": self.claims,
            "notes": self.notes,
            "namespace_assumed": self.namespace_assumed,
            "unresolved": self.unresolved,
        }


def labels_of(obj: dict[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("labels") or {})


def name_of(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["name"])


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """Whether a Service selector (non-empty, all labels equal) picks an object with `labels`."""
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def owner_of(obj: dict[str, Any], kind: str) -> str | None:
    """The name of the object's owner of `kind` (a pod's ReplicaSet, a ReplicaSet's Deployment)."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("kind") == kind:
            return str(ref.get("name"))
    return None


def named_namespace(request: TriageRequest) -> str | None:
    """The incident's namespace, else the one its alerts name (label, PromQL, gateway cluster)."""
    if request.incident.namespace:
        return request.incident.namespace
    labels = {name: request.label(name) or "" for name in (*NAMESPACE_LABELS, "envoy_cluster_name")}
    return alert_namespace(labels, request.queries)


def resolve(
    request: TriageRequest, topology: Topology | None, *, namespace: str, named: bool = True
) -> IncidentScope:
    """Walk from the incident's names to the objects that serve them, in `namespace` (`named`: the
    incident or its alert names that namespace, rather than a default standing in for it)."""
    from_expr: dict[str, list[str]] = {}
    for query in request.queries:
        for key, values in matchers(query).items():
            from_expr.setdefault(key, []).extend(values)
    service = request.incident.service or request.label(*SERVICE_LABELS)
    model = request.incident.model or request.label(*MODEL_LABELS)
    names = {v for key in NAME_KEYS for v in [*request.labels(key), *from_expr.get(key, [])] if v}
    names |= {n for n in (service, model) if n}
    clusters = [*request.labels("envoy_cluster_name"), *from_expr.get("envoy_cluster_name", [])]
    names |= {route for _, route in envoy_routes(clusters)}
    names |= {service for _, service in contour_services(clusters)}
    pod_hints = [p for p in [*request.labels("pod"), *from_expr.get("pod", [])] if p]
    node_hints = [
        n
        for n in [*request.labels("node"), *request.labels("instance_node"), *from_expr.get("node", [])]
        if n
    ]
    if topology is None:
        return IncidentScope(
            namespace=namespace,
            service=service,
            model=model,
            pods=pod_hints,
            nodes=node_hints,
            deployments=request.labels("deployment"),
            notes=["Kubernetes topology unavailable: scope from the alert's labels only"],
        )
    return _walk(topology, namespace, service, model, names, pod_hints, node_hints, named)


def _walk(
    topo: Topology,
    ns: str,
    service: str | None,
    model: str | None,
    names: set[str],
    pod_hints: list[str],
    node_hints: list[str],
    named: bool,
) -> IncidentScope:
    notes: list[str] = []
    if model:
        names |= {name_of(d) for d in topo.deployments if model in served_models(d)}
    # A pod an alert names may be gone (replaced since it crashed): its name still says whose it
    # was, `<deployment>-<pod-template-hash>-<suffix>`.
    names |= {name_of(d) for d in topo.deployments for h in pod_hints if _pod_of(name_of(d), h)}
    routes = [r for r in topo.routes if name_of(r) in names]
    backend_names = {svc for r in routes for svc in backend_services(r)}
    backend_names |= {svc for ing in topo.ingresses if name_of(ing) in names for svc in ingress_services(ing)}
    services = [s for s in topo.services if name_of(s) in names | backend_names]
    if not routes and services:
        wanted = {name_of(s) for s in services}
        routes = [r for r in topo.routes if backend_services(r) & wanted]
    selectors = [dict((s.get("spec") or {}).get("selector") or {}) for s in services]
    rs_to_deploy = {name_of(rs): owner_of(rs, "Deployment") for rs in topo.replicasets}
    pods = []
    for pod in topo.pods:
        deployment = rs_to_deploy.get(owner_of(pod, "ReplicaSet") or "")
        if (
            any(selects(sel, labels_of(pod)) for sel in selectors)
            or name_of(pod) in pod_hints
            or any(re.fullmatch(h, name_of(pod)) for h in pod_hints if any(c in h for c in ".*+"))
            or (deployment is not None and deployment in names)
        ):
            pods.append(pod)
    deployments = sorted(
        {d for p in pods if (d := rs_to_deploy.get(owner_of(p, "ReplicaSet") or ""))}
        | {name_of(d) for d in topo.deployments if name_of(d) in names}
    )
    if not pods and deployments:
        pods = [p for p in topo.pods if rs_to_deploy.get(owner_of(p, "ReplicaSet") or "") in deployments]
    groups = {(k, v) for p in pods for k, v in labels_of(p).items() if k in GROUP_LABELS}
    pods += [p for p in topo.pods if p not in pods and any(labels_of(p).get(k) == v for k, v in groups)]
    unresolved = None
    listed = ", ".join(sorted(names)) or "none"
    if not pods and named:
        # A namespace-wide alert: the namespace it names is the scope, never the cluster.
        unresolved = (
            f"no workload of namespace {ns} matched the alert's names ({listed}): every pod of {ns} is read"
        )
        pods = list(topo.pods)
        deployments = sorted({d for p in pods if (d := rs_to_deploy.get(owner_of(p, "ReplicaSet") or ""))})
    elif not pods:
        unresolved = f"no pod of namespace {ns} matched the alert's names ({listed}): pods, nodes and GPUs are not read"
    nodes = sorted({n for p in pods if (n := (p.get("spec") or {}).get("nodeName"))} | set(node_hints))
    served = [d for d in topo.deployments if name_of(d) in deployments]
    return IncidentScope(
        related=_same_application(topo, served),
        namespace=ns,
        service=service
        or _only([name_of(r) for r in routes] or [name_of(s) for s in services] or deployments),
        model=model or _only(sorted({m for d in served if (m := _model_of(d))})),
        routes=sorted(name_of(r) for r in routes),
        services=sorted(name_of(s) for s in services),
        deployments=deployments,
        pods=sorted(name_of(p) for p in pods),
        nodes=nodes,
        claims=_claims([*pods, *(((d.get("spec") or {}).get("template") or {}) for d in served)]),
        notes=notes,
        unresolved=unresolved,
    )


PART_OF = "app.kubernetes.io/part-of"
# Labels that tie a multi-node replica's pods together: a Service selects only the leader, but the
# workers on the other nodes serve the same requests (LeaderWorkerSet, KubeRay).
GROUP_LABELS = frozenset({"leaderworkerset.sigs.k8s.io/name", "ray.io/cluster"})


def _same_application(topo: Topology, served: list[dict[str, Any]]) -> list[str]:
    """The other deployments labelled part of the same application as the incident's."""

    def part_of(d: dict[str, Any]) -> str | None:
        template = ((d.get("spec") or {}).get("template") or {}).get("metadata") or {}
        return labels_of(d).get(PART_OF) or dict(template.get("labels") or {}).get(PART_OF)

    apps = {a for d in served if (a := part_of(d))}
    mine = {name_of(d) for d in served}
    return sorted(name_of(d) for d in topo.deployments if name_of(d) not in mine and part_of(d) in apps)


def _pod_of(deployment: str, pod: str) -> bool:
    return re.fullmatch(rf"{re.escape(deployment)}-[a-z0-9]{{5,10}}-[a-z0-9]{{5}}", pod) is not None


def _claims(pods: list[dict[str, Any]]) -> list[str]:
    """The PersistentVolumeClaims that pods (or pod templates) mount."""
    return sorted(
        {
            str(claim)
            for p in pods
            for v in (p.get("spec") or {}).get("volumes") or []
            if (claim := (v.get("persistentVolumeClaim") or {}).get("claimName"))
        }
    )


def _only(values: list[str]) -> str | None:
    return values[0] if len(set(values)) == 1 else None


MODEL_FLAGS = ("--served-model-name", "--model", "--model-id", "--model-path", "--model-repository")
MODEL_ENV = ("MODEL_ID", "MODEL_NAME", "MODEL")


def served_models(deployment: dict[str, Any]) -> list[str]:
    """The names a deployment serves its model under, as its engine's flags or environment say
    (the served name first): an alert from an SLO generator often names only the model."""
    spec = ((deployment.get("spec") or {}).get("template") or {}).get("spec") or {}
    names: list[str] = []
    for container in spec.get("containers") or []:
        given = flags([*(container.get("command") or []), *(container.get("args") or [])])
        env = {e.get("name"): e.get("value") for e in container.get("env") or []}
        for value in [*(given.get(f) for f in MODEL_FLAGS), *(env.get(k) for k in MODEL_ENV)]:
            if value:
                names += [str(value), str(value).rstrip("/").rsplit("/", 1)[-1]]
    return list(dict.fromkeys(names))


def _model_of(deployment: dict[str, Any]) -> str | None:
    names = served_models(deployment)
    return names[0].rstrip("/").rsplit("/", 1)[-1] if names else None


def subjects(scope: IncidentScope, topology: Topology | None) -> Subjects:
    """The objects whose events are the incident's: its pods, their ReplicaSets and Deployments,
    the nodes they run on, its Services and routes."""
    replicasets = [
        name_of(rs)
        for rs in (topology.replicasets if topology else [])
        if owner_of(rs, "Deployment") in scope.deployments
    ]
    return Subjects.of(
        pod=scope.pods,
        replicaset=replicasets,
        deployment=scope.deployments,
        node=scope.nodes,
        service=scope.services,
        httproute=scope.routes,
        horizontalpodautoscaler=scope.deployments,
    )
