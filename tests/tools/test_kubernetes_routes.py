"""Routes across namespaces and Gateway API versions, events of both APIs, and pods by owner,
through the official client against the stand-in with its switches."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import kubernetes.client

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.kubernetes.apis import ServedApis, namespace_reader
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from bot.triage.scope import resolve
from tests.support.stored import stored_request
from tools.events import Subjects
from tools.kubernetes import KubeTool, Topology, api_client
from tools.result import Status, Window

NS = "support-bot"
DEPLOYMENT = "vllm-llama31-8b-support"
PODS = [f"{DEPLOYMENT}-wjlzdcvg4h-{suffix}" for suffix in ("gn466", "n25dc", "x55gg")]
GATEWAY_NS = "edge-gateways"


@contextmanager
def served(
    objects: list[dict[str, Any]], apis: ServedApis | None = None, token: str | None = None
) -> Iterator[Any]:
    standin = KubernetesStandIn(objects, apis=apis)
    with ServerThread(standin.app) as server:
        api = api_client(server.url, token=token)
        try:
            yield api
        finally:
            standin.close()
            api.close()


def topology(api: Any) -> Topology:
    topo = KubeTool(api, timeout=5).topology(NS)
    assert isinstance(topo, Topology), topo
    return topo


def gateway_route(namespace: str, backend_namespace: str | None) -> dict[str, Any]:
    ref: dict[str, Any] = {"kind": "Service", "name": DEPLOYMENT, "port": 8000}
    ref |= {"namespace": backend_namespace} if backend_namespace else {}
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "support-public", "namespace": namespace},
        "spec": {"parentRefs": [{"name": "public-gw"}], "rules": [{"backendRefs": [ref]}]},
    }


GRANT = {
    "apiVersion": "gateway.networking.k8s.io/v1beta1",
    "kind": "ReferenceGrant",
    "metadata": {"name": "from-gateways", "namespace": NS},
    "spec": {
        "from": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "namespace": GATEWAY_NS}],
        "to": [{"group": "", "kind": "Service"}],
    },
}


def test_a_v1beta1_only_cluster_still_finds_routes(example: Pack) -> None:
    with served(example.objects, ServedApis(httproute_versions=("v1beta1",))) as api:
        topo = topology(api)
        evidence = KubeTool(api).route_backends(topo).evidence
    assert topo.route_version == "v1beta1" and [r["metadata"]["name"] for r in topo.routes] == [
        "support-chat"
    ]
    assert topo.routes[0]["apiVersion"] == "gateway.networking.k8s.io/v1beta1" and topo.gaps == []
    assert (
        evidence[0].query
        == f"GET /apis/gateway.networking.k8s.io/v1beta1/namespaces/{NS}/httproutes/support-chat"
    )


def test_without_the_gateway_api_the_routes_are_a_named_gap(example: Pack) -> None:
    objects = [o for o in example.objects if o["kind"] != "HTTPRoute"]
    with served(objects, ServedApis(httproute_versions=())) as api:
        topo = topology(api)
        result = KubeTool(api).route_backends(topo)
    assert topo.routes == [] and topo.services  # the rest of the topology is there
    assert result.status is Status.ERROR and result.gap is not None
    assert "Gateway API not installed" in result.gap.reason
    backend = {"service": {"name": DEPLOYMENT, "port": {"number": 8000}}}
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "support", "namespace": NS},
        "spec": {"defaultBackend": backend},
    }
    with served([*objects, ingress], ServedApis(httproute_versions=())) as api:
        fronted = KubeTool(api).route_backends(topology(api))
    assert fronted.gap is None and fronted.status is Status.NO_DATA  # an Ingress fronts it: no blind spot


def test_a_route_in_another_namespace_that_sends_traffic_here_is_found(example: Pack, tmp_path: Any) -> None:
    objects = [o for o in copy.deepcopy(example.objects) if o["kind"] != "HTTPRoute"]
    objects += [gateway_route(GATEWAY_NS, NS), GRANT]
    objects.append(
        gateway_route("other-team", None) | {"metadata": {"name": "theirs", "namespace": "other-team"}}
    )
    with served(objects) as api:
        topo = topology(api)
        evidence = KubeTool(api).route_backends(topo).evidence
    assert [(r["metadata"]["namespace"], r["metadata"]["name"]) for r in topo.routes] == [
        (GATEWAY_NS, "support-public")
    ]  # not other-team's route to its own same-named Service
    assert evidence[0].id == f"k8s:route:{GATEWAY_NS}/support-public:0"
    assert evidence[0].labels["backends"] == f"{NS}/{DEPLOYMENT}=1"
    assert evidence[0].summary == f"httproute/support-public rule 0: {NS}/{DEPLOYMENT} 100%"
    scope = resolve(stored_request(example, tmp_path), topo, namespace=NS)
    assert scope.routes == ["support-public"] and scope.pods == PODS


def test_a_role_bound_to_one_namespace_reads_its_routes_and_says_what_it_missed(example: Pack) -> None:
    objects = [*copy.deepcopy(example.objects), gateway_route(GATEWAY_NS, NS)]
    apis = ServedApis(access={"ns-token": namespace_reader(NS)})
    with served(objects, apis, token="ns-token") as api:
        topo = topology(api)
        result = KubeTool(api).route_backends(topo)
    assert [r["metadata"]["name"] for r in topo.routes] == ["support-chat"]
    assert result.status is Status.OK and [e.labels["route"] for e in result.evidence] == ["support-chat"]
    assert result.gap is not None and "across namespaces is forbidden" in result.gap.reason


def event(**fields: Any) -> dict[str, Any]:
    return {"kind": "Event", "type": "Warning", **fields}


EVENTS = [
    # written through events.k8s.io by the scheduler: no count, a series
    event(
        apiVersion="events.k8s.io/v1",
        metadata={"name": "sched", "namespace": NS},
        regarding={"kind": "Pod", "name": PODS[0], "namespace": NS},
        reason="FailedScheduling",
        note="0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
        eventTime="2026-06-16T18:58:00.000000Z",
        series={"count": 7, "lastObservedTime": "2026-06-16T19:03:00.000000Z"},
        reportingController="default-scheduler",
        reportingInstance="default-scheduler-1",
        action="Scheduling",
    ),
    # written through core/v1 by the kubelet
    event(
        apiVersion="v1",
        metadata={"name": "backoff", "namespace": NS},
        involvedObject={"kind": "Pod", "name": PODS[1], "namespace": NS},
        reason="BackOff",
        message="Back-off restarting failed container",
        count=4,
        firstTimestamp="2026-06-16T18:59:40Z",
        lastTimestamp="2026-06-16T19:04:00Z",
        source={"component": "kubelet"},
    ),
]


def read_events(example: Pack, apis: ServedApis) -> list[Any]:
    window = Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)
    with served([*example.objects, *copy.deepcopy(EVENTS)], apis) as api:
        kube = KubeTool(api)
        return kube.warning_events(topology(api), window, Subjects.of(pod=PODS)).evidence


def test_events_are_read_from_events_k8s_io_with_series_counts(example: Pack) -> None:
    found = {e.labels["reason"]: e for e in read_events(example, ServedApis())}
    assert found["FailedScheduling"].value == 7 and found["BackOff"].value == 4
    assert found["FailedScheduling"].query.startswith(f"GET /apis/events.k8s.io/v1/namespaces/{NS}/events")
    assert found["BackOff"].labels["message"] == "Back-off restarting failed container"
    assert found["FailedScheduling"].onset is not None and found["FailedScheduling"].onset.minute == 58


def test_without_events_k8s_io_the_core_events_say_the_same(example: Pack) -> None:
    core = {e.labels["reason"]: e for e in read_events(example, ServedApis(events_v1=False))}
    assert core["FailedScheduling"].value == 7 and core["BackOff"].value == 4
    assert core["BackOff"].query.startswith(f"GET /api/v1/namespaces/{NS}/events")
    assert core["FailedScheduling"].labels["message"].startswith("0/3 nodes are available")


def test_a_canary_deployments_pods_are_not_the_deployments(example: Pack) -> None:
    objects = copy.deepcopy(example.objects)
    stable = next(o for o in objects if o["kind"] == "Deployment")
    canary = copy.deepcopy(stable)
    canary["metadata"] = {"name": f"{DEPLOYMENT}-canary", "namespace": NS}
    canary["spec"]["replicas"] = 0
    canary["spec"]["selector"] = {"matchLabels": {"app": "canary"}}
    canary["spec"]["template"]["metadata"]["labels"] = {"app": "canary"}
    canary.pop("status", None)
    orphan = copy.deepcopy(next(o for o in objects if o["kind"] == "Pod"))
    orphan["metadata"] = {
        "name": f"{DEPLOYMENT}-wjlzdcvg4h-zzzzz",
        "namespace": NS,
        "labels": {"hand": "made"},
    }
    objects += [canary, orphan]
    with served(objects) as api:
        apps = kubernetes.client.AppsV1Api(api)
        apps.patch_namespaced_deployment_scale(f"{DEPLOYMENT}-canary", NS, {"spec": {"replicas": 1}})
        topo = topology(api)
    canaries = [
        p["metadata"]["name"] for p in topo.pods if p["metadata"]["name"].startswith(f"{DEPLOYMENT}-canary-")
    ]
    assert len(canaries) == 1  # the controller made it: `<deploy>-canary-<hash>-<suffix>`
    assert sorted(p["metadata"]["name"] for p in topo.pods_of(DEPLOYMENT)) == sorted(
        [*PODS, orphan["metadata"]["name"]]
    )
    assert [p["metadata"]["name"] for p in topo.pods_of(f"{DEPLOYMENT}-canary")] == canaries
