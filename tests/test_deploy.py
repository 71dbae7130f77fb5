"""The deployment examples: the Kubernetes role is read-only and covers every call the tool makes;
the Alertmanager example is a configuration Alertmanager itself accepts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
READ = {"get", "list", "watch"}


def rules() -> list[dict]:  # type: ignore[type-arg]
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / "rbac-readonly.yaml").read_text()))
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    return role["rules"]  # type: ignore[no-any-return]


def test_role_is_read_only() -> None:
    assert all(set(rule["verbs"]) <= READ for rule in rules())


def test_role_covers_every_kubernetes_call_of_the_tool() -> None:
    """Every list_* call in tools/kubernetes.py names a resource the role grants."""
    source = (ROOT / "tools" / "kubernetes.py").read_text()
    granted = {
        (group, resource) for rule in rules() for group in rule["apiGroups"] for resource in rule["resources"]
    }
    calls = set(re.findall(r"\.(list_[a-z_]+)", source))
    needed = {
        "list_namespaced_service": ("", "services"),
        "list_namespaced_pod": ("", "pods"),
        "list_namespaced_replica_set": ("apps", "replicasets"),
        "list_namespaced_deployment": ("apps", "deployments"),
        "list_node": ("", "nodes"),
        "list_namespaced_event": ("", "events"),
        "list_event_for_all_namespaces": ("", "events"),
        "list_namespaced_custom_object": ("gateway.networking.k8s.io", "httproutes"),
        "list_namespaced_ingress": ("networking.k8s.io", "ingresses"),
    }
    assert calls <= set(needed), f"a new call needs a rule: {sorted(calls - set(needed))}"
    assert {needed[c] for c in calls} <= granted


def test_alertmanager_accepts_the_receiver_example() -> None:
    amtool = shutil.which("amtool")
    assert amtool is not None, (
        "amtool comes with Debian's prometheus-alertmanager (scripts/test.sh installs it)"
    )
    config = ROOT / "deploy" / "alertmanager" / "receiver.yaml"
    result = subprocess.run([amtool, "check-config", str(config)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Found:" in result.stdout and "- 2 receivers" in result.stdout
