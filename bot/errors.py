"""The error tree of incident-bot.

Each error carries the text a user should read; entry points (HTTP, CLI, Slack) render it.

    BotError
    ├── ConfigError            the YAML configuration or the environment is invalid
    ├── PayloadError           a webhook body is not a valid Alertmanager payload (HTTP 400)
    ├── NotFoundError          an incident (or another record) does not exist (HTTP 404)
    ├── InvalidTransitionError a lifecycle change is not allowed in the current state (HTTP 409)
    └── StoreError             the database cannot be reached or migrated
"""

from __future__ import annotations

from pydantic import ValidationError


class BotError(Exception):
    """Base of every error the bot raises on purpose."""

    http_status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(BotError):
    """The configuration file or environment is invalid; start-up must stop."""


class PayloadError(BotError):
    """A webhook body is malformed or does not follow the Alertmanager schema."""

    http_status = 400


class NotFoundError(BotError):
    """The requested record does not exist."""

    http_status = 404


class InvalidTransitionError(BotError):
    """The lifecycle change is not allowed from the incident's current state."""

    http_status = 409


class StoreError(BotError):
    """The database is unreachable or its schema is not usable."""

    http_status = 503


def validation_reasons(exc: ValidationError, *, limit: int | None = None) -> list[str]:
    """`field.path: message` for each of a validation's errors (`body` when it is the whole input)."""
    return [f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in exc.errors()[:limit]]
