"""The YAML configuration: services and their SLOs, responders, approvers, dashboards, backends.

Validated at start-up; an invalid file stops the process with an error naming the file, the line
and the field, so that a typo never reaches 3 a.m.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Annotated
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.datafile import read_yaml
from bot.domain import Severity
from bot.errors import ConfigError
from tools.yamlpos import compose, describe

SLACK_PRINCIPAL = re.compile(r"^(?:[UW][A-Z0-9]{2,}|S[A-Z0-9]{2,}|[^@\s]+@[^@\s]+\.[^@\s]+)$")
DURATION = re.compile(r"^\d+[smhdw]$")
CHANNEL_FIELDS = frozenset({"date", "service", "id", "alertname", "severity"})
RUNBOOK_FIELDS = frozenset({"id", "file"})
DASHBOARD_FIELDS = frozenset(
    {"service", "model", "namespace", "alertname", "incident_id", "from_ms", "to_ms", "from_iso", "to_iso"}
)

Principal = Annotated[str, Field(pattern=SLACK_PRINCIPAL.pattern)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _placeholders(template: str, known: frozenset[str]) -> str:
    """Refuse a template naming a field it will never be given (caught at load, not at 3 a.m.)."""
    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None and name not in known:
            raise ValueError(f"unknown placeholder {{{name}}}; known: {', '.join(sorted(known))}")
    return template


def _authority_end(url: str) -> int:
    """Where the scheme and host of an absolute URL end (its path, query or fragment start)."""
    start = url.index("://") + 3
    ends = [i for i in (url.find(c, start) for c in "/?#") if i >= 0]
    return min(ends, default=len(url))


def url_value(value: str) -> str:
    """A label value as it may sit in a URL: every reserved character percent-encoded, so it cannot
    end the path, start a query or a fragment; a value of dots only (a `..` segment) becomes empty."""
    return "" if value.strip(".") == "" else quote(value, safe="")


class Dashboard(_Strict):
    """A dashboard link whose URL is a template scoped to the incident window."""

    title: str = Field(min_length=1, max_length=100)
    url: str

    @field_validator("url")
    @classmethod
    def _known_placeholders(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        if "{" in url[: _authority_end(url)]:
            raise ValueError("placeholders may not stand in the scheme or the host, only after them")
        return _placeholders(url, DASHBOARD_FIELDS)

    def render(self, **values: str) -> str:
        """Fill the template with every value percent-encoded where it is placed: alert labels
        choose what the link shows, never where it leads (the scheme and host stay the template's)."""
        url = self.url.format(**{name: url_value(value) for name, value in values.items()})
        if urlsplit(url)[:2] != urlsplit(self.url[: _authority_end(self.url)])[:2]:
            raise ValueError(f"dashboard {self.title!r}: the filled URL leaves the template's host")
        return url


class Slo(_Strict):
    """One service level objective of a service."""

    name: str = Field(min_length=1)
    objective: float = Field(gt=0, lt=1, description="target ratio of good events, e.g. 0.999")
    window: str = Field(default="30d", pattern=DURATION.pattern)
    description: str = ""


class Service(_Strict):
    """A served model endpoint the bot knows about."""

    name: str = Field(min_length=1)
    namespace: str | None = None
    model: str | None = None
    team: str | None = None
    slos: list[Slo] = Field(default_factory=list)
    responders: list[Principal] = Field(default_factory=list)
    approvers: list[Principal] = Field(
        default_factory=list, description="who may approve actions on this service, besides the global ones"
    )
    dashboards: list[Dashboard] = Field(default_factory=list)


class Actions(_Strict):
    """The bounds of the reversible actions (who may approve them is `approvers`)."""

    enabled: bool = Field(default=True, description="offer the catalog's actions as approval buttons")
    expire_minutes: float = Field(
        default=30, gt=0, le=24 * 60, description="a proposal can be approved this long"
    )
    verify_seconds: float = Field(
        default=180, gt=0, le=1800, description="how long verify waits for the effect"
    )
    min_ready_replicas: int = Field(
        default=1, ge=0, description="a pod restart is refused if fewer other Ready replicas would remain"
    )


class Backends(_Strict):
    """Where the read-only evidence backends live (credentials come from the environment)."""

    prometheus_url: str | None = None
    alertmanager_url: str | None = None
    elasticsearch_url: str | None = None
    logs_index: str = "logs-*"
    kubernetes_context: str | None = None
    timeout_seconds: float = Field(default=5.0, gt=0, le=120)


class SlackConfig(_Strict):
    """How incidents appear in Slack (the tokens come from the environment)."""

    channel_name: str = Field(
        default="inc-{date}-{service}-{id}",
        description="template of the incident channel's name; Slack's rules are applied to the result",
    )
    private: bool = Field(default=False, description="create private channels (needs groups:write)")
    announcements_channel: str | None = Field(
        default=None, pattern=r"^[CG][A-Z0-9]{2,}$", description="channel ID that gets a one-line notice"
    )
    archive_after_minutes: float | None = Field(
        default=None,
        ge=0,
        le=60 * 24 * 90,
        description="archive the incident's channel this long after it is resolved; unset: never",
    )

    @field_validator("channel_name")
    @classmethod
    def _known_fields(cls, template: str) -> str:
        return _placeholders(template, CHANNEL_FIELDS)


DEFAULT_SEVERITY_MAP: dict[str, Severity] = {
    "page": Severity.CRITICAL,
    "critical": Severity.CRITICAL,
    "p1": Severity.CRITICAL,
    "error": Severity.MAJOR,
    "high": Severity.MAJOR,
    "major": Severity.MAJOR,
    "p2": Severity.MAJOR,
    "warning": Severity.MINOR,
    "ticket": Severity.MINOR,
    "minor": Severity.MINOR,
    "p3": Severity.MINOR,
    "info": Severity.INFO,
    "none": Severity.INFO,
}


class BotConfig(_Strict):
    """The whole configuration file."""

    services: list[Service] = Field(default_factory=list)
    namespaces: list[str] = Field(default_factory=list)
    responders: list[Principal] = Field(default_factory=list)
    approvers: list[Principal] = Field(default_factory=list)
    dashboards: list[Dashboard] = Field(default_factory=list)
    backends: Backends = Field(default_factory=Backends)
    actions: Actions = Field(default_factory=Actions)
    severity_map: dict[str, Severity] = Field(default_factory=dict)
    default_severity: Severity = Severity.MAJOR
    slack: SlackConfig = Field(default_factory=SlackConfig)
    runbook_url: str | None = Field(
        default=None,
        description="where responders read a runbook, e.g. https://git.example/ops/bot/blob/main/runbooks/{file}",
    )
    value_annotations: list[str] = Field(
        default_factory=lambda: ["value", "current_value", "violating_value", "observed_value"]
    )

    @field_validator("runbook_url")
    @classmethod
    def _runbook_url(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return _placeholders(url, RUNBOOK_FIELDS) if url else url

    @field_validator("services")
    @classmethod
    def _unique_services(cls, services: list[Service]) -> list[Service]:
        seen: set[str] = set()
        for svc in services:
            if svc.name in seen:
                raise ValueError(f"service {svc.name!r} is declared twice")
            seen.add(svc.name)
        return services

    def severity_for(self, label: str | None) -> Severity:
        """Map an alert's `severity` label to the incident severity."""
        if not label:
            return self.default_severity
        key = label.strip().lower()
        return self.severity_map.get(key) or DEFAULT_SEVERITY_MAP.get(key) or self.default_severity

    def service(self, name: str | None) -> Service | None:
        """The configured service of that name, if any."""
        return next((s for s in self.services if s.name == name), None) if name else None


def load_config(path: Path | None) -> BotConfig:
    """Read and validate the YAML file; no path means the embedded defaults."""
    if path is None:
        return BotConfig()
    text, data = read_yaml(path, "configuration", empty_ok=True)
    try:
        return BotConfig.model_validate(data)
    except ValidationError as exc:
        lines = describe(exc, str(path), compose(text))
        raise ConfigError("invalid configuration\n  " + "\n  ".join(lines)) from exc
