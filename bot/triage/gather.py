"""Gather: every read-only tool in parallel, scoped by the resolved topology, within a budget.

A backend that is missing, down or slow becomes a gap; gathering always returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace

from bot.triage.backends import Backends
from bot.triage.request import TriageRequest
from bot.triage.scope import DEFAULT_NAMESPACE, IncidentScope, named_namespace, resolve, subjects
from tools.kubernetes import Topology, pod_name_pattern
from tools.logs import LogScope
from tools.result import Evidence, Gap, Source, ToolResult, Window
from tools.signals import Scope, promql_regex


@dataclass
class Gathered:
    """What the tools saw."""

    scope: IncidentScope
    window: Window
    evidence: list[Evidence]
    gaps: list[Gap]
    topology: Topology | None
    timings_ms: dict[str, float]


MISSING = {
    Source.PROMETHEUS: "not configured (set PROMETHEUS_URL)",
    Source.ELASTICSEARCH: "not configured (set ELASTICSEARCH_URL)",
    Source.KUBERNETES: "not configured (set KUBERNETES_API_URL or KUBECONFIG)",
    Source.GPU: "not configured (set GPU_AGENT_URLS, or give the bot Kubernetes API access to find the gpu-agent pods)",
}


ToolDone = Callable[[str, float, list[str]], None]


def gather(request: TriageRequest, backends: Backends, *, on_tool: ToolDone | None = None) -> Gathered:
    """Resolve the scope, then run every tool in parallel; `on_tool` hears of each as it finishes
    (its name, milliseconds and gaps)."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    gaps: list[Gap] = []
    window = Window.around(request.started_at, request.as_of)
    named = named_namespace(request)
    ns = named or backends.default_namespace or DEFAULT_NAMESPACE
    topology: Topology | None = None
    if backends.kube is None:
        gaps.append(Gap(source=Source.KUBERNETES, what="topology", reason=MISSING[Source.KUBERNETES]))
    else:
        got = backends.kube.topology(ns)
        if isinstance(got, Gap):
            gaps.append(got)
        else:
            topology = got
    scope = resolve(request, topology, namespace=ns, named=named is not None)
    if named is None:
        how = "the configured KUBERNETES_NAMESPACE" if backends.default_namespace else "assumed"
        note = f"neither the incident nor its alerts name a namespace: {ns} is {how}"
        scope = replace(
            scope, notes=[*scope.notes, note], namespace_assumed=backends.default_namespace is None
        )
    if scope.unresolved:
        gaps.append(Gap(source=Source.KUBERNETES, what="scope", reason=scope.unresolved))
    timings["scope"] = (time.perf_counter() - started) * 1000
    jobs = _jobs(request, backends, scope, topology, window)
    results: list[ToolResult] = []
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="gather") as pool:
        futures = {pool.submit(_timed, job): name for name, job in jobs.items()}
        for future in as_completed(futures):
            name = futures[future]
            found, elapsed = future.result()
            timings[name] = elapsed
            results.extend(found)
            if on_tool is not None:
                on_tool(name, round(elapsed, 1), [str(r.gap) for r in found if r.gap is not None])
    for source, tool in (
        (Source.PROMETHEUS, backends.prometheus),
        (Source.ELASTICSEARCH, backends.logs),
        (Source.GPU, backends.gpu),
    ):
        if tool is None:
            gaps.append(Gap(source=source, what="evidence", reason=MISSING[source]))
    evidence = _dedupe([e for r in results for e in r.evidence])
    gaps.extend(r.gap for r in results if r.gap is not None)
    timings["total"] = (time.perf_counter() - started) * 1000
    return Gathered(
        scope=scope,
        window=window,
        evidence=evidence,
        gaps=_unique_gaps(gaps),
        topology=topology,
        timings_ms={k: round(v, 1) for k, v in timings.items()},
    )


def _timed(job: Callable[[], list[ToolResult]]) -> tuple[list[ToolResult], float]:
    started = time.perf_counter()
    found = job()
    return found, (time.perf_counter() - started) * 1000


def _jobs(
    request: TriageRequest,
    backends: Backends,
    scope: IncidentScope,
    topology: Topology | None,
    window: Window,
) -> dict[str, Callable[[], list[ToolResult]]]:
    jobs: dict[str, Callable[[], list[ToolResult]]] = {}
    if backends.prometheus is not None:
        prom = backends.prometheus
        prom_scope = prometheus_scope(scope, topology)
        names = backends.signals or prom.catalog.names
        jobs["prometheus"] = lambda: prom.read_signals(names, prom_scope, window)
        expr = next(iter(request.queries), None)
        if expr:
            jobs["alert_expression"] = lambda: [prom.alert_expression(expr, window)]
    if backends.logs is not None:
        logs = backends.logs
        log_scope = LogScope(
            namespace=scope.namespace,
            pods=scope.pods,
            nodes=scope.nodes,
            deployments=scope.deployments,
        )
        jobs["logs"] = lambda: [
            logs.error_signatures(log_scope, window),
            logs.error_volume(log_scope, window),
            logs.status_codes(log_scope, window),
        ]
    if backends.kube is not None and topology is not None:
        kube, topo = backends.kube, topology
        objects = subjects(scope, topology)
        jobs["kubernetes"] = lambda: [
            kube.rollouts(topo, window, [*scope.deployments, *scope.related]),
            kube.warning_events(topo, window, objects),
            kube.pod_health(topo, scope.pods),
            kube.node_state(topo, scope.nodes),
            kube.route_backends(topo, scope.routes),
        ]
    if backends.gpu is not None and scope.nodes:
        gpu = backends.gpu
        jobs["gpu"] = lambda: [gpu.read(scope.nodes, as_of=window.as_of)]
    return jobs


def prometheus_scope(scope: IncidentScope, topology: Topology | None = None) -> Scope:
    """The incident scope as PromQL fragments; a deployment's pods past and present match by the
    names they get (`<deploy>-<hash>-<suffix>`, not `<deploy>-canary-…`),
    and its pods' images say which engine's silence would be a gap."""
    pods = set(scope.pods)
    images = sorted(
        {
            str(c.get("image", ""))
            for p in (topology.pods if topology is not None else [])
            if (p.get("metadata") or {}).get("name") in pods
            for c in (p.get("spec") or {}).get("containers") or []
        }
    )
    return Scope(
        namespace=scope.namespace,
        pods=scope.pods,
        nodes=scope.nodes,
        model=scope.model,
        route=scope.routes[0] if len(scope.routes) == 1 else None,
        pod_patterns=[promql_regex(pod_name_pattern(d)) for d in scope.deployments],
        claims=scope.claims,
        images=images,
    )


def _dedupe(evidence: list[Evidence]) -> list[Evidence]:
    seen: dict[str, Evidence] = {}
    for item in evidence:
        seen.setdefault(item.id, item)
    return list(seen.values())


def _unique_gaps(gaps: list[Gap]) -> list[Gap]:
    return list({str(g): g for g in gaps}.values())
