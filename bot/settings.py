"""Process settings from the environment: secrets, URLs, limits.

`Settings` is built once at the entry point and passed down; nothing else reads the environment.
The per-team configuration (services, SLOs, responders) lives in the YAML file of `bot.config`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
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
    chat_job_max_attempts: int = Field(
        default=18, ge=1, le=100, description="Attempts of a post to Slack: 18 outlast about an hour's outage"
    )
    intake_concurrency: int = Field(
        default=0, ge=0, le=200, description="Webhooks stored at once per process; 0 picks per database"
    )
    db_pool_size: int = Field(default=20, ge=1, le=200)
    log_level: str = Field(default="INFO")

    # Evidence backends (URLs may also come from the YAML's `backends`; the environment wins).
    prometheus_url: str | None = Field(default=None, description="Prometheus HTTP API base URL")
    elasticsearch_url: str | None = Field(default=None, description="Elasticsearch URL")
    elasticsearch_api_key: SecretStr | None = Field(default=None, description="Elasticsearch API key")
    logs_index: str | None = Field(default=None, description="Index pattern of the ECS logs")
    logs_backend: Literal["auto", "elasticsearch", "opensearch"] | None = Field(
        default=None, description="Log cluster flavour; unset or auto: from the root answer"
    )
    logs_fields: Literal["auto", "ecs", "fluentbit", "flat"] | None = Field(
        default=None, description="Log field preset; unset or auto: the one the index's fields match"
    )
    kibana_url: str | None = Field(default=None, description="Kibana base URL for Discover links")
    kubernetes_api_url: str | None = Field(
        default=None, description="API server URL; unset: in-cluster or KUBECONFIG"
    )
    kubernetes_token: SecretStr | None = Field(
        default=None, description="Bearer token for KUBERNETES_API_URL"
    )
    kubernetes_actions_token: SecretStr | None = Field(
        default=None,
        description="Bearer token of the service account bound to the actions role (writes); unset: KUBERNETES_TOKEN",
    )
    kubeconfig: Path | None = Field(default=None, description="kubeconfig file, when not in-cluster")
    kubernetes_in_cluster: bool = Field(
        default=True,
        description="Fall back to the pod's service account when no API URL or kubeconfig is set",
    )
    kubernetes_namespace: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        description="Namespace assumed when neither the incident, its service nor its alerts name one",
    )
    tool_timeout_seconds: float = Field(default=5.0, gt=0, le=120, description="Deadline of every tool call")
    # GPU state: the `gpu-agent` DaemonSet on the GPU nodes, found through its pods (or a static map).
    gpu_agent_namespace: str = Field(
        default="incident-bot",
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        description="Namespace of the gpu-agent DaemonSet's pods",
    )
    gpu_agent_selector: str = Field(
        default="app.kubernetes.io/name=incident-bot-gpu-agent",
        min_length=1,
        description="Label selector of the gpu-agent pods",
    )
    gpu_agent_urls: str | None = Field(
        default=None, description="node=http://host:port,... : the agents without pod discovery"
    )
    node_name: str | None = Field(
        default=None, description="gpu-agent: this node's name (the downward API's spec.nodeName)"
    )
    signals_file: Path | None = Field(default=None, description="Signal catalog replacing tools/signals.yaml")
    runbooks_dir: Path | None = Field(default=None, description="Runbook folder replacing runbooks/")
    taxonomy_file: Path | None = Field(default=None, description="Taxonomy replacing the shipped one")
    attribution_rules_file: Path | None = Field(
        default=None, description="Attribution rule file or folder of *.yaml replacing the shipped ones"
    )
    attribution_model: str | None = Field(
        default=None,
        description="The learned attribution stage: unset for the shipped model, `off`, or an .npz path",
    )

    # Optional LLM review (any OpenAI-compatible server).
    openai_base_url: str | None = Field(
        default=None, description="e.g. http://vllm:8000/v1; unset: rules only"
    )
    openai_api_key: SecretStr | None = Field(default=None)
    openai_model: str | None = Field(default=None)
    llm_max_steps: int = Field(default=6, ge=1, le=30)
    llm_max_seconds: float = Field(default=60.0, gt=0, le=600)
    llm_max_tokens: int = Field(default=40_000, ge=1000)

    # Slack (HTTP mode: POST /slack/events, signed; Socket Mode when SLACK_APP_TOKEN is set).
    slack_bot_token: SecretStr | None = Field(default=None, description="xoxb- token; unset: no Slack")
    slack_signing_secret: SecretStr | None = Field(
        default=None, description="Verifies every request to /slack/events (HTTP mode)"
    )
    slack_app_token: SecretStr | None = Field(default=None, description="xapp- token: Socket Mode instead")
    slack_api_url: str = Field(
        default="https://slack.com/api/", description="Slack Web API base URL (the sandbox points elsewhere)"
    )
    demo_slack_user: str | None = Field(
        default=None,
        pattern=r"^[UW][A-Z0-9]{2,}$",
        description="`demo` with a real workspace: the member ID invited to the channel, who approves",
    )

    # Replaying a recorded incident: the triage's "now" (the sandbox sets it to the pack's as_of).
    triage_as_of: datetime | None = Field(default=None)

    @field_validator(
        "alertmanager_token",
        "api_token",
        "incident_bot_config",
        "prometheus_url",
        "elasticsearch_url",
        "elasticsearch_api_key",
        "logs_index",
        "logs_backend",
        "logs_fields",
        "kibana_url",
        "kubernetes_api_url",
        "kubernetes_token",
        "kubernetes_actions_token",
        "kubeconfig",
        "kubernetes_namespace",
        "gpu_agent_urls",
        "node_name",
        "signals_file",
        "runbooks_dir",
        "taxonomy_file",
        "attribution_rules_file",
        "attribution_model",
        "openai_base_url",
        "openai_api_key",
        "openai_model",
        "slack_bot_token",
        "slack_signing_secret",
        "slack_app_token",
        "demo_slack_user",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """`VAR=` in an env file means unset, not "the empty string is the token"."""
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _slack_fails_closed(self) -> Settings:
        """A bot token needs a way to trust what Slack sends: signed requests, or Socket Mode."""
        if self.slack_bot_token and not (self.slack_signing_secret or self.slack_app_token):
            raise ValueError(
                "SLACK_BOT_TOKEN is set without SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode): "
                "requests to /slack/events could not be verified, so the bot refuses to start"
            )
        if self.slack_app_token and not self.slack_bot_token:
            raise ValueError("SLACK_APP_TOKEN is set without SLACK_BOT_TOKEN: Socket Mode needs both")
        return self

    @property
    def slack(self) -> bool:
        """Whether Slack is configured (a bot token, with a signing secret or an app token)."""
        return self.slack_bot_token is not None


def load_settings() -> Settings:
    """Build Settings from the environment, turning validation errors into a ConfigError."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            (f"{'.'.join(str(p) for p in err['loc']).upper()}: " if err["loc"] else "")
            + str(err["msg"]).removeprefix("Value error, ")
            for err in exc.errors()
        )
        raise ConfigError(f"environment: {problems}") from exc
