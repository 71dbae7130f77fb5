"""logs.ndjson: the scope's log documents over the window, as the logs backend stores them.

The documents are the ones the triage's log queries aggregate over (the same `LogScope` filters:
the scope's pods in its namespace and the node-level lines of its nodes), read oldest first in
pages, each `_source` redacted. A pack line needs `@timestamp` and `message` (ECS); a document
without them is counted, not written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.packs.redaction import scrub
from tools.logs import LogScope, LogTool
from tools.logs.fields import TIMESTAMP
from tools.result import Window

PAGE = 1000
MAX_DOCUMENTS = 10_000  # Elasticsearch's default result window: from + size beyond it is refused


@dataclass(frozen=True)
class LogsExport:
    documents: list[dict[str, Any]]
    total: int  # what matched (more than written when past MAX_DOCUMENTS)
    skipped: int  # documents without @timestamp or message


def read(tool: LogTool, index: str, scope: LogScope, window: Window) -> LogsExport:
    """Every matching document, oldest first, up to MAX_DOCUMENTS."""
    filters = scope.filters(window, tool.fields())
    docs: list[dict[str, Any]] = []
    total = 0
    skipped = 0
    offset = 0
    while offset < MAX_DOCUMENTS:
        body: dict[str, Any] = {
            "query": {"bool": {"filter": filters}},
            "sort": [{TIMESTAMP: {"order": "asc"}}],
            "size": min(PAGE, MAX_DOCUMENTS - offset),
            "from": offset,
            "track_total_hits": True,
        }
        answer = tool.client.search(index, body)
        hits = (answer.get("hits") or {}).get("hits") or []
        total = int(((answer.get("hits") or {}).get("total") or {}).get("value") or 0)
        for hit in hits:
            source = hit.get("_source") or {}
            if TIMESTAMP not in source or "message" not in source:
                skipped += 1
                continue
            cleaned = scrub(source)
            assert isinstance(cleaned, dict)
            docs.append(cleaned)
        offset += len(hits)
        if len(hits) < PAGE or offset >= total:
            break
    return LogsExport(documents=docs, total=total, skipped=skipped)


def write(export: LogsExport, path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for doc in export.documents:
            out.write(json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n")
