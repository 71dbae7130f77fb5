"""Logs: Elasticsearch or OpenSearch, which version and licence, and which field preset the index
matches (so whether signatures come from `categorize_text` or are mined from a sample)."""

from __future__ import annotations

from bot.config import BotConfig
from bot.doctor.report import BackendReport, Finding
from bot.settings import Settings
from tools.logs.probe import probe_logs


def check_logs(settings: Settings, config: BotConfig, *, timeout: float) -> BackendReport:
    url = settings.elasticsearch_url or config.backends.elasticsearch_url
    if not url:
        return BackendReport.absent("logs", "ELASTICSEARCH_URL unset: no log evidence")
    index = settings.logs_index or config.backends.logs_index
    key = settings.elasticsearch_api_key.get_secret_value() if settings.elasticsearch_api_key else None
    found = probe_logs(
        url,
        index=index,
        api_key=key,
        timeout=timeout,
        backend=settings.logs_backend or "auto",
        fields=settings.logs_fields or "auto",
    )
    if found.error is not None:
        return BackendReport.unusable("logs", url, found.error)
    name = {"elasticsearch": "Elasticsearch", "opensearch": "OpenSearch"}.get(found.flavour or "", "?")
    licence = f" ({found.licence} licence)" if found.licence else ""
    findings = [
        Finding(
            "signatures by categorize_text"
            if found.categorize_text
            else "signatures mined from a sample (drain3)"
        ),
        Finding(f"index {index}: fields match the {found.preset} preset", ok=True)
        if found.preset
        else Finding(f"index {index}: no field preset matches", ok=False),
    ]
    findings += [Finding(p, ok=False) for p in found.problems if "signatures are mined" not in p]
    return BackendReport.judged("logs", url, f"{name} {found.version}{licence}", findings)
