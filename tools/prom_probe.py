"""Which families Prometheus holds: one cheap count per family, and the server's own version.

`doctor` asks before any incident whether vLLM, the DCGM exporter or the mesh are scraped at all;
the signal reader asks when an engine that runs the incident's pods said nothing, because an
engine with no series in the scope is a blind spot (a gap with a hint), never a healthy reading.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, cast

from prometheus_api_client import PrometheusConnect

from tools.result import Gap, Source, bounded
from tools.signals import Catalog, Family, Scope

if TYPE_CHECKING:  # the reader imports this module for scope_gap
    from tools.prometheus import PromQLClient

ProbedKind = Literal["engine", "gpu", "gateway"]
PROBED_KINDS: tuple[ProbedKind, ...] = ("engine", "gpu", "gateway")
PROBE_STEP = timedelta(minutes=5)  # each step sees the 5 minutes before it: the window is covered


@dataclass(frozen=True)
class FamilyPresence:
    """How many series of one family Prometheus holds now (-1: the count could not be read)."""

    kind: ProbedKind
    family: str
    series: int
    example: str | None = None  # one metric name of the family, when it has series
    error: str | None = None


@dataclass(frozen=True)
class BuildInfo:
    """What /api/v1/status/buildinfo says of the server."""

    version: str
    revision: str | None = None
    go_version: str | None = None


def probe_families(
    client: PromQLClient, catalog: Catalog, *, timeout: float, at: datetime | None = None
) -> list[FamilyPresence]:
    """One `count by (__name__)` of each engine, GPU and gateway family's probe; never raises."""
    families = [f for f in catalog.families.values() if f.kind in PROBED_KINDS]
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="prom-probe") as pool:
        return list(pool.map(lambda f: _presence(client, f, timeout=timeout, at=at), families))


def _presence(client: PromQLClient, family: Family, *, timeout: float, at: datetime | None) -> FamilyPresence:
    kind = cast(ProbedKind, family.kind)  # probe_families passes only these kinds
    params = {"time": at.timestamp()} if at is not None else None
    got = bounded(
        Source.PROMETHEUS,
        f"{family.name} presence",
        lambda: client.custom_query(f"count by (__name__) ({family.probe})", params=params),
        timeout=timeout,
    )
    if isinstance(got, Gap):
        return FamilyPresence(kind=kind, family=family.name, series=-1, error=got.reason)
    counts = sorted(
        ((int(float(item["value"][1])), item.get("metric", {}).get("__name__", "")) for item in got or []),
        key=lambda c: (-c[0], c[1]),
    )
    total = sum(n for n, _ in counts)
    return FamilyPresence(
        kind=kind, family=family.name, series=total, example=counts[0][1] if counts else None
    )


def build_info(client: PrometheusConnect, *, timeout: float) -> BuildInfo | Gap:
    """The server's version. prometheus-api-client has no call for it, so this is a plain GET
    through the client's own session (its headers, auth and TLS settings); never raises."""

    def read() -> BuildInfo:
        response = client._session.get(
            f"{client.url}/api/v1/status/buildinfo",
            headers=client.headers,
            auth=client.auth,
            verify=client._session.verify,
            cert=client._session.cert,
            timeout=timeout,
        )
        response.raise_for_status()
        data = response.json()["data"]
        return BuildInfo(
            version=str(data["version"]), revision=data.get("revision"), go_version=data.get("goVersion")
        )

    return bounded(Source.PROMETHEUS, "build info", read, timeout=timeout)


def scope_gap(
    client: PromQLClient, family: Family, scope: Scope, start: datetime, end: datetime, *, timeout: float
) -> Gap | None:
    """A gap when `family` has no series for the scope's pods in [start, end], with a hint from where
    its series do exist (another namespace label, another pod label, or nowhere); None when it has
    series there, or when Prometheus could not say (its failures are reported by the reads)."""
    inner = family.probe[:-1]
    levels = (
        f'{inner},namespace="$ns",pod=~"$pods"}}',
        f'{inner},namespace="$ns"}}',
        family.probe,
    )
    missing = 0  # how many levels, narrowest first, have no series
    for selector in levels:
        seen = _any(client, scope.render(f"count({selector})") or "", start, end, timeout=timeout)
        if seen is None:
            return None
        if seen:
            break
        missing += 1
    if missing == 0:
        return None
    ns = scope.namespace
    if missing == 1:
        hint = f"{family.name} series exist in namespace {ns}, but none for the incident's pods: check their pod label"
    elif missing == 2:
        hint = (
            f"{family.name} series exist, but none with namespace={ns!r}: "
            "check the namespace label the scrape config sets"
        )
    else:
        hint = (
            f"no {family.name} series in Prometheus at all: the exporter is not scraped or names its "
            f"metrics otherwise ({family.hint or 'check the scrape targets'})"
        )
    return Gap(
        source=Source.PROMETHEUS,
        what=f"{family.name} metrics",
        reason=f"no series for this family in the scope; {hint}",
    )


def _any(client: PromQLClient, query: str, start: datetime, end: datetime, *, timeout: float) -> bool | None:
    """Whether `query` had a sample at any step of [start, end]; None when it could not be read."""
    steps = max(1, math.ceil((end - start) / PROBE_STEP))
    got = bounded(
        Source.PROMETHEUS,
        "family presence",
        lambda: client.custom_query_range(
            query, end - steps * PROBE_STEP, end, f"{int(PROBE_STEP.total_seconds())}s"
        ),
        timeout=timeout,
    )
    if isinstance(got, Gap):
        return None
    return any(series.get("values") for series in got or [])
