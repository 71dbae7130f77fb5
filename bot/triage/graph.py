"""The triage graph: gather → attribute → classify → [llm review] → propose → report.

Nodes are small functions of the typed state that return partial updates; the graph is compiled
with a checkpointer (the store's database when the bot runs, memory for one-off CLI triage), keyed
by the incident, so a triage interrupted by a restart resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from bot.alertmanager import WebhookPayload
from bot.triage import findings as find
from bot.triage.attribution import Attributor, unattributed_report
from bot.triage.classify import Decision, decide
from bot.triage.gather import Backends, Gathered, gather
from bot.triage.model import ProposedAction, TriageResult, Verdict
from bot.triage.propose import context, propose
from bot.triage.report import build, confidence
from bot.triage.runbooks import RunbookCatalog

RECURSION_LIMIT = 25


class Reviewer(Protocol):
    """The optional LLM review: a validated verdict, or None with the reasons in the notes."""

    def review(self, state: TriageState) -> tuple[Verdict | None, list[str]]: ...


@dataclass
class TriageDeps:
    backends: Backends
    attributor: Attributor
    runbooks: RunbookCatalog
    meaning: Callable[[str], str]
    reviewer: Reviewer | None = None


@dataclass
class TriageState:
    """Everything one triage accumulates; each node fills its part."""

    alert: WebhookPayload
    as_of: datetime
    namespace: str | None = None
    severity: str | None = None
    gathered: Gathered | None = None
    findings: list[find.Finding] = field(default_factory=list)
    decision: Decision | None = None
    verdict: Verdict | None = None
    actions: list[ProposedAction] = field(default_factory=list)
    runbook: str | None = None
    result: TriageResult | None = None
    notes: list[str] = field(default_factory=list)
    unattributed: dict[str, Any] = field(default_factory=dict)


def build_graph(
    deps: TriageDeps,
    *,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    pause_after: list[str] | None = None,
) -> CompiledStateGraph[TriageState, None, TriageState, TriageState]:
    """The compiled graph; `pause_after` names nodes to stop after (a human look, or a test of resuming)."""

    def gather_node(state: TriageState) -> dict[str, Any]:
        return {"gathered": gather(state.alert, deps.backends, as_of=state.as_of, namespace=state.namespace)}

    def attribute_node(state: TriageState) -> dict[str, Any]:
        assert state.gathered is not None
        evidence = state.gathered.evidence
        found = [
            *find.from_logs(evidence, deps.attributor),
            *find.from_kubernetes(evidence, deps.attributor),
            *find.from_gpu(evidence),
            *find.from_metrics(evidence),
        ]
        signatures = [(find.signature_text(e), int(e.value or 0)) for e in find.kind(evidence, "signature")]
        report = unattributed_report(signatures, deps.attributor)
        coverage = {
            "error_lines": report.total,
            "unattributed_share": round(report.share, 4),
            "top_unattributed": [{"count": s.count, "signature": s.signature} for s in report.top[:5]],
        }
        return {"findings": find.merged(found), "unattributed": coverage}

    def classify_node(state: TriageState) -> dict[str, Any]:
        assert state.gathered is not None
        start = min(a.startsAt for a in state.alert.alerts)
        return {"decision": decide(state.findings, state.gathered.evidence, alert_start=start)}

    def review_node(state: TriageState) -> dict[str, Any]:
        assert deps.reviewer is not None
        verdict, notes = deps.reviewer.review(state)
        return {"verdict": verdict, "notes": [*state.notes, *notes]}

    def propose_node(state: TriageState) -> dict[str, Any]:
        gathered, decision = state.gathered, state.decision
        assert gathered is not None and decision is not None
        if state.verdict is not None:
            decision = overridden(decision, state.verdict)
        book = deps.runbooks.match(decision.code, decision.category)
        ctx = context(decision, gathered.scope, gathered.topology, gathered.evidence)
        actions = propose(
            book, ctx, namespace=gathered.scope.namespace, topology=gathered.topology, decision=decision
        )
        if state.verdict is not None and state.verdict.actions:
            actions = list(state.verdict.actions)
        return {"actions": actions, "runbook": book.id if book else None, "decision": decision}

    def report_node(state: TriageState) -> dict[str, Any]:
        gathered, decision = state.gathered, state.decision
        assert gathered is not None and decision is not None
        book = deps.runbooks.get(state.runbook) if state.runbook else None
        result = build(
            state.alert,
            gathered,
            decision,
            book,
            state.actions,
            meaning=deps.meaning,
            confidence_value=confidence(decision, gathered),
            severity=state.severity,
        )
        if state.verdict is not None:
            result = with_verdict(result, state.verdict, gathered)
        return {
            "result": result.model_copy(
                update={"notes": [*result.notes, *state.notes], "attribution": state.unattributed}
            )
        }

    def after_classify(state: TriageState) -> Literal["llm_review", "propose"]:
        return "llm_review" if deps.reviewer is not None else "propose"

    graph = StateGraph(TriageState)
    graph.add_node("gather", gather_node)
    graph.add_node("attribute", attribute_node)
    graph.add_node("classify", classify_node)
    graph.add_node("llm_review", review_node)
    graph.add_node("propose", propose_node)
    graph.add_node("report", report_node)
    graph.add_edge(START, "gather")
    graph.add_edge("gather", "attribute")
    graph.add_edge("attribute", "classify")
    graph.add_conditional_edges("classify", after_classify)
    graph.add_edge("llm_review", "propose")
    graph.add_edge("propose", "report")
    graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer or InMemorySaver(), interrupt_after=pause_after or None)


def overridden(decision: Decision, verdict: Verdict) -> Decision:
    """The rules' decision with the validated verdict's code, category and layer."""
    return Decision(
        code=verdict.code,
        category=verdict.category,
        layer=verdict.layer,
        cause=decision.cause,
        findings=decision.findings,
        rollout=decision.rollout,
        rule="llm review",
        reasons=decision.reasons,
    )


def with_verdict(result: TriageResult, verdict: Verdict, gathered: Gathered) -> TriageResult:
    """The result with the verdict's hypothesis, confidence and cited evidence first."""
    by_id = {e.id: e for e in gathered.evidence}
    cited = [by_id[i].public() for i in verdict.evidence_ids if i in by_id]
    rest = [e for e in result.evidence if e["id"] not in set(verdict.evidence_ids)]
    return result.model_copy(
        update={
            "hypothesis": verdict.hypothesis,
            "confidence": verdict.confidence,
            "engine": "llm",
            "evidence": (cited + rest)[:15],
        }
    )


def run(
    graph: CompiledStateGraph[TriageState, None, TriageState, TriageState],
    state: TriageState,
    *,
    thread_id: str,
) -> TriageResult:
    """Run the graph to its end for one incident and return the result.

    The thread's checkpoint decides how: a triage that stopped midway (a worker died, a pause)
    resumes from its last finished step instead of asking the backends again; one that finished
    returns its stored result; otherwise a new run starts from `state`.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT}
    snapshot = graph.get_state(config)
    done = _result(snapshot.values) if snapshot.values else None
    if snapshot.next:
        final: Any = graph.invoke(None, config=config)
    elif done is not None:
        return done
    else:
        final = graph.invoke(state, config=config)
    result = _result(final)
    if result is None:
        raise RuntimeError(f"triage {thread_id} paused before its report")
    return result


def _result(values: Any) -> TriageResult | None:
    result = values.get("result") if isinstance(values, dict) else getattr(values, "result", None)
    return result if isinstance(result, TriageResult) else None
