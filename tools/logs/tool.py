"""Log evidence: error signatures, error volume, status codes, free search, on any supported cluster.

Aggregations run in the cluster, never by pulling documents, except the bounded sample signatures are
mined from where `categorize_text` is refused. What the tool learns of a cluster is learnt once and
kept: its flavour, its field preset (from `_field_caps`), and whether it refused `categorize_text`
(a Basic cluster is not asked again on every call). An answer with failed shards or a timeout still
gives its evidence, with a gap that says the counts are partial.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from tools.dotted import lookup
from tools.logs.client import Flavour, LogClient
from tools.logs.fields import PRESETS, TIMESTAMP, Fields, choose
from tools.logs.mining import mine, sample_body
from tools.logs.queries import LogScope, iso, problems, text
from tools.logs.signatures import categorize_aggs, evidence, from_bucket
from tools.result import DEFAULT_TIMEOUT, Evidence, Gap, Source, ToolResult, Window, bounded, parse_time

FIELD_SETTINGS = ("auto", *PRESETS)


class Refused(Exception):
    """The cluster cannot run `categorize_text` (licence, or OpenSearch); the signatures are mined."""


class LogTool:
    """Aggregated views of the logs in the incident window."""

    def __init__(
        self,
        client: LogClient,
        *,
        index: str,
        timeout: float = DEFAULT_TIMEOUT,
        kibana_url: str | None = None,
        fields: str = "auto",
    ) -> None:
        if fields not in FIELD_SETTINGS:
            raise ValueError(f"logs fields must be one of {', '.join(FIELD_SETTINGS)}, not {fields!r}")
        self.client = client
        self._index = index
        self._timeout = timeout
        self._kibana = kibana_url.rstrip("/") if kibana_url else None
        self._wanted = fields
        self._fields: Fields | None = None
        self._lock = threading.Lock()
        self.categorize_refused: str | None = None  # why, once the cluster said no

    # -- what the tool learns once

    def fields(self) -> Fields:
        """The field preset, resolved against the index (asked once it has fields)."""
        with self._lock:
            if self._fields is not None:
                return self._fields
            caps, final = self._caps()
            chosen, _ = choose(caps, self._wanted)
            if final:
                self._fields = chosen
            return chosen

    def _caps(self) -> tuple[dict[str, Any], bool]:
        """The index's field capabilities, and whether to keep what they give: an index with no fields
        yet, or a failure other than a refusal, is asked again next time (the preset's names are
        assumed meanwhile)."""
        wanted = sorted({n for p in PRESETS.values() for n in p.candidates()})
        try:
            answer = self.client.field_caps(self._index, wanted)
        except Exception as exc:
            status = getattr(exc, "status_code", None) or getattr(getattr(exc, "meta", None), "status", None)
            return {}, status in (401, 403)  # no privilege to read them: do not ask on every call
        caps = dict(answer.get("fields") or {})
        return caps, bool(caps)

    # -- plumbing

    def _bounded(self, what: str, call: Callable[[], ToolResult]) -> ToolResult:
        got = bounded(Source.ELASTICSEARCH, what, call, timeout=self._timeout)
        return ToolResult.from_gap(got) if isinstance(got, Gap) else got

    def _partial(
        self, what: str, answer: dict[str, Any], evidence: list[Evidence], extra: str = ""
    ) -> ToolResult:
        """The evidence, with a gap when some shards failed or the search timed out."""
        shards = answer.get("_shards") or {}
        partial = []
        if int(shards.get("failed") or 0) > 0:
            reason = ((shards.get("failures") or [{}])[0].get("reason")) or {}
            cause = reason.get("reason") or reason.get("type")
            failed = f"{shards['failed']} of {shards.get('total', '?')} shards failed"
            partial.append(failed + (f" ({cause})" if cause else ""))
        if answer.get("timed_out"):
            partial.append("the search timed out")
        reasons = ["; ".join(partial) + ", counts are partial"] if partial else []
        reasons += [extra] if extra else []
        if not reasons:
            return ToolResult.of(evidence)
        return ToolResult.partial(
            evidence, Gap(source=Source.ELASTICSEARCH, what=what, reason="; ".join(reasons))
        )

    def link(self, kql: str, window: Window) -> str | None:
        """A Kibana Discover link for the window, when Kibana's URL is configured."""
        if self._kibana is None:
            return None
        g = f"(time:(from:'{iso(window.start)}',to:'{iso(window.as_of)}'))"
        a = f"(query:(language:kuery,query:'{kql.replace(chr(39), '!' + chr(39))}'))"
        return f"{self._kibana}/app/discover#/?_g={quote(g, safe='():,')}&_a={quote(a, safe='():,')}"

    def _query_text(self, body: dict[str, Any]) -> str:
        return f"GET {self._index}/_search " + json.dumps(body, separators=(",", ":"), sort_keys=True)

    # -- the views

    def error_signatures(self, scope: LogScope, window: Window, *, size: int = 20) -> ToolResult:
        """Warning and error lines grouped into signatures, most frequent first."""
        return self._bounded("error signatures", lambda: self._signatures(scope, window, size))

    def _signatures(self, scope: LogScope, window: Window, size: int) -> ToolResult:
        fields = self.fields()
        query = {"bool": {"filter": [*scope.filters(window, fields), problems(fields)]}}
        if self.categorize_refused is None and self.client.flavour is Flavour.OPENSEARCH:
            self.categorize_refused = "OpenSearch has no categorize_text"
        if self.categorize_refused is None:
            body = {
                "query": query,
                "aggs": categorize_aggs(fields, size),
                "size": 0,
                "track_total_hits": True,
            }
            try:
                answer = self._refusable(body)
            except Refused as refused:
                self.categorize_refused = str(refused)
            else:
                total = int(answer["hits"]["total"]["value"])
                buckets = (answer.get("aggregations") or {}).get("signatures", {}).get("buckets", [])
                shown = self._query_text({"query": query, "aggs": body["aggs"], "size": 0})
                found = [from_bucket(b, fields) for b in buckets]
                items = [evidence(s, total, shown, self._sig_link(s.key, fields, window)) for s in found]
                return self._partial("error signatures", answer, items)
        body = sample_body(query, fields, window)
        answer = self.client.search(self._index, body)
        total = int(answer["hits"]["total"]["value"])
        shown = self._query_text(body)
        mined = mine(answer, fields, total, size)
        items = [evidence(s, total, shown, self._sig_link(s.key, fields, window)) for s in mined]
        return self._partial("error signatures", answer, items)

    def _refusable(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.client.search(self._index, body)
        except Exception as exc:
            reason = refusal(exc)
            if reason is None:
                raise
            raise Refused(reason) from exc

    def _sig_link(self, key: str, fields: Fields, window: Window) -> str | None:
        words = [w for w in key.split() if not (w.startswith("<") and w.endswith(">"))][:6]
        return self.link(" and ".join(f'{fields.message}:"{w}"' for w in words), window)

    def error_volume(self, scope: LogScope, window: Window) -> ToolResult:
        """Problem lines per service and per pod over the window."""
        return self._bounded("error volume", lambda: self._volume(scope, window))

    def _volume(self, scope: LogScope, window: Window) -> ToolResult:
        fields = self.fields()
        query = {"bool": {"filter": [*scope.filters(window, fields), problems(fields)]}}
        aggs: dict[str, Any] = {}
        if fields.service is not None and fields.service.exact:
            aggs["services"] = {"terms": {"field": fields.service.exact, "size": 20}}
        if fields.pod is not None and fields.pod.exact:
            pod_subs: dict[str, Any] = {"first_seen": {"min": {"field": TIMESTAMP}}}
            if fields.node is not None and fields.node.exact:
                pod_subs["node"] = {"terms": {"field": fields.node.exact, "size": 1}}
            aggs["pods"] = {"terms": {"field": fields.pod.exact, "size": 50}, "aggs": pod_subs}
        missing = (
            ""
            if "pods" in aggs
            else "no per-pod counts: "
            + (f"{fields.pod.name} is text without a keyword sub-field" if fields.pod else "no pod field")
        )
        if not aggs:
            return ToolResult.failed(Source.ELASTICSEARCH, "error volume", missing)
        body = {"query": query, "aggs": aggs, "size": 0}
        answer = self.client.search(self._index, body)
        shown = self._query_text(body)
        service_field = fields.service.name if fields.service else ""
        items = []
        for bucket in (answer.get("aggregations") or {}).get("services", {}).get("buckets", []):
            items.append(
                Evidence(
                    id=f"logs:volume:service:{bucket['key']}",
                    source=Source.ELASTICSEARCH,
                    query=shown,
                    summary=f"service {bucket['key']}: {bucket['doc_count']} warning/error lines in the window",
                    value=int(bucket["doc_count"]),
                    at=window.as_of,
                    link=self.link(f'{service_field}:"{bucket["key"]}"', window),
                    labels={"kind": "volume", "service": str(bucket["key"])},
                )
            )
        pod_field = fields.pod.name if fields.pod else ""
        for bucket in (answer.get("aggregations") or {}).get("pods", {}).get("buckets", []):
            node = next((b["key"] for b in (bucket.get("node") or {}).get("buckets", [])), "")
            first = parse_time(
                bucket["first_seen"].get("value_as_string") or bucket["first_seen"].get("value")
            )
            items.append(
                Evidence(
                    id=f"logs:volume:pod:{bucket['key']}",
                    source=Source.ELASTICSEARCH,
                    query=shown,
                    summary=f"pod {bucket['key']} ({node or 'node unknown'}): {bucket['doc_count']} problem lines",
                    value=int(bucket["doc_count"]),
                    at=window.as_of,
                    onset=first,
                    link=self.link(f'{pod_field}:"{bucket["key"]}"', window),
                    labels={"kind": "volume", "pod": str(bucket["key"]), "node": str(node)},
                )
            )
        return self._partial("error volume", answer, items, missing)

    def status_codes(self, scope: LogScope, window: Window) -> ToolResult:
        """HTTP status-code distribution of the access logs, with when each code first appeared."""
        return self._bounded("status codes", lambda: self._status(scope, window))

    def _status(self, scope: LogScope, window: Window) -> ToolResult:
        fields = self.fields()
        status = fields.status
        if status is None or not status.exact:
            return ToolResult.of([])  # no status field in these logs: nothing to count, not a failure
        query = {"bool": {"filter": [*scope.filters(window, fields), {"exists": {"field": status.name}}]}}
        subs: dict[str, Any] = {"first_seen": {"min": {"field": TIMESTAMP}}}
        if fields.pod is not None and fields.pod.exact:
            subs["pods"] = {"terms": {"field": fields.pod.exact, "size": 10}}
        aggs = {"codes": {"terms": {"field": status.exact, "size": 20}, "aggs": subs}}
        body = {"query": query, "aggs": aggs, "size": 0, "track_total_hits": True}
        answer = self.client.search(self._index, body)
        shown = self._query_text({"query": query, "aggs": aggs, "size": 0})
        total = int(answer["hits"]["total"]["value"]) or 1
        items = []
        for bucket in (answer.get("aggregations") or {}).get("codes", {}).get("buckets", []):
            code = str(bucket["key"])
            first = parse_time(
                bucket["first_seen"].get("value_as_string") or bucket["first_seen"].get("value")
            )
            pods = [b["key"] for b in (bucket.get("pods") or {}).get("buckets", [])]
            share = bucket["doc_count"] / total
            items.append(
                Evidence(
                    id=f"logs:status:{code}",
                    source=Source.ELASTICSEARCH,
                    query=shown,
                    summary=f"HTTP {code}: {bucket['doc_count']} responses ({share:.1%}) from {len(pods)} pods"
                    + (f", first {first:%H:%M:%S}Z" if first else ""),
                    value=int(bucket["doc_count"]),
                    at=window.as_of,
                    onset=first,
                    link=self.link(f"{status.name}:{code}", window),
                    labels={"kind": "status", "code": code, "share": f"{share:.4f}", "pods": ",".join(pods)},
                )
            )
        return self._partial("status codes", answer, items)

    def search(self, text: str, scope: LogScope, window: Window, *, size: int = 20) -> ToolResult:
        """Free search for the agent: lines matching `text`, newest first."""
        return self._bounded("search", lambda: self._free(text, scope, window, size))

    def _free(self, wanted: str, scope: LogScope, window: Window, size: int) -> ToolResult:
        fields = self.fields()
        query = {
            "bool": {"filter": scope.filters(window, fields), "must": [{"match": {fields.message: wanted}}]}
        }
        body = {"query": query, "size": min(size, 100), "sort": [{TIMESTAMP: "desc"}]}
        answer = self.client.search(self._index, body)
        shown = self._query_text({"query": query, "size": size})
        items = []
        for hit in answer["hits"]["hits"]:
            source = hit.get("_source") or {}
            pod = text(source, fields.pod.name) if fields.pod else ""
            items.append(
                Evidence(
                    id=f"logs:hit:{hit['_id']}",
                    source=Source.ELASTICSEARCH,
                    query=shown,
                    summary=f"{lookup(source, TIMESTAMP)} {pod}: {text(source, fields.message)[:200]}",
                    value=None,
                    at=parse_time(lookup(source, TIMESTAMP)),
                    link=self.link(f'{fields.message}:"{wanted}"', window),
                    labels={"kind": "hit", "pod": pod},
                )
            )
        return self._partial("search", answer, items)


def refusal(exc: BaseException) -> str | None:
    """Why the cluster refused `categorize_text`, if that is what `exc` is; None for any other failure."""
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "meta", None), "status", None)
    said = (
        str(exc)
        + " "
        + json.dumps(getattr(exc, "body", None) or getattr(exc, "info", None) or {}, default=str)
    )
    if status == 403 and "categorize-text" in said:
        return "the cluster's licence does not include categorize_text (Platinum), 403 security_exception"
    if status == 400 and "Unknown aggregation type [categorize_text]" in said:
        return "the cluster has no categorize_text aggregation (400 parsing_exception)"
    return None
