"""The triage graph: gather → attribute → classify → [llm review] → propose → report → [approval ⇄ act].

Nodes are small functions of the typed state that return partial updates; the graph is compiled
with a checkpointer (the store's database when the bot runs) and each run is a thread of its own
(`TriageRequest.thread_id`), so a run interrupted by a restart resumes where it stopped and a
re-run of the same incident starts afresh. A run that proposed actions then pauses in
`await_approval`, which holds only `interrupt()`: a human's click resumes it (`resume`) with the
decision, `act` executes it, and the run pauses again for the next one. The pause lives in the
checkpoint, so a click after a restart resumes it just the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from bot.actions.model import ActionDecision
from bot.domain import TriageResult
from bot.triage import findings as find
from bot.triage.backends import Backends
from bot.triage.classify import decide
from bot.triage.coverage import unattributed_report
from bot.triage.gather import gather
from bot.triage.knowledge import Knowledge
from bot.triage.progress import Progress, ProgressEvent
from bot.triage.propose import context, in_scope, propose
from bot.triage.report import build, confidence
from bot.triage.request import TriageRequest
from bot.triage.runbooks import RunbookCatalog
from bot.triage.state import TriageState
from bot.triage.verdict import Verdict, overridden, with_verdict

RECURSION_LIMIT = 25
Graph = CompiledStateGraph[TriageState, None, TriageState, TriageState]


class Reviewer(Protocol):
    """The optional LLM review: a validated verdict, or None with the reasons in the notes."""

    def review(self, state: TriageState) -> tuple[Verdict | None, list[str]]: ...

    def close(self) -> None: ...


@dataclass
class TriageDeps:
    """What the nodes use: the tools, the data files, and the optional reviewer."""

    backends: Backends
    knowledge: Knowledge
    reviewer: Reviewer | None = None
    act: Callable[[ActionDecision], object] | None = None  # executes an approved decision


def build_graph(
    deps: TriageDeps,
    *,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    pause_after: list[str] | None = None,
) -> Graph:
    """The compiled graph; `pause_after` names nodes to stop after (a human look, or a test of resuming)."""
    knowledge = deps.knowledge

    def gather_node(state: TriageState) -> dict[str, Any]:
        writer = get_stream_writer()  # a no-op unless the run is streamed to a progress listener

        def tool_done(name: str, ms: float, gaps: list[str]) -> None:
            writer(ProgressEvent(step="gather", tool=name, ms=ms, gaps=gaps))

        return {"gathered": gather(state.request, deps.backends, on_tool=tool_done)}

    def attribute_node(state: TriageState) -> dict[str, Any]:
        evidence = state.need_gathered().evidence
        found = [
            *find.from_logs(evidence, knowledge.attributor),
            *find.from_kubernetes(evidence, knowledge.attributor),
            *find.from_gpu(evidence),
            *find.from_metrics(evidence),
        ]
        signatures = [(find.signature_text(e), int(e.value or 0)) for e in find.kind(evidence, "signature")]
        report = unattributed_report(signatures, knowledge.attributor)
        coverage = {
            "error_lines": report.total,
            "unattributed_share": round(report.share, 4),
            "top_unattributed": [{"count": s.count, "signature": s.signature} for s in report.top[:5]],
        }
        return {"findings": find.merged(found), "unattributed": coverage}

    def classify_node(state: TriageState) -> dict[str, Any]:
        evidence = state.need_gathered().evidence
        start = state.request.started_at
        decision = decide(
            state.findings,
            evidence,
            alert_start=start,
            taxonomy=knowledge.taxonomy,
            window_start=state.need_gathered().window.start,
            related=state.need_gathered().scope.related,
        )
        return {"decision": decision}

    def review_node(state: TriageState) -> dict[str, Any]:
        assert deps.reviewer is not None  # the router only comes here with a reviewer
        try:
            verdict, notes = deps.reviewer.review(state)
        except Exception as exc:  # a review that breaks never takes the rules' result with it
            verdict = None
            notes = [f"llm review failed: {type(exc).__name__}: {str(exc)[:200]}; the rules result stands"]
        return {"verdict": verdict, "notes": [*state.notes, *notes]}

    def propose_node(state: TriageState) -> dict[str, Any]:
        gathered, decision = state.need_gathered(), state.need_decision()
        if state.verdict is not None:
            decision = overridden(decision, state.verdict)
        book = knowledge.runbooks.match(decision.code, decision.category)
        ctx = context(decision, gathered.scope, gathered.topology, gathered.evidence)
        actions = propose(
            book, ctx, namespace=gathered.scope.namespace, topology=gathered.topology, decision=decision
        )
        notes = list(state.notes)
        if state.verdict is not None and state.verdict.actions:
            kept, dropped = in_scope(state.verdict.actions, gathered.scope, gathered.topology, decision)
            notes += [
                f"the review's action on {a.target} is outside the incident's scope: left out"
                for a in dropped
            ]
            actions = [a for a in kept if RunbookCatalog.permits(book, a.kind, ctx)]
            notes += [
                f"the review's {a.kind.value} {a.target} fails its runbook's conditions: left out"
                for a in kept
                if a not in actions
            ]
        return {
            "actions": actions,
            "runbook": book.id if book else None,
            "decision": decision,
            "notes": notes,
        }

    def report_node(state: TriageState) -> dict[str, Any]:
        gathered, decision = state.need_gathered(), state.need_decision()
        book = knowledge.runbooks.get(state.runbook) if state.runbook else None
        result = build(
            state.request,
            gathered,
            decision,
            book,
            state.actions,
            meaning=knowledge.taxonomy.meaning,
            confidence_value=confidence(decision, gathered),
            category=knowledge.taxonomy.category_of,
        )
        if state.verdict is not None:
            result = with_verdict(result, state.verdict, gathered)
        return {
            "result": result.model_copy(
                update={"notes": [*result.notes, *state.notes], "attribution": state.unattributed}
            )
        }

    def await_approval_node(state: TriageState) -> dict[str, Any]:
        # Only the interrupt: on resume this node runs again from its first line.
        return {"pending": ActionDecision.model_validate(interrupt({"run": state.request.run}))}

    def act_node(state: TriageState) -> dict[str, Any]:
        decision = state.pending
        if decision is None or decision.key in state.acted:
            return {"pending": None}
        if deps.act is None:
            raise RuntimeError("this triage engine cannot execute actions (no executor was given)")
        deps.act(decision)
        return {"pending": None, "acted": [*state.acted, decision.key]}

    def after_classify(state: TriageState) -> Literal["llm_review", "propose"]:
        return "llm_review" if deps.reviewer is not None else "propose"

    def after_report(state: TriageState) -> Literal["await_approval", "__end__"]:
        return "await_approval" if state.actions else "__end__"

    graph = StateGraph(TriageState)
    graph.add_node("gather", gather_node)
    graph.add_node("attribute", attribute_node)
    graph.add_node("classify", classify_node)
    graph.add_node("llm_review", review_node)
    graph.add_node("propose", propose_node)
    graph.add_node("report", report_node)
    graph.add_node("await_approval", await_approval_node)
    graph.add_node("act", act_node)
    graph.add_edge(START, "gather")
    graph.add_edge("gather", "attribute")
    graph.add_edge("attribute", "classify")
    graph.add_conditional_edges("classify", after_classify)
    graph.add_edge("llm_review", "propose")
    graph.add_edge("propose", "report")
    graph.add_conditional_edges("report", after_report)
    graph.add_edge("await_approval", "act")
    graph.add_edge("act", "await_approval")
    return graph.compile(checkpointer=checkpointer or InMemorySaver(), interrupt_after=pause_after or None)


def run(graph: Graph, request: TriageRequest, *, progress: Progress | None = None) -> TriageResult:
    """Run the graph to its end for one triage run and return the result; `progress` hears of
    each tool and step as it finishes.

    The run's checkpoint decides how: a run that stopped midway (a worker died, a pause) resumes
    from its last finished step instead of asking the backends again; one that finished returns
    its stored result; otherwise it starts from `request`.
    """
    config: RunnableConfig = {
        "configurable": {"thread_id": request.thread_id},
        "recursion_limit": RECURSION_LIMIT,
    }
    snapshot = graph.get_state(config)
    done = _result(snapshot.values) if snapshot.values else None
    if done is not None and (not snapshot.next or snapshot.interrupts):
        return done
    start: Any = None if snapshot.next else TriageState(request=request)
    if progress is None:
        final: Any = graph.invoke(start, config=config)
    else:
        for mode, chunk in graph.stream(start, config=config, stream_mode=["custom", "updates"]):
            if mode == "custom" and isinstance(chunk, ProgressEvent):
                progress(chunk)
            elif mode == "updates" and isinstance(chunk, dict):
                for step in chunk:
                    if not str(step).startswith("__"):  # `__interrupt__`: the pause, not a step
                        progress(ProgressEvent(step=str(step)))
        final = graph.get_state(config).values
    result = _result(final)
    if result is None:
        raise RuntimeError(f"triage {request.thread_id} paused before its report")
    return result


class NotPending(RuntimeError):
    """The run's thread is not paused where the stored proposal says: resuming would be wrong."""


