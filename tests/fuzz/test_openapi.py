"""The served OpenAPI description: a valid OpenAPI 3.1 document that names every route, and one the
server keeps to (schemathesis against the live bot on SQLite, with both bearer tokens)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import jsonschema_rs
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.applications import Starlette
from starlette.routing import Route

from bot.config import BotConfig
from bot.deps import build_deps
from bot.openapi import document
from bot.server import build_app
from tests.conftest import ALERTMANAGER_TOKEN, API_TOKEN, am_headers, api_headers, make_settings
from tests.support.live import serve_in_thread
from tests.support.payloads import alert, webhook

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 20261202,
        "generation": {"max-examples": 25, "deterministic": True, "database": "none"},
        "auth": {
            "openapi": {
                "apiToken": {"bearer": API_TOKEN},
                "alertmanagerToken": {"bearer": ALERTMANAGER_TOKEN},
            }
        },
    }
)


@dataclass(frozen=True)
class Bot:
    url: str
    app: Starlette
    client: httpx.Client


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bot]:
    """One live bot on SQLite (what the description says does not depend on the database) for the whole
    module, as `deps` and `live` of tests/conftest.py build it: one per operation would cost more than
    the fuzzing. Three triaged incidents (one from an alert, one resolved) give the ids something to find."""
    settings = make_settings(f"sqlite:///{tmp_path_factory.mktemp('openapi') / 'bot.db'}")
    deps = build_deps(settings, config=BotConfig(approvers=["U0APPROVE"]))
    deps.db.upgrade()
    app = build_app(deps, run_worker=False)  # the jobs run here, before the fuzzing: see below
    try:
        with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=10) as client:
            opened = client.post("/webhooks/alertmanager", json=webhook([alert()]), headers=am_headers())
            assert opened.status_code == 200, opened.text
            for title in ("KV cache exhausted", "TTFT above SLO"):
                body = {"title": title, "actor": "oncall"}
                declared = client.post("/api/incidents", json=body, headers=api_headers())
                assert declared.status_code == 200, declared.text
            body = {"reason": "rolled back", "actor": "oncall"}
            resolved = client.post("/api/incidents/2/resolve", json=body, headers=api_headers())
            assert resolved.status_code == 200, resolved.text
            # Triage and the postmortem draft now, so that answers carry them; a worker running while
            # requests are generated would draw from the global `random` (which Hypothesis forbids) and
            # change the incidents between a failing example and its replay.
            deadline = time.monotonic() + 60  # a failed job is retried after a backoff
            while untriaged := [i for i in (1, 2, 3) if _detail(client, i)["triage"] is None]:
                assert time.monotonic() < deadline, f"incidents {untriaged} were never triaged"
                deps.worker.drain()
                time.sleep(0.2)
            assert _detail(client, 1)["alerts"]
            yield Bot(url, app, client)
    finally:
        deps.close()


def _detail(client: httpx.Client, incident_id: int) -> dict[str, Any]:
    response = client.get(f"/api/incidents/{incident_id}", headers=api_headers())
    assert response.status_code == 200, response.text
    detail: dict[str, Any] = response.json()
    return detail


def _served(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/openapi.json")  # no token: the description is open
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    document: dict[str, Any] = response.json()
    return document


def test_description_is_valid_openapi_31(bot: Bot) -> None:
    """schemathesis's loader validates it against the OpenAPI 3.1 meta-schema (and refuses a broken one)."""
    served = _served(bot.client)
    assert served["openapi"].startswith("3.1.")
    assert served == document()
    schemathesis.openapi.from_url(f"{bot.url}/openapi.json").validate()
    broken = {**served, "paths": {"/healthz": {"get": {"responses": "none"}}}}
    with pytest.raises(jsonschema_rs.ValidationError):
        schemathesis.openapi.from_dict(broken).validate()


def test_description_names_every_route(bot: Bot) -> None:
    """A route added to the app without a description fails here, and so does a described one that went."""
    served = {
        (method, re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path))
        for route in bot.app.routes
        if isinstance(route, Route)
        for method in route.methods or ()
        if method != "HEAD"
    }
    paths = _served(bot.client)["paths"]
    described = {(method.upper(), path) for path, operations in paths.items() for method in operations}
    assert described == served
    security = {op["operationId"]: op["security"] for ops in paths.values() for op in ops.values()}
    assert security["declareIncident"] == [{"apiToken": []}]
    assert security["receiveAlertmanager"] == [{"alertmanagerToken": []}]
    assert security["healthz"] == security["openapi"] == []


def test_a_drifted_description_fails(bot: Bot) -> None:
    """The checks bite: a real answer fails against a description that asks for a field it lacks."""
    answer = bot.client.get("/api/incidents/1", headers=api_headers())
    drifted = document()
    drifted["components"]["schemas"]["IncidentDetail"]["required"].append("owner")
    for description, fails in ((document(), False), (drifted, True)):
        loaded = schemathesis.openapi.from_dict(description)
        case = loaded["/api/incidents/{id}"]["GET"].Case(path_parameters={"id": 1})
        try:
            case.validate_response(answer, checks=CHECKS)
        except schemathesis.errors.FailureGroup as failed:
            assert fails and "owner" in str(failed)
        else:
            assert not fails


# What the bot serves (asserted above); loading writes to the document, and `document()` is a fresh copy.
schema = schemathesis.openapi.from_dict(document(), config=CONFIG)


@schema.parametrize()
@settings(
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],  # one request per example, on a loaded machine
)
def test_server_keeps_to_its_description(case: schemathesis.Case, bot: Bot) -> None:
    """Generated and mutated requests for each operation: no 5xx, and each answer's status, media type and
    body are the ones described."""
    case.call_and_validate(base_url=bot.url, checks=CHECKS, timeout=10)
