"""Log evidence from Elasticsearch: error signatures, error volume, status codes, free search.

Aggregations run in Elasticsearch, never by pulling documents: signatures come from the
`categorize_text` aggregation (its ml_standard tokenizer drops numbers and hex, and tokens that vary
across a category drop out of its key, so lines that differ only in counts, ids or addresses fall
into one category), with first/last seen, pods, nodes and a sample as sub-aggregations.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from elasticsearch import Elasticsearch

from tools.result import DEFAULT_TIMEOUT, Evidence, Gap, Source, ToolResult, Window, bounded, parse_time

PROBLEM_LEVELS = [
    "warn",
    "warning",
    "WARN",
    "WARNING",
    "error",
    "ERROR",
    "err",
    "critical",
    "CRITICAL",
    "crit",
    "fatal",
    "FATAL",
    "alert",
    "emerg",
    "panic",
]


def connect(url: str, *, timeout: float = DEFAULT_TIMEOUT, api_key: str | None = None) -> Elasticsearch:
    """An official client that gives up at the tool's deadline and does not retry into a slow cluster."""
    return Elasticsearch(url, api_key=api_key, request_timeout=timeout, max_retries=0, retry_on_timeout=False)


@dataclass(frozen=True)
class LogScope:
    """Which documents belong to the incident."""

    namespace: str | None = None
    pods: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    pod_prefixes: list[str] = field(default_factory=list)  # a deployment's pods, past and present

    def filters(self, window: Window) -> list[dict[str, Any]]:
        """The incident's documents: its pods' lines in its namespace, and the node-level lines
        (kernel, kubelet, device plugin: a node name and no namespace) of the nodes its pods run on,
        where an Xid or a NIC going down is logged."""
        clauses: list[dict[str, Any]] = [
            {"range": {"@timestamp": {"gte": _iso(window.start), "lte": _iso(window.as_of)}}}
        ]
        mine: list[dict[str, Any]] = []
        if self.namespace:
            mine.append({"term": {"kubernetes.namespace": self.namespace}})
        who: list[dict[str, Any]] = []
        if self.pods:
            who.append({"terms": {"kubernetes.pod.name": self.pods}})
        if self.services:
            who.append({"terms": {"service.name": self.services}})
        who.extend({"prefix": {"kubernetes.pod.name": prefix}} for prefix in self.pod_prefixes)
        if who:
            mine.append({"bool": {"should": who, "minimum_should_match": 1}})
        if not self.nodes:
            return clauses + mine
        on_nodes = [{"terms": {field: self.nodes}} for field in NODE_FIELDS]
        node_level = {
            "bool": {
                "filter": [{"bool": {"should": on_nodes, "minimum_should_match": 1}}],
                "must_not": [{"exists": {"field": "kubernetes.namespace"}}],
            }
        }
        either = [{"bool": {"filter": mine}}, node_level] if mine else [node_level]
        return [*clauses, {"bool": {"should": either, "minimum_should_match": 1}}]


# Where a shipper puts the node of a node-level line (Filebeat, Fluent Bit and Vector, journald).
NODE_FIELDS = ("kubernetes.node.name", "host.name", "host.hostname")


