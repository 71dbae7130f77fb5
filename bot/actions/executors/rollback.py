"""`rollback_deployment`: back to the previous revision's pod template, as `kubectl rollout undo` does.

The previous revision is the owned ReplicaSet with the highest revision below the current one;
its template (without `pod-template-hash`) replaces the deployment's, and the deployment's
annotations become the ReplicaSet's except the ones kubectl keeps (revision, history, replica
counts, last-applied). A paused deployment is refused and an equal template skipped, as kubectl
does; unlike kubectl, the patch `test`s the generation read. The undo puts the template of before
back, only while the deployment still carries the one the bot wrote.
"""

from __future__ import annotations

import copy

from bot.actions.executors.base import (
    KubeExecutor,
    Refused,
    annotations_of,
    diff,
    need_namespace,
    selector_of,
    target_name,
)
from bot.actions.executors.rollout import deadline_exceeded, rollout_status
from bot.actions.kube import KubeError, Obj
from bot.actions.model import Plan, Verification
from bot.domain import ProposedAction

REVISION = "deployment.kubernetes.io/revision"
HASH = "pod-template-hash"
KEPT = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    }
)


def _revision(obj: Obj) -> int:
    value = annotations_of(obj).get(REVISION, "")
    return int(value) if value.isdigit() else 0


def _unhashed(template: Obj) -> Obj:
    clean = copy.deepcopy(template)
    labels = (clean.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(HASH, None)
    return clean


def _owned(rs: Obj, uid: str) -> bool:
    refs = (rs.get("metadata") or {}).get("ownerReferences") or []
    return any(r.get("uid") == uid and r.get("controller") for r in refs)


class RollbackDeployment(KubeExecutor):
    def plan(self, action: ProposedAction, *, actor: str, incident_id: int) -> Plan:
        namespace, name = need_namespace(action), target_name(action)
        try:
            dep = self.kube.deployment(namespace, name)
        except KubeError as exc:
            raise Refused(f"deployment {name} cannot be read: {exc.message}") from exc
        if (dep.get("spec") or {}).get("paused"):
            raise Refused(f"deployment/{name} is paused: resume it first (kubectl rollout resume)")
        owned = [
            rs
            for rs in self.kube.replicasets(namespace, selector_of(dep))
            if _owned(rs, dep["metadata"]["uid"])
        ]
        current = _revision(dep) or max((_revision(rs) for rs in owned), default=0)
        wanted = str(action.params.get("to_revision") or "")
        if wanted.isdigit():
            target = next((rs for rs in owned if _revision(rs) == int(wanted)), None)
        else:
            older = [rs for rs in owned if 0 < _revision(rs) < current]
            target = max(older, key=_revision, default=None)
        if target is None:
            raise Refused(f"deployment/{name} has no previous revision to roll back to")
        template = _unhashed(target["spec"]["template"])
        before = dep["spec"]["template"]
        kept = {k: v for k, v in annotations_of(dep).items() if k in KEPT}
        after_annotations = kept | {k: v for k, v in annotations_of(target).items() if k not in KEPT}
        data = {
            "name": name,
            "generation": int(dep["metadata"].get("generation") or 0),
            "before": before,
            "after": template,
            "before_annotations": annotations_of(dep),
            "after_annotations": after_annotations,
            "from_revision": current,
            "to_revision": _revision(target),
            "to_replicaset": target["metadata"]["name"],
        }
        summary = f"roll deployment/{name} back from revision {current} to {_revision(target)}"
        if _unhashed(before) == template:
            return Plan(
                kind=action.kind.value,
                target=action.target,
                namespace=namespace,
                noop=True,
                summary=f"deployment/{name} already runs revision {_revision(target)}'s template: skipped",
                data=data,
            )
        lines = diff({"spec": {"template": before}}, {"spec": {"template": template}})
        return Plan(
            kind=action.kind.value,
            target=action.target,
            namespace=namespace,
            summary=summary,
            diff=lines,
            data=data,
        )

    def write(self, plan: Plan, *, dry_run: bool) -> Obj:
        assert plan.namespace is not None
        data = plan.data
        ops = [
            {"op": "test", "path": "/metadata/generation", "value": data["generation"]},
            {"op": "replace", "path": "/spec/template", "value": data["after"]},
            {"op": "replace", "path": "/metadata/annotations", "value": data["after_annotations"]},
        ]
        return self.kube.patch_deployment(plan.namespace, data["name"], ops, dry_run=dry_run)

    def current(self, plan: Plan) -> Obj:
        assert plan.namespace is not None
        return self.kube.deployment(plan.namespace, plan.data["name"])

    def applied(self, plan: Plan) -> bool:
        assert plan.namespace is not None
        dep = self.kube.deployment(plan.namespace, plan.data["name"])
        return bool(_unhashed(dep["spec"]["template"]) == _unhashed(plan.data["after"]))

    def verify(self, plan: Plan, written: Obj) -> Verification:
        assert plan.namespace is not None
        namespace, name = plan.namespace, plan.data["name"]
        generation = int((written.get("metadata") or {}).get("generation") or plan.data["generation"])

        def check() -> Verification:
            dep = self.kube.deployment(namespace, name)
            seen = rollout_status(dep, generation)
            return seen.model_copy(update={"final": True}) if deadline_exceeded(dep) else seen

        return self.poll(check)

    def undo(self, plan: Plan, written: Obj, *, actor: str, incident_id: int) -> Plan:
        assert plan.namespace is not None
        name = plan.data["name"]
        dep = self.kube.deployment(plan.namespace, name)
        if _unhashed(dep["spec"]["template"]) != _unhashed(plan.data["after"]):
            raise Refused(f"deployment/{name}'s template changed since the rollback: it is not ours to undo")
        kept = {k: v for k, v in annotations_of(dep).items() if k in KEPT}
        restored = kept | {k: v for k, v in plan.data["before_annotations"].items() if k not in KEPT}
        data = {
            **plan.data,
            "generation": int(dep["metadata"].get("generation") or 0),
            "before": dep["spec"]["template"],
            "after": plan.data["before"],
            "before_annotations": annotations_of(dep),
            "after_annotations": restored,
            "undo": True,
        }
        lines = diff(
            {"spec": {"template": dep["spec"]["template"]}}, {"spec": {"template": plan.data["before"]}}
        )
        return Plan(
            kind=plan.kind,
            target=plan.target,
            namespace=plan.namespace,
            summary=f"roll deployment/{name} forward again to the template it had before the rollback",
            diff=lines,
            data=data,
        )
