"""Build Alertmanager v4 webhook payloads the way Alertmanager writes them."""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote

GO_ZERO = "0001-01-01T00:00:00Z"


def generator_url(expr: str) -> str:
    return f"http://prometheus.monitoring.svc:9090/graph?g0.expr={quote(expr, safe='')}&g0.tab=1"


def alert(
    *,
    alertname: str = "InferenceErrorBudgetBurn",
    status: str = "firing",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    starts_at: str = "2026-06-01T09:58:00Z",
    ends_at: str = GO_ZERO,
    expr: str = 'slo:sli_error:ratio_rate5m{sloth_service="llama-chat"} > (14.4 * 0.001)',
) -> dict[str, Any]:
    all_labels = {"alertname": alertname, **(labels or {})}
    fingerprint = hashlib.sha256(json.dumps(all_labels, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "status": status,
        "labels": all_labels,
        "annotations": annotations if annotations is not None else {"summary": "error budget burning"},
        "startsAt": starts_at,
        "endsAt": ends_at,
        "generatorURL": generator_url(expr),
        "fingerprint": fingerprint,
    }


def webhook(
    alerts: list[dict[str, Any]],
    *,
    group: str = "llama-chat",
    receiver: str = "incident-bot",
    common_labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    status = "firing" if any(a["status"] == "firing" for a in alerts) else "resolved"
    common = common_labels if common_labels is not None else dict(alerts[0]["labels"])
    return {
        "receiver": receiver,
        "status": status,
        "alerts": alerts,
        "groupLabels": {"service": group},
        "commonLabels": common,
        "commonAnnotations": {},
        "externalURL": "http://alertmanager.monitoring.svc:9093",
        "version": "4",
        "groupKey": f'{{}}/{{severity="page"}}:{{service="{group}"}}',
        "truncatedAlerts": 0,
    }
