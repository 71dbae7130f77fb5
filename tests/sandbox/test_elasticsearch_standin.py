"""The Elasticsearch stand-in, driven through the official `elasticsearch` client over HTTP.

The log set is a small slice of a vLLM incident on Kubernetes: access lines, KV-cache preemption
warnings, CUDA OOM errors and 5xx responses from three pods on three GPU nodes, plus two kubelet
events in a second index. `now` is pinned so date math is exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from elasticsearch import AuthorizationException, BadRequestError, ConflictError, Elasticsearch, NotFoundError

from bot.sandbox.elasticsearch import (
    ELASTICSEARCH_8_BASIC,
    OPENSEARCH_2,
    ElasticsearchStandIn,
    ShardFailures,
    ml_standard_tokens,
)
from bot.sandbox.server import ServerThread

NOW = datetime(2026, 6, 1, 11, 0, 30, tzinfo=UTC)
INDEX = "logs-vllm-2026.06.01"
EVENTS = "logs-k8s-2026.06.01"
POD_A, NODE_A = "vllm-llama-6d5f8c7b9-2xk4p", "gpu-node-1"
POD_B, NODE_B = "vllm-llama-6d5f8c7b9-9wq7z", "gpu-node-2"
POD_C, NODE_C = "vllm-llama-7c9d4b8f6-k8m2n", "gpu-node-3"
NODES = {POD_A: NODE_A, POD_B: NODE_B, POD_C: NODE_C}
PREEMPTED = (
    "Sequence group {} is preempted by PreemptionMode.RECOMPUTE mode "
    "because there is not enough KV cache space."
)
OOM = "CUDA out of memory. Tried to allocate {} GiB (GPU {}; 79.15 GiB total capacity)"
ACCESS = '{} - "POST /v1/chat/completions HTTP/1.1" {}'


def ecs(at: str, level: str, pod: str, message: str, **extra: Any) -> dict[str, Any]:
    """A Filebeat/ECS document as the vLLM containers' log shipper writes it."""
    doc: dict[str, Any] = {
        "@timestamp": f"2026-06-01T{at}.000Z",
        "message": message,
        "log": {"level": level},
        "service": {"name": "vllm-llama"},
        "kubernetes": {"namespace": "llm-serving", "pod": {"name": pod}, "node": {"name": NODES[pod]}},
        "container": {"name": "server"},
    }
    return doc | extra


def access(at: str, level: str, pod: str, client: str, status: int) -> dict[str, Any]:
    return ecs(at, level, pod, ACCESS.format(client, status), http={"response": {"status_code": status}})


def oom(at: str, pod: str, size: str, gpu: int) -> dict[str, Any]:
    return ecs(at, "error", pod, OOM.format(size, gpu), error={"type": "torch.OutOfMemoryError"})


VLLM_LOGS = [
    access("10:05:00", "info", POD_A, "10.42.1.17:41265", 200),
    access("10:06:00", "info", POD_B, "10.42.8.22:41267", 200),
    ecs("10:20:00", "warn", POD_A, PREEMPTED.format("cmpl-16476e3f1127b207")),
    ecs("10:22:30", "warn", POD_B, PREEMPTED.format("cmpl-8d536c7565b90e94")),
    oom("10:31:00", POD_A, "2.00", 0),
    oom("10:41:15", POD_C, "1.50", 1),
    access("10:45:00", "error", POD_C, "10.42.3.9:39024", 500),
    access("10:46:00", "error", POD_A, "10.42.5.7:41071", 503),
    ecs(
        "10:50:00",
        "info",
        POD_B,
        "Avg prompt throughput: 1234.5 tokens/s, Running: 12 reqs, GPU KV cache usage: 99.1%",
    ),
    {  # shipped with already-dotted keys
        "@timestamp": "2026-06-01T10:52:00.000Z",
        "message": PREEMPTED.format("cmpl-4ef03f801d91fe39"),
        "log.level": "warn",
        "service.name": "vllm-llama",
        "kubernetes.namespace": "llm-serving",
        "kubernetes.pod.name": POD_B,
        "kubernetes.node.name": NODE_B,
    },
    oom("10:58:00", POD_C, "2.00", 1),
]
K8S_EVENTS = [
    {
        "@timestamp": "2026-06-01T10:59:00.000Z",
        "message": f"Back-off restarting failed container server in pod {POD_C}",
        "log": {"level": "warn"},
        "service": {"name": "kubelet"},
        "kubernetes": {"namespace": "llm-serving", "node": {"name": NODE_C}},
    },
    {
        "@timestamp": "2026-06-01T10:40:00.000Z",
        "message": f"Successfully assigned llm-serving/{POD_C} to {NODE_C}",
        "log": {"level": "info"},
        "service": {"name": "kubelet"},
        "kubernetes": {"namespace": "llm-serving", "node": {"name": NODE_C}},
    },
]


def millis(at: str) -> int:
    return int(datetime.fromisoformat(f"2026-06-01T{at}+00:00").timestamp() * 1000)


def messages(response: Any) -> list[str]:
    return [hit["_source"]["message"] for hit in response["hits"]["hits"]]


