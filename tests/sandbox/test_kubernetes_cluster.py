"""The Kubernetes stand-in behaving as a cluster for the real `kubectl`: get, rollout, cordon.

kubectl must be on PATH (CI installs Debian's `kubernetes-client`, 1.20; newer ones work too); a run
without it fails rather than skips, so a missing binary cannot pass for a working sandbox. The pack is
the OOM after a max-num-seqs rollout, so `rollout undo` is the fix an operator would reach for.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import kubernetes.client
import pytest
import yaml

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import load_pack
from bot.sandbox.server import ServerThread
from tests.conftest import ROOT

PACK = ROOT / "scenarios" / "cuda-oom-after-max-num-seqs-rollout"
NS = "search-llm"
DEPLOYMENT = "vllm-mistral-small-24b"
BAD_RS, GOOD_RS = f"{DEPLOYMENT}-ltd54hwn2", f"{DEPLOYMENT}-4zzfzmfkkq"
NODE = "gke-search-prod-a3-h100-pool-3e8a1f52-x7kq"
T = TypeVar("T")


@dataclass
class Served:
    """A stand-in behind a loopback server, with a client on it and a kubeconfig for kubectl."""

    standin: KubernetesStandIn
    url: str
    api: kubernetes.client.ApiClient
    core: kubernetes.client.CoreV1Api
    apps: kubernetes.client.AppsV1Api
    kubeconfig: Path


@contextmanager
def served(standin: KubernetesStandIn, folder: Path, namespace: str) -> Iterator[Served]:
    """Serve `standin` until the block ends; its open watches are closed first, as `sandbox up` does."""
    with ServerThread(standin.app, name="k8s-cluster") as server:
        cfg = kubernetes.client.Configuration()
        cfg.host = server.url
        api = kubernetes.client.ApiClient(cfg)
        kubeconfig = folder / "kubeconfig"
        context = {"cluster": "sandbox", "user": "sandbox", "namespace": namespace}
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "sandbox", "cluster": {"server": server.url}}],
            "users": [{"name": "sandbox", "user": {"token": "sandbox"}}],
            "contexts": [{"name": "sandbox", "context": context}],
            "current-context": "sandbox",
        }
        kubeconfig.write_text(yaml.safe_dump(config))
        try:
            core, apps = kubernetes.client.CoreV1Api(api), kubernetes.client.AppsV1Api(api)
            yield Served(standin, server.url, api, core, apps, kubeconfig)
        finally:
            standin.close()
            api.close()


def eventually(check: Callable[[], T], *, within: float = 10.0) -> T:
    """The first truthy answer of `check` (which may assert) within the time; the last failure otherwise."""
    deadline = time.monotonic() + within
    while True:
        try:
            answer = check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        else:
            if answer:
                return answer
            if time.monotonic() > deadline:
                raise AssertionError(f"still {answer!r} after {within} s")
        time.sleep(0.05)


def as_json(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A client call's answer as the server's JSON, past the typed models' validation."""
    return json.loads(call(*args, _preload_content=False, **kwargs).data)


@pytest.fixture
def kubectl_binary() -> str:
    found = shutil.which("kubectl")
    assert found, "kubectl is not on PATH: install Debian's kubernetes-client (scripts/lib.sh does)"
    return found


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Served]:
    pack = load_pack(PACK)
    standin = KubernetesStandIn(pack.objects, now=lambda: pack.meta.as_of, pod_ready_seconds=0.5)
    with served(standin, tmp_path, NS) as running:
        yield running


def kubectl(binary: str, cluster: Served, *args: str) -> str:
    """Run kubectl against the stand-in; its answer on stdout, a failure with stderr shown."""
    cache = cluster.kubeconfig.parent / "cache"
    command = [binary, f"--kubeconfig={cluster.kubeconfig}", f"--cache-dir={cache}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}: {done.stderr}{done.stdout}"
    return done.stdout


def rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.strip().splitlines()]


