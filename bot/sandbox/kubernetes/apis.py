"""What a cluster serves besides the core table, and who may do what: the stand-in's switches.

Clusters differ in ways the bot must survive: an older Gateway API install serves HTTPRoute only as
`gateway.networking.k8s.io/v1beta1` (a request for an unserved version gets the API server's
plain-text `404 page not found`), and events.k8s.io/v1 (the same events as core/v1, converted as
pkg/apis/events/v1/conversion.go does: involvedObject → regarding, message → note, count and the
timestamps → `deprecated...`) may be off. `ServedApis` says what this stand-in serves; `access`
maps bearer tokens to an `AccessPolicy` (RBAC-like rules), enforced on every request with the
server's 403 `Forbidden` Status and answered by SelfSubjectAccessReview and SelfSubjectReview.
Without `access` every request is allowed, as for a cluster admin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.sandbox.kubernetes.resources import ApiFailure, Obj, Resource

EVENTS_GROUP = "events.k8s.io"
EVENTS_V1 = Resource(
    "Event", "events", EVENTS_GROUP, has_status=False, stored_as="events", short_names=("ev",)
)


def _create_only(kind: str, plural: str, group: str) -> Resource:
    return Resource(kind, plural, group, namespaced=False, has_status=False, verbs=("create",))


REVIEWS = (
    _create_only("SelfSubjectAccessReview", "selfsubjectaccessreviews", "authorization.k8s.io"),
    _create_only("SelfSubjectReview", "selfsubjectreviews", "authentication.k8s.io"),
)
READ_VERBS = ("get", "list", "watch")
# events.k8s.io/v1's selectable fields (its Event's `regarding` is core's `involvedObject`).
EVENTS_V1_FIELDS: dict[str, tuple[str, str]] = {
    **{f"regarding.{f}": (f"regarding.{f}", "") for f in ("kind", "namespace", "name", "uid", "apiVersion")},
    "regarding.resourceVersion": ("regarding.resourceVersion", ""),
    "regarding.fieldPath": ("regarding.fieldPath", ""),
    "reason": ("reason", ""),
    "reportingController": ("reportingController", ""),
    "source": ("deprecatedSource.component", ""),
    "type": ("type", ""),
}


@dataclass(frozen=True)
class AccessRule:
    """Like an RBAC PolicyRule: verbs on resources (`pods`, `pods/log`) of API groups, in namespaces
    (`*` matches any, a namespace list also keeps it off cluster-wide requests)."""

    verbs: tuple[str, ...]
    resources: tuple[str, ...] = ("*",)
    groups: tuple[str, ...] = ("*",)
    namespaces: tuple[str, ...] = ("*",)

    def allows(self, verb: str, group: str, resource: str, namespace: str | None) -> bool:
        return (
            _any(self.verbs, verb)
            and _any(self.groups, group)
            and (_any(self.resources, resource) or resource.split("/")[0] + "/*" in self.resources)
            and ("*" in self.namespaces or (namespace is not None and namespace in self.namespaces))
        )


@dataclass(frozen=True)
class AccessPolicy:
    """Who a token is, and what it may do."""

    user: str
    rules: tuple[AccessRule, ...]
    groups: tuple[str, ...] = ("system:serviceaccounts", "system:authenticated")
    uid: str = "3c5b0a5e-0d6f-4c7e-9f3a-2b1d4e6f8a90"

    def decide(self, verb: str, group: str, resource: str, namespace: str | None) -> tuple[bool, str]:
        for rule in self.rules:
            if rule.allows(verb, group, resource, namespace):
                return True, f'RBAC: allowed by ClusterRoleBinding "sandbox" to User "{self.user}"'
        return False, ""


def read_only(user: str = "system:serviceaccount:incident-bot:incident-bot") -> AccessPolicy:
    """The read-only role of deploy/kubernetes/rbac-readonly.yaml, roughly: reads everywhere."""
    return AccessPolicy(user, (AccessRule(READ_VERBS),))


def namespace_reader(
    namespace: str, user: str = "system:serviceaccount:incident-bot:incident-bot"
) -> AccessPolicy:
    """Reads in one namespace and of cluster-scoped nodes: a RoleBinding, not a ClusterRoleBinding."""
    return AccessPolicy(
        user, (AccessRule(READ_VERBS, namespaces=(namespace,)), AccessRule(READ_VERBS, ("nodes",), ("",)))
    )


@dataclass(frozen=True)
class ServedApis:
    """The stand-in's switches; the defaults are today's cluster (HTTPRoute v1, events.k8s.io on).
    No `httproute_versions` is a cluster without the Gateway API, which then loads no gateway objects."""

    httproute_versions: tuple[str, ...] = ("v1",)
    events_v1: bool = True
    access: Mapping[str, AccessPolicy] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if set(self.httproute_versions) - {"v1", "v1beta1"}:
            raise ValueError("httproute_versions: v1, v1beta1, both, or none (no Gateway API)")

    def policy(self, authorization: str) -> AccessPolicy | None:
        """The token's policy; None when access is open. An unknown token is a 401, as on a cluster."""
        if not self.access:
            return None
        token = authorization.removeprefix("Bearer ").strip()
        found = self.access.get(token)
        if found is None:
            raise ApiFailure(401, "Unauthorized")
        return found


