"""The Elasticsearch stand-in: the REST surface, mappings, query DSL and aggregations the log tools use,
answering as Elasticsearch 9 or 8 (with a licence) or as OpenSearch 2."""

from bot.sandbox.elasticsearch.categorize import ml_standard_tokens
from bot.sandbox.elasticsearch.profile import (
    ELASTICSEARCH_8_BASIC,
    ELASTICSEARCH_9,
    OPENSEARCH_2,
    ServerProfile,
    ShardFailures,
)
from bot.sandbox.elasticsearch.standin import ElasticsearchStandIn, RecordedSearch

__all__ = [
    "ELASTICSEARCH_8_BASIC",
    "ELASTICSEARCH_9",
    "OPENSEARCH_2",
    "ElasticsearchStandIn",
    "RecordedSearch",
    "ServerProfile",
    "ShardFailures",
    "ml_standard_tokens",
]
