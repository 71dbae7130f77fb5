"""`reroute`: move an HTTPRoute's traffic off the failing backend onto the healthy ones, or, when
no backend is failing but the split is skewed, share it by each backend's Ready replicas.

Weights are proportional (Gateway API: 0 sends nothing, the default is 1), so the failing
backend's share is handed to the healthy backends in proportion to what they carry. The JSON Patch
`test`s the weights read and the generation, so a route changed since the plan is refused by the
server instead of overwritten; a backend counts as healthy only when its Service selects a Ready pod.
"""

from __future__ import annotations

from typing import Any

from bot.actions.executors.base import (
    KubeExecutor,
    Refused,
    label_selector,
    need_namespace,
    pointer,
    ready,
    target_name,
)
from bot.actions.kube import KubeError, Obj
from bot.actions.model import Plan, Verification
from bot.domain import ProposedAction

Weights = list[list[Any]]  # [rule, ref, backend name, weight, weight was set]


def weights_of(route: Obj) -> Weights:
    found: Weights = []
    for i, rule in enumerate((route.get("spec") or {}).get("rules") or []):
        for j, ref in enumerate(rule.get("backendRefs") or []):
            found.append([i, j, str(ref.get("name")), int(ref.get("weight", 1)), "weight" in ref])
    return found


