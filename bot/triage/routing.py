"""Routing imbalance (GW_ROUTING): when throttling comes from how traffic is split, not from load.

The status-code shortcut "429 → routing imbalance" is a first guess, and a poor one on its own: a
gateway's rate limit, a full engine queue and a deliberate canary all answer 429 too. So the shortcut
only decides when the evidence says that the split is the fault:

- the throttling (429s) is abnormal against the hour before, and
- either a route with two or more backend Services was re-weighted inside the incident window onto
  one backend (a 90/10 split that a canary controller or a person set long before is the plan, not
  a fault), or the throttling sits on one backend Service of the route while another serves cleanly.

Under Envoy Gateway a cluster is a route *rule*, not a Service: its per-cluster counters cannot say
which Service of a rule throttles, so they never count as "one backend".
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.triage.findings import TIE, Finding, kind, signal
from tools.result import Evidence, Source, parse_time

SKEW = 0.75  # the heaviest backend's share of the rule's weight
ROUTE_RULE_CLUSTER = "httproute/"  # Envoy Gateway: one cluster per route rule
QUIET = timedelta(minutes=10)  # logged 429s count as new when none was logged this long into the window


def routing_imbalance(evidence: list[Evidence], window_start: datetime) -> Finding | None:
    """A GW_ROUTING finding when the split explains the throttling, else None."""
    throttled = _new_429s(evidence, window_start)
    if not throttled:
        return None
    first_429 = min((e.onset for e in throttled if e.onset), default=None)
    multi = [r for r in kind(evidence, "route") if len(_backends(r)) >= 2]
    reweighted = [
        r
        for r in multi
        if isinstance(r.value, int | float)
        and r.value >= SKEW
        and r.labels.get("canary") != "true"
        and (changed := parse_time(r.labels.get("changed_at"))) is not None
        and changed >= window_start
        and (first_429 is None or changed <= first_429 + TIE)
    ]
    one_backend = _one_backend_throttles(evidence, multi)
    if not reweighted and not one_backend:
        return None
    items = [*reweighted, *one_backend, *throttled]
    changes = [parse_time(r.labels.get("changed_at")) for r in reweighted]
    onsets = [t for t in changes if t] or [e.onset for e in items if e.onset is not None]
    finding = Finding(
        code="GW_ROUTING",
        onset=min(onsets) if onsets else None,
        strength=0.7,
        evidence=list(dict.fromkeys(e.id for e in items)),
        source=Source.KUBERNETES if reweighted else Source.PROMETHEUS,
        note=(reweighted[0].summary + f" (changed at {reweighted[0].labels['changed_at']})")
        if reweighted
        else one_backend[0].summary,
    )
    for route in reweighted or multi[:1]:
        finding.add_target("route", route.labels.get("route", ""))
    return finding


def _backends(route: Evidence) -> set[str]:
    return {b.split("=", 1)[0] for b in route.labels.get("backends", "").split(",") if b}


def _new_429s(evidence: list[Evidence], window_start: datetime) -> list[Evidence]:
    """429s that were not there an hour before (metrics), or a real share of the logged answers
    that began well inside the window (logs)."""
    metered = [
        e
        for e in [*signal(evidence, "status_codes"), *signal(evidence, "status_by_backend")]
        if e.labels.get("code") == "429" and e.labels.get("abnormal") == "true" and _grew(e)
    ]
    logged = [
        e
        for e in kind(evidence, "status")
        if e.labels.get("code") == "429"
        and float(e.labels.get("share", "0")) > 0.02
        and e.onset is not None
        and e.onset >= window_start + QUIET
    ]
    return metered + logged


def _grew(e: Evidence) -> bool:
    before = e.labels.get("hour_before")
    try:
        past = float(before) if before is not None else 0.0
    except ValueError:
        past = 0.0
    return isinstance(e.value, int | float) and float(e.value) > max(past * 3, 0.05)


def _one_backend_throttles(evidence: list[Evidence], routes: list[Evidence]) -> list[Evidence]:
    """The 429s of one backend Service of a multi-backend route, while another backend serves."""
    services = {s for r in routes for s in _backends(r)}
    by_service: dict[str, list[Evidence]] = {}
    for e in signal(evidence, "status_by_backend"):
        backend = e.labels.get("backend", "")
        if backend.startswith(ROUTE_RULE_CLUSTER) or backend not in services:
            continue
        if e.labels.get("code") == "429" and e.labels.get("abnormal") == "true":
            by_service.setdefault(backend, []).append(e)
    if len(by_service) != 1:
        return []
    serving = {
        e.labels.get("backend")
        for e in signal(evidence, "requests_by_backend")
        if isinstance(e.value, int | float) and e.value > 0
    }
    return next(iter(by_service.values())) if serving - set(by_service) else []
