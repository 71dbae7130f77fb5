"""`incidents export-pack`: one stored incident, read back from the live backends as a pack.

The clock is the first triage's `as_of` and the window the triage's own (an hour before the
alert's start; Prometheus from an hour before `as_of` at the latest, as tools.prometheus reads
it); the scope is the one that triage stored. Each optional file comes from one backend; a
backend that is not configured or fails leaves its file out, with the reason, and the pack is
still usable with alert.json and scenario.yaml.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.config import BotConfig
from bot.deps import Services
from bot.errors import BotError, NotFoundError
from bot.packs import alert, expected, gpus, kube, logs, metrics
from bot.packs.sources import Sources, open_sources
from bot.settings import Settings
from bot.triage.gather import prometheus_scope
from bot.triage.request import TriageRequest
from bot.triage.scope import IncidentScope
from tools.logs import LogScope
from tools.result import Gap, Window
from tools.signals import Catalog

PROMETHEUS_SPAN = timedelta(hours=1)  # tools.prometheus reads at least the hour before as_of


class ExportError(BotError):
    """The incident cannot become a pack (it is unknown, was never triaged, or DIR is in use)."""


@dataclass
class ExportReport:
    """The files written and, for each file left out, why."""

    root: Path
    written: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Context:
    request: TriageRequest
    window: Window
    scope: IncidentScope


def export_pack(
    incident_id: int,
    root: Path,
    *,
    settings: Settings,
    config: BotConfig,
    services: Services,
    catalog: Catalog,
) -> ExportReport:
    """Write the pack of `incident_id` into `root` (new, or empty)."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ExportError(f"{root}: exists and is not an empty directory")
    try:
        detail = services.incidents.get(incident_id)
    except NotFoundError as exc:
        raise ExportError(exc.message) from exc
    first = services.incidents.triage(incident_id, run=1)
    if first is None:
        raise ExportError(f"incident {incident_id} has no triage yet: nothing says as of when to read")
    as_of = first.result.as_of or first.created_at
    request = TriageRequest(incident=detail.incident, alerts=detail.alerts, as_of=as_of)
    ctx = _Context(
        request, Window.around(request.started_at, as_of), stored_scope(first.result.scope, request)
    )
    root.mkdir(parents=True, exist_ok=True)
    report = ExportReport(root=root)
    sources = open_sources(settings, config)
    try:
        meta = expected.scenario(
            detail.incident, as_of=as_of, namespace=ctx.scope.namespace, logs_index=sources.logs_index
        )
        expected.write_yaml(meta, root / "scenario.yaml")
        alert.write(alert.payload(detail, as_of), root / "alert.json")
        report.written += ["scenario.yaml", "alert.json"]
        steps: dict[str, Callable[[], str | None]] = {
            "metrics.om": lambda: _metrics(sources, ctx, catalog, root / "metrics.om", report),
            "logs.ndjson": lambda: _logs(sources, ctx, root / "logs.ndjson", report),
            "k8s.yaml": lambda: _kube(sources, ctx, root / "k8s.yaml"),
            "gpus.json": lambda: _gpus(sources, ctx, root / "gpus.json", report),
        }
        for name, step in steps.items():
            try:
                why = step()
            except Exception as exc:  # a backend failing is that file's gap, never the end of the export
                why = f"failed: {type(exc).__name__}: {exc}"
            _done(report, name, why)
        answer = expected.expected(
            detail.incident, first.result, services.actions.store.of_incident(incident_id)
        )
        if isinstance(answer, str):
            _done(report, "expected.yaml", answer)
        else:
            expected.write_yaml(answer[0], root / "expected.yaml", comment=answer[1])
            _done(report, "expected.yaml", None)
    finally:
        sources.close()
    return report


def stored_scope(stored: dict[str, Any], request: TriageRequest) -> IncidentScope:
    """The scope the first triage resolved (its stored `scope`); the incident's namespace alone
    when it stored none."""
    known = {f.name for f in fields(IncidentScope)}
    values = {k: v for k, v in stored.items() if k in known}
    if not values.get("namespace"):
        values["namespace"] = request.incident.namespace or "default"
    return IncidentScope(**values)


def _done(report: ExportReport, name: str, why: str | None) -> None:
    if why is None:
        report.written.append(name)
    else:
        report.left_out[name] = why


def _metrics(
    sources: Sources, ctx: _Context, catalog: Catalog, path: Path, report: ExportReport
) -> str | None:
    if sources.prometheus is None:
        return "Prometheus not configured (set PROMETHEUS_URL)"
    window = ctx.window
    scope = prometheus_scope(ctx.scope)
    queries = [
        rendered
        for signal in catalog.signals.values()
        for template in signal.queries.values()
        if (rendered := scope.render(template, window=window.as_of - window.start)) is not None
    ]
    start = min(window.start, window.as_of - PROMETHEUS_SPAN)
    wants, bad = metrics.wanted([*queries, *ctx.request.queries], start)
    report.notes += [f"metrics.om: a query could not be parsed: {b}" for b in bad]
    got = metrics.export(sources.prometheus, wants, window.as_of, timeout=sources.timeout)
    report.notes += [f"metrics.om: {f}" for f in got.failed]
    if not got.series:
        return "no series: " + ("; ".join(got.failed) if got.failed else "no selector matched a sample")
    metrics.write(got, path)
    report.notes.append(f"metrics.om: {len(got.series)} series, {got.samples} samples")
    return None


def _logs(sources: Sources, ctx: _Context, path: Path, report: ExportReport) -> str | None:
    if sources.logs is None:
        return "logs not configured (set ELASTICSEARCH_URL)"
    scope = ctx.scope
    log_scope = LogScope(
        namespace=scope.namespace, pods=scope.pods, nodes=scope.nodes, deployments=scope.deployments
    )
    got = logs.read(sources.logs, sources.logs_index, log_scope, ctx.window)
    logs.write(got, path)
    report.notes.append(f"logs.ndjson: {len(got.documents)} documents of {got.total}")
    if got.skipped:
        report.notes.append(f"logs.ndjson: {got.skipped} documents without @timestamp or message left out")
    return None


def _kube(sources: Sources, ctx: _Context, path: Path) -> str | None:
    if sources.kube is None:
        return "Kubernetes not configured (set KUBERNETES_API_URL or KUBECONFIG)"
    got = kube.read(sources.kube, ctx.scope.namespace, ctx.scope.nodes, timeout=sources.timeout)
    if isinstance(got, Gap):
        return str(got)
    kube.write(got, path)
    return None


def _gpus(sources: Sources, ctx: _Context, path: Path, report: ExportReport) -> str | None:
    if sources.gpu is None:
        return "GPU agents not configured (set GPU_AGENT_URLS, or give the bot Kubernetes API access)"
    if not ctx.scope.nodes:
        return "the scope names no node"
    readings, problems = gpus.read(sources.gpu, ctx.scope.nodes)
    report.notes += [f"gpus.json: {p}" for p in problems]
    if not readings:
        return "no GPU agent answered for the scope's nodes" + (
            f" ({'; '.join(problems)})" if problems else ""
        )
    gpus.write(readings, path)
    return None
