"""The stand-in's controllers, driven through the `kubernetes` client as the bot's actions drive them.

Evictions under PodDisruptionBudgets, replacement pods turning Ready, scaling (and a GPU pod no
node has room for), an HPA's minReplicas raise, HTTPRoute status after a JSON patch, rollouts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kubernetes.client as k8s
import pytest
import yaml
from kubernetes.client.exceptions import ApiException

from bot.sandbox.kubernetes import KubernetesStandIn
from tests.sandbox.test_kubernetes_cluster import Served, as_json, eventually, served

NOW = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
NS = "serving"
RS, OLD_RS = "vllm-7b9f5d6c4", "vllm-5c8d7f9b6"
POD_A, POD_B = f"{RS}-qx2lk", f"{RS}-p7m4t"
GATEWAY = ("gateway.networking.k8s.io", "v1", NS, "httproutes")
JSON_PATCH = "application/json-patch+json"
_NODE = """
apiVersion: v1
kind: Node
metadata: {{name: {name}}}
status:
  allocatable: {{nvidia.com/gpu: "1"}}
  conditions: [{{type: Ready, status: "True"}}]
  addresses: [{{type: InternalIP, address: {ip}}}]
"""
_POD = """
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: serving
  creationTimestamp: "2026-06-01T09:00:00Z"
  labels: {{app: vllm, pod-template-hash: 7b9f5d6c4}}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: vllm-7b9f5d6c4, uid: rs-2, controller: true}}]
spec:
  nodeName: {node}
  containers: [{{name: vllm, image: "vllm:0.10", resources: {{limits: {{nvidia.com/gpu: "1"}}}}}}]
status:
  phase: Running
  conditions: [{{type: Ready, status: "{ready}"}}]
  containerStatuses:
  - {{name: vllm, image: "vllm:0.10", imageID: "", ready: {ready_flag}, restartCount: 0, state: {{running: {{}}}}}}
"""
TEMPLATE = """
    metadata: {labels: {app: vllm, pod-template-hash: HASH}}
    spec:
      containers: [{name: vllm, image: "vllm:0.10", args: [--max-num-seqs, "SEQS"],
                    resources: {limits: {nvidia.com/gpu: "1"}}}]
"""
WORKLOADS = f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: serving
  uid: deploy-1
  generation: 4
  annotations: {{deployment.kubernetes.io/revision: "2"}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: vllm}}}}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      containers: [{{name: vllm, image: "vllm:0.10", args: [--max-num-seqs, "256"],
                    resources: {{limits: {{nvidia.com/gpu: "1"}}}}}}]
status: {{observedGeneration: 4, replicas: 2, updatedReplicas: 2, readyReplicas: 1}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: {RS}
  namespace: serving
  uid: rs-2
  labels: {{app: vllm, pod-template-hash: 7b9f5d6c4}}
  annotations: {{deployment.kubernetes.io/revision: "2"}}
  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: vllm, uid: deploy-1, controller: true}}]
spec:
  replicas: 2
  selector: {{matchLabels: {{app: vllm, pod-template-hash: 7b9f5d6c4}}}}
  template:{TEMPLATE.replace("HASH", "7b9f5d6c4").replace("SEQS", "256")}
status: {{replicas: 2, readyReplicas: 2}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: {OLD_RS}
  namespace: serving
  uid: rs-1
  labels: {{app: vllm, pod-template-hash: 5c8d7f9b6}}
  annotations: {{deployment.kubernetes.io/revision: "1"}}
  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: vllm, uid: deploy-1, controller: true}}]
spec:
  replicas: 0
  selector: {{matchLabels: {{app: vllm, pod-template-hash: 5c8d7f9b6}}}}
  template:{TEMPLATE.replace("HASH", "5c8d7f9b6").replace("SEQS", "128")}
status: {{replicas: 0}}
"""
BUDGET = """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: {name}, namespace: serving}}
spec: {{{rule}, selector: {{matchLabels: {{app: vllm}}}}}}
status: {{currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 2}}
"""
AUTOSCALER = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: vllm, namespace: serving}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm}
  minReplicas: 2
  maxReplicas: 4
status: {currentReplicas: 2, desiredReplicas: 2}
"""
ROUTE = """
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: serving}
spec: {selector: {app: vllm}, ports: [{port: 8000}]}
---
apiVersion: v1
kind: Service
metadata: {name: vllm-canary, namespace: serving}
spec: {selector: {app: vllm-canary}, ports: [{port: 8000}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: chat, namespace: serving, generation: 1}
spec:
  parentRefs: [{name: gw, namespace: gateway}]
  rules:
  - backendRefs: [{name: vllm, port: 8000, weight: 90}, {name: vllm-canary, port: 8000, weight: 10}]
status:
  parents:
  - parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, namespace: gateway}
    controllerName: example.com/gateway-controller
    conditions: [{type: Accepted, status: "True", reason: Accepted, observedGeneration: 1}]
