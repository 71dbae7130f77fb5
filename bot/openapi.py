"""The OpenAPI 3.1 description of the bot's HTTP API, served at `GET /openapi.json`.

Request and response schemas are generated from the pydantic models the endpoints validate and
return, so the description follows the code; the fuzz tests hold the server to it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from bot import __version__, api
from bot.alertmanager import WebhookPayload
from bot.domain import ActionProposal, Incident, IncidentDetail, IncidentStatus, IntakeResult, TimelineEvent
from bot.postmortem.model import Postmortem

API_TOKEN = "apiToken"
ALERTMANAGER_TOKEN = "alertmanagerToken"
REF = "#/components/schemas/{model}"


class ErrorBody(BaseModel):
    """Every error the bot answers itself: what went wrong, in words."""

    error: str


class IncidentList(BaseModel):
    incidents: list[Incident]


class ActionList(BaseModel):
    actions: list[ActionProposal]


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    """Whether the database answers: its dialect when ready, the reason when not."""

    status: Literal["ready", "unavailable"]
    database: str


ERRORS = {
    400: "The body, a parameter or a value in it is malformed or breaks its schema.",
    401: "The bearer token is missing or wrong.",
    403: "Not allowed: writes are disabled (no API_TOKEN), or the actor may not decide on actions.",
    404: "No such incident, action or postmortem draft.",
    409: "Not allowed in the current state (lifecycle, an action's precondition or dry run).",
    503: "The database cannot be reached or its schema is not usable (`db upgrade`).",
}
READ = (401, 404, 503)
WRITE = (400, 401, 403, 404, 409, 503)
Schemas = dict[tuple[type[BaseModel], JsonSchemaMode], Any]


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    ok: type[BaseModel] | None  # the JSON of a 200; None where it is text (`text`)
    body: type[BaseModel] | None = None
    errors: tuple[int, ...] = READ
    security: str | None = API_TOKEN
    query: tuple[dict[str, Any], ...] = ()
    text: str | None = None  # a text media type the 200 may have, instead of or besides the JSON
    failure: type[BaseModel] = ErrorBody

    @property
    def tag(self) -> str:
        for prefix, tag in (
            ("/api/actions", "actions"),
            ("/api/", "incidents"),
            ("/webhooks", "alertmanager"),
        ):
            if self.path.startswith(prefix):
                return tag
        return "operations"


def _get(path: str, operation_id: str, summary: str, ok: type[BaseModel] | None, **kw: Any) -> Operation:
    return Operation("get", path, operation_id, summary, ok, **kw)


def _post(
    path: str, operation_id: str, summary: str, ok: type[BaseModel], body: type[BaseModel]
) -> Operation:
    return Operation("post", path, operation_id, summary, ok, body, WRITE)


def _choice(name: str, values: list[str], why: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": why, "schema": {"enum": values}}


INCIDENT = "/api/incidents/{id}"
OPEN: dict[str, Any] = {"security": None, "errors": ()}
OPERATIONS: tuple[Operation, ...] = (
    _get(
        "/api/incidents",
        "listIncidents",
        "List incidents, newest first",
        IncidentList,
        errors=(400, 401, 503),
        query=(_choice("status", [s.value for s in IncidentStatus], "Only incidents in this state."),),
    ),
    Operation(
        "post",
        "/api/incidents",
        "declareIncident",
        "Declare an incident by hand",
        Incident,
        api.DeclareBody,
        (400, 401, 403, 409, 503),
    ),
    _get(INCIDENT, "getIncident", "An incident with its alerts, timeline and latest triage", IncidentDetail),
    _post(f"{INCIDENT}/ack", "acknowledgeIncident", "Acknowledge", Incident, api.ActorBody),
    _post(f"{INCIDENT}/severity", "setSeverity", "Change the severity", Incident, api.SeverityBody),
    _post(f"{INCIDENT}/category", "tagCategory", "Tag the category", Incident, api.CategoryBody),
    _post(f"{INCIDENT}/notes", "addNote", "Add a note to the timeline", TimelineEvent, api.NoteBody),
    _post(f"{INCIDENT}/triage", "requestTriage", "Queue another triage run", api.TriageRun, api.ActorBody),
    _post(f"{INCIDENT}/resolve", "resolveIncident", "Resolve with a final tag", Incident, api.ResolveBody),
    _get(
        f"{INCIDENT}/postmortem",
        "getPostmortem",
        "The postmortem draft, as JSON or (`format=md`) Markdown",
        Postmortem,
        errors=(400, *READ),
        query=(_choice("format", ["json", "md"], "json (the default) or md."),),
        text="text/markdown",
    ),
    _get(f"{INCIDENT}/actions", "listActions", "The incident's proposed actions", ActionList),
    _post(
        "/api/actions/{id}/approve",
        "approveAction",
        "Approve (approvers only): it runs",
        ActionProposal,
        api.ActorBody,
    ),
    _post("/api/actions/{id}/reject", "rejectAction", "Reject", ActionProposal, api.ActorBody),
    _post("/api/actions/{id}/undo", "undoAction", "Undo what it did", ActionProposal, api.ActorBody),
    Operation(
        "post",
        "/webhooks/alertmanager",
        "receiveAlertmanager",
        "Alertmanager's webhook (payload version 4)",
        IntakeResult,
        WebhookPayload,
        (400, 401, 503),
        ALERTMANAGER_TOKEN,
    ),
    _get("/healthz", "healthz", "Liveness: the process answers", Health, **OPEN),
    _get(
        "/readyz",
        "readyz",
        "Readiness: the database answers",
        Readiness,
        security=None,
        errors=(503,),
        failure=Readiness,
    ),
    _get("/metrics", "metrics", "Prometheus metrics", None, text="text/plain", **OPEN),
    _get("/openapi.json", "openapi", "This description", None, **OPEN),
)


def _schemas() -> tuple[Schemas, dict[str, Any]]:
    wanted: list[tuple[type[BaseModel], JsonSchemaMode]] = []
    for op in OPERATIONS:
        wanted.append((op.failure, "serialization"))
        if op.ok is not None:
            wanted.append((op.ok, "serialization"))
        if op.body is not None:
            wanted.append((op.body, "validation"))
    refs, defs = models_json_schema(list(dict.fromkeys(wanted)), ref_template=REF)
    return dict(refs), defs.get("$defs", {})  # type: ignore[arg-type]


def _json(schema: Any) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _path_id(op: Operation) -> dict[str, Any]:
    return {
        "name": "id",
        "in": "path",
        "required": True,
        "description": f"The {'action' if op.tag == 'actions' else 'incident'}'s id.",
        "schema": {"type": "integer", "minimum": 0, "maximum": api.MAX_ID},
    }


def _operation(op: Operation, refs: Schemas) -> dict[str, Any]:
    ok: dict[str, Any] = _json(refs[(op.ok, "serialization")] if op.ok else {"type": "object"})
    if op.text:
        ok = {**(ok if op.ok else {}), op.text: {"schema": {"type": "string"}}}
    responses: dict[str, Any] = {"200": {"description": "OK", "content": ok}}
    for status in op.errors:
        content = _json(refs[(op.failure, "serialization")])
        failed: dict[str, Any] = {"description": ERRORS[status], "content": content}
        if status == 401:
            failed["headers"] = {"WWW-Authenticate": {"schema": {"const": "Bearer"}}}
        responses[str(status)] = failed
    doc: dict[str, Any] = {
        "operationId": op.operation_id,
        "tags": [op.tag],
        "summary": op.summary,
        "security": [{op.security: []}] if op.security else [],
        "responses": responses,
    }
    parameters = [*([_path_id(op)] if "{id}" in op.path else []), *op.query]
    if parameters:
        doc["parameters"] = parameters
    if op.body is not None:
        doc["requestBody"] = {"required": True, "content": _json(refs[(op.body, "validation")])}
    return doc


def document() -> dict[str, Any]:
    """The whole description, a copy of its own for each caller to change."""
    return copy.deepcopy(_document())


@cache
def _document() -> dict[str, Any]:
    """Built once: it depends on the code only, not on the settings."""
    refs, defs = _schemas()
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method] = _operation(op, refs)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "incident-bot",
            "version": __version__,
            "description": "Alertmanager intake, the incident API and the bot's health and metrics.",
        },
        "paths": paths,
        "components": {
            "schemas": defs,
            "securitySchemes": {
                API_TOKEN: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "API_TOKEN. Writes always need it; reads are open only when it is not set.",
                },
                ALERTMANAGER_TOKEN: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "ALERTMANAGER_TOKEN; the webhook is open only when it is not set.",
                },
            },
        },
    }
