"""The log tool on every supported cluster, through the official clients against the stand-in answering as
Elasticsearch 9 (Platinum), Elasticsearch 8 (Basic) and OpenSearch 2, on the example pack's logs, in ECS,
Fluent Bit and flat shapes. What each answers is checked against the pack's own lines."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import pytest
from elasticsearch import Elasticsearch, UnsupportedProductError

from bot.sandbox.elasticsearch import (
    ELASTICSEARCH_8_BASIC,
    ELASTICSEARCH_9,
    OPENSEARCH_2,
    ElasticsearchStandIn,
    ServerProfile,
    ShardFailures,
)
from bot.sandbox.elasticsearch.shapes import flat, fluentbit
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from tools.logs import Flavour, LogScope, LogTool, connect
from tools.result import Status, ToolResult, Window

PREFIX = "vllm-llama31-8b-support-"
Doc = dict[str, Any]


@contextmanager
def serving(
    example: Pack,
    profile: ServerProfile = ELASTICSEARCH_9,
    shape: Callable[[Doc], Doc] | None = None,
    strings: str = "ecs",
    extra: list[Doc] | None = None,
) -> Iterator[tuple[LogTool, ElasticsearchStandIn]]:
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=profile)
    docs = [*example.logs, *(extra or [])]
    standin.index_documents(
        example.meta.logs_index, [shape(d) if shape else d for d in docs], strings=strings
    )
    with ServerThread(standin.app) as server:
        client = connect(server.url)
        yield LogTool(client, index=example.meta.logs_index), standin
        client.close()


def window(example: Pack) -> Window:
    return Window.around(example.alert.alerts[0].startsAt, example.meta.as_of)


def scope(nodes: list[str] | None = None) -> LogScope:
    return LogScope(namespace="support-bot", deployments=[PREFIX.rstrip("-")], nodes=nodes or [])


def in_window(example: Pack) -> list[Doc]:
    w = window(example)
    mine = [d for d in example.logs if d["kubernetes"]["pod"]["name"].startswith(PREFIX)]
    return [d for d in mine if w.start <= datetime.fromisoformat(d["@timestamp"]) <= w.as_of]


def warnings(example: Pack) -> list[Doc]:
    return [d for d in in_window(example) if d["log"]["level"] in ("warn", "error")]


def categorize_requests(standin: ElasticsearchStandIn) -> int:
    return sum("categorize_text" in json.dumps(r.get("aggs", {})) for r in standin.requests)


def pods_of(result: ToolResult) -> dict[str, Any]:
    return {e.labels["pod"]: e.value for e in result.evidence if "pod" in e.labels}


def codes_of(result: ToolResult) -> dict[str, Any]:
    return {e.labels["code"]: e.value for e in result.evidence}


def expected_codes(example: Pack) -> dict[str, int]:
    return dict(Counter(str(d["http"]["response"]["status_code"]) for d in in_window(example) if "http" in d))


def expected_pods(example: Pack) -> dict[str, int]:
    return dict(Counter(d["kubernetes"]["pod"]["name"] for d in warnings(example)))


# ----------------------------------------------------------------------------------- licences


def test_platinum_groups_signatures_with_categorize_text(example: Pack) -> None:
    with serving(example, ELASTICSEARCH_9) as (tool, standin):
        result = tool.error_signatures(scope(), window(example))
    top = result.evidence[0]
    assert result.status is Status.OK and result.gap is None
    assert top.labels["method"] == "categorize_text" and top.labels["estimated"] == "false"
    assert top.value == len(warnings(example))
    assert categorize_requests(standin) == 1


def test_basic_licence_mines_signatures_once_refused(example: Pack) -> None:
    with serving(example, ELASTICSEARCH_8_BASIC) as (tool, standin):
        first = tool.error_signatures(scope(), window(example))
        again = tool.error_signatures(scope(), window(example))
    assert first.status is Status.OK and first.gap is None
    top = first.evidence[0]
    assert "preempted by PreemptionMode.RECOMPUTE" in top.labels["sample"]
    assert top.labels["method"].startswith("mined from")
    assert top.value == len(warnings(example))  # the sample held every line: the count is exact
    assert set(top.labels["pods"].split(",")) == {d["kubernetes"]["pod"]["name"] for d in warnings(example)}
    assert top.onset == min(datetime.fromisoformat(d["@timestamp"]) for d in warnings(example))
    assert "mined from" in top.summary
    assert tool.categorize_refused is not None and "licence" in tool.categorize_refused
    assert categorize_requests(standin) == 1  # the Basic cluster was not asked again
    assert [e.labels["signature"] for e in again.evidence] == [e.labels["signature"] for e in first.evidence]


def test_a_large_window_is_sampled_and_its_counts_estimated(example: Pack) -> None:
    """Far more problem lines than the sample holds: the count is scaled and the evidence says so."""
    base = warnings(example)[0]
    stamps = [example.meta.as_of - timedelta(seconds=i + 1) for i in range(2100)]
    many = [base | {"@timestamp": at.strftime("%Y-%m-%dT%H:%M:%S.000Z")} for at in stamps]
    with serving(example, ELASTICSEARCH_8_BASIC, extra=many) as (tool, _):
        result = tool.error_signatures(scope(), window(example))
    top = result.evidence[0]
    assert top.labels["estimated"] == "true" and "sample of" in top.labels["method"]
    assert top.summary.startswith("≈")
    lines = len(warnings(example)) + 2100
    assert abs(int(top.value or 0) - lines) <= 0.05 * lines


# --------------------------------------------------------------------------------- OpenSearch


def test_opensearch_is_read_through_its_own_client(example: Pack) -> None:
    with serving(example, OPENSEARCH_2) as (tool, standin):
        signatures = tool.error_signatures(scope(), window(example))
        volume = tool.error_volume(scope(), window(example))
        codes = tool.status_codes(scope(), window(example))
        hits = tool.search("preempted", scope(), window(example), size=3)
        flavour = tool.client.flavour
    assert flavour is Flavour.OPENSEARCH
    assert categorize_requests(standin) == 0  # OpenSearch has none: never asked
    assert signatures.evidence[0].labels["method"].startswith("mined from")
    assert signatures.evidence[0].value == len(warnings(example))
    assert pods_of(volume) == expected_pods(example)
    assert codes_of(codes) == expected_codes(example)
    assert len(hits.evidence) == 3 and all("preempted" in h.summary for h in hits.evidence)


def test_the_opensearch_stand_in_is_refused_by_the_elasticsearch_client(example: Pack) -> None:
    """Honest stand-in: no X-Elastic-Product header, so the Elasticsearch client refuses it, and
    categorize_text is an unknown aggregation there."""
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=OPENSEARCH_2)
    standin.index_documents("logs-x", example.logs[:5])
    with ServerThread(standin.app) as server:
        with Elasticsearch(server.url) as es, pytest.raises(UnsupportedProductError):
            es.info()
        from opensearchpy import OpenSearch, RequestError

        client = OpenSearch([server.url])
        assert client.info()["version"]["distribution"] == "opensearch"
        with pytest.raises(RequestError) as refused:
            client.search(index="logs-x", body={"aggs": {"s": {"categorize_text": {"field": "message"}}}})
        client.close()
    assert refused.value.error == "parsing_exception"
    assert "Unknown aggregation type [categorize_text]" in str(refused.value.info)


# ---------------------------------------------------------------------------- client versions


NINE = "application/vnd.elasticsearch+json; compatible-with=9"


def test_an_8x_cluster_refuses_the_9x_client_and_answers_the_pinned_one(example: Pack) -> None:
    """The 9.x client sends compatible-with=9 (elasticsearch-py 9 _base.py); an 8.x cluster answers
    400 media_type_header_exception. The pinned 8.x client sends compatible-with=8 and is answered."""
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=ELASTICSEARCH_8_BASIC)
    with ServerThread(standin.app) as server, Elasticsearch(server.url) as pinned:
        # the request a 9.x client makes, through the same transport layer it uses
        refused = pinned.transport.perform_request(
            "POST", "/logs-*/_search", headers={"accept": NINE, "content-type": NINE}, body={"size": 0}
        )
        info = pinned.info()
        licence = pinned.license.get()["license"]["type"]
    assert refused.meta.status == 400
    error = refused.body["error"]
    assert error["type"] == "media_type_header_exception"
    assert error["caused_by"]["reason"].startswith(
        "Accept version must be either version 8 or 7, but found 9"
    )
    assert info["version"]["number"] == "8.15.3" and licence == "basic"
    assert info.meta.headers["content-type"] == "application/vnd.elasticsearch+json;compatible-with=8"


def test_a_9x_cluster_answers_the_pinned_8x_client(example: Pack) -> None:
    with serving(example, ELASTICSEARCH_9) as (tool, _):
        assert tool.client.server().version.startswith("9.")
        assert tool.status_codes(scope(), window(example)).status is Status.OK


# ------------------------------------------------------------------------------- field presets


def node_line(example: Pack, node: str) -> Doc:
    """A kernel line of the incident's node: a node name and no namespace."""
    at = example.meta.as_of.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    message = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus."
    return {"@timestamp": at, "message": message, "log": {"level": "error"}, "host": {"name": node}}