"""


def cluster_yaml(*, budgets: tuple[str, ...] = (), b_ready: bool = True, extra: str = "") -> str:
    nodes = [_NODE.format(name=f"gpu-{n}", ip=f"10.0.0.{i}") for i, n in enumerate("abc", 1)]
    pods = [
        _POD.format(name=POD_A, node="gpu-a", ready="True", ready_flag="true"),
        _POD.format(name=POD_B, node="gpu-b", ready=str(b_ready), ready_flag=str(b_ready).lower()),
    ]
    return "---".join(part for part in [*nodes, WORKLOADS, *pods, *budgets, AUTOSCALER, ROUTE, extra] if part)


def standin_of(text: str, **knobs: float) -> KubernetesStandIn:
    return KubernetesStandIn(yaml.safe_load_all(text), now=lambda: NOW, **knobs)


def budget(name: str = "vllm", rule: str = "minAvailable: 1") -> str:
    return BUDGET.format(name=name, rule=rule)


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Serve a cluster built from YAML (with the stand-in's timing knobs) until the test ends."""
    with ExitStack() as stack:

        def build(text: str, **knobs: float) -> Served:
            return stack.enter_context(served(standin_of(text, **knobs), tmp_path, NS))

        yield build


def evict(c: Served, pod: str, **options: Any) -> Any:
    query = {"dry_run": options.pop("query_dry_run")} if "query_dry_run" in options else {}
    body = k8s.V1Eviction(
        metadata=k8s.V1ObjectMeta(name=pod, namespace=NS), delete_options=k8s.V1DeleteOptions(**options)
    )
    return as_json(c.core.create_namespaced_pod_eviction, pod, NS, body, **query)


def pods(c: Served) -> dict[str, Any]:
    return {p["metadata"]["name"]: p for p in as_json(c.core.list_namespaced_pod, NS)["items"]}


def ready(pod: Any) -> bool:
    return any(x["type"] == "Ready" and x["status"] == "True" for x in pod["status"].get("conditions") or [])


def failure(exc: pytest.ExceptionInfo[ApiException]) -> dict[str, Any]:
    return dict(json.loads(exc.value.body))


def test_eviction_without_a_budget_is_replaced_by_a_ready_pod(make: Any) -> None:
    c = make(cluster_yaml())
    uid = pods(c)[POD_A]["metadata"]["uid"]
    answer = evict(c, POD_A, preconditions=k8s.V1Preconditions(uid=uid))
    assert answer == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    assert [(w.verb, w.status) for w in c.standin.writes] == [("POST", 201)]
    now = pods(c)
    assert POD_A not in now and len(now) == 2
    (new,) = (p for name, p in now.items() if name != POD_B)
    assert new["metadata"]["name"].startswith(f"{RS}-") and new["metadata"]["uid"] != uid
    assert new["metadata"]["ownerReferences"][0]["uid"] == "rs-2" and not ready(new)
    eventually(lambda: ready(pods(c)[new["metadata"]["name"]]))
    deployment = eventually(
        lambda: (d := c.apps.read_namespaced_deployment("vllm", NS)).status.ready_replicas == 2 and d
    )
    assert deployment.status.available_replicas == 2 and deployment.status.observed_generation == 4
    assert c.apps.read_namespaced_replica_set(RS, NS).status.ready_replicas == 2


def test_eviction_keeps_to_the_budget(make: Any) -> None:
    c = make(cluster_yaml(budgets=(budget(),)), pod_ready_seconds=0.5)
    evict(c, POD_A)  # 2 healthy, 1 needed: allowed
    with pytest.raises(ApiException) as refused:
        evict(c, POD_B)  # the replacement is not Ready yet
    status = failure(refused)
    assert (refused.value.status, status["reason"]) == (429, "TooManyRequests")
    assert status["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert status["details"]["causes"] == [
        {
            "reason": "DisruptionBudget",
            "message": "The disruption budget vllm needs 1 healthy pods and has 1 currently",
        }
    ]
    assert POD_B in pods(c)
    eventually(lambda: all(ready(p) for p in pods(c).values()))
    budget_now = k8s.PolicyV1Api(c.api).read_namespaced_pod_disruption_budget("vllm", NS).status
    assert (budget_now.current_healthy, budget_now.desired_healthy, budget_now.disruptions_allowed) == (
        2,
        1,
        1,
    )
    evict(c, POD_B)
    assert POD_B not in pods(c)


