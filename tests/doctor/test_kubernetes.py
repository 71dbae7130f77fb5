"""doctor's Kubernetes check through the official client against the stand-in's authorizer: who the
bot is, and which of the tools' and actions' verbs the cluster would refuse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from bot.config import BotConfig, Service
from bot.doctor.kube import check_kubernetes
from bot.doctor.report import Verdict
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.kubernetes.apis import AccessPolicy, AccessRule, ServedApis, namespace_reader, read_only
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from bot.settings import Settings
from bot.triage.backends import kube_client
from tools.kube_access import Identity, whoami

READER = "system:serviceaccount:incident-bot:incident-bot"
WRITER = "system:serviceaccount:incident-bot:incident-bot-actions"


@pytest.fixture
def url(example: Pack) -> Iterator[str]:
    access = {
        "read": read_only(READER),
        "write": AccessPolicy(WRITER, (AccessRule(("*",)),)),
        "one-ns": namespace_reader("support-bot"),
    }
    standin = KubernetesStandIn(example.objects, apis=ServedApis(access=access))
    with ServerThread(standin.app) as server:
        yield server.url
        standin.close()


def settings(url: str, token: str, actions_token: str | None = None) -> Settings:
    return Settings(
        kubernetes_api_url=url,
        kubernetes_token=token,
        kubernetes_actions_token=actions_token,
        kubernetes_namespace="support-bot",
    )


def test_read_only_token_with_an_actions_token_is_ok(url: str) -> None:
    report = check_kubernetes(settings(url, "read", "write"), BotConfig(), timeout=5)
    assert report.verdict is Verdict.OK, [f.text for f in report.findings]
    assert report.summary.startswith("Kubernetes v1.")
    assert "reads allowed" in report.summary and "action verbs" in report.summary
    assert report.findings[0].text == f"as {READER}"


def test_without_an_actions_token_every_write_is_named(url: str) -> None:
    report = check_kubernetes(settings(url, "read"), BotConfig(), timeout=5)
    assert report.verdict is Verdict.LIMITED
    refused = [f.text for f in report.findings if f.ok is False]
    assert refused and all("an approved action would be refused" in t for t in refused)
    assert any(t.startswith("cannot patch nodes cluster-wide") for t in refused)
    assert any(t.startswith("cannot create pods/eviction in support-bot") for t in refused)


def test_a_namespace_bound_role_misses_the_cluster_wide_reads(url: str) -> None:
    config = BotConfig(
        services=[Service(name="support", namespace="support-bot")], actions={"enabled": False}
    )
    report = check_kubernetes(settings(url, "one-ns"), config, timeout=5)
    assert report.verdict is Verdict.LIMITED
    refused = [f.text for f in report.findings if f.ok is False]
    assert any("list httproutes.gateway.networking.k8s.io cluster-wide" in t for t in refused), refused
    assert not any("in support-bot" in t for t in refused)  # its own namespace is readable
    assert any("actions are disabled" in f.text for f in report.findings)


def test_unknown_token_or_no_cluster(url: str) -> None:
    refused = check_kubernetes(settings(url, "nope"), BotConfig(), timeout=5)
    assert refused.verdict is Verdict.UNUSABLE and "401" in refused.summary
    down = check_kubernetes(settings("http://127.0.0.1:9", "read"), BotConfig(), timeout=2)
    assert down.verdict is Verdict.UNUSABLE and "connection refused" in down.summary
    alone = Settings(kubernetes_in_cluster=False)
    assert check_kubernetes(alone, BotConfig(), timeout=2).verdict is Verdict.NOT_CONFIGURED


@pytest.mark.parametrize(
    ("apis", "routes", "events"),
    [
        (ServedApis(), "Gateway API v1 served: HTTPRoutes read as v1", "events read from events.k8s.io/v1"),
        (
            ServedApis(httproute_versions=("v1beta1",), events_v1=False),
            "Gateway API v1beta1 served: HTTPRoutes read as v1beta1",
            "events read from core/v1 (events.k8s.io/v1 not served)",
        ),
        (
            ServedApis(httproute_versions=()),
            "Gateway API not installed: routes come from Ingresses only",
            "events read from events.k8s.io/v1",
        ),
    ],
)
def test_which_route_and_event_apis_the_cluster_serves(
    example: Pack, apis: ServedApis, routes: str, events: str
) -> None:
    gateway = "gateway.networking.k8s.io/"
    objects = [
        o for o in example.objects if apis.httproute_versions or not o["apiVersion"].startswith(gateway)
    ]
    standin = KubernetesStandIn(objects, apis=apis)
    with ServerThread(standin.app) as server:
        report = check_kubernetes(Settings(kubernetes_api_url=server.url), BotConfig(), timeout=5)
    standin.close()
    texts = [f.text for f in report.findings]
    assert routes in texts and events in texts, texts


def kubeconfig(folder: Path, url: str, token: str) -> Path:
    path = folder / "kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": url}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
    }
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_actions_token_replaces_the_kubeconfig_user(url: str, tmp_path: Path) -> None:
    """A bot reading through a kubeconfig (or its pod's account) writes as the actions' account
    when it has that token: the triage's reads never carry write access."""
    settings = Settings(kubeconfig=kubeconfig(tmp_path, url, "read"), kubernetes_actions_token="write")
    reader = whoami(kube_client(settings), timeout=5)
    writer = whoami(kube_client(settings, token="write"), timeout=5)
    assert isinstance(reader, Identity) and reader.username == READER
    assert isinstance(writer, Identity) and writer.username == WRITER
