"""`probe_logs`, what `doctor` says of the log cluster, against each stand-in configuration: it names the
flavour, version, licence and field preset, lists what will not work, and never raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import RedirectResponse
from starlette.routing import Route

from bot.sandbox.elasticsearch import (
    ELASTICSEARCH_8_BASIC,
    ELASTICSEARCH_9,
    OPENSEARCH_2,
    ElasticsearchStandIn,
    ServerProfile,
)
from bot.sandbox.elasticsearch.shapes import flat, fluentbit
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread, free_port
from tools.logs import LogsProbe, probe_logs

Doc = dict[str, Any]


def probed(
    example: Pack,
    profile: ServerProfile,
    docs: list[Doc] | None = None,
    *,
    strings: str = "ecs",
    index: str = "logs-*",
    **options: Any,
) -> LogsProbe:
    standin = ElasticsearchStandIn(now=lambda: example.meta.as_of, profile=profile)
    standin.index_documents("logs-inference", example.logs if docs is None else docs, strings=strings)
    with ServerThread(standin.app) as server:
        return probe_logs(server.url, index=index, api_key=None, timeout=2.0, **options)


@pytest.mark.parametrize(
    ("profile", "flavour", "licence", "categorize"),
    [
        (ELASTICSEARCH_9, "elasticsearch", "platinum", True),
        (ELASTICSEARCH_8_BASIC, "elasticsearch", "basic", False),
        (OPENSEARCH_2, "opensearch", None, False),
    ],
)
def test_each_cluster_is_named(
    example: Pack, profile: ServerProfile, flavour: str, licence: str | None, categorize: bool
) -> None:
    found = probed(example, profile)
    assert found.error is None
    assert (found.flavour, found.version, found.licence) == (flavour, profile.version, licence)
    assert found.categorize_text is categorize and found.preset == "ecs"
    mined = [p for p in found.problems if "mined with drain3" in p]
    assert bool(mined) is not categorize
    assert found.blocker is None and found.documents == len(example.logs)


@pytest.mark.parametrize(("shape", "preset"), [(fluentbit, "fluentbit"), (flat, "flat")])
def test_the_field_preset_is_found(example: Pack, shape: Callable[[Doc], Doc], preset: str) -> None:
    found = probed(example, ELASTICSEARCH_9, [shape(d) for d in example.logs], strings="default")
    assert found.preset == preset and found.problems == []


def test_an_index_the_tools_would_read_nothing_from_is_a_blocker(example: Pack) -> None:
    empty = probed(example, ELASTICSEARCH_9, [])
    assert empty.blocker == "index logs-* has no documents" and empty.preset is None
    nowhere = probed(example, ELASTICSEARCH_8_BASIC, index="nomatch-*")
    assert nowhere.blocker == "LOGS_INDEX nomatch-* matches no index"
    missing = probed(example, OPENSEARCH_2, index="nomatch")
    assert missing.blocker == "index nomatch does not exist (check LOGS_INDEX)"
    anonymous = [{"@timestamp": d["@timestamp"], "message": d["message"]} for d in example.logs]
    unmatched = probed(example, ELASTICSEARCH_8_BASIC, anonymous)
    assert unmatched.preset is None
    assert unmatched.blocker == "logs-*: no field preset matches: no namespace or pod field found"
    forced = probed(example, ELASTICSEARCH_9, fields="fluentbit")
    assert forced.preset is None
    assert (
        forced.blocker
        == "LOGS_FIELDS=fluentbit does not match the fields of logs-*: they match ecs (set LOGS_FIELDS=ecs or auto)"
    )


def test_it_never_raises(example: Pack) -> None:
    down = probe_logs(f"http://127.0.0.1:{free_port()}", index="logs-*", api_key=None, timeout=1.0)
    assert down.error == "connection refused" and down.flavour is None
    wrong = probed(example, OPENSEARCH_2, backend="elasticsearch")
    assert wrong.error is not None and "neither Elasticsearch nor OpenSearch" in wrong.error
    with ServerThread(
        Starlette(routes=[Route("/", lambda _: RedirectResponse("/classic/graph", 302))])
    ) as other:
        elsewhere = probe_logs(other.url, index="logs-*", api_key=None, timeout=1.0)
    assert (
        elsewhere.error
        == "HTTP 302 at the root: not an Elasticsearch or OpenSearch API (check ELASTICSEARCH_URL)"
    )
    bad = probe_logs("http://127.0.0.1:1", index="logs-*", api_key=None, timeout=1.0, backend="solr")
    assert bad.error is not None and "auto, elasticsearch, opensearch" in bad.error
