"""The actions' role (deploy/kubernetes/rbac-actions.yaml) grants exactly the writes the executors
make: each executor is run against the cluster stand-in (dry run, write, undo), and every request
it made is mapped to the RBAC verb and resource the API server would check."""

from __future__ import annotations

import re
from typing import Any

import yaml

from bot.actions.catalog import ActionKind
from bot.actions.executors import Limits, executor_for
from bot.actions.executors.restart_pod import Blocked
from bot.domain import ProposedAction
from tests.actions.conftest import HPA, PACKS, expected_target, pack_for, served
from tests.conftest import ROOT

READS = {"get", "list", "watch"}


def granted(path: str) -> set[tuple[str, str, str]]:
    """What the file's roles grant together (the actions' namespaced writes and the nodes')."""
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / path).read_text()))
    return {
        (g, r, v)
        for role in docs
        if role["kind"] == "ClusterRole"
        for rule in role["rules"]
        for g in rule["apiGroups"]
        for r in rule["resources"]
        for v in rule["verbs"]
    }


def rbac_of(verb: str, path: str) -> tuple[str, str, str]:
    """(apiGroup, resource[/subresource], verb) of one request, as the authorizer names it."""
    found = re.match(r"^/(?:api/v1|apis/(?P<group>[^/]+)/[^/]+)(?:/namespaces/[^/]+)?/(?P<rest>.+)$", path)
    assert found, path
    parts = found.group("rest").split("/")
    resource = parts[0] + (f"/{parts[2]}" if len(parts) > 2 else "")
    action = {"PATCH": "patch", "PUT": "update", "DELETE": "delete", "POST": "create"}[verb]
    return (found.group("group") or "", resource, action)


def run_kind(
    kind: str, action: ProposedAction, extra: list[dict[str, Any]] | None = None
) -> list[tuple[str, str, str]]:
    with served([*pack_for(kind).objects, *(extra or [])]) as (standin, kube):
        executor = executor_for(ActionKind(kind), kube, Limits(verify_seconds=10, poll_seconds=0.1))
        plan = executor.plan(action, actor="U0BOB", incident_id=1)
        try:
            executor.write(plan, dry_run=True)
            written = executor.write(plan, dry_run=False)
        except Blocked:
            written = {}
        assert executor.verify(plan, written).ok
        back = executor.undo(plan, written, actor="U0CAROL", incident_id=1)
        if not back.noop:
            executor.write(back, dry_run=False)
    return [rbac_of(w.verb, w.path) for w in standin.writes]


def test_the_actions_role_grants_exactly_the_writes_the_executors_make() -> None:
    made: set[tuple[str, str, str]] = set()
    for kind in sorted(PACKS):
        made |= set(run_kind(kind, expected_target(kind)))
    delete = expected_target("restart_pod").model_copy(update={"params": {"mode": "delete"}})
    made |= set(run_kind("restart_pod", delete))
    surge = expected_target("add_replica")
    hpa = {**HPA, "metadata": {**HPA["metadata"], "namespace": surge.namespace}}
    hpa["spec"] = {
        **HPA["spec"],
        "scaleTargetRef": {**HPA["spec"]["scaleTargetRef"], "name": surge.target.split("/")[1]},
    }
    made |= set(run_kind("add_replica", surge, [hpa]))
    writes = {g for g in granted("rbac-actions.yaml") if g[2] not in READS}
    assert made == writes, f"made but not granted: {made - writes}; granted but never made: {writes - made}"


def test_the_read_only_role_holds_no_write_and_the_actions_role_no_wildcard() -> None:
    assert all(v in READS for _, _, v in granted("rbac-readonly.yaml"))
    assert not [g for g in granted("rbac-actions.yaml") if "*" in g]
