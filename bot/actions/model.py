"""What an action is as it moves from proposal to result: its states, the decision that resumes a
paused triage, the plan an executor makes, and what came of it.

A plan is made once, stored before the first write, and reused by a retried execution, so the
values it writes are the absolute ones read before anything changed (never deltas), and its undo
knows what was there before.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ProposalState(StrEnum):
    """Where a proposal stands; only `proposed` can be approved, only `done` can be undone."""

    PROPOSED = "proposed"
    APPROVED = "approved"  # claimed by an approver; its execution is queued
    RUNNING = "running"
    DONE = "done"  # applied (and verified, or said why not)
    FAILED = "failed"  # the write did not happen or went wrong
    REFUSED = "refused"  # a precondition did not hold: nothing was written
    BLOCKED = "blocked"  # a disruption budget refused the eviction; a delete is offered instead
    REJECTED = "rejected"
    EXPIRED = "expired"
    UNDO_REQUESTED = "undo_requested"
    UNDOING = "undoing"
    UNDONE = "undone"
    UNDO_FAILED = "undo_failed"


OPEN_STATES = frozenset({ProposalState.PROPOSED})
UNDOABLE_STATES = frozenset({ProposalState.DONE})
Phase = Literal["apply", "undo"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class ActionDecision(Frozen):
    """A human's decision on one proposal: what resumes the triage run's paused graph."""

    proposal_id: int
    phase: Phase
    actor: str

    @property
    def key(self) -> str:
        """One key per decision: a decision already acted on is never acted on again."""
        return f"{self.phase}:{self.proposal_id}"


class Plan(Frozen):
    """One write an executor will make, read from the cluster just before: what and how.

    `data` is the executor's own (the ops, the values before and after); `diff` says in lines what
    changes; `noop` means the cluster already is as the plan wants (nothing to write).
    """

    kind: str
    target: str
    namespace: str | None
    summary: str
    diff: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    noop: bool = False


class Verification(Frozen):
    """What verify saw before its deadline."""

    ok: bool
    summary: str
    pending: bool = False  # not failed: waiting on something slow (a GPU to free, a model to load)
    final: bool = False  # failed for good: waiting longer cannot help


class Outcome(Frozen):
    """What one execution phase came to, as the proposal shows it."""

    state: ProposalState
    summary: str
    diff: list[str] = Field(default_factory=list)
    verified: bool | None = None
    actor: str | None = None
    at: str | None = None
