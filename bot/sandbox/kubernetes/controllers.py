"""The controllers behind the stand-in, run on change only: what a write touched, they reconcile.

A pack records a cluster mid-incident (a failing rollout, pods that are not Ready), so nothing is
reconciled at load: a loaded object stays exactly as recorded until a write (never a dry run)
changes it or something it owns. Each change the store records marks its object dirty; right after
the write, and whenever someone looks (`_advance`), the controllers take the dirty objects and any
work fallen due (a pod starting, a route accepted) until nothing is left: a pod's change reaches
its ReplicaSet and budgets, a ReplicaSet's its Deployment, a Node's the pods waiting for room, and
a deleted owner takes its dependents with it (background garbage collection). Their own writes
bump resourceVersion and reach watches like any write, but are not client `writes`.
"""

from __future__ import annotations

from bot.sandbox.kubernetes.autoscalers import Autoscalers
from bot.sandbox.kubernetes.budgets import Budgets
from bot.sandbox.kubernetes.deployments import Deployments
from bot.sandbox.kubernetes.pods import controller_uid, is_active
from bot.sandbox.kubernetes.replicasets import ReplicaSets
from bot.sandbox.kubernetes.resources import RESOURCES, Obj, Resource
from bot.sandbox.kubernetes.routes import Routes

_MODELLED = {res.group_resource: res for res in RESOURCES}
_BY_KIND = {res.kind: res for res in RESOURCES}
POD, RS, DEPLOYMENT = _BY_KIND["Pod"], _BY_KIND["ReplicaSet"], _BY_KIND["Deployment"]
PDB = _BY_KIND["PodDisruptionBudget"]
_ROUNDS = 100  # a bound on one reconcile, in case two controllers ever disagree


class Controllers(ReplicaSets, Deployments, Autoscalers, Routes, Budgets):
    """Dispatch changed objects to their controllers until the store settles."""

    def _advance(self) -> None:
        with self._lock:
            self._reconcile()

    def _reconcile(self) -> None:
        for _ in range(_ROUNDS):
            for work in self._due():
                work()
            if not self._dirty:
                return
            batch, self._dirty = self._dirty, {}
            for (group_resource, namespace, name), before in batch.items():
                res = _MODELLED.get(group_resource)
                if res is not None:
                    self._react(res, self._find(res, namespace, name), before)

    def _react(self, res: Resource, current: Obj | None, before: Obj | None) -> None:
        if current is None and before is not None:
            self._collect(before)
        if res.kind == "Pod":
            self._pod_changed(current, before)
        elif res.kind == "Node":
            self._schedule_waiting()
        elif current is None:
            return
        elif res.kind == "ReplicaSet":
            self._sync_replicaset(current)
            owner = self._owner(DEPLOYMENT, current)
            if owner is not None:
                self._touch(DEPLOYMENT, owner)
        elif res.kind == "Deployment":
            self._sync_deployment(current, before)
        elif res.kind == "HorizontalPodAutoscaler":
            self._sync_autoscaler(current, before)
        elif res.kind == "HTTPRoute":
            self._route_changed(current, before)
        elif res.kind == "PodDisruptionBudget":
            self._sync_budget(current)

    def _pod_changed(self, pod: Obj | None, before: Obj | None) -> None:
        """A pod's change reaches its ReplicaSet and the budgets over it; its going frees room."""
        for seen in (pod, before):
            if seen is None:
                continue
            owner = self._owner(RS, seen)
            if owner is not None:
                self._touch(RS, owner)
            for pdb in self._budgets_for(seen):
                self._touch(PDB, pdb)
        if pod is None or not is_active(pod):
            self._schedule_waiting()

    def _owner(self, res: Resource, obj: Obj) -> Obj | None:
        uid = controller_uid(obj)
        if uid is None:
            return None
        owners = self._objects(res, obj["metadata"].get("namespace"))
        return next((owner for owner in owners if owner["metadata"].get("uid") == uid), None)

    def _collect(self, owner: Obj) -> None:
        """Delete what the gone object owned (ReplicaSets of a Deployment, pods of a ReplicaSet)."""
        uid, namespace = owner["metadata"].get("uid"), owner["metadata"].get("namespace")
        if namespace is None:
            return
        for res in (RS, POD):
            for obj in self._objects(res, namespace):
                refs = obj["metadata"].get("ownerReferences") or []
                if any(ref.get("uid") == uid for ref in refs):
                    self._drop(res, obj)
