"""The bot's rollback leaves the cluster as `kubectl rollout undo` does: two copies of a pack's
cluster, one rolled back by the real kubectl, one by the executor; their deployments, ReplicaSets
(revisions, templates, replicas) and pods' templates then agree, and `kubectl rollout status`
sees the bot's rollback complete."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import kubernetes.client as k8s
import yaml

from bot.actions.catalog import ActionKind
from bot.actions.executors import Limits, executor_for
from bot.actions.kube import KubeActions
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.server import ServerThread
from tests.actions.conftest import expected_target, pack_for
from tools.kubernetes import api_client

KIND = "rollback_deployment"
VOLATILE = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation")


def kubectl(url: str, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("kubectl")
    assert binary is not None, (
        "kubectl is not installed (Debian: kubernetes-client); scripts/test.sh installs it"
    )
    config = folder / "kubeconfig"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "standin", "cluster": {"server": url}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "standin", "user": "u"}}],
                "current-context": "c",
            }
        )
    )
    return subprocess.run(
        [binary, "--kubeconfig", str(config), *args], capture_output=True, text=True, timeout=60, check=False
    )


def state(url: str, namespace: str, name: str) -> dict[str, Any]:
    """The deployment, its ReplicaSets and its pods' template hashes, without what the server stamps."""
    api = api_client(url)
    apps, core = k8s.AppsV1Api(api), k8s.CoreV1Api(api)

    def raw(call: Any, *args: Any) -> dict[str, Any]:
        return dict(json.loads(call(*args, _preload_content=False).data))

    def clean(obj: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in obj["metadata"].items() if k not in VOLATILE}
        meta["ownerReferences"] = [
            {k: v for k, v in r.items() if k != "uid"} for r in meta.get("ownerReferences") or []
        ]
        return {"metadata": meta, "spec": obj.get("spec")}

    deployment = raw(apps.read_namespaced_deployment, name, namespace)
    replicasets = [
        clean(rs)
        for rs in raw(apps.list_namespaced_replica_set, namespace)["items"]
        if any(r.get("name") == name for r in rs["metadata"].get("ownerReferences") or [])
    ]
    pods = sorted(
        str(p["metadata"]["labels"].get("pod-template-hash"))
        for p in raw(core.list_namespaced_pod, namespace)["items"]
        if not p["metadata"].get("deletionTimestamp")
    )
    api.close()
    return {"deployment": clean(deployment), "replicasets": sorted(replicasets, key=str), "pods": pods}


def flat(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in flat(item, f"{path}.{key}").items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in flat(item, f"{path}[{i}]").items()}
    return {path: value}


def test_the_bot_rolls_back_as_kubectl_rollout_undo_does(tmp_path: Path) -> None:
    pack, action = pack_for(KIND), expected_target(KIND)
    name, namespace = action.target.split("/", 1)[1], str(action.namespace)
    by_kubectl, by_bot = KubernetesStandIn(pack.objects), KubernetesStandIn(pack.objects)
    try:
        with ServerThread(by_kubectl.app) as one, ServerThread(by_bot.app) as other:
            undone = kubectl(one.url, tmp_path, "-n", namespace, "rollout", "undo", f"deployment/{name}")
            assert undone.returncode == 0, undone.stderr
            kube = KubeActions(api_client(other.url))
            executor = executor_for(
                ActionKind.ROLLBACK_DEPLOYMENT, kube, Limits(verify_seconds=20, poll_seconds=0.1)
            )
            plan = executor.plan(action, actor="U0BOB", incident_id=1)
            written = executor.write(plan, dry_run=False)
            assert executor.verify(plan, written).ok
            status = kubectl(
                other.url,
                tmp_path,
                "-n",
                namespace,
                "rollout",
                "status",
                f"deployment/{name}",
                "--timeout=20s",
            )
            assert status.returncode == 0 and "successfully rolled out" in status.stdout, (
                status.stdout + status.stderr
            )
            done = kubectl(
                one.url, tmp_path, "-n", namespace, "rollout", "status", f"deployment/{name}", "--timeout=20s"
            )
            assert done.returncode == 0, done.stderr
            kube.close()
            deadline = time.monotonic() + 10  # both rollouts settle (the controllers finish their work)
            while (
                state(other.url, namespace, name) != state(one.url, namespace, name)
                and time.monotonic() < deadline
            ):
                time.sleep(0.1)
            mine, theirs = flat(state(other.url, namespace, name)), flat(state(one.url, namespace, name))
            assert mine == theirs, {
                k: (mine.get(k), theirs.get(k))
                for k in set(mine) ^ set(theirs)
                | {k for k in set(mine) & set(theirs) if mine[k] != theirs[k]}
            }
    finally:
        by_kubectl.close()
        by_bot.close()
