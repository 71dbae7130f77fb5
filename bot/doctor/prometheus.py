"""Prometheus: reachable, which version, and which engine, GPU and gateway families have series.

A family with no series is not a failure of Prometheus: it is evidence the triage will not have
(the exporter is not scraped, or names its metrics otherwise), so it is said as a limitation.
Series are counted at the triage's clock (`TRIAGE_AS_OF` when replaying a recording, else now).
"""

from __future__ import annotations

from bot.config import BotConfig
from bot.doctor.report import BackendReport, Finding
from bot.settings import Settings
from tools.prom_probe import FamilyPresence, build_info, probe_families
from tools.prometheus import connect
from tools.result import Gap
from tools.signals import DEFAULT_CATALOG, load_catalog


def check_prometheus(settings: Settings, config: BotConfig, *, timeout: float) -> BackendReport:
    url = settings.prometheus_url or config.backends.prometheus_url
    if not url:
        return BackendReport.absent("prometheus", "PROMETHEUS_URL unset: no metrics evidence")
    catalog = load_catalog(settings.signals_file or DEFAULT_CATALOG)
    client = connect(url, timeout=timeout)
    info = build_info(client, timeout=timeout)
    if isinstance(info, Gap):
        return BackendReport.unusable("prometheus", url, f"build info: {info.reason}")
    found = probe_families(client, catalog, timeout=timeout, at=settings.triage_as_of)
    findings = [_finding(p) for p in found if p.series != 0]
    for kind in ("engine", "gpu", "gateway"):
        silent = [p.family for p in found if p.kind == kind and p.series == 0]
        if silent:
            findings.append(Finding(f"{kind} families with no series: {', '.join(silent)}"))
    engines = [p.family for p in found if p.kind == "engine" and p.series > 0]
    if not engines:
        findings.append(Finding("no inference engine's metrics: engine evidence will be missing", ok=False))
    if not any(p.kind == "gpu" and p.series > 0 for p in found):
        findings.append(
            Finding("no GPU metrics (DCGM exporter): GPU state only from the GPU agents", ok=False)
        )
    at = f"at TRIAGE_AS_OF {settings.triage_as_of:%Y-%m-%d %H:%M}Z" if settings.triage_as_of else "now"
    summary = f"Prometheus {info.version}; engines: {', '.join(engines) or 'none'} (series counted {at})"
    return BackendReport.judged("prometheus", url, summary, findings)


def _finding(presence: FamilyPresence) -> Finding:
    what = f"{presence.kind} {presence.family}"
    if presence.series < 0:
        return Finding(f"{what}: could not count its series ({presence.error})", ok=False)
    if presence.series == 0:
        return Finding(f"{what}: no series")
    return Finding(f"{what}: {presence.series} series (e.g. {presence.example})", ok=True)