def test_eviction_dry_runs_and_uid_precondition(make: Any) -> None:
    c = make(cluster_yaml(budgets=(budget(),)))
    before = c.standin.resource_version
    evict(c, POD_A, query_dry_run="All")
    evict(c, POD_A, dry_run=["All"])
    assert POD_A in pods(c) and len(pods(c)) == 2 and c.standin.resource_version == before
    with pytest.raises(ApiException) as stale:
        evict(c, POD_A, preconditions=k8s.V1Preconditions(uid="not-this-pod"))
    assert stale.value.status == 409 and "Precondition failed: UID" in failure(stale)["message"]
    assert POD_A in pods(c)
    assert [(w.dry_run, w.status) for w in c.standin.writes] == [(True, 201), (True, 201), (False, 409)]


def test_two_budgets_over_a_pod_are_an_internal_error(make: Any) -> None:
    c = make(cluster_yaml(budgets=(budget(), budget("vllm-too", "maxUnavailable: 50%"))))
    with pytest.raises(ApiException) as several:
        evict(c, POD_A)
    assert (several.value.status, failure(several)["reason"]) == (500, "InternalError")
    assert "This pod has more than one PodDisruptionBudget" in failure(several)["message"]


@pytest.mark.parametrize(
    ("rule", "policy", "allowed"),
    [
        ("minAvailable: 1", "", True),  # the budget is healthy without the unready pod
        ("minAvailable: 2", "", False),  # IfHealthyBudget: it is not
        ("minAvailable: 2", ", unhealthyPodEvictionPolicy: AlwaysAllow", True),
        ("maxUnavailable: 0", "", False),
    ],
)
def test_evicting_a_pod_that_is_not_ready(make: Any, rule: str, policy: str, allowed: bool) -> None:
    c = make(cluster_yaml(budgets=(budget(rule=rule + policy),), b_ready=False))
    if allowed:
        evict(c, POD_B)
        assert POD_B not in pods(c)
    else:
        with pytest.raises(ApiException) as refused:
            evict(c, POD_B)
        assert refused.value.status == 429


def test_scaling_up_adds_ready_pods_until_the_gpus_run_out(make: Any) -> None:
    c = make(cluster_yaml())
    c.apps.patch_namespaced_deployment_scale("vllm", NS, {"spec": {"replicas": 3}})
    eventually(lambda: c.apps.read_namespaced_deployment("vllm", NS).status.ready_replicas == 3)
    assert sorted(p["spec"]["nodeName"] for p in pods(c).values()) == ["gpu-a", "gpu-b", "gpu-c"]
    c.apps.patch_namespaced_deployment("vllm", NS, {"spec": {"replicas": 4}})
    pending = eventually(lambda: [p for p in pods(c).values() if p["status"]["phase"] == "Pending"])
    (scheduled,) = pending[0]["status"]["conditions"]
    assert (scheduled["type"], scheduled["status"], scheduled["reason"]) == (
        "PodScheduled",
        "False",
        "Unschedulable",
    )
    assert scheduled["message"] == "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    assert "nodeName" not in pending[0]["spec"]
    status = c.apps.read_namespaced_deployment("vllm", NS).status
    assert (status.replicas, status.ready_replicas, status.unavailable_replicas) == (4, 3, 1)
    assert next(x for x in status.conditions if x.type == "Progressing").reason == "ReplicaSetUpdated"
    c.apps.patch_namespaced_deployment_scale("vllm", NS, {"spec": {"replicas": 3}})
    assert pending[0]["metadata"]["name"] not in pods(c)  # the unready pod goes first
    done = eventually(lambda: (d := c.apps.read_namespaced_deployment("vllm", NS).status).replicas == 3 and d)
    assert next(x for x in done.conditions if x.type == "Progressing").reason == "NewReplicaSetAvailable"


def test_raising_hpa_min_replicas_scales_the_deployment(make: Any) -> None:
    c = make(cluster_yaml())
    autoscaling = k8s.AutoscalingV2Api(c.api)
    ops = [
        {"op": "test", "path": "/spec/minReplicas", "value": 2},
        {"op": "replace", "path": "/spec/minReplicas", "value": 3},
    ]
    autoscaling.patch_namespaced_horizontal_pod_autoscaler("vllm", NS, ops, dry_run="All")
    assert c.apps.read_namespaced_deployment("vllm", NS).spec.replicas == 2  # a dry run moves nothing
    autoscaling.patch_namespaced_horizontal_pod_autoscaler("vllm", NS, ops)
    deployment = c.apps.read_namespaced_deployment("vllm", NS)
    assert (deployment.spec.replicas, deployment.metadata.generation) == (3, 5)
    eventually(lambda: c.apps.read_namespaced_deployment("vllm", NS).status.ready_replicas == 3)
    status = autoscaling.read_namespaced_horizontal_pod_autoscaler("vllm", NS).status
    assert (status.current_replicas, status.desired_replicas, status.last_scale_time) == (2, 3, NOW)
    limited = next(x for x in status.conditions if x.type == "ScalingLimited")
    assert (limited.status, limited.reason) == ("True", "TooFewReplicas")
    assert [w.verb for w in c.standin.writes] == ["PATCH", "PATCH"]


