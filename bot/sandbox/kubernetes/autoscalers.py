"""The HorizontalPodAutoscaler controller (autoscaling/v2), reduced to its bounds.

There are no metrics behind the stand-in, so when an HPA's spec changes the controller keeps its
target's replicas where they are, clamped into [minReplicas (default 1), maxReplicas]: raising
minReplicas above the current count scales the Deployment up, which its controller then rolls
out. The status says so as the real controller does: currentReplicas, desiredReplicas,
lastScaleTime when it scaled, and the AbleToScale and ScalingLimited conditions.
"""

from __future__ import annotations

from bot.sandbox.kubernetes.clock import Clocked
from bot.sandbox.kubernetes.objects import spec_part
from bot.sandbox.kubernetes.resources import RESOURCES, Obj

_BY_KIND = {res.kind: res for res in RESOURCES}
HPA = _BY_KIND["HorizontalPodAutoscaler"]


class Autoscalers(Clocked):
    """Clamp the target of a changed HorizontalPodAutoscaler into its bounds."""

    def _sync_autoscaler(self, hpa: Obj, before: Obj | None) -> None:
        if before is not None and spec_part(before) == spec_part(hpa):
            return  # a status write, its own included
        spec, status = hpa.get("spec") or {}, dict(hpa.get("status") or {})
        ref = spec.get("scaleTargetRef") or {}
        res = _BY_KIND.get(str(ref.get("kind")))
        target = None
        if res is not None and res.scalable:
            target = self._find(res, hpa["metadata"]["namespace"], str(ref.get("name")))
        conditions = [
            c
            for c in status.get("conditions") or []
            if c.get("type") not in ("AbleToScale", "ScalingLimited")
        ]
        if res is None or target is None:
            shown = f'{res.plural if res else str(ref.get("kind", "")).lower()}/scale "{ref.get("name")}" not found'
            message = f"the HPA controller was unable to get the target's current scale: {shown}"
            conditions.insert(0, self._hpa_condition("AbleToScale", "False", "FailedGetScale", message))
            self._put(HPA, hpa | {"status": status | {"conditions": conditions}})
            return
        current = int((target.get("spec") or {}).get("replicas", 1))
        low, high = int(spec.get("minReplicas") or 1), int(spec.get("maxReplicas") or current)
        desired = min(max(current, low), high)
        if desired != current:
            self._save(res, target | {"spec": target["spec"] | {"replicas": desired}})
            status["lastScaleTime"] = self._stamp()
            able = (
                "SucceededRescale",
                f"the HPA controller was able to update the target scale to {desired}",
            )
        else:
            able = ("ReadyForNewScale", "recommended size matches current size")
        if current < low:
            limited = (
                "True",
                "TooFewReplicas",
                "the desired replica count is less than the minimum replica count",
            )
        elif current > high:
            limited = (
                "True",
                "TooManyReplicas",
                "the desired replica count is more than the maximum replica count",
            )
        else:
            limited = ("False", "DesiredWithinRange", "the desired count is within the acceptable range")
        conditions.insert(0, self._hpa_condition("AbleToScale", "True", *able))
        conditions.append(self._hpa_condition("ScalingLimited", *limited))
        status |= {"currentReplicas": current, "desiredReplicas": desired, "conditions": conditions}
        self._put(HPA, hpa | {"status": status})

    def _hpa_condition(self, kind: str, status: str, reason: str, message: str) -> Obj:
        return {
            "type": kind,
            "status": status,
            "reason": reason,
            "message": message,
            "lastTransitionTime": self._stamp(),
        }
