"""The incident API: list, get and change incidents over HTTP (JSON in, JSON out), and decide on
their proposed actions (`/api/actions/{id}/approve|reject|undo`, the same approver check by actor).

Reads are open unless API_TOKEN is set; writes always need API_TOKEN, so a bot started without
one cannot be driven by whoever reaches its port.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.deps import Deps
from bot.domain import Category, IncidentStatus, Severity
from bot.errors import BotError, ForbiddenError, PayloadError, validation_reasons
from bot.http import bearer_ok, error_response, unauthorized
from bot.postmortem.render import markdown


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    actor: str = Field(min_length=1, max_length=200)


class DeclareBody(_Body):
    title: str = Field(min_length=1, max_length=500)
    severity: Severity = Severity.MAJOR
    service: str | None = None
    model: str | None = None
    namespace: str | None = None


class SeverityBody(_Body):
    severity: Severity


class CategoryBody(_Body):
    category: Category


class NoteBody(_Body):
    text: str = Field(min_length=1, max_length=4000)


class ResolveBody(_Body):
    reason: str = Field(min_length=1, max_length=4000)
    category: Category | None = None  # the final tag; a code settles the category
    code: str | None = Field(default=None, max_length=60)


class TriageRun(BaseModel):
    model_config = ConfigDict(frozen=True)
    incident_id: int
    run: int


def routes(deps: Deps) -> list[Route]:
    svc = deps.services.incidents
    token = deps.settings.api_token

    async def list_incidents(request: Request) -> Response:
        if not bearer_ok(request, token):
            return unauthorized()
        raw = request.query_params.get("status")
        try:
            status = IncidentStatus(raw) if raw else None
        except ValueError:
            return JSONResponse({"error": f"status must be one of {[s.value for s in IncidentStatus]}"}, 400)
        found = await run_in_threadpool(svc.list, status=status)
        return JSONResponse({"incidents": [i.model_dump(mode="json") for i in found]})

    async def get_incident(request: Request) -> Response:
        if not bearer_ok(request, token):
            return unauthorized()
        try:
            detail = await run_in_threadpool(svc.get, int(request.path_params["id"]))
        except BotError as exc:
            return error_response(exc)
        return JSONResponse(detail.model_dump(mode="json"))

    async def get_postmortem(request: Request) -> Response:
        """The draft as JSON, or as Markdown with `?format=md`."""
        if not bearer_ok(request, token):
            return unauthorized()
        form = request.query_params.get("format", "json")
        if form not in ("json", "md"):
            return error_response(PayloadError("format must be json or md"))
        try:
            draft = await run_in_threadpool(deps.services.postmortems.get, int(request.path_params["id"]))
        except BotError as exc:
            return error_response(exc)
        if form == "md":
            return PlainTextResponse(markdown(draft), media_type="text/markdown; charset=utf-8")
        return JSONResponse(draft.public())

    def write(
        model: type[_Body], apply: Callable[[int, Any], BaseModel]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            if token is None:
                return error_response(ForbiddenError("incident writes are disabled: set API_TOKEN"))
            if not bearer_ok(request, token):
                return unauthorized()
            try:
                body = model.model_validate(json.loads(await request.body()))
                result = await run_in_threadpool(apply, int(request.path_params.get("id", 0)), body)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                return error_response(PayloadError(f"body is not valid JSON: {exc}"))
            except ValidationError as exc:
                reasons = "; ".join(validation_reasons(exc))
                return error_response(PayloadError(reasons))
            except BotError as exc:
                return error_response(exc)
            return JSONResponse(result.model_dump(mode="json"))

        return endpoint

    actions = deps.services.actions

    async def list_actions(request: Request) -> Response:
        if not bearer_ok(request, token):
            return unauthorized()
        try:
            found = await run_in_threadpool(actions.list, int(request.path_params["id"]))
        except BotError as exc:
            return error_response(exc)
        return JSONResponse({"actions": [p.model_dump(mode="json") for p in found]})

    def declare(_: int, b: DeclareBody) -> BaseModel:
        return svc.declare(
            title=b.title,
            severity=b.severity,
            actor=b.actor,
            service=b.service,
            model=b.model,
            namespace=b.namespace,
        )

    def decision(verb: str) -> Callable[[int, _Body], BaseModel]:
        def decide(proposal_id: int, body: _Body) -> BaseModel:
            return getattr(actions, verb)(proposal_id, actor=body.actor)  # type: ignore[no-any-return]

        return decide

    decisions = [
        Route(f"/api/actions/{{id:int}}/{verb}", write(_Body, decision(verb)), methods=["POST"])
        for verb in ("approve", "reject", "undo")
    ]
    return [
        *decisions,
        Route("/api/incidents/{id:int}/actions", list_actions, methods=["GET"]),
        Route("/api/incidents", list_incidents, methods=["GET"]),
        Route("/api/incidents", write(DeclareBody, declare), methods=["POST"]),
        Route("/api/incidents/{id:int}", get_incident, methods=["GET"]),
        Route(
            "/api/incidents/{id:int}/ack",
            write(_Body, lambda i, b: svc.acknowledge(i, actor=b.actor)),
            methods=["POST"],
        ),
        Route(
            "/api/incidents/{id:int}/severity",
            write(SeverityBody, lambda i, b: svc.set_severity(i, b.severity, actor=b.actor)),
            methods=["POST"],
        ),
        Route(
            "/api/incidents/{id:int}/category",
            write(CategoryBody, lambda i, b: svc.tag_category(i, b.category, actor=b.actor)),
            methods=["POST"],
        ),
        Route(
            "/api/incidents/{id:int}/notes",
            write(NoteBody, lambda i, b: svc.add_note(i, b.text, actor=b.actor)),
            methods=["POST"],
        ),
        Route(
            "/api/incidents/{id:int}/triage",
            write(_Body, lambda i, b: TriageRun(incident_id=i, run=svc.request_triage(i, actor=b.actor))),
            methods=["POST"],
        ),
        Route(
            "/api/incidents/{id:int}/resolve",
            write(
                ResolveBody,
                lambda i, b: svc.resolve(i, reason=b.reason, actor=b.actor, category=b.category, code=b.code),
            ),
            methods=["POST"],
        ),
        Route("/api/incidents/{id:int}/postmortem", get_postmortem, methods=["GET"]),
    ]
