"""The errors of the Elasticsearch stand-in, shaped the way a real cluster reports them.

Every other module of the package raises these, so they sit at the bottom of the import graph: `EsError`
renders both request-level errors and shard-level ones (wrapped in `search_phase_execution_exception`
as a failed search is), and the helpers build the errors several modules share.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
NODE_ID = "c3RhbmRpbi1ub2RlLTA"


class EsError(Exception):
    """An error as Elasticsearch reports it; shard-level ones are wrapped the way a failed search is."""

    def __init__(
        self, status: int, kind: str, reason: str, *, shard_level: bool = False, details: Json | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.kind = kind
        self.reason = reason
        self.shard_level = shard_level
        self.extra = details or {}
        self.index: str | None = None

    def cause(self) -> Json:
        return {"type": self.kind, "reason": self.reason, **self.extra}

    def body(self) -> Json:
        cause = self.cause()
        root = {key: value for key, value in cause.items() if key != "caused_by"}
        if not self.shard_level:
            return {"error": {"root_cause": [root], **cause}, "status": self.status}
        failure = {"shard": 0, "index": self.index, "node": NODE_ID, "reason": cause}
        error = {
            "root_cause": [root],
            "type": "search_phase_execution_exception",
            "reason": "all shards failed",
            "phase": "query",
            "grouped": True,
            "failed_shards": [failure],
            "caused_by": cause,
        }
        return {"error": error, "status": self.status}


def parsing_error(reason: str) -> EsError:
    return EsError(400, "parsing_exception", reason)


def shard_error(kind: str, reason: str) -> EsError:
    return EsError(400, kind, reason, shard_level=True)


def index_not_found(name: str) -> EsError:
    where = {"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name}
    return EsError(404, "index_not_found_exception", f"no such index [{name}]", details=where)


def fielddata_error(field: str, index: str | None) -> EsError:
    """The error a real cluster gives when a text field is sorted or aggregated."""
    return shard_error(
        "illegal_argument_exception",
        f"Fielddata is disabled on [{field}] in [{index}]. Text fields are not optimised for operations that "
        "require per-document field data like aggregations and sorting, so these operations are disabled "
        f"by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{field}] in "
        "order to load field data by uninverting the inverted index. Note that this can use significant memory.",
    )
