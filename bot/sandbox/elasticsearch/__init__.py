"""The Elasticsearch stand-in: the REST surface, mappings, query DSL and aggregations the log tools use."""

from bot.sandbox.elasticsearch.categorize import ml_standard_tokens
from bot.sandbox.elasticsearch.standin import ElasticsearchStandIn, RecordedSearch

__all__ = ["ElasticsearchStandIn", "RecordedSearch", "ml_standard_tokens"]
