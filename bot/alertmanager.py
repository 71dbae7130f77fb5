"""The Alertmanager webhook payload (version 4) and what the bot derives from it.

Field names follow Alertmanager's `notify/webhook` template data. Unknown fields are ignored for
forward compatibility; missing or mistyped required fields are a PayloadError (HTTP 400).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot import jsontext
from bot.domain import AlertStatus
from bot.errors import PayloadError, validation_reasons

# Alertmanager writes Go's zero time for alerts that have not ended.
GO_ZERO_YEAR = 1
MAX_BODY_BYTES = 5 * 1024 * 1024
# The name given to an alert sent without `alertname` (alerts POSTed to Alertmanager's API by other
# tools need not have one). Refusing it would lose the whole group: Alertmanager does not retry a 4xx.
UNNAMED_ALERT = "UnnamedAlert"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class WebhookAlert(_Model):
    """One alert of the notification."""

    status: AlertStatus
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    startsAt: datetime
    endsAt: datetime | None = None
    generatorURL: str = ""
    fingerprint: str = Field(min_length=1, max_length=64)

    @field_validator("startsAt", "endsAt")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamp must carry a time zone (RFC 3339)")
        try:
            return value.astimezone(UTC)
        except OverflowError:  # year 1 east of UTC, or year 9999 west of it
            if value.year <= GO_ZERO_YEAR:  # Go's zero time, however zoned: not ended
                return datetime.min.replace(tzinfo=UTC)
            raise ValueError("timestamp is out of range once converted to UTC") from None

    @property
    def ended_at(self) -> datetime | None:
        """`endsAt`, or None for Go's zero time."""
        if self.endsAt is None or self.endsAt.year <= GO_ZERO_YEAR:
            return None
        return self.endsAt

    @property
    def alertname(self) -> str:
        """The alert's name, or the placeholder when it came without one (see `unnamed`)."""
        return self.labels.get("alertname") or UNNAMED_ALERT

    @property
    def unnamed(self) -> bool:
        return not self.labels.get("alertname")

    @property
    def query(self) -> str | None:
        """The PromQL expression of the alerting rule, from the generator URL's `g0.expr`."""
        return promql_from_generator_url(self.generatorURL)

    def value(self, annotation_keys: list[str]) -> str | None:
        """The violating value, from the first annotation among `annotation_keys` that is set."""
        for key in annotation_keys:
            found = self.annotations.get(key)
            if found:
                return found.strip()[:200]
        return None


class WebhookPayload(_Model):
    """The whole notification of one alert group."""

    version: Literal["4"]
    groupKey: str = Field(min_length=1)
    truncatedAlerts: int = Field(default=0, ge=0)
    status: AlertStatus
    receiver: str = ""
    groupLabels: dict[str, str] = Field(default_factory=dict)
    commonLabels: dict[str, str] = Field(default_factory=dict)
    commonAnnotations: dict[str, str] = Field(default_factory=dict)
    externalURL: str = ""
    alerts: list[WebhookAlert] = Field(min_length=1)

    @property
    def group_hash(self) -> str:
        """A fixed-size key for the group (groupKey can be long); receiver-scoped like Alertmanager."""
        return hashlib.sha256(f"{self.receiver}\x00{self.groupKey}".encode()).hexdigest()

    def label(self, *names: str) -> str | None:
        """First of `names` found in the common labels, else in the first alert's labels."""
        for source in (self.commonLabels, self.alerts[0].labels):
            for name in names:
                if source.get(name):
                    return source[name]
        return None


# Where an alert names its service: the plain label, then what SLO generators write (Sloth, and
# OpenSLO specs converted through Sloth, label their alerts `sloth_service`).
SERVICE_LABELS = ("service", "sloth_service")
# Where it names its model: vLLM's and TGI's `model_name`, the plain label, and an OpenAI-style name.
MODEL_LABELS = ("model", "model_name", "served_model_name")


def parse_payload(body: bytes) -> WebhookPayload:
    """Decode and validate a webhook body, with a reason a human can act on."""
    if len(body) > MAX_BODY_BYTES:
        raise PayloadError(f"body is {len(body)} bytes; the limit is {MAX_BODY_BYTES}")
    try:
        data = jsontext.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise PayloadError(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise PayloadError("body must be a JSON object (an Alertmanager webhook payload)")
    try:
        return WebhookPayload.model_validate(data)
    except ValidationError as exc:
        reasons = "; ".join(validation_reasons(exc, limit=10))
        raise PayloadError(f"not an Alertmanager v4 payload: {reasons}") from exc


def promql_from_generator_url(url: str) -> str | None:
    """Extract `g0.expr` from a Prometheus graph link (None when absent or unparsable)."""
    if not url:
        return None
    try:
        query = parse_qs(urlsplit(url).query)
    except ValueError:
        return None
    exprs = query.get("g0.expr")
    return exprs[0] if exprs else None
