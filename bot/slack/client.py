"""Slack Web API clients as the bot uses them: the configured base URL, 429s retried after their
`Retry-After`, and posts to one channel paced to about one a second (Slack's limit)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bot.settings import Settings

RATE_LIMIT_RETRIES = 3
TIMEOUT_SECONDS = 15


def _token(settings: Settings) -> str:
    assert settings.slack_bot_token is not None, "Slack is not configured"
    return settings.slack_bot_token.get_secret_value()


def web_client(settings: Settings) -> WebClient:
    """The worker's client (its jobs run in threads)."""
    handlers: list[RetryHandler] = [
        ConnectionErrorRetryHandler(),
        RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
        ServerErrorRetryHandler(max_retry_count=1),
    ]
    return WebClient(
        token=_token(settings),
        base_url=settings.slack_api_url,
        timeout=TIMEOUT_SECONDS,
        retry_handlers=handlers,
    )


def async_web_client(settings: Settings) -> AsyncWebClient:
    """The listeners' client (they run on the server's event loop)."""
    handlers: list[AsyncRetryHandler] = [
        AsyncConnectionErrorRetryHandler(),
        AsyncRateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
    ]
    return AsyncWebClient(
        token=_token(settings),
        base_url=settings.slack_api_url,
        timeout=TIMEOUT_SECONDS,
        retry_handlers=handlers,
    )


class ChannelPacer:
    """Spaces the posts to one channel at least `interval` seconds apart, across this process's threads."""

    def __init__(self, interval: float = 1.0, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, channel: str) -> None:
        with self._lock:
            now = self._clock()
            at = max(now, self._next.get(channel, now))
            self._next[channel] = at + self._interval
        if at > now:
            time.sleep(at - now)