@pytest.mark.parametrize(
    ("shape", "strings", "preset"),
    [(fluentbit, "default", "fluentbit"), (flat, "default", "flat"), (fluentbit, "ecs", "fluentbit")],
)
def test_other_shippers_fields_are_found_and_read(
    example: Pack, shape: Callable[[Doc], Doc], strings: str, preset: str
) -> None:
    node = warnings(example)[0]["kubernetes"]["node"]["name"]
    extra = [node_line(example, node)]
    with serving(example, ELASTICSEARCH_8_BASIC, shape, strings, extra) as (tool, _):
        fields = tool.fields()
        signatures = tool.error_signatures(scope([node]), window(example))
        volume = tool.error_volume(scope(), window(example))
        codes = tool.status_codes(scope(), window(example))
    assert fields.preset == preset and fields.matched
    if strings == "default":  # text with a keyword sub-field: the sub-field is what is aggregated
        assert fields.pod is not None and fields.pod.exact == f"{fields.pod.name}.keyword"
    samples = [e.labels["sample"] for e in signatures.evidence]
    assert any("preempted by PreemptionMode.RECOMPUTE" in s for s in samples)
    assert any("fallen off the bus" in s for s in samples)  # the node's own line is in scope
    assert pods_of(volume) == expected_pods(example)
    assert codes_of(codes) == expected_codes(example)