def count(es: Elasticsearch, query: dict[str, Any], index: str = INDEX) -> int:
    return int(es.count(index=index, query=query)["count"])


@pytest.fixture(scope="module")
def es() -> Iterator[Elasticsearch]:
    """A read-only stand-in holding the incident's logs, shared by the tests that only search."""
    standin = ElasticsearchStandIn(now=lambda: NOW)
    standin.index_documents(INDEX, VLLM_LOGS)
    standin.index_documents(EVENTS, K8S_EVENTS)
    with ServerThread(standin.app, name="es-standin") as server, Elasticsearch(server.url) as client:
        yield client


@pytest.fixture
def fresh() -> Iterator[tuple[ElasticsearchStandIn, Elasticsearch]]:
    """An empty stand-in for tests that write."""
    standin = ElasticsearchStandIn(now=lambda: NOW)
    with ServerThread(standin.app, name="es-standin") as server, Elasticsearch(server.url) as client:
        yield standin, client


# ------------------------------------------------------------------------------ cluster and indices


def test_info_ping_and_the_headers_the_client_requires(es: Elasticsearch) -> None:
    info = es.info()
    assert info["version"]["number"].startswith("9.")
    assert info["tagline"] == "You Know, for Search"
    assert info.meta.headers["x-elastic-product"] == "Elasticsearch"
    assert info.meta.headers["content-type"] == "application/vnd.elasticsearch+json;compatible-with=8"
    assert es.ping() is True


def test_index_create_exists_mapping_delete(fresh: tuple[ElasticsearchStandIn, Elasticsearch]) -> None:
    _, es = fresh
    assert not es.indices.exists(index="logs-app")
    mappings = {"properties": {"message": {"type": "text", "fields": {"raw": {"type": "keyword"}}}}}
    created = es.indices.create(index="logs-app", mappings=mappings)
    assert created.body == {"acknowledged": True, "shards_acknowledged": True, "index": "logs-app"}
    assert es.indices.exists(index="logs-app")
    with pytest.raises(BadRequestError) as exists:
        es.indices.create(index="logs-app")
    assert exists.value.error == "resource_already_exists_exception"

    es.index(index="logs-app", document={"message": "Engine started", "event": {"duration": 1.5}})
    properties = es.indices.get_mapping(index="logs-app")["logs-app"]["mappings"]["properties"]
    assert properties["message"] == {"type": "text", "fields": {"raw": {"type": "keyword"}}}
    assert properties["event"] == {"properties": {"duration": {"type": "float"}}}
    assert count(es, {"term": {"message.raw": "Engine started"}}, "logs-app") == 1

    assert es.indices.delete(index="logs-app").body == {"acknowledged": True}
    assert not es.indices.exists(index="logs-app")
    with pytest.raises(NotFoundError) as missing:
        es.indices.delete(index="logs-app")
    assert missing.value.error == "index_not_found_exception"
    with pytest.raises(BadRequestError) as invalid:
        es.indices.create(index="Logs-App")
    assert invalid.value.error == "invalid_index_name_exception"


def test_document_index_get_update_delete(fresh: tuple[ElasticsearchStandIn, Elasticsearch]) -> None:
    _, es = fresh
    auto = es.index(index="logs-app", document=VLLM_LOGS[0])
    assert (auto["result"], auto["_version"], len(auto["_id"]), auto.meta.status) == ("created", 1, 20, 201)

    first = es.index(index="logs-app", id="line-1", document=VLLM_LOGS[2])
    again = es.index(index="logs-app", id="line-1", document=VLLM_LOGS[3], refresh=True)
    assert (first["result"], first.meta.status) == ("created", 201)
    assert (again["result"], again["_version"], again.meta.status) == ("updated", 2, 200)

    got = es.get(index="logs-app", id="line-1")
    assert got["found"] is True
    assert got["_source"] == VLLM_LOGS[3]
    assert es.get(index="logs-app", id="line-1", source_includes="log.*")["_source"] == {
        "log": {"level": "warn"}
    }

    with pytest.raises(ConflictError) as conflict:
        es.create(index="logs-app", id="line-1", document=VLLM_LOGS[4])
    assert conflict.value.error == "version_conflict_engine_exception"

    assert es.delete(index="logs-app", id="line-1")["result"] == "deleted"
    with pytest.raises(NotFoundError) as gone:
        es.get(index="logs-app", id="line-1")
    assert gone.value.body == {"_index": "logs-app", "_id": "line-1", "found": False}
    with pytest.raises(NotFoundError) as no_index:
        es.get(index="logs-none", id="x")
    assert no_index.value.error == "index_not_found_exception"


