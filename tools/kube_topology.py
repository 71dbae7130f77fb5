"""The topology that scopes the evidence tools: what serves the incident, as the cluster lists it.

Kept apart from the reads (tools.kubernetes) so that the triage's scope resolution and its
checkpoints share one plain type, and so that a Deployment's pods are found one way: by owner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tools.kube_rollouts import owned_by
from tools.result import Gap

# A pod-template-hash and a generated name's suffix are drawn from "bcdfghjklmnpqrstvwxz2456789";
# the shape alone (one segment of at most 10, one of 5) already keeps `<deploy>-canary-…` pods out,
# so any lower-case letter or digit is taken, as names recorded or written by hand may have them.
_NAME_CHARS = "[a-z0-9]"


@dataclass
class Topology:
    """Who serves the incident: routes → services → pods → ReplicaSets/deployments → nodes.

    `routes` are those of the namespace and those elsewhere with a backend in it; `route_version`
    is the gateway.networking.k8s.io version that served them; `gaps` what could not be read
    though the rest could (cross-namespace routes, the Gateway API itself)."""

    namespace: str
    routes: list[dict[str, Any]] = field(default_factory=list)
    services: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    replicasets: list[dict[str, Any]] = field(default_factory=list)
    deployments: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    ingresses: list[dict[str, Any]] = field(default_factory=list)  # networking.k8s.io/v1
    route_version: str = "v1"
    gaps: list[Gap] = field(default_factory=list)

    def pods_of(self, deployment: str) -> list[dict[str, Any]]:
        """The Deployment's pods by the owner chain Pod → ReplicaSet → Deployment (uids where the
        objects carry them), so `<deploy>-canary-…` pods are not `<deploy>`'s. A pod without
        ownerReferences (a hand-made or recorded one) falls back to its name: `<deploy>-<hash>-<suffix>`."""
        owner = next((d for d in self.deployments if d["metadata"]["name"] == deployment), None)
        if owner is None:
            return []
        sets = [rs for rs in self.replicasets if owned_by(rs, {"kind": "Deployment", **owner})]
        pattern = re.compile(pod_name_pattern(deployment))
        return [
            pod
            for pod in self.pods
            if any(owned_by(pod, {"kind": "ReplicaSet", **rs}) for rs in sets)
            or (not pod["metadata"].get("ownerReferences") and pattern.fullmatch(pod["metadata"]["name"]))
        ]


def pod_name_pattern(deployment: str) -> str:
    """The names a Deployment's pods get, `<deploy>-<pod-template-hash>-<suffix>`, as a regex: a
    prefix `<deploy>-` alone also takes `<deploy>-canary-…` pods. For stores that only know names
    (metrics, logs); the owner chain (`Topology.pods_of`) is the sure way where objects are at hand."""
    return rf"{re.escape(deployment)}-{_NAME_CHARS}{{1,10}}-{_NAME_CHARS}{{5}}"
