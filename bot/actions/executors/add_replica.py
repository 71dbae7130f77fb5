"""`add_replica`: one more replica of a deployment, never more than one at a time.

The count written is absolute (read + 1), through the scale subresource with a JSON Patch that
`test`s the count read, so a deployment scaled meanwhile is refused instead of given a second
replica (a test on the count, not on resourceVersion, which every status update moves on). When a
HorizontalPodAutoscaler targets the deployment it would take a manual scale back, so its
`minReplicas` is raised instead. A replica waiting for a GPU is said to be Pending, not failed.
"""

from __future__ import annotations

from bot.actions.executors.base import (
    KubeExecutor,
    Refused,
    need_namespace,
    ready,
    selector_of,
    target_name,
    unschedulable,
)
from bot.actions.kube import KubeError, Obj
from bot.actions.model import Plan, Verification
from bot.domain import ProposedAction


class AddReplica(KubeExecutor):
    def plan(self, action: ProposedAction, *, actor: str, incident_id: int) -> Plan:
        namespace, name = need_namespace(action), target_name(action)
        try:
            dep = self.kube.deployment(namespace, name)
        except KubeError as exc:
            raise Refused(f"deployment {name} cannot be read: {exc.message}") from exc
        current = int((dep.get("spec") or {}).get("replicas", 1))
        hpa = self._hpa(namespace, name)
        if hpa is not None:
            spec = hpa.get("spec") or {}
            low, high = int(spec.get("minReplicas", 1)), int(spec.get("maxReplicas", 1))
            wanted = max(low, current) + 1
            if wanted > high:
                raise Refused(f"hpa/{hpa['metadata']['name']} allows at most {high} replicas; {current} run")
            return Plan(
                kind=action.kind.value,
                target=action.target,
                namespace=namespace,
                summary=f"raise hpa/{hpa['metadata']['name']}'s minReplicas so deployment/{name} gets one more replica",
                diff=[f"~ hpa/{hpa['metadata']['name']} spec.minReplicas: {low} → {wanted}"],
                data={
                    "name": name,
                    "hpa": hpa["metadata"]["name"],
                    "from": low,
                    "to": wanted,
                    "replicas": current + 1,
                    "min_set": "minReplicas" in spec,
                    "generation": int(hpa["metadata"].get("generation") or 0),
                },
            )
        return Plan(
            kind=action.kind.value,
            target=action.target,
            namespace=namespace,
            summary=f"scale deployment/{name} from {current} to {current + 1} replicas",
            diff=[f"~ deployment/{name} spec.replicas: {current} → {current + 1}"],
            data={"name": name, "from": current, "to": current + 1, "replicas": current + 1},
        )

    def _hpa(self, namespace: str, name: str) -> Obj | None:
        for hpa in self.kube.hpas(namespace):
            ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
            if ref.get("kind") == "Deployment" and ref.get("name") == name:
                return hpa
        return None

    def write(self, plan: Plan, *, dry_run: bool) -> Obj:
        assert plan.namespace is not None
        data, namespace = plan.data, plan.namespace
        if "hpa" in data:
            path = "/spec/minReplicas"
            ops: list[Obj] = [{"op": "test", "path": "/metadata/generation", "value": data["generation"]}]
            if data.get("min_set", True):
                ops.append({"op": "test", "path": path, "value": data["from"]})
            ops.append(
                {"op": "replace" if data.get("min_set", True) else "add", "path": path, "value": data["to"]}
            )
            return self.kube.patch_hpa(namespace, data["hpa"], ops, dry_run=dry_run)
        ops = [  # absolute, and only from the count read: a deployment scaled meanwhile fails the test
            {"op": "test", "path": "/spec/replicas", "value": data["from"]},
            {"op": "replace", "path": "/spec/replicas", "value": data["to"]},
        ]
        return self.kube.patch_scale(namespace, data["name"], ops, dry_run=dry_run)

    def current(self, plan: Plan) -> Obj:
        assert plan.namespace is not None
        if "hpa" in plan.data:
            return next(
                h for h in self.kube.hpas(plan.namespace) if h["metadata"]["name"] == plan.data["hpa"]
            )
        return self.kube.scale(plan.namespace, plan.data["name"])

    def applied(self, plan: Plan) -> bool:
        assert plan.namespace is not None
        data = plan.data
        if "hpa" in data:
            hpa = next(
                (h for h in self.kube.hpas(plan.namespace) if h["metadata"]["name"] == data["hpa"]), None
            )
            return hpa is not None and int((hpa.get("spec") or {}).get("minReplicas", 1)) == int(data["to"])
        dep = self.kube.deployment(plan.namespace, data["name"])
        return int((dep.get("spec") or {}).get("replicas", 1)) == int(data["to"])

    def verify(self, plan: Plan, written: Obj) -> Verification:
        assert plan.namespace is not None
        namespace, name, wanted = plan.namespace, plan.data["name"], int(plan.data["replicas"])

        def check() -> Verification:
            if "hpa" in plan.data and plan.data.get("undo"):
                hpa = next(h for h in self.kube.hpas(namespace) if h["metadata"]["name"] == plan.data["hpa"])
                low = int((hpa.get("spec") or {}).get("minReplicas", 1))
                return Verification(
                    ok=low == plan.data["to"], summary=f"hpa/{plan.data['hpa']} minReplicas is {low}"
                )
            dep = self.kube.deployment(namespace, name)
            count = int((dep.get("status") or {}).get("readyReplicas") or 0)
            replicas = int((dep.get("spec") or {}).get("replicas", 1))
            if replicas == wanted and count >= wanted:
                return Verification(ok=True, summary=f"deployment/{name} has {count} Ready replicas")
            pods = [p for p in self.kube.pods(namespace, selector_of(dep)) if not ready(p)]
            why = unschedulable(pods)
            if why:
                return Verification(ok=False, pending=True, summary=f"the new replica is Pending: {why}")
            return Verification(ok=False, summary=f"deployment/{name}: {count} of {wanted} replicas Ready")

        return self.poll(check)

    def undo(self, plan: Plan, written: Obj, *, actor: str, incident_id: int) -> Plan:
        if not self.applied(plan):
            raise Refused(
                f"deployment/{plan.data['name']} was scaled by someone else since: not ours to scale back"
            )
        data = plan.data
        back = {
            **data,
            "from": data["to"],
            "to": data["from"],
            "replicas": data["replicas"] - 1,
            "undo": True,
        }
        if "hpa" in data:
            assert plan.namespace is not None
            hpa = next(h for h in self.kube.hpas(plan.namespace) if h["metadata"]["name"] == data["hpa"])
            back |= {"generation": int(hpa["metadata"].get("generation") or 0), "min_set": True}
            what = f"hpa/{data['hpa']} spec.minReplicas"
        else:
            what = f"deployment/{data['name']} spec.replicas"
        return Plan(
            kind=plan.kind,
            target=plan.target,
            namespace=plan.namespace,
            summary=f"scale deployment/{data['name']} back to {data['replicas'] - 1} replicas",
            diff=[f"~ {what}: {data['to']} → {data['from']}"],
            data=back,
        )
