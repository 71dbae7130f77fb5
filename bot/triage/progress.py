"""What a running triage says as it goes: each evidence tool as it finishes, each step as it ends.

A responder watching the channel sees which backends answered and which became gaps while the
triage is still running; the events come out of the graph's custom stream, so they cost nothing
when nobody listens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

STEPS = ("gather", "attribute", "classify", "llm_review", "propose", "report")


@dataclass(frozen=True)
class ProgressEvent:
    """One tool finished (`tool` set, with its gaps) or one step of the graph ended."""

    step: str
    tool: str | None = None
    ms: float = 0.0
    gaps: list[str] = field(default_factory=list)


Progress = Callable[[ProgressEvent], None]
