"""Logs: Elasticsearch or OpenSearch, which version and licence, and which field preset the index
matches (so whether signatures come from `categorize_text` or are mined with drain3). A cluster
that answers but from whose index the tools would read nothing (no such index, no documents,
fields no preset reads) is unusable: its triage would have no log evidence at all."""

from __future__ import annotations

from bot.config import BotConfig
from bot.doctor.report import BackendReport, Finding, Verdict
from bot.settings import Settings
from tools.logs.probe import MINED, probe_logs


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
    summary = f"{name} {found.version}{licence}"
    findings = [Finding("signatures by categorize_text" if found.categorize_text else MINED)]
    if key and found.flavour == "opensearch":
        why = "ELASTICSEARCH_API_KEY is set, but OpenSearch takes no Elasticsearch API key: credentials go in the URL"
        findings.append(Finding(why, ok=False))
    findings += [Finding(p, ok=False) for p in found.problems if MINED not in p]
    if found.blocker is not None:
        return BackendReport("logs", Verdict.UNUSABLE, f"{summary}; {found.blocker}", url, findings)
    what = f"index {index}: {found.documents} documents, fields match the {found.preset} preset"
    findings.insert(1, Finding(what, ok=True))
    return BackendReport.judged("logs", url, summary, findings)
