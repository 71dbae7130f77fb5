"""The Kubernetes deployment as `kubectl apply -k deploy/kubernetes` sends it: every object is valid
for the API, and the pieces fit the bot (probes on routes it serves, the port it listens on,
settings it reads, a read-only account for the pod and the actions' token from another one, a
budget over its own pods)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

import httpx
import kubernetes_validate
import pytest
import yaml
from pydantic import SecretStr

from bot.config import load_config
from bot.deps import build_deps
from bot.server import build_app
from bot.settings import Settings
from tests.support.deploy import (
    KUBERNETES,
    ROOT,
    Grant,
    bound_roles,
    command_params,
    grants_of,
    kustomize,
    last,
    roles_of,
)
from tests.support.live import serve_in_thread

# A schema set kubernetes-validate ships: the oldest Kubernetes release the manifests promise to
# fit (PodDisruptionBudget's unhealthyPodEvictionPolicy is GA since 1.31).
KUBERNETES_VERSION = "1.32.0"
NAMESPACE = "incident-bot"
ACTIONS_ACCOUNT = "incident-bot-actions"
READS = {"get", "list", "watch"}
# what a read-only account may still create: reviews of its own access (the doctor asks them)
SELF_REVIEWS = {
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("authentication.k8s.io", "selfsubjectreviews"),
}
Doc = dict[str, Any]


POSTGRESQL = ROOT / "deploy" / "kubernetes-postgresql"


@pytest.fixture(scope="module")
def rendered() -> list[Doc]:
    return kustomize()


@pytest.fixture(scope="module")
def replicated() -> list[Doc]:
    return kustomize(POSTGRESQL)


def secret_example() -> Doc:
    return yaml.safe_load((KUBERNETES / "secret.example.yaml").read_text())  # type: ignore[no-any-return]


def one(docs: list[Doc], kind: str, name: str | None = None) -> Doc:
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{kind} {name or ''}: {len(found)} rendered"
    return found[0]


def bot_container(docs: list[Doc]) -> Doc:
    (container,) = one(docs, "Deployment", "incident-bot")["spec"]["template"]["spec"]["containers"]
    return container  # type: ignore[no-any-return]


def receiver_url() -> SplitResult:
    """Where deploy/alertmanager/receiver.yaml sends the pages."""
    receiver = yaml.safe_load((ROOT / "deploy" / "alertmanager" / "receiver.yaml").read_text())
    bot = next(r for r in receiver["receivers"] if r["name"] == "incident-bot")
    return urlsplit(bot["webhook_configs"][0]["url"])


def setting_names() -> set[str]:
    return {name.upper() for name in Settings.model_fields}


def test_every_object_is_valid_for_the_api(rendered: list[Doc], replicated: list[Doc]) -> None:
    problems = []
    for doc in [*rendered, *replicated, secret_example()]:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            problems.append(f"{doc['kind']}/{doc['metadata']['name']}: {exc.message} at {list(exc.path)}")
    assert problems == []


def test_the_validation_is_strict(rendered: list[Doc]) -> None:
    """A misspelt field fails (strict mode), so the test above would catch one in the manifests."""
    deployment = copy.deepcopy(one(rendered, "Deployment", "incident-bot"))
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError, match="readinessprobe"):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


def test_the_kustomization_renders_every_part_in_one_namespace(rendered: list[Doc]) -> None:
    kinds = {(d["kind"], d["metadata"]["name"]) for d in rendered if d["kind"] != "ConfigMap"}
    assert kinds == {
        ("Namespace", NAMESPACE),
        ("ServiceAccount", "incident-bot"),
        ("ServiceAccount", "incident-bot-actions"),
        ("ServiceAccount", "incident-bot-gpu-agent"),
        ("ClusterRole", "incident-bot-read"),
        ("ClusterRole", "incident-bot-actions"),
        ("ClusterRole", "incident-bot-actions-nodes"),
        ("ClusterRoleBinding", "incident-bot-read"),
        ("RoleBinding", "incident-bot-actions"),
        ("ClusterRoleBinding", "incident-bot-actions-nodes"),
        ("ClusterRoleBinding", "incident-bot-actions-read"),
        ("Secret", "incident-bot-actions-token"),
        ("Deployment", "incident-bot"),
        ("Service", "incident-bot"),
        ("PodDisruptionBudget", "incident-bot"),
        ("PersistentVolumeClaim", "incident-bot-data"),
        ("DaemonSet", "incident-bot-gpu-agent"),
    }
    cluster_wide = {"Namespace", "ClusterRole", "ClusterRoleBinding"}
    elsewhere = {("RoleBinding", "incident-bot-actions")}  # in the serving namespaces, by design
    assert {
        d["metadata"].get("namespace")
        for d in rendered
        if d["kind"] not in cluster_wide and (d["kind"], d["metadata"]["name"]) not in elsewhere
    } == {NAMESPACE}
    assert all(d["metadata"]["labels"]["app.kubernetes.io/part-of"] == "incident-bot" for d in rendered)
    # the bot and the GPU agent run the one image the kustomization names
    agent = one(rendered, "DaemonSet")["spec"]["template"]["spec"]["containers"][0]
    assert agent["image"] == bot_container(rendered)["image"] != "incident-bot"


def test_the_probes_ask_routes_the_bot_serves(rendered: list[Doc], tmp_path: Path) -> None:
    """Each probe's path answers 200 from the bot's app, built with the ConfigMap's configuration."""
    container = bot_container(rendered)
    probes = {
        kind: container[kind]["httpGet"] for kind in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert probes["readinessProbe"]["path"] != probes["livenessProbe"]["path"]  # ready ≠ alive
    assert {p["port"] for p in probes.values()} <= {p["name"] for p in container["ports"]}
    config_file = tmp_path / "config.yaml"
    config_file.write_text(one(rendered, "ConfigMap")["data"]["config.yaml"])
    settings = Settings.model_validate({"database_url": f"sqlite:///{tmp_path / 'bot.db'}"})
    deps = build_deps(settings, config=load_config(config_file))
    try:
        deps.db.upgrade()
        with serve_in_thread(build_app(deps, run_worker=False)) as base:
            answers = {kind: httpx.get(base + probe["path"], timeout=30) for kind, probe in probes.items()}
            webhook = httpx.post(base + receiver_url().path, content=b"not a notification", timeout=30)
    finally:
        deps.close()
    assert {kind: r.status_code for kind, r in answers.items()} == dict.fromkeys(probes, 200)
    assert answers["readinessProbe"].json()["status"] == "ready"
    # the path Alertmanager posts to is the webhook: it reads the body (and refuses this one)
    assert webhook.status_code == 400 and "error" in webhook.json()


def test_the_ports_line_up_from_alertmanager_to_serve(rendered: list[Doc]) -> None:
    """receiver.yaml's URL → the Service → the container port → the port `serve` is told to use."""
    container = bot_container(rendered)
    assert container["args"][0] == "serve"
    params = command_params(container["args"])
    assert params["host"] == "0.0.0.0"  # serve's default, 127.0.0.1, would not take the Service's traffic
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": params["port"]}
    service = one(rendered, "Service", "incident-bot")
    (port,) = service["spec"]["ports"]
    assert ports[port["targetPort"]] == params["port"]
    url = receiver_url()
    assert url.hostname == f"{service['metadata']['name']}.{service['metadata']['namespace']}.svc"
    assert url.port == port["port"]
    assert url.path == "/webhooks/alertmanager"


@pytest.mark.parametrize("variant", ["rendered", "replicated"])
def test_the_environment_names_only_settings_the_bot_reads(
    variant: str, request: pytest.FixtureRequest
) -> None:
    container = bot_container(request.getfixturevalue(variant))
    named = {e["name"] for e in container["env"]}
    assert named <= setting_names(), f"not settings: {sorted(named - setting_names())}"
    (source,) = container["envFrom"]
    example = secret_example()
    assert source == {"secretRef": {"name": example["metadata"]["name"]}}
    # the keys it fills in and the ones it shows commented out
    text = (KUBERNETES / "secret.example.yaml").read_text()
    keys = set(example["stringData"]) | set(re.findall(r"^  # ([A-Z][A-Z0-9_]+):", text, flags=re.MULTILINE))
    assert keys <= setting_names(), f"not settings: {sorted(keys - setting_names())}"
    secret_fields = {n.upper() for n, f in Settings.model_fields.items() if SecretStr in _types(f.annotation)}
    plain = {e["name"] for e in container["env"] if "secretKeyRef" not in e.get("valueFrom", {})}
    assert secret_fields & plain == set(), "a secret setting comes from a Secret, never a plain value"
    assert all(v.startswith("example-") for v in example["stringData"].values())


def _types(annotation: object) -> set[object]:
    return {annotation, *getattr(annotation, "__args__", ())}


def test_the_configuration_comes_from_the_generated_configmap(rendered: list[Doc]) -> None:
    container = bot_container(rendered)
    path = Path(next(e["value"] for e in container["env"] if e["name"] == "INCIDENT_BOT_CONFIG"))
    pod = one(rendered, "Deployment", "incident-bot")["spec"]["template"]["spec"]
    mount = next(m for m in container["volumeMounts"] if m["mountPath"] == str(path.parent))
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    configmap = one(rendered, "ConfigMap", volume["configMap"]["name"])
    assert path.name in configmap["data"]


def test_the_pod_runs_as_the_images_non_root_user_on_a_read_only_root(rendered: list[Doc]) -> None:
    pod = one(rendered, "Deployment", "incident-bot")["spec"]["template"]["spec"]
    context = pod["securityContext"]
    user, group = (int(n) for n in last("USER").split(":"))
    assert context["runAsNonRoot"] is True
    assert (context["runAsUser"], context["runAsGroup"]) == (user, group) and user != 0
    container = bot_container(rendered)
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    volumes = {v["name"]: v for v in pod["volumes"]}
    writable = {
        m["mountPath"]: volumes[m["name"]] for m in container["volumeMounts"] if not m.get("readOnly")
    }
    assert "emptyDir" in writable["/tmp"]
    # the working directory holds the default SQLite file: a volume the pod keeps
    claim = writable[last("WORKDIR")]["persistentVolumeClaim"]["claimName"]
    one(rendered, "PersistentVolumeClaim", claim)


def pod_account(docs: list[Doc]) -> str:
    pod = one(docs, "Deployment", "incident-bot")["spec"]["template"]["spec"]
    assert pod.get("automountServiceAccountToken", True), "the triage reads with the pod's token"
    return pod["serviceAccountName"]  # type: ignore[no-any-return]


def writes_of(docs: list[Doc], account: str) -> set[Grant]:
    """What the account may do beyond reading (and reviewing its own access, where the read-only
    role grants that), through every rendered binding that reaches it."""
    return writes_through(docs, roles_of(docs, NAMESPACE, account))


def writes_through(docs: list[Doc], roles: set[tuple[str, str | None, str]]) -> set[Grant]:
    """What the roles grant beyond reading and the reviews of one's own access."""
    read_only = grants_of(docs, {("ClusterRole", None, "incident-bot-read")})
    reviews = {(g, r, "create") for g, r in SELF_REVIEWS} & read_only
    return {g for g in grants_of(docs, roles) if g[2] not in READS} - reviews


@pytest.mark.parametrize("variant", ["rendered", "replicated"])
def test_the_pods_account_only_reads(variant: str, request: pytest.FixtureRequest) -> None:
    """The triage runs as the pod's account: bound to the read-only role alone, no write reaches it."""
    docs = request.getfixturevalue(variant)
    account = pod_account(docs)
    one(docs, "ServiceAccount", account)
    assert roles_of(docs, NAMESPACE, account) == {("ClusterRole", None, "incident-bot-read")}
    assert writes_of(docs, account) == set()


def test_a_write_bound_to_the_pods_account_would_be_caught(rendered: list[Doc]) -> None:
    """The check above finds a write that reaches the account, here through a namespace's group."""
    binding = {
        "kind": "RoleBinding",
        "metadata": {"name": "too-much", "namespace": NAMESPACE},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": ACTIONS_ACCOUNT},
        "subjects": [{"kind": "Group", "name": f"system:serviceaccounts:{NAMESPACE}"}],
    }
    writes = writes_of([*rendered, binding], pod_account(rendered))
    assert ("apps", "deployments", "patch") in writes and ("", "pods", "delete") in writes


@pytest.mark.parametrize("variant", ["rendered", "replicated"])
def test_the_actions_write_with_their_own_accounts_token(
    variant: str, request: pytest.FixtureRequest
) -> None:
    """KUBERNETES_ACTIONS_TOKEN comes from the token Secret of an account that holds the actions' role
    and the read-only one (the actions read autoscalers and budgets, and what they act on)."""
    docs = request.getfixturevalue(variant)
    env = next(e for e in bot_container(docs)["env"] if e["name"] == "KUBERNETES_ACTIONS_TOKEN")
    assert "kubernetes_actions_token" in Settings.model_fields
    ref = env["valueFrom"]["secretKeyRef"]
    assert ref["key"] == "token" and ref["optional"] is False
    secret = one(docs, "Secret", ref["name"])
    assert secret["type"] == "kubernetes.io/service-account-token"
    assert "data" not in secret and "stringData" not in secret  # the token controller fills it
    account = secret["metadata"]["annotations"]["kubernetes.io/service-account.name"]
    assert account == ACTIONS_ACCOUNT != pod_account(docs)
    assert one(docs, "ServiceAccount", account)["metadata"]["namespace"] == secret["metadata"]["namespace"]
    # applied in this order: a token Secret whose account does not exist yet is deleted
    assert docs.index(one(docs, "ServiceAccount", account)) < docs.index(secret)
    roles = roles_of(docs, NAMESPACE, account)
    assert roles == {
        ("ClusterRole", None, "incident-bot-actions"),
        ("ClusterRole", None, "incident-bot-actions-nodes"),
        ("ClusterRole", None, "incident-bot-read"),
    }
    assert ("apps", "deployments/scale", "patch") in writes_of(docs, account)


@pytest.mark.parametrize("variant", ["rendered", "replicated"])
def test_the_actions_write_in_the_serving_namespaces_only(
    variant: str, request: pytest.FixtureRequest
) -> None:
    """The one write held cluster-wide is a node's cordon (nodes have no namespace); every other
    write is bound in the namespaces the bot's configuration serves, and nowhere else."""
    docs = request.getfixturevalue(variant)
    scopes: dict[str | None, set[Grant]] = {}
    for scope, role in bound_roles(docs, NAMESPACE, ACTIONS_ACCOUNT):
        scopes.setdefault(scope, set()).update(writes_through(docs, {role}))
    assert scopes.pop(None) == {("", "nodes", "patch")}
    config = yaml.safe_load(one(docs, "ConfigMap")["data"]["config.yaml"])
    serving = set(config["namespaces"]) | {s["namespace"] for s in config.get("services", [])}
    assert set(scopes) == serving and NAMESPACE not in serving
    for writes in scopes.values():
        assert ("apps", "deployments", "patch") in writes and ("", "pods", "delete") in writes
        assert ("", "nodes", "patch") not in writes


def test_the_budget_and_the_service_select_the_bots_pods_only(rendered: list[Doc]) -> None:
    bot = one(rendered, "Deployment", "incident-bot")["spec"]["template"]["metadata"]["labels"]
    agent = one(rendered, "DaemonSet")["spec"]["template"]["metadata"]["labels"]
    budget = one(rendered, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"]
    service = one(rendered, "Service", "incident-bot")["spec"]["selector"]
    for selector in (budget, service):
        assert selector.items() <= bot.items()
        assert not selector.items() <= agent.items()
    replicas = one(rendered, "Deployment", "incident-bot")["spec"]["replicas"]
    # never a budget that forbids every eviction of the default single replica
    assert one(rendered, "PodDisruptionBudget")["spec"].get("maxUnavailable", 0) >= 1 or replicas > 1


def test_the_postgresql_variant_runs_replicas_that_share_one_database(
    rendered: list[Doc], replicated: list[Doc]
) -> None:
    """Several replicas, rolled one at a time, no SQLite volume, and no start without DATABASE_URL."""
    deployment = one(replicated, "Deployment", "incident-bot")
    spec = deployment["spec"]
    assert spec["replicas"] >= 2 and spec["strategy"]["type"] == "RollingUpdate"
    assert not [d for d in replicated if d["kind"] == "PersistentVolumeClaim"]
    pod = spec["template"]["spec"]
    assert all("persistentVolumeClaim" not in v for v in pod["volumes"])
    (container,) = pod["containers"]
    url = next(e for e in container["env"] if e["name"] == "DATABASE_URL")
    assert url["valueFrom"]["secretKeyRef"] == {
        "name": secret_example()["metadata"]["name"],
        "key": "DATABASE_URL",
    }
    budget = one(replicated, "PodDisruptionBudget")["spec"]
    assert budget["maxUnavailable"] < spec["replicas"]  # a drain leaves a replica serving
    # everything else is the base's
    same = {
        (d["kind"], d["metadata"]["name"])
        for d in rendered
        if d["kind"] not in ("Deployment", "PersistentVolumeClaim")
    }
    assert {(d["kind"], d["metadata"]["name"]) for d in replicated if d["kind"] != "Deployment"} == same
