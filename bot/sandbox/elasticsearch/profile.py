"""Which server the Elasticsearch stand-in answers as: Elasticsearch 9 or 8 (with a licence), or OpenSearch 2.

The differences the log tools must survive live here, each as the real server shows it:

- the root answer (`version.number`, OpenSearch's `version.distribution`);
- REST compatibility: Elasticsearch N accepts `compatible-with=N` and `N-1` in `Accept`/`Content-Type`
  and refuses anything else with 400 `media_type_header_exception` (RestCompatibleVersionHelper), so
  a 9.x client fails on an 8.x cluster; OpenSearch does not check them;
- the product header: Elasticsearch sends `X-Elastic-Product: Elasticsearch` on every answer (the
  `elasticsearch` client refuses a server without it), OpenSearch never does;
- licensing: `categorize_text` is a Platinum feature, checked while the request is parsed
  (MachineLearning.checkAggLicense), so a Basic or Gold cluster answers 403 `security_exception`
  "current license is non-compliant for [categorize-text-agg]"; OpenSearch has no such aggregation
  and answers 400 `parsing_exception` "Unknown aggregation type [categorize_text]";
- partial results: some shards failing gives a 200 with `_shards.failed` and `failures`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.sandbox.elasticsearch.errors import NODE_ID, EsError, Json

_COMPAT = re.compile(r"compatible-with\s*=\s*(\d+)")
PLATINUM_LICENCES = frozenset({"platinum", "enterprise", "trial"})
CATEGORIZE_FEATURE = "categorize-text-agg"


@dataclass(frozen=True)
class ShardFailures:
    """Make `failed` of `total` shards fail in every search: their documents drop out of the answer."""

    failed: int
    total: int = 5
    kind: str = "node_disconnected_exception"
    reason: str = "[standin-1][127.0.0.1:9300][indices:data/read/search[phase/query]] disconnected"


@dataclass(frozen=True)
class ServerProfile:
    """One server the stand-in can be: its distribution, version and licence."""

    distribution: str  # "elasticsearch" or "opensearch"
    version: str
    licence: str | None  # Elasticsearch: basic, gold, platinum, enterprise, trial; OpenSearch: None
    lucene: str

    @property
    def opensearch(self) -> bool:
        return self.distribution == "opensearch"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])

    def info(self) -> Json:
        """The root `GET /` answer."""
        version: Json = {
            "number": self.version,
            "build_type": "docker",
            "build_hash": "standin",
            "build_date": "2025-07-01T00:00:00.000Z",
            "build_snapshot": False,
            "lucene_version": self.lucene,
        }
        if self.opensearch:
            version = {"distribution": "opensearch", **version}
            version |= {
                "minimum_wire_compatibility_version": "7.10.0",
                "minimum_index_compatibility_version": "7.0.0",
            }
            cluster = {"name": "opensearch-0", "cluster_name": "incident-bot-sandbox"}
            tagline = "The OpenSearch Project: https://opensearch.org/"
            return {**cluster, "cluster_uuid": NODE_ID, "version": version, "tagline": tagline}
        version = {"number": self.version, "build_flavor": "default", **version}
        wire, index = ("8.19.0", "8.0.0") if self.major >= 9 else ("7.17.0", "7.0.0")
        version |= {"minimum_wire_compatibility_version": wire, "minimum_index_compatibility_version": index}
        cluster = {"name": "standin-0", "cluster_name": "incident-bot-sandbox", "cluster_uuid": NODE_ID}
        return {**cluster, "version": version, "tagline": "You Know, for Search"}

    def license(self) -> Json:
        """`GET /_license` as Elasticsearch answers it (a trial or paid licence also has an expiry)."""
        if self.opensearch or self.licence is None:
            reason = "Invalid index name [_license], must not start with '_'."
            raise EsError(400, "invalid_index_name_exception", reason)
        body: Json = {
            "status": "active",
            "uid": "5c2e1b8e-7e36-4a5e-9b0c-standin00000",
            "type": self.licence,
            "issue_date": "2025-01-01T00:00:00.000Z",
            "issue_date_in_millis": 1735689600000,
        }
        if self.licence != "basic":
            body |= {"expiry_date": "2027-01-01T00:00:00.000Z", "expiry_date_in_millis": 1798761600000}
        body |= {"max_nodes": 1000, "max_resource_units": None, "issued_to": "incident-bot-sandbox"}
        return {"license": {**body, "issuer": "elasticsearch", "start_date_in_millis": -1}}

    def check_media_types(self, accept: str, content_type: str, has_body: bool) -> None:
        """Refuse a compatible-with version this server does not speak, as RestCompatibleVersionHelper does."""
        if self.opensearch:
            return
        wanted = _version(accept)
        sent = _version(content_type) if has_body else None
        lowest = self.major - 1
        if wanted is not None and not lowest <= wanted <= self.major:
            why = f"Accept version must be either version {self.major} or {lowest}, but found {wanted}. Accept={accept}"
            raise _media_type_error(why)
        if sent is not None and not lowest <= sent <= self.major:
            why = (
                f"Content-Type version must be either version {self.major} or {lowest}, but found {sent}. "
                f"Content-Type={content_type}"
            )
            raise _media_type_error(why)
        if has_body and (wanted is not None or sent is not None) and wanted != sent:
            why = (
                "A compatible version is required on both Content-Type and Accept headers if either one has "
                f"requested a compatible version. Accept={accept or None}, Content-Type={content_type or None}"
            )
            raise _media_type_error(why)

    def response_media_type(self, accept: str) -> str:
        """The answer's media type: the compatible version asked for, else plain JSON."""
        version = _version(accept)
        if self.opensearch or version is None:
            return "application/json"
        return f"application/vnd.elasticsearch+json;compatible-with={version}"

    def headers(self) -> dict[str, str]:
        return {} if self.opensearch else {"X-Elastic-Product": "Elasticsearch"}

    def check_aggregations(self, aggs: Any) -> None:
        """`categorize_text` needs a Platinum licence on Elasticsearch and does not exist on OpenSearch."""
        if not _uses(aggs, "categorize_text"):
            return
        if self.opensearch:
            raise EsError(
                400,
                "parsing_exception",
                "Unknown aggregation type [categorize_text]",
                details={
                    "line": 1,
                    "col": 1,
                    "caused_by": {
                        "type": "named_object_not_found_exception",
                        "reason": "[1:1] unknown field [categorize_text]",
                    },
                },
            )
        if self.licence not in PLATINUM_LICENCES:
            raise EsError(
                403,
                "security_exception",
                f"current license is non-compliant for [{CATEGORIZE_FEATURE}]",
                details={"license.expired.feature": CATEGORIZE_FEATURE},
            )


