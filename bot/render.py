"""Plain-text rendering of incidents for the terminal: credentials redacted, and no control
character from an alert or a log line reaches the terminal (an escape sequence could rewrite it)."""

from __future__ import annotations

import re

from bot.domain import Incident, IncidentDetail
from bot.triage.redact import redact

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(text: str) -> str:
    return _CONTROL.sub("?", redact(text))


def _ts(value: object) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%SZ") if hasattr(value, "strftime") else "-"


def incident_table(incidents: list[Incident]) -> str:
    if not incidents:
        return "no incidents"
    header = ("ID", "STATUS", "SEVERITY", "CATEGORY", "SERVICE", "OPENED", "TITLE")
    rows = [
        (
            str(i.id),
            i.status.value,
            i.severity.value,
            i.category.value if i.category else "-",
            i.service or "-",
            _ts(i.opened_at),
            i.title[:60],
        )
        for i in incidents
    ]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(widths[c]) for c, cell in enumerate(row[:-1])]
        lines.append("  ".join([*cells, row[-1]]))
    return _shown("\n".join(lines))


def incident_detail(detail: IncidentDetail) -> str:
    i = detail.incident
    lines = [
        f"Incident {i.id}: {i.title}",
        f"  status     {i.status.value}",
        f"  severity   {i.severity.value}",
        f"  category   {i.category.value if i.category else '-'}" + (f"   code {i.code}" if i.code else ""),
        f"  service    {i.service or '-'}   model {i.model or '-'}   namespace {i.namespace or '-'}",
        f"  started    {_ts(i.started_at)}   opened {_ts(i.opened_at)}",
    ]
    if i.query:
        lines.append(f"  query      {i.query}")
    if i.value:
        lines.append(f"  value      {i.value}")
    if i.acknowledged_by:
        lines.append(f"  acked      {_ts(i.acknowledged_at)} by {i.acknowledged_by}")
    if i.resolved_by:
        lines.append(f"  resolved   {_ts(i.resolved_at)} by {i.resolved_by}: {i.resolution}")
    lines.append(f"Alerts ({len(detail.alerts)}):")
    lines.extend(
        f"  {a.fingerprint}  {a.status.value:8}  {a.alertname}  x{a.notifications}" for a in detail.alerts
    )
    lines.append("Timeline:")
    lines.extend(f"  {_ts(e.at)}  {e.actor:14}  {e.kind.value:17}  {e.text}" for e in detail.timeline)
    triage = detail.triage
    if triage is not None:
        lines += [
            f"Triage ({triage.engine}): {triage.category} / {triage.code}, confidence {triage.confidence:.0%}",
            f"  {triage.hypothesis}",
            f"  blast radius: {triage.blast_radius}",
        ]
        lines += [f"  {n}. {a.kind} {a.target} (undo: {a.undo})" for n, a in enumerate(triage.actions, 1)]
        lines += [f"  gap: {gap}" for gap in triage.gaps]
    return _shown("\n".join(lines))
