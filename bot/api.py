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

from bot import jsontext
from bot.deps import Deps
from bot.domain import Category, IncidentStatus, Severity
from bot.errors import BotError, ForbiddenError, NotFoundError, PayloadError, validation_reasons
from bot.http import bearer_ok, error_response, unauthorized
from bot.postmortem.render import markdown


class ActorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    actor: str = Field(min_length=1, max_length=200)


class DeclareBody(ActorBody):
    title: str = Field(min_length=1, max_length=500)
    severity: Severity = Severity.MAJOR
    service: str | None = Field(default=None, max_length=200)
    model: str | None = Field(default=None, max_length=200)
    namespace: str | None = Field(default=None, max_length=200)


class SeverityBody(ActorBody):
    severity: Severity


class CategoryBody(ActorBody):
    category: Category


class NoteBody(ActorBody):
    text: str = Field(min_length=1, max_length=4000)


class ResolveBody(ActorBody):
    reason: str = Field(min_length=1, max_length=4000)
    category: Category | None = None  # the final tag; a code settles the category
    code: str | None = Field(default=None, max_length=60)


class TriageRun(BaseModel):
    model_config = ConfigDict(frozen=True)
    incident_id: int
    run: int


# The largest id either database stores (SQLite's INTEGER, PostgreSQL's BIGINT): one beyond it names
# no record, and the driver would fail on it.
MAX_ID = 2**63 - 1


def record_id(request: Request) -> int:
    """The path's `{id}`, 0 where it has none (declare); NotFoundError past what a database holds."""
    value = int(request.path_params.get("id", 0))
    if value > MAX_ID:
        raise NotFoundError(f"no record has id {value}")
    return value


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
        try:
            found = await run_in_threadpool(svc.list, status=status)
        except BotError as exc:
            return error_response(exc)
        return JSONResponse({"incidents": [i.model_dump(mode="json") for i in found]})

    async def get_incident(request: Request) -> Response:
        if not bearer_ok(request, token):
            return unauthorized()
        try:
            detail = await run_in_threadpool(svc.get, record_id(request))
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
            draft = await run_in_threadpool(deps.services.postmortems.get, record_id(request))
        except BotError as exc:
            return error_response(exc)
        if form == "md":
            return PlainTextResponse(markdown(draft), media_type="text/markdown; charset=utf-8")
        return JSONResponse(draft.public())

    def write(
        model: type[ActorBody], apply: Callable[[int, Any], BaseModel]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            if token is None:
                return error_response(ForbiddenError("incident writes are disabled: set API_TOKEN"))
            if not bearer_ok(request, token):
                return unauthorized()
            try:
                body = model.model_validate(jsontext.loads(await request.body()))
                result = await run_in_threadpool(apply, record_id(request), body)
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
            found = await run_in_threadpool(actions.list, record_id(request))
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

    def decision(verb: str) -> Callable[[int, ActorBody], BaseModel]:
        def decide(proposal_id: int, body: ActorBody) -> BaseModel:
            return getattr(actions, verb)(proposal_id, actor=body.actor)  # type: ignore[no-any-return]

        return decide

    decisions = [
        Route(f"/api/actions/{{id:int}}/{verb}", write(ActorBody, decision(verb)), methods=["POST"])
        for verb in ("approve", "reject", "undo")
    ]

    async def openapi_document(_: Request) -> Response:
        """Open like /healthz: the description holds no data. Imported here, as it reads this module."""
        from bot.openapi import document

        return JSONResponse(document())

    return [
        *decisions,
        Route("/openapi.json", openapi_document, methods=["GET"]),
        Route("/api/incidents/{id:int}/actions", list_actions, methods=["GET"]),
        Route("/api/incidents", list_incidents, methods=["GET"]),
        Route("/api/incidents", write(DeclareBody, declare), methods=["POST"]),
        Route("/api/incidents/{id:int}", get_incident, methods=["GET"]),
        Route(
            "/api/incidents/{id:int}/ack",
            write(ActorBody, lambda i, b: svc.acknowledge(i, actor=b.actor)),
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
            write(ActorBody, lambda i, b: TriageRun(incident_id=i, run=svc.request_triage(i, actor=b.actor))),
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