def test_kubectl_is_on_path(kubectl_binary: str) -> None:
    done = subprocess.run([kubectl_binary, "version", "--client"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "Client Version" in done.stdout


def test_get_deployments_with_custom_columns(kubectl_binary: str, cluster: Served) -> None:
    columns = "NAME:.metadata.name,READY:.status.readyReplicas"
    printed = kubectl(kubectl_binary, cluster, "get", "deployments", "-o", f"custom-columns={columns}")
    assert rows(printed) == [["NAME", "READY"], [DEPLOYMENT, "2"]]


def test_get_prints_the_servers_table_columns(kubectl_binary: str, cluster: Served) -> None:
    pods = rows(kubectl(kubectl_binary, cluster, "get", "pods"))
    assert pods[0] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    by_name = {row[0]: row for row in pods[1:]}
    assert by_name[f"{BAD_RS}-56k26"][1:3] == ["0/1", "CrashLoopBackOff"]
    assert by_name[f"{BAD_RS}-lqmvr"][1:3] == ["1/1", "Running"]
    deployments = rows(kubectl(kubectl_binary, cluster, "get", "deployments"))
    assert deployments[0] == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert deployments[1][:4] == [DEPLOYMENT, "2/3", "3", "2"]
    nodes = rows(kubectl(kubectl_binary, cluster, "get", "nodes"))
    assert nodes[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert {row[1] for row in nodes[1:]} == {"Ready"} and len(nodes) == 5
    wide = rows(kubectl(kubectl_binary, cluster, "get", "pod", f"{BAD_RS}-lqmvr", "-o", "wide"))
    assert wide[0][:7] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    assert "gke-search-prod-a3-h100-pool-3e8a1f52-2lbn" in wide[1]


def test_rollout_undo_then_status_waits_for_ready_pods(kubectl_binary: str, cluster: Served) -> None:
    before = {p.metadata.uid for p in cluster.core.list_namespaced_pod(NS).items}
    undone = kubectl(kubectl_binary, cluster, "rollout", "undo", f"deployment/{DEPLOYMENT}")
    assert "rolled back" in undone
    waited = kubectl(
        kubectl_binary, cluster, "rollout", "status", f"deployment/{DEPLOYMENT}", "--timeout=20s"
    )
    assert "Waiting for deployment" in waited and "successfully rolled out" in waited

    # Through the Python client, as the bot verifies: the previous revision's ReplicaSet is back on top.
    sets = cluster.apps.list_namespaced_replica_set(NS).items
    revisions = {
        rs.metadata.name: rs.metadata.annotations["deployment.kubernetes.io/revision"] for rs in sets
    }
    assert revisions == {GOOD_RS: "13", BAD_RS: "12"}
    good = next(rs for rs in sets if rs.metadata.name == GOOD_RS)
    assert good.metadata.annotations["deployment.kubernetes.io/revision-history"] == "11"
    assert (good.spec.replicas, good.status.ready_replicas) == (3, 3)
    deployment = cluster.apps.read_namespaced_deployment(DEPLOYMENT, NS)
    assert deployment.metadata.annotations["deployment.kubernetes.io/revision"] == "13"
    args = deployment.spec.template.spec.containers[0].args
    assert args[args.index("--max-num-seqs") + 1] == "128"
    assert "pod-template-hash" not in deployment.spec.template.metadata.labels
    restored = cluster.api.sanitize_for_serialization(deployment.spec.template.spec)
    assert restored == cluster.api.sanitize_for_serialization(good.spec.template.spec)
    status = deployment.status
    assert status.observed_generation == deployment.metadata.generation
    assert (status.replicas, status.updated_replicas, status.available_replicas) == (3, 3, 3)
    progressing = next(c for c in status.conditions if c.type == "Progressing")
    assert progressing.reason == "NewReplicaSetAvailable"
    assert progressing.message == f'ReplicaSet "{GOOD_RS}" has successfully progressed.'

    pods = cluster.core.list_namespaced_pod(NS).items
    assert len(pods) == 3 and not before & {p.metadata.uid for p in pods}
    assert all(p.metadata.owner_references[0].name == GOOD_RS and _ready(p) for p in pods)
    assert all(p.metadata.name.startswith(f"{GOOD_RS}-") and p.spec.node_name for p in pods)
    assert [w.verb for w in cluster.standin.writes] == ["PATCH"]  # the controllers' writes are not requests


def test_rollout_status_of_a_settled_deployment_returns_at_once(kubectl_binary: str, cluster: Served) -> None:
    kubectl(kubectl_binary, cluster, "rollout", "undo", f"deployment/{DEPLOYMENT}")
    kubectl(kubectl_binary, cluster, "rollout", "status", f"deployment/{DEPLOYMENT}", "--timeout=20s")
    again = kubectl(kubectl_binary, cluster, "rollout", "status", f"deployment/{DEPLOYMENT}", "--timeout=5s")
    assert again.strip() == f'deployment "{DEPLOYMENT}" successfully rolled out'
    history = kubectl(kubectl_binary, cluster, "rollout", "history", f"deployment/{DEPLOYMENT}")
    assert [row[0] for row in rows(history)[2:]] == ["12", "13"]


def test_cordon_and_uncordon(kubectl_binary: str, cluster: Served) -> None:
    assert "cordoned" in kubectl(kubectl_binary, cluster, "cordon", NODE)
    node = _node(cluster)
    assert node["spec"]["unschedulable"] is True
    taints = [(t["key"], t["effect"]) for t in node["spec"]["taints"]]
    assert taints == [("node.kubernetes.io/unschedulable", "NoSchedule")]
    shown = {row[0]: row[1] for row in rows(kubectl(kubectl_binary, cluster, "get", "nodes"))[1:]}
    assert shown[NODE] == "Ready,SchedulingDisabled"
    assert "uncordoned" in kubectl(kubectl_binary, cluster, "uncordon", NODE)
    node = _node(cluster)
    assert "unschedulable" not in node["spec"] and "taints" not in node["spec"]
    patches: list[Any] = [w for w in cluster.standin.writes if w.verb == "PATCH"]
    assert [w.content_type for w in patches] == ["application/strategic-merge-patch+json"] * 2


def test_get_watch_prints_each_change_as_a_row(kubectl_binary: str, cluster: Served) -> None:
    cache = cluster.kubeconfig.parent / "cache"
    command = [
        kubectl_binary,
        f"--kubeconfig={cluster.kubeconfig}",
        f"--cache-dir={cache}",
        "get",
        "pods",
        "-w",
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as watching:
        assert watching.stdout is not None
        guard = threading.Timer(30, watching.kill)
        guard.start()
        try:
            printed = [watching.stdout.readline() for _ in range(4)]  # the header and three pods, listed
            # kubectl watches from the list's resourceVersion, so this change reaches it however soon it comes.
            cluster.core.delete_namespaced_pod(f"{BAD_RS}-s5mnh", NS)
            while (line := watching.stdout.readline()) and not (" Running " in line and "-s5mnh" not in line):
                printed.append(line)
            printed.append(line)
        finally:
            watching.kill()
            guard.cancel()
    shown = [row[:3] for row in rows("".join(printed))]
    assert shown[0] == ["NAME", "READY", "STATUS"] and len(shown) == 7
    assert shown[4] == [f"{BAD_RS}-s5mnh", "1/1", "Terminating"]
    replacement = shown[5][0]
    assert shown[5:] == [[replacement, "0/1", "ContainerCreating"], [replacement, "1/1", "Running"]]


def _node(cluster: Served) -> Any:
    """As JSON: the pack's nodeInfo lacks fields the typed client insists on (bootID, machineID)."""
    return as_json(cluster.core.read_node, NODE)


def _ready(pod: Any) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or [])
