"""The `_bulk` endpoint of the Elasticsearch stand-in: NDJSON action lines, one result per item.

Kept apart from the HTTP layer: a bulk body is parsed line by line, each item is written through the
index it names (created when missing) and fails alone, as a cluster reports it (`errors: true`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bot.sandbox.elasticsearch.errors import EsError, Json
from bot.sandbox.elasticsearch.index import SHARDS_WRITE, Index


def run_bulk(body: bytes, default_index: str | None, for_write: Callable[[str], Index]) -> Json:
    """Every action of a bulk body, applied in order; the answer `_bulk` gives."""
    started = time.perf_counter()
    lines = [line for line in body.split(b"\n") if line.strip()]
    items, position = [], 0
    while position < len(lines):
        action, meta = _bulk_action(lines[position], position)
        position += 1
        source = None
        if action != "delete":
            if position >= len(lines):
                raise EsError(400, "illegal_argument_exception", f"Missing source for the [{action}] action")
            source = _bulk_line(lines[position], position)
            position += 1
        index_name = meta.get("_index", default_index)
        if not index_name:
            raise EsError(
                400, "action_request_validation_exception", "Validation Failed: 1: index is missing;"
            )
        doc_id = None if meta.get("_id") is None else str(meta["_id"])
        items.append({action: _bulk_item(for_write, action, index_name, doc_id, source)})
    errors = any("error" in item for result in items for item in result.values())
    return {"errors": errors, "took": int((time.perf_counter() - started) * 1000), "items": items}


def _bulk_item(
    for_write: Callable[[str], Index], action: str, name: str, doc_id: str | None, source: Any
) -> Json:
    try:
        if action == "update":
            raise EsError(400, "illegal_argument_exception", "the stand-in does not support bulk [update]")
        index = for_write(name)
        if action == "delete":
            deleted = index.delete(doc_id or "")
            if deleted is None:
                return {
                    "_index": name,
                    "_id": doc_id,
                    "result": "not_found",
                    "_shards": SHARDS_WRITE,
                    "status": 404,
                }
            return index.result(deleted, "deleted") | {"status": 200}
        doc, created = index.write(doc_id, source, create_only=action == "create")
        return index.result(doc, "created" if created else "updated") | {"status": 201 if created else 200}
    except EsError as error:
        return {"_index": name, "_id": doc_id, "status": error.status, "error": error.cause()}


def _bulk_line(line: bytes, position: int) -> Any:
    try:
        return json.loads(line)
    except ValueError as exc:
        raise EsError(
            400, "x_content_parse_exception", f"[{position + 1}:1] Malformed bulk line: {exc}"
        ) from exc


def _bulk_action(line: bytes, position: int) -> tuple[str, Json]:
    parsed = _bulk_line(line, position)
    if not isinstance(parsed, dict) or len(parsed) != 1 or not isinstance(next(iter(parsed.values())), dict):
        reason = f"Malformed action/metadata line [{position + 1}], expected START_OBJECT or END_OBJECT"
        raise EsError(400, "illegal_argument_exception", reason)
    ((action, meta),) = parsed.items()
    if action not in ("index", "create", "delete", "update"):
        reason = f"Malformed action/metadata line [{position + 1}], expected one of [create, delete, index, update]"
        raise EsError(400, "illegal_argument_exception", f"{reason} but found [{action}]")
    return action, meta