def test_ecs_names_sent_as_dotted_keys_are_read_back(example: Pack) -> None:
    with serving(example, ELASTICSEARCH_9, lambda d: flat(d, dotted=True)) as (tool, _):
        hits = tool.search("preempted", scope(), window(example), size=2).evidence
        assert tool.fields().preset == "ecs"
    assert hits and all(h.labels["pod"].startswith(PREFIX) for h in hits)


def test_text_fields_without_keyword_sub_fields_still_select_and_name_the_gap(example: Pack) -> None:
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=ELASTICSEARCH_8_BASIC)
    index = example.meta.logs_index
    text = {"type": "text"}
    mapping = {"namespace": text, "pod": text, "node": text, "level": text, "message": text}
    with ServerThread(standin.app) as server:
        with Elasticsearch(server.url) as es:
            es.indices.create(index=index, mappings={"properties": mapping})
        standin.index_documents(index, [flat(d) for d in example.logs])
        client = connect(server.url)
        tool = LogTool(client, index=index)
        signatures = tool.error_signatures(scope(), window(example))
        volume = tool.error_volume(scope(), window(example))
        client.close()
    assert tool.fields().pod is not None and tool.fields().pod.exact is None  # type: ignore[union-attr]
    assert signatures.evidence and signatures.evidence[0].value == len(warnings(example))
    assert signatures.evidence[0].labels["pods"]  # read from the sampled lines
    assert volume.gap is not None and "text without a keyword sub-field" in str(volume.gap)


# ----------------------------------------------------------------------------- partial answers


def test_a_search_cut_short_by_the_cluster_s_timeout_is_a_partial_gap(example: Pack) -> None:
    with serving(example, ELASTICSEARCH_8_BASIC) as (tool, standin):
        standin.search_timed_out = True
        result = tool.status_codes(scope(), window(example))
    assert result.status is Status.OK and result.evidence
    assert str(result.gap) == "elasticsearch: status codes: the search timed out, counts are partial"


@pytest.mark.parametrize("profile", [ELASTICSEARCH_9, ELASTICSEARCH_8_BASIC, OPENSEARCH_2])
def test_failed_shards_give_the_evidence_and_a_named_gap(example: Pack, profile: ServerProfile) -> None:
    with serving(example, profile) as (tool, standin):
        standin.shard_failures = ShardFailures(failed=2, total=5)
        result = tool.error_signatures(scope(), window(example))
        volume = tool.error_volume(scope(), window(example))
    assert result.status is Status.OK and result.evidence
    assert result.evidence[0].value is not None and int(result.evidence[0].value) < len(warnings(example))
    assert result.gap is not None and str(result.gap).startswith(
        "elasticsearch: error signatures: 2 of 5 shards failed ("
    )
    assert str(result.gap).endswith("counts are partial")
    assert volume.status is Status.OK and volume.gap is not None and "2 of 5 shards failed" in str(volume.gap)
