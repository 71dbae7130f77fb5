"""Kubernetes: who the bot is in the cluster, which version, and every verb its tools and actions need.

Each verb is asked of the cluster's own authorizer with a SelfSubjectAccessReview, for the
namespaces the configuration's services run in (cluster-wide when none is named): a verb refused
here is evidence the triage will miss, or an approved action the API server would refuse.
"""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s

from bot.config import BotConfig
from bot.doctor.report import BackendReport, Finding
from bot.errors import ConfigError
from bot.settings import Settings
from bot.triage.backends import kube_client
from tools.kube_access import (
    ACTION_CHECKS,
    GATEWAY,
    READ_CHECKS,
    AccessCheck,
    AccessResult,
    check_access,
    for_namespace,
    whoami,
)
from tools.kubernetes import ROUTE_VERSIONS
from tools.result import Gap, Source, bounded


def namespaces(settings: Settings, config: BotConfig) -> list[str | None]:
    """Where the bot reads: its services' namespaces and the default one; None is cluster-wide."""
    named = {s.namespace for s in config.services if s.namespace} | (
        {settings.kubernetes_namespace} if settings.kubernetes_namespace else set()
    )
    found: list[str | None] = [*sorted(named)]
    return found or [None]


def _asked(checks: tuple[AccessCheck, ...], where: list[str | None]) -> list[AccessCheck]:
    asked: list[AccessCheck] = []
    for ns in where:
        for check in for_namespace(checks, ns) if ns else checks:
            if check not in asked:
                asked.append(check)
    return asked


def check_kubernetes(settings: Settings, config: BotConfig, *, timeout: float) -> BackendReport:
    try:
        api = kube_client(settings)
    except ConfigError as exc:
        return BackendReport.unusable("kubernetes", None, exc.message)
    if api is None:
        return BackendReport.absent("kubernetes", "no KUBERNETES_API_URL, KUBECONFIG or in-cluster account")
    try:
        return _check(settings, config, api, timeout)
    finally:
        api.close()


def _check(settings: Settings, config: BotConfig, api: Any, timeout: float) -> BackendReport:
    target = str(api.configuration.host)
    version = bounded(
        Source.KUBERNETES,
        "version",
        lambda: k8s.VersionApi(api).get_code(_request_timeout=timeout),
        timeout=timeout,
    )
    if isinstance(version, Gap):
        return BackendReport.unusable("kubernetes", target, f"version: {version.reason}")
    who = whoami(api, timeout=timeout)
    findings = [
        Finding(f"as {who.username}" if not isinstance(who, Gap) else f"identity unknown: {who.reason}")
    ]
    findings += _served(api, timeout)
    where = namespaces(settings, config)
    findings.append(
        Finding(
            f"credentials: {_credential(settings)}; checked in {', '.join(n or 'all namespaces' for n in where)}"
        )
    )
    reads = check_access(api, _asked(READ_CHECKS, where), timeout=timeout)
    if all(r.allowed is None for r in reads):
        return BackendReport.unusable(
            "kubernetes", target, f"access reviews could not be asked: {reads[0].reason}"
        )
    findings += _findings(reads, "the triage will miss")
    allowed = sum(bool(r.allowed) for r in reads)
    summary = f"Kubernetes {version.git_version}; {allowed} of {len(reads)} reads allowed"
    if not config.actions.enabled:
        findings.append(Finding("actions are disabled in the configuration: no write is checked"))
        return BackendReport.judged("kubernetes", target, summary, findings)
    token = (
        settings.kubernetes_actions_token.get_secret_value() if settings.kubernetes_actions_token else None
    )
    writer = kube_client(settings, token=token) if token else api
    try:
        acts = check_access(writer, _asked(ACTION_CHECKS, where), timeout=timeout)
    finally:
        if writer is not api:
            writer.close()
    findings += _findings(acts, "an approved action would be refused")
    summary += f", {sum(bool(r.allowed) for r in acts)} of {len(acts)} action verbs"
    return BackendReport.judged("kubernetes", target, summary, findings)


def _credential(settings: Settings) -> str:
    """Which credential the bot's client uses (the order of `kube_client`)."""
    if settings.kubernetes_api_url:
        return (
            "KUBERNETES_TOKEN" if settings.kubernetes_token else "none (KUBERNETES_API_URL without a token)"
        )
    if settings.kubeconfig is not None:
        return f"the kubeconfig {settings.kubeconfig}"
    return "the pod's service account"


def _served(api: Any, timeout: float) -> list[Finding]:
    """Which versions of the APIs the tools fall back between are served (API discovery)."""

    def discover() -> Any:
        return k8s.ApisApi(api).get_api_versions(_request_timeout=timeout)

    got = bounded(Source.KUBERNETES, "API discovery", discover, timeout=timeout)
    if isinstance(got, Gap):
        return [Finding(f"API discovery: {got.reason}", ok=False)]
    served = {g.name: [v.version for v in g.versions] for g in got.groups or []}
    gateway = served.get(GATEWAY)
    if not gateway:
        routes = "Gateway API not installed: routes come from Ingresses only"
    else:
        read = next((v for v in ROUTE_VERSIONS if v in gateway), gateway[0])
        routes = f"Gateway API {', '.join(gateway)} served: HTTPRoutes read as {read}"
    events = (
        "events read from events.k8s.io/v1"
        if "v1" in served.get("events.k8s.io", [])
        else "events read from core/v1 (events.k8s.io/v1 not served)"
    )
    return [Finding(routes), Finding(events)]


def _findings(results: list[AccessResult], consequence: str) -> list[Finding]:
    out = []
    for result in results:
        if result.allowed is False:
            out.append(Finding(f"cannot {result.check}: {consequence} ({result.check.why})", ok=False))
        elif result.allowed is None:
            out.append(Finding(f"could not ask about {result.check}: {result.reason}", ok=False))
    return out
