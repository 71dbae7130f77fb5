"""The triage result (spec/scenario-pack.md "The triage result"), as typed objects."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class IncidentSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    service: str | None = None
    model: str | None = None
    namespace: str | None = None
    started_at: datetime | None = None
    severity: str | None = None


class ProposedAction(BaseModel):
    """One reversible action, with a target taken from the evidence."""

    model_config = ConfigDict(frozen=True)

    kind: str
    target: str
    namespace: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    reversible: bool = True
    undo: str = ""
    rationale: str = ""


class TimelineEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    at: datetime
    layer: str | None
    what: str
    evidence: str


class TriageResult(BaseModel):
    """What every triage entry point produces."""

    model_config = ConfigDict(frozen=True)

    incident: IncidentSummary
    category: str
    code: str
    layer: str | None
    hypothesis: str
    confidence: float = Field(ge=0, le=1)
    evidence: list[dict[str, Any]]
    blast_radius: str
    actions: list[ProposedAction]
    runbook: str | None
    engine: Literal["rules", "llm"] = "rules"
    timings_ms: dict[str, float] = Field(default_factory=dict)
    gaps: list[str] = Field(default_factory=list)
    timeline: list[TimelineEntry] = Field(default_factory=list)
    scope: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    attribution: dict[str, Any] = Field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class Verdict(BaseModel):
    """The LLM review's answer once validated against the taxonomy, the catalog and the evidence."""

    model_config = ConfigDict(frozen=True)

    category: str
    code: str
    layer: str
    hypothesis: str
    confidence: float = Field(ge=0, le=1)
    evidence_ids: list[str]
    actions: list[ProposedAction]
