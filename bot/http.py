"""Small HTTP helpers shared by the server's routes: bearer auth and error rendering."""

from __future__ import annotations

import hmac

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import JSONResponse

from bot.errors import BotError


def bearer_ok(request: Request, token: SecretStr | None) -> bool:
    """True when no token is configured, or the request carries it (constant-time compare)."""
    if token is None:
        return True
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        return False
    return hmac.compare_digest(given.strip().encode(), token.get_secret_value().encode())


def unauthorized(reason: str = "missing or wrong bearer token") -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=401, headers={"WWW-Authenticate": "Bearer"})


def error_response(exc: BotError) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.http_status)
