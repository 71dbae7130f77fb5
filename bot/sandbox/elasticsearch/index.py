"""One index of the Elasticsearch stand-in: its mapping, its documents, and the rules for its name.

Writes go through `Index.write`, which assigns ids, versions and sequence numbers deterministically
(the same ids on every run) and answers version conflicts as a cluster does. The HTTP layer creates,
resolves and deletes indices; searches read their mappings and documents.
"""

from __future__ import annotations

import base64
import copy
import hashlib
from typing import Any

from bot.sandbox.elasticsearch.errors import EsError, Json
from bot.sandbox.elasticsearch.mapping import Document, IndexMapping, build_document

SHARDS_WRITE = {"total": 2, "successful": 1, "failed": 0}
_INVALID_NAME_CHARS = set('\\/*?"<>| ,#:')


class Index:
    """One index: its mapping and its documents in the order they were last written."""

    def __init__(self, name: str, *, strings: str = "ecs") -> None:
        _check_index_name(name)
        self.name = name
        self.uuid = _stable_id(f"index/{name}")[:22]
        self.mapping = IndexMapping(strings=strings)
        self.docs: dict[str, Document] = {}
        self._next_seq = 0

    def write(self, doc_id: str | None, source: Any, *, create_only: bool) -> tuple[Document, bool]:
        """Store `source` under `doc_id` (generated when None); True in the result when it is new."""
        if not isinstance(source, dict):
            raise EsError(
                400, "mapper_parsing_exception", "failed to parse, document is empty or not an object"
            )
        key = doc_id if doc_id is not None else _stable_id(f"{self.name}/{self._next_seq}")
        previous = self.docs.get(key)
        if previous is not None and create_only:
            reason = (
                f"[{key}]: version conflict, document already exists (current version [{previous.version}])"
            )
            details = {"index_uuid": self.uuid, "shard": "0", "index": self.name}
            raise EsError(409, "version_conflict_engine_exception", reason, details=details)
        version = previous.version + 1 if previous else 1
        doc = build_document(self.name, self.mapping, key, copy.deepcopy(source), version, self._next_seq)
        self._next_seq += 1
        self.docs.pop(key, None)
        self.docs[key] = doc
        return doc, previous is None

    def delete(self, doc_id: str) -> Document | None:
        return self.docs.pop(doc_id, None)

    def result(self, doc: Document, result: str) -> Json:
        return {
            "_index": self.name,
            "_id": doc.id,
            "_version": doc.version,
            "result": result,
            "_shards": SHARDS_WRITE,
            "_seq_no": doc.seq_no,
            "_primary_term": 1,
        }


def _stable_id(seed: str) -> str:
    """A 20-character id shaped like Elasticsearch's, but the same on every run."""
    return base64.urlsafe_b64encode(hashlib.sha1(seed.encode()).digest()).decode()[:20]


def _check_index_name(name: str) -> None:
    problem = None
    if name != name.lower():
        problem = "must be lowercase"
    elif name[:1] in ("_", "-", "+"):
        problem = "must not start with '_', '-', or '+'"
    elif set(name) & _INVALID_NAME_CHARS or not name:
        problem = 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?, #, :]'
    if problem:
        details = {"index_uuid": "_na_", "index": name}
        raise EsError(
            400, "invalid_index_name_exception", f"Invalid index name [{name}], {problem}", details=details
        )
