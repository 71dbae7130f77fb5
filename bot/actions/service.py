"""Approve, reject and undo, for every entry point (Slack, the HTTP API, the CLI), with one check.

Only an approver may decide; anyone else is refused and the refusal is audited. A decision is a
claim in the database (`UPDATE … WHERE status = 'proposed'` and not expired), so two clicks or two
approvers at once decide once, and the execution is queued in the same transaction. Expiry is
applied when a proposal is read or clicked after its time.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.actions.approvers import Approvers
from bot.actions.model import UNDOABLE_STATES, ProposalState
from bot.actions.store import ProposalStore
from bot.clock import Clock, utc_now
from bot.domain import ActionProposal, EventKind, IncidentStatus
from bot.errors import ForbiddenError, InvalidTransitionError
from bot.lifecycle import actor_of

P = ProposalState


class ActionService:
    """What responders do with proposed actions."""

    def __init__(
        self,
        store: ProposalStore,
        approvers: Approvers,
        *,
        clock: Clock = utc_now,
        on_queued: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.approvers = approvers
        self._clock = clock
        self._on_queued = on_queued

    def list(self, incident_id: int) -> list[ActionProposal]:
        """Every proposal of the incident, oldest run first; the ones past their time are expired."""
        found = self.store.of_incident(incident_id)
        if any(self._expire(p) for p in found):
            found = self.store.of_incident(incident_id)
        return found

    def get(self, proposal_id: int) -> ActionProposal:
        proposal = self.store.get(proposal_id)
        return self.store.get(proposal_id) if self._expire(proposal) else proposal

    def approve(self, proposal_id: int, *, actor: str) -> ActionProposal:
        return self._decide(proposal_id, actor, P.PROPOSED, P.APPROVED, "apply", EventKind.ACTION_APPROVED)

    def reject(self, proposal_id: int, *, actor: str) -> ActionProposal:
        return self._decide(proposal_id, actor, P.PROPOSED, P.REJECTED, None, EventKind.ACTION_REJECTED)

    def undo(self, proposal_id: int, *, actor: str) -> ActionProposal:
        return self._decide(
            proposal_id, actor, P.DONE, P.UNDO_REQUESTED, "undo", EventKind.ACTION_UNDO_REQUESTED
        )

    def _decide(
        self, proposal_id: int, actor: str, source: P, to: P, phase: str | None, kind: EventKind
    ) -> ActionProposal:
        actor = actor_of(actor)
        proposal = self.get(proposal_id)
        verb = {P.APPROVED: "approve", P.REJECTED: "reject", P.UNDO_REQUESTED: "undo"}[to]
        what = f"{proposal.action.kind.value} {proposal.action.target} (proposal {proposal.id})"
        incident = self.store.incident(proposal.incident_id)
        verdict = self.approvers.check(actor, incident.service)
        now = self._clock()
        if not verdict.allowed:
            self.store.audit(
                proposal,
                EventKind.ACTION_REFUSED,
                f"{actor} may not {verb} {what}: {verdict.reason}",
                actor=actor,
                now=now,
                data={"verb": verb},
            )
            raise ForbiddenError(f"you may not {verb} this action: {verdict.reason}")
        if phase is not None and incident.status == IncidentStatus.RESOLVED.value:
            raise InvalidTransitionError(f"incident {incident.id} is resolved: its actions no longer run")
        with self.store.db.transaction() as session:
            claimed = self.store.claim_in(
                session,
                proposal.id,
                states=[source],
                to=to,
                now=now,
                actor=actor,
                unexpired=(source is P.PROPOSED),
            )
            if claimed:
                self.store.audit(
                    proposal,
                    kind,
                    f"{actor} {verb}d {what}".replace("undod", "asked to undo"),
                    actor=actor,
                    now=now,
                    session=session,
                )
                if phase is not None:
                    self.store.queue(session, proposal, phase, now)
        if not claimed:
            raise InvalidTransitionError(self._why_not(self.get(proposal.id), verb))
        if phase is not None and self._on_queued is not None:
            self._on_queued()
        return self.store.get(proposal.id)

    def _why_not(self, proposal: ActionProposal, verb: str) -> str:
        state = proposal.status
        if state == P.EXPIRED:
            when = _at(proposal.expires_at)
            return f"proposal {proposal.id} expired at {when}: ask for a new triage (`/incident triage`)"
        if verb == "undo":
            if state in {s.value for s in UNDOABLE_STATES}:
                return f"proposal {proposal.id} cannot be undone now"
            return f"proposal {proposal.id} is {state}: only a finished action can be undone"
        who = f" by {proposal.decided_by} at {_at(proposal.decided_at)}" if proposal.decided_by else ""
        return f"proposal {proposal.id} was already handled: {state}{who}"

    def _expire(self, proposal: ActionProposal) -> bool:
        """Mark a proposal past its time expired (once), with its audit entry."""
        now = self._clock()
        if proposal.status != P.PROPOSED or proposal.expires_at is None or proposal.expires_at > now:
            return False
        with self.store.db.transaction() as session:
            if not self.store.claim_in(session, proposal.id, states=[P.PROPOSED], to=P.EXPIRED, now=now):
                return False
            text = f"proposal {proposal.id} ({proposal.action.kind.value} {proposal.action.target}) expired unapproved"
            self.store.audit(
                proposal, EventKind.ACTION_EXPIRED, text, actor="incident-bot", now=now, session=session
            )
        return True


def _at(moment: object) -> str:
    return moment.strftime("%H:%M:%S UTC") if hasattr(moment, "strftime") else "?"