PROBLEMS: dict[str, Any] = {
    "bool": {
        "should": [
            {"terms": {"log.level": PROBLEM_LEVELS}},
            {"terms": {"log.syslog.severity.name": PROBLEM_LEVELS}},  # kernel and journald lines
            {"range": {"http.response.status_code": {"gte": 400}}},
            {"exists": {"field": "error.type"}},
        ],
        "minimum_should_match": 1,
    }
}


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class LogTool:
    """Aggregated views of the logs in the incident window."""

    def __init__(
        self,
        client: Elasticsearch,
        *,
        index: str,
        timeout: float = DEFAULT_TIMEOUT,
        kibana_url: str | None = None,
    ) -> None:
        self._es = client
        self._index = index
        self._timeout = timeout
        self._kibana = kibana_url.rstrip("/") if kibana_url else None

    def _search(self, what: str, **body: Any) -> dict[str, Any] | Gap:
        call: Callable[[], Any] = lambda: self._es.search(index=self._index, **body)  # noqa: E731
        got = bounded(Source.ELASTICSEARCH, what, call, timeout=self._timeout)
        return got if isinstance(got, Gap) else dict(got.body)

    def link(self, kql: str, window: Window) -> str | None:
        """A Kibana Discover link for the window, when Kibana's URL is configured."""
        if self._kibana is None:
            return None
        g = f"(time:(from:'{_iso(window.start)}',to:'{_iso(window.as_of)}'))"
        a = f"(query:(language:kuery,query:'{kql.replace(chr(39), '!' + chr(39))}'))"
        return f"{self._kibana}/app/discover#/?_g={quote(g, safe='():,')}&_a={quote(a, safe='():,')}"

    def _query_text(self, query: dict[str, Any]) -> str:
        return f"GET {self._index}/_search " + json.dumps(query, separators=(",", ":"), sort_keys=True)

    def error_signatures(self, scope: LogScope, window: Window, *, size: int = 20) -> ToolResult:
        """Warning and error lines grouped into signatures, most frequent first."""
        query = {"bool": {"filter": [*scope.filters(window), PROBLEMS]}}
        aggs = {
            "signatures": {
                "categorize_text": {"field": "message", "size": size},
                "aggs": {
                    "first_seen": {"min": {"field": "@timestamp"}},
                    "last_seen": {"max": {"field": "@timestamp"}},
                    "pods": {"terms": {"field": "kubernetes.pod.name", "size": 10}},
                    "nodes": {"terms": {"field": "kubernetes.node.name", "size": 10}},
                    "hosts": {"terms": {"field": "host.name", "size": 10}},
                    "levels": {"terms": {"field": "log.level", "size": 3}},
                    "sample": {
                        "top_hits": {
                            "size": 1,
                            "sort": [{"@timestamp": "asc"}],
                            "_source": ["message", "error.type", "error.message"],
                        }
                    },
                },
            },
            "total": {"value_count": {"field": "@timestamp"}},
        }
        got = self._search("error signatures", query=query, aggs=aggs, size=0, track_total_hits=True)
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        text = self._query_text({"query": query, "aggs": aggs, "size": 0})
        total = int(got["hits"]["total"]["value"])
        evidence = []
        for bucket in got.get("aggregations", {}).get("signatures", {}).get("buckets", []):
            evidence.append(self._signature(bucket, total, text, window))
        return ToolResult.of(evidence)

    def _signature(self, bucket: dict[str, Any], total: int, text: str, window: Window) -> Evidence:
        key = str(bucket["key"])
        count = int(bucket["doc_count"])
        first = parse_time(bucket["first_seen"].get("value_as_string") or bucket["first_seen"].get("value"))
        last = parse_time(bucket["last_seen"].get("value_as_string") or bucket["last_seen"].get("value"))
        pods = [b["key"] for b in bucket["pods"]["buckets"]]
        nodes = [b["key"] for b in bucket["nodes"]["buckets"]]
        nodes += [h for b in (bucket.get("hosts") or {}).get("buckets", []) if (h := b["key"]) not in nodes]
        levels = [b["key"] for b in bucket["levels"]["buckets"]]
        hits = bucket["sample"]["hits"]["hits"]
        source = hits[0]["_source"] if hits else {}
        sample = str(source.get("message", "")) if hits else key
        error = source.get("error") or {}
        detail = ": ".join(str(error[k]) for k in ("type", "message") if error.get(k))
        on = f"{', '.join(nodes[:3])}{'…' if len(nodes) > 3 else ''}"
        if pods:
            where = f"{len(pods)} pod{'s' if len(pods) != 1 else ''}" + (f" on {on}" if nodes else "")
        else:  # a node's own line (kernel, kubelet, device plugin), or one with no Kubernetes fields
            where = f"node{'s' if len(nodes) > 1 else ''} {on}" if nodes else "no pod or node"
        share = count / total if total else 0.0
        summary = (
            f"{count} line{'s' if count != 1 else ''} ({share:.0%} of problem lines) like “{sample[:160]}” "
            f"from {where}"
            + (f", first {first:%H:%M:%S}Z" if first else "")
            + (f", last {last:%H:%M:%S}Z" if last else "")
        )
        return Evidence(
            id=f"logs:sig:{hashlib.sha1(key.encode()).hexdigest()[:10]}",
            source=Source.ELASTICSEARCH,
            query=text,
            summary=summary,
            value=count,
            at=last,
            onset=first,
            link=self.link(" and ".join(f'message:"{w}"' for w in key.split()[:6]), window),
            labels={
                "kind": "signature",
                "signature": key,
                "sample": sample[:2000],
                # A traceback ends with the exception that says what happened.
                "tail": sample[-500:] if len(sample) > 2000 else "",
                "error": detail[:2000],
                "pods": ",".join(pods),
                "nodes": ",".join(nodes),
                "levels": ",".join(levels),
                "share": f"{share:.4f}",
            },
        )

    def error_volume(self, scope: LogScope, window: Window) -> ToolResult:
        """Problem lines per service and per pod over the window."""
        query = {"bool": {"filter": [*scope.filters(window), PROBLEMS]}}
        aggs = {
            "services": {"terms": {"field": "service.name", "size": 20}},
            "pods": {
                "terms": {"field": "kubernetes.pod.name", "size": 50},
                "aggs": {
                    "node": {"terms": {"field": "kubernetes.node.name", "size": 1}},
                    "first_seen": {"min": {"field": "@timestamp"}},
                },
            },
        }
        got = self._search("error volume", query=query, aggs=aggs, size=0)
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        text = self._query_text({"query": query, "aggs": aggs, "size": 0})
        evidence = []
        for bucket in got["aggregations"]["services"]["buckets"]:
            evidence.append(
                Evidence(
                    id=f"logs:volume:service:{bucket['key']}",
                    source=Source.ELASTICSEARCH,
                    query=text,
                    summary=f"service {bucket['key']}: {bucket['doc_count']} warning/error lines in the window",
                    value=int(bucket["doc_count"]),
                    at=window.as_of,
                    link=self.link(f'service.name:"{bucket["key"]}"', window),
                    labels={"kind": "volume", "service": str(bucket["key"])},
                )
            )
        for bucket in got["aggregations"]["pods"]["buckets"]:
            node = next((b["key"] for b in bucket["node"]["buckets"]), "")
            first = parse_time(
                bucket["first_seen"].get("value_as_string") or bucket["first_seen"].get("value")
            )
            evidence.append(
                Evidence(
                    id=f"logs:volume:pod:{bucket['key']}",
                    source=Source.ELASTICSEARCH,
                    query=text,
                    summary=f"pod {bucket['key']} ({node or 'node unknown'}): {bucket['doc_count']} problem lines",
                    value=int(bucket["doc_count"]),
                    at=window.as_of,
                    onset=first,
                    link=self.link(f'kubernetes.pod.name:"{bucket["key"]}"', window),
                    labels={"kind": "volume", "pod": str(bucket["key"]), "node": str(node)},
                )
            )
        return ToolResult.of(evidence)

    def status_codes(self, scope: LogScope, window: Window) -> ToolResult:
        """HTTP status-code distribution of the access logs, with when each code first appeared."""
        query = {
            "bool": {"filter": [*scope.filters(window), {"exists": {"field": "http.response.status_code"}}]}
        }
        aggs = {
            "codes": {
                "terms": {"field": "http.response.status_code", "size": 20},
                "aggs": {
                    "first_seen": {"min": {"field": "@timestamp"}},
                    "pods": {"terms": {"field": "kubernetes.pod.name", "size": 10}},
                },
            }
        }
        got = self._search("status codes", query=query, aggs=aggs, size=0, track_total_hits=True)
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        text = self._query_text({"query": query, "aggs": aggs, "size": 0})
        total = int(got["hits"]["total"]["value"]) or 1
        evidence = []
        for bucket in got["aggregations"]["codes"]["buckets"]:
            code = str(bucket["key"])
            first = parse_time(
                bucket["first_seen"].get("value_as_string") or bucket["first_seen"].get("value")
            )
            pods = [b["key"] for b in bucket["pods"]["buckets"]]
            share = bucket["doc_count"] / total
            evidence.append(
                Evidence(
                    id=f"logs:status:{code}",
                    source=Source.ELASTICSEARCH,
                    query=text,
                    summary=f"HTTP {code}: {bucket['doc_count']} responses ({share:.1%}) from {len(pods)} pods"
                    + (f", first {first:%H:%M:%S}Z" if first else ""),
                    value=int(bucket["doc_count"]),
                    at=window.as_of,
                    onset=first,
                    link=self.link(f"http.response.status_code:{code}", window),
                    labels={"kind": "status", "code": code, "share": f"{share:.4f}", "pods": ",".join(pods)},
                )
            )
        return ToolResult.of(evidence)

    def search(self, text: str, scope: LogScope, window: Window, *, size: int = 20) -> ToolResult:
        """Free search for the agent: lines matching `text`, newest first."""
        query = {"bool": {"filter": scope.filters(window), "must": [{"match": {"message": text}}]}}
        got = self._search("search", query=query, size=min(size, 100), sort=[{"@timestamp": "desc"}])
        if isinstance(got, Gap):
            return ToolResult.from_gap(got)
        body = self._query_text({"query": query, "size": size})
        evidence = []
        for hit in got["hits"]["hits"]:
            source = hit["_source"]
            pod = ((source.get("kubernetes") or {}).get("pod") or {}).get("name", "")
            evidence.append(
                Evidence(
                    id=f"logs:hit:{hit['_id']}",
                    source=Source.ELASTICSEARCH,
                    query=body,
                    summary=f"{source.get('@timestamp')} {pod}: {str(source.get('message', ''))[:200]}",
                    value=None,
                    at=parse_time(source.get("@timestamp")),
                    link=self.link(f'message:"{text}"', window),
                    labels={"kind": "hit", "pod": pod},
                )
            )
        return ToolResult.of(evidence)
