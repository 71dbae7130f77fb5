"""Benchmark of the triage: per pack, time from the alert to the stored triage, next to the floor.

Each run is the production path: the pack's alert (as a new alert group) goes through intake into
the bot's store, the worker runs the announcement, the triage and the post, and the stored triage
is read back. The floor is the same backend work issued directly, all at once, through the same clients:
every catalog PromQL range query for the resolved scope and the alert's own expression, the
Elasticsearch searches the triage made (bodies taken from the stand-in's request log), the
Kubernetes list calls, and the GPU agents' readings (GET /v1/gpus). The ratio says what the triage adds on top of the
backends it cannot go faster than.

    .venv/bin/python bench/triage/run.py [--runs N] [--variant V] [PACK_DIR ...]   (default: scenarios/*)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from bot.sandbox.evaluate import find_packs
from bot.sandbox.pack import load_pack
from bot.sandbox.replay import Replay, replaying
from bot.sandbox.up import Sandbox
from bot.sandbox.variant import Variant
from bot.triage.gather import gather, prometheus_scope
from bot.triage.knowledge import Knowledge
from bot.triage.request import TriageRequest

ROOT = Path(__file__).resolve().parents[2]


def floor_calls(replay: Replay) -> list[Callable[[], Any]]:
    """The raw backend calls one triage needs, as zero-argument callables."""
    sandbox = replay.sandbox
    pack = sandbox.pack
    backends = replay.deps.engine.backends
    incidents = replay.deps.services.incidents
    latest = incidents.list(limit=1)[0]
    detail = incidents.get(latest.id)
    gathered = gather(
        TriageRequest(incident=detail.incident, alerts=detail.alerts, as_of=pack.meta.as_of), backends
    )
    scope, window = gathered.scope, gathered.window
    prom_scope = prometheus_scope(scope)
    assert backends.prometheus is not None and backends.kube is not None
    prom = backends.prometheus
    client = prom._client
    start = min(window.start, window.as_of - timedelta(hours=1))
    rendered = [prom_scope.render(t) for s in prom.catalog.signals.values() for t in s.queries.values()]
    queries = [q for q in rendered if q is not None]  # a per-node query is skipped without nodes
    queries += [a.query for a in pack.alert.alerts if a.query][:1]
    calls: list[Callable[[], Any]] = [
        (lambda q=q: client.custom_query_range(q, start, window.as_of, "60s")) for q in queries
    ]
    es, logs = sandbox.elasticsearch, backends.logs
    if es is not None and logs is not None:  # a pack without logs has no log backend
        bodies = [dict(r) for r in es.requests if getattr(r, "endpoint", "_search") == "_search"][-3:]
        es_client = logs.client
        calls += [(lambda b=b: es_client.search(pack.meta.logs_index, b)) for b in bodies]
    kube = backends.kube
    ns = scope.namespace
    topology = kube.topology(ns)
    route_version = getattr(topology, "route_version", "v1")  # v1beta1 on such a variant
    calls += [
        lambda: kube._core.list_namespaced_pod(ns, _preload_content=False),
        lambda: kube._core.list_namespaced_service(ns, _preload_content=False),
        lambda: kube._apps.list_namespaced_replica_set(ns, _preload_content=False),
        lambda: kube._apps.list_namespaced_deployment(ns, _preload_content=False),
        lambda: kube._core.list_node(_preload_content=False),
        lambda: kube._core.list_namespaced_event(ns, _preload_content=False),
        lambda: kube._core.list_event_for_all_namespaces(
            field_selector="involvedObject.kind=Node",
            _preload_content=False,
        ),
        lambda: kube._custom.list_namespaced_custom_object(
            "gateway.networking.k8s.io", route_version, ns, "httproutes"
        ),
        lambda: kube._networking.list_namespaced_ingress(ns, _preload_content=False),
    ]
    agents = [a.url for n, a in sandbox.gpu_agents.items() if n in scope.nodes]
    gpu_http = httpx.Client(timeout=5)
    calls += [(lambda u=u: gpu_http.get(f"{u}/v1/gpus").raise_for_status()) for u in agents]
    return calls


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def bench_pack(
    folder: Path, knowledge: Knowledge, runs: int, variant: Variant
) -> tuple[str, float, float, int]:
    pack = load_pack(folder)
    with Sandbox(pack, variant=variant) as sandbox, replaying(sandbox, knowledge=knowledge) as replay:
        replay.triage()  # warm-up: connections, caches, first compile
        triage = statistics.median(timed(replay.triage) for _ in range(runs))
        calls = floor_calls(replay)
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            list(pool.map(lambda c: c(), calls))  # warm-up
            floor = statistics.median(
                timed(lambda: list(pool.map(lambda c: c(), calls))) for _ in range(runs)
            )
    return pack.name, triage, floor, len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("packs", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variant", default="", help="serve the packs as other servers (see `eval --help`)")
    args = parser.parse_args()
    folders = args.packs or find_packs(ROOT / "scenarios")
    knowledge = Knowledge.load()
    variant = Variant.parse(args.variant)
    rows = [bench_pack(f, knowledge, args.runs, variant) for f in folders]
    width = max(len(r[0]) for r in rows)
    print(
        f"alert to stored triage vs floor, median of {args.runs} runs per pack, rules engine, "
        f"sandbox backends on loopback ({variant})"
    )
    print(f"{'pack':<{width}}  {'triage ms':>9}  {'floor ms':>8}  {'calls':>5}  {'ratio':>5}")
    for name, triage, floor, calls in rows:
        print(f"{name:<{width}}  {triage:>9.0f}  {floor:>8.0f}  {calls:>5}  {triage / floor:>5.1f}")
    total_triage = statistics.median(r[1] for r in rows)
    total_floor = statistics.median(r[2] for r in rows)
    print(
        f"{'median':<{width}}  {total_triage:>9.0f}  {total_floor:>8.0f}  {'':>5}  {total_triage / total_floor:>5.1f}"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
