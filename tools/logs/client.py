"""One log cluster behind one interface: Elasticsearch 8 or 9, or OpenSearch 2, each through its official client.

The `elasticsearch` 8.x client speaks to Elasticsearch 8 and 9 (it sends `compatible-with=8`, which a
9.x cluster accepts; the 9.x client's `compatible-with=9` is refused by every 8.x cluster). It refuses
any answer without `X-Elastic-Product: Elasticsearch`, which OpenSearch never sends, so OpenSearch is
reached through `opensearch-py`. Which one a URL is comes from the root answer (`version.distribution`
is "opensearch" there) unless the setting names it; the client is built on first use, so building
the tools never touches the network and a cluster that is down only becomes a gap when asked.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from elasticsearch import Elasticsearch, UnsupportedProductError
from opensearchpy import OpenSearch

from tools.result import DEFAULT_TIMEOUT

BACKENDS = ("auto", "elasticsearch", "opensearch")


class Flavour(StrEnum):
    ELASTICSEARCH = "elasticsearch"
    OPENSEARCH = "opensearch"


@dataclass(frozen=True)
class ServerInfo:
    """What the root answer says: the flavour and its version number."""

    flavour: Flavour
    version: str


def elasticsearch_client(url: str, *, timeout: float, api_key: str | None) -> Elasticsearch:
    """An official client that gives up at the tool's deadline and does not retry into a slow cluster."""
    return Elasticsearch(url, api_key=api_key, request_timeout=timeout, max_retries=0, retry_on_timeout=False)


def opensearch_client(url: str, *, timeout: float, api_key: str | None) -> OpenSearch:
    """OpenSearch's own client (credentials in the URL, `https://user:password@host:9200`, as it takes them)."""
    headers = {"authorization": f"ApiKey {api_key}"} if api_key else None
    return OpenSearch([url], timeout=timeout, max_retries=0, retry_on_timeout=False, headers=headers)


class LogClient:
    """A log cluster at one URL: the right official client for its flavour, detected once."""

    def __init__(
        self, url: str, *, timeout: float = DEFAULT_TIMEOUT, api_key: str | None = None, backend: str = "auto"
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"logs backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        self.url = url
        self._timeout = timeout
        self._api_key = api_key
        self._backend = backend
        self._lock = threading.Lock()
        self._es: Elasticsearch | None = None
        self._os: OpenSearch | None = None
        self._server: ServerInfo | None = None

    def server(self) -> ServerInfo:
        """The flavour and version, from the root answer (asked once; raises when it cannot be had)."""
        with self._lock:
            if self._server is None:
                self._server = self._detect()
            return self._server

    def _detect(self) -> ServerInfo:
        if self._backend == "opensearch":
            return _info(self._opensearch().info(), Flavour.OPENSEARCH)
        try:
            body = dict(self._elasticsearch().info().body)
        except UnsupportedProductError as exc:  # answered, but not as Elasticsearch: OpenSearch?
            if self._backend == "elasticsearch" or not _is_opensearch(exc.body):
                raise
            return _info(exc.body, Flavour.OPENSEARCH)
        return _info(body, Flavour.ELASTICSEARCH)

    def _elasticsearch(self) -> Elasticsearch:
        if self._es is None:
            self._es = elasticsearch_client(self.url, timeout=self._timeout, api_key=self._api_key)
        return self._es

    def _opensearch(self) -> OpenSearch:
        if self._os is None:
            self._os = opensearch_client(self.url, timeout=self._timeout, api_key=self._api_key)
        return self._os

    @property
    def flavour(self) -> Flavour:
        return self.server().flavour

    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        """One `_search` with `body` (query, aggs, size, sort...), answered as a plain dict."""
        if self.flavour is Flavour.OPENSEARCH:
            return dict(self._opensearch().search(index=index, body=body))
        return dict(self._elasticsearch().search(index=index, **body).body)

    def field_caps(self, index: str, fields: list[str]) -> dict[str, Any]:
        """`_field_caps` for `fields` (the `read` privilege allows it, unlike `_mapping`)."""
        if self.flavour is Flavour.OPENSEARCH:
            return dict(self._opensearch().field_caps(index=index, params={"fields": ",".join(fields)}))
        return dict(self._elasticsearch().field_caps(index=index, fields=fields).body)

    def licence(self) -> str | None:
        """The licence type (basic, gold, platinum, enterprise, trial); None on OpenSearch, which has none."""
        if self.flavour is Flavour.OPENSEARCH:
            return None
        answer = dict(self._elasticsearch().license.get().body)
        return str((answer.get("license") or {}).get("type") or "") or None

    def count(self, index: str) -> int:
        if self.flavour is Flavour.OPENSEARCH:
            return int(self._opensearch().count(index=index)["count"])
        return int(self._elasticsearch().count(index=index)["count"])

    def close(self) -> None:
        for client in (self._es, self._os):
            if client is not None:
                client.close()


def _is_opensearch(body: Any) -> bool:
    version = body.get("version") if isinstance(body, dict) else None
    return isinstance(version, dict) and version.get("distribution") == "opensearch"


def _info(body: Any, flavour: Flavour) -> ServerInfo:
    version = (body.get("version") or {}) if isinstance(body, dict) else {}
    return ServerInfo(flavour=flavour, version=str(version.get("number") or "unknown"))