def test_bulk_reports_each_item_and_sets_errors(fresh: tuple[ElasticsearchStandIn, Elasticsearch]) -> None:
    _, es = fresh
    operations: list[dict[str, Any]] = [
        {"index": {"_index": "logs-app", "_id": "1"}},
        VLLM_LOGS[6],
        {"create": {"_index": "logs-app"}},
        VLLM_LOGS[7],
        {"create": {"_index": "logs-app", "_id": "1"}},
        VLLM_LOGS[4],
        {"index": {"_index": "logs-app", "_id": "2"}},
        {**VLLM_LOGS[6], "http": {"response": {"status_code": "not-a-number"}}},
        {"delete": {"_index": "logs-app", "_id": "1"}},
    ]
    result = es.bulk(operations=operations)
    assert result["errors"] is True
    outcomes = [(action, item["status"]) for entry in result["items"] for action, item in entry.items()]
    assert outcomes == [("index", 201), ("create", 201), ("create", 409), ("index", 400), ("delete", 200)]
    assert result["items"][2]["create"]["error"]["type"] == "version_conflict_engine_exception"
    assert result["items"][3]["index"]["error"]["type"] == "document_parsing_exception"
    assert "[http.response.status_code] of type [long]" in result["items"][3]["index"]["error"]["reason"]

    clean = es.bulk(index="logs-app", operations=[{"index": {"_id": "3"}}, VLLM_LOGS[0]])
    assert clean["errors"] is False
    assert clean["items"][0]["index"]["_index"] == "logs-app"
    es.indices.refresh(index="logs-app")
    assert es.count(index="logs-app")["count"] == 2


def test_refresh_and_count(es: Elasticsearch) -> None:
    assert es.indices.refresh(index=INDEX)["_shards"]["successful"] == 1
    assert es.count(index=INDEX)["count"] == 11
    assert count(es, {"term": {"log.level": "error"}}) == 5
    assert es.count(index="logs-*")["count"] == 13


# -------------------------------------------------------------------------------------- searching


def test_search_defaults_and_hit_shape(es: Elasticsearch) -> None:
    result = es.search(index=INDEX)
    assert result["hits"]["total"] == {"value": 11, "relation": "eq"}
    assert len(result["hits"]["hits"]) == 10
    assert result["timed_out"] is False
    assert result["_shards"] == {"total": 1, "successful": 1, "skipped": 0, "failed": 0}
    assert result["hits"]["max_score"] == 1.0
    first = result["hits"]["hits"][0]
    assert set(first) == {"_index", "_id", "_score", "_source"}
    assert (first["_index"], first["_score"], first["_source"]) == (INDEX, 1.0, VLLM_LOGS[0])


def test_sort_size_from_and_sort_values(es: Elasticsearch) -> None:
    newest = es.search(index=INDEX, sort=[{"@timestamp": "desc"}], size=3)
    assert [hit["sort"] for hit in newest["hits"]["hits"]] == [
        [millis(t)] for t in ("10:58:00", "10:52:00", "10:50:00")
    ]
    assert newest["hits"]["max_score"] is None
    assert newest["hits"]["hits"][0]["_score"] is None
    page_two = es.search(index=INDEX, sort=[{"@timestamp": {"order": "desc"}}], size=3, from_=3)
    assert [hit["sort"][0] for hit in page_two["hits"]["hits"]] == [
        millis(t) for t in ("10:46:00", "10:45:00", "10:41:15")
    ]

    by_level = es.search(index=INDEX, sort=["log.level", {"@timestamp": {"order": "asc"}}], size=4)
    assert [hit["sort"] for hit in by_level["hits"]["hits"]] == [
        ["error", millis("10:31:00")],
        ["error", millis("10:41:15")],
        ["error", millis("10:45:00")],
        ["error", millis("10:46:00")],
    ]
    oldest = es.search(index=INDEX, sort="@timestamp:asc", size=1)
    assert oldest["hits"]["hits"][0]["sort"] == [millis("10:05:00")]


def test_search_after_pages_through_sorted_hits(es: Elasticsearch) -> None:
    sort = [{"@timestamp": "asc"}]
    first = es.search(index=INDEX, sort=sort, size=4)["hits"]["hits"]
    second = es.search(index=INDEX, sort=sort, size=4, search_after=first[-1]["sort"])["hits"]["hits"]
    assert [hit["sort"][0] for hit in second] == [
        millis(t) for t in ("10:31:00", "10:41:15", "10:45:00", "10:46:00")
    ]


def test_term_is_exact_on_keywords_and_matches_one_token_of_text(es: Elasticsearch) -> None:
    assert count(es, {"term": {"log.level": "error"}}) == 5
    assert count(es, {"term": {"log.level": "ERROR"}}) == 0
    assert count(es, {"term": {"log.level": {"value": "ERROR", "case_insensitive": True}}}) == 5
    assert count(es, {"term": {"kubernetes.pod.name": POD_C}}) == 3
    assert count(es, {"term": {"kubernetes.pod.name": "vllm-llama"}}) == 0
    assert count(es, {"term": {"message": "cuda"}}) == 3
    assert count(es, {"term": {"message": "CUDA"}}) == 0
    assert count(es, {"term": {"http.response.status_code": 503}}) == 1


def test_terms_and_ids(es: Elasticsearch) -> None:
    assert count(es, {"terms": {"kubernetes.pod.name": [POD_A, POD_C]}}) == 7
    assert count(es, {"terms": {"log.level": ["warn", "WARNING", "error"]}}) == 8
    some = es.search(index=INDEX, size=2)["hits"]["hits"]
    found = es.search(index=INDEX, query={"ids": {"values": [hit["_id"] for hit in some]}})
    assert {hit["_id"] for hit in found["hits"]["hits"]} == {hit["_id"] for hit in some}


