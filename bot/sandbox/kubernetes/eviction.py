"""The `pods/eviction` subresource's rules: a delete the pod's disruption budget may refuse.

As the API server runs it (pkg/registry/core/pod/storage/eviction.go): a pod that is Pending,
finished or already being deleted is deleted without asking; otherwise two budgets over the pod
are an internal error, none lets the delete through, and one allows it while disruptionsAllowed is
above zero — or, for a pod that is not Ready, when the budget is healthy without it (the default
`IfHealthyBudget`) or its `unhealthyPodEvictionPolicy` is `AlwaysAllow`. A refusal is 429
TooManyRequests with the budget's cause; success is a `Status` Success, 201 Created.
"""

from __future__ import annotations

from typing import Any

from bot.sandbox.kubernetes.patch import decode_json
from bot.sandbox.kubernetes.pods import is_ready
from bot.sandbox.kubernetes.resources import ApiFailure, Obj

EVICTED: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
_SEVERAL = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
_REFUSED = "Cannot evict pod as it would violate the pod's disruption budget."


def eviction_options(body: bytes, name: str) -> Obj:
    """The DeleteOptions an Eviction body carries, after checking it names the pod on the URL."""
    eviction: Any = decode_json(body) if body.strip() else {}
    if not isinstance(eviction, dict):
        raise ApiFailure(400, "the body of an eviction must be a policy/v1 Eviction object")
    named = (eviction.get("metadata") or {}).get("name")
    if named not in (None, "", name):
        raise ApiFailure(400, "name in URL does not match name in Eviction object")
    options = eviction.get("deleteOptions") or {}
    if not isinstance(options, dict):
        raise ApiFailure(400, "deleteOptions must be a DeleteOptions object")
    return options


def check_budgets(pod: Obj, budgets: list[tuple[Obj, Obj]]) -> None:
    """Refuse the eviction as the server would; `budgets` pairs each covering budget with its live status."""
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Pending", "Succeeded", "Failed") or pod["metadata"].get("deletionTimestamp"):
        return
    if len(budgets) > 1:
        raise ApiFailure(
            500, f"Internal error occurred: {_SEVERAL}", details={"causes": [{"message": _SEVERAL}]}
        )
    if not budgets:
        return
    pdb, status = budgets[0]
    if not is_ready(pod):
        if (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow":
            return
        if status["currentHealthy"] >= status["desiredHealthy"] > 0:
            return
    if status["disruptionsAllowed"] > 0:
        return
    name = pdb["metadata"]["name"]
    needs, has = status["desiredHealthy"], status["currentHealthy"]
    cause = {
        "reason": "DisruptionBudget",
        "message": f"The disruption budget {name} needs {needs} healthy pods and has {has} currently",
    }
    raise ApiFailure(429, _REFUSED, details={"causes": [cause]})
