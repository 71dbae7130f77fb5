"""Rollout status as `kubectl rollout status` reads it, for the executors that change a deployment."""

from __future__ import annotations

from bot.actions.kube import Obj
from bot.actions.model import Verification


def rollout_status(deployment: Obj, generation: int) -> Verification:
    """Done when the controller saw `generation` and every replica is updated and available."""
    name = deployment["metadata"]["name"]
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    if int(status.get("observedGeneration") or 0) < generation:
        return Verification(
            ok=False, summary=f"deployment/{name}: waiting for the controller to see the change"
        )
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Progressing" and condition.get("reason") == "ProgressDeadlineExceeded":
            return Verification(ok=False, summary=f"deployment/{name} exceeded its progress deadline")
    wanted = int(spec.get("replicas", 1))
    updated = int(status.get("updatedReplicas") or 0)
    if updated < wanted:
        return Verification(ok=False, summary=f"deployment/{name}: {updated} of {wanted} replicas updated")
    if int(status.get("replicas") or 0) > updated:
        old = int(status.get("replicas") or 0) - updated
        return Verification(ok=False, summary=f"deployment/{name}: {old} old replica(s) pending termination")
    available = int(status.get("availableReplicas") or 0)
    if available < updated:
        return Verification(
            ok=False, summary=f"deployment/{name}: {available} of {updated} updated replicas available"
        )
    return Verification(ok=True, summary=f"deployment/{name} successfully rolled out ({available} available)")


def deadline_exceeded(deployment: Obj) -> bool:
    conditions = (deployment.get("status") or {}).get("conditions") or []
    return any(
        c.get("type") == "Progressing" and c.get("reason") == "ProgressDeadlineExceeded" for c in conditions
    )