def test_httproute_is_accepted_for_its_new_generation(make: Any) -> None:
    c = make(cluster_yaml(), route_accept_seconds=0.3)
    ops = [
        {"op": "test", "path": "/metadata/generation", "value": 1},
        {"op": "test", "path": "/spec/rules/0/backendRefs/0/weight", "value": 90},
        {"op": "replace", "path": "/spec/rules/0/backendRefs/0/weight", "value": 0},
        {"op": "replace", "path": "/spec/rules/0/backendRefs/1/weight", "value": 100},
    ]
    api = k8s.CustomObjectsApi(c.api)
    api.patch_namespaced_custom_object(*GATEWAY, "chat", ops, dry_run="All", _content_type=JSON_PATCH)
    patched = api.patch_namespaced_custom_object(*GATEWAY, "chat", ops, _content_type=JSON_PATCH)
    assert patched["metadata"]["generation"] == 2
    assert patched["status"]["parents"][0]["conditions"][0]["observedGeneration"] == 1  # not yet

    def accepted() -> Any:
        route = api.get_namespaced_custom_object(*GATEWAY, "chat")
        (parent,) = route["status"]["parents"]
        return parent if parent["conditions"][0]["observedGeneration"] == 2 else None

    parent = eventually(accepted)
    assert parent["controllerName"] == "example.com/gateway-controller"
    shown = [(x["type"], x["status"], x["reason"], x["observedGeneration"]) for x in parent["conditions"]]
    assert shown == [("Accepted", "True", "Accepted", 2), ("ResolvedRefs", "True", "ResolvedRefs", 2)]
    missing = [{"op": "replace", "path": "/spec/rules/0/backendRefs/1/name", "value": "vllm-gone"}]
    api.patch_namespaced_custom_object(*GATEWAY, "chat", missing, _content_type=JSON_PATCH)
    refs = eventually(lambda: _resolved(api, 3))
    assert (refs["status"], refs["reason"]) == ("False", "BackendNotFound")
    assert "service serving/vllm-gone not found" in refs["message"]
    assert [w.status for w in c.standin.writes] == [200, 200, 200]


def _resolved(api: k8s.CustomObjectsApi, generation: int) -> Any:
    conditions = api.get_namespaced_custom_object(*GATEWAY, "chat")["status"]["parents"][0]["conditions"]
    found = next(x for x in conditions if x["type"] == "ResolvedRefs")
    return found if found["observedGeneration"] == generation else None


def test_a_template_change_rolls_out_a_new_replicaset(make: Any) -> None:
    c = make(cluster_yaml(), pod_ready_seconds=0)
    ops = [
        {"op": "test", "path": "/metadata/generation", "value": 4},
        {"op": "replace", "path": "/spec/template/spec/containers/0/args/1", "value": "64"},
    ]
    c.apps.patch_namespaced_deployment("vllm", NS, ops)
    sets = {rs.metadata.name: rs for rs in c.apps.list_namespaced_replica_set(NS).items}
    (name,) = set(sets) - {RS, OLD_RS}
    new = sets[name]
    assert new.metadata.annotations["deployment.kubernetes.io/revision"] == "3"
    assert new.metadata.labels["pod-template-hash"] == name.removeprefix("vllm-")
    assert new.spec.selector.match_labels == {"app": "vllm", "pod-template-hash": name.removeprefix("vllm-")}
    assert (new.metadata.owner_references[0].uid, new.metadata.owner_references[0].controller) == (
        "deploy-1",
        True,
    )
    assert (sets[RS].spec.replicas, new.spec.replicas, new.status.ready_replicas) == (0, 2, 2)
    assert all(p["metadata"]["ownerReferences"][0]["name"] == name and ready(p) for p in pods(c).values())
    deployment = c.apps.read_namespaced_deployment("vllm", NS)
    assert deployment.metadata.annotations["deployment.kubernetes.io/revision"] == "3"
    assert (deployment.status.updated_replicas, deployment.status.available_replicas) == (2, 2)
