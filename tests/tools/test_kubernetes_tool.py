"""The Kubernetes tool and the scope resolution, through the official client and the stand-in."""

from __future__ import annotations

import copy
from pathlib import Path

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from bot.triage.scope import named_namespace, resolve
from tests.support.stored import stored_request
from tools.events import Subjects
from tools.kubernetes import KubeTool, Topology, api_client
from tools.result import Window
from tools.templates import template_diff

NS = "support-bot"
DEPLOYMENT = "vllm-llama31-8b-support"
PODS = [f"{DEPLOYMENT}-wjlzdcvg4h-{suffix}" for suffix in ("gn466", "n25dc", "x55gg")]
NODES = [f"aks-gpua100-28391047-vmss00000{n}" for n in (2, 4, 5)]


def window(example: Pack) -> Window:
    return Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)


def test_scope_walks_route_service_pods_deployment_nodes(
    example: Pack, example_kube: KubeTool, tmp_path: Path
) -> None:
    request = stored_request(example, tmp_path)
    assert named_namespace(request) == NS  # the incident's namespace, as intake stored it
    topo = example_kube.topology(NS)
    assert isinstance(topo, Topology)
    scope = resolve(request, topo, namespace=NS)
    assert scope.routes == ["support-chat"]  # the route whose backend is the alert's `service`
    assert scope.services == [DEPLOYMENT]
    assert scope.deployments == [DEPLOYMENT]
    assert scope.pods == PODS
    assert scope.nodes == NODES


def test_rollout_in_window_with_template_diff(rollout_pack: Pack, rollout_kube: KubeTool) -> None:
    topo = rollout_kube.topology("search-llm")
    assert isinstance(topo, Topology)
    rollout = rollout_kube.rollouts(topo, window(rollout_pack)).evidence[0]
    assert rollout.labels["deployment"] == "vllm-mistral-small-24b" and rollout.value == 12
    assert "--max-num-seqs 128 → 512" in rollout.labels["changes"]
    assert rollout.onset is not None and rollout.onset < rollout_pack.alert.alerts[0].startsAt
    assert (
        rollout.link
        == "kubectl -n search-llm rollout history deployment/vllm-mistral-small-24b --revision=12"
    )


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
    node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == NODES[1])
    for cond in node["status"]["conditions"]:
        if cond["type"] == "Ready":
            cond.update(
                status="Unknown", reason="NodeStatusUnknown", lastTransitionTime="2026-06-16T18:55:00Z"
            )
    pod = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == PODS[0])
    pod["status"]["containerStatuses"][0].update(
        restartCount=3,
        lastState={
            "terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "2026-06-16T18:59:30Z"}
        },
    )
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "type": "Warning",
            "reason": "BackOff",
            "count": 4,
            "message": "Back-off restarting failed container vllm-openai",
            "metadata": {"name": "ev1", "namespace": NS},
            "involvedObject": {"kind": "Pod", "name": pod["metadata"]["name"], "namespace": NS},
            "firstTimestamp": "2026-06-16T18:59:40Z",
            "lastTimestamp": "2026-06-16T19:04:00Z",
        }
    )
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "type": "Normal",
            "reason": "NodeNotReady",
            "count": 1,
            "message": f"Node {NODES[1]} status is now: NodeNotReady",
            "metadata": {"name": "ev2", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": NODES[1]},
            "firstTimestamp": "2026-06-16T18:55:00Z",
            "lastTimestamp": "2026-06-16T18:55:00Z",
        }
    )
    standin = KubernetesStandIn(objects)
    with ServerThread(standin.app) as server:
        api = api_client(server.url)
        kube = KubeTool(api)
        topo = kube.topology(NS)
        assert isinstance(topo, Topology)
        pods = kube.pod_health(topo).evidence
        nodes = {e.labels["node"]: e for e in kube.node_state(topo, NODES[:2]).evidence}
        mine = Subjects.of(pod=[pod["metadata"]["name"]], node=[NODES[1]])
        events = kube.warning_events(topo, window(example), mine).evidence
        others = kube.warning_events(topo, window(example), Subjects.of(node=[NODES[0]])).evidence
        routes = kube.route_backends(topo).evidence
        api.close()
    assert len(pods) == 1 and pods[0].labels["reasons"] == "OOMKilled" and pods[0].value == 3
    assert "last terminated OOMKilled (exit 137) at 18:59:30Z" in pods[0].summary
    assert nodes[NODES[1]].labels["healthy"] == "false" and nodes[NODES[0]].labels["healthy"] == "true"
    assert nodes[NODES[1]].onset is not None and nodes[NODES[1]].onset.strftime("%H:%M") == "18:55"
    reasons = {(e.labels["reason"], e.labels["object"]) for e in events}
    assert ("BackOff", pod["metadata"]["name"]) in reasons and ("NodeNotReady", NODES[1]) in reasons
    assert others == []  # another node's and another pod's events are not the incident's
    backoff = next(e for e in events if e.labels["reason"] == "BackOff")
    assert backoff.value == 4
    assert routes[0].summary == f"httproute/support-chat rule 0: {DEPLOYMENT} 100%"
