"""The actions' rows: proposals claimed by one conditional UPDATE, executions written before the write.

A claim is `UPDATE … WHERE id = :id AND status IN (:from)`: two clicks, two approvers or two
replicas at once, and exactly one of them gets the row; nothing here is held in memory. Every
change bumps the proposal's version (Slack wants fresh block ids on each update) and writes its
audit entry on the incident's timeline in the same transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from bot.actions.model import ProposalState
from bot.domain import ActionProposal, EventKind
from bot.errors import NotFoundError
from bot.incidents import proposal_of, with_run
from bot.lifecycle import Lifecycle
from bot.store.db import Database
from bot.store.models import ActionExecutionRow, ActionProposalRow, IncidentRow, TriageRow


class ProposalStore:
    """Reads and conditional changes of proposals and their executions."""

    def __init__(self, db: Database, lifecycle: Lifecycle) -> None:
        self.db = db
        self._lifecycle = lifecycle

    # -- reads ---------------------------------------------------------------------------------
    def get(self, proposal_id: int) -> ActionProposal:
        """One stored proposal (what a button click names)."""
        with self.db.reader() as session:
            found = session.execute(with_run().where(ActionProposalRow.id == proposal_id)).one_or_none()
            if found is None:
                raise NotFoundError(f"proposal {proposal_id} does not exist")
            return proposal_of(*found)

    def of_incident(self, incident_id: int) -> list[ActionProposal]:
        with self.db.reader() as session:
            rows = session.execute(
                with_run()
                .where(ActionProposalRow.incident_id == incident_id)
                .order_by(TriageRow.run, ActionProposalRow.position, ActionProposalRow.id)
            ).all()
            if not rows and session.get(IncidentRow, incident_id) is None:
                raise NotFoundError(f"incident {incident_id} does not exist")
            return [proposal_of(row, run) for row, run in rows]

    def incident(self, incident_id: int) -> IncidentRow:
        with self.db.reader() as session:
            row = session.get(IncidentRow, incident_id)
            if row is None:
                raise NotFoundError(f"incident {incident_id} does not exist")
            session.expunge(row)
            return row

    def triage_row(self, proposal: ActionProposal) -> TriageRow:
        with self.db.reader() as session:
            row = session.scalars(
                select(TriageRow).where(
                    TriageRow.incident_id == proposal.incident_id, TriageRow.run == proposal.run
                )
            ).one()
            session.expunge(row)
            return row

    # -- changes -------------------------------------------------------------------------------
    def claim(
        self,
        proposal_id: int,
        *,
        states: Iterable[ProposalState],
        to: ProposalState,
        now: datetime,
        actor: str | None = None,
        unexpired: bool = False,
        outcome: dict[str, Any] | None = None,
    ) -> bool:
        """Move the proposal from one of `states` to `to`; False when another change came first."""
        with self.db.transaction() as session:
            return self.claim_in(
                session,
                proposal_id,
                states=states,
                to=to,
                now=now,
                actor=actor,
                unexpired=unexpired,
                outcome=outcome,
            )

    @staticmethod
    def claim_in(
        session: Session,
        proposal_id: int,
        *,
        states: Iterable[ProposalState],
        to: ProposalState,
        now: datetime,
        actor: str | None = None,
        unexpired: bool = False,
        outcome: dict[str, Any] | None = None,
    ) -> bool:
        values: dict[str, Any] = {"status": to.value, "version": ActionProposalRow.version + 1}
        if actor is not None:
            values |= {"decided_by": actor, "decided_at": now}
        if outcome is not None:
            values["outcome"] = outcome
        stmt = update(ActionProposalRow).where(
            ActionProposalRow.id == proposal_id, ActionProposalRow.status.in_([s.value for s in states])
        )
        if unexpired:
            stmt = stmt.where(ActionProposalRow.expires_at > now)
        result = session.execute(stmt.values(**values))
        return result.rowcount == 1  # type: ignore[attr-defined,no-any-return]

    def set_preview(self, proposal_id: int, preview: dict[str, Any]) -> None:
        with self.db.transaction() as session:
            session.execute(
                update(ActionProposalRow)
                .where(ActionProposalRow.id == proposal_id)
                .values(preview=preview, version=ActionProposalRow.version + 1)
            )

    def audit(
        self,
        proposal: ActionProposal,
        kind: EventKind,
        text: str,
        *,
        actor: str,
        now: datetime,
        data: dict[str, Any] | None = None,
        session: Session | None = None,
    ) -> None:
        """One timeline entry about `proposal` (in `session` when given, else in its own transaction)."""
        facts = {
            "proposal_id": proposal.id,
            "kind": proposal.action.kind.value,
            "target": proposal.action.target,
        }
        facts |= data or {}
        if session is not None:
            self._lifecycle.event(session, proposal.incident_id, now, actor, kind, text, facts)
            return
        with self.db.transaction() as own:
            self._lifecycle.event(own, proposal.incident_id, now, actor, kind, text, facts)

    def queue(self, session: Session, proposal: ActionProposal, phase: str, now: datetime) -> None:
        self._lifecycle.act_job(session, (proposal.incident_id, proposal.id), phase, now)

    def follow_up(
        self,
        proposal: ActionProposal,
        params: dict[str, Any],
        rationale: str,
        *,
        now: datetime,
        expires_at: datetime,
    ) -> int:
        """A second proposal on the same target (a delete after a refused eviction), approved on its own."""
        with self.db.transaction() as session:
            base = session.get(ActionProposalRow, proposal.id)
            assert base is not None
            row = ActionProposalRow(
                incident_id=base.incident_id,
                triage_id=base.triage_id,
                position=base.position,
                kind=base.kind,
                target=base.target,
                namespace=base.namespace,
                params=params,
                rationale=rationale,
                undo=base.undo,
                status=ProposalState.PROPOSED.value,
                created_at=now,
                expires_at=expires_at,
                follows=base.id,
                version=0,
            )
            session.add(row)
            session.flush()
            return int(row.id)

    # -- the run's pause ----------------------------------------------------------------------
    def lease_run(self, triage_id: int, holder: str, *, now: datetime, until: datetime) -> bool:
        """Hold the run's paused graph: one decision at a time resumes it (a lease, in case we die)."""
        with self.db.transaction() as session:
            stmt = (
                update(TriageRow)
                .where(TriageRow.id == triage_id)
                .where(
                    (TriageRow.acting_until.is_(None))
                    | (TriageRow.acting_until < now)
                    | (TriageRow.acting_by == holder)
                )
                .values(acting_by=holder, acting_until=until)
            )
            return session.execute(stmt).rowcount == 1  # type: ignore[attr-defined,no-any-return]

    def release_run(self, triage_id: int, holder: str, *, interrupt_id: str | None, resumed: bool) -> None:
        with self.db.transaction() as session:
            values: dict[str, Any] = {"acting_by": None, "acting_until": None}
            if resumed:
                values["interrupt_id"] = interrupt_id
            session.execute(
                update(TriageRow)
                .where(TriageRow.id == triage_id, TriageRow.acting_by == holder)
                .values(**values)
            )

    # -- executions ----------------------------------------------------------------------------
    def execution(self, proposal_id: int, phase: str) -> ActionExecutionRow | None:
        with self.db.reader() as session:
            row = session.scalars(
                select(ActionExecutionRow).where(
                    ActionExecutionRow.proposal_id == proposal_id, ActionExecutionRow.phase == phase
                )
            ).one_or_none()
            if row is not None:
                session.expunge(row)
            return row

    def start_execution(
        self,
        proposal_id: int,
        phase: str,
        *,
        actor: str,
        plan: dict[str, Any],
        dry_run: dict[str, Any],
        now: datetime,
    ) -> None:
        """Written before the first write to the cluster: a retry reuses this plan."""
        with self.db.transaction() as session:
            session.add(
                ActionExecutionRow(
                    proposal_id=proposal_id,
                    actor=actor,
                    phase=phase,
                    status="started",
                    started_at=now,
                    plan=plan,
                    dry_run=dry_run,
                    result={},
                    undo_state={},
                )
            )

    @staticmethod
    def record_execution(session: Session, proposal_id: int, phase: str, **values: Any) -> None:
        """Update an execution's row (its status, the server's answer, its finish) in the caller's
        transaction, beside the timeline entry that says it, so a retry finds both or neither."""
        session.execute(
            update(ActionExecutionRow)
            .where(ActionExecutionRow.proposal_id == proposal_id, ActionExecutionRow.phase == phase)
            .values(**values)
        )
