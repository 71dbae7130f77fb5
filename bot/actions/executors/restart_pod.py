"""`restart_pod`: evict one pod so its ReplicaSet replaces it (its KV cache and in-flight
generations go with it; the other replicas keep theirs).

Eviction keeps to the PodDisruptionBudget: a 429 from the budget is `Blocked`, and a plain
delete, which bypasses it, is only ever a second proposal with its own approval. Both name the
pod's UID, so a pod already replaced is never the one removed. There is nothing to restore
afterwards: the undo only checks that the replica set is whole again.
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


class Blocked(Exception):
    """The eviction API refused: a disruption budget would be broken."""

    def __init__(self, message: str, causes: list[str]) -> None:
        super().__init__(message)
        self.message = message
        self.causes = causes


def _owner(pod: Obj) -> Obj | None:
    refs = (pod.get("metadata") or {}).get("ownerReferences") or []
    return next((r for r in refs if r.get("controller")), None)


class RestartPod(KubeExecutor):
    def plan(self, action: ProposedAction, *, actor: str, incident_id: int) -> Plan:
        namespace, name = need_namespace(action), target_name(action)
        try:
            pod = self.kube.pod(namespace, name)
        except KubeError as exc:
            raise Refused(f"pod {name} cannot be read: {exc.message}") from exc
        meta = pod["metadata"]
        if meta.get("deletionTimestamp"):
            raise Refused(f"pod {name} is already terminating")
        owner = _owner(pod)
        if owner is None or owner.get("kind") != "ReplicaSet":
            raise Refused(f"pod {name} has no ReplicaSet that would replace it")
        others = self._ready_siblings(namespace, owner, exclude=meta["uid"])
        if others < self.limits.min_ready_replicas:
            raise Refused(
                f"only {others} other Ready replica(s) would remain while {name} restarts; "
                f"the configured minimum is {self.limits.min_ready_replicas}"
            )
        mode = "delete" if action.params.get("mode") == "delete" else "evict"
        verb = "delete (bypassing the disruption budget)" if mode == "delete" else "evict"
        node = (pod.get("spec") or {}).get("nodeName") or "?"
        return Plan(
            kind=action.kind.value,
            target=action.target,
            namespace=namespace,
            summary=f"{verb} pod {name}; replicaset/{owner['name']} creates a replacement",
            diff=[
                f"- pod/{name} (uid {meta['uid']}, node {node}, its in-flight requests are dropped)",
                f"+ a new pod from replicaset/{owner['name']} ({others} other Ready replica(s) keep serving)",
            ],
            data={"name": name, "uid": meta["uid"], "owner": owner["name"], "mode": mode, "others": others},
        )

    def _siblings(self, namespace: str, owner: str) -> list[Obj]:
        rs = self.kube.replicaset(namespace, owner)
        pods = self.kube.pods(namespace, selector_of(rs))
        return [p for p in pods if (_owner(p) or {}).get("uid") == rs["metadata"]["uid"]]

    def _ready_siblings(self, namespace: str, owner: Obj, *, exclude: str) -> int:
        pods = self._siblings(namespace, str(owner["name"]))
        return sum(1 for p in pods if p["metadata"]["uid"] != exclude and ready(p))

    def write(self, plan: Plan, *, dry_run: bool) -> Obj:
        assert plan.namespace is not None
        data = plan.data
        if data.get("check_only"):
            return {}
        if data["mode"] == "delete":
            return self.kube.delete_pod(plan.namespace, data["name"], data["uid"], dry_run=dry_run)
        try:
            return self.kube.evict(plan.namespace, data["name"], data["uid"], dry_run=dry_run)
        except KubeError as exc:
            if exc.status == 429:
                causes = [str(c.get("message") or c.get("reason")) for c in exc.causes]
                raise Blocked(exc.message, causes) from exc
            raise

    def current(self, plan: Plan) -> Obj | None:
        return None  # an eviction answers a Status, not the pod: the plan's lines are the diff

    def applied(self, plan: Plan) -> bool:
        assert plan.namespace is not None
        if plan.data.get("check_only"):
            return True
        try:
            pod = self.kube.pod(plan.namespace, plan.data["name"])
        except KubeError as exc:
            if exc.status == 404:
                return True
            raise
        return bool(pod["metadata"]["uid"] != plan.data["uid"] or pod["metadata"].get("deletionTimestamp"))

    def verify(self, plan: Plan, written: Obj) -> Verification:
        assert plan.namespace is not None
        namespace, data = plan.namespace, plan.data
        wanted = int(data["others"]) + 1

        def check() -> Verification:
            pods = self._siblings(namespace, data["owner"])
            if any(
                p["metadata"]["uid"] == data["uid"] and not p["metadata"].get("deletionTimestamp")
                for p in pods
            ):
                return Verification(ok=False, summary=f"pod {data['name']} is still there")
            fresh = [p for p in pods if p["metadata"]["uid"] != data["uid"]]
            count = sum(1 for p in fresh if ready(p))
            if count >= wanted:
                return Verification(
                    ok=True, summary=f"replicaset/{data['owner']} has {count} Ready pods again"
                )
            why = unschedulable([p for p in fresh if not ready(p)])
            if why:
                return Verification(ok=False, pending=True, summary=f"the replacement is Pending: {why}")
            return Verification(
                ok=False, summary=f"replicaset/{data['owner']}: {count} of {wanted} pods Ready"
            )

        return self.poll(check)

    def undo(self, plan: Plan, written: Obj, *, actor: str, incident_id: int) -> Plan:
        return Plan(
            kind=plan.kind,
            target=plan.target,
            namespace=plan.namespace,
            summary="nothing to restore: a restart is not reversible; checking the replica set is whole",
            diff=[],
            data={**plan.data, "check_only": True},
            noop=True,
        )