def test_match_and_match_phrase(es: Elasticsearch) -> None:
    assert count(es, {"match": {"message": "CUDA memory"}}) == 3
    assert count(es, {"match": {"message": "cuda preempted"}}) == 6
    assert count(es, {"match": {"message": {"query": "kv cache space", "operator": "and"}}}) == 3
    assert count(es, {"match": {"message": {"query": "kv cache oom", "operator": "and"}}}) == 0
    assert count(es, {"match_phrase": {"message": "not enough KV cache"}}) == 3
    assert count(es, {"match_phrase": {"message": "cache KV"}}) == 0
    assert count(es, {"match_phrase": {"message": "enough cache"}}) == 0
    assert count(es, {"match_phrase": {"message": {"query": "enough cache", "slop": 1}}}) == 3
    assert count(es, {"match": {"log.level": "warn"}}) == 3
    ranked = es.search(index=INDEX, query={"match": {"message": "cuda memory preempted"}}, size=1)
    assert ranked["hits"]["hits"][0]["_source"]["message"].startswith("CUDA out of memory")


def test_range_on_dates_numbers_and_date_math(es: Elasticsearch) -> None:
    window = {"gte": "2026-06-01T10:40:00Z", "lt": "2026-06-01T10:50:00.000Z"}
    assert count(es, {"range": {"@timestamp": window}}) == 3
    assert count(es, {"range": {"@timestamp": {"gt": millis("10:46:00")}}}) == 3
    assert count(es, {"range": {"@timestamp": {"gte": "now-15m"}}}) == 4
    assert count(es, {"range": {"@timestamp": {"gte": "now-15m/m"}}}) == 5
    assert count(es, {"range": {"@timestamp": {"lte": "now-15m/m"}}}) == 7
    assert count(es, {"range": {"@timestamp": {"gte": "now-1h/h", "lt": "now/h"}}}) == 11
    assert count(es, {"range": {"@timestamp": {"lte": "2026-06-01"}}}) == 11
    assert count(es, {"range": {"http.response.status_code": {"gte": 500}}}) == 2
    assert count(es, {"range": {"http.response.status_code": {"gt": 200, "lte": 500}}}) == 1


def test_bool_must_filter_should_and_must_not(es: Elasticsearch) -> None:
    query = {
        "bool": {
            "must": [{"match": {"message": "cuda"}}],
            "filter": [{"range": {"@timestamp": {"gte": "now-1h"}}}],
            "must_not": [{"term": {"kubernetes.pod.name": POD_A}}],
        }
    }
    assert count(es, query) == 2
    two_of_three = {
        "bool": {
            "should": [
                {"term": {"log.level": "error"}},
                {"term": {"kubernetes.pod.name": POD_C}},
                {"exists": {"field": "http"}},
            ],
            "minimum_should_match": 2,
        }
    }
    assert count(es, two_of_three) == 4
    problems = {
        "bool": {
            "should": [
                {"terms": {"log.level": ["warn", "error", "critical"]}},
                {"range": {"http.response.status_code": {"gte": 400}}},
                {"exists": {"field": "error.type"}},
            ],
            "minimum_should_match": 1,
        }
    }
    assert count(es, {"bool": {"filter": [problems, {"term": {"kubernetes.namespace": "llm-serving"}}]}}) == 8
    filtered = es.search(index=INDEX, query={"bool": {"filter": [{"term": {"log.level": "warn"}}]}})
    assert filtered["hits"]["max_score"] == 0.0


def test_exists_prefix_and_wildcard(es: Elasticsearch) -> None:
    assert count(es, {"exists": {"field": "http.response.status_code"}}) == 4
    assert count(es, {"exists": {"field": "http"}}) == 4
    assert count(es, {"exists": {"field": "error.type"}}) == 3
    assert count(es, {"prefix": {"kubernetes.pod.name": "vllm-llama-7c9d"}}) == 3
    assert count(es, {"wildcard": {"kubernetes.pod.name": "*-9wq7z"}}) == 4
    assert (
        count(es, {"wildcard": {"kubernetes.node.name": {"value": "GPU-NODE-?", "case_insensitive": True}}})
        == 11
    )
    assert count(es, {"prefix": {"message": "preempt"}}) == 3


def test_documents_with_dotted_keys_are_addressed_by_path(es: Elasticsearch) -> None:
    query = {"bool": {"filter": [{"term": {"log.level": "warn"}}, {"term": {"kubernetes.pod.name": POD_B}}]}}
    found = es.search(index=INDEX, query=query, sort=[{"@timestamp": "desc"}], size=1)
    assert found["hits"]["hits"][0]["_source"] == VLLM_LOGS[9]
    trimmed = es.search(
        index=INDEX, query=query, sort=[{"@timestamp": "desc"}], size=1, source={"includes": "log.level"}
    )
    assert trimmed["hits"]["hits"][0]["_source"] == {"log.level": "warn"}


