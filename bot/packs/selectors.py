"""What a PromQL expression reads: its series selectors, and how far back of an evaluation.

The triage evaluates the catalog's queries on the raw series, so a pack must hold the raw
samples those queries select, from the earliest any evaluation reaches (`rate(x[5m])` at the
window's first step reads five minutes before it). The expression is parsed by promql-parser
(the Prometheus grammar), never taken apart by pattern.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import promql_parser as promql

# An instant selector sees the last sample up to five minutes back (Prometheus' lookback delta).
LOOKBACK_DELTA = timedelta(minutes=5)
# MatchOp values print as `MatchOp.Equal` (they are not hashable, so they are looked up by name).
OPERATORS = {"Equal": "=", "NotEqual": "!=", "Re": "=~", "NotRe": "!~"}


class SelectorError(ValueError):
    """The expression is not PromQL the parser accepts."""


@dataclass(frozen=True)
class Reads:
    """The selectors of an expression (PromQL text, deduplicated) and how far before an
    evaluation time the earliest sample it reads lies."""

    selectors: tuple[str, ...]
    reach: timedelta


def reads(expr: str) -> Reads:
    """Every series selector of `expr` and its reach (ranges, subqueries and offsets added up)."""
    try:
        tree = promql.parse(expr)
    except ValueError as exc:
        raise SelectorError(f"{expr[:200]}: {exc}") from exc
    found: dict[str, None] = {}
    reach = _walk(tree, found)
    return Reads(selectors=tuple(found), reach=reach + LOOKBACK_DELTA)


def selector_text(node: promql.VectorSelector) -> str:
    """The selector without its offset or @ modifier: `name{label="value",...}`."""
    parts = [
        f'{m.name}{OPERATORS[str(m.op).rsplit(".", 1)[-1]]}"{_quoted(m.value)}"'
        for m in node.matchers.matchers
        if not (node.name and m.name == "__name__")
    ]
    name = node.name or ""
    if not parts:
        return name or "{}"
    return f"{name}{{{','.join(parts)}}}"


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _walk(node: promql.Expr, found: dict[str, None]) -> timedelta:
    """Collect the selectors below `node`; return how far back of an evaluation it reads."""
    if isinstance(node, promql.VectorSelector):
        found[selector_text(node)] = None
        return node.offset or timedelta(0)
    if isinstance(node, promql.MatrixSelector):
        return node.range + _walk(node.vector_selector, found)
    if isinstance(node, promql.SubqueryExpr):
        return (node.range or timedelta(0)) + (node.offset or timedelta(0)) + _walk(node.expr, found)
    children: list[promql.Expr] = []
    if isinstance(node, promql.BinaryExpr):
        children = [node.lhs, node.rhs]
    elif isinstance(node, promql.AggregateExpr):
        children = [c for c in (node.expr, node.param) if c is not None]
    elif isinstance(node, promql.Call):
        children = list(node.args)
    elif isinstance(node, promql.ParenExpr | promql.UnaryExpr):
        children = [node.expr]
    return max((_walk(child, found) for child in children), default=timedelta(0))