ELASTICSEARCH_9 = ServerProfile("elasticsearch", "9.1.0", "platinum", "10.2.2")
ELASTICSEARCH_8_BASIC = ServerProfile("elasticsearch", "8.15.3", "basic", "9.11.1")
OPENSEARCH_2 = ServerProfile("opensearch", "2.19.1", None, "9.12.1")


def _version(header: str) -> int | None:
    found = _COMPAT.search(header or "")
    return int(found.group(1)) if found and "vnd.elasticsearch" in header else None


def _media_type_error(why: str) -> EsError:
    return EsError(
        400,
        "media_type_header_exception",
        "Invalid media-type value on headers [Content-Type, Accept]",
        details={"caused_by": {"type": "status_exception", "reason": why}},
    )


def _uses(aggs: Any, kind: str) -> bool:
    if not isinstance(aggs, dict):
        return False
    for body in aggs.values():
        if not isinstance(body, dict):
            continue
        if kind in body or _uses(body.get("aggs", body.get("aggregations")), kind):
            return True
    return False


def shard_failures(failures: ShardFailures, index: str) -> Json:
    """The `_shards` section of an answer in which `failures.failed` shards failed."""
    reason = {"type": failures.kind, "reason": failures.reason}
    return {
        "total": failures.total,
        "successful": failures.total - failures.failed,
        "skipped": 0,
        "failed": failures.failed,
        "failures": [
            {"shard": shard, "index": index, "node": NODE_ID, "reason": reason}
            for shard in range(failures.failed)
        ],
    }
