"""The Kubernetes tool and the scope resolution, through the official client and the stand-in."""

from __future__ import annotations

import copy

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from bot.triage.scope import resolve
from tools.kubernetes import KubeTool, Topology, api_client, template_diff
from tools.result import Window


def window(example: Pack) -> Window:
    return Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)


def test_scope_walks_route_service_pods_deployment_nodes(example: Pack, example_kube: KubeTool) -> None:
    topo = example_kube.topology("llm-serving")
    assert isinstance(topo, Topology)
    scope = resolve(example.alert, topo, namespace=example.meta.namespace)
    assert scope.routes == ["llama-chat"]  # the alert's `service` label names the route
    assert scope.services == ["vllm-llama"]
    assert scope.deployments == ["vllm-llama"]
    assert scope.pods == ["vllm-llama-6d5f8c7b9-2xk4p", "vllm-llama-6d5f8c7b9-9wq7z"]
    assert scope.nodes == ["gpu-node-1", "gpu-node-2"]


def test_rollout_in_window_with_template_diff(example: Pack, example_kube: KubeTool) -> None:
    topo = example_kube.topology("llm-serving")
    assert isinstance(topo, Topology)
    rollout = example_kube.rollouts(topo, window(example)).evidence[0]
    assert rollout.labels["deployment"] == "vllm-llama" and rollout.value == 2
    assert "--max-num-seqs 64 → 256" in rollout.labels["changes"]
    assert "--enable-prefix-caching removed" in rollout.labels["changes"]
    assert rollout.onset is not None and rollout.onset < example.alert.alerts[0].startsAt
    assert rollout.link == "kubectl -n llm-serving rollout history deployment/vllm-llama --revision=2"


def test_template_diff_covers_image_env_resources() -> None:
    def rs(image: str, args: list[str], env: dict[str, str], memory: str) -> dict:  # type: ignore[type-arg]
        container = {
            "name": "server",
            "image": image,
            "args": args,
            "env": [{"name": k, "value": v} for k, v in env.items()],
            "resources": {"limits": {"memory": memory}},
        }
        return {"spec": {"template": {"spec": {"containers": [container]}}}}

    old = rs(
        "vllm/vllm-openai:v0.11.2", ["--model", "/models/a", "--quantization=awq"], {"HF_HOME": "/c"}, "100Gi"
    )
    new = rs(
        "vllm/vllm-openai:v0.12.0", ["--model", "/models/b", "--quantization=fp8"], {"HF_HOME": "/d"}, "120Gi"
    )
    assert template_diff(old, new) == [
        "image vllm/vllm-openai:v0.11.2 → vllm/vllm-openai:v0.12.0",
        "--model /models/a → /models/b",
        "--quantization awq → fp8",
        "env HF_HOME /c → /d",
        "limits.memory 100Gi → 120Gi",
    ]


def test_unhealthy_pods_nodes_events_and_route_weights(example: Pack) -> None:
    objects = copy.deepcopy(example.objects)
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == "gpu-node-2")
    for cond in node["status"]["conditions"]:
        if cond["type"] == "Ready":
            cond.update(
                status="Unknown", reason="NodeStatusUnknown", lastTransitionTime="2026-06-01T09:55:00Z"
            )
    pod = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"].endswith("2xk4p"))
    pod["status"]["containerStatuses"][0].update(
        restartCount=3,
        lastState={
            "terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "2026-06-01T09:59:30Z"}
        },
    )
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "type": "Warning",
            "reason": "BackOff",
            "count": 4,
            "message": "Back-off restarting failed container server",
            "metadata": {"name": "ev1", "namespace": "llm-serving"},
            "involvedObject": {"kind": "Pod", "name": pod["metadata"]["name"], "namespace": "llm-serving"},
            "firstTimestamp": "2026-06-01T09:59:40Z",
            "lastTimestamp": "2026-06-01T10:05:00Z",
        }
    )
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "type": "Normal",
            "reason": "NodeNotReady",
            "count": 1,
            "message": "Node gpu-node-2 status is now: NodeNotReady",
            "metadata": {"name": "ev2", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": "gpu-node-2"},
            "firstTimestamp": "2026-06-01T09:55:00Z",
            "lastTimestamp": "2026-06-01T09:55:00Z",
        }
    )
    standin = KubernetesStandIn(objects)
    with ServerThread(standin.app) as server:
        api = api_client(server.url)
        kube = KubeTool(api)
        topo = kube.topology("llm-serving")
        assert isinstance(topo, Topology)
        pods = kube.pod_health(topo).evidence
        nodes = {e.labels["node"]: e for e in kube.node_state(topo, ["gpu-node-1", "gpu-node-2"]).evidence}
        events = kube.warning_events(topo, window(example)).evidence
        routes = kube.route_backends(topo).evidence
        api.close()
    assert len(pods) == 1 and pods[0].labels["reasons"] == "OOMKilled" and pods[0].value == 3
    assert "last terminated OOMKilled (exit 137) at 09:59:30Z" in pods[0].summary
    assert (
        nodes["gpu-node-2"].labels["healthy"] == "false" and nodes["gpu-node-1"].labels["healthy"] == "true"
    )
    assert nodes["gpu-node-2"].onset is not None and nodes["gpu-node-2"].onset.strftime("%H:%M") == "09:55"
    reasons = {(e.labels["reason"], e.labels["object"]) for e in events}
    assert ("BackOff", pod["metadata"]["name"]) in reasons and ("NodeNotReady", "gpu-node-2") in reasons
    backoff = next(e for e in events if e.labels["reason"] == "BackOff")
    assert backoff.value == 4
    assert routes[0].summary == "httproute/llama-chat rule 0: vllm-llama 100%"
