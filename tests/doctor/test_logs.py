"""doctor's logs check through the official clients: an Elasticsearch 8 on Basic, an OpenSearch 2
fed by Fluent Bit, an Elasticsearch 9 on Platinum, and a cluster that is not there."""

from __future__ import annotations

from typing import Any

from bot.config import BotConfig
from bot.doctor.logs import check_logs
from bot.doctor.report import BackendReport, Verdict
from bot.sandbox.elasticsearch import (
    ELASTICSEARCH_8_BASIC,
    ELASTICSEARCH_9,
    OPENSEARCH_2,
    ElasticsearchStandIn,
)
from bot.sandbox.elasticsearch.profile import ServerProfile
from bot.sandbox.elasticsearch.shapes import fluentbit
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from bot.settings import Settings
from tools.logs.probe import MINED


def checked(example: Pack, profile: ServerProfile, docs: list[dict[str, Any]] | None = None) -> BackendReport:
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=profile)
    standin.index_documents("logs-inference", example.logs if docs is None else docs)
    with ServerThread(standin.app) as server:
        return check_logs(Settings(elasticsearch_url=server.url, logs_index="logs-*"), BotConfig(), timeout=3)


def test_elasticsearch_8_on_basic_mines_signatures(example: Pack) -> None:
    report = checked(example, ELASTICSEARCH_8_BASIC)
    assert report.verdict is Verdict.OK, report
    assert report.summary == f"Elasticsearch {ELASTICSEARCH_8_BASIC.version} (basic licence)"
    texts = [f.text for f in report.findings]
    assert MINED in texts
    assert f"index logs-*: {len(example.logs)} documents, fields match the ecs preset" in texts


def test_elasticsearch_9_on_platinum_categorizes(example: Pack) -> None:
    report = checked(example, ELASTICSEARCH_9)
    assert report.summary == f"Elasticsearch {ELASTICSEARCH_9.version} (platinum licence)"
    assert report.findings[0].text == "signatures by categorize_text"


def test_opensearch_with_fluent_bit_fields(example: Pack) -> None:
    report = checked(example, OPENSEARCH_2, [fluentbit(d) for d in example.logs])
    assert report.verdict is Verdict.OK, report
    assert report.summary == f"OpenSearch {OPENSEARCH_2.version}"
    texts = [f.text for f in report.findings]
    assert f"index logs-*: {len(example.logs)} documents, fields match the fluentbit preset" in texts
    assert MINED in texts


def test_an_index_that_gives_nothing_or_a_missing_cluster_is_unusable(example: Pack) -> None:
    empty = checked(example, ELASTICSEARCH_8_BASIC, [])
    assert empty.verdict is Verdict.UNUSABLE
    assert (
        empty.summary
        == f"Elasticsearch {ELASTICSEARCH_8_BASIC.version} (basic licence); index logs-* has no documents"
    )
    gone = check_logs(
        Settings(elasticsearch_url="http://127.0.0.1:9", logs_index="logs-*"), BotConfig(), timeout=2
    )
    assert gone.verdict is Verdict.UNUSABLE and "refused" in gone.summary, gone


def test_an_api_key_sent_to_opensearch_is_named(example: Pack) -> None:
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=OPENSEARCH_2)
    standin.index_documents("logs-inference", example.logs)
    with ServerThread(standin.app) as server:
        settings = Settings(elasticsearch_url=server.url, logs_index="logs-*", elasticsearch_api_key="k")
        report = check_logs(settings, BotConfig(), timeout=3)
    assert report.verdict is Verdict.LIMITED
    assert any(
        "OpenSearch takes no Elasticsearch API key" in f.text for f in report.findings if f.ok is False
    )