def forbidden(
    policy: AccessPolicy, verb: str, res: Resource, namespace: str | None, name: str | None
) -> ApiFailure:
    """The API server's 403, word for word: who, which verb, which resource, where."""
    plural = res.plural if not res.group else f"{res.plural}.{res.group}"
    what = f'{plural} "{name}"' if name else plural
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    message = (
        f'{what} is forbidden: User "{policy.user}" cannot {verb} resource "{res.plural}" '
        f'in API group "{res.group}" {where}'
    )
    details: Obj = {"kind": res.plural} | ({"group": res.group} if res.group else {})
    return ApiFailure(403, message, details=details | ({"name": name} if name else {}))


def access_review(policy: AccessPolicy | None, body: Obj) -> Obj:
    """A SelfSubjectAccessReview answered: its spec back, and whether the caller may."""
    spec = body.get("spec") or {}
    attrs = spec.get("resourceAttributes")
    if not isinstance(attrs, dict):
        message = 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Required value'
        raise ApiFailure(422, message)
    resource = str(attrs.get("resource") or "")
    if attrs.get("subresource"):
        resource += f"/{attrs['subresource']}"
    if policy is None:
        allowed, reason = True, ""
    else:
        verb, group = str(attrs.get("verb") or ""), str(attrs.get("group") or "")
        allowed, reason = policy.decide(verb, group, resource, attrs.get("namespace") or None)
    status: Obj = {"allowed": allowed} | ({"reason": reason} if reason else {})
    return {
        "kind": "SelfSubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "spec": spec,
        "status": status,
    }


def self_review(policy: AccessPolicy | None) -> Obj:
    """A SelfSubjectReview answered: the caller's user as the authenticator saw it."""
    user = policy or AccessPolicy(
        "kubernetes-admin", (), ("kubeadm:cluster-admins", "system:authenticated"), ""
    )
    info: Obj = {"username": user.user, "groups": list(user.groups)} | ({"uid": user.uid} if user.uid else {})
    return {
        "kind": "SelfSubjectReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "status": {"userInfo": info},
    }


# --- events.k8s.io/v1 <-> core/v1 ------------------------------------------------------------------

_RENAMED = (
    ("involvedObject", "regarding"),
    ("message", "note"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
    ("reportingComponent", "reportingController"),
)
_KEPT = ("metadata", "reason", "type", "eventTime", "series", "related", "action", "reportingInstance")


def as_events_v1(event: Mapping[str, Any]) -> Obj:
    """A stored core/v1 Event as events.k8s.io/v1 shows it (eventTime null for events written the old way)."""
    if event.get("apiVersion", "v1") != "v1":
        return dict(event)  # already converted
    out: Obj = {"kind": "Event", "apiVersion": f"{EVENTS_GROUP}/v1"}
    out |= {key: event[key] for key in _KEPT if event.get(key) not in (None, "", {}, [])}
    out |= {new: event[old] for old, new in _RENAMED if event.get(old) not in (None, "", {}, [])}
    out.setdefault("eventTime", None)
    return out


def as_core(event: Mapping[str, Any]) -> Obj:
    """An events.k8s.io/v1 Event (as a pack may record it) stored as the core/v1 Event it is."""
    out: Obj = {"kind": "Event", "apiVersion": "v1"}
    out |= {key: event[key] for key in _KEPT if event.get(key) not in (None, "", {}, [])}
    out |= {old: event[new] for old, new in _RENAMED if event.get(new) not in (None, "", {}, [])}
    return out


def _any(allowed: tuple[str, ...], value: str) -> bool:
    return "*" in allowed or value in allowed


def request_verb(method: str, name: str | None, watch: bool) -> str:
    """The authorization verb of a request, as the API server's request info names it."""
    if method == "GET":
        return "get" if name else ("watch" if watch else "list")
    return {"POST": "create", "PUT": "update", "PATCH": "patch"}.get(
        method, "delete" if name else "deletecollection"
    )
