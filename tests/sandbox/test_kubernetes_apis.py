"""The stand-in's switches answered as a real API server answers: an unserved HTTPRoute version,
events.k8s.io/v1 as a view of core/v1 events, the controller's ScalingReplicaSet events, and the
access reviews."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import kubernetes.client
import pytest
from kubernetes.client.exceptions import ApiException

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.kubernetes.apis import ServedApis
from bot.sandbox.pack import load_pack
from bot.sandbox.server import ServerThread
from tests.conftest import ROOT
from tools.kubernetes import api_client

PACK = load_pack(ROOT / "scenarios" / "kv-cache-preemption-traffic-surge")
ROLLOUT = load_pack(ROOT / "scenarios" / "cuda-oom-after-max-num-seqs-rollout")
NS = "support-bot"
GATEWAY = "gateway.networking.k8s.io"
POD = "vllm-llama31-8b-support-wjlzdcvg4h-gn466"
EVENT = {
    "apiVersion": "v1",
    "kind": "Event",
    "metadata": {"name": "backoff", "namespace": NS},
    "involvedObject": {"kind": "Pod", "name": POD, "namespace": NS},
    "reason": "BackOff",
    "message": "Back-off restarting failed container",
    "type": "Warning",
    "count": 4,
    "firstTimestamp": "2026-06-16T18:59:40Z",
    "lastTimestamp": "2026-06-16T19:04:00Z",
    "source": {"component": "kubelet", "host": "node-a"},
}


@contextmanager
def served(objects: list[dict[str, Any]], apis: ServedApis | None = None) -> Iterator[tuple[str, Any]]:
    standin = KubernetesStandIn(objects, apis=apis, pod_ready_seconds=0)
    with ServerThread(standin.app) as server:
        api = api_client(server.url)
        try:
            yield server.url, api
        finally:
            standin.close()
            api.close()


def test_an_unserved_httproute_version_is_the_servers_plain_404() -> None:
    with served(PACK.objects, ServedApis(httproute_versions=("v1beta1",))) as (url, api):
        custom = kubernetes.client.CustomObjectsApi(api)
        with pytest.raises(ApiException) as missing:
            custom.list_namespaced_custom_object(GATEWAY, "v1", NS, "httproutes")
        listed = custom.list_namespaced_custom_object(GATEWAY, "v1beta1", NS, "httproutes")
        groups = kubernetes.client.ApisApi(api).get_api_versions().groups
        answer = httpx.get(f"{url}/apis/{GATEWAY}/v1")
    assert missing.value.status == 404 and missing.value.body == "404 page not found\n"
    assert [item["apiVersion"] for item in listed["items"]] == [f"{GATEWAY}/v1beta1"]
    gateway = next(g for g in groups if g.name == GATEWAY)
    assert [v.version for v in gateway.versions] == ["v1beta1"]
    assert answer.status_code == 404 and answer.headers["content-type"].startswith("text/plain")


def test_events_k8s_io_serves_the_core_events_converted() -> None:
    with served([*PACK.objects, EVENT]) as (_, api):
        events = kubernetes.client.EventsV1Api(api)
        raw = events.list_namespaced_event(NS, field_selector=f"regarding.name={POD}", _preload_content=False)
        with pytest.raises(ApiException) as refused:
            events.list_namespaced_event(NS, field_selector=f"involvedObject.name={POD}")
    [item] = json.loads(raw.data)["items"]
    assert item["apiVersion"] == "events.k8s.io/v1" and item["regarding"]["name"] == POD
    assert (item["note"], item["deprecatedCount"]) == ("Back-off restarting failed container", 4)
    assert item["deprecatedLastTimestamp"] == "2026-06-16T19:04:00Z" and item["eventTime"] is None
    assert item["deprecatedSource"] == {"component": "kubelet", "host": "node-a"}
    assert refused.value.status == 400
    assert json.loads(refused.value.body)["message"] == "field label not supported: involvedObject.name"


def test_events_k8s_io_can_be_switched_off() -> None:
    with served([*PACK.objects, EVENT], ServedApis(events_v1=False)) as (_, api):
        with pytest.raises(ApiException) as missing:
            kubernetes.client.EventsV1Api(api).list_namespaced_event(NS)
        core = kubernetes.client.CoreV1Api(api).list_namespaced_event(NS)
    assert missing.value.status == 404 and [e.reason for e in core.items] == ["BackOff"]


def test_a_rollback_reuses_the_replicaset_and_the_controller_says_so_in_events() -> None:
    deployment, good, bad = (
        "vllm-mistral-small-24b",
        "vllm-mistral-small-24b-4zzfzmfkkq",
        "vllm-mistral-small-24b-ltd54hwn2",
    )
    with served(ROLLOUT.objects) as (_, api):
        apps = kubernetes.client.AppsV1Api(api)
        template = api.sanitize_for_serialization(
            apps.read_namespaced_replica_set(good, "search-llm").spec.template
        )
        del template["metadata"]["labels"]["pod-template-hash"]
        apps.patch_namespaced_deployment(
            deployment, "search-llm", [{"op": "replace", "path": "/spec/template", "value": template}]
        )
        sets = {
            rs.metadata.name: rs.metadata.annotations
            for rs in apps.list_namespaced_replica_set("search-llm").items
        }
        events = kubernetes.client.CoreV1Api(api).list_namespaced_event("search-llm").items
    assert set(sets) == {good, bad}
    assert sets[good]["deployment.kubernetes.io/revision"] == "13"
    assert sets[good]["deployment.kubernetes.io/revision-history"] == "11"
    said = [(e.reason, e.involved_object.name, e.message, e.source.component) for e in events]
    assert (
        "ScalingReplicaSet",
        deployment,
        f"Scaled up replica set {good} from 0 to 3",
        "deployment-controller",
    ) in said
    assert (
        "ScalingReplicaSet",
        deployment,
        f"Scaled down replica set {bad} from 3 to 0",
        "deployment-controller",
    ) in said


def test_access_reviews_are_create_only() -> None:
    with served(PACK.objects) as (url, _):
        listed = httpx.get(f"{url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        empty = httpx.post(f"{url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", json={"spec": {}})
        asked = httpx.post(
            f"{url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            json={"spec": {"resourceAttributes": {"verb": "patch", "resource": "nodes"}}},
        )
    assert listed.status_code == 405 and empty.status_code == 422
    assert asked.status_code == 201 and asked.json()["status"] == {
        "allowed": True
    }  # no rules: a cluster admin


def test_a_watch_on_events_k8s_io_selects_and_shows_the_converted_events() -> None:
    namespace, deployment = "search-llm", "vllm-mistral-small-24b"
    with served(ROLLOUT.objects) as (url, api):
        path = f"{url}/apis/events.k8s.io/v1/namespaces/{namespace}/events"
        version = httpx.get(path).json()["metadata"]["resourceVersion"]
        kubernetes.client.AppsV1Api(api).patch_namespaced_deployment_scale(
            deployment, namespace, {"spec": {"replicas": 4}}
        )
        query = {"watch": "true", "resourceVersion": version, "timeoutSeconds": "1"}
        watched = httpx.get(
            path, params=query | {"fieldSelector": f"regarding.name={deployment}"}, timeout=10
        )
        others = httpx.get(path, params=query | {"fieldSelector": "regarding.name=someone-else"}, timeout=10)
    events = [json.loads(line) for line in watched.text.splitlines()]
    assert [e["type"] for e in events] == ["ADDED"]
    shown = events[0]["object"]
    assert shown["apiVersion"] == "events.k8s.io/v1" and shown["reason"] == "ScalingReplicaSet"
    assert shown["note"].startswith("Scaled up replica set vllm-mistral-small-24b-") and shown[
        "note"
    ].endswith("from 3 to 4")
    assert others.text == ""
