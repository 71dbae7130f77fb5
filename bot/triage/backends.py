"""The evidence tools one triage engine uses, built once from the settings.

Every backend is reached through its official client at the URL the settings give (the sandbox
prints such settings for a pack); a backend that is not configured is simply absent, and the
triage names it as a gap. GPU state comes from the GPU agents on the nodes (`gpu-agent`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.config import BotConfig
from bot.errors import ConfigError
from bot.settings import Settings
from tools.gpu import GpuTool, PodAgents, StaticAgents, parse_agent_urls
from tools.kubernetes import KubeTool, api_client
from tools.logs import LogTool
from tools.logs import connect as logs_connect
from tools.prometheus import PrometheusTool
from tools.prometheus import connect as prom_connect
from tools.signals import Catalog


@dataclass
class Backends:
    """The evidence tools; None where a backend is not configured."""

    prometheus: PrometheusTool | None = None
    logs: LogTool | None = None
    kube: KubeTool | None = None
    gpu: GpuTool | None = None
    default_namespace: str | None = None  # when neither the incident nor its alerts name one
    signals: list[str] = field(default_factory=list)  # catalog signals to read; empty: all
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Close the clients' connection pools."""
        for close in self.closers:
            close()
        self.closers.clear()


def live_backends(settings: Settings, config: BotConfig, catalog: Catalog) -> Backends:
    """The tools for the configured backends (environment first, then the YAML's `backends`)."""
    timeout = settings.tool_timeout_seconds
    prom_url = settings.prometheus_url or config.backends.prometheus_url
    es_url = settings.elasticsearch_url or config.backends.elasticsearch_url
    backends = Backends(default_namespace=settings.kubernetes_namespace)
    if prom_url:
        backends.prometheus = PrometheusTool(
            prom_connect(prom_url, timeout=timeout), catalog, link_base=prom_url, timeout=timeout
        )
    if es_url:
        key = settings.elasticsearch_api_key.get_secret_value() if settings.elasticsearch_api_key else None
        es = logs_connect(es_url, timeout=timeout, api_key=key, backend=settings.logs_backend or "auto")
        backends.logs = LogTool(
            es,
            index=settings.logs_index or config.backends.logs_index,
            timeout=timeout,
            kibana_url=settings.kibana_url,
            fields=settings.logs_fields or "auto",
        )
        backends.closers.append(es.close)
    kube = kube_client(settings)
    if kube is not None:
        backends.kube = KubeTool(kube, timeout=timeout)
        backends.closers.append(kube.close)
    backends.gpu = gpu_tool(settings, kube, timeout=timeout)
    if backends.gpu is not None:
        backends.closers.append(backends.gpu.close)
    return backends


def gpu_tool(settings: Settings, kube: Any, *, timeout: float) -> GpuTool | None:
    """The GPU agents: GPU_AGENT_URLS when given, else the DaemonSet's pods through the Kubernetes
    API, else none (a named gap). The bot never reads NVML itself: it does not run on GPU nodes."""
    if settings.gpu_agent_urls:
        try:
            urls = parse_agent_urls(settings.gpu_agent_urls)
        except ValueError as exc:
            raise ConfigError(f"GPU_AGENT_URLS: {exc}") from exc
        return GpuTool(StaticAgents(urls), timeout=timeout)
    if kube is None:
        return None
    agents = PodAgents(kube, namespace=settings.gpu_agent_namespace, selector=settings.gpu_agent_selector)
    return GpuTool(agents, timeout=timeout)


def kube_client(settings: Settings, *, token: str | None = None) -> Any:
    """An explicit API URL, else KUBECONFIG, else the in-cluster service account, else none (a gap).

    Never a developer's ~/.kube/config by surprise: the bot talks to the cluster it is told about.
    `token` replaces the configured one (the actions' own service account, when it has one).
    """
    if settings.kubernetes_api_url:
        given = settings.kubernetes_token.get_secret_value() if settings.kubernetes_token else None
        return api_client(settings.kubernetes_api_url, token=token or given)
    from kubernetes import client, config

    configuration = client.Configuration()
    if settings.kubeconfig is not None:
        try:
            config.load_kube_config(config_file=str(settings.kubeconfig), client_configuration=configuration)  # type: ignore[no-untyped-call]
        except (config.ConfigException, OSError) as exc:
            raise ConfigError(f"KUBECONFIG {settings.kubeconfig}: {exc}") from exc
        return client.ApiClient(_with_token(configuration, token))
    if not settings.kubernetes_in_cluster:
        return None
    try:
        # With a token of its own (the actions' account), the pod's token is neither used nor refreshed.
        config.load_incluster_config(client_configuration=configuration, try_refresh_token=token is None)  # type: ignore[no-untyped-call]
    except config.ConfigException:
        return None
    return client.ApiClient(_with_token(configuration, token))


def _with_token(configuration: Any, token: str | None) -> Any:
    """The configuration authenticating with `token` instead of what it was loaded with."""
    if token:
        configuration.api_key = {"BearerToken": f"Bearer {token}"}
        configuration.api_key_prefix = {}
        configuration.refresh_api_key_hook = None
        configuration.username = configuration.password = None
        configuration.cert_file = configuration.key_file = None
    return configuration
