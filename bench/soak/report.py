"""The soak's figures from its samples, the verdict, and how they are printed."""

from __future__ import annotations

import argparse
from typing import Any

from bench.soak.probe import Sample, Store, percentile, slope_per_hour

COLUMNS = (
    ("min", "seconds", 6, ".1f"),
    ("rss MiB", "rss_mib", 8, ".1f"),
    ("fds", "fds", 5, "d"),
    ("thr", "threads", 4, "d"),
    ("queue", "queue", 6, "d"),
    ("open", "open", 5, "d"),
    ("resolved", "resolved", 8, "d"),
    ("triaged", "triages_posted", 8, "d"),
    ("posts", "slack_posts", 6, "d"),
    ("hooks", "webhooks", 6, "d"),
    ("p50 ms", "p50_ms", 7, ".1f"),
    ("p95 ms", "p95_ms", 7, ".1f"),
    ("p99 ms", "p99_ms", 7, ".1f"),
)


# Flat, for a run long enough to tell: through its second half, RSS grows by at most this much an
# hour and no file descriptor is opened for good. The first half is warm-up (imports on first use,
# pools, caches), which took about 20 minutes in the soaks measured, so only an hour is judged.
FLAT_FROM_SECONDS = 3600.0
FLAT_RSS_MIB_PER_HOUR = 5.0
FLAT_FDS_MARGIN = 2


def flatness(samples: list[Sample], seconds: float) -> dict[str, Any]:
    """Whether memory and file descriptors were flat through the second half; not judged on short runs."""
    half = seconds / 2
    first, second = [s for s in samples if s.seconds < half], [s for s in samples if s.seconds >= half]
    slope = round(slope_per_hour([(s.seconds, s.rss_mib) for s in second]), 2)
    judged = seconds >= FLAT_FROM_SECONDS and bool(first) and len(second) >= 2
    fds_first = max((s.fds for s in first), default=0)
    fds_second = max((s.fds for s in second), default=0)
    return {
        "judged": judged,
        "rss_slope_per_hour": slope,
        "rss": slope <= FLAT_RSS_MIB_PER_HOUR,
        "fds": fds_second <= fds_first + FLAT_FDS_MARGIN,
        "fds_first_half_max": fds_first,
        "fds_second_half_max": fds_second,
    }


def figures(result: dict[str, Any]) -> dict[str, Any]:
    samples: list[Sample] = result["samples"]
    final: Store = result["store"]
    counts: dict[str, int] = result["counts"]
    latencies: list[float] = result["latencies"]
    rss = [s.rss_mib for s in samples]
    fds = [s.fds for s in samples]
    flat = flatness(samples, result["seconds"])
    errors = {
        "5xx": counts.get("5xx", 0),
        "other non-2xx": counts.get("other non-2xx", 0),
        "transport errors": counts.get("transport errors", 0),
        "firing without incident": counts.get("firing without incident", 0),
        "dead jobs": final.dead_jobs,
        "lost alerts": result["lost_alerts"],
        "lost incidents": result["incidents_expected"] - final.incidents,
        "untriaged incidents": final.incidents - final.triages_posted,
        "resolved without postmortem": final.resolved - final.postmortems,
        "command warnings": result["command_warnings"],
    }
    return {
        "seconds": result["seconds"],
        "rss_mib": {
            "start": rss[0],
            "end": rss[-1],
            "max": max(rss),
            "slope_per_hour": flat["rss_slope_per_hour"],
        },
        "fds": {"start": fds[0], "end": fds[-1], "max": max(fds)},
        "threads": {
            "start": samples[0].threads,
            "end": samples[-1].threads,
            "max": max(s.threads for s in samples),
        },
        "queue": {
            "max": result["max_queue"],
            "drained": result["drained"],
            "drain_seconds": result["drain_seconds"],
        },
        "webhook_ms": {
            q: round(percentile(latencies, n), 1) for q, n in (("p50", 50), ("p95", 95), ("p99", 99))
        }
        | {"max": round(max(latencies, default=0.0), 1), "count": len(latencies)},
        "counts": {
            "alerts sent": counts.get("alerts sent", 0),
            "webhooks": counts.get("webhooks", 0),
            **{k: v for k, v in sorted(counts.items()) if k.startswith("notifications ")},
            "slash commands": counts.get("slash commands", 0),
            "api writes": counts.get("api writes", 0),
            "api reads": counts.get("api reads", 0),
            "incidents opened": final.incidents,
            "incidents expected": result["incidents_expected"],
            "incidents resolved": final.resolved,
            "triages posted": final.triages_posted,
            "postmortems": final.postmortems,
            "slack posts": samples[-1].slack_posts,
            "jobs scheduled later": final.scheduled,
        },
        "errors": errors,
        "log_errors": len(result["log_errors"]),
        "log_warnings": len(result.get("log_warnings", [])),
        "flat": flat,
        "ok": result["drained"]
        and not any(errors.values())
        and not result["log_errors"]
        and (not flat["judged"] or (flat["rss"] and flat["fds"])),
    }


