"""Rollouts by revision: rollbacks (kubectl's and a client's), restarts and template metadata, through
the real kubectl and the official client against the stand-in's Deployment controller.

The pack is the OOM after a max-num-seqs rollout: revision 11 ran `--max-num-seqs 128`, revision 12
(the one failing) runs 512, so `rollout undo` reuses revision 11's ReplicaSet as revision 13.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import kubernetes.client
import pytest
import yaml

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from bot.triage.changes import RISKY_CHANGES, Change, kinds
from tools.kube_rollouts import activated_at, rollout_evidence
from tools.kubernetes import KubeTool, Topology, api_client
from tools.result import Evidence, Window
from tools.templates import template_diff

NS = "search-llm"
DEPLOYMENT = "vllm-mistral-small-24b"
BAD_RS, GOOD_RS = f"{DEPLOYMENT}-ltd54hwn2", f"{DEPLOYMENT}-4zzfzmfkkq"


class Cluster:
    """The pack behind a loopback server: a kubeconfig for kubectl, the client and the tool."""

    def __init__(self, pack: Pack, folder: Path, url: str, standin: KubernetesStandIn) -> None:
        self.pack, self.standin = pack, standin
        self.api = api_client(url)
        self.apps = kubernetes.client.AppsV1Api(self.api)
        self.kube = KubeTool(self.api, timeout=5)
        self.kubeconfig = folder / "kubeconfig"
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "sandbox", "cluster": {"server": url}}],
            "users": [{"name": "sandbox", "user": {"token": "sandbox"}}],
            "contexts": [
                {"name": "sandbox", "context": {"cluster": "sandbox", "user": "sandbox", "namespace": NS}}
            ],
            "current-context": "sandbox",
        }
        self.kubeconfig.write_text(yaml.safe_dump(config))

    def kubectl(self, *args: str) -> str:
        binary = shutil.which("kubectl")
        assert binary, "kubectl is not on PATH: install Debian's kubernetes-client (scripts/lib.sh does)"
        cache = self.kubeconfig.parent / "cache"
        command = [binary, f"--kubeconfig={self.kubeconfig}", f"--cache-dir={cache}", *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr + done.stdout
        return done.stdout

    def rollout(self) -> Evidence:
        topo = self.kube.topology(NS)
        assert isinstance(topo, Topology)
        window = Window.around(self.pack.alert.alerts[0].startsAt, self.pack.meta.as_of)
        found = self.kube.rollouts(topo, window, [DEPLOYMENT]).evidence
        assert len(found) == 1
        return found[0]


@pytest.fixture
def cluster(rollout_pack: Pack, tmp_path: Path) -> Iterator[Cluster]:
    standin = KubernetesStandIn(
        rollout_pack.objects, now=lambda: rollout_pack.meta.as_of, pod_ready_seconds=0
    )
    with ServerThread(standin.app) as server:
        running = Cluster(rollout_pack, tmp_path, server.url, standin)
        try:
            yield running
        finally:
            standin.close()
            running.api.close()


def test_the_recorded_rollout_is_revision_12_and_not_a_rollback(cluster: Cluster) -> None:
    rollout = cluster.rollout()
    assert rollout.labels["rollback"] == "false" and rollout.labels["replicaset"] == BAD_RS
    assert rollout.labels["previous_replicaset"] == GOOD_RS and rollout.value == 12
    assert "--max-num-seqs 128 → 512" in rollout.labels["changes"]


def test_kubectl_rollout_undo_shows_as_a_rollback_with_revision_and_changes(cluster: Cluster) -> None:
    assert "rolled back" in cluster.kubectl("rollout", "undo", f"deployment/{DEPLOYMENT}")
    rollout = cluster.rollout()
    labels = rollout.labels
    assert (labels["rollback"], labels["revision"], labels["revision_history"]) == ("true", "13", "11")
    assert (labels["replicaset"], labels["previous_replicaset"]) == (GOOD_RS, BAD_RS)
    assert labels["changes"] == "--max-num-seqs 512 → 128"  # against the template it replaced
    assert rollout.value == 13 and rollout.id == f"k8s:rollout:{NS}/{DEPLOYMENT}:13"
    # dated by the controller's own event: the ReplicaSet's creationTimestamp is months old
    assert labels["dated_by"] == "event ScalingReplicaSet"
    assert rollout.onset == cluster.pack.meta.as_of
    assert (
        f"rolled back at {rollout.onset:%H:%M:%S}Z to revision 13 (template of {GOOD_RS}" in rollout.summary
    )
    assert "revision 11 before" in rollout.summary


def test_a_template_patch_back_to_an_old_template_is_the_same_rollback(cluster: Cluster) -> None:
    """What the bot's rollback_deployment writes: the old ReplicaSet's template, by the client."""
    good = cluster.apps.read_namespaced_replica_set(GOOD_RS, NS)
    template = cluster.api.sanitize_for_serialization(good.spec.template)
    del template["metadata"]["labels"]["pod-template-hash"]
    ops = [{"op": "replace", "path": "/spec/template", "value": template}]
    cluster.apps.patch_namespaced_deployment(DEPLOYMENT, NS, ops)
    sets = {rs.metadata.name for rs in cluster.apps.list_namespaced_replica_set(NS).items}
    assert sets == {GOOD_RS, BAD_RS}  # reused, not made anew
    rollout = cluster.rollout()
    assert rollout.labels["rollback"] == "true" and rollout.labels["revision"] == "13"


def test_kubectl_rollout_restart_is_a_restart_not_no_change(cluster: Cluster) -> None:
    cluster.kubectl("rollout", "restart", f"deployment/{DEPLOYMENT}")
    rollout = cluster.rollout()
    changes = rollout.labels["changes"]
    assert changes.startswith("restart (kubectl rollout restart at ") and " | " not in changes
    assert rollout.labels["rollback"] == "false" and rollout.value == 13
    assert "no template change" not in rollout.summary
    assert kinds(changes) == {Change.UNRELATED}  # a restart never makes a rollout risky
    assert not kinds(changes) & RISKY_CHANGES


def test_template_metadata_env_sources_and_removed_containers_are_changes() -> None:
    def rs(annotations: dict[str, str], labels: dict[str, str], env: list[dict], sidecar: bool) -> dict:  # type: ignore[type-arg]
        containers = [{"name": "engine", "image": "vllm:1", "env": env}]
        containers += [{"name": "proxy", "image": "envoy:1"}] if sidecar else []
        meta = {"annotations": annotations, "labels": labels}
        return {"spec": {"template": {"metadata": meta, "spec": {"containers": containers}}}}

    secret = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}
    rotated = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf2", "key": "token"}}}
    old = rs({"team": "a"}, {"app": "x", "pod-template-hash": "abc"}, [secret], True)
    new = rs(
        {"team": "b", "prometheus.io/scrape": "true"},
        {"app": "x", "pod-template-hash": "def"},
        [rotated],
        False,
    )
    changes = template_diff(old, new)
    assert changes[0].startswith("env HF_TOKEN ") and "hf2" in changes[0]
    assert changes[1:] == [
        "container proxy removed",
        "template annotation prometheus.io/scrape added true",
        "template annotation team a → b",
    ]
    assert kinds(" | ".join(changes[2:])) == {Change.UNRELATED}


def _rs(name: str, revision: int, created: str, **annotations: str) -> dict:  # type: ignore[type-arg]
    meta = {
        "name": name,
        "creationTimestamp": created,
        "ownerReferences": [{"kind": "Deployment", "name": "d"}],
    }
    meta["annotations"] = {"deployment.kubernetes.io/revision": str(revision), **annotations}
    return {"metadata": meta, "spec": {"template": {"spec": {"containers": [{"name": "c", "image": name}]}}}}


OLD = _rs("d-old", 3, "2026-01-01T00:00:00Z", **{"deployment.kubernetes.io/revision-history": "1"})
NEW = _rs("d-new", 2, "2026-06-01T00:00:00Z")
WINDOW = Window(start=datetime(2026, 6, 2, 10, tzinfo=UTC), as_of=datetime(2026, 6, 2, 12, tzinfo=UTC))


def test_a_rollback_is_dated_by_the_template_write_then_the_progressing_condition() -> None:
    written = {
        "metadata": {
            "name": "d",
            "managedFields": [
                {
                    "manager": "kubectl-rollout",
                    "operation": "Update",
                    "time": "2026-06-02T11:00:00Z",
                    "fieldsV1": {"f:spec": {"f:template": {}}},
                },
                {
                    "manager": "kube-controller-manager",
                    "subresource": "status",
                    "time": "2026-06-02T11:05:00Z",
                    "fieldsV1": {"f:status": {}},
                },
            ],
        }
    }
    exact = activated_at(written, OLD, NEW, [])
    assert exact is not None and exact.exact and exact.at == datetime(2026, 6, 2, 11, tzinfo=UTC)
    progressing = {
        "type": "Progressing",
        "reason": "NewReplicaSetAvailable",
        "message": 'ReplicaSet "d-old" has successfully progressed.',
        "lastUpdateTime": "2026-06-02T11:02:00Z",
    }
    condition = {"metadata": {"name": "d"}, "status": {"conditions": [progressing]}}
    bound = activated_at(condition, OLD, NEW, [])
    assert bound is not None and not bound.exact and bound.at.minute == 2
    found = rollout_evidence(condition, [OLD, NEW], WINDOW, namespace="n")
    assert found is not None and "rolled back by 11:02:00Z" in found.summary
    assert found.labels["previous_replicaset"] == "d-new" and "image d-new → d-old" in found.labels["changes"]


def test_a_rollback_nothing_dates_or_dated_before_the_window_is_not_reported() -> None:
    assert rollout_evidence({"metadata": {"name": "d"}}, [OLD, NEW], WINDOW, namespace="n") is None
    early = {"type": "Progressing", "message": '"d-old"', "lastUpdateTime": "2026-06-01T12:00:00Z"}
    before = {"metadata": {"name": "d"}, "status": {"conditions": [early]}}
    assert rollout_evidence(before, [OLD, NEW], WINDOW, namespace="n") is None
    # an event from the ReplicaSet's first life, long before the one it replaced, does not date it
    first_life = {
        "reason": "ScalingReplicaSet",
        "involvedObject": {"kind": "Deployment", "name": "d"},
        "message": "Scaled up replica set d-old from 0 to 2",
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:00Z",
    }
    assert activated_at({"metadata": {"name": "d"}}, OLD, NEW, [first_life]) is None
    again = first_life | {"count": 2, "lastTimestamp": (WINDOW.as_of - timedelta(minutes=30)).isoformat()}
    dated = activated_at({"metadata": {"name": "d"}}, OLD, NEW, [again])
    assert dated is not None and dated.at == WINDOW.as_of - timedelta(minutes=30)


def test_a_canary_deployments_failing_pods_do_not_make_the_stable_rollout_theirs() -> None:
    """The rollout rule ties failing pods to a rollout by the pod-name shape, not a name prefix."""
    from bot.triage.findings import Finding
    from bot.triage.rollout_rule import failing_rollout
    from tools.result import Source

    def rollout(deployment: str, changes: str, minute: int) -> Evidence:
        at = WINDOW.start + timedelta(minutes=minute)
        labels = {"kind": "rollout", "deployment": deployment, "changes": changes}
        return Evidence(
            id=f"k8s:rollout:{deployment}",
            source=Source.KUBERNETES,
            query="q",
            summary="s",
            onset=at,
            labels=labels,
        )

    stable = rollout("vllm", "env VLLM_LOGGING_LEVEL INFO → DEBUG", 2)
    canary = rollout("vllm-canary", "--max-num-seqs 128 → 512", 1)
    failing = Finding(
        code="INF_GPU_OOM", onset=WINDOW.start, strength=0.8, evidence=[], source=Source.KUBERNETES
    )
    failing.add_target("pod", "vllm-canary-7d9f8c6b5-zx9kq")
    assert failing_rollout([canary, stable], [failing]) is canary
    failing.targets["pod"] = {"vllm-7d9f8c6b5-zx9kq"}
    assert failing_rollout([canary, stable], [failing]) is stable
