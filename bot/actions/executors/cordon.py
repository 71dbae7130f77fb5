"""`cordon_node`: mark a node unschedulable, and say on it which incident did and who approved.

A node someone else cordoned is left as it is (a no-op), and the undo uncordons only a node whose
annotation still names this incident: the bot never lifts a cordon it did not set.
"""

from __future__ import annotations

from bot.actions.executors.base import KubeExecutor, Refused, annotations_of, pointer, target_name
from bot.actions.kube import KubeError, Obj
from bot.actions.model import Plan, Verification
from bot.domain import ProposedAction

CORDONED_BY = "incident-bot/cordoned-by"
APPROVED_BY = "incident-bot/approved-by"
TAINT = "node.kubernetes.io/unschedulable"


def _tainted(node: Obj) -> bool:
    return any(t.get("key") == TAINT for t in (node.get("spec") or {}).get("taints") or [])


class CordonNode(KubeExecutor):
    def plan(self, action: ProposedAction, *, actor: str, incident_id: int) -> Plan:
        name = target_name(action)
        try:
            node = self.kube.node(name)
        except KubeError as exc:
            raise Refused(f"node {name} cannot be read: {exc.message}") from exc
        data = {
            "name": name,
            "uid": node["metadata"]["uid"],
            "mark": f"incident-{incident_id}",
            "actor": actor,
        }
        if (node.get("spec") or {}).get("unschedulable"):
            return Plan(
                kind=action.kind.value,
                target=action.target,
                namespace=None,
                summary=f"node {name} was already cordoned: nothing to do, and the bot will not uncordon it",
                data={**data, "was_cordoned": True},
                noop=True,
            )
        return Plan(
            kind=action.kind.value,
            target=action.target,
            namespace=None,
            summary=f"cordon node {name}: no new pod lands on it; its running pods stay",
            diff=[
                "~ spec.unschedulable: false → true",
                f"+ metadata.annotations.{CORDONED_BY}: incident-{incident_id}",
                f"+ metadata.annotations.{APPROVED_BY}: {actor}",
            ],
            data={
                **data,
                "had_annotations": bool(annotations_of(node)),
                "set": "unschedulable" in node["spec"],
            },
        )

    def write(self, plan: Plan, *, dry_run: bool) -> Obj:
        data = plan.data
        if data.get("undo"):
            ops: list[Obj] = [
                {
                    "op": "test",
                    "path": pointer("metadata", "annotations", CORDONED_BY),
                    "value": data["mark"],
                },
                {"op": "remove", "path": "/spec/unschedulable"},
                {"op": "remove", "path": pointer("metadata", "annotations", CORDONED_BY)},
                {"op": "remove", "path": pointer("metadata", "annotations", APPROVED_BY)},
            ]
            return self.kube.patch_node(data["name"], ops, dry_run=dry_run)
        marks = {CORDONED_BY: data["mark"], APPROVED_BY: data["actor"]}
        ops = [{"op": "test", "path": "/metadata/uid", "value": data["uid"]}]
        if data["set"]:
            ops.append({"op": "test", "path": "/spec/unschedulable", "value": False})
        ops.append({"op": "add", "path": "/spec/unschedulable", "value": True})
        if data["had_annotations"]:
            ops += [
                {"op": "add", "path": pointer("metadata", "annotations", k), "value": v}
                for k, v in marks.items()
            ]
        else:
            ops.append({"op": "add", "path": "/metadata/annotations", "value": marks})
        return self.kube.patch_node(data["name"], ops, dry_run=dry_run)

    def current(self, plan: Plan) -> Obj:
        return self.kube.node(plan.data["name"])

    def applied(self, plan: Plan) -> bool:
        node = self.kube.node(plan.data["name"])
        cordoned = bool((node.get("spec") or {}).get("unschedulable"))
        ours = annotations_of(node).get(CORDONED_BY) == plan.data["mark"]
        return (not cordoned and not ours) if plan.data.get("undo") else (cordoned and ours)

    def verify(self, plan: Plan, written: Obj) -> Verification:
        name, undo = plan.data["name"], bool(plan.data.get("undo"))
        if undo and plan.data.get("was_cordoned"):
            return Verification(ok=True, summary=f"node {name} left cordoned, as it was before the bot came")

        def check() -> Verification:
            node = self.kube.node(name)
            cordoned = bool((node.get("spec") or {}).get("unschedulable"))
            if undo and not cordoned and not _tainted(node):
                return Verification(ok=True, summary=f"node {name} is schedulable again")
            if not undo and cordoned and _tainted(node):
                return Verification(ok=True, summary=f"node {name} is unschedulable and tainted {TAINT}")
            return Verification(
                ok=False, summary=f"node {name}: unschedulable={cordoned}, taint={_tainted(node)}"
            )

        return self.poll(check)

    def undo(self, plan: Plan, written: Obj, *, actor: str, incident_id: int) -> Plan:
        name = plan.data["name"]
        if plan.data.get("was_cordoned"):
            return Plan(
                kind=plan.kind,
                target=plan.target,
                namespace=None,
                summary=f"node {name} was cordoned before the bot came: it stays cordoned",
                data={**plan.data, "undo": True, "check_only": True},
                noop=True,
            )
        node = self.kube.node(name)
        if annotations_of(node).get(CORDONED_BY) != plan.data["mark"]:
            raise Refused(
                f"node {name} is no longer marked as cordoned by this incident: not ours to uncordon"
            )
        return Plan(
            kind=plan.kind,
            target=plan.target,
            namespace=None,
            summary=f"uncordon node {name}",
            diff=[
                "~ spec.unschedulable: true → (unset)",
                f"- metadata.annotations.{CORDONED_BY}",
                f"- metadata.annotations.{APPROVED_BY}",
            ],
            data={**plan.data, "undo": True},
        )