def balanced(current: Weights, ready: dict[str, int]) -> dict[str, int]:
    """New weights in proportion to each backend's Ready pods, keeping the total (at least 1 each)."""
    total = max(sum(b[3] for b in current), len(ready))
    pods = sum(ready.values())
    new = {b[2]: 0 for b in current}
    for name, count in ready.items():
        new[name] = max(1, total * count // pods) if count else 0
    largest = max(ready, key=lambda name: (ready[name], name))
    new[largest] += total - sum(new.values())
    return new


def shifted(current: Weights, away: str, healthy: set[str]) -> dict[str, int]:
    """New weights per backend: `away` gets 0, its share goes to `healthy` in proportion."""
    new = {name: weight for _, _, name, weight, _ in current}
    moving = new[away]
    keep = {name: new[name] for name in new if name in healthy and name != away}
    base = sum(keep.values())
    new[away] = 0
    if moving == 0:
        return new
    if base == 0:
        share = [(name, 1) for name in keep]
        base = len(share)
    else:
        share = list(keep.items())
    given = 0
    for name, weight in share:
        extra = moving * weight // base
        new[name] += extra
        given += extra
    largest = max(share, key=lambda item: (item[1], item[0]))[0]
    new[largest] += moving - given
    return new


class Reroute(KubeExecutor):
    def plan(self, action: ProposedAction, *, actor: str, incident_id: int) -> Plan:
        namespace, name = need_namespace(action), target_name(action)
        try:
            route = self.kube.route(namespace, name)
        except KubeError as exc:
            raise Refused(f"httproute {name} cannot be read: {exc.message}") from exc
        current = weights_of(route)
        names = {b[2] for b in current}
        away = str(action.params.get("away_from") or "")
        if away and away not in names:
            raise Refused(f"the failing backend {away} is not a backend of httproute/{name}")
        ready = {n: self._ready_pods(namespace, n) for n in sorted(names)}
        healthy = {n for n, count in ready.items() if count and n != away}
        if not healthy:
            raise Refused(f"no healthy backend would remain on httproute/{name}: traffic stays where it is")
        if away:
            new = shifted(current, away, healthy)
            summary = f"send httproute/{name}'s traffic away from {away} onto {', '.join(sorted(healthy))}"
        else:
            new = balanced(current, {n: (ready[n] if n in healthy else 0) for n in names})
            shares = ", ".join(f"{n}: {ready[n]} Ready" for n in sorted(names))
            summary = f"share httproute/{name}'s traffic by Ready replicas ({shares})"
        if new == {b[2]: b[3] for b in current}:
            raise Refused(f"httproute/{name}'s weights already are what this would set")
        generation = int(route["metadata"].get("generation") or 0)
        return Plan(
            kind=action.kind.value,
            target=action.target,
            namespace=namespace,
            summary=summary,
            diff=[f"~ backend {b[2]} weight: {b[3]} → {new[b[2]]}" for b in current if new[b[2]] != b[3]],
            data={"before": current, "after": new, "generation": generation, "name": name},
        )

    def _ready_pods(self, namespace: str, backend: str) -> int:
        """Ready pods behind a backend's Service; 0 when it or its selector is missing (not healthy)."""
        try:
            selector = (self.kube.service(namespace, backend).get("spec") or {}).get("selector") or {}
        except KubeError:
            return 0
        if not selector:
            return 0
        pods = self.kube.pods(namespace, label_selector(selector))
        return sum(1 for p in pods if ready(p))

    @staticmethod
    def ops(before: Weights, after: dict[str, int], generation: int) -> list[Obj]:
        ops: list[Obj] = [{"op": "test", "path": "/metadata/generation", "value": generation}]
        for i, j, name, weight, was_set in before:
            path = pointer("spec", "rules", i, "backendRefs", j, "weight")
            if after[name] == weight and was_set:
                continue
            if was_set:
                ops.append({"op": "test", "path": path, "value": weight})
            ops.append({"op": "replace" if was_set else "add", "path": path, "value": after[name]})
        return ops

    def write(self, plan: Plan, *, dry_run: bool) -> Obj:
        data = plan.data
        ops = self.ops(data["before"], data["after"], data["generation"])
        assert plan.namespace is not None
        return self.kube.patch_route(plan.namespace, data["name"], ops, dry_run=dry_run)

    def current(self, plan: Plan) -> Obj:
        assert plan.namespace is not None
        return self.kube.route(plan.namespace, plan.data["name"])

    def applied(self, plan: Plan) -> bool:
        assert plan.namespace is not None
        route = self.kube.route(plan.namespace, plan.data["name"])
        return bool({b[2]: b[3] for b in weights_of(route)} == plan.data["after"])

    def verify(self, plan: Plan, written: Obj) -> Verification:
        assert plan.namespace is not None
        namespace, name = plan.namespace, plan.data["name"]
        generation = int((written.get("metadata") or {}).get("generation") or 0)

        def check() -> Verification:
            route = self.kube.route(namespace, name)
            parents = (route.get("status") or {}).get("parents") or []
            accepted = [
                c
                for p in parents
                for c in p.get("conditions") or []
                if c.get("type") == "Accepted" and int(c.get("observedGeneration") or 0) >= generation
            ]
            if parents and len(accepted) >= len(parents) and all(c.get("status") == "True" for c in accepted):
                return Verification(ok=True, summary=f"httproute/{name} Accepted at generation {generation}")
            return Verification(
                ok=False, summary=f"httproute/{name} not yet Accepted at generation {generation}"
            )

        return self.poll(check)

    def undo(self, plan: Plan, written: Obj, *, actor: str, incident_id: int) -> Plan:
        assert plan.namespace is not None
        route = self.kube.route(plan.namespace, plan.data["name"])
        current = weights_of(route)
        if {b[2]: b[3] for b in current} != plan.data["after"]:
            raise Refused("the route's weights changed since the bot set them: they are not ours to restore")
        before = {b[2]: b[3] for b in plan.data["before"]}
        return Plan(
            kind=plan.kind,
            target=plan.target,
            namespace=plan.namespace,
            summary=f"restore httproute/{plan.data['name']}'s backend weights",
            diff=[
                f"~ backend {b[2]} weight: {b[3]} → {before[b[2]]}" for b in current if before[b[2]] != b[3]
            ],
            data={
                "before": current,
                "after": before,
                "generation": int(route["metadata"].get("generation") or 0),
                "name": plan.data["name"],
            },
        )
