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
        "list_cluster_custom_object": ("gateway.networking.k8s.io", "httproutes"),
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


def gpu_agent_docs() -> list[dict]:  # type: ignore[type-arg]
    return list(yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / "gpu-agent.yaml").read_text()))


def test_the_role_lets_the_bot_find_the_gpu_agents() -> None:
    """The GPU tool lists the agent DaemonSet's pods; the read-only role grants that."""
    source = (ROOT / "tools" / "gpu" / "agents.py").read_text()
    assert set(re.findall(r"\.(list_[a-z_]+)", source)) == {"list_namespaced_pod"}
    assert any("" in r["apiGroups"] and "pods" in r["resources"] and "list" in r["verbs"] for r in rules())


def test_the_gpu_agent_daemonset_is_what_the_bot_looks_for() -> None:
    from bot.cli.gpu_agent import DEFAULT_PORT
    from bot.settings import Settings

    defaults = Settings.model_validate({})
    daemonset = next(d for d in gpu_agent_docs() if d["kind"] == "DaemonSet")
    assert daemonset["metadata"]["namespace"] == defaults.gpu_agent_namespace
    pod = daemonset["spec"]["template"]
    key, value = defaults.gpu_agent_selector.split("=")
    assert pod["metadata"]["labels"][key] == value == daemonset["spec"]["selector"]["matchLabels"][key]
    spec = pod["spec"]
    assert spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    (container,) = spec["containers"]
    assert container["args"][0] == "gpu-agent"
    assert container["ports"] == [{"name": "http", "containerPort": DEFAULT_PORT, "protocol": "TCP"}]
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert (
        env["NVIDIA_VISIBLE_DEVICES"]["value"] == "all"
        and env["NVIDIA_DRIVER_CAPABILITIES"]["value"] == "utility"
    )
    resources = container["resources"]
    assert not any("nvidia.com/gpu" in resources.get(k, {}) for k in ("requests", "limits"))  # takes no card
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["automountServiceAccountToken"] is False


def test_kubectl_decodes_the_gpu_agent_manifest() -> None:
    """kubectl decodes every object into the API's types offline (a wrong type or kind fails)."""
    kubectl = shutil.which("kubectl")
    assert kubectl is not None, "kubectl comes with Debian's kubernetes-client (scripts/test.sh installs it)"
    manifest = ROOT / "deploy" / "kubernetes" / "gpu-agent.yaml"
    result = subprocess.run(
        [kubectl, "label", "--local", "-f", str(manifest), "checked=true", "-o", "name"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "serviceaccount/incident-bot-gpu-agent",
        "daemonset.apps/incident-bot-gpu-agent",
    ]
