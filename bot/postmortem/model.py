"""The postmortem draft as typed data: what `incidents postmortem --format json` prints and what is
stored when an incident resolves (seed step 7: what happened, and what a machine could do next time)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from bot.domain import Category, EventKind, Frozen, Incident, TimelineEvent

# What happens after the draft (its own posting, the channel archived) does not make it stale.
AFTERWORD = frozenset({EventKind.POSTMORTEM_DRAFTED, EventKind.CHANNEL_ARCHIVED})


class TagCheck(Frozen):
    """The first triage's tag against the final one; `None` where the final one was not given."""

    triage_category: Category | None = None
    triage_code: str | None = None
    triage_engine: str | None = None
    triage_confidence: float | None = None
    final_category: Category | None = None
    final_code: str | None = None
    category_ok: bool | None = None
    code_ok: bool | None = None
    runs: int = 0  # triage runs stored for the incident


class ActionRecord(Frozen):
    """One proposed action: who decided, what it did, whether it held."""

    proposal_id: int
    run: int
    kind: str
    target: str
    status: str
    proposed_at: datetime | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    executed_at: datetime | None = None
    effect: str = ""
    diff: list[str] = Field(default_factory=list)
    verified: bool | None = None
    undone_at: datetime | None = None


class Duration(Frozen):
    """One of the incident's clocks, from one moment to another (None where it never happened)."""

    name: str
    start: str  # what starts it, in words
    end: str
    seconds: float | None = None

    def text(self) -> str:
        if self.seconds is None:
            return "n/a"
        whole = round(self.seconds)
        hours, rest = divmod(whole, 3600)
        return f"{hours}h{rest // 60:02d}m{rest % 60:02d}s" if hours else f"{rest // 60}m{rest % 60:02d}s"


class Gap(StrEnum):
    """What the machine lacked: the kinds of "what it could have done"."""

    SIGNAL = "missing_signal"
    RULE = "missing_rule"
    ACTION = "action_not_offered"
    RUNBOOK = "missing_runbook"


class Finding(Frozen):
    """One thing the machine could have done, and the action item that follows from it."""

    gap: Gap
    text: str
    action_item: str


class Postmortem(Frozen):
    """The draft: every section filled from the stored timeline, triages and proposals."""

    incident: Incident
    built_at: datetime
    events: int  # timeline events it was built from: a later event makes it stale
    summary: str
    tag: TagCheck
    hypothesis: str = ""
    blast_radius: str = ""
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)  # what the first triage could not read
    timeline: list[TimelineEvent] = Field(default_factory=list)
    actions: list[ActionRecord] = Field(default_factory=list)
    durations: list[Duration] = Field(default_factory=list)
    machine_did: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    action_items: list[str] = Field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
