"""Slack Web API clients as the bot uses them: the configured base URL, 429s retried after their
`Retry-After`, and posts to one channel paced to about one a second (Slack's limit)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
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

from bot.publish import PublishError
from bot.settings import Settings

RATE_LIMIT_RETRIES = 3
PACED_CHANNELS = 64  # past this many, a pacer forgets the channels it no longer holds back
TIMEOUT_SECONDS = 15


# What a Web API call raises when Slack refuses it, or cannot be reached (urllib's URLError and
# timeouts are OSErrors) once the retry handlers have given up.
SLACK_FAULTS = (SlackApiError, OSError)


# Refusals only a person can lift; the job keeps retrying, so the post follows once they have.
REMEDIES = {
    "is_archived": "someone archived the channel in Slack: unarchive it and the post follows",
    "is_inactive": "someone archived the channel in Slack: unarchive it and the post follows",
    "channel_not_found": "the channel is gone or the bot was removed from it",
    "not_in_channel": "the bot was removed from the channel: invite it back",
    "token_revoked": "the bot's token was revoked: reinstall the app and set SLACK_BOT_TOKEN",
    "invalid_auth": "SLACK_BOT_TOKEN is not a valid token",
    "account_inactive": "the app was uninstalled: reinstall it and set SLACK_BOT_TOKEN",
}


def failed(exc: Exception, call: str) -> PublishError:
    """A call that did not get through, said as `call: error` (the timeline and the job's last
    error show it), with what a person can do about it when only a person can."""
    if isinstance(exc, SlackApiError):
        error = exc.response.get("error") if exc.response is not None else None
        remedy = REMEDIES.get(str(error))
        return PublishError(f"{call}: {error or exc}" + (f" ({remedy})" if remedy else ""))
    return PublishError(f"{call}: Slack unreachable ({exc})")


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
    """Posts to one channel at about one a second, with a short burst allowed (Slack's own rule for
    chat.postMessage), across this process's threads.

    A virtual-time bucket: each channel has the time its next post is due at the sustained rate;
    a post may go up to `burst - 1` intervals ahead of it. The announcement, the progress message
    and the triage post of a quick triage go out at once; a run of edits is held to one a second.
    """

    def __init__(
        self, interval: float = 1.0, *, burst: int = 3, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._interval = interval
        self._ahead = max(0, burst - 1) * interval
        self._clock = clock
        self._due: dict[str, float] = {}
        self._lock = threading.Lock()

    def _reserve(self, channel: str, now: float, *, wait: bool) -> float | None:
        if len(self._due) > PACED_CHANNELS:
            self._forget_idle(now)
        due = self._due.get(channel, now)
        at = max(now, due - self._ahead)
        if at > now and not wait:
            return None
        self._due[channel] = max(due, at) + self._interval
        return at

    def _forget_idle(self, now: float) -> None:
        """Drop the channels whose next slot is free by now: such an entry paces exactly as no entry
        does, and the bot opens a channel per incident, so keeping them would keep one per incident."""
        self._due = {channel: due for channel, due in self._due.items() if due > now}

    def wait(self, channel: str) -> None:
        """Returns when a post to `channel` may go (its slot is taken)."""
        with self._lock:
            now = self._clock()
            at = self._reserve(channel, now, wait=True)
        assert at is not None
        if at > now:
            time.sleep(at - now)

    def try_take(self, channel: str) -> bool:
        """A post to `channel` now, if one may go; False (and nothing taken) when it is too soon.
        For edits that the next one supersedes anyway, so waiting would only slow the caller."""
        with self._lock:
            return self._reserve(channel, self._clock(), wait=False) is not None
