"""What the bot may do in the cluster, asked of the cluster itself: for `doctor` and set-up checks.

A SelfSubjectAccessReview is a create call that changes nothing: the API server answers whether the
caller could make a request, by the same authorizer (RBAC, webhooks) that would judge it. Asking
before an incident says which evidence the triage will miss and which approved action would be
refused, instead of finding out at 3 a.m. `READ_CHECKS` are the verbs the evidence tools use,
`ACTION_CHECKS` those of the action executors (bot/actions/kube.py; kept here as data, since
tools import nothing from the bot). `whoami` asks who the token is (SelfSubjectReview,
authentication.k8s.io/v1, Kubernetes 1.28+).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from kubernetes import client as k8s

from tools.result import Gap, Source, bounded

THE_NAMESPACE = "{namespace}"  # filled by `for_namespace`; a check left with it asks for all namespaces
GATEWAY = "gateway.networking.k8s.io"


@dataclass(frozen=True)
class AccessCheck:
    """One request the bot makes: verb, resource (and subresource) of an API group, where, and why.
    `namespace` None is cluster-wide: a cluster-scoped kind, or a list across all namespaces."""

    verb: str
    resource: str
    group: str = ""
    namespace: str | None = THE_NAMESPACE
    subresource: str = ""
    why: str = ""

    def __str__(self) -> str:
        what = self.resource + (f"/{self.subresource}" if self.subresource else "")
        what += f".{self.group}" if self.group else ""
        where = f" in {self.namespace}" if self.namespace else " cluster-wide"
        return f"{self.verb} {what}{where}"


@dataclass(frozen=True)
class AccessResult:
    """The answer: allowed, refused, or None when the review itself could not be asked (`reason` says why)."""

    check: AccessCheck
    allowed: bool | None
    reason: str


@dataclass(frozen=True)
class Identity:
    """Who the API server takes the token for."""

    username: str
    groups: tuple[str, ...] = ()
    uid: str = ""


def _read(verb: str, resource: str, group: str = "", *, why: str, **where: Any) -> AccessCheck:
    return AccessCheck(verb, resource, group, why=why, **where)


# The evidence tools' reads (tools/kubernetes.py, tools/gpu/agents.py).
READ_CHECKS: tuple[AccessCheck, ...] = (
    _read("list", "pods", why="topology: the incident's pods, their restarts and readiness"),
    _read("list", "services", why="topology: the route's backends"),
    _read("list", "replicasets", "apps", why="rollouts: revisions and template diffs"),
    _read("list", "deployments", "apps", why="topology and rollouts"),
    _read("list", "nodes", why="node conditions, cordons, allocatable GPUs", namespace=None),
    _read("get", "nodes", why="GPU agents: a node's address", namespace=None),
    _read("list", "events", "events.k8s.io", why="warning events (events.k8s.io/v1)"),
    _read("list", "events", "events.k8s.io", why="node events across namespaces", namespace=None),
    _read("list", "events", why="warning events where events.k8s.io is not served (core/v1)"),
    _read("list", "events", why="node events where events.k8s.io is not served", namespace=None),
    _read(
        "list", "httproutes", GATEWAY, why="routes in other namespaces that send traffic here", namespace=None
    ),
    _read("list", "httproutes", GATEWAY, why="the namespace's routes and their weights"),
    _read("list", "ingresses", "networking.k8s.io", why="Ingresses in front of the service"),
    _read("get", "pods", why="GPU agents and a pod's details"),
    _read("get", "pods", subresource="log", why="engine logs of a pod (kubectl logs)"),
)

# The action executors' calls (bot/actions/kube.py): each action reads what it checks, then writes.
ACTION_CHECKS: tuple[AccessCheck, ...] = (
    _read("get", "httproutes", GATEWAY, why="reroute: read the route's weights"),
    _read("patch", "httproutes", GATEWAY, why="reroute: shift the backend weights (JSON Patch)"),
    _read("get", "nodes", why="cordon_node: read the node", namespace=None),
    _read("patch", "nodes", why="cordon_node and its undo: spec.unschedulable", namespace=None),
    _read("get", "deployments", "apps", why="rollback_deployment, add_replica: read the deployment"),
    _read("list", "replicasets", "apps", why="rollback_deployment: the previous revision's template"),
    _read("patch", "deployments", "apps", why="rollback_deployment: put the previous template back"),
    _read("get", "deployments", "apps", subresource="scale", why="add_replica: the replica count"),
    _read("patch", "deployments", "apps", subresource="scale", why="add_replica: one more replica"),
    _read(
        "list", "horizontalpodautoscalers", "autoscaling", why="add_replica: an autoscaler owning the count"
    ),
    _read("patch", "horizontalpodautoscalers", "autoscaling", why="add_replica: raise minReplicas"),
    _read("list", "poddisruptionbudgets", "policy", why="restart_pod: the budget an eviction keeps to"),
    _read("get", "pods", why="restart_pod: the pod and its uid"),
    _read("list", "pods", why="verification: the replacement pods"),
    _read("create", "pods", subresource="eviction", why="restart_pod: evict the pod"),
    _read("delete", "pods", why="restart_pod: delete, only after a second approval"),
    _read("get", "services", why="reroute: the backends are Services"),
    _read("get", "replicasets", "apps", why="verification: the rolled-back ReplicaSet"),
)


def for_namespace(checks: Iterable[AccessCheck], namespace: str) -> list[AccessCheck]:
    """The checks as asked for one namespace (cluster-wide ones stay cluster-wide)."""
    return [replace(c, namespace=namespace) if c.namespace == THE_NAMESPACE else c for c in checks]


def check_access(api: k8s.ApiClient, checks: list[AccessCheck], *, timeout: float) -> list[AccessResult]:
    """Each check answered by a SelfSubjectAccessReview, in order; a review that fails (the server
    down, the review API refused) is `allowed=None` with the reason, never an exception."""
    authz = k8s.AuthorizationV1Api(api)
    results = []
    for check in checks:
        namespace = "" if check.namespace in (None, THE_NAMESPACE) else check.namespace
        attributes = k8s.V1ResourceAttributes(
            verb=check.verb,
            resource=check.resource,
            group=check.group,
            namespace=namespace or None,
            subresource=check.subresource or None,
        )
        body = k8s.V1SelfSubjectAccessReview(
            spec=k8s.V1SelfSubjectAccessReviewSpec(resource_attributes=attributes)
        )

        def review(body: k8s.V1SelfSubjectAccessReview = body) -> dict[str, Any]:
            answer = authz.create_self_subject_access_review(
                body, _preload_content=False, _request_timeout=timeout
            )
            return _json(answer)

        got = bounded(Source.KUBERNETES, f"access review ({check})", review, timeout=timeout)
        if isinstance(got, Gap):
            results.append(AccessResult(check, None, got.reason))
            continue
        status = got.get("status") or {}
        reason = str(status.get("reason") or status.get("evaluationError") or "")
        allowed = bool(status.get("allowed")) and not status.get("denied")
        results.append(AccessResult(check, allowed, reason or ("allowed" if allowed else "not allowed")))
    return results


def whoami(api: k8s.ApiClient, *, timeout: float) -> Identity | Gap:
    """The token's user, by SelfSubjectReview (a gap on clusters older than 1.28, which lack it)."""
    authn = k8s.AuthenticationV1Api(api)
    got = bounded(
        Source.KUBERNETES,
        "whoami (SelfSubjectReview)",
        lambda: _json(
            authn.create_self_subject_review(
                k8s.V1SelfSubjectReview(), _preload_content=False, _request_timeout=timeout
            )
        ),
        timeout=timeout,
    )
    if isinstance(got, Gap):
        if "404" in got.reason:
            return got.model_copy(
                update={"reason": "SelfSubjectReview is not served (Kubernetes before 1.28)"}
            )
        return got
    info = (got.get("status") or {}).get("userInfo") or {}
    return Identity(
        str(info.get("username") or ""), tuple(info.get("groups") or ()), str(info.get("uid") or "")
    )


def _json(response: Any) -> dict[str, Any]:
    body = json.loads(response.data or b"{}")
    return body if isinstance(body, dict) else {}
