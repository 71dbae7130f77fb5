"""The agent's HTTP surface: GET /v1/gpus, GET /v1/xids?since=, GET /healthz (JSON, read-only)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.gpuagent.agent import GpuAgent


def _json(model: BaseModel, status: int = 200) -> Response:
    return Response(model.model_dump_json(), status_code=status, media_type="application/json")


def build_app(agent: GpuAgent) -> Starlette:
    """NVML calls block, so each request reads in a worker thread."""

    async def gpus(request: Request) -> Response:
        return _json(await run_in_threadpool(agent.reading))

    async def xids(request: Request) -> Response:
        raw = request.query_params.get("since")
        try:
            since = datetime.fromisoformat(raw.replace("Z", "+00:00")) if raw else None
        except ValueError:
            return JSONResponse({"error": f"since: {raw!r} is not an RFC 3339 time"}, status_code=400)
        if since is not None and since.tzinfo is None:
            return JSONResponse(
                {"error": "since: give a time zone, e.g. 2026-06-01T10:00:00Z"}, status_code=400
            )
        return _json(agent.xids(since))

    async def healthz(request: Request) -> Response:
        try:
            health = await run_in_threadpool(agent.health)
        except Exception as exc:  # NVML gone (driver unloaded, GPU lost): not ready, and say why
            return JSONResponse(
                {"status": "error", "node": agent.node, "error": type(exc).__name__}, status_code=503
            )
        return _json(health)  # without Xid events (a board that has none) the readings still work

    return Starlette(
        routes=[
            Route("/v1/gpus", gpus, methods=["GET"]),
            Route("/v1/xids", xids, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
        ]
    )