def test_source_filtering(es: Elasticsearch) -> None:
    query = {"term": {"http.response.status_code": 500}}
    included = es.search(index=INDEX, query=query, source={"includes": ["message", "kubernetes.pod.*"]})
    assert included["hits"]["hits"][0]["_source"] == {
        "message": ACCESS.format("10.42.3.9:39024", 500),
        "kubernetes": {"pod": {"name": POD_C}},
    }
    excluded = es.search(
        index=INDEX, query=query, source={"includes": ["kubernetes"], "excludes": ["*.namespace"]}
    )
    assert excluded["hits"]["hits"][0]["_source"] == {
        "kubernetes": {"pod": {"name": POD_C}, "node": {"name": NODE_C}}
    }
    by_param = es.search(index=INDEX, query=query, source_includes=["log.level", "@timestamp"])
    assert by_param["hits"]["hits"][0]["_source"] == {
        "@timestamp": "2026-06-01T10:45:00.000Z",
        "log": {"level": "error"},
    }
    assert "_source" not in es.search(index=INDEX, query=query, source=False)["hits"]["hits"][0]


def test_track_total_hits(fresh: tuple[ElasticsearchStandIn, Elasticsearch]) -> None:
    standin, es = fresh
    start = datetime(2026, 6, 1, 8, tzinfo=UTC)
    standin.index_documents(
        "logs-busy",
        (
            {"@timestamp": (start + timedelta(seconds=i)).isoformat(), "message": f"GET /health {i}"}
            for i in range(10_050)
        ),
    )
    assert es.search(index="logs-busy", size=0)["hits"]["total"] == {"value": 10_000, "relation": "gte"}
    assert es.search(index="logs-busy", size=0, track_total_hits=True)["hits"]["total"] == {
        "value": 10_050,
        "relation": "eq",
    }
    assert es.search(index="logs-busy", size=0, track_total_hits=100)["hits"]["total"] == {
        "value": 100,
        "relation": "gte",
    }
    assert "total" not in es.search(index="logs-busy", size=0, track_total_hits=False)["hits"]


def test_index_expressions_and_missing_indices(es: Elasticsearch) -> None:
    assert es.search(index="logs-*", size=0)["hits"]["total"]["value"] == 13
    assert es.indices.exists(index="logs-vllm-*")
    assert not es.indices.exists(index="metrics-*")
    assert es.search(index=f"{INDEX},{EVENTS}", size=0)["_shards"]["total"] == 2
    assert es.search(index="logs-*,-logs-k8s-*", size=0)["hits"]["total"]["value"] == 11
    nothing = es.search(index="metrics-*", size=0)
    assert (nothing["hits"]["total"]["value"], nothing["_shards"]["total"]) == (0, 0)
    with pytest.raises(NotFoundError) as missing:
        es.search(index=f"{INDEX},logs-missing")
    assert missing.value.error == "index_not_found_exception"
    assert missing.value.body["error"]["resource.id"] == "logs-missing"
    assert es.search(index=f"{INDEX},logs-missing", ignore_unavailable=True)["hits"]["total"]["value"] == 11


def test_malformed_requests_answer_like_elasticsearch(es: Elasticsearch) -> None:
    with pytest.raises(BadRequestError) as unknown:
        es.search(index=INDEX, query={"fuzzy_match": {"message": "cuda"}})
    assert unknown.value.error == "parsing_exception"
    assert unknown.value.body["error"]["root_cause"] == [
        {"type": "parsing_exception", "reason": "unknown query [fuzzy_match]"}
    ]
    assert unknown.value.body["status"] == 400
    with pytest.raises(BadRequestError) as bad_agg:
        es.search(index=INDEX, aggs={"x": {"histogramm": {"field": "http.response.status_code"}}})
    assert bad_agg.value.body["error"]["reason"] == "Unknown aggregation type [histogramm]"
    with pytest.raises(BadRequestError) as typo:
        es.search(index=INDEX, aggs={"x": {"terms": {"feild": "log.level"}}})
    assert typo.value.body["error"]["reason"] == "[terms] unknown field [feild]"
    with pytest.raises(BadRequestError) as bad_date:
        es.search(index=INDEX, query={"range": {"@timestamp": {"gte": "yesterday"}}})
    assert bad_date.value.body["error"]["root_cause"][0]["type"] == "parse_exception"


def test_text_fields_cannot_be_aggregated_or_sorted(es: Elasticsearch) -> None:
    with pytest.raises(BadRequestError) as agg:
        es.search(index=INDEX, size=0, aggs={"lines": {"terms": {"field": "message"}}})
    assert agg.value.error == "search_phase_execution_exception"
    cause = agg.value.body["error"]["root_cause"][0]
    assert cause["type"] == "illegal_argument_exception"
    assert cause["reason"].startswith(
        f"Fielddata is disabled on [message] in [{INDEX}]. Text fields are not optimised"
    )
    with pytest.raises(BadRequestError) as sort:
        es.search(index=INDEX, sort=["message"])
    assert sort.value.body["error"]["caused_by"]["type"] == "illegal_argument_exception"
    with pytest.raises(BadRequestError) as unmapped:
        es.search(index=INDEX, sort=["trace.id"])
    assert (
        unmapped.value.body["error"]["root_cause"][0]["reason"]
        == "No mapping found for [trace.id] in order to sort on"
    )
    assert es.search(index=INDEX, sort=[{"trace.id": {"unmapped_type": "keyword"}}], size=1)["hits"]["hits"][
        0
    ]["sort"] == [None]


