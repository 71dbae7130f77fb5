"""The Kubernetes stand-in, driven only through the official `kubernetes` client, as the bot drives it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kubernetes.client
import pytest
import yaml
from kubernetes.client.exceptions import ApiException

from bot.sandbox.kubernetes import (
    PREVIOUS,
    KubernetesStandIn,
    PatchError,
    SelectorError,
    json_patch,
    parse_label_selector,
    strategic_merge_patch,
)
from bot.sandbox.kubernetes.generic import plural_of
from bot.sandbox.pack import load_pack
from bot.sandbox.server import ServerThread
from tests.conftest import ROOT

NOW = datetime(2025, 5, 20, 10, 12, 0, tzinfo=UTC)
NS = "llm-serving"
POD_A = "vllm-llama-7d9f8c6b5d-x2k9q"
POD_B = "vllm-llama-7d9f8c6b5d-p7m4t"
GATEWAY = ("gateway.networking.k8s.io", "v1", NS, "httproutes")
JSON_PATCH = "application/json-patch+json"

# As `kubectl get -o yaml` prints them, except for a few unquoted values that yaml.safe_load turns into
# datetimes and integers (a hand-edited pack does that), which the stand-in must still serve as strings.
K8S_YAML = """
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-a
  uid: 0b0a6d1e-1a41-4f7e-9d55-1f0d6a3e2b11
  resourceVersion: "48102"
  creationTimestamp: "2025-05-01T08:00:00Z"
  labels: {kubernetes.io/hostname: gpu-node-a, nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
spec: {providerID: "aws:///us-east-1a/i-0a1b2c3d4e5f60718"}
status:
  capacity: {cpu: "192", memory: 2097152Mi, nvidia.com/gpu: "8", pods: "110"}
  allocatable: {cpu: 191450m, memory: 2061311Mi, nvidia.com/gpu: "8", pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, lastTransitionTime: "2025-05-01T08:02:10Z"}
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-b
  resourceVersion: "48107"
  creationTimestamp: 2025-05-01T08:00:05Z
  labels: {kubernetes.io/hostname: gpu-node-b, nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
spec:
  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
status:
  capacity: {cpu: 192, nvidia.com/gpu: 8}
  allocatable: {cpu: 191450m, nvidia.com/gpu: 8}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-llama
  namespace: llm-serving
  uid: 6f1c2a9e-5b7d-4c3e-8a2f-9d1e0b4c7a55
  resourceVersion: "48211"
  generation: 7
  labels: {app: vllm-llama, app.kubernetes.io/part-of: llama-chat}
  annotations: {deployment.kubernetes.io/revision: "7"}
spec:
  replicas: 2
  selector: {matchLabels: {app: vllm-llama}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: vllm-llama}}
    spec:
      terminationGracePeriodSeconds: 120
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.5
        args: [--model, meta-llama/Llama-3.1-70B-Instruct, --tensor-parallel-size, "4", --max-num-seqs, "512"]
        env:
        - {name: VLLM_LOGGING_LEVEL, value: INFO}
        - {name: HF_HUB_OFFLINE, value: "1"}
        ports: [{name: http, containerPort: 8000, protocol: TCP}]
        resources:
          limits: {nvidia.com/gpu: 4, memory: 320Gi}
          requests: {nvidia.com/gpu: 4, cpu: "16", memory: 320Gi}
status:
  replicas: 2
  readyReplicas: 1
  availableReplicas: 1
  updatedReplicas: 2
  observedGeneration: 7
  conditions:
  - {type: Available, status: "False", reason: MinimumReplicasUnavailable}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: vllm-llama-7d9f8c6b5d
  namespace: llm-serving
  resourceVersion: "48205"
  labels: {app: vllm-llama, pod-template-hash: 7d9f8c6b5d}
  annotations: {deployment.kubernetes.io/revision: "7", deployment.kubernetes.io/desired-replicas: "2"}
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: vllm-llama, uid: 6f1c2a9e-5b7d-4c3e-8a2f-9d1e0b4c7a55,
     controller: true, blockOwnerDeletion: true}
spec:
  replicas: 2
  selector: {matchLabels: {app: vllm-llama, pod-template-hash: 7d9f8c6b5d}}
  template:
    metadata: {labels: {app: vllm-llama, pod-template-hash: 7d9f8c6b5d}}
    spec:
      containers:
      - {name: vllm, image: vllm/vllm-openai:v0.8.5, args: [--max-num-seqs, "512"]}
status: {replicas: 2, readyReplicas: 1}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: vllm-llama-5c4b7f9d8
  namespace: llm-serving
  resourceVersion: "47990"
  labels: {app: vllm-llama, pod-template-hash: 5c4b7f9d8}
  annotations: {deployment.kubernetes.io/revision: "6"}
spec:
  replicas: 0
  selector: {matchLabels: {app: vllm-llama, pod-template-hash: 5c4b7f9d8}}
  template:
    metadata: {labels: {app: vllm-llama, pod-template-hash: 5c4b7f9d8}}
    spec:
      containers:
      - {name: vllm, image: vllm/vllm-openai:v0.8.5, args: [--max-num-seqs, "256"]}
status: {replicas: 0}
---
apiVersion: v1
kind: Pod
metadata:
  name: vllm-llama-7d9f8c6b5d-x2k9q
  namespace: llm-serving
  resourceVersion: "48198"
  labels: {app: vllm-llama, pod-template-hash: 7d9f8c6b5d}
spec:
  nodeName: gpu-node-a
  containers:
  - {name: vllm, image: vllm/vllm-openai:v0.8.5, args: [--max-num-seqs, "512"]}
