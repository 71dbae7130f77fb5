"""Pieces most scenarios share: gateway access logs, SLO alerts, threshold alerts, error text."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from . import exporters as ex
from .alerts import webhook
from .fleet import Member
from .logs import Source, ecs, envoy_gateway_access
from .pack import Pack
from .series import Dist, Series

CLIENTS = ["OpenAI/Python 1.99.9", "OpenAI/Python 1.97.1", "python-httpx/0.28.1", "langchain-openai/0.3.28"]


def sum_codes(codes: dict[int, Series], n: int) -> Series:
    total = Series([0.0] * n)
    for s in codes.values():
        total = total + s
    return total


def bad_of(codes: dict[int, Series], n: int, pred: Callable[[int], bool]) -> Series:
    total = Series([0.0] * n)
    for code, s in codes.items():
        if pred(code):
            total = total + s
    return total


def gateway_logs(
    p: Pack,
    members: Sequence[Member],
    *,
    cluster: str,
    route: str,
    authority: str,
    src: Source,
    every: int = 5,
    errors_after: datetime | None = None,
    flags: Callable[[int], tuple[str, str]] | None = None,
    duration: Callable[[int, int], int] | None = None,
    clients: str = "10.0.100",
    max_errors: int = 2,
    agent: Callable[[int], str] | None = None,
    per_minute: int = 1,
) -> None:
    """Envoy Gateway JSON access lines that agree with each backend pod's status counts."""
    c, rng = p.clock, p.rng
    for i in range(c.n - 1):
        minute = c.at(i)
        for m in members:
            for code, series in sorted(m.rep.codes.items()):
                count = int(series[i + 1])
                if count <= 0 or (code < 300 and i % every):
                    continue
                for _ in range(per_minute if code < 300 else min(count, max_errors)):
                    lo = 0.0
                    if code >= 400 and errors_after is not None and errors_after > minute:
                        lo = (errors_after - minute).total_seconds() + 1
                    ts = p.ids.within(minute, max(0.0, min(59.0, lo)))
                    if duration:
                        dur = duration(code, i)
                    else:
                        dur = int(1000 * rng.lognormvariate(1.9, 0.4)) if code < 300 else rng.randint(3, 40)
                    flag, details = flags(code) if flags else ("-", "via_upstream")
                    line = envoy_gateway_access(
                        ts,
                        status=code,
                        flags=flag,
                        details=details,
                        duration_ms=dur,
                        upstream=f"{m.ip}:{m.rep.port}",
                        cluster=cluster,
                        route=route,
                        authority=authority,
                        client=p.ids.ip(clients),
                        user_agent=agent(i) if agent else rng.choice(CLIENTS),
                        request_id=p.ids.request_id(),
                        bytes_sent=1900 if code < 300 else 96,
                    )
                    p.logs.add(ecs(ts, line, src, level="info", status=code))


def sloth_alert(
    p: Pack,
    *,
    service: str,
    slo: str,
    objective: float,
    bad: Series,
    total: Series,
    alertname: str,
    labels: dict[str, str],
    description: str,
    prometheus: str,
    alertmanager: str,
    extra: dict[str, str] | None = None,
    runbook: str | None = None,
    delay_s: int = 17,
    category: str = "availability",
) -> int:
    """Sloth recording rules + its page alert; returns the index of the first firing sample."""
    ratios = ex.sloth(
        p.om, p.clock, service=service, slo=slo, objective=objective, bad=bad, total=total, extra=extra
    )
    firing = ex.sloth_page_firing(ratios, objective)
    fire_i = firing.index(True)
    alert_labels = {
        "alertname": alertname,
        "category": category,
        **(extra or {}),
        "sloth_id": f"{service}-{slo}",
        "sloth_service": service,
        "sloth_severity": "page",
        "sloth_slo": slo,
        **labels,
    }
    annotations = {
        "summary": f"{service} {slo} SLO error budget burn rate is over expected.",
        "title": f"(page) {service} {slo} SLO error budget burn rate is too fast.",
        "description": description,
        "value": f"{ratios['5m'][fire_i]:.4g}",
    }
    if runbook:
        annotations["runbook_url"] = runbook
    p.alert = webhook(
        labels=dict(sorted(alert_labels.items())),
        annotations=annotations,
        starts_at=p.clock.at(fire_i) + timedelta(seconds=delay_s),
        expr=ex.sloth_page_expr(service, slo, objective),
        prometheus=prometheus,
        alertmanager=alertmanager,
        route='{}/{sloth_severity="page"}',
    )
    p.notes["fires"] = p.alert["alerts"][0]["startsAt"]
    return fire_i