# ---------------------------------------------------------------------------------- aggregations


def test_terms_aggregation(es: Elasticsearch) -> None:
    aggs: dict[str, Any] = {
        "levels": {"terms": {"field": "log.level"}},
        "top_level": {"terms": {"field": "log.level", "size": 1}},
        "by_key": {"terms": {"field": "log.level", "order": {"_key": "desc"}}},
        "codes": {"terms": {"field": "http.response.status_code"}},
        "errors": {"terms": {"field": "error.type", "missing": "none"}},
        "latest_pod": {
            "terms": {"field": "kubernetes.pod.name", "order": {"last": "desc"}},
            "aggs": {"last": {"max": {"field": "@timestamp"}}},
        },
    }
    result = es.search(index=INDEX, size=0, aggs=aggs)["aggregations"]

    def keys(name: str) -> list[tuple[Any, int]]:
        return [(bucket["key"], bucket["doc_count"]) for bucket in result[name]["buckets"]]

    assert keys("levels") == [("error", 5), ("info", 3), ("warn", 3)]
    assert (result["levels"]["doc_count_error_upper_bound"], result["levels"]["sum_other_doc_count"]) == (
        0,
        0,
    )
    assert keys("top_level") == [("error", 5)]
    assert result["top_level"]["sum_other_doc_count"] == 6
    assert keys("by_key") == [("warn", 3), ("info", 3), ("error", 5)]
    assert keys("codes") == [(200, 2), (500, 1), (503, 1)]
    assert keys("errors") == [("none", 8), ("torch.OutOfMemoryError", 3)]
    assert [bucket["key"] for bucket in result["latest_pod"]["buckets"]] == [POD_C, POD_B, POD_A]


def test_date_histogram(es: Elasticsearch) -> None:
    aggs: dict[str, Any] = {
        "quarter_hours": {
            "date_histogram": {"field": "@timestamp", "fixed_interval": "15m"},
            "aggs": {"errors": {"filter": {"term": {"log.level": "error"}}}},
        },
        "five_minutes": {"date_histogram": {"field": "@timestamp", "fixed_interval": "5m"}},
        "non_empty": {"date_histogram": {"field": "@timestamp", "fixed_interval": "5m", "min_doc_count": 1}},
        "bounded": {
            "date_histogram": {
                "field": "@timestamp",
                "fixed_interval": "15m",
                "extended_bounds": {"min": "now-90m", "max": "now"},
            }
        },
        "hours": {"date_histogram": {"field": "@timestamp", "calendar_interval": "hour"}},
    }
    result = es.search(index=INDEX, size=0, aggs=aggs)["aggregations"]
    quarters = result["quarter_hours"]["buckets"]
    assert [(b["key_as_string"], b["doc_count"], b["errors"]["doc_count"]) for b in quarters] == [
        ("2026-06-01T10:00:00.000Z", 2, 0),
        ("2026-06-01T10:15:00.000Z", 2, 0),
        ("2026-06-01T10:30:00.000Z", 2, 2),
        ("2026-06-01T10:45:00.000Z", 5, 3),
    ]
    assert quarters[0]["key"] == millis("10:00:00")
    five = result["five_minutes"]["buckets"]
    assert len(five) == 11
    assert [b["doc_count"] for b in five] == [2, 0, 0, 2, 0, 1, 0, 1, 2, 2, 1]
    assert len(result["non_empty"]["buckets"]) == 7
    bounded = result["bounded"]["buckets"]
    assert (bounded[0]["key_as_string"], bounded[-1]["key_as_string"], len(bounded)) == (
        "2026-06-01T09:30:00.000Z",
        "2026-06-01T11:00:00.000Z",
        7,
    )
    assert [(b["key_as_string"], b["doc_count"]) for b in result["hours"]["buckets"]] == [
        ("2026-06-01T10:00:00.000Z", 11)
    ]


def test_filters_and_filter_aggregations(es: Elasticsearch) -> None:
    named = {"errors": {"term": {"log.level": "error"}}, "warnings": {"term": {"log.level": "warn"}}}
    aggs: dict[str, Any] = {
        "named": {"filters": {"filters": named, "other_bucket": True}},
        "anonymous": {"filters": {"filters": list(named.values()), "other_bucket_key": "rest"}},
        "server_errors": {"filter": {"range": {"http.response.status_code": {"gte": 500}}}},
    }
    result = es.search(index=INDEX, size=0, aggs=aggs)["aggregations"]
    assert result["named"]["buckets"] == {
        "errors": {"doc_count": 5},
        "warnings": {"doc_count": 3},
        "_other_": {"doc_count": 3},
    }
    assert result["anonymous"]["buckets"] == [{"doc_count": 5}, {"doc_count": 3}, {"doc_count": 3}]
    assert result["server_errors"] == {"doc_count": 2}


