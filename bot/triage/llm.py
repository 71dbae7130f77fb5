"""The optional LLM review: an OpenAI-compatible model checks the rules' draft with the same
read-only tools, within limits on steps, time and tokens, and answers in a structure that is
validated against the taxonomy, the action catalog and the evidence. One repair attempt; after
that the rules result stands and the triage says why.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from openai import OpenAI, OpenAIError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.actions.catalog import CATALOG, ActionKind
from bot.errors import validation_reasons
from bot.triage.gather import Backends, prometheus_scope
from bot.triage.graph import TriageState
from bot.triage.model import ProposedAction, Verdict
from bot.triage.prompts import render
from bot.triage.redact import redact
from bot.triage.runbooks import RunbookCatalog
from bot.triage.taxonomy import code_meanings, meaning
from tools.result import Evidence, ToolResult

CATEGORIES = {"infrastructure", "model_config", "inference_engine", "operational"}
LAYER_CATEGORY = {
    "INF": {"infrastructure"},
    "DEP": {"infrastructure"},
    "MOD": {"model_config"},
    "ENG": {"inference_engine"},
    "GW": {"operational"},
    "BIZ": {"operational"},
}
JSON_OBJECT = re.compile(r"\{.*\}", re.S)


@dataclass(frozen=True)
class Limits:
    max_steps: int = 6
    max_seconds: float = 60.0
    max_tokens: int = 40_000
    request_timeout: float = 30.0


class _Claim(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str
    evidence_ids: list[str] = Field(min_length=1)


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: str
    target: str
    rationale: str = ""


class Answer(BaseModel):
    """The structure the model must answer with."""

    model_config = ConfigDict(extra="ignore")
    category: str
    code: str
    layer: str
    hypothesis: str = Field(min_length=10)
    confidence: float = Field(ge=0, le=1)
    evidence_ids: list[str] = Field(min_length=1)
    claims: list[_Claim] = Field(default_factory=list)
    actions: list[_Action] = Field(default_factory=list)


@dataclass
class _Session:
    """Evidence the model may cite: what it was given plus what its tool calls returned."""

    evidence: dict[str, Evidence]
    targets: set[str]
    tokens: int = 0
    steps: int = 0
    tool_calls: list[str] = field(default_factory=list)


class LlmReviewer:
    """Reviews a draft with a tool-calling loop over the read-only tools."""

    def __init__(
        self,
        client: OpenAI,
        *,
        model: str,
        runbooks: RunbookCatalog,
        backends: Backends,
        limits: Limits | None = None,
    ) -> None:
        self._client = client
        self._backends = backends
        self._model = model
        self._runbooks = runbooks
        self._limits = limits or Limits()

    # -- the loop ------------------------------------------------------------------------------
    def review(self, state: TriageState) -> tuple[Verdict | None, list[str]]:
        gathered, decision = state.gathered, state.decision
        assert gathered is not None and decision is not None
        scope = gathered.scope
        session = _Session(
            evidence={e.id: e for e in gathered.evidence},
            targets={
                *(f"pod/{p}" for p in scope.pods),
                *(f"node/{n}" for n in scope.nodes),
                *(f"deployment/{d}" for d in scope.deployments),
                *(f"httproute/{r}" for r in scope.routes),
            },
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system()},
            {"role": "user", "content": self._user(state)},
        ]
        started = time.monotonic()
        try:
            answer_text = self._converse(messages, state, session, started)
            verdict, problems = self._validate(answer_text, session, scope.namespace)
            if verdict is None:
                messages.append({"role": "assistant", "content": answer_text})
                messages.append({"role": "user", "content": render("repair.j2", problems=problems)})
                answer_text = self._complete(messages, session, tools=False)
                verdict, problems = self._validate(answer_text, session, scope.namespace)
                if verdict is None:
                    return None, [
                        f"llm review discarded after one repair ({'; '.join(problems)[:400]}); "
                        "the rules result stands"
                    ]
                return verdict, [
                    f"llm review accepted after one repair ({len(session.tool_calls)} tool calls, "
                    f"{session.tokens} tokens)"
                ]
        except _Budget as exc:
            return None, [f"llm review stopped: {exc}; the rules result stands"]
        except OpenAIError as exc:
            return None, [
                f"llm review unavailable: {type(exc).__name__}: {str(exc)[:200]}; the rules result stands"
            ]
        return verdict, [
            f"llm review accepted ({len(session.tool_calls)} tool calls, {session.tokens} tokens)"
        ]

    def _converse(
        self, messages: list[dict[str, Any]], state: TriageState, session: _Session, started: float
    ) -> str:
        while True:
            if time.monotonic() - started > self._limits.max_seconds:
                raise _Budget(f"time budget of {self._limits.max_seconds:g} s spent")
            last = session.steps >= self._limits.max_steps
            reply = self._message(messages, session, tools=not last)
            calls = reply.tool_calls or []
            if not calls or last:
                return reply.content or ""
            messages.append(reply.model_dump(exclude_none=True))
            for call in calls:
                result = self._run_tool(call.function.name, call.function.arguments, state, session)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

    def _complete(self, messages: list[dict[str, Any]], session: _Session, *, tools: bool) -> str:
        return self._message(messages, session, tools=tools).content or ""

    def _message(self, messages: list[dict[str, Any]], session: _Session, *, tools: bool) -> Any:
        session.steps += 1
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "temperature": 0,
            "timeout": self._limits.request_timeout,
        }
        if tools:
            kwargs["tools"] = TOOL_SPECS
        response = self._client.chat.completions.create(**kwargs)
        if response.usage is not None:
            session.tokens += int(response.usage.total_tokens)
        if session.tokens > self._limits.max_tokens:
            raise _Budget(f"token budget of {self._limits.max_tokens} spent")
        return response.choices[0].message

    # -- prompts -------------------------------------------------------------------------------
    def _system(self) -> str:
        return render(
            "triage_system.j2",
            engines="vLLM, TGI, Triton/TensorRT-LLM, SGLang",
            codes=code_meanings(),
            actions=[
                {
                    "kind": spec.kind.value,
                    "target_kind": spec.target_kind,
                    "effect": spec.effect,
                    "undo": spec.undo,
                }
                for spec in CATALOG.values()
            ],
            max_steps=self._limits.max_steps,
        )

    @staticmethod
    def _user(state: TriageState) -> str:
        gathered, decision = state.gathered, state.decision
        assert gathered is not None and decision is not None
        alert = {
            "labels": state.alert.commonLabels or state.alert.alerts[0].labels,
            "annotations": state.alert.commonAnnotations or state.alert.alerts[0].annotations,
            "expr": state.alert.alerts[0].query,
            "startsAt": state.alert.alerts[0].startsAt.isoformat(),
        }
        from bot.triage.report import hypothesis

        return render(
            "triage_user.j2",
            alert=redact(json.dumps(alert, indent=1)),
            scope=gathered.scope,
            window_start=gathered.window.start.isoformat(),
            as_of=gathered.window.as_of.isoformat(),
            draft={
                "category": decision.category,
                "code": decision.code,
                "rule": decision.rule,
                "hypothesis": redact(hypothesis(decision, meaning)),
            },
            evidence=[{"id": e.id, "summary": redact(e.summary)} for e in gathered.evidence[:80]],
            gaps=[str(g) for g in gathered.gaps],
        )

    # -- tools ---------------------------------------------------------------------------------
    def _run_tool(self, name: str, arguments: str, state: TriageState, session: _Session) -> str:
        session.tool_calls.append(name)
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            return json.dumps({"error": "arguments are not valid JSON"})
        gathered = state.gathered
        assert gathered is not None
        backends = self._backends
        result: ToolResult | None = None
        if name == "get_evidence":
            item = session.evidence.get(str(args.get("id", "")))
            return json.dumps(_show(item) if item else {"error": "unknown evidence id"})
        if name == "fetch_runbook":
            book = self._runbooks.get(str(args.get("id", "")))
            return json.dumps(
                {"runbook": book.body[:4000]}
                if book
                else {"error": "unknown runbook id", "known": [b.id for b in self._runbooks.runbooks]}
            )
        if name == "promql" and backends.prometheus is not None:
            result = backends.prometheus.promql(str(args.get("query", "")), gathered.window.as_of)
        elif name == "search_logs" and backends.logs is not None:
            from tools.elasticsearch import LogScope

            scope = LogScope(namespace=gathered.scope.namespace)
            result = backends.logs.search(
                str(args.get("text", "")), scope, gathered.window, size=int(args.get("size", 20))
            )
        elif name == "signal" and backends.prometheus is not None:
            signal = str(args.get("name", ""))
            if signal not in backends.prometheus.catalog.signals:
                return json.dumps({"error": "unknown signal", "known": backends.prometheus.catalog.names})
            result = backends.prometheus.read_signal(
                signal, prometheus_scope(gathered.scope), gathered.window
            )
        elif name == "kubernetes" and backends.kube is not None and gathered.topology is not None:
            view = str(args.get("view", ""))
            names = [str(n) for n in args.get("names") or []] or None
            topo, kube = gathered.topology, backends.kube
            views = {
                "pods": lambda: kube.pod_health(topo, names),
                "nodes": lambda: kube.node_state(topo, names or gathered.scope.nodes),
                "events": lambda: kube.warning_events(topo, gathered.window),
                "rollouts": lambda: kube.rollouts(topo, gathered.window, names),
                "routes": lambda: kube.route_backends(topo, names),
            }
            if view not in views:
                return json.dumps({"error": f"view must be one of {sorted(views)}"})
            result = views[view]()
        else:
            return json.dumps({"error": f"unknown or unavailable tool {name!r}"})
        for item in result.evidence:
            session.evidence[item.id] = item
        payload: dict[str, Any] = {
            "status": result.status.value,
            "evidence": [_show(e) for e in result.evidence[:20]],
        }
        if result.gap is not None:
            payload["gap"] = str(result.gap)
        return redact(json.dumps(payload))

    # -- validation ----------------------------------------------------------------------------
    def _validate(self, text: str, session: _Session, namespace: str) -> tuple[Verdict | None, list[str]]:
        match = JSON_OBJECT.search(text or "")
        if match is None:
            return None, ["the answer holds no JSON object"]
        try:
            answer = Answer.model_validate_json(match.group(0))
        except ValidationError as exc:
            return None, validation_reasons(exc, limit=5)
        problems: list[str] = []
        codes = code_meanings()
        if answer.category not in CATEGORIES:
            problems.append(f"category {answer.category!r} is not one of {sorted(CATEGORIES)}")
        if answer.code not in codes:
            problems.append(f"code {answer.code!r} is not in the taxonomy")
        layer = answer.code.split("_", 1)[0]
        if answer.layer != layer:
            problems.append(f"layer {answer.layer!r} does not match code {answer.code}")
        if answer.category not in LAYER_CATEGORY.get(layer, set()):
            problems.append(f"category {answer.category} does not fit layer {layer}")
        cited = set(answer.evidence_ids) | {i for c in answer.claims for i in c.evidence_ids}
        unknown = sorted(i for i in cited if i not in session.evidence)
        if unknown:
            problems.append(f"evidence ids that do not exist: {', '.join(unknown[:5])}")
        actions: list[ProposedAction] = []
        for action in answer.actions:
            try:
                spec = CATALOG[ActionKind(action.kind)]
            except ValueError:
                problems.append(f"action {action.kind!r} is not in the catalog")
                continue
            kind_of_target = action.target.split("/", 1)[0]
            if kind_of_target != spec.target_kind:
                problems.append(f"{action.kind} acts on a {spec.target_kind}, not {action.target}")
            elif action.target not in session.targets:
                problems.append(f"target {action.target} does not appear in the evidence")
            else:
                actions.append(
                    ProposedAction(
                        kind=spec.kind.value,
                        target=action.target,
                        namespace=None if spec.kind is ActionKind.CORDON_NODE else namespace,
                        reversible=True,
                        undo=spec.undo,
                        rationale=redact(action.rationale)[:500],
                    )
                )
        if problems:
            return None, problems
        return Verdict(
            category=answer.category,
            code=answer.code,
            layer=layer,
            hypothesis=redact(answer.hypothesis),
            confidence=answer.confidence,
            evidence_ids=list(dict.fromkeys(answer.evidence_ids)),
            actions=actions,
        ), []


class _Budget(Exception):
    """A limit on steps, time or tokens was reached."""


def _show(item: Evidence) -> dict[str, Any]:
    return {
        "id": item.id,
        "source": item.source.value,
        "summary": redact(item.summary),
        "query": redact(item.query)[:500],
        "value": item.value,
    }


TOOL_SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "promql",
            "description": "Evaluate a PromQL expression at the incident's as_of time (read-only).",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_logs",
            "description": "Search the incident namespace's logs in the incident window for text (newest first).",
            "parameters": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "size": {"type": "integer", "minimum": 1, "maximum": 50},
                },
                "required": ["text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "signal",
            "description": "Read one signal of the catalog for the incident's scope: value at as_of, an hour "
            "before, and when it crossed its threshold.",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "kubernetes",
            "description": "Read-only views of the incident's cluster objects: pods (health, restarts, last "
            "termination), nodes (conditions, taints, GPUs), events (warnings in the window), rollouts (with the "
            "template diff), routes (HTTPRoute backends and weights). Optional names narrow the view.",
            "parameters": {
                "type": "object",
                "properties": {
                    "view": {"type": "string", "enum": ["pods", "nodes", "events", "rollouts", "routes"]},
                    "names": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["view"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_evidence",
            "description": "Show one evidence item in full (query, value, summary).",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "fetch_runbook",
            "description": "Read a runbook by id.",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
    },
]