def threshold_alert(
    p: Pack,
    *,
    expr: str,
    condition: Sequence[bool],
    value: Sequence[float],
    for_minutes: int,
    labels: dict[str, str],
    summary: str,
    description: str,
    prometheus: str,
    alertmanager: str,
    value_format: str = "{:.4g}",
    runbook: str | None = None,
    delay_s: int = 23,
    route: str = '{}/{severity="page"}',
    group_by: tuple[str, ...] = ("alertname", "namespace"),
) -> int:
    """A plain PromQL alert with `for:`; fires after the condition held `for_minutes`."""
    run = 0
    fire_i = -1
    for i, ok in enumerate(condition):
        run = run + 1 if ok else 0
        if run > for_minutes:
            fire_i = i
            break
    if fire_i < 0:
        raise ValueError(f"{p.name}: alert condition never holds long enough")
    annotations = {
        "summary": summary,
        "description": description,
        "value": value_format.format(value[fire_i]),
    }
    if runbook:
        annotations["runbook_url"] = runbook
    p.alert = webhook(
        labels=labels,
        annotations=annotations,
        starts_at=p.clock.at(fire_i) + timedelta(seconds=delay_s),
        expr=expr,
        prometheus=prometheus,
        alertmanager=alertmanager,
        route=route,
        group_by=group_by,
    )
    p.notes["fires"] = p.alert["alerts"][0]["startsAt"]
    return fire_i


def window_sum(s: Sequence[float], i: int, minutes: int) -> float:
    return float(sum(s[max(0, i - minutes + 1) : i + 1]))


def rate_ratio(bad: Sequence[float], total: Sequence[float], minutes: int = 4) -> Series:
    """sum(rate(bad[5m])) / sum(rate(total[5m])) as Prometheus sees it at each sample.

    A `[5m]` range at a sample time holds the samples of (t-5m, t]: five samples one minute apart,
    i.e. the last four per-minute increments (`minutes`); the rate's extrapolation cancels out.
    """
    out = Series()
    for i in range(len(bad)):
        b, t = window_sum(bad, i, minutes), window_sum(total, i, minutes)
        out.append(b / t if t else 0.0)
    return out


TRACE_VLLM_ENGINE = (
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core\n'
    "    engine_core.run_busy_loop()\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 718, in run_busy_loop\n'
    "    self._process_engine_step()\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 743, in _process_engine_step\n'
    "    outputs, model_executed = self.step_fn()\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 288, in step\n'
    "    model_output = self.execute_model_with_error_logging(\n"
)


def hist_quantile(
    q: float,
    buckets: Sequence[float],
    parts: Sequence[tuple[Sequence[float], Dist, Sequence[bool] | None]],
    window: int = 4,
) -> Series:
    """`histogram_quantile(q, sum by (le) (rate(x_bucket[5m])))` at each sample, as Prometheus computes it.

    `parts` are (observations per minute, distribution, present) of each series that is summed.
    """
    bounds = sorted(buckets)
    n = len(parts[0][0])
    out = Series()
    for i in range(n):
        cum = [0.0] * (len(bounds) + 1)
        for counts, dist, present in parts:
            for j in range(max(1, i - window + 1), i + 1):
                if present is not None and not (present[j] and present[j - 1]):
                    continue
                c = float(round(max(0.0, counts[j])))
                for b, bound in enumerate(bounds):
                    cum[b] += math.floor(c * dist.cdf(j, bound) + 0.5)
                cum[-1] += c
        total = cum[-1]
        if total <= 0:
            out.append(float("nan"))
            continue
        rank = q * total
        prev_count, prev_bound = 0.0, 0.0
        value = bounds[-1]
        for b, bound in enumerate(bounds):
            if cum[b] >= rank:
                span = cum[b] - prev_count
                value = prev_bound + (bound - prev_bound) * ((rank - prev_count) / span if span else 0.0)
                break
            prev_count, prev_bound = cum[b], bound
        out.append(value)
    return out
