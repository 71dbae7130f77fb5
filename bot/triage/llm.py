"""The optional LLM review: an OpenAI-compatible model checks the rules' draft with the same
read-only tools (`agent_tools`), within limits on steps, time and tokens, and answers in a structure
that is validated against the taxonomy, the action catalog and the evidence (`verdict`). One repair
attempt; after that the rules result stands and the triage says why.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from openai import OpenAI, OpenAIError

from bot.actions.catalog import CATALOG
from bot.domain import Category
from bot.settings import Settings
from bot.triage import agent_tools
from bot.triage.agent_tools import ToolContext
from bot.triage.backends import Backends
from bot.triage.knowledge import Knowledge
from bot.triage.prompts import render
from bot.triage.redact import framed
from bot.triage.report import hypothesis
from bot.triage.state import TriageState
from bot.triage.verdict import Verdict, validate_answer


@dataclass(frozen=True)
class Limits:
    max_steps: int = 6
    max_seconds: float = 60.0
    max_tokens: int = 40_000
    request_timeout: float = 30.0


class _Budget(Exception):
    """A limit on steps, time or tokens was reached."""


@dataclass
class _Usage:
    tokens: int = 0
    steps: int = 0


class LlmReviewer:
    """Reviews a draft with a tool-calling loop over the read-only tools."""

    def __init__(
        self,
        client: OpenAI,
        *,
        model: str,
        knowledge: Knowledge,
        backends: Backends,
        limits: Limits | None = None,
    ) -> None:
        self._client = client
        self._model = model
        self._knowledge = knowledge
        self._backends = backends
        self._limits = limits or Limits()

    @classmethod
    def from_settings(
        cls, settings: Settings, knowledge: Knowledge, backends: Backends
    ) -> LlmReviewer | None:
        """The review when OPENAI_BASE_URL and OPENAI_MODEL are set (any OpenAI-compatible server)."""
        if not (settings.openai_base_url and settings.openai_model):
            return None
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "EMPTY"
        client = OpenAI(base_url=settings.openai_base_url, api_key=key, max_retries=1)
        limits = Limits(
            max_steps=settings.llm_max_steps,
            max_seconds=settings.llm_max_seconds,
            max_tokens=settings.llm_max_tokens,
        )
        return cls(client, model=settings.openai_model, knowledge=knowledge, backends=backends, limits=limits)

    def close(self) -> None:
        """Close the client's connection pool."""
        self._client.close()

    # -- the loop ------------------------------------------------------------------------------
    def review(self, state: TriageState) -> tuple[Verdict | None, list[str]]:
        gathered = state.need_gathered()
        scope = gathered.scope
        ctx = ToolContext(
            backends=self._backends,
            runbooks=self._knowledge.runbooks,
            gathered=gathered,
            evidence={e.id: e for e in gathered.evidence},
        )
        targets = {
            *(f"pod/{p}" for p in scope.pods),
            *(f"node/{n}" for n in scope.nodes),
            *(f"deployment/{d}" for d in scope.deployments),
            *(f"httproute/{r}" for r in scope.routes),
        }
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system()},
            {"role": "user", "content": self._user(state)},
        ]
        usage = _Usage()

        def check(text: str) -> tuple[Verdict | None, list[str]]:
            return validate_answer(
                text,
                taxonomy=self._knowledge.taxonomy,
                evidence_ids=ctx.evidence,
                targets=targets,
                namespace=scope.namespace,
            )

        try:
            answer = self._converse(messages, ctx, usage, time.monotonic())
            verdict, problems = check(answer)
            repaired = False
            if verdict is None:
                messages.append({"role": "assistant", "content": answer})
                messages.append({"role": "user", "content": render("repair.j2", problems=problems)})
                verdict, problems = check(self._message(messages, usage, tools=False).content or "")
                repaired = True
        except _Budget as exc:
            return None, [f"llm review stopped: {exc}; the rules result stands"]
        except OpenAIError as exc:
            return None, [
                f"llm review unavailable: {type(exc).__name__}: {str(exc)[:200]}; the rules result stands"
            ]
        if verdict is None:
            return None, [
                f"llm review discarded after one repair ({'; '.join(problems)[:400]}); the rules result stands"
            ]
        how = "accepted after one repair" if repaired else "accepted"
        return verdict, [f"llm review {how} ({len(ctx.calls)} tool calls, {usage.tokens} tokens)"]

    def _converse(
        self, messages: list[dict[str, Any]], ctx: ToolContext, usage: _Usage, started: float
    ) -> str:
        while True:
            if time.monotonic() - started > self._limits.max_seconds:
                raise _Budget(f"time budget of {self._limits.max_seconds:g} s spent")
            last = usage.steps >= self._limits.max_steps
            reply = self._message(messages, usage, tools=not last)
            calls = reply.tool_calls or []
            if not calls or last:
                return reply.content or ""
            messages.append(reply.model_dump(exclude_none=True))
            for call in calls:
                result = agent_tools.call(call.function.name, call.function.arguments, ctx)
                content = f"<data>\n{result}\n</data>"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

    def _message(self, messages: list[dict[str, Any]], usage: _Usage, *, tools: bool) -> Any:
        usage.steps += 1
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "temperature": 0,
            "timeout": self._limits.request_timeout,
        }
        if tools:
            kwargs["tools"] = agent_tools.specs()
        response = self._client.chat.completions.create(**kwargs)
        if response.usage is not None:
            usage.tokens += int(response.usage.total_tokens)
        if usage.tokens > self._limits.max_tokens:
            raise _Budget(f"token budget of {self._limits.max_tokens} spent")
        return response.choices[0].message

    # -- prompts -------------------------------------------------------------------------------
    def _system(self) -> str:
        taxonomy = self._knowledge.taxonomy
        return render(
            "triage_system.j2",
            engines="vLLM, TGI, Triton/TensorRT-LLM, SGLang",
            categories=[c.value for c in Category],
            layers=sorted(taxonomy.layers.values(), key=lambda layer: layer.rank),
            codes=dict(taxonomy.codes),
            actions=[
                {"kind": s.kind.value, "target_kind": s.target_kind, "effect": s.effect, "undo": s.undo}
                for s in CATALOG.values()
            ],
            max_steps=self._limits.max_steps,
        )

    def _user(self, state: TriageState) -> str:
        gathered, decision = state.need_gathered(), state.need_decision()
        request = state.request
        alert = {
            "incident": request.incident.title,
            "labels": request.incident.labels or (request.alerts[0].labels if request.alerts else {}),
            "annotations": request.alerts[0].annotations if request.alerts else {},
            "expr": next(iter(request.queries), None),
            "startsAt": request.started_at.isoformat(),
        }
        return render(
            "triage_user.j2",
            alert=framed(json.dumps(alert, indent=1)),
            scope=gathered.scope,
            window_start=gathered.window.start.isoformat(),
            as_of=gathered.window.as_of.isoformat(),
            draft={
                "category": decision.category.value,
                "code": decision.code,
                "rule": decision.rule,
                "hypothesis": framed(hypothesis(decision, self._knowledge.taxonomy.meaning)),
            },
            evidence=[{"id": framed(e.id), "summary": framed(e.summary)} for e in gathered.evidence[:80]],
            gaps=[framed(str(g)) for g in gathered.gaps],
        )
