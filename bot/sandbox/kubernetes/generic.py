"""Kinds the resource table does not model, served as stored instead of refused.

A real cluster holds many more kinds than the stand-in has rules for (autoscalers, disruption budgets,
gateway policies, volume claims, secrets, ...), and a pack records what the cluster held. An object of
such a kind still loads: its type is served the way the API server serves a custom resource (get,
list with selectors, JSON and merge patch, no strategic merge, status kept apart, generation counted),
under the plural a CRD of that kind would get by default.
"""

from __future__ import annotations

from bot.sandbox.kubernetes.resources import Resource

# Built-in kinds that exist only cluster-wide; an object of one of these without a namespace is
# served cluster-scoped. Any other kind is namespaced, except `Cluster...` kinds without a namespace
# (ClusterIssuer, ClusterServingRuntime, ClusterQueue), which by convention are cluster-scoped.
_CLUSTER_SCOPED = frozenset(
    {
        "APIService",
        "CertificateSigningRequest",
        "ClusterRole",
        "ClusterRoleBinding",
        "CSIDriver",
        "CSINode",
        "CustomResourceDefinition",
        "GatewayClass",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "PersistentVolume",
        "PriorityClass",
        "RuntimeClass",
        "StorageClass",
        "ValidatingAdmissionPolicy",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)
_UNPLURALIZED = ("endpoints",)


def plural_of(kind: str) -> str:
    """The lower-case kind made plural: `-s`, consonant + `y` to `-ies`, after s/x/z/ch/sh `-es`."""
    singular = kind.lower()
    if singular.endswith(_UNPLURALIZED):
        return singular
    if singular.endswith("y") and singular[-2:-1] not in ("", "a", "e", "i", "o", "u"):
        return singular[:-1] + "ies"
    if singular.endswith(("s", "x", "z", "ch", "sh")):
        return singular + "es"
    return singular + "s"


def generic_resource(api_version: str, kind: str, namespace: object) -> Resource:
    """The type served for objects of `kind` the table lacks, scoped by the first such object loaded."""
    group, _, version = api_version.rpartition("/")
    cluster_wide = not namespace and (kind in _CLUSTER_SCOPED or _cluster_prefixed(kind))
    return Resource(
        kind, plural_of(kind), group, version, namespaced=not cluster_wide, builtin=False, generation=True
    )


def _cluster_prefixed(kind: str) -> bool:
    return kind.startswith("Cluster") and kind[len("Cluster") : len("Cluster") + 1].isupper()
