"""Propose: the matched runbook's actions, with concrete targets resolved from the evidence.

First comes the safest fast reversible move the runbook lists whose condition holds. A target
that the evidence does not name is never invented: the action is left out instead.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from bot.actions.catalog import SCOPE_FIELD, ActionKind, spec_for
from bot.domain import ProposedAction
from bot.triage.changes import RISKY_CHANGES
from bot.triage.classify import MODEL_RULE, Decision
from bot.triage.findings import NODE_CODES, NODE_FAULT, Finding
from bot.triage.rollout_rule import changed
from bot.triage.runbooks import ActionContext, Runbook, RunbookCatalog
from bot.triage.scope import IncidentScope, selects
from tools.kubernetes import REVISION, Topology, pod_name_pattern
from tools.result import Evidence

# How soon after a rollout a fault must start for the rollout to be worth rolling back: a change
# that breaks an engine does so once its pods take traffic under load, not an afternoon later.
CHANGE_LEAD = timedelta(minutes=20)


def _one(values: set[str] | None) -> str | None:
    return next(iter(values)) if values and len(values) == 1 else None


def context(
    decision: Decision, scope: IncidentScope, topology: Topology | None, evidence: list[Evidence]
) -> ActionContext:
    """The targets and facts the runbook's conditions are checked against."""
    cause = decision.cause
    targets: dict[str, str] = {}
    # Only objects the cluster has and the incident's scope holds: a node or pod that a log line
    # names is a claim, not a target.
    node = _one(_verified(cause, NODE_FAULT, scope.nodes)) or _one(_verified(cause, "node", scope.nodes))
    pod = _one(_verified(cause, "pod", scope.pods))
    if node is None and pod is not None and topology is not None:
        node = next((p["spec"].get("nodeName") for p in topology.pods if p["metadata"]["name"] == pod), None)
    if pod is None and node is not None and topology is not None:
        on_node = [
            p["metadata"]["name"]
            for p in topology.pods
            if p["spec"].get("nodeName") == node and p["metadata"]["name"] in scope.pods
        ]
        pod = on_node[0] if len(on_node) == 1 else None
    deployment = _one(_verified(cause, "deployment", scope.deployments))
    if deployment is None and cause is not None:  # the deployment of the failing pods
        failing = cause.targets.get("pod", set())
        deployment = _one({d for d in scope.deployments if _owned(d, failing, topology)})
    if deployment is None and decision.rollout is not None and decision.rule == MODEL_RULE:
        deployment = decision.rollout.labels.get("deployment")
    if deployment is None and len(scope.deployments) == 1:
        deployment = scope.deployments[0]
    if deployment is not None and deployment not in [*scope.deployments, *scope.related]:
        deployment = None
    route = _one(_verified(cause, "route", scope.routes))
    if route is None and len(scope.routes) == 1:
        route = scope.routes[0]
    for key, value in (("node", node), ("pod", pod), ("deployment", deployment), ("route", route)):
        if value:
            targets[key] = value
    rollout = decision.rollout is not None and decision.rollout.labels.get("deployment") == deployment
    precedes = (
        rollout
        and decision.rollout is not None
        and decision.rollout.onset is not None
        and (
            cause is None
            or cause.onset is None
            or decision.rollout.onset <= cause.onset <= decision.rollout.onset + CHANGE_LEAD
        )
    )
    routes = [e for e in evidence if e.labels.get("kind") == "route" and e.labels.get("route") == route]
    return ActionContext(
        targets=targets,
        rollout=rollout,
        config_rollout=bool(precedes and changed(decision.rollout) & RISKY_CHANGES),
        hardware_fault=node is not None
        and any(f.code in NODE_CODES and node in f.targets.get(NODE_FAULT, set()) for f in decision.findings),
        single_node=node is not None and (len(scope.nodes) > 1 or bool(cause and cause.targets.get("node"))),
        single_pod=pod is not None and len(scope.pods) > 1,
        multi_backend_route=any(r.labels.get("backends", "").count("=") >= 2 for r in routes),
        fleet_healthy=len(scope.pods) > 1,
    )


def _verified(cause: Finding | None, kind: str, names: list[str]) -> set[str]:
    return {n for n in (cause.targets.get(kind, set()) if cause else set()) if n in names}


