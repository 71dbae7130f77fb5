"""The execution of one approved decision: what the paused triage's `act` step calls.

Before anything is written: the target is checked against the incident's scope, the plan is
read from the cluster again, and the API server dry-runs it. The execution row, with the plan, is
stored before the write, so a retried step (a worker died) reuses the plan and finds a write that
already landed instead of making another; the write is recorded with its timeline entry, once.
Then a bounded verify, and every step on the timeline.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from bot.actions.catalog import SCOPE_FIELD, ActionKind
from bot.actions.executors import Blocked, Executor, Limits, Refused, executor_for
from bot.actions.executors.base import diff
from bot.actions.kube import KubeActions, KubeError, Obj
from bot.actions.model import ActionDecision, Outcome, Plan, ProposalState
from bot.actions.store import ProposalStore
from bot.clock import Clock, utc_now
from bot.domain import ActionProposal, EventKind

log = logging.getLogger(__name__)
P = ProposalState
STARTED = "started"  # an execution's status from its stored plan until its write is recorded
WRITTEN = "written"  # from its recorded write until its verify is recorded


class ActionRunner:
    """Previews and executes proposals; `kube` is None when no cluster is configured."""

    def __init__(
        self,
        store: ProposalStore,
        kube: KubeActions | None,
        limits: Limits,
        *,
        ttl: timedelta,
        clock: Clock = utc_now,
    ) -> None:
        self.store = store
        self._kube = kube
        self._limits = limits
        self._ttl = ttl
        self._clock = clock

    def close(self) -> None:
        if self._kube is not None:
            self._kube.close()

    def _executor(self, kind: ActionKind) -> Executor:
        if self._kube is None:
            raise Refused("no Kubernetes API is configured: nothing can be changed")
        return executor_for(kind, self._kube, self._limits)

    def _in_scope(self, proposal: ActionProposal) -> None:
        """The target is one the triage found in the incident's scope, in the incident's namespace."""
        scope = (self.store.triage_row(proposal).result or {}).get("scope") or {}
        action = proposal.action
        kind, _, name = action.target.partition("/")
        if action.namespace is not None and action.namespace != scope.get("namespace"):
            raise Refused(f"{action.target} is in namespace {action.namespace}, not the incident's")
        if name not in (scope.get(SCOPE_FIELD.get(kind, ""), []) or []):
            raise Refused(f"{action.target} is not in the incident's scope")

    # -- before approval -----------------------------------------------------------------------
    def preview(self, proposal: ActionProposal) -> dict[str, Any]:
        """The dry run shown on the proposal: what would change, or why it cannot run."""
        try:
            self._in_scope(proposal)
            executor = self._executor(proposal.action.kind)
            plan = executor.plan(proposal.action, actor="(preview)", incident_id=proposal.incident_id)
            lines = self._dry_run(executor, plan)
        except Refused as exc:
            return {"ok": False, "reason": str(exc)}
        except Blocked as exc:
            return {
                "ok": True,
                "summary": "the eviction would be refused now",
                "blocked": exc.message,
                "diff": [],
            }
        except KubeError as exc:
            return {"ok": False, "reason": f"dry run unavailable: {exc.message}"}
        return {"ok": True, "summary": plan.summary, "diff": lines, "noop": plan.noop}

    def _dry_run(self, executor: Executor, plan: Plan) -> list[str]:
        if plan.noop:
            return []
        before = executor.current(plan)
        answer = executor.write(plan, dry_run=True)
        if before and answer.get("kind") == before.get("kind"):
            return diff(before, answer) or plan.diff
        return plan.diff

    # -- after approval ------------------------------------------------------------------------
    def execute(self, decision: ActionDecision) -> Outcome:
        """Run one decision's phase to its end; safe to run again for the same decision."""
        proposal = self.store.get(decision.proposal_id)
        undo = decision.phase == "undo"
        queued, running = (P.UNDO_REQUESTED, P.UNDOING) if undo else (P.APPROVED, P.RUNNING)
        if proposal.status not in (queued, running):
            return Outcome(
                state=P(proposal.status), summary=f"nothing to do: the proposal is {proposal.status}"
            )
        self.store.claim(proposal.id, states=[queued], to=running, now=self._clock())
        actor = decision.actor
        try:
            executor = self._executor(proposal.action.kind)
            stored = self._stored_plan(proposal, decision)
            plan = stored or self._plan(executor, proposal, decision)
            written = self._write(executor, proposal, plan, decision, retry=stored is not None)
            seen = executor.verify(plan, written)
        except Refused as exc:
            return self._end(
                proposal, P.UNDO_FAILED if undo else P.REFUSED, str(exc), actor, EventKind.ACTION_REFUSED
            )
        except Blocked as exc:
            return self._blocked(proposal, exc, actor)
        except KubeError as exc:
            state = P.UNDO_FAILED if undo else P.FAILED
            return self._end(
                proposal, state, f"the API server refused: {exc.message}", actor, EventKind.ACTION_FAILED
            )
        now = self._clock()
        done = P.UNDONE if undo else P.DONE
        kind = EventKind.ACTION_UNDONE if undo else EventKind.ACTION_VERIFIED
        verdict = "verified" if seen.ok else ("pending" if seen.pending else "not verified")
        if not seen.ok:
            kind = EventKind.ACTION_FAILED if not undo else EventKind.ACTION_UNDONE
        text = f"{plan.summary}: {verdict} ({seen.summary})"
        outcome = Outcome(
            state=done, summary=text, diff=plan.diff, verified=seen.ok, actor=actor, at=now.isoformat()
        )
        with self.store.db.transaction() as session:  # the end in one go: a retry finds all or none of it
            self.store.record_execution(
                session,
                proposal.id,
                decision.phase,
                status=verdict,
                result={"verify": seen.summary, "written": _slim(written)},
                finished_at=now,
            )
            self.store.audit(
                proposal,
                kind,
                text,
                actor=actor,
                now=now,
                data={"verified": seen.ok, "phase": decision.phase},
                session=session,
            )
            self.store.claim_in(
                session,
                proposal.id,
                states=[running],
                to=done,
                now=now,
                outcome=outcome.model_dump(mode="json"),
            )
        return outcome

    def abandon(self, decision: ActionDecision, reason: str) -> None:
        """A decision that cannot be acted on (its run is not paused for it): said, nothing written."""
        proposal = self.store.get(decision.proposal_id)
        state = P.UNDO_FAILED if decision.phase == "undo" else P.FAILED
        now = self._clock()
        self.store.audit(proposal, EventKind.ACTION_FAILED, reason, actor=decision.actor, now=now)
        outcome = Outcome(state=state, summary=reason, actor=decision.actor, at=now.isoformat())
        self.store.claim(
            proposal.id,
            states=[P.APPROVED, P.RUNNING, P.UNDO_REQUESTED, P.UNDOING],
            to=state,
            now=now,
            outcome=outcome.model_dump(mode="json"),
        )

    def _stored_plan(self, proposal: ActionProposal, decision: ActionDecision) -> Plan | None:
        row = self.store.execution(proposal.id, decision.phase)
        return Plan.model_validate(row.plan) if row is not None and row.plan else None

    def _plan(self, executor: Executor, proposal: ActionProposal, decision: ActionDecision) -> Plan:
        """Read the cluster again, dry-run, and store the plan before the write."""
        self._in_scope(proposal)
        if decision.phase == "undo":
            applied = self.store.execution(proposal.id, "apply")
            if applied is None or not applied.plan:
                raise Refused("there is no execution of this proposal to undo")
            written = (applied.result or {}).get("written") or {}
            plan = executor.undo(
                Plan.model_validate(applied.plan),
                written,
                actor=decision.actor,
                incident_id=proposal.incident_id,
            )
        else:
            plan = executor.plan(proposal.action, actor=decision.actor, incident_id=proposal.incident_id)
        lines = self._dry_run(executor, plan)
        now = self._clock()
        said = "; ".join(lines) if lines else ("nothing to write" if plan.noop else "accepted")
        self.store.audit(
            proposal,
            EventKind.ACTION_DRY_RUN,
            f"dry run of {plan.summary}: {said}",
            actor=decision.actor,
            now=now,
            data={"diff": lines, "phase": decision.phase},
        )
        plan = plan.model_copy(update={"diff": lines or plan.diff})
        self.store.start_execution(
            proposal.id,
            decision.phase,
            actor=decision.actor,
            plan=plan.model_dump(mode="json"),
            dry_run={"diff": lines},
            now=now,
        )
        return plan

    def _write(
        self,
        executor: Executor,
        proposal: ActionProposal,
        plan: Plan,
        decision: ActionDecision,
        *,
        retry: bool,
    ) -> Obj:
        """The write, once. A retried step finds a write recorded by an earlier attempt (a worker died
        in verify) and reuses it; one that landed unrecorded (died mid-request) is found applied."""
        if retry:
            row = self.store.execution(proposal.id, decision.phase)
            if row is not None and row.status != STARTED:
                return dict((row.result or {}).get("written") or {})
        if plan.noop or (retry and executor.applied(plan)):
            written: Obj = {}
            said = "nothing to write" if plan.noop else "already applied by an earlier attempt"
        else:
            try:
                written = executor.write(plan, dry_run=False)
            except KubeError:
                if not executor.applied(plan):
                    raise
                written = {}
            said = "applied"
        with self.store.db.transaction() as session:  # said and recorded together: a retry says it once
            self.store.audit(
                proposal,
                EventKind.ACTION_EXECUTED,
                f"executed: {plan.summary} ({said})",
                actor=decision.actor,
                now=self._clock(),
                data={"diff": plan.diff, "noop": plan.noop},
                session=session,
            )
            self.store.record_execution(
                session, proposal.id, decision.phase, status=WRITTEN, result={"written": _slim(written)}
            )
        return written

    def _end(self, proposal: ActionProposal, state: P, reason: str, actor: str, kind: EventKind) -> Outcome:
        now = self._clock()
        self.store.audit(
            proposal,
            kind,
            f"{proposal.action.kind.value} {proposal.action.target}: {reason}",
            actor=actor,
            now=now,
        )
        outcome = Outcome(state=state, summary=reason, actor=actor, at=now.isoformat())
        self.store.claim(
            proposal.id,
            states=[P.RUNNING, P.UNDOING],
            to=state,
            now=now,
            outcome=outcome.model_dump(mode="json"),
        )
        return outcome

    def _blocked(self, proposal: ActionProposal, exc: Blocked, actor: str) -> Outcome:
        """The budget refused the eviction: a delete, which bypasses it, becomes its own proposal."""
        now = self._clock()
        why = "; ".join(exc.causes) or exc.message
        followup = self.store.follow_up(
            proposal,
            {**proposal.action.params, "mode": "delete"},
            f"the eviction was refused ({why}); deleting bypasses the PodDisruptionBudget",
            now=now,
            expires_at=now + self._ttl,
        )
        text = f"eviction of {proposal.action.target} refused by its PodDisruptionBudget: {why}"
        self.store.audit(
            proposal,
            EventKind.ACTION_REFUSED,
            f"{text}; a delete is offered as proposal {followup}",
            actor=actor,
            now=now,
            data={"follow_up": followup},
        )
        outcome = Outcome(state=P.BLOCKED, summary=text, actor=actor, at=now.isoformat())
        self.store.claim(
            proposal.id, states=[P.RUNNING], to=P.BLOCKED, now=now, outcome=outcome.model_dump(mode="json")
        )
        return outcome


def _slim(written: Obj) -> Obj:
    """What verify needs of the server's answer (its generation), not the whole object."""
    meta = written.get("metadata") or {}
    return {"kind": written.get("kind"), "metadata": {"generation": meta.get("generation")}}