def test_metric_aggregations(es: Elasticsearch) -> None:
    aggs: dict[str, Any] = {
        "first": {"min": {"field": "@timestamp"}},
        "last": {"max": {"field": "@timestamp"}},
        "lines": {"value_count": {"field": "@timestamp"}},
        "pods": {"cardinality": {"field": "kubernetes.pod.name"}},
        "mean_status": {"avg": {"field": "http.response.status_code"}},
        "no_latency": {"max": {"field": "event.duration"}},
    }
    result = es.search(index=INDEX, size=0, aggs=aggs)["aggregations"]
    assert result["first"] == {
        "value": float(millis("10:05:00")),
        "value_as_string": "2026-06-01T10:05:00.000Z",
    }
    assert result["last"]["value_as_string"] == "2026-06-01T10:58:00.000Z"
    assert result["lines"] == {"value": 11}
    assert result["pods"] == {"value": 3}
    assert result["mean_status"] == {"value": 350.75}
    assert result["no_latency"] == {"value": None}


def test_top_hits_under_terms(es: Elasticsearch) -> None:
    aggs: dict[str, Any] = {
        "pods": {
            "terms": {"field": "kubernetes.pod.name", "size": 3},
            "aggs": {
                "latest": {"top_hits": {"size": 1, "sort": [{"@timestamp": "desc"}], "_source": ["message"]}}
            },
        }
    }
    buckets = es.search(index=INDEX, size=0, aggs=aggs)["aggregations"]["pods"]["buckets"]
    assert [(b["key"], b["doc_count"]) for b in buckets] == [(POD_A, 4), (POD_B, 4), (POD_C, 3)]
    latest = buckets[2]["latest"]["hits"]
    assert latest["total"] == {"value": 3, "relation": "eq"}
    assert latest["hits"][0]["_source"] == {"message": OOM.format("2.00", 1)}
    assert latest["hits"][0]["sort"] == [millis("10:58:00")]


def test_categorize_text_groups_lines_that_differ_only_in_numbers_and_ids(es: Elasticsearch) -> None:
    problems = {"bool": {"filter": [{"terms": {"log.level": ["warn", "error"]}}]}}
    aggs: dict[str, Any] = {
        "signatures": {
            "categorize_text": {"field": "message"},
            "aggs": {
                "first_seen": {"min": {"field": "@timestamp"}},
                "last_seen": {"max": {"field": "@timestamp"}},
                "pods": {"terms": {"field": "kubernetes.pod.name"}},
            },
        }
    }
    result = es.search(index=INDEX, query=problems, size=0, aggs=aggs, track_total_hits=True)
    assert result["hits"]["total"]["value"] == 8
    buckets = result["aggregations"]["signatures"]["buckets"]
    summary = [
        (
            b["key"],
            b["doc_count"],
            b["first_seen"]["value_as_string"],
            b["last_seen"]["value_as_string"],
            [(p["key"], p["doc_count"]) for p in b["pods"]["buckets"]],
        )
        for b in buckets
    ]
    assert summary == [
        (
            "CUDA out of memory Tried to allocate GiB GPU GiB total capacity",
            3,
            "2026-06-01T10:31:00.000Z",
            "2026-06-01T10:58:00.000Z",
            [(POD_C, 2), (POD_A, 1)],
        ),
        (
            "Sequence group is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space",
            3,
            "2026-06-01T10:20:00.000Z",
            "2026-06-01T10:52:00.000Z",
            [(POD_B, 2), (POD_A, 1)],
        ),
        (
            "POST /v1/chat/completions HTTP/1.1",
            2,
            "2026-06-01T10:45:00.000Z",
            "2026-06-01T10:46:00.000Z",
            [(POD_A, 1), (POD_C, 1)],
        ),
    ]
    assert buckets[2]["regex"] == r".*?POST.+?/v1/chat/completions.+?HTTP/1\.1.*?"
    longest = max(len(doc["message"]) for doc in VLLM_LOGS if doc["message"].startswith("CUDA"))
    assert buckets[0]["max_matching_length"] == longest * 11 // 10


def test_categorize_text_options(es: Elasticsearch) -> None:
    aggs: dict[str, Any] = {
        "one": {"categorize_text": {"field": "message", "size": 1}},
        "frequent": {"categorize_text": {"field": "message", "min_doc_count": 3}},
    }
    result = es.search(index=INDEX, size=0, aggs=aggs)["aggregations"]
    assert [b["key"] for b in result["one"]["buckets"]] == ["POST /v1/chat/completions HTTP/1.1"]
    assert [b["doc_count"] for b in result["one"]["buckets"]] == [4]
    assert [b["doc_count"] for b in result["frequent"]["buckets"]] == [4, 3, 3]