status:
  phase: Running
  podIP: 10.42.1.17
  containerStatuses:
  - name: vllm
    image: vllm/vllm-openai:v0.8.5
    imageID: docker.io/vllm/vllm-openai@sha256:4f5c
    ready: true
    started: true
    restartCount: 0
    state: {running: {startedAt: "2025-05-20T08:30:00Z"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: vllm-llama-7d9f8c6b5d-p7m4t
  namespace: llm-serving
  uid: 3c8e7d1a-0f2b-4a6c-9e5d-7b1a2c3d4e5f
  resourceVersion: "48209"
  labels: {app: vllm-llama, pod-template-hash: 7d9f8c6b5d}
spec:
  nodeName: gpu-node-b
  terminationGracePeriodSeconds: 120
  containers:
  - {name: vllm, image: vllm/vllm-openai:v0.8.5, args: [--max-num-seqs, "512"]}
status:
  phase: Running
  podIP: 10.42.2.9
  containerStatuses:
  - name: vllm
    image: vllm/vllm-openai:v0.8.5
    imageID: docker.io/vllm/vllm-openai@sha256:4f5c
    ready: false
    started: false
    restartCount: 14
    state: {waiting: {reason: CrashLoopBackOff, message: back-off 5m0s restarting failed container}}
    lastState:
      terminated:
        reason: OOMKilled
        exitCode: 137
        startedAt: 2025-05-20T10:05:31Z
        finishedAt: 2025-05-20T10:11:38Z
---
apiVersion: v1
kind: Pod
metadata:
  name: inference-gateway-6b8d9c7f4-qq2wz
  namespace: gateway-system
  labels: {app: inference-gateway}
spec:
  nodeName: gpu-node-a
  containers:
  - {name: envoy, image: envoyproxy/envoy:v1.33.2}
  - {name: ext-proc, image: registry.k8s.io/gateway-api-inference-extension/epp:v0.3.0}
status: {phase: Running}
---
apiVersion: v1
kind: Event
metadata:
  name: vllm-llama-7d9f8c6b5d-p7m4t.18412c1f0e3b6a2d
  namespace: llm-serving
involvedObject:
  apiVersion: v1
  kind: Pod
  name: vllm-llama-7d9f8c6b5d-p7m4t
  namespace: llm-serving
  uid: 3c8e7d1a-0f2b-4a6c-9e5d-7b1a2c3d4e5f
  fieldPath: spec.containers{vllm}
reason: BackOff
message: Back-off restarting failed container vllm in pod vllm-llama-7d9f8c6b5d-p7m4t
type: Warning
count: 14
firstTimestamp: 2025-05-20T09:58:12Z
lastTimestamp: 2025-05-20T10:11:40Z
source: {component: kubelet, host: gpu-node-b}
---
apiVersion: v1
kind: Event
metadata: {name: vllm-llama-7d9f8c6b5d-p7m4t.18412c1e9a7f3b10, namespace: llm-serving}
involvedObject: {apiVersion: v1, kind: Pod, name: vllm-llama-7d9f8c6b5d-p7m4t, namespace: llm-serving}
reason: Pulled
message: Container image "vllm/vllm-openai:v0.8.5" already present on machine
type: Normal
source: {component: kubelet, host: gpu-node-b}
---
apiVersion: v1
kind: Event
metadata: {name: vllm-llama.18412a0b2c3d4e5f, namespace: llm-serving}
involvedObject: {apiVersion: apps/v1, kind: Deployment, name: vllm-llama, namespace: llm-serving}
reason: ScalingReplicaSet
message: Scaled up replica set vllm-llama-7d9f8c6b5d to 2
type: Normal
source: {component: deployment-controller}
---
apiVersion: v1
kind: Service
metadata:
  name: vllm-llama
  namespace: llm-serving
  labels: {app: vllm-llama}
spec:
  type: ClusterIP
  clusterIP: 10.96.41.7
  selector: {app: vllm-llama}
  ports: [{name: http, port: 8000, targetPort: http, protocol: TCP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: llama-chat
  namespace: llm-serving
  resourceVersion: "48190"
  generation: 3
spec:
  parentRefs: [{name: inference-gateway, namespace: gateway-system}]
  hostnames: [llama.inference.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /v1}}]
    backendRefs:
    - {name: vllm-llama, port: 8000, weight: 90}
    - {name: vllm-llama-canary, port: 8000, weight: 10}
status:
  parents:
  - parentRef: {name: inference-gateway, namespace: gateway-system}
    controllerName: gateway.envoyproxy.io/gatewayclass-controller
    conditions: [{type: Accepted, status: "True", reason: Accepted}]
"""

LOGS = {
    (NS, POD_B, "vllm"): [
        "2025-05-20T10:11:39.501234567Z INFO 05-20 10:11:39 [api_server.py:1081] Starting vLLM API server",
        "2025-05-20T10:11:40.002000000Z INFO 05-20 10:11:40 [worker.py:267] Memory profiling takes 4.2 seconds",
        "2025-05-20T10:11:58.734000000Z INFO 05-20 10:11:58 [engine.py:310] Added request chatcmpl-5f1e",
    ],
    (NS, POD_B, "vllm" + PREVIOUS): [
        "2025-05-20T10:11:37.100000000Z ERROR 05-20 10:11:37 [engine.py:160] RuntimeError: engine core died",
        "2025-05-20T10:11:37.200000000Z torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ],
    (NS, POD_A, "vllm"): ["INFO 05-20 08:30:12 [api_server.py:1081] Starting vLLM API server"],
}


@dataclass
class Cluster:
    standin: KubernetesStandIn
    api: kubernetes.client.ApiClient
    core: kubernetes.client.CoreV1Api
    apps: kubernetes.client.AppsV1Api
    custom: kubernetes.client.CustomObjectsApi


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    yield from _served(KubernetesStandIn(yaml.safe_load_all(K8S_YAML), pod_logs=LOGS, now=lambda: NOW))


def _served(standin: KubernetesStandIn) -> Iterator[Cluster]:
    with ServerThread(standin.app, name="k8s-standin") as server:
        cfg = kubernetes.client.Configuration()
        cfg.host = server.url
        api = kubernetes.client.ApiClient(cfg)
        try:
            yield Cluster(
                standin,
                api,
                kubernetes.client.CoreV1Api(api),
                kubernetes.client.AppsV1Api(api),
                kubernetes.client.CustomObjectsApi(api),
            )
        finally:
            api.close()


def _status(exc: pytest.ExceptionInfo[ApiException]) -> dict[str, Any]:
    """The Status object the server answered with."""
    body = json.loads(exc.value.body)
    assert body["kind"] == "Status" and body["status"] == "Failure"
    assert body["code"] == exc.value.status
    return dict(body)


def _names(items: Any) -> list[str]:
    return sorted(item.metadata.name for item in items)


# --- discovery and reads ---------------------------------------------------------------------------


def test_discovery_answers_the_client(cluster: Cluster) -> None:
    assert kubernetes.client.VersionApi(cluster.api).get_code().git_version.startswith("v1.")
    assert kubernetes.client.CoreApi(cluster.api).get_api_versions().versions == ["v1"]
    core = {r.name for r in cluster.core.get_api_resources().resources}
    assert {"pods", "pods/log", "nodes", "events", "services", "configmaps"} <= core
    apps = {r.name: r for r in cluster.apps.get_api_resources().resources}
    assert apps["deployments/scale"].kind == "Scale"
    groups = {g.name for g in kubernetes.client.ApisApi(cluster.api).get_api_versions().groups}
    assert {"apps", "gateway.networking.k8s.io"} <= groups
    gateway = cluster.custom.get_api_resources("gateway.networking.k8s.io", "v1")
    assert [r.name for r in gateway.resources] == ["httproutes"]


def test_nodes_list_with_gpu_allocatable_as_quantity_strings(cluster: Cluster) -> None:
    nodes = cluster.core.list_node(label_selector="nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3")
    assert nodes.kind == "NodeList" and nodes.api_version == "v1"
    assert nodes.metadata.resource_version == cluster.standin.resource_version
    assert {n.metadata.name: n.status.allocatable["nvidia.com/gpu"] for n in nodes.items} == {
        "gpu-node-a": "8",
        "gpu-node-b": "8",
    }
    node_b = cluster.core.read_node("gpu-node-b")
    assert node_b.metadata.creation_timestamp == datetime(2025, 5, 1, 8, 0, 5, tzinfo=UTC)
    assert node_b.metadata.uid  # filled in, as the server would have
    schedulable = cluster.core.list_node(field_selector="spec.unschedulable=false")
    assert _names(schedulable.items) == ["gpu-node-a", "gpu-node-b"]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=vllm-llama", [POD_B, POD_A]),
        ("app==vllm-llama,pod-template-hash=7d9f8c6b5d", [POD_B, POD_A]),
        ("app!=vllm-llama", ["inference-gateway-6b8d9c7f4-qq2wz"]),
        ("app in (inference-gateway, something-else)", ["inference-gateway-6b8d9c7f4-qq2wz"]),
        ("app notin (inference-gateway)", [POD_B, POD_A]),
        ("pod-template-hash", [POD_B, POD_A]),
        ("!pod-template-hash", ["inference-gateway-6b8d9c7f4-qq2wz"]),
        ("app=nothing-here", []),
    ],
)
def test_pods_across_namespaces_by_label_selector(
    cluster: Cluster, selector: str, expected: list[str]
) -> None:
    pods = cluster.core.list_pod_for_all_namespaces(label_selector=selector)
    assert _names(pods.items) == sorted(expected)


def test_pods_by_field_selector(cluster: Cluster) -> None:
    on_b = cluster.core.list_pod_for_all_namespaces(field_selector="spec.nodeName=gpu-node-b")
    assert _names(on_b.items) == [POD_B]
    running_here = cluster.core.list_namespaced_pod(
        NS, field_selector="status.phase=Running,spec.nodeName!=gpu-node-b"
    )
    assert _names(running_here.items) == [POD_A]
    by_name = cluster.core.list_namespaced_pod(NS, field_selector=f"metadata.name={POD_A}")
    assert _names(by_name.items) == [POD_A]
    elsewhere = cluster.core.list_pod_for_all_namespaces(field_selector=f"metadata.namespace!={NS}")
    assert _names(elsewhere.items) == ["inference-gateway-6b8d9c7f4-qq2wz"]


def test_pod_container_statuses_deserialise_with_oom_kill(cluster: Cluster) -> None:
    pod = cluster.core.read_namespaced_pod(POD_B, NS)
    assert pod.kind == "Pod" and pod.spec.node_name == "gpu-node-b"
    status = pod.status.container_statuses[0]
    assert status.restart_count == 14 and status.ready is False
    assert status.state.waiting.reason == "CrashLoopBackOff"
    assert status.last_state.terminated.reason == "OOMKilled"
    assert status.last_state.terminated.exit_code == 137
    assert status.last_state.terminated.finished_at == datetime(2025, 5, 20, 10, 11, 38, tzinfo=UTC)


def test_replicasets_carry_revisions_and_their_args(cluster: Cluster) -> None:
    sets = cluster.apps.list_namespaced_replica_set(NS, label_selector="app=vllm-llama").items
    by_revision = {rs.metadata.annotations["deployment.kubernetes.io/revision"]: rs for rs in sets}
    assert set(by_revision) == {"6", "7"}
    args = {rev: rs.spec.template.spec.containers[0].args for rev, rs in by_revision.items()}
    assert args == {"6": ["--max-num-seqs", "256"], "7": ["--max-num-seqs", "512"]}
    assert by_revision["7"].metadata.owner_references[0].name == "vllm-llama"
    deployment = cluster.apps.read_namespaced_deployment("vllm-llama", NS)
    assert deployment.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"] == "4"
    assert deployment.spec.strategy.rolling_update.max_surge == 1


def test_events_by_involved_object(cluster: Cluster) -> None:
    selector = f"involvedObject.kind=Pod,involvedObject.name={POD_B},type=Warning"
    events = cluster.core.list_namespaced_event(NS, field_selector=selector).items
    assert [(e.reason, e.count) for e in events] == [("BackOff", 14)]
    assert events[0].last_timestamp == datetime(2025, 5, 20, 10, 11, 40, tzinfo=UTC)
    by_uid = cluster.core.list_namespaced_event(
        NS, field_selector="involvedObject.uid=3c8e7d1a-0f2b-4a6c-9e5d-7b1a2c3d4e5f"
    )
    assert [e.reason for e in by_uid.items] == ["BackOff"]
    rollout = cluster.core.list_event_for_all_namespaces(
        field_selector="reason=ScalingReplicaSet,source=deployment-controller"
    )
    assert [e.involved_object.kind for e in rollout.items] == ["Deployment"]
    assert rollout.kind == "EventList"


def test_service_and_httproute_reads(cluster: Cluster) -> None:
    service = cluster.core.read_namespaced_service("vllm-llama", NS)
    assert service.spec.ports[0].target_port == "http"
    route = cluster.custom.get_namespaced_custom_object(*GATEWAY, "llama-chat")
    weights = [ref["weight"] for ref in route["spec"]["rules"][0]["backendRefs"]]
    assert weights == [90, 10] and route["kind"] == "HTTPRoute"
    routes = cluster.custom.list_cluster_custom_object("gateway.networking.k8s.io", "v1", "httproutes")
    assert routes["kind"] == "HTTPRouteList" and [r["metadata"]["name"] for r in routes["items"]] == [
        "llama-chat"
    ]


def test_lists_page_with_limit_and_continue(cluster: Cluster) -> None:
    first = cluster.core.list_pod_for_all_namespaces(limit=2)
    assert len(first.items) == 2 and first.metadata.remaining_item_count == 1
    rest = cluster.core.list_pod_for_all_namespaces(limit=2, _continue=first.metadata._continue)
    assert len(rest.items) == 1 and rest.metadata._continue is None
    assert {p.metadata.name for p in first.items + rest.items} == {
        POD_A,
        POD_B,
        "inference-gateway-6b8d9c7f4-qq2wz",
    }


# --- errors ----------------------------------------------------------------------------------------


def test_unknown_objects_are_404_status(cluster: Cluster) -> None:
    with pytest.raises(ApiException) as pod:
        cluster.core.read_namespaced_pod("vllm-llama-gone", NS)
    assert pod.value.status == 404
    status = _status(pod)
    assert (status["reason"], status["message"]) == ("NotFound", 'pods "vllm-llama-gone" not found')
    with pytest.raises(ApiException) as deploy:
        cluster.apps.read_namespaced_deployment("vllm-llama", "other-namespace")
    assert _status(deploy)["message"] == 'deployments.apps "vllm-llama" not found'
    with pytest.raises(ApiException) as route:
        cluster.custom.get_namespaced_custom_object(*GATEWAY, "missing")
    assert route.value.status == 404
    assert _status(route)["details"] == {
        "name": "missing",
        "kind": "httproutes",
        "group": "gateway.networking.k8s.io",
    }


def test_bad_selectors_are_400(cluster: Cluster) -> None:
    with pytest.raises(ApiException) as field:
        cluster.core.list_namespaced_pod(NS, field_selector="spec.containers=vllm")
    assert field.value.status == 400
    status = _status(field)
    assert (status["reason"], status["message"]) == (
        "BadRequest",
        "field label not supported: spec.containers",
    )
    with pytest.raises(ApiException) as event:
        cluster.core.list_namespaced_event(NS, field_selector="spec.nodeName=gpu-node-b")
    assert _status(event)["message"] == "field label not supported: spec.nodeName"
    with pytest.raises(ApiException) as label:
        cluster.core.list_namespaced_pod(NS, label_selector="app in (vllm-llama")
    assert label.value.status == 400


# --- pod logs --------------------------------------------------------------------------------------


def test_pod_logs_text_tail_and_timestamps(cluster: Cluster) -> None:
    full = cluster.core.read_namespaced_pod_log(POD_B, NS)
    assert full.splitlines()[0] == "INFO 05-20 10:11:39 [api_server.py:1081] Starting vLLM API server"
    assert len(full.splitlines()) == 3 and full.endswith("\n")
    tail = cluster.core.read_namespaced_pod_log(POD_B, NS, container="vllm", tail_lines=1, timestamps=True)
    assert (
        tail
        == "2025-05-20T10:11:58.734000000Z INFO 05-20 10:11:58 [engine.py:310] Added request chatcmpl-5f1e\n"
    )
    recent = cluster.core.read_namespaced_pod_log(POD_B, NS, since_seconds=15)
    assert recent.splitlines() == ["INFO 05-20 10:11:58 [engine.py:310] Added request chatcmpl-5f1e"]
    assert cluster.core.read_namespaced_pod_log(POD_B, NS, tail_lines=0) == ""


def test_previous_container_logs_show_the_oom(cluster: Cluster) -> None:
    previous = cluster.core.read_namespaced_pod_log(POD_B, NS, container="vllm", previous=True, tail_lines=1)
    assert previous == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    with pytest.raises(ApiException) as none:
        cluster.core.read_namespaced_pod_log(POD_A, NS, previous=True)
    assert none.value.status == 400
    assert _status(none)["message"] == f'previous terminated container "vllm" in pod "{POD_A}" not found'


def test_pod_logs_need_a_valid_container(cluster: Cluster) -> None:
    with pytest.raises(ApiException) as several:
        cluster.core.read_namespaced_pod_log("inference-gateway-6b8d9c7f4-qq2wz", "gateway-system")
    assert several.value.status == 400
    assert "choose one of: [envoy ext-proc]" in _status(several)["message"]
    assert (
        cluster.core.read_namespaced_pod_log(
            "inference-gateway-6b8d9c7f4-qq2wz", "gateway-system", container="envoy"
        )
        == ""
    )
    with pytest.raises(ApiException) as wrong:
        cluster.core.read_namespaced_pod_log(POD_A, NS, container="sidecar")
    assert _status(wrong)["message"] == f"container sidecar is not valid for pod {POD_A}"
    with pytest.raises(ApiException) as missing:
        cluster.core.read_namespaced_pod_log("gone", NS)
    assert missing.value.status == 404


# --- approved actions --------------------------------------------------------------------------------


def test_cordon_and_uncordon_node(cluster: Cluster) -> None:
    before = cluster.core.read_node("gpu-node-b").metadata.resource_version
    cordoned = cluster.core.patch_node("gpu-node-b", {"spec": {"unschedulable": True}})
    assert cordoned.spec.unschedulable is True
    assert [(t.key, t.effect) for t in cordoned.spec.taints] == [
        ("nvidia.com/gpu", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]
    assert int(cordoned.metadata.resource_version) > int(before)
    assert _names(cluster.core.list_node(field_selector="spec.unschedulable=true").items) == ["gpu-node-b"]
    write = cluster.standin.writes[-1]
    assert (write.verb, write.path, write.content_type) == (
        "PATCH",
        "/api/v1/nodes/gpu-node-b",
        "application/strategic-merge-patch+json",
    )
    assert (
        write.body == {"spec": {"unschedulable": True}}
        and write.resource_version == cordoned.metadata.resource_version
    )
    uncordoned = cluster.core.patch_node("gpu-node-b", {"spec": {"unschedulable": False}})
    assert [t.key for t in uncordoned.spec.taints] == ["nvidia.com/gpu"]
    stored = cluster.standin.get_object("Node", None, "gpu-node-b")
    assert stored is not None and stored["spec"]["unschedulable"] is False


def test_restart_annotation_bumps_generation_and_version(cluster: Cluster) -> None:
    current = cluster.apps.read_namespaced_deployment("vllm-llama", NS)
    body = {
        "metadata": {"resourceVersion": current.metadata.resource_version},
        "spec": {
            "template": {
                "metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "2025-05-20T10:12:00Z"}}
            }
        },
    }
    patched = cluster.apps.patch_namespaced_deployment("vllm-llama", NS, body)
    assert patched.spec.template.metadata.annotations == {
        "kubectl.kubernetes.io/restartedAt": "2025-05-20T10:12:00Z"
    }
    assert patched.metadata.generation == 8
    assert int(patched.metadata.resource_version) > int(current.metadata.resource_version)
    assert patched.status.observed_generation == 7  # no controller runs behind the stand-in
    assert patched.spec.template.spec.containers[0].args[-1] == "512"  # the rest of the template is kept
    with pytest.raises(ApiException) as stale:
        cluster.apps.patch_namespaced_deployment("vllm-llama", NS, body)
    assert stale.value.status == 409
    assert _status(stale)["reason"] == "Conflict"
    assert "the object has been modified" in _status(stale)["message"]
    assert cluster.standin.writes[-1].status == 409 and cluster.standin.writes[-1].resource_version is None


def test_strategic_merge_merges_containers_and_env_by_name(cluster: Cluster) -> None:
    body = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"name": "vllm", "env": [{"name": "VLLM_LOGGING_LEVEL", "value": "DEBUG"}]}
                    ]
                }
            }
        }
    }
    patched = cluster.apps.patch_namespaced_deployment("vllm-llama", NS, body)
    container = patched.spec.template.spec.containers[0]
    assert [(e.name, e.value) for e in container.env] == [
        ("VLLM_LOGGING_LEVEL", "DEBUG"),
        ("HF_HUB_OFFLINE", "1"),
    ]
    assert container.image == "vllm/vllm-openai:v0.8.5" and container.ports[0].container_port == 8000
    merge = cluster.apps.patch_namespaced_deployment(
        "vllm-llama",
        NS,
        {"spec": {"template": {"spec": {"containers": [{"name": "vllm", "image": "x"}]}}}},
        _content_type="application/merge-patch+json",
    )
    assert merge.spec.template.spec.containers[0].env is None  # merge patch replaces the whole list


def test_list_body_is_json_patch_for_built_in_kinds(cluster: Cluster) -> None:
    ops = [{"op": "replace", "path": "/spec/template/spec/containers/0/args/5", "value": "256"}]
    patched = cluster.apps.patch_namespaced_deployment("vllm-llama", NS, ops)
    assert patched.spec.template.spec.containers[0].args[-2:] == ["--max-num-seqs", "256"]
    assert cluster.standin.writes[-1].content_type == JSON_PATCH
    with pytest.raises(ApiException) as apply:
        cluster.apps.patch_namespaced_deployment(
            "vllm-llama", NS, {"spec": {}}, _content_type="application/apply-patch+yaml"
        )
    assert apply.value.status == 415  # server-side apply is not served


def test_httproute_weights_by_json_patch(cluster: Cluster) -> None:
    ops = [
        {"op": "test", "path": "/spec/rules/0/backendRefs/0/weight", "value": 90},
        {"op": "replace", "path": "/spec/rules/0/backendRefs/0/weight", "value": 50},
        {"op": "replace", "path": "/spec/rules/0/backendRefs/1/weight", "value": 50},
        {"op": "add", "path": "/metadata/annotations", "value": {}},
        {"op": "add", "path": "/metadata/annotations/rollouts.example.com~1reason", "value": "canary~shift"},
    ]
    route = cluster.custom.patch_namespaced_custom_object(
        *GATEWAY, "llama-chat", ops, _content_type=JSON_PATCH
    )
    assert [ref["weight"] for ref in route["spec"]["rules"][0]["backendRefs"]] == [50, 50]
    assert route["metadata"]["annotations"] == {"rollouts.example.com/reason": "canary~shift"}
    assert route["metadata"]["generation"] == 4 and route["status"]["parents"]  # status is kept
    assert cluster.standin.writes[-1].content_type == JSON_PATCH
    accepted = cluster.standin.get_object("HTTPRoute", NS, "llama-chat")
    assert accepted is not None
    with pytest.raises(ApiException) as failed:
        cluster.custom.patch_namespaced_custom_object(
            *GATEWAY, "llama-chat", ops[:2], _content_type=JSON_PATCH
        )
    assert failed.value.status == 422
    assert _status(failed)["reason"] == "Invalid"
    stored = cluster.standin.get_object("HTTPRoute", NS, "llama-chat")
    # The gateway's status write for the new generation came after the patch; the refused one stored nothing.
    assert (
        stored is not None
        and stored["metadata"]["resourceVersion"] == accepted["metadata"]["resourceVersion"]
    )


def test_httproute_weights_by_merge_patch(cluster: Cluster) -> None:
    rules = [{"backendRefs": [{"name": "vllm-llama", "port": 8000, "weight": 100}]}]
    route = cluster.custom.patch_namespaced_custom_object(*GATEWAY, "llama-chat", {"spec": {"rules": rules}})
    assert route["spec"]["rules"] == rules and route["spec"]["hostnames"] == ["llama.inference.example.com"]
    assert cluster.standin.writes[-1].content_type == "application/merge-patch+json"
    with pytest.raises(ApiException) as stale:
        cluster.custom.patch_namespaced_custom_object(
            *GATEWAY, "llama-chat", {"metadata": {"resourceVersion": "48190"}}
        )
    assert stale.value.status == 409


def test_strategic_merge_on_a_custom_resource_is_415(cluster: Cluster) -> None:
    with pytest.raises(ApiException) as refused:
        cluster.custom.patch_namespaced_custom_object(
            *GATEWAY, "llama-chat", {"spec": {}}, _content_type="application/strategic-merge-patch+json"
        )
    assert refused.value.status == 415
    assert _status(refused)["reason"] == "UnsupportedMediaType"
    assert "application/merge-patch+json" in _status(refused)["message"]
    with pytest.raises(ApiException) as listed:  # a JSON Patch list sent as the default merge patch
        cluster.custom.patch_namespaced_custom_object(
            *GATEWAY, "llama-chat", [{"op": "remove", "path": "/spec"}]
        )
    assert listed.value.status == 422


def test_dry_runs_change_nothing(cluster: Cluster) -> None:
    before = cluster.standin.get_object("Deployment", NS, "vllm-llama")
    assert before is not None
    would = cluster.apps.patch_namespaced_deployment(
        "vllm-llama", NS, {"spec": {"replicas": 0}}, dry_run="All"
    )
    assert (
        would.spec.replicas == 0 and would.metadata.resource_version == before["metadata"]["resourceVersion"]
    )
    assert cluster.standin.get_object("Deployment", NS, "vllm-llama") == before
    ops = [{"op": "replace", "path": "/spec/rules/0/backendRefs/1/weight", "value": 0}]
    route = cluster.custom.patch_namespaced_custom_object(
        *GATEWAY, "llama-chat", ops, dry_run="All", _content_type=JSON_PATCH
    )
    assert route["spec"]["rules"][0]["backendRefs"][1]["weight"] == 0
    stored = cluster.standin.get_object("HTTPRoute", NS, "llama-chat")
    assert stored is not None and stored["spec"]["rules"][0]["backendRefs"][1]["weight"] == 10
    assert [w.dry_run for w in cluster.standin.writes] == [True, True]
    with pytest.raises(ApiException) as bad:
        cluster.core.patch_node("gpu-node-a", {"spec": {"unschedulable": True}}, dry_run="true")
    assert bad.value.status == 422  # what a real API server answers for an unknown dryRun value
    assert 'supported values: "All"' in _status(bad)["message"]
    assert cluster.standin.get_object("Node", None, "gpu-node-a") is not None


def test_delete_pod_and_its_dry_run(cluster: Cluster) -> None:
    rehearsal = cluster.core.delete_namespaced_pod(POD_B, NS, dry_run="All")
    assert rehearsal.metadata.deletion_grace_period_seconds == 120
    assert cluster.core.read_namespaced_pod(POD_B, NS).metadata.deletion_timestamp is None
    deleted = cluster.core.delete_namespaced_pod(POD_B, NS, grace_period_seconds=30)
    assert deleted.metadata.name == POD_B
    assert deleted.metadata.deletion_timestamp == datetime(2025, 5, 20, 10, 12, 30, tzinfo=UTC)
    assert cluster.standin.get_object("Pod", NS, POD_B) is None
    with pytest.raises(ApiException) as gone:
        cluster.core.read_namespaced_pod(POD_B, NS)
    assert gone.value.status == 404
    assert [(w.verb, w.dry_run, w.status) for w in cluster.standin.writes] == [
        ("DELETE", True, 200),
        ("DELETE", False, 200),
    ]


def test_scale_subresource(cluster: Cluster) -> None:
    scale = cluster.apps.read_namespaced_deployment_scale("vllm-llama", NS)
    assert (scale.spec.replicas, scale.status.replicas, scale.status.selector) == (2, 2, "app=vllm-llama")
    scaled = cluster.apps.patch_namespaced_deployment_scale("vllm-llama", NS, {"spec": {"replicas": 3}})
    assert scaled.spec.replicas == 3
    deployment = cluster.apps.read_namespaced_deployment("vllm-llama", NS)
    assert deployment.spec.replicas == 3 and deployment.metadata.generation == 8
    assert scaled.metadata.resource_version == cluster.standin.writes[-1].resource_version
    # The Deployment controller has acted on the new replica count since (its status, its ReplicaSet).
    assert int(deployment.metadata.resource_version) >= int(scaled.metadata.resource_version)
    with pytest.raises(ApiException) as negative:
        cluster.apps.patch_namespaced_deployment_scale("vllm-llama", NS, {"spec": {"replicas": -1}})
    assert negative.value.status == 422


def test_replace_checks_resource_version(cluster: Cluster) -> None:
    route = cluster.custom.get_namespaced_custom_object(*GATEWAY, "llama-chat")
    route["spec"]["hostnames"] = ["llama.example.com"]
    replaced = cluster.custom.replace_namespaced_custom_object(*GATEWAY, "llama-chat", route)
    assert replaced["spec"]["hostnames"] == ["llama.example.com"]
    with pytest.raises(ApiException) as stale:
        cluster.custom.replace_namespaced_custom_object(*GATEWAY, "llama-chat", route)
    assert stale.value.status == 409


def test_no_op_patch_keeps_the_version(cluster: Cluster) -> None:
    node = cluster.core.patch_node(
        "gpu-node-a", {"metadata": {"labels": {"kubernetes.io/hostname": "gpu-node-a"}}}
    )
    assert node.metadata.resource_version == "48102"


# --- the helpers on their own ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        ("tier in (gpu,cpu),!spot", {"tier": "gpu"}, True),
        ("tier in (gpu,cpu),!spot", {"tier": "gpu", "spot": "true"}, False),
        ("tier notin (gpu)", {}, True),
        ("replicas>2", {"replicas": "3"}, True),
        ("replicas<2", {"replicas": "3"}, False),
        ("", {"anything": "x"}, True),
    ],
)
def test_label_selector_semantics(selector: str, labels: dict[str, str], matches: bool) -> None:
    assert parse_label_selector(selector).matches(labels) is matches


@pytest.mark.parametrize("selector", ["app in ()", "a b", "app=has space", "tier>high", "(x"])
def test_label_selector_rejects(selector: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(selector)


def test_strategic_merge_directives() -> None:
    pod = {
        "spec": {"containers": [{"name": "a", "image": "1"}, {"name": "b", "image": "2"}]},
        "metadata": {"finalizers": ["x"]},
    }
    patch = {
        "$setElementOrder/containers": [{"name": "a"}],
        "spec": {"containers": [{"name": "b", "$patch": "delete"}]},
        "metadata": {"finalizers": ["y"]},
    }
    assert strategic_merge_patch(pod, patch) == {
        "spec": {"containers": [{"name": "a", "image": "1"}]},
        "metadata": {"finalizers": ["x", "y"]},
    }
    with pytest.raises(PatchError):
        strategic_merge_patch(pod, {"spec": {"containers": [{"image": "no-name"}]}})


def test_json_patch_move_copy_and_strict_test() -> None:
    doc = {"a": {"b~c": [1, 2]}, "flag": True}
    moved = json_patch(
        doc,
        [
            {"op": "copy", "from": "/a/b~0c/0", "path": "/a/b~0c/-"},
            {"op": "move", "from": "/a", "path": "/z"},
        ],
    )
    assert moved == {"z": {"b~c": [1, 2, 1]}, "flag": True}
    with pytest.raises(PatchError):
        json_patch(doc, [{"op": "test", "path": "/flag", "value": 1}])
    with pytest.raises(PatchError):
        json_patch(doc, [{"op": "remove", "path": "/a/b~0c/5"}])


def test_objects_the_stand_in_cannot_serve_are_refused() -> None:
    with pytest.raises(ValueError, match="not served"):
        KubernetesStandIn([{"apiVersion": "batch/v1", "metadata": {"name": "x"}}])
    with pytest.raises(ValueError, match="not served"):
        KubernetesStandIn([{"kind": "Job", "metadata": {"name": "x"}}])
    with pytest.raises(ValueError, match="must be a string"):
        KubernetesStandIn(
            [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "labels": {"rev": 3}}}]
        )
    with pytest.raises(ValueError, match="appears twice"):
        KubernetesStandIn([{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}}] * 2)


# --- kinds the resource table does not model -------------------------------------------------------

# A cluster holds more kinds than the stand-in has rules for; a pack records them as they are.
OTHER_KINDS_YAML = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: vllm-llama
  namespace: llm-serving
  resourceVersion: "48300"
  creationTimestamp: "2025-05-01T09:00:00Z"
  labels: {app: vllm-llama}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm-llama}
  minReplicas: 2
  maxReplicas: 4
  metrics:
  - type: Pods
    pods:
      metric: {name: vllm_num_requests_waiting}
      target: {type: AverageValue, averageValue: "8"}
status:
  currentReplicas: 2
  desiredReplicas: 4
  lastScaleTime: "2025-05-20T10:05:00Z"
  currentMetrics:
  - type: Pods
    pods: {metric: {name: vllm_num_requests_waiting}, current: {averageValue: "31"}}
  conditions:
  - {type: ScalingLimited, status: "True", reason: TooManyReplicas, lastTransitionTime: "2025-05-20T10:05:00Z"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: vllm-llama
  namespace: llm-serving
  labels: {app: vllm-llama}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: vllm-llama}}
status: {currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 2, observedGeneration: 1}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: inference-gateway
  namespace: llm-serving
  labels: {app: inference-gateway}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: inference-gateway}}
status: {currentHealthy: 1, desiredHealthy: 0, disruptionsAllowed: 1, expectedPods: 1}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: llama-chat-retries
  namespace: llm-serving
  labels: {app.kubernetes.io/part-of: llama-chat}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: llama-chat}]
  retry:
    numRetries: 2
    retryOn: {httpStatusCodes: [503], triggers: [connect-failure, retriable-status-codes]}
status:
  ancestors:
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: inference-gateway}
    controllerName: gateway.envoyproxy.io/gatewayclass-controller
    conditions: [{type: Accepted, status: "True", reason: Accepted}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: rag-rate-limit
  namespace: rag
  labels: {app.kubernetes.io/part-of: rag}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: rag}]
  rateLimit: {type: Local, local: {rules: [{limit: {requests: 50, unit: Second}}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: inference-gateway, namespace: llm-serving}
spec:
  gatewayClassName: envoy
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: model-cache-vllm-llama, namespace: llm-serving, labels: {app: vllm-llama}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 500Gi}}
  storageClassName: fast-nvme
status: {phase: Bound, accessModes: [ReadWriteOnce], capacity: {storage: 500Gi}}
---
apiVersion: v1
kind: Secret
metadata: {name: hf-token, namespace: llm-serving}
type: Opaque
data: {token: aGZfc2FuZGJveA==}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast-nvme}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: letsencrypt}
spec: {acme: {server: "https://acme-v02.api.letsencrypt.org/directory"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: warm-model-cache}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: warm, image: "ghcr.io/example/warm:1.0"}]
status: {succeeded: 1}
---
apiVersion: v1
kind: Service
metadata: {name: vllm-llama, namespace: llm-serving}
spec:
  selector: {app: vllm-llama}
  ports: [{name: http, port: 8000, targetPort: 8000}]
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: llama-embed, namespace: llm-serving}
spec:
  template:
    spec:
      containers: [{image: "ghcr.io/example/embed:1.2"}]
"""
ENVOY = ("gateway.envoyproxy.io", "v1alpha1")


@pytest.fixture
def wide() -> Iterator[Cluster]:
    yield from _served(KubernetesStandIn(yaml.safe_load_all(OTHER_KINDS_YAML), now=lambda: NOW))


def test_hpa_outside_the_table_reads_through_its_typed_client(wide: Cluster) -> None:
    hpa = kubernetes.client.AutoscalingV2Api(wide.api).read_namespaced_horizontal_pod_autoscaler(
        "vllm-llama", NS
    )
    assert (hpa.kind, hpa.api_version) == ("HorizontalPodAutoscaler", "autoscaling/v2")
    assert hpa.spec.scale_target_ref.name == "vllm-llama"
    assert (hpa.spec.min_replicas, hpa.spec.max_replicas) == (2, 4)
    assert hpa.spec.metrics[0].pods.target.average_value == "8"
    assert (hpa.status.current_replicas, hpa.status.desired_replicas) == (2, 4)
    assert hpa.status.conditions[0].reason == "TooManyReplicas"
    assert hpa.status.last_scale_time == datetime(2025, 5, 20, 10, 5, tzinfo=UTC)
    assert hpa.metadata.resource_version == "48300" and hpa.metadata.uid
    with pytest.raises(ApiException) as missing:
        kubernetes.client.AutoscalingV2Api(wide.api).read_namespaced_horizontal_pod_autoscaler(
            "vllm-llama", "rag"
        )
    assert _status(missing)["message"] == 'horizontalpodautoscalers.autoscaling "vllm-llama" not found'


def test_pdbs_outside_the_table_list_by_label_selector(wide: Cluster) -> None:
    policy = kubernetes.client.PolicyV1Api(wide.api)
    every = policy.list_namespaced_pod_disruption_budget(NS)
    assert (every.kind, every.api_version) == ("PodDisruptionBudgetList", "policy/v1")
    assert _names(every.items) == ["inference-gateway", "vllm-llama"]
    chosen = policy.list_namespaced_pod_disruption_budget(NS, label_selector="app=vllm-llama")
    assert _names(chosen.items) == ["vllm-llama"]
    budget = chosen.items[0]
    assert (budget.spec.min_available, budget.status.disruptions_allowed) == (1, 0)
    others = policy.list_namespaced_pod_disruption_budget(NS, label_selector="app notin (vllm-llama)")
    assert _names(others.items) == ["inference-gateway"]
    assert policy.list_namespaced_pod_disruption_budget("rag").items == []


def test_custom_resources_outside_the_table_list_by_label(wide: Cluster) -> None:
    listed = wide.custom.list_namespaced_custom_object(*ENVOY, NS, "backendtrafficpolicies")
    assert isinstance(listed, dict) and listed["kind"] == "BackendTrafficPolicyList"
    assert [item["metadata"]["name"] for item in listed["items"]] == ["llama-chat-retries"]
    policy = listed["items"][0]
    assert policy["apiVersion"] == "gateway.envoyproxy.io/v1alpha1"
    assert policy["spec"]["retry"]["numRetries"] == 2
    assert policy["metadata"]["generation"] == 1 and policy["metadata"]["namespace"] == NS
    selected = wide.custom.list_cluster_custom_object(
        *ENVOY, "backendtrafficpolicies", label_selector="app.kubernetes.io/part-of in (rag)"
    )
    assert isinstance(selected, dict)
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in selected["items"]] == [
        ("rag", "rag-rate-limit")
    ]
    with pytest.raises(ApiException) as missing:
        wide.custom.get_namespaced_custom_object(*ENVOY, NS, "backendtrafficpolicies", "rag-rate-limit")
    assert _status(missing)["details"] == {
        "name": "rag-rate-limit",
        "kind": "backendtrafficpolicies",
        "group": "gateway.envoyproxy.io",
    }
    gateway = wide.custom.get_namespaced_custom_object(
        "gateway.networking.k8s.io", "v1", NS, "gateways", "inference-gateway"
    )
    assert isinstance(gateway, dict) and gateway["spec"]["gatewayClassName"] == "envoy"


def test_core_kinds_outside_the_table_are_served_under_api_v1(wide: Cluster) -> None:
    claim = wide.core.read_namespaced_persistent_volume_claim("model-cache-vllm-llama", NS)
    assert claim.status.phase == "Bound" and claim.status.capacity == {"storage": "500Gi"}
    assert claim.spec.resources.requests == {"storage": "500Gi"}
    claims = wide.core.list_namespaced_persistent_volume_claim(NS, label_selector="app=vllm-llama")
    assert _names(claims.items) == ["model-cache-vllm-llama"]
    assert wide.core.list_persistent_volume_claim_for_all_namespaces(label_selector="app=other").items == []
    secret = wide.core.read_namespaced_secret("hf-token", NS)
    assert (secret.type, secret.data) == ("Opaque", {"token": "aGZfc2FuZGJveA=="})
    assert _names(wide.core.list_namespaced_secret(NS).items) == ["hf-token"]


def test_scope_and_groups_of_other_kinds(wide: Cluster) -> None:
    storage = kubernetes.client.StorageV1Api(wide.api)
    assert storage.read_storage_class("fast-nvme").provisioner == "kubernetes.io/no-provisioner"
    assert _names(storage.list_storage_class().items) == ["fast-nvme"]
    issuer = wide.custom.get_cluster_custom_object("cert-manager.io", "v1", "clusterissuers", "letsencrypt")
    assert isinstance(issuer, dict) and "namespace" not in issuer["metadata"]
    job = kubernetes.client.BatchV1Api(wide.api).read_namespaced_job("warm-model-cache", "default")
    assert job.status.succeeded == 1  # no namespace given: the default one, as kubectl apply does
    # Two kinds named Service, in different groups, each listed on its own path.
    assert _names(wide.core.list_namespaced_service(NS).items) == ["vllm-llama"]
    knative = wide.custom.list_namespaced_custom_object("serving.knative.dev", "v1", NS, "services")
    assert isinstance(knative, dict)
    assert [item["metadata"]["name"] for item in knative["items"]] == ["llama-embed"]
    assert wide.standin.get_object("BackendTrafficPolicy", "rag", "rag-rate-limit") is not None


def test_discovery_lists_the_kinds_objects_brought(wide: Cluster) -> None:
    groups = {g.name: g for g in kubernetes.client.ApisApi(wide.api).get_api_versions().groups}
    assert {"autoscaling", "policy", "gateway.envoyproxy.io", "storage.k8s.io", "serving.knative.dev"} <= set(
        groups
    )
    assert groups["gateway.envoyproxy.io"].preferred_version.group_version == "gateway.envoyproxy.io/v1alpha1"
    assert kubernetes.client.AutoscalingApi(wide.api).get_api_group().preferred_version.version == "v2"
    hpa = kubernetes.client.AutoscalingV2Api(wide.api).get_api_resources().resources
    assert [(r.name, r.kind, r.namespaced) for r in hpa] == [
        ("horizontalpodautoscalers", "HorizontalPodAutoscaler", True)
    ]
    envoy = wide.custom.get_api_resources(*ENVOY).resources
    assert [(r.name, r.singular_name, r.kind) for r in envoy] == [
        ("backendtrafficpolicies", "backendtrafficpolicy", "BackendTrafficPolicy")
    ]
    gateway = wide.custom.get_api_resources("gateway.networking.k8s.io", "v1").resources
    assert [r.name for r in gateway] == ["httproutes", "gateways"]
    core = {r.name: r for r in wide.core.get_api_resources().resources}
    assert {"persistentvolumeclaims", "secrets"} <= set(core)
    storage = kubernetes.client.StorageV1Api(wide.api).get_api_resources().resources
    assert [(r.name, r.namespaced) for r in storage] == [("storageclasses", False)]
    with pytest.raises(ApiException) as unknown:
        wide.custom.get_api_resources("keda.sh", "v1alpha1")
    assert unknown.value.status == 404


def test_other_kinds_take_merge_and_json_patch_but_not_strategic_merge(wide: Cluster) -> None:
    before = wide.standin.get_object("BackendTrafficPolicy", NS, "llama-chat-retries")
    assert before is not None
    patched = wide.custom.patch_namespaced_custom_object(
        *ENVOY,
        NS,
        "backendtrafficpolicies",
        "llama-chat-retries",
        {"spec": {"retry": {"numRetries": 5}}, "status": {"ancestors": []}},
    )
    assert isinstance(patched, dict)
    assert patched["spec"]["retry"]["numRetries"] == 5
    assert patched["status"] == before["status"]  # status is a subresource, as for a CRD with one
    assert patched["metadata"]["generation"] == 2
    assert int(patched["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])
    assert wide.standin.writes[-1].status == 200
    autoscaling = kubernetes.client.AutoscalingV2Api(wide.api)
    scaled = autoscaling.patch_namespaced_horizontal_pod_autoscaler(
        "vllm-llama", NS, [{"op": "replace", "path": "/spec/maxReplicas", "value": 6}]
    )
    assert scaled.spec.max_replicas == 6
    # HorizontalPodAutoscaler is a modelled built-in kind: it takes strategic merge, custom resources do not.
    merged = autoscaling.patch_namespaced_horizontal_pod_autoscaler(
        "vllm-llama", NS, {"spec": {"maxReplicas": 8}}
    )
    assert merged.spec.max_replicas == 8 and wide.standin.writes[-1].content_type.startswith(
        "application/strategic-merge-patch+json"
    )
    with pytest.raises(ApiException) as refused:
        wide.custom.patch_namespaced_custom_object(
            *ENVOY,
            NS,
            "backendtrafficpolicies",
            "llama-chat-retries",
            {"spec": {"retry": {"numRetries": 1}}},
            _content_type="application/strategic-merge-patch+json",
        )
    assert refused.value.status == 415
    assert autoscaling.read_namespaced_horizontal_pod_autoscaler("vllm-llama", NS).spec.max_replicas == 8


def test_a_pack_with_other_kinds_loads_and_serves_them(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "scenarios" / "kv-cache-preemption-traffic-surge", pack)
    other = OTHER_KINDS_YAML.split("---")[:2]  # the HorizontalPodAutoscaler and a PodDisruptionBudget
    k8s_yaml = pack / "k8s.yaml"
    k8s_yaml.write_text(k8s_yaml.read_text().rstrip() + "\n---" + "---".join(other))
    loaded = load_pack(pack)
    standin = KubernetesStandIn(loaded.objects, now=lambda: loaded.meta.as_of)
    with ServerThread(standin.app, name="k8s-standin") as server:
        cfg = kubernetes.client.Configuration()
        cfg.host = server.url
        with kubernetes.client.ApiClient(cfg) as api:
            hpa = kubernetes.client.AutoscalingV2Api(api).read_namespaced_horizontal_pod_autoscaler(
                "vllm-llama", NS
            )
            budgets = kubernetes.client.PolicyV1Api(api).list_pod_disruption_budget_for_all_namespaces()
            deployments = kubernetes.client.AppsV1Api(api).list_deployment_for_all_namespaces()
    assert hpa.status.desired_replicas == 4
    assert _names(budgets.items) == ["vllm-llama"]
    pack_deployments = sorted(o["metadata"]["name"] for o in loaded.objects if o["kind"] == "Deployment")
    assert pack_deployments and _names(deployments.items) == pack_deployments


@pytest.mark.parametrize(
    ("kind", "plural"),
    [
        ("HorizontalPodAutoscaler", "horizontalpodautoscalers"),
        ("BackendTrafficPolicy", "backendtrafficpolicies"),
        ("Gateway", "gateways"),
        ("StorageClass", "storageclasses"),
        ("Ingress", "ingresses"),
        ("Mailbox", "mailboxes"),
        ("Buzz", "buzzes"),
        ("Batch", "batches"),
        ("Mesh", "meshes"),
        ("Endpoints", "endpoints"),
    ],
)
def test_plurals_of_other_kinds(kind: str, plural: str) -> None:
    assert plural_of(kind) == plural
