"""Kubernetes evidence through the official client: rollouts and their diff, warning events,
pod health, node state, HTTPRoute backends — and the topology that scopes the other tools.

Read-only: only list/get calls. Each call carries the tool's timeout.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubernetes import client as k8s

from tools.events import Subjects, scoped_events
from tools.result import DEFAULT_TIMEOUT, Evidence, Gap, Source, ToolResult, Window, bounded, parse_time
from tools.routes import deliberate_split, route_changed_at
from tools.templates import template_diff

REVISION = "deployment.kubernetes.io/revision"
GPU_RESOURCE = "nvidia.com/gpu"


def api_client(url: str, *, token: str | None = None, verify_ssl: bool = True) -> k8s.ApiClient:
    """A client for an API server URL (the sandbox's, or a cluster's with a bearer token)."""
    config = k8s.Configuration()
    config.host = url.rstrip("/")
    config.verify_ssl = verify_ssl
    if token:
        config.api_key = {"authorization": f"Bearer {token}"}
    return k8s.ApiClient(config)


@dataclass
class Topology:
    """Who serves the incident: routes → services → pods → ReplicaSets/deployments → nodes."""

    namespace: str
    routes: list[dict[str, Any]] = field(default_factory=list)
    services: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    replicasets: list[dict[str, Any]] = field(default_factory=list)
    deployments: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    ingresses: list[dict[str, Any]] = field(default_factory=list)  # networking.k8s.io/v1


class KubeTool:
    """Read-only views of the cluster around the incident."""

    def __init__(self, api: k8s.ApiClient, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._api = api
        self._core = k8s.CoreV1Api(api)
        self._apps = k8s.AppsV1Api(api)
        self._custom = k8s.CustomObjectsApi(api)
        self._networking = k8s.NetworkingV1Api(api)
        self._timeout = timeout

    # -- raw reads (bounded) -------------------------------------------------------------------
    def _call(self, what: str, call: Callable[[], Any]) -> Any:
        got = bounded(Source.KUBERNETES, what, call, timeout=self._timeout)
        if isinstance(got, Gap):
            raise _GapError(got)
        return got

    def _items(self, what: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        """List objects as plain JSON: the client's typed models reject objects that omit fields a
        real server fills in (node info, for one), and the tools only read them."""
        response = self._call(
            what, lambda: call(*args, _request_timeout=self._timeout, _preload_content=False, **kwargs)
        )
        body = json.loads(response.data or b"{}")
        return list(body.get("items") or [])

    def topology(self, namespace: str) -> Topology | Gap:
        """Every object the scope resolution needs, in one namespace (nodes cluster-wide)."""
        try:
            return Topology(
                namespace=namespace,
                routes=self._routes(namespace),
                services=self._items("services", self._core.list_namespaced_service, namespace),
                pods=self._items("pods", self._core.list_namespaced_pod, namespace),
                replicasets=self._items("replicasets", self._apps.list_namespaced_replica_set, namespace),
                deployments=self._items("deployments", self._apps.list_namespaced_deployment, namespace),
                nodes=self._items("nodes", self._core.list_node),
                ingresses=self._ingresses(namespace),
            )
        except _GapError as exc:
            return exc.gap

    def _ingresses(self, namespace: str) -> list[dict[str, Any]]:
        try:
            return self._items("ingresses", self._networking.list_namespaced_ingress, namespace)
        except _GapError as exc:
            if "404" in exc.gap.reason or "Not Found" in exc.gap.reason:
                return []
            raise

    def _routes(self, namespace: str) -> list[dict[str, Any]]:
        try:
            return self._items(
                "httproutes",
                self._custom.list_namespaced_custom_object,
                "gateway.networking.k8s.io",
                "v1",
                namespace,
                "httproutes",
            )
        except _GapError as exc:
            if "404" in exc.gap.reason or "Not Found" in exc.gap.reason:
                return []  # Gateway API not installed: no routes, not a failure
            raise

    # -- evidence ------------------------------------------------------------------------------
    def rollouts(self, topo: Topology, window: Window, deployments: list[str] | None = None) -> ToolResult:
        """Deployment rollouts inside the window, with the diff of the new and previous templates."""
        evidence = []
        for deployment in topo.deployments:
            name = deployment["metadata"]["name"]
            if deployments is not None and name not in deployments:
                continue
            owned = sorted(
                (rs for rs in topo.replicasets if _owned_by(rs, "Deployment", name)),
                key=lambda rs: int((rs["metadata"].get("annotations") or {}).get(REVISION, "0")),
            )
            if not owned:
                continue
            newest = owned[-1]
            created = parse_time(newest["metadata"].get("creationTimestamp"))
            if created is None or not (window.start <= created <= window.as_of):
                continue
            previous = owned[-2] if len(owned) > 1 else None
            changes = template_diff(previous, newest) if previous else ["first revision"]
            revision = (newest["metadata"].get("annotations") or {}).get(REVISION, "?")
            cause = (newest["metadata"].get("annotations") or {}).get("kubernetes.io/change-cause")
            summary = f"deployment/{name} rolled out revision {revision} at {created:%H:%M:%S}Z"
            summary += f": {'; '.join(changes)}" if changes else " (no template change)"
            if cause:
                summary += f" (change-cause: {cause})"
            evidence.append(
                Evidence(
                    id=f"k8s:rollout:{topo.namespace}/{name}:{revision}",
                    source=Source.KUBERNETES,
                    query=f"GET /apis/apps/v1/namespaces/{topo.namespace}/replicasets (owner deployment/{name})",
                    summary=summary,
                    value=int(revision) if revision.isdigit() else revision,
                    at=created,
                    onset=created,
                    link=f"kubectl -n {topo.namespace} rollout history deployment/{name} --revision={revision}",
                    labels={
                        "kind": "rollout",
                        "deployment": name,
                        "replicaset": newest["metadata"]["name"],
                        "previous_replicaset": previous["metadata"]["name"] if previous else "",
                        "changes": " | ".join(changes),
                    },
                )
            )
        return ToolResult.of(evidence)

    def warning_events(self, topo: Topology, window: Window, subjects: Subjects) -> ToolResult:
        """Warning events of the incident's objects and the events of its nodes (see tools.events)."""
        try:
            events = self._items("events", self._core.list_namespaced_event, topo.namespace)
            if subjects.nodes:
                events += self._items(
                    "node events",
                    self._core.list_event_for_all_namespaces,
                    field_selector="involvedObject.kind=Node",
                )
        except _GapError as exc:
            return ToolResult.from_gap(exc.gap)
        return ToolResult.of(scoped_events(events, subjects, window, namespace=topo.namespace))

    def pod_health(self, topo: Topology, pods: list[str] | None = None) -> ToolResult:
        """Restarts, last termination reasons, waiting reasons and readiness of the pods in scope."""
        evidence = []
        for pod in topo.pods:
            name = pod["metadata"]["name"]
            if pods is not None and name not in pods:
                continue
            status = pod.get("status") or {}
            node = (pod.get("spec") or {}).get("nodeName", "")
            ready = any(
                c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or []
            )
            problems, onset = [], None
            restarts = 0
            for cs in status.get("containerStatuses") or []:
                restarts += int(cs.get("restartCount") or 0)
                terminated = ((cs.get("lastState") or {}).get("terminated")) or {}
                if terminated.get("reason"):
                    finished = parse_time(terminated.get("finishedAt"))
                    problems.append(
                        f"{cs.get('name')} last terminated {terminated['reason']} "
                        f"(exit {terminated.get('exitCode')})"
                        + (f" at {finished:%H:%M:%S}Z" if finished else "")
                    )
                    onset = min(filter(None, [onset, finished]), default=None)
                waiting = ((cs.get("state") or {}).get("waiting")) or {}
                if waiting.get("reason"):
                    problems.append(f"{cs.get('name')} waiting: {waiting['reason']}")
            if restarts:
                problems.insert(0, f"{restarts} restarts")
            if not ready:
                problems.append("not ready")
            if not problems:
                continue
            evidence.append(
                Evidence(
                    id=f"k8s:pod:{topo.namespace}/{name}",
                    source=Source.KUBERNETES,
                    query=f"GET /api/v1/namespaces/{topo.namespace}/pods/{name}",
                    summary=f"pod/{name} on {node or 'no node'}: " + "; ".join(problems),
                    value=restarts,
                    at=onset,
                    onset=onset,
                    link=f"kubectl -n {topo.namespace} describe pod {name}",
                    labels={
                        "kind": "pod",
                        "pod": name,
                        "node": node,
                        "ready": str(ready).lower(),
                        "reasons": ",".join(
                            sorted(
                                {
                                    p.split(" last terminated ")[-1].split(" ")[0]
                                    for p in problems
                                    if "last terminated" in p
                                }
                            )
                        ),
                    },
                )
            )
        return ToolResult.of(evidence)

    def node_state(self, topo: Topology, nodes: list[str]) -> ToolResult:
        """Conditions, taints, cordons and allocatable GPUs of the nodes in scope (none when it names none)."""
        evidence = []
        for node in topo.nodes:
            name = node["metadata"]["name"]
            if name not in nodes:
                continue
            spec, status = node.get("spec") or {}, node.get("status") or {}
            problems, onset = [], None
            for cond in status.get("conditions") or []:
                healthy = "True" if cond.get("type") == "Ready" else "False"
                if cond.get("status") != healthy:
                    since = parse_time(cond.get("lastTransitionTime"))
                    problems.append(
                        f"{cond.get('type')}={cond.get('status')} ({cond.get('reason', '')})"
                        + (f" since {since:%H:%M:%S}Z" if since else "")
                    )
                    onset = min(filter(None, [onset, since]), default=None)
            taints = [f"{t.get('key')}:{t.get('effect')}" for t in spec.get("taints") or []]
            gpus = (status.get("allocatable") or {}).get(GPU_RESOURCE, "0")
            capacity = (status.get("capacity") or {}).get(GPU_RESOURCE, gpus)
            if str(gpus).isdigit() and str(capacity).isdigit() and int(gpus) < int(capacity):
                # The device plugin withdraws a GPU it finds unhealthy (an Xid, a lost card).
                problems.append(f"only {gpus} of {capacity} GPUs allocatable")
            if spec.get("unschedulable"):
                problems.append("cordoned")
            summary = f"node/{name}: " + ("; ".join(problems) if problems else "Ready")
            summary += f"; {gpus} GPUs allocatable"
            if taints:
                summary += f"; taints {', '.join(taints)}"
            evidence.append(
                Evidence(
                    id=f"k8s:node:{name}",
                    source=Source.KUBERNETES,
                    query=f"GET /api/v1/nodes/{name}",
                    summary=summary,
                    value=len(problems),
                    at=onset,
                    onset=onset,
                    link=f"kubectl describe node {name}",
                    layer="INF" if problems else None,
                    labels={
                        "kind": "node",
                        "node": name,
                        "healthy": str(not problems).lower(),
                        "gpus": str(gpus),
                        "unschedulable": str(bool(spec.get("unschedulable"))).lower(),
                    },
                )
            )
        return ToolResult.of(evidence)

    def route_backends(self, topo: Topology, routes: list[str] | None = None) -> ToolResult:
        """HTTPRoute backends and their weights (share of traffic each gets)."""
        evidence = []
        for route in topo.routes:
            name = route["metadata"]["name"]
            if routes is not None and name not in routes:
                continue
            changed = route_changed_at(route)
            canary = deliberate_split(route)
            for index, rule in enumerate((route.get("spec") or {}).get("rules") or []):
                refs = rule.get("backendRefs") or []
                total = sum(int(r.get("weight", 1)) for r in refs) or 1
                shares = [f"{r.get('name')} {int(r.get('weight', 1)) / total:.0%}" for r in refs]
                evidence.append(
                    Evidence(
                        id=f"k8s:route:{topo.namespace}/{name}:{index}",
                        source=Source.KUBERNETES,
                        query=f"GET /apis/gateway.networking.k8s.io/v1/namespaces/{topo.namespace}/httproutes/{name}",
                        summary=f"httproute/{name} rule {index}: " + ", ".join(shares),
                        value=max((int(r.get("weight", 1)) / total for r in refs), default=0.0),
                        link=f"kubectl -n {topo.namespace} get httproute {name} -o yaml",
                        labels={
                            "kind": "route",
                            "route": name,
                            "rule": str(index),
                            "backends": ",".join(f"{r.get('name')}={r.get('weight', 1)}" for r in refs),
                            **({"changed_at": f"{changed:%Y-%m-%dT%H:%M:%SZ}"} if changed else {}),
                            "canary": str(canary).lower(),
                        },
                    )
                )
        return ToolResult.of(evidence)


class _GapError(Exception):
    def __init__(self, gap: Gap) -> None:
        super().__init__(str(gap))
        self.gap = gap


def _owned_by(obj: dict[str, Any], kind: str, name: str) -> bool:
    return any(
        o.get("kind") == kind and o.get("name") == name for o in obj["metadata"].get("ownerReferences") or []
    )