def test_ml_standard_tokenizer_matches_elasticsearch_examples() -> None:
    """Inputs and token lists from Elasticsearch's own tests of the `ml_standard` tokenizer."""
    assert ml_standard_tokens(
        "<ml13-4608.1.p2ps: Info: > Source ML_SERVICE2 on 13122:867 has shut down."
    ) == [
        "ml13-4608.1.p2ps",
        "Info",
        "Source",
        "ML_SERVICE2",
        "on",
        "has",
        "shut",
        "down",
    ]
    vpxa = "Vpxa: [49EC0B90 verbose 'VpxaHalCnxHostagent' opID=WFU-ddeadb59] [WaitForUpdatesDone] Received callback"
    assert ml_standard_tokens(vpxa) == [
        "Vpxa",
        "verbose",
        "VpxaHalCnxHostagent",
        "opID",
        "WFU-ddeadb59",
        "WaitForUpdatesDone",
        "Received",
        "callback",
    ]
    assert ml_standard_tokens("2016-02-07T00:00:00+0000 Node 3 shutting down") == ["Node", "shutting", "down"]
    assert ml_standard_tokens("GET http://vllm.example/metrics from C:\\data\\x 0xdeadbeef cafe") == [
        "GET",
        "http://vllm.example/metrics",
        "from",
        "C:\\data\\x",
    ]


def test_search_and_count_bodies_are_recorded(fresh: tuple[ElasticsearchStandIn, Elasticsearch]) -> None:
    standin, es = fresh
    standin.index_documents(INDEX, VLLM_LOGS)
    es.search(
        index="logs-*",
        query={"term": {"log.level": "error"}},
        size=0,
        aggs={"n": {"value_count": {"field": "@timestamp"}}},
    )
    es.count(index=INDEX, query={"match_all": {}})
    search, counted = standin.requests
    assert search == {
        "query": {"term": {"log.level": "error"}},
        "size": 0,
        "aggs": {"n": {"value_count": {"field": "@timestamp"}}},
    }
    assert (search.index, search.endpoint) == ("logs-*", "_search")
    assert (counted["query"], counted.index, counted.endpoint) == ({"match_all": {}}, INDEX, "_count")


# ------------------------------------------------------------------------ server configurations


def test_licences_answer_like_elasticsearch(es: Elasticsearch) -> None:
    """Platinum (the default) runs categorize_text; Basic refuses it at parse time, 403 security_exception."""
    assert es.license.get()["license"]["type"] == "platinum"
    standin = ElasticsearchStandIn(now=lambda: NOW, profile=ELASTICSEARCH_8_BASIC)
    standin.index_documents(INDEX, VLLM_LOGS)
    with ServerThread(standin.app) as server, Elasticsearch(server.url) as basic:
        licence = basic.license.get()["license"]
        with pytest.raises(AuthorizationException) as refused:
            basic.search(index=INDEX, size=0, aggs={"c": {"categorize_text": {"field": "message"}}})
        plain = basic.search(index=INDEX, size=0, aggs={"n": {"terms": {"field": "log.level"}}})
    assert licence["type"] == "basic" and "expiry_date" not in licence
    error = refused.value.body["error"]
    assert (refused.value.status_code, error["type"]) == (403, "security_exception")
    assert error["reason"] == "current license is non-compliant for [categorize-text-agg]"
    assert error["license.expired.feature"] == "categorize-text-agg"
    assert plain["aggregations"]["n"]["buckets"]


def test_opensearch_sends_no_product_header_and_says_its_distribution() -> None:
    import httpx

    standin = ElasticsearchStandIn(now=lambda: NOW, profile=OPENSEARCH_2)
    with ServerThread(standin.app) as server:
        root = httpx.get(server.url)
    assert "x-elastic-product" not in root.headers
    assert root.json()["version"]["distribution"] == "opensearch"


def test_field_caps_say_what_is_aggregatable(fresh: tuple[ElasticsearchStandIn, Elasticsearch]) -> None:
    standin, es = fresh
    standin.index_documents(INDEX, VLLM_LOGS)
    standin.index_documents(
        "logs-plain", [{"@timestamp": "2026-06-01T10:00:00Z", "pod": "p-1"}], strings="default"
    )
    caps = es.field_caps(index=INDEX, fields=["kubernetes.pod.name", "message"])["fields"]
    assert caps["kubernetes.pod.name"]["keyword"]["aggregatable"] is True
    assert caps["message"]["text"]["aggregatable"] is False
    plain = es.field_caps(index="logs-plain", fields=["pod*"])["fields"]
    assert plain["pod"]["text"]["aggregatable"] is False and plain["pod.keyword"]["keyword"]["aggregatable"]
    assert (
        es.search(index="logs-plain", query={"term": {"pod.keyword": "p-1"}})["hits"]["total"]["value"] == 1
    )


def test_failed_shards_answer_200_with_partial_hits(
    fresh: tuple[ElasticsearchStandIn, Elasticsearch],
) -> None:
    standin, es = fresh
    standin.index_documents(INDEX, VLLM_LOGS)
    standin.shard_failures = ShardFailures(failed=2, total=5)
    answer = es.search(index=INDEX, size=100, track_total_hits=True)
    shards = answer["_shards"]
    assert (shards["total"], shards["successful"], shards["failed"]) == (5, 3, 2)
    assert shards["failures"][0]["reason"]["type"] == "node_disconnected_exception"
    assert 0 < answer["hits"]["total"]["value"] < len(VLLM_LOGS)
