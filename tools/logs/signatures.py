"""Log signatures: lines that differ only in counts, ids or addresses, grouped, with where and when.

Two ways to the same evidence. Where the licence allows it (Elasticsearch Platinum, Enterprise or
trial), the cluster groups them itself with the `categorize_text` aggregation: exact counts, first
and last seen, pods, nodes and a sample as sub-aggregations. Elsewhere (a Basic licence, which
refuses it with 403 `security_exception`; OpenSearch, which has no such aggregation) `mining` draws
a bounded sample and groups it here. Both end as a `Signature`, rendered into the same evidence.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tools.logs.fields import TIMESTAMP, Fields
from tools.logs.queries import text
from tools.result import Evidence, Source, parse_time

CATEGORIZE = "categorize_text"


@dataclass(frozen=True)
class Signature:
    """One group of alike lines. `count` is exact from `categorize_text`, estimated when mined."""

    key: str
    count: int
    first: datetime | None
    last: datetime | None
    pods: list[str]
    nodes: list[str]
    levels: list[str]
    sample: str
    error: str
    method: str  # "categorize_text", or how the sample was mined
    estimated: bool = False


def categorize_aggs(fields: Fields, size: int) -> dict[str, Any]:
    """The `categorize_text` request: one bucket per signature, with its where and when."""
    subs: dict[str, Any] = {
        "first_seen": {"min": {"field": TIMESTAMP}},
        "last_seen": {"max": {"field": TIMESTAMP}},
        "sample": {
            "top_hits": {"size": 1, "sort": [{TIMESTAMP: "asc"}], "_source": fields.source_fields()},
        },
    }
    if fields.pod is not None and fields.pod.exact:
        subs["pods"] = {"terms": {"field": fields.pod.exact, "size": 10}}
    for i, host in enumerate(h for h in fields.hosts if h.exact):
        subs[f"nodes_{i}"] = {"terms": {"field": host.exact, "size": 10}}
    level = next((lv for lv in fields.levels if lv.exact), None)
    if level is not None:
        subs["levels"] = {"terms": {"field": level.exact, "size": 3}}
    return {
        "signatures": {"categorize_text": {"field": fields.message, "size": size}, "aggs": subs},
        "total": {"value_count": {"field": TIMESTAMP}},
    }


def from_bucket(bucket: dict[str, Any], fields: Fields) -> Signature:
    """A `categorize_text` bucket as a signature."""
    key = str(bucket["key"])
    hits = bucket["sample"]["hits"]["hits"]
    source = hits[0]["_source"] if hits else {}
    nodes: list[str] = []
    for name in sorted(k for k in bucket if k.startswith("nodes_")):
        nodes += [str(b["key"]) for b in bucket[name]["buckets"] if str(b["key"]) not in nodes]
    return Signature(
        key=key,
        count=int(bucket["doc_count"]),
        first=_stamp(bucket["first_seen"]),
        last=_stamp(bucket["last_seen"]),
        pods=[str(b["key"]) for b in (bucket.get("pods") or {}).get("buckets", [])],
        nodes=nodes,
        levels=[str(b["key"]) for b in (bucket.get("levels") or {}).get("buckets", [])],
        sample=text(source, fields.message) if hits else key,
        error=error_detail(source, fields),
        method=CATEGORIZE,
    )


def error_detail(source: Any, fields: Fields) -> str:
    parts = (text(source, fields.error_type), text(source, fields.error_message))
    return ": ".join(p for p in parts if p)


def _stamp(metric: dict[str, Any]) -> datetime | None:
    return parse_time(metric.get("value_as_string") or metric.get("value"))


def evidence(sig: Signature, total: int, query: str, link: str | None) -> Evidence:
    """The evidence item the triage reads (labels as `bot.triage.findings` expects them)."""
    nodes, pods = sig.nodes, sig.pods
    on = f"{', '.join(nodes[:3])}{'…' if len(nodes) > 3 else ''}"
    if pods:
        where = f"{len(pods)} pod{'s' if len(pods) != 1 else ''}" + (f" on {on}" if nodes else "")
    else:  # a node's own line (kernel, kubelet, device plugin), or one with no Kubernetes fields
        where = f"node{'s' if len(nodes) > 1 else ''} {on}" if nodes else "no pod or node"
    share = sig.count / total if total else 0.0
    count = f"{'≈' if sig.estimated else ''}{sig.count} line{'s' if sig.count != 1 else ''}"
    how = f"; {sig.method}" if sig.method != CATEGORIZE else ""
    summary = (
        f"{count} ({share:.0%} of problem lines{how}) like “{sig.sample[:160]}” from {where}"
        + (f", first {sig.first:%H:%M:%S}Z" if sig.first else "")
        + (f", last {sig.last:%H:%M:%S}Z" if sig.last else "")
    )
    return Evidence(
        id=f"logs:sig:{hashlib.sha1(sig.key.encode()).hexdigest()[:10]}",
        source=Source.ELASTICSEARCH,
        query=query,
        summary=summary,
        value=sig.count,
        at=sig.last,
        onset=sig.first,
        link=link,
        labels={
            "kind": "signature",
            "signature": sig.key,
            "sample": sig.sample[:2000],
            # A traceback ends with the exception that says what happened.
            "tail": sig.sample[-500:] if len(sig.sample) > 2000 else "",
            "error": sig.error[:2000],
            "pods": ",".join(pods),
            "nodes": ",".join(nodes),
            "levels": ",".join(sig.levels),
            "share": f"{share:.4f}",
            "method": sig.method,
            "estimated": "true" if sig.estimated else "false",
        },
    )
