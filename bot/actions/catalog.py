"""The catalog of actions the bot may ever propose: fast, reversible, one target each.

Never in the catalog (taxonomy.md section 6): deleting a deployment, hot-fixes, changing
quantization, batch size or parallelism under load, restarting every replica at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ActionKind(StrEnum):
    REROUTE = "reroute"
    RESTART_POD = "restart_pod"
    CORDON_NODE = "cordon_node"
    ROLLBACK_DEPLOYMENT = "rollback_deployment"
    ADD_REPLICA = "add_replica"


@dataclass(frozen=True)
class ActionSpec:
    """What an action does, to which kind of object, and how it is undone."""

    kind: ActionKind
    target_kind: str
    effect: str
    undo: str

    @property
    def namespaced(self) -> bool:
        """Whether the target lives in a namespace (a node does not)."""
        return self.target_kind != "node"


CATALOG: dict[ActionKind, ActionSpec] = {
    spec.kind: spec
    for spec in (
        ActionSpec(
            ActionKind.REROUTE,
            "httproute",
            "shift traffic away from the failing backend by changing the HTTPRoute's weights",
            "restore the HTTPRoute's previous backend weights",
        ),
        ActionSpec(
            ActionKind.RESTART_POD,
            "pod",
            "evict one pod (its disruption budget decides) so its ReplicaSet recreates it; "
            "drops that pod's in-flight generations",
            "nothing to restore: the ReplicaSet keeps the replica count; reroute back if traffic was moved",
        ),
        ActionSpec(
            ActionKind.CORDON_NODE,
            "node",
            "mark the node unschedulable so no new pod lands on it (running pods stay)",
            "uncordon the node (kubectl uncordon)",
        ),
        ActionSpec(
            ActionKind.ROLLBACK_DEPLOYMENT,
            "deployment",
            "roll the deployment back to its previous revision's pod template",
            "roll forward to the revision that was rolled back",
        ),
        ActionSpec(
            ActionKind.ADD_REPLICA,
            "deployment",
            "add one replica to the deployment (capacity arrives once the model has loaded)",
            "scale back to the previous replica count",
        ),
    )
}


# Which list of the incident's scope holds a target of each kind (a target must be in it).
SCOPE_FIELD = {"pod": "pods", "deployment": "deployments", "httproute": "routes", "node": "nodes"}


def spec_for(kind: str) -> ActionSpec:
    """The catalog entry; a ValueError for anything outside the catalog."""
    return CATALOG[ActionKind(kind)]