def pending(graph: Graph, thread_id: str) -> str | None:
    """The id of the interrupt the run's thread is paused at, if it is paused for a decision."""
    snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
    return snapshot.interrupts[0].id if snapshot.interrupts else None


def resume(graph: Graph, thread_id: str, expected: str | None, decision: ActionDecision) -> str | None:
    """Resume the paused run with `decision`; returns the interrupt it pauses at next.

    The stored interrupt must be the one pending on that thread (an unknown thread would start a
    fresh run instead of resuming, and a stale one would resume the wrong pause). A step left
    midway (a worker died in `act`) is finished first; a decision already acted on is not acted on
    again.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT}
    snapshot = graph.get_state(config)
    if snapshot.next == ("act",) and not snapshot.interrupts:
        graph.invoke(None, config=config)
        snapshot = graph.get_state(config)
    acted = list(getattr(snapshot.values, "acted", None) or (snapshot.values or {}).get("acted") or [])
    if decision.key in acted:
        return pending(graph, thread_id)
    if not snapshot.interrupts:
        raise NotPending(f"triage thread {thread_id} is not paused for a decision")
    current = snapshot.interrupts[0].id
    if expected is not None and current != expected and not acted:
        raise NotPending(f"triage thread {thread_id} is paused at {current}, not at the stored {expected}")
    graph.invoke(Command(resume=decision.model_dump(mode="json")), config=config)
    return pending(graph, thread_id)


def _result(values: Any) -> TriageResult | None:
    result = values.get("result") if isinstance(values, dict) else getattr(values, "result", None)
    return result if isinstance(result, TriageResult) else None
