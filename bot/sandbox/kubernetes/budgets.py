"""PodDisruptionBudgets as the disruption controller counts them, for its status and for evictions.

A budget covers the pods of its namespace its selector matches (policy/v1: an empty selector
matches every pod, none matches none). `desiredHealthy` comes from minAvailable or maxUnavailable,
an integer or a percentage of the expected pods (the scale of the pods' controllers, or the pods
themselves for an integer minAvailable); `currentHealthy` counts the Ready pods not being deleted;
`disruptionsAllowed` is what is left over. Evictions read it live, so a budget answers for the
pods as they are; its stored status follows after a write touches its pods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.sandbox.kubernetes.clock import Clocked
from bot.sandbox.kubernetes.objects import scaled
from bot.sandbox.kubernetes.pods import controller_uid, is_ready
from bot.sandbox.kubernetes.resources import RESOURCES, Obj
from bot.sandbox.kubernetes.selectors import selects

_BY_KIND = {res.kind: res for res in RESOURCES}
POD, PDB = _BY_KIND["Pod"], _BY_KIND["PodDisruptionBudget"]
_OWNERS = (_BY_KIND["ReplicaSet"], _BY_KIND["StatefulSet"], _BY_KIND["Deployment"])


def desired_healthy(spec: Mapping[str, Any], expected: int) -> int:
    if spec.get("maxUnavailable") is not None:
        return max(expected - scaled(spec["maxUnavailable"], expected, round_up=True), 0)
    return scaled(spec.get("minAvailable", 0), expected, round_up=True)


def budget_status(pdb: Obj, pods: list[Obj], expected: int, now: str) -> Obj:
    """The status the disruption controller would write for `pods`, the pods the budget covers."""
    generation = pdb["metadata"].get("generation", 1)
    desired = desired_healthy(pdb.get("spec") or {}, expected)
    healthy = sum(1 for pod in pods if is_ready(pod) and not pod["metadata"].get("deletionTimestamp"))
    allowed = max(healthy - desired, 0)
    condition = {
        "type": "DisruptionAllowed",
        "status": "True" if allowed else "False",
        "reason": "SufficientPods" if allowed else "InsufficientPods",
        "message": "",
        "observedGeneration": generation,
    }
    before = next(
        (
            c
            for c in (pdb.get("status") or {}).get("conditions") or []
            if c.get("type") == "DisruptionAllowed"
        ),
        None,
    )
    same = before is not None and before.get("status") == condition["status"]
    condition["lastTransitionTime"] = before.get("lastTransitionTime", now) if same and before else now
    return {
        "observedGeneration": generation,
        "disruptionsAllowed": allowed,
        "currentHealthy": healthy,
        "desiredHealthy": desired,
        "expectedPods": expected,
        "conditions": [condition],
    }


class Budgets(Clocked):
    """Budget lookups and status over the store."""

    def _budgets_for(self, pod: Obj) -> list[Obj]:
        labels = pod["metadata"].get("labels")
        namespace = pod["metadata"]["namespace"]
        return [
            pdb
            for pdb in self._objects(PDB, namespace)
            if selects((pdb.get("spec") or {}).get("selector"), labels)
        ]

    def _live_budget(self, pdb: Obj) -> Obj:
        """The budget's status computed from the pods as they are now."""
        spec = pdb.get("spec") or {}
        pods = [
            pod
            for pod in self._objects(POD, pdb["metadata"]["namespace"])
            if selects(spec.get("selector"), pod["metadata"].get("labels"))
        ]
        whole = spec.get("maxUnavailable") is None and not str(spec.get("minAvailable", "")).endswith("%")
        expected = len(pods) if whole else self._expected_pods(pods)
        return budget_status(pdb, pods, expected, self._stamp())

    def _sync_budget(self, pdb: Obj) -> None:
        self._put(PDB, pdb | {"status": self._live_budget(pdb)})

    def _expected_pods(self, pods: list[Obj]) -> int:
        """The scale of the pods' controllers (a Deployment's, above its ReplicaSet); 1 for a bare pod."""
        scales: dict[str, int] = {}
        for pod in pods:
            uid, namespace = controller_uid(pod), pod["metadata"]["namespace"]
            owner = self._by_uid(namespace, uid) if uid else None
            above = (
                self._by_uid(namespace, controller_uid(owner)) if owner and controller_uid(owner) else None
            )
            scaler = above or owner
            if scaler is None:
                scales[pod["metadata"]["uid"]] = 1
            else:
                scales[scaler["metadata"]["uid"]] = int((scaler.get("spec") or {}).get("replicas", 1))
        return sum(scales.values())

    def _by_uid(self, namespace: str, uid: str | None) -> Obj | None:
        """A ReplicaSet, StatefulSet or Deployment of the namespace by uid."""
        for res in _OWNERS:
            found = next((o for o in self._objects(res, namespace) if o["metadata"].get("uid") == uid), None)
            if found is not None:
                return found
        return None
