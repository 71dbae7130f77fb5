"""Each executor's guards against the cluster stand-in, through the real client: what it refuses,
what it leaves alone, and what its undo will not touch because it is no longer ours."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import kubernetes.client as k8s
import pytest

from bot.actions.catalog import ActionKind
from bot.actions.executors import Executor, Limits, Refused, executor_for
from bot.actions.kube import KubeActions, KubeError
from bot.domain import ProposedAction
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.kubernetes.apis import ServedApis
from bot.sandbox.server import ServerThread
from tests.actions.conftest import HPA, expected_target, pack_for, served
from tools.kubernetes import api_client

GPU = "nvidia.com/gpu"


@contextmanager
def cluster(objects: list[dict[str, Any]]) -> Iterator[KubeActions]:
    with served(objects) as (_, kube):
        yield kube


def executor(kube: KubeActions, kind: str, verify: float = 10) -> Executor:
    return executor_for(ActionKind(kind), kube, Limits(verify_seconds=verify, poll_seconds=0.2))


def edited(kind: str, change: Any) -> list[dict[str, Any]]:
    objects = copy.deepcopy(pack_for(kind).objects)
    for obj in objects:
        change(obj)
    return objects


def test_a_replica_without_a_free_gpu_is_said_to_be_pending() -> None:
    def full(obj: dict[str, Any]) -> None:
        if obj["kind"] == "Node" and GPU in (obj.get("status") or {}).get("allocatable", {}):
            obj["status"]["allocatable"][GPU] = "1"  # what the pod on it already holds

    action = expected_target("add_replica")
    with cluster(edited("add_replica", full)) as kube:
        run = executor(kube, "add_replica", verify=2)
        plan = run.plan(action, actor="U0BOB", incident_id=1)
        seen = run.verify(plan, run.write(plan, dry_run=False))
    assert not seen.ok and seen.pending and "Insufficient nvidia.com/gpu" in seen.summary, seen


def test_an_autoscaler_gets_its_minimum_raised_and_its_maximum_is_kept() -> None:
    action = expected_target("add_replica")
    name = action.target.split("/", 1)[1]
    hpa = copy.deepcopy(HPA)
    hpa["metadata"]["namespace"] = action.namespace
    hpa["spec"]["scaleTargetRef"]["name"] = name
    with cluster([*pack_for("add_replica").objects, hpa]) as kube:
        run = executor(kube, "add_replica")
        replicas = int(kube.deployment(str(action.namespace), name)["spec"].get("replicas", 1))
        plan = run.plan(action, actor="U0BOB", incident_id=1)
        assert plan.data["hpa"] == "support" and plan.data["to"] == replicas + 1
        assert run.verify(plan, run.write(plan, dry_run=False)).ok
        assert kube.deployment(str(action.namespace), name)["spec"]["replicas"] == replicas + 1
    hpa["spec"]["maxReplicas"] = replicas
    with cluster([*pack_for("add_replica").objects, hpa]) as kube, pytest.raises(Refused, match="at most"):
        executor(kube, "add_replica").plan(action, actor="U0BOB", incident_id=1)


def test_a_node_cordoned_before_is_left_alone_and_never_uncordoned() -> None:
    action = expected_target("cordon_node")
    name = action.target.split("/", 1)[1]

    def cordoned(obj: dict[str, Any]) -> None:
        if obj["kind"] == "Node" and obj["metadata"]["name"] == name:
            obj["spec"]["unschedulable"] = True

    with cluster(edited("cordon_node", cordoned)) as kube:
        run = executor(kube, "cordon_node")
        plan = run.plan(action, actor="U0BOB", incident_id=1)
        assert plan.noop and "already cordoned" in plan.summary
        back = run.undo(plan, {}, actor="U0CAROL", incident_id=1)
        assert back.noop and run.verify(back, {}).ok
        assert kube.node(name)["spec"]["unschedulable"] is True


def test_a_paused_deployment_is_not_rolled_back() -> None:
    def paused(obj: dict[str, Any]) -> None:
        if obj["kind"] == "Deployment":
            obj["spec"]["paused"] = True

    with cluster(edited("rollback_deployment", paused)) as kube, pytest.raises(Refused, match="paused"):
        executor(kube, "rollback_deployment").plan(
            expected_target("rollback_deployment"), actor="U", incident_id=1
        )


def test_a_route_with_no_other_healthy_backend_is_not_rerouted() -> None:
    target = ProposedAction(
        kind=ActionKind.REROUTE,
        target="httproute/support-chat",
        namespace=expected_target("add_replica").namespace,
        params={"away_from": "vllm-llama31-8b-support"},
    )
    with cluster(pack_for("add_replica").objects) as kube, pytest.raises(Refused, match="no healthy backend"):
        executor(kube, "reroute").plan(target, actor="U0BOB", incident_id=1)


def test_an_undo_does_not_touch_weights_someone_changed_since() -> None:
    action = expected_target("reroute")
    with cluster(pack_for("reroute").objects) as kube:
        run = executor(kube, "reroute")
        plan = run.plan(action, actor="U0BOB", incident_id=1)
        written = run.write(plan, dry_run=False)
        namespace, name = str(action.namespace), action.target.split("/", 1)[1]
        ops = [{"op": "replace", "path": "/spec/rules/0/backendRefs/0/weight", "value": 7}]
        kube.patch_route(namespace, name, ops, dry_run=False)  # a human (or GitOps) changed it since
        with pytest.raises(Refused, match="not ours"):
            run.undo(plan, written, actor="U0CAROL", incident_id=1)


def test_a_write_on_a_route_changed_since_the_plan_is_refused_by_the_server() -> None:
    action = expected_target("reroute")
    with cluster(pack_for("reroute").objects) as kube:
        run = executor(kube, "reroute")
        plan = run.plan(action, actor="U0BOB", incident_id=1)
        namespace, name = str(action.namespace), action.target.split("/", 1)[1]
        kube.patch_route(
            namespace,
            name,
            [{"op": "replace", "path": "/spec/rules/0/backendRefs/1/weight", "value": 11}],
            dry_run=False,
        )
        with pytest.raises(KubeError) as refused:
            run.write(plan, dry_run=False)
        assert refused.value.status == 422
        weights = [r.get("weight") for r in kube.route(namespace, name)["spec"]["rules"][0]["backendRefs"]]
        assert weights == [90, 11]


def test_a_rollback_diff_names_the_argument_that_changes() -> None:
    action = expected_target("rollback_deployment")
    with cluster(pack_for("rollback_deployment").objects) as kube:
        plan = executor(kube, "rollback_deployment").plan(action, actor="U0BOB", incident_id=1)
    changed = [line for line in plan.diff if ".args[" in line]
    assert changed and all(len(line) < 200 for line in changed), plan.diff
    assert any("→ 128" in line and "--max-num-seqs" in line for line in changed), changed


def test_reroute_on_a_cluster_serving_httproute_only_as_v1beta1() -> None:
    """Gateway API before v1.0 serves HTTPRoute as v1beta1 alone: v1 answers 404 page not found."""
    action = expected_target("reroute")
    standin = KubernetesStandIn(pack_for("reroute").objects, apis=ServedApis(httproute_versions=("v1beta1",)))
    with ServerThread(standin.app) as server:
        kube = KubeActions(api_client(server.url))
        run = executor(kube, "reroute")
        plan = run.plan(action, actor="U0BOB", incident_id=1)
        written = run.write(plan, dry_run=False)
        namespace, name = str(action.namespace), action.target.split("/", 1)[1]
        route = k8s.CustomObjectsApi(kube.api).get_namespaced_custom_object(
            "gateway.networking.k8s.io", "v1beta1", namespace, "httproutes", name
        )
        after = [r.get("weight") for r in route["spec"]["rules"][0]["backendRefs"]]
        run.write(run.undo(plan, written, actor="U0CAROL", incident_id=1), dry_run=False)
        restored = [r.get("weight") for r in kube.route(namespace, name)["spec"]["rules"][0]["backendRefs"]]
        kube.close()
    standin.close()
    assert (after, restored) == ([50, 50], [90, 10])
