"""Which evidence a triage cites: causal first, redundant series folded, every backend heard.

A responder reads the cited list top-down in a minute. Seven windows of the same SLO, one signal
under its old and new metric names, one series per replica saying the same thing: each is one fact,
cited once, with the number of series it stands for. And when a backend showed something abnormal
(a node whose allocatable GPUs dropped, a pod that restarted, a faulty card), it is cited even when
the metrics fill the list.
"""

from __future__ import annotations

from tools.result import Evidence, Source

# Labels that only say which copy of a series it is: the replica, the SLO window, the scrape
# target, the metric name generation (the catalog's query key), the card of a node.
COPY_LABELS = frozenset(
    {"pod", "instance", "window", "sloth_window", "sloth_id", "engine", "container", "job", "service"}
    | {"uid", "endpoint", "gpu", "exported_pod", "exported_container", "hour_before", "le"}
)


def fold_key(item: Evidence) -> tuple[str, ...]:
    """Items with equal keys say the same thing; non-metric evidence never folds."""
    name = item.labels.get("signal")
    if item.source is not Source.PROMETHEUS or not name or item.id == "prom:alert":
        return (item.id,)
    rest = sorted(f"{k}={v}" for k, v in item.labels.items() if k not in COPY_LABELS and k != "signal")
    return (name, *rest)


def folded(items: list[Evidence]) -> list[Evidence]:
    """One item per fold key, in first-seen order; a folded item says how many series it stands for."""
    groups: dict[tuple[str, ...], list[Evidence]] = {}
    for item in items:
        groups.setdefault(fold_key(item), []).append(item)
    out = []
    for group in groups.values():
        first = group[0]
        if len(group) > 1:
            first = first.model_copy(update={"summary": f"{first.summary} (1 of {len(group)} series alike)"})
        out.append(first)
    return out


def noteworthy(item: Evidence) -> bool:
    """Abnormal, by what its backend reports: a crossed threshold, an unhealthy node or pod, a faulty card."""
    labels = item.labels
    return (
        labels.get("abnormal") == "true"
        or labels.get("healthy") == "false"
        or labels.get("faulty") == "true"
        or labels.get("app_fault") == "true"
        or (labels.get("kind") == "pod" and labels.get("ready") == "false")
        or (labels.get("kind") == "event" and "recurring_since" not in labels)
    )


def diverse(items: list[Evidence], limit: int) -> list[Evidence]:
    """The first `limit` items, with the first noteworthy item of each backend the list would
    otherwise leave out taking the place of the last ones."""
    chosen = items[:limit]
    heard = {e.source for e in chosen}
    missing = []
    for item in items[limit:]:
        if item.source not in heard and noteworthy(item):
            missing.append(item)
            heard.add(item.source)
    if not missing:
        return chosen
    return chosen[: limit - len(missing)] + missing
