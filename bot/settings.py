"""Process settings from the environment: secrets, URLs, limits.

`Settings` is built once at the entry point and passed down; nothing else reads the environment.
The per-team configuration (services, SLOs, responders) lives in the YAML file of `bot.config`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import ConfigError

DEFAULT_DATABASE_URL = "sqlite:///./incident-bot.db"


class Settings(BaseSettings):
    """Everything the process reads from its environment (see .env.example)."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False)

    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        description="SQLAlchemy URL; sqlite:///file.db or postgresql+psycopg://user:pw@host/db",
    )
    alertmanager_token: SecretStr | None = Field(
        default=None, description="Bearer token Alertmanager must send; unset accepts any caller"
    )
    api_token: SecretStr | None = Field(
        default=None, description="Bearer token for the incident API's writes; unset disables writes"
    )
    incident_bot_config: Path | None = Field(
        default=None, description="Path of the YAML configuration (services, SLOs, responders)"
    )
    worker_threads: int = Field(default=2, ge=0, le=64, description="Job-queue worker threads in serve")
    worker_poll_seconds: float = Field(default=1.0, gt=0, le=60)
    job_lease_seconds: float = Field(default=300.0, gt=0)
    job_max_attempts: int = Field(default=5, ge=1, le=100)
    intake_concurrency: int = Field(
        default=0, ge=0, le=200, description="Webhooks stored at once per process; 0 picks per database"
    )
    db_pool_size: int = Field(default=20, ge=1, le=200)
    log_level: str = Field(default="INFO")

    @field_validator("alertmanager_token", "api_token", "incident_bot_config", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """`VAR=` in an env file means unset, not "the empty string is the token"."""
        return None if isinstance(value, str) and not value.strip() else value


def load_settings() -> Settings:
    """Build Settings from the environment, turning validation errors into a ConfigError."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"environment: {problems}") from exc