def show(args: argparse.Namespace, result: dict[str, Any], fig: dict[str, Any]) -> None:
    samples: list[Sample] = result["samples"]
    print(
        f"soak: {fig['seconds'] / 60:.1f} min, {args.rate:g} new groups/min, repeats every {args.repeat_seconds:g} s, "
        f"{len(args.packs)} packs' alerts on {args.packs[0]}'s backends, {args.workers} worker threads, "
        f"{'SQLite' if not args.database_url else args.database_url.split(':')[0]}"
    )
    print(" ".join(f"{title:>{width}}" for title, _, width, _ in COLUMNS))
    for s in samples:
        row = s.row()
        values = [
            (row[key] / 60 if key == "seconds" else row[key], width, form) for _, key, width, form in COLUMNS
        ]
        print(" ".join(f"{value:>{width}{form}}" for value, width, form in values))
    r, f, q, w = fig["rss_mib"], fig["fds"], fig["queue"], fig["webhook_ms"]
    print("summary")
    print(
        f"rss MiB: start {r['start']:.1f} end {r['end']:.1f} max {r['max']:.1f} slope {r['slope_per_hour']:.2f}/h"
    )
    print(f"fds: start {f['start']} end {f['end']} max {f['max']}")
    flat = fig["flat"]
    if flat["judged"]:
        print(
            f"flat through the second half: rss {'yes' if flat['rss'] else 'no'} "
            f"({flat['rss_slope_per_hour']:.2f} MiB/h, limit {FLAT_RSS_MIB_PER_HOUR:g}), "
            f"fds {'yes' if flat['fds'] else 'no'} (max {flat['fds_first_half_max']} then "
            f"{flat['fds_second_half_max']})"
        )
    else:
        print(f"flat: not judged (a run under {FLAT_FROM_SECONDS / 60:g} minutes)")
    t = fig["threads"]
    print(f"threads: start {t['start']} end {t['end']} max {t['max']}")
    print(f"queue: max {q['max']} drained {'yes' if q['drained'] else 'no'} in {q['drain_seconds']:.1f} s")
    print(
        f"webhook ms: p50 {w['p50']:.1f} p95 {w['p95']:.1f} p99 {w['p99']:.1f} max {w['max']:.1f} n {w['count']}"
    )
    print("counts: " + ", ".join(f"{k} {v}" for k, v in fig["counts"].items()))
    print("errors: " + ", ".join(f"{k} {v}" for k, v in fig["errors"].items()))
    print(f"log: errors {fig['log_errors']} warnings {fig['log_warnings']}")
    for line in [*result["log_errors"], *result.get("log_warnings", [])][:5]:
        print(f"  {line[:200]}")
    print(f"result: {'ok' if fig['ok'] else 'FAILED'}")
