"""Watches on the stand-in through `kubernetes.watch.Watch`, its discovery, and packs loading as recorded.

A pack records a broken cluster on purpose; the controllers must leave it exactly as loaded until a
write touches it, while a watch sees every change a write and the controllers then make.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import kubernetes.client as k8s
import kubernetes.watch

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import load_pack
from tests.sandbox.test_kubernetes_cluster import PACK, Served, as_json, served
from tests.sandbox.test_kubernetes_controllers import (
    NS,
    POD_A,
    POD_B,
    budget,
    cluster_yaml,
    evict,
    standin_of,
)

LISTS: list[tuple[str, Callable[[Served], Any]]] = [
    ("pods", lambda c: c.core.list_pod_for_all_namespaces),
    ("nodes", lambda c: c.core.list_node),
    ("events", lambda c: c.core.list_event_for_all_namespaces),
    ("deployments", lambda c: c.apps.list_deployment_for_all_namespaces),
    ("replicasets", lambda c: c.apps.list_replica_set_for_all_namespaces),
    ("budgets", lambda c: k8s.PolicyV1Api(c.api).list_pod_disruption_budget_for_all_namespaces),
    ("autoscalers", lambda c: k8s.AutoscalingV2Api(c.api).list_horizontal_pod_autoscaler_for_all_namespaces),
]


def everything(c: Served) -> dict[str, Any]:
    """Every object the stand-in serves, as JSON, with the version the lists carry."""
    seen = {name: as_json(call(c)) for name, call in LISTS}
    seen["routes"] = as_json(
        k8s.CustomObjectsApi(c.api).list_cluster_custom_object,
        "gateway.networking.k8s.io",
        "v1",
        "httproutes",
    )
    return seen


def test_loading_a_pack_reconciles_nothing(tmp_path: Any) -> None:
    pack = load_pack(PACK)
    standin = KubernetesStandIn(pack.objects, now=lambda: pack.meta.as_of, pod_ready_seconds=0)
    with served(standin, tmp_path, pack.meta.namespace) as c:
        first = everything(c)
        time.sleep(0.5)
        assert everything(c) == first
        failing = next(p for p in first["pods"]["items"] if p["metadata"]["name"].endswith("-56k26"))
        waiting = failing["status"]["containerStatuses"][0]["state"]["waiting"]
        assert waiting["reason"] == "CrashLoopBackOff"  # still as recorded, no controller restarted it
        assert first["deployments"]["items"][0]["status"]["readyReplicas"] == 2
    assert standin.writes == []


def test_recorded_statuses_stay_until_a_write_touches_them(tmp_path: Any) -> None:
    standin = standin_of(cluster_yaml(budgets=(budget(),)))
    with served(standin, tmp_path, NS) as c:
        time.sleep(0.3)
        stale = k8s.PolicyV1Api(c.api).read_namespaced_pod_disruption_budget("vllm", NS)
        assert stale.status.disruptions_allowed == 0  # as recorded, though two pods are Ready
        assert c.apps.read_namespaced_deployment("vllm", NS).status.ready_replicas == 1
        c.core.patch_namespaced_pod(POD_B, NS, {"metadata": {"labels": {"touched": "yes"}}})
        fresh = k8s.PolicyV1Api(c.api).read_namespaced_pod_disruption_budget("vllm", NS)
        assert (fresh.status.disruptions_allowed, fresh.status.current_healthy) == (1, 2)
        assert c.apps.read_namespaced_deployment("vllm", NS).status.ready_replicas == 2


def test_discovery_lists_eviction_budgets_and_autoscalers(tmp_path: Any) -> None:
    with served(standin_of(cluster_yaml()), tmp_path, NS) as c:
        core = {r.name: r for r in c.core.get_api_resources().resources}
        eviction = core["pods/eviction"]
        assert (eviction.group, eviction.version, eviction.kind, eviction.verbs) == (
            "policy",
            "v1",
            "Eviction",
            ["create"],
        )
        assert "watch" in core["pods"].verbs
        policy = k8s.PolicyV1Api(c.api).get_api_resources().resources
        assert [(r.name, r.kind, r.short_names) for r in policy] == [
            ("poddisruptionbudgets", "PodDisruptionBudget", ["pdb"])
        ]
        scalers = k8s.AutoscalingV2Api(c.api).get_api_resources().resources
        assert [(r.name, r.short_names) for r in scalers] == [("horizontalpodautoscalers", ["hpa"])]


def test_watch_replays_changes_after_a_version_then_follows(tmp_path: Any) -> None:
    standin = standin_of(cluster_yaml(), pod_ready_seconds=0.3)
    with served(standin, tmp_path, NS) as c:
        version = c.core.list_namespaced_pod(NS).metadata.resource_version
        evict(c, POD_A)
        seen: list[tuple[str, str, bool]] = []
        watch = kubernetes.watch.Watch()
        for event in watch.stream(
            c.core.list_namespaced_pod, NS, resource_version=version, timeout_seconds=10
        ):
            pod = event["object"]
            is_ready = any(x.type == "Ready" and x.status == "True" for x in pod.status.conditions or [])
            seen.append((event["type"], pod.metadata.name, is_ready))
            if event["type"] == "MODIFIED" and is_ready:
                watch.stop()
        replacement = seen[1][1]
        assert replacement.startswith("vllm-7b9f5d6c4-") and replacement not in (POD_A, POD_B)
        assert seen == [
            ("DELETED", POD_A, True),
            ("ADDED", replacement, False),
            ("MODIFIED", replacement, True),
        ]


def test_watch_without_a_version_starts_with_the_objects_and_ends_on_time(tmp_path: Any) -> None:
    standin = standin_of(cluster_yaml())
    with served(standin, tmp_path, NS) as c:
        started = time.monotonic()
        stream = kubernetes.watch.Watch().stream(c.core.list_pod_for_all_namespaces, timeout_seconds=1)
        events = [(e["type"], e["object"].metadata.name) for e in stream]
        assert sorted(events) == [("ADDED", POD_B), ("ADDED", POD_A)]
        assert 0.9 < time.monotonic() - started < 5
        initial = kubernetes.watch.Watch().stream(
            c.core.list_namespaced_pod,
            NS,
            label_selector="app=vllm",
            send_initial_events=True,
            resource_version_match="NotOlderThan",
            allow_watch_bookmarks=True,
            timeout_seconds=1,
        )
        kinds = [(e["type"], e["raw_object"]["metadata"].get("annotations")) for e in initial]
        assert kinds[-1] == ("BOOKMARK", {"k8s.io/initial-events-end": "true"})
        assert [kind for kind, _ in kinds[:-1]] == ["ADDED", "ADDED"]


def test_watch_follows_a_scale_by_field_selector(tmp_path: Any) -> None:
    standin = standin_of(cluster_yaml())
    with served(standin, tmp_path, NS) as c:
        ready: list[int] = []
        watch = kubernetes.watch.Watch()

        def follow() -> None:
            for event in watch.stream(
                c.apps.list_namespaced_deployment, NS, field_selector="metadata.name=vllm", timeout_seconds=10
            ):
                ready.append(event["object"].status.ready_replicas or 0)
                if ready[-1] == 3:
                    watch.stop()

        thread = threading.Thread(target=follow)
        thread.start()
        time.sleep(0.3)
        c.apps.patch_namespaced_deployment_scale("vllm", NS, {"spec": {"replicas": 3}})
        thread.join(10)
        assert not thread.is_alive() and ready[0] == 1 and ready[-1] == 3


def test_an_object_leaving_the_selection_is_deleted_for_the_watch(tmp_path: Any) -> None:
    standin = standin_of(cluster_yaml())
    with served(standin, tmp_path, NS) as c:
        version = c.core.list_node().metadata.resource_version
        c.core.patch_node("gpu-b", {"spec": {"unschedulable": True}})
        c.core.patch_node("gpu-b", {"spec": {"unschedulable": False}})
        stream = kubernetes.watch.Watch().stream(
            c.core.list_node,
            field_selector="spec.unschedulable=false",
            resource_version=version,
            timeout_seconds=1,
        )
        assert [(e["type"], e["object"].metadata.name) for e in stream] == [
            ("DELETED", "gpu-b"),
            ("ADDED", "gpu-b"),
        ]


def test_close_ends_the_open_watches(tmp_path: Any) -> None:
    standin = standin_of(cluster_yaml())
    with served(standin, tmp_path, NS) as c:
        events: list[str] = []
        thread = threading.Thread(
            target=lambda: events.extend(
                e["type"] for e in kubernetes.watch.Watch().stream(c.core.list_node, timeout_seconds=30)
            )
        )
        thread.start()
        time.sleep(0.3)
        standin.close()
        thread.join(5)
        assert not thread.is_alive() and events == ["ADDED"] * 3
