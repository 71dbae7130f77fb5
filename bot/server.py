"""The ASGI application: Alertmanager intake, incident API, Slack, health and metrics."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot import api
from bot.alertmanager import parse_payload
from bot.deps import Deps
from bot.domain import IntakeOutcome
from bot.errors import PayloadError, StoreError
from bot.http import bearer_ok, error_response, unauthorized

log = logging.getLogger(__name__)


def build_app(deps: Deps, *, run_worker: bool = True) -> Starlette:
    """The application; with `run_worker` the job-queue worker runs for the app's lifetime."""
    metrics = deps.metrics
    # Intake work waits here, in the event loop, rather than as dozens of threads fighting over
    # the GIL and the database's write lock: throughput holds up as concurrency grows.
    intake_slots = anyio.CapacityLimiter(deps.settings.intake_concurrency or deps.db.suggested_writers)

    async def alertmanager_webhook(request: Request) -> Response:
        started = time.perf_counter()
        try:
            if not bearer_ok(request, deps.settings.alertmanager_token):
                metrics.webhooks.labels("unauthorized").inc()
                return unauthorized()
            try:
                payload = parse_payload(await request.body())
            except PayloadError as exc:
                metrics.webhooks.labels("rejected").inc()
                log.info("webhook rejected: %s", exc.message)
                return error_response(exc)
            for alert in payload.alerts:
                metrics.alerts_received.labels(alert.status.value).inc()
            try:
                result = await anyio.to_thread.run_sync(
                    deps.services.intake.ingest, payload, limiter=intake_slots
                )
            except (SQLAlchemyError, StoreError) as exc:
                # 5xx: Alertmanager retries, so nothing is lost while the database is away.
                metrics.webhooks.labels("store_error").inc()
                log.error("webhook could not be stored: %s", exc)
                return error_response(StoreError(f"could not store the notification: {type(exc).__name__}"))
            metrics.webhooks.labels(result.outcome.value).inc()
            if result.outcome is IntakeOutcome.OPENED:
                metrics.incidents_opened.inc()
            return JSONResponse(result.model_dump(mode="json"))
        finally:
            metrics.webhook_latency.observe(time.perf_counter() - started)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        try:
            await run_in_threadpool(deps.db.ping)
        except StoreError as exc:
            return JSONResponse({"status": "unavailable", "database": exc.message}, status_code=503)
        return JSONResponse({"status": "ready", "database": deps.db.dialect})

    async def metrics_endpoint(_: Request) -> Response:
        body = await run_in_threadpool(generate_latest, metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    slack_routes: list[Route] = []
    bolt: Any = None
    if deps.settings.slack:
        from bot.slack.app import build_bolt
        from bot.slack.app import slack_routes as http_routes

        bolt = build_bolt(deps)
        if deps.settings.slack_app_token is None:
            slack_routes = http_routes(bolt)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if run_worker:
            deps.worker.start()
        socket_mode: Any = None
        if bolt is not None and deps.settings.slack_app_token is not None:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            # Built on the server's loop: its aiohttp session belongs to the loop that makes it.
            socket_mode = AsyncSocketModeHandler(bolt, deps.settings.slack_app_token.get_secret_value())
            await socket_mode.connect_async()
        try:
            yield
        finally:
            if socket_mode is not None:
                await socket_mode.close_async()
            if run_worker:
                deps.worker.stop()
            deps.engine.close()

    async def not_routed(_: Request, exc: Exception) -> Response:
        """404 and 405 as JSON with a reason, like every other refusal."""
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    async def database_away(_: Request, exc: Exception) -> Response:
        """An API call while the database is unreachable: 503 with the reason, not a 500."""
        log.error("request failed on the database: %s", exc)
        return error_response(StoreError(f"the database is unavailable: {type(exc).__name__}"))

    return Starlette(
        exception_handlers={404: not_routed, 405: not_routed, SQLAlchemyError: database_away},
        routes=[
            Route("/webhooks/alertmanager", alertmanager_webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics_endpoint, methods=["GET"]),
            *slack_routes,
            *api.routes(deps),
        ],
        lifespan=lifespan,
    )
