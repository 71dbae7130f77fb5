"""What one triage run accumulates: the request it starts from, then each step's part.

The accessors say which step was skipped when a later one finds its input missing, instead of
every node asserting on optional fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.actions.model import ActionDecision
from bot.domain import ProposedAction, TriageResult
from bot.triage.classify import Decision
from bot.triage.findings import Finding
from bot.triage.gather import Gathered
from bot.triage.request import TriageRequest
from bot.triage.verdict import Verdict


class StepSkipped(RuntimeError):
    """A step ran before the one that fills its input (a graph wired wrongly)."""


@dataclass
class TriageState:
    """Everything one triage run accumulates; `request` is given, each step fills its part."""

    request: TriageRequest
    gathered: Gathered | None = None
    findings: list[Finding] = field(default_factory=list)
    unattributed: dict[str, Any] = field(default_factory=dict)
    decision: Decision | None = None
    verdict: Verdict | None = None
    actions: list[ProposedAction] = field(default_factory=list)
    runbook: str | None = None
    notes: list[str] = field(default_factory=list)
    result: TriageResult | None = None
    pending: ActionDecision | None = None  # the decision a click resumed the run with, until acted on
    acted: list[str] = field(default_factory=list)  # decisions acted on (`ActionDecision.key`)

    def need_gathered(self) -> Gathered:
        if self.gathered is None:
            raise StepSkipped("the gather step has not run")
        return self.gathered

    def need_decision(self) -> Decision:
        if self.decision is None:
            raise StepSkipped("the classify step has not run")
        return self.decision
