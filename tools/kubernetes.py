"""Kubernetes evidence through the official client: rollouts and their diff, warning events,
pod health, node state, HTTPRoute backends — and the topology that scopes the other tools.

Read-only: only list/get calls. Each call carries the tool's timeout. Where clusters differ, the
tool asks the newer API first and falls back: events.k8s.io/v1 events, else core/v1; HTTPRoutes of
gateway.networking.k8s.io/v1, else v1beta1 (older Gateway API installs), listed across namespaces
(a route in a gateway's namespace may send traffic here), else only in the incident's namespace.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from tools.events import Subjects, scoped_events
from tools.kube_rollouts import REVISION, by_revision, is_rollback, rollout_evidence
from tools.kube_topology import Topology, pod_name_pattern
from tools.result import (
    DEFAULT_TIMEOUT,
    Evidence,
    Gap,
    Source,
    Status,
    ToolResult,
    Window,
    bounded,
    describe_error,
    parse_time,
)
from tools.routes import route_evidence, serves_namespace

__all__ = ["REVISION", "KubeTool", "Topology", "api_client", "pod_name_pattern"]

GPU_RESOURCE = "nvidia.com/gpu"
GATEWAY = "gateway.networking.k8s.io"
ROUTE_VERSIONS = ("v1", "v1beta1")
EVENTS_V1 = "/apis/events.k8s.io/v1"
NO_GATEWAY_API = "Gateway API not installed"


def api_client(url: str, *, token: str | None = None, verify_ssl: bool = True) -> k8s.ApiClient:
    """A client for an API server URL (the sandbox's, or a cluster's with a bearer token)."""
    config = k8s.Configuration()
    config.host = url.rstrip("/")
    config.verify_ssl = verify_ssl
    if token:
        config.api_key = {"authorization": f"Bearer {token}"}
    return k8s.ApiClient(config)


class KubeTool:
    """Read-only views of the cluster around the incident."""

    def __init__(self, api: k8s.ApiClient, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._api = api
        self._core = k8s.CoreV1Api(api)
        self._apps = k8s.AppsV1Api(api)
        self._custom = k8s.CustomObjectsApi(api)
        self._networking = k8s.NetworkingV1Api(api)
        self._events_v1 = k8s.EventsV1Api(api)
        self._timeout = timeout

    # -- raw reads (bounded) -------------------------------------------------------------------
    def _call(self, what: str, call: Callable[[], Any]) -> Any:
        def answered() -> Any:
            try:
                return call()
            except ApiException as exc:  # kept apart: the status decides the fallbacks
                return _Refused(int(exc.status or 0), describe_error(exc))

        got = bounded(Source.KUBERNETES, what, answered, timeout=self._timeout)
        if isinstance(got, Gap):
            raise _GapError(got)
        if isinstance(got, _Refused):
            raise _GapError(Gap(source=Source.KUBERNETES, what=what, reason=got.reason), got.status)
        return got

    def _items(self, what: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        """List objects as plain JSON: the client's typed models reject objects that omit fields a
        real server fills in (node info, for one), and the tools only read them."""
        response = self._call(
            what, lambda: call(*args, _request_timeout=self._timeout, _preload_content=False, **kwargs)
        )
        try:
            body = json.loads(response.data or b"{}")
        except ValueError:
            kind = response.headers.get("content-type", "no content type") if response.headers else "?"
            raise _GapError(_garbled(what, f"the answer is not JSON ({kind})")) from None
        items = body.get("items") if isinstance(body, dict) else None
        if not isinstance(items, list | None) or not all(isinstance(i, dict) for i in items or []):
            raise _GapError(_garbled(what, "the answer is not a Kubernetes list (no items of objects)"))
        return list(items or [])

    def topology(self, namespace: str) -> Topology | Gap:
        """Every object the scope resolution needs, in one namespace (nodes cluster-wide, routes
        wherever they send traffic into it)."""
        try:
            routes, version, gaps = self._routes(namespace)
            return Topology(
                namespace=namespace,
                routes=routes,
                services=self._items("services", self._core.list_namespaced_service, namespace),
                pods=self._items("pods", self._core.list_namespaced_pod, namespace),
                replicasets=self._items("replicasets", self._apps.list_namespaced_replica_set, namespace),
                deployments=self._items("deployments", self._apps.list_namespaced_deployment, namespace),
                nodes=self._items("nodes", self._core.list_node),
                ingresses=self._ingresses(namespace),
                route_version=version,
                gaps=gaps,
            )
        except _GapError as exc:
            return exc.gap

    def _ingresses(self, namespace: str) -> list[dict[str, Any]]:
        try:
            return self._items("ingresses", self._networking.list_namespaced_ingress, namespace)
        except _GapError as exc:
            if exc.status == 404 or "404" in exc.gap.reason:
                return []
            raise

    def _routes(self, namespace: str) -> tuple[list[dict[str, Any]], str, list[Gap]]:
        """HTTPRoutes of the newest served version: across namespaces, those of `namespace` and
        those with a backend in it; where listing across namespaces is forbidden (a namespaced
        role), the namespace's own, with a gap saying what could not be seen."""
        for version in ROUTE_VERSIONS:
            try:
                listed = self._items(
                    "httproutes", self._custom.list_cluster_custom_object, GATEWAY, version, "httproutes"
                )
                return [r for r in listed if serves_namespace(r, namespace)], version, []
            except _GapError as exc:
                if exc.status == 404:
                    continue  # this version is not served: try the older one
                if exc.status != 403:
                    raise
            try:
                own = self._items(
                    "httproutes",
                    self._custom.list_namespaced_custom_object,
                    GATEWAY,
                    version,
                    namespace,
                    "httproutes",
                )
            except _GapError as exc:
                if exc.status == 404:
                    continue
                raise
            reason = (
                "listing httproutes across namespaces is forbidden: cross-namespace routes "
                f"(a gateway namespace's routes to {namespace}'s Services) could not be read"
            )
            return own, version, [Gap(source=Source.KUBERNETES, what="httproutes", reason=reason)]
        reason = f"{NO_GATEWAY_API} (no HTTPRoute in {GATEWAY} v1 or v1beta1)"
        return [], ROUTE_VERSIONS[0], [Gap(source=Source.KUBERNETES, what="httproutes", reason=reason)]

    def _events(self, namespace: str, *, nodes: bool) -> tuple[list[dict[str, Any]], str]:
        """The namespace's events (and every node's), from events.k8s.io/v1 where it is served and
        readable, else from core/v1; the API read is returned for the evidence's query."""
        try:
            events = self._items("events", self._events_v1.list_namespaced_event, namespace)
            if nodes:
                events += self._items(
                    "node events",
                    self._events_v1.list_event_for_all_namespaces,
                    field_selector="regarding.kind=Node",
                )
            return events, EVENTS_V1
        except _GapError as exc:
            if exc.status not in (403, 404):
                raise
        events = self._items("events", self._core.list_namespaced_event, namespace)
        if nodes:
            events += self._items(
                "node events",
                self._core.list_event_for_all_namespaces,
                field_selector="involvedObject.kind=Node",
            )
        return events, "/api/v1"

    # -- evidence ------------------------------------------------------------------------------
    def rollouts(self, topo: Topology, window: Window, deployments: list[str] | None = None) -> ToolResult:
        """Deployment rollouts and rollbacks inside the window, ordered by revision, with the diff of
        the new and previous templates (see tools.kube_rollouts). The namespace's events, which
        date a rollback, are read only when a rollback is there to date."""
        evidence = []
        events: list[dict[str, Any]] | None = None
        for deployment in topo.deployments:
            name = deployment["metadata"]["name"]
            if deployments is not None and name not in deployments:
                continue
            if events is None and self._reused(deployment, topo):
                try:
                    events = self._events(topo.namespace, nodes=False)[0]
                except _GapError:
                    events = []  # undated by events: the other sources still date it
            found = rollout_evidence(
                deployment, topo.replicasets, window, namespace=topo.namespace, events=events or []
            )
            if found is not None:
                evidence.append(found)
        return ToolResult.of(evidence)

    @staticmethod
    def _reused(deployment: dict[str, Any], topo: Topology) -> bool:
        """Whether the Deployment's current ReplicaSet is a reused one (a rollback to date)."""
        owned = by_revision(deployment, topo.replicasets)
        return len(owned) > 1 and is_rollback(owned[-1], owned[:-1])

    def warning_events(self, topo: Topology, window: Window, subjects: Subjects) -> ToolResult:
        """Warning events of the incident's objects and the events of its nodes (see tools.events)."""
        try:
            events, api = self._events(topo.namespace, nodes=bool(subjects.nodes))
        except _GapError as exc:
            return ToolResult.from_gap(exc.gap)
        return ToolResult.of(scoped_events(events, subjects, window, namespace=topo.namespace, api=api))

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
        """HTTPRoute backends and their weights (share of traffic each gets); a backend in another
        namespace than its route's is named `namespace/name`."""
        evidence = []
        for route in topo.routes:
            name = route["metadata"]["name"]
            home = route["metadata"].get("namespace") or topo.namespace
            if routes is not None and name not in routes:
                continue
            evidence += route_evidence(route, version=topo.route_version, namespace=home)
        # No Gateway API where Ingresses front the namespace is how it runs, not a blind spot.
        gaps = [
            g
            for g in topo.gaps
            if g.what == "httproutes" and not (topo.ingresses and g.reason.startswith(NO_GATEWAY_API))
        ]
        if gaps:
            return ToolResult(status=Status.OK if evidence else Status.ERROR, evidence=evidence, gap=gaps[0])
        return ToolResult.of(evidence)


@dataclass(frozen=True)
class _Refused:
    """The API server's refusal (its status code), kept from the client's exception."""

    status: int
    reason: str


def _garbled(what: str, reason: str) -> Gap:
    return Gap(source=Source.KUBERNETES, what=what, reason=f"{reason}: is the URL the API server's?")


class _GapError(Exception):
    def __init__(self, gap: Gap, status: int | None = None) -> None:
        super().__init__(str(gap))
        self.gap = gap
        self.status = status
