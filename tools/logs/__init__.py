"""Log evidence from Elasticsearch 8 and 9 or OpenSearch 2: error signatures, volume, status codes, search.

client = LogClient(url, timeout=5, api_key=key, backend="auto")
tool = LogTool(client, index="logs-*", fields="auto")
tool.error_signatures(LogScope(namespace="llm"), window)
"""

from tools.logs.client import BACKENDS, Flavour, LogClient, ServerInfo
from tools.logs.fields import ECS, FLAT, FLUENTBIT, PRESETS, FieldPreset, Fields, LogField
from tools.logs.probe import LogsProbe, probe_logs
from tools.logs.queries import PROBLEM_LEVELS, LogScope
from tools.logs.tool import FIELD_SETTINGS, LogTool


def connect(
    url: str, *, timeout: float = 5.0, api_key: str | None = None, backend: str = "auto"
) -> LogClient:
    """The client for the log cluster at `url` (its flavour is found on first use, or named by `backend`)."""
    return LogClient(url, timeout=timeout, api_key=api_key, backend=backend)


__all__ = [
    "BACKENDS",
    "ECS",
    "FIELD_SETTINGS",
    "FLAT",
    "FLUENTBIT",
    "PRESETS",
    "PROBLEM_LEVELS",
    "FieldPreset",
    "Fields",
    "Flavour",
    "LogClient",
    "LogField",
    "LogScope",
    "LogTool",
    "LogsProbe",
    "ServerInfo",
    "connect",
    "probe_logs",
]
