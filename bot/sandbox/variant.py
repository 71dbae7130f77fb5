"""Which real-world configuration the sandbox's stand-ins answer as, for the same pack data.

A pack records one incident; clusters differ in what serves it. A variant replays that incident as
an Elasticsearch 8 on the Basic licence, an OpenSearch fed by Fluent Bit, or a cluster serving
HTTPRoute only as v1beta1, so the triage is measured on those too. The bot is told nothing: it finds
out the flavour, the licence and the field names itself, as it must in production.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from bot.errors import ConfigError
from bot.sandbox.elasticsearch import ELASTICSEARCH_8_BASIC, ELASTICSEARCH_9, OPENSEARCH_2, ServerProfile
from bot.sandbox.elasticsearch.shapes import flat, fluentbit

LOG_SERVERS: dict[str, ServerProfile] = {
    "elasticsearch-9": ELASTICSEARCH_9,
    "elasticsearch-8-basic": ELASTICSEARCH_8_BASIC,
    "opensearch-2": OPENSEARCH_2,
}
LOG_SHIPPERS = ("ecs", "fluentbit", "flat")
GATEWAY_APIS: dict[str, tuple[str, ...]] = {"v1": ("v1",), "v1beta1": ("v1beta1",), "both": ("v1", "v1beta1")}
EVENT_APIS = ("events.k8s.io", "core")


@dataclass(frozen=True)
class Variant:
    """`logs` server, `shipper` field layout, `gateway_api` HTTPRoute versions, `events` API."""

    logs: str = "elasticsearch-9"
    shipper: str = "ecs"
    gateway_api: str = "v1"
    events: str = "events.k8s.io"

    def __post_init__(self) -> None:
        for name, allowed in (
            ("logs", LOG_SERVERS),
            ("shipper", LOG_SHIPPERS),
            ("gateway_api", GATEWAY_APIS),
            ("events", EVENT_APIS),
        ):
            if getattr(self, name) not in allowed:
                raise ConfigError(
                    f"variant {name.replace('_', '-')}: {getattr(self, name)!r} is not one of {', '.join(allowed)}"
                )

    @classmethod
    def parse(cls, text: str | None) -> Variant:
        """`logs=opensearch-2,shipper=fluentbit,gateway-api=v1beta1`; empty is the default."""
        known = {f.name for f in fields(cls)}
        values: dict[str, str] = {}
        for entry in filter(None, (e.strip() for e in (text or "").split(","))):
            key, sep, value = entry.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or key not in known:
                keys = ", ".join(sorted(k.replace("_", "-") for k in known))
                raise ConfigError(f"variant: {entry!r} is not key=value with a key of {keys}")
            values[key] = value.strip()
        return cls(**values)

    @property
    def log_server(self) -> ServerProfile:
        return LOG_SERVERS[self.logs]

    @property
    def httproute_versions(self) -> tuple[str, ...]:
        return GATEWAY_APIS[self.gateway_api]

    @property
    def events_v1(self) -> bool:
        return self.events == "events.k8s.io"

    def shipped(self, docs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
        """The pack's ECS documents as this shipper writes them, and how the index maps strings
        (an ECS index template maps them as keywords; an index without one, as text + .keyword)."""
        if self.shipper == "ecs":
            return docs, "ecs"
        shape = fluentbit if self.shipper == "fluentbit" else flat
        return [shape(d) for d in docs], "default"

    def __str__(self) -> str:
        return f"logs={self.logs},shipper={self.shipper},gateway-api={self.gateway_api},events={self.events}"
