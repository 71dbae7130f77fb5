"""Signatures mined here when the cluster cannot group lines itself (a Basic licence, OpenSearch).

One bounded request reads the problem lines: all of them, oldest first, when there are at most
`ALL_LINES`; otherwise a time-spread sample, the window cut into `SLICES` slices and the first
`PER_SLICE` lines of each (`date_histogram` with a `top_hits` per bucket, free features on
Elasticsearch and OpenSearch; 100 is the default `index.max_inner_result_window`). Drain (`drain3`,
ids, numbers, hex and addresses masked) groups them. A sampled line stands for its slice's lines
(slice count / lines sampled from it), so a sampled signature's count is an estimate, and its
evidence says it was mined, and from how many of how many lines.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from drain3 import TemplateMiner  # type: ignore[import-untyped]
from drain3.masking import MaskingInstruction  # type: ignore[import-untyped]
from drain3.template_miner_config import TemplateMinerConfig  # type: ignore[import-untyped]

from tools.logs.fields import TIMESTAMP, Fields
from tools.logs.queries import text
from tools.logs.signatures import Signature, error_detail
from tools.result import Window, parse_time

logging.getLogger("drain3.template_miner").setLevel(logging.WARNING)  # one INFO line per miner otherwise

ALL_LINES = 2000  # up to this many problem lines are all read
SLICES = 20
PER_SLICE = 100  # top_hits size cap: index.max_inner_result_window defaults to 100

_HEXISH = re.compile(r"(?:0x)?[0-9a-fA-F]*\d[0-9a-fA-F]*[.,:;)]*")
_MASKS = (
    (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "ID"),
    (r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b", "IP"),
    (r"\b(?:req|cmpl|chatcmpl|run|job)-[\w-]+", "ID"),
    (r"\b0x[0-9a-fA-F]+\b", "HEX"),
    (r"\b[0-9a-f]{8,}\b", "HEX"),
    (r"(?<![A-Za-z_])[-+]?\d+(?:\.\d+)?", "NUM"),
)


def sample_body(query: dict[str, Any], fields: Fields, window: Window) -> dict[str, Any]:
    """The one request: the first `ALL_LINES` lines, and `SLICES` slices of the window with the
    first `PER_SLICE` lines of each, for when there are more."""
    seconds = max(1, math.ceil((window.as_of - window.start).total_seconds() / SLICES))
    source = fields.source_fields()
    slices = {
        "date_histogram": {"field": TIMESTAMP, "fixed_interval": f"{seconds}s", "min_doc_count": 1},
        "aggs": {"lines": {"top_hits": {"size": PER_SLICE, "sort": [{TIMESTAMP: "asc"}], "_source": source}}},
    }
    return {
        "query": query,
        "size": ALL_LINES,
        "sort": [{TIMESTAMP: "asc"}],
        "_source": source,
        "track_total_hits": True,
        "aggs": {"slices": slices},
    }


@dataclass
class _Line:
    message: str
    weight: float
    at: datetime | None
    source: dict[str, Any]


@dataclass
class _Group:
    lines: list[_Line] = field(default_factory=list)

    @property
    def weight(self) -> float:
        return sum(line.weight for line in self.lines)


def mine(answer: dict[str, Any], fields: Fields, total: int, size: int) -> list[Signature]:
    """The sampled lines grouped by Drain, most frequent (estimated) first."""
    lines = list(_sampled(answer, fields, total))
    if not lines:
        return []
    miner = new_miner()
    ids = [miner.add_log_message(shape(line.message))["cluster_id"] for line in lines]
    templates = {c.cluster_id: c.get_template() for c in miner.drain.clusters}
    groups: dict[int, _Group] = {}
    for cluster, line in zip(ids, lines, strict=True):
        groups.setdefault(cluster, _Group()).lines.append(line)
    exact = len(lines) >= total
    note = (
        f"mined from all {total:,} lines"
        if exact
        else f"mined from a sample of {len(lines):,} of {total:,} lines, counts estimated"
    )
    ranked = sorted(groups.items(), key=lambda item: (-item[1].weight, templates[item[0]]))
    return [_signature(templates[c], g, fields, note, exact) for c, g in ranked[:size]]


def shape(message: str) -> str:
    """What Drain compares, cut the way `categorize_text` cuts a line (so the two group alike): the
    first line with letters, without the tokens that start with a digit or are hex numbers."""
    line = next((part for part in message.splitlines() if any(c.isalpha() for c in part)), message)
    kept = [t for t in line.split() if not (t[:1].isdigit() or _HEXISH.fullmatch(t))]
    return " ".join(kept)[:2000] or line[:2000]


def _sampled(answer: dict[str, Any], fields: Fields, total: int) -> Iterable[_Line]:
    if total <= ALL_LINES:  # every line is in the hits
        yield from _lines(answer["hits"]["hits"], fields, 1.0)
        return
    for bucket in (answer.get("aggregations") or {}).get("slices", {}).get("buckets", []):
        hits = bucket["lines"]["hits"]["hits"]
        if hits:
            yield from _lines(hits, fields, int(bucket["doc_count"]) / len(hits))


def _lines(hits: list[dict[str, Any]], fields: Fields, weight: float) -> Iterable[_Line]:
    for hit in hits:
        source = hit.get("_source") or {}
        message = text(source, fields.message)
        if message:
            yield _Line(message, weight, parse_time(text(source, TIMESTAMP) or None), source)


def _signature(template: str, group: _Group, fields: Fields, note: str, exact: bool) -> Signature:
    ordered = sorted(group.lines, key=lambda line: (line.at is None, line.at or datetime.min))
    stamps = [line.at for line in ordered if line.at is not None]
    first = ordered[0].source
    return Signature(
        key=template,
        count=round(group.weight) if not exact else len(group.lines),
        first=stamps[0] if stamps else None,
        last=stamps[-1] if stamps else None,
        pods=_distinct(text(line.source, fields.pod.name) for line in ordered) if fields.pod else [],
        nodes=_distinct(text(line.source, host.name) for line in ordered for host in fields.hosts),
        levels=_distinct(text(line.source, lv.name) for line in ordered for lv in fields.levels[:1]),
        sample=text(first, fields.message),
        error=error_detail(first, fields),
        method=note,
        estimated=not exact,
    )


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))[:10]


def new_miner() -> Any:
    """A Drain miner with this project's masks (ids, addresses, hex and numbers), in memory."""
    return TemplateMiner(config=_config())


def _config() -> Any:
    config = TemplateMinerConfig()
    config.drain_sim_th = 0.4
    config.drain_depth = 4
    config.masking_instructions = [MaskingInstruction(pattern, mask) for pattern, mask in _MASKS]
    return config
