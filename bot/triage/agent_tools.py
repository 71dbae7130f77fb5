"""The read-only tools the LLM reviewer may call, each a typed parameter model and a function.

The JSON schema the model sees is generated from the parameter model, and the model's arguments
are validated against the same model before anything runs, so the spec and the code cannot drift.
Every result is redacted and framed as data; evidence a tool returns becomes citable.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.errors import validation_reasons
from bot.triage.backends import Backends
from bot.triage.gather import Gathered, prometheus_scope
from bot.triage.redact import framed
from bot.triage.runbooks import RunbookCatalog
from bot.triage.scope import subjects
from tools.logs import LogScope
from tools.result import Evidence, ToolResult

A = TypeVar("A", bound=BaseModel)


@dataclass
class ToolContext:
    """What the tools read: the backends, the runbooks, what the triage gathered, what was cited."""

    backends: Backends
    runbooks: RunbookCatalog
    gathered: Gathered
    evidence: dict[str, Evidence]
    calls: list[str] = field(default_factory=list)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PromqlArgs(_Args):
    query: str = Field(min_length=1, description="a PromQL expression")


class SearchLogsArgs(_Args):
    text: str = Field(min_length=1, description="words to look for in the log messages")
    size: int = Field(default=20, ge=1, le=50, description="how many lines, newest first")


class SignalArgs(_Args):
    name: str = Field(description="a signal of the catalog, e.g. kv_cache_usage")


KubeView = Literal["pods", "nodes", "events", "rollouts", "routes"]


class KubernetesArgs(_Args):
    view: KubeView
    names: list[str] = Field(default_factory=list, description="optional object names to narrow the view")


class IdArgs(_Args):
    id: str = Field(min_length=1)


@dataclass(frozen=True)
class AgentTool(Generic[A]):
    """One tool: its name and description for the model, its parameters, and what it does."""

    name: str
    description: str
    params: type[A]
    run: Callable[[A, ToolContext], dict[str, Any] | ToolResult]

    def spec(self) -> dict[str, Any]:
        """The OpenAI `tools` entry, generated from the parameter model."""
        schema = self.params.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": schema},
        }

    def call(self, arguments: str, ctx: ToolContext) -> str:
        try:
            args = self.params.model_validate_json(arguments or "{}")
        except ValidationError as exc:
            return json.dumps({"error": "invalid arguments: " + "; ".join(validation_reasons(exc, limit=3))})
        try:
            got = self.run(args, ctx)
            return framed(json.dumps(_result(got, ctx) if isinstance(got, ToolResult) else got, default=str))
        except Exception as exc:  # the model hears of any failure; the triage goes on
            return json.dumps(
                {"error": f"{self.name} failed: {type(exc).__name__}: {framed(str(exc))[:300]}"}
            )


def show(item: Evidence) -> dict[str, Any]:
    """One evidence item as the model sees it."""
    return {
        "id": item.id,
        "source": item.source.value,
        "summary": framed(item.summary),
        "query": framed(item.query)[:500],
        "value": item.value,
    }


def _result(result: ToolResult, ctx: ToolContext) -> dict[str, Any]:
    for item in result.evidence:
        ctx.evidence[item.id] = item
    payload: dict[str, Any] = {
        "status": result.status.value,
        "evidence": [show(e) for e in result.evidence[:20]],
    }
    if result.gap is not None:
        payload["gap"] = str(result.gap)
    return payload


def _unavailable(what: str) -> dict[str, Any]:
    return {"error": f"{what} is not configured for this triage"}


def _promql(args: PromqlArgs, ctx: ToolContext) -> dict[str, Any] | ToolResult:
    prom = ctx.backends.prometheus
    return prom.promql(args.query, ctx.gathered.window.as_of) if prom else _unavailable("Prometheus")


def _search_logs(args: SearchLogsArgs, ctx: ToolContext) -> dict[str, Any] | ToolResult:
    logs = ctx.backends.logs
    if logs is None:
        return _unavailable("the log backend")
    return logs.search(
        args.text, LogScope(namespace=ctx.gathered.scope.namespace), ctx.gathered.window, size=args.size
    )


def _signal(args: SignalArgs, ctx: ToolContext) -> dict[str, Any] | ToolResult:
    prom = ctx.backends.prometheus
    if prom is None:
        return _unavailable("Prometheus")
    if args.name not in prom.catalog.signals:
        return {"error": "unknown signal", "known": prom.catalog.names}
    return prom.read_signal(args.name, prometheus_scope(ctx.gathered.scope), ctx.gathered.window)


def _kubernetes(args: KubernetesArgs, ctx: ToolContext) -> dict[str, Any] | ToolResult:
    kube, topo, gathered = ctx.backends.kube, ctx.gathered.topology, ctx.gathered
    if kube is None or topo is None:
        return _unavailable("Kubernetes")
    names, scope = args.names, gathered.scope
    views: dict[KubeView, Callable[[], ToolResult]] = {
        "pods": lambda: kube.pod_health(topo, names or scope.pods),
        "nodes": lambda: kube.node_state(topo, names or scope.nodes),
        "events": lambda: kube.warning_events(topo, gathered.window, subjects(scope, topo)),
        "rollouts": lambda: kube.rollouts(topo, gathered.window, names or scope.deployments),
        "routes": lambda: kube.route_backends(topo, names or scope.routes),
    }
    return views[args.view]()


def _get_evidence(args: IdArgs, ctx: ToolContext) -> dict[str, Any]:
    item = ctx.evidence.get(args.id)
    return show(item) if item else {"error": "unknown evidence id"}


def _fetch_runbook(args: IdArgs, ctx: ToolContext) -> dict[str, Any]:
    book = ctx.runbooks.get(args.id)
    if book is None:
        return {"error": "unknown runbook id", "known": [b.id for b in ctx.runbooks.runbooks]}
    return {"runbook": book.body[:4000]}


TOOLS: dict[str, AgentTool[Any]] = {
    tool.name: tool
    for tool in (
        AgentTool(
            "promql",
            "Evaluate a PromQL expression at the incident's as_of time (read-only).",
            PromqlArgs,
            _promql,
        ),
        AgentTool(
            "search_logs",
            "Search the incident namespace's logs in the incident window for text (newest first).",
            SearchLogsArgs,
            _search_logs,
        ),
        AgentTool(
            "signal",
            "Read one signal of the catalog for the incident's scope: value at as_of, an hour before, "
            "and when it crossed its threshold.",
            SignalArgs,
            _signal,
        ),
        AgentTool(
            "kubernetes",
            "Read-only views of the incident's cluster objects: pods (health, restarts, last termination), "
            "nodes (conditions, taints, GPUs), events (warnings in the window), rollouts (with the template "
            "diff), routes (HTTPRoute backends and weights). Optional names narrow the view.",
            KubernetesArgs,
            _kubernetes,
        ),
        AgentTool(
            "get_evidence", "Show one evidence item in full (query, value, summary).", IdArgs, _get_evidence
        ),
        AgentTool("fetch_runbook", "Read a runbook by id.", IdArgs, _fetch_runbook),
    )
}


def specs() -> list[dict[str, Any]]:
    """Every tool's OpenAI spec, in a stable order."""
    return [tool.spec() for tool in TOOLS.values()]


def call(name: str, arguments: str, ctx: ToolContext) -> str:
    """Run the named tool with the model's JSON arguments; errors are answers, never exceptions."""
    ctx.calls.append(name)
    tool = TOOLS.get(name)
    if tool is None:
        return json.dumps({"error": f"unknown tool {name!r}; known: {sorted(TOOLS)}"})
    return tool.call(arguments, ctx)
