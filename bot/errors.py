"""The error tree of incident-bot.

Each error carries the text a user should read and how each surface reports it (an HTTP status,
a process exit code); entry points (HTTP, CLI, Slack) only render it.

    BotError                    exit 1, HTTP 500
    ├── ConfigError             exit 2        the YAML configuration, a data file or the environment is invalid
    ├── PayloadError            exit 2, 400   a request body is malformed or breaks its schema
    ├── NotFoundError           exit 3, 404   an incident (or another record) does not exist
    ├── ForbiddenError          exit 4, 403   the actor may not do this (not an approver, writes disabled)
    ├── InvalidTransitionError  exit 5, 409   the change is not allowed in the incident's current state
    ├── ActionError             exit 6, 409   an action cannot run: precondition, dry run or target refused
    └── StoreError              exit 7, 503   the database cannot be reached or used
        └── SchemaError                   its schema is missing or older than this version (`db upgrade`)
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import ValidationError


class BotError(Exception):
    """Base of every error the bot raises on purpose."""

    http_status: ClassVar[int] = 500
    exit_code: ClassVar[int] = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(BotError):
    """The configuration, a data file or the environment is invalid; start-up must stop."""

    exit_code = 2


class PayloadError(BotError):
    """A request body is malformed or does not follow its schema."""

    http_status = 400
    exit_code = 2


class NotFoundError(BotError):
    """The requested record does not exist."""

    http_status = 404
    exit_code = 3


class ForbiddenError(BotError):
    """The actor is not allowed to do this."""

    http_status = 403
    exit_code = 4


class InvalidTransitionError(BotError):
    """The lifecycle change is not allowed from the incident's current state."""

    http_status = 409
    exit_code = 5


class ActionError(BotError):
    """A reversible action cannot run (its precondition, its dry run or its target was refused)."""

    http_status = 409
    exit_code = 6


class StoreError(BotError):
    """The database is unreachable or its schema is not usable."""

    http_status = 503
    exit_code = 7


class SchemaError(StoreError):
    """The database is reachable but holds no incident-bot schema yet, or an older one."""


def validation_reasons(exc: ValidationError, *, limit: int | None = None) -> list[str]:
    """`field.path: message` for each of a validation's errors (`body` when it is the whole input)."""
    return [f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in exc.errors()[:limit]]
