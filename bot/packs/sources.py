"""The live backends an export reads: the triage's own clients, built from the same settings.

Built with the helpers `live_backends` uses (bot.triage.backends, tools.*), so an export reads
exactly where the triage read; a backend that is not configured is None, and its file a gap.
The Prometheus client is the raw one (an export reads stored samples, not signal evidence), the
Kubernetes one the API client (an export lists Events too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.config import BotConfig
from bot.settings import Settings
from bot.triage.backends import gpu_tool, kube_client
from tools.gpu import GpuTool
from tools.logs import LogTool
from tools.logs import connect as logs_connect
from tools.prometheus import PromQLClient
from tools.prometheus import connect as prom_connect


@dataclass
class Sources:
    prometheus: PromQLClient | None
    logs: LogTool | None
    logs_index: str
    kube: Any  # kubernetes.client.ApiClient
    gpu: GpuTool | None
    timeout: float
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for close in self.closers:
            close()
        self.closers.clear()


def open_sources(settings: Settings, config: BotConfig) -> Sources:
    """Environment first, then the configuration file's `backends`, as the triage reads them."""
    timeout = settings.tool_timeout_seconds * 4  # an export reads more than one triage call
    prom_url = settings.prometheus_url or config.backends.prometheus_url
    es_url = settings.elasticsearch_url or config.backends.elasticsearch_url
    index = settings.logs_index or config.backends.logs_index
    sources = Sources(
        prometheus=prom_connect(prom_url, timeout=timeout) if prom_url else None,
        logs=None,
        logs_index=index,
        kube=kube_client(settings),
        gpu=None,
        timeout=timeout,
    )
    if es_url:
        key = settings.elasticsearch_api_key.get_secret_value() if settings.elasticsearch_api_key else None
        es = logs_connect(es_url, timeout=timeout, api_key=key, backend=settings.logs_backend or "auto")
        sources.logs = LogTool(es, index=index, timeout=timeout, fields=settings.logs_fields or "auto")
        sources.closers.append(es.close)
    if sources.kube is not None:
        sources.closers.append(sources.kube.close)
    sources.gpu = gpu_tool(settings, sources.kube, timeout=timeout)
    if sources.gpu is not None:
        sources.closers.append(sources.gpu.close)
    return sources
