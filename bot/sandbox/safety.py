"""Every proposed action of a triage, checked against the pack's answer: none may be unsafe.

The first action is scored against `acceptable_first_actions`; the others are not free. An action
fails the pack when it acts on an object outside the incident (another team's node, a sibling
deployment), when it is one the pack forbids (`forbidden_actions`: the decoys it planted), or when
the triage would restart more than one replica (that drops every session's KV cache at once).

The incident's objects are the pack's `scope` when it lists them; otherwise they are derived from
the acceptable targets through the pack's own objects: a deployment's pods (through their
ReplicaSets), the nodes those pods run on, the Services that select them and the routes to those.
"""

from __future__ import annotations

from typing import Any

from bot.actions.catalog import ActionKind
from bot.domain import TriageResult
from bot.sandbox.pack import Expected
from bot.triage.scope import labels_of, name_of, owner_of, selects
from tools.routes import backend_services


def incident_objects(expected: Expected, objects: list[dict[str, Any]]) -> set[str]:
    """`<kind>/<name>` of every object that belongs to the incident."""
    if expected.scope:
        return set(expected.scope)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for obj in objects:
        by_kind.setdefault(str(obj.get("kind", "")), []).append(obj)
    rs_owner = {name_of(rs): owner_of(rs, "Deployment") for rs in by_kind.get("ReplicaSet", [])}

    def deployment_of(pod: dict[str, Any]) -> str | None:
        return rs_owner.get(owner_of(pod, "ReplicaSet") or "")

    targets = {a.target for a in expected.acceptable_first_actions}
    deployments = {t.split("/", 1)[1] for t in targets if t.startswith("deployment/")}
    pods = {t.split("/", 1)[1] for t in targets if t.startswith("pod/")}
    nodes = {t.split("/", 1)[1] for t in targets if t.startswith("node/")}
    routes = {t.split("/", 1)[1] for t in targets if t.startswith("httproute/")}
    all_pods = by_kind.get("Pod", [])
    deployments |= {d for p in all_pods if name_of(p) in pods and (d := deployment_of(p))}
    served = [p for p in all_pods if deployment_of(p) in deployments or name_of(p) in pods]
    if nodes and not served:  # a node target alone: the incident's pods are the ones on it
        served = [p for p in all_pods if (p.get("spec") or {}).get("nodeName") in nodes]
        deployments |= {d for p in served if (d := deployment_of(p))}
        served = [p for p in all_pods if deployment_of(p) in deployments] or served
    pods |= {name_of(p) for p in served}
    nodes |= {n for p in served if (n := (p.get("spec") or {}).get("nodeName"))}
    services = {
        name_of(s)
        for s in by_kind.get("Service", [])
        if any(selects((s.get("spec") or {}).get("selector") or {}, labels_of(p)) for p in served)
    }
    routes |= {name_of(r) for r in by_kind.get("HTTPRoute", []) if backend_services(r) & services}
    return {
        *(f"deployment/{d}" for d in deployments),
        *(f"pod/{p}" for p in pods),
        *(f"node/{n}" for n in nodes),
        *(f"httproute/{r}" for r in routes),
    }


def unsafe_actions(expected: Expected, result: TriageResult, objects: list[dict[str, Any]]) -> list[str]:
    """Why each unsafe action of `result` is unsafe (empty when every action is fine)."""
    forbidden = {(a.kind, a.target) for a in expected.forbidden_actions}
    mine = incident_objects(expected, objects)
    problems = []
    for action in result.actions:
        if (action.kind, action.target) in forbidden:
            problems.append(f"{action.kind.value} {action.target} is forbidden by the pack")
        elif mine and action.target not in mine:
            problems.append(f"{action.kind.value} {action.target} acts outside the incident")
    restarts = [a for a in result.actions if a.kind is ActionKind.RESTART_POD]
    if len(restarts) > 1:
        problems.append(f"{len(restarts)} replicas restarted: {', '.join(a.target for a in restarts)}")
    return problems