def propose(
    book: Runbook | None, ctx: ActionContext, *, namespace: str, topology: Topology | None, decision: Decision
) -> list[ProposedAction]:
    if book is None:
        return []
    actions = []
    for resolved in RunbookCatalog.resolve(book, ctx):
        actions.append(
            ProposedAction(
                kind=resolved.kind,
                target=resolved.target,
                namespace=namespace if spec_for(resolved.kind).namespaced else None,
                params=_params(resolved.kind, resolved.target, topology, decision),
                reversible=True,
                undo=resolved.undo,
                rationale=resolved.rationale,
            )
        )
    return actions


def in_scope(
    actions: list[ProposedAction], scope: IncidentScope, topology: Topology | None, decision: Decision
) -> tuple[list[ProposedAction], list[ProposedAction]]:
    """The review's actions on targets of the incident's scope (with their parameters filled as the
    rules fill them), and the ones left out; the executors check the scope again before writing."""
    kept, dropped = [], []
    for action in actions:
        kind, _, name = action.target.partition("/")
        if name in getattr(scope, SCOPE_FIELD.get(kind, ""), []):
            kept.append(
                action.model_copy(update={"params": _params(action.kind, action.target, topology, decision)})
            )
        else:
            dropped.append(action)
    return kept, dropped


def _params(kind: ActionKind, target: str, topology: Topology | None, decision: Decision) -> dict[str, Any]:
    name = target.split("/", 1)[1]
    if topology is None:
        return {}
    if kind is ActionKind.ROLLBACK_DEPLOYMENT and decision.rollout is not None:
        rs = decision.rollout.labels.get("previous_replicaset")
        previous = next((r for r in topology.replicasets if r["metadata"]["name"] == rs), None)
        revision = (previous or {}).get("metadata", {}).get("annotations", {}).get(REVISION)
        return {"to_replicaset": rs, "to_revision": revision, "from_revision": str(decision.rollout.value)}
    if kind is ActionKind.ADD_REPLICA:
        deployment = next((d for d in topology.deployments if d["metadata"]["name"] == name), None)
        replicas = int(((deployment or {}).get("spec") or {}).get("replicas") or 1)
        return {"from_replicas": replicas, "to_replicas": replicas + 1}
    if kind is ActionKind.REROUTE:
        route = next((r for r in topology.routes if r["metadata"]["name"] == name), None)
        rules = ((route or {}).get("spec") or {}).get("rules") or []
        backends = [
            {"name": ref.get("name"), "weight": ref.get("weight", 1)}
            for rule in rules
            for ref in rule.get("backendRefs") or []
        ]
        away = _failing_backend({str(b["name"]) for b in backends}, topology, decision)
        return {"backends": backends, **({"away_from": away} if away else {})}
    return {}


def _failing_backend(backends: set[str], topology: Topology, decision: Decision) -> str | None:
    """The one backend whose Service selects the cause's pods (or that the cause names), if any.

    None when no single backend is to blame (a skewed split): the reroute then shares the traffic
    by Ready replicas instead of moving it off one backend.
    """
    cause = decision.cause
    if cause is None:
        return None
    named = backends & set(cause.targets.get("service", set()))
    if len(named) == 1:
        return next(iter(named))
    pods = set(cause.targets.get("pod", set()))
    blamed = set()
    for svc in topology.services:
        selector = (svc.get("spec") or {}).get("selector") or {}
        svc_name = svc["metadata"]["name"]
        if svc_name not in backends:
            continue
        for pod in topology.pods:
            if pod["metadata"]["name"] in pods and selects(selector, pod["metadata"].get("labels") or {}):
                blamed.add(svc_name)
    return next(iter(blamed)) if len(blamed) == 1 and len(backends) > 1 else None


def _owned(deployment: str, pods: set[str], topology: Topology | None) -> set[str]:
    """Which of `pods` are the deployment's: by the owner chain where the cluster was read, else by
    the names its ReplicaSets give (not a bare prefix, which would take a `<deploy>-canary`'s pods)."""
    if topology is not None:
        return pods & {p["metadata"]["name"] for p in topology.pods_of(deployment)}
    pattern = re.compile(pod_name_pattern(deployment))
    return {p for p in pods if pattern.fullmatch(p)}
