"""A bot with Slack against the sandbox: a pack's backends, the Slack stand-in, the server on loopback.

Requests to `/slack/events` are signed as Slack signs them (v0 HMAC over the timestamp and the raw
body); the stand-in hands out the `response_url` and `trigger_id` they carry.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from slack_sdk.signature import SignatureVerifier

from bot.config import BotConfig, Dashboard, Service, SlackConfig
from bot.deps import Deps, build_deps
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.replay import replay_settings
from bot.sandbox.slack import SlackStandIn
from bot.sandbox.slack.state import Channel
from bot.sandbox.up import SLACK_SIGNING_SECRET, Sandbox
from bot.server import build_app
from tests.conftest import ROOT, am_headers, api_headers, make_settings
from tests.support.live import serve_in_thread

SURGE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"
SERVICE = "vllm-llama31-8b-support"


@pytest.fixture(scope="module")
def pack() -> Pack:
    return load_pack(SURGE)


@pytest.fixture(scope="module")
def sandbox(pack: Pack) -> Iterator[Sandbox]:
    with Sandbox(pack) as running:
        yield running


def slack_config(notices: str | None) -> BotConfig:
    return BotConfig(
        services=[
            Service(
                name=SERVICE,
                responders=["U0ANA", "bob@example.com", "S0ONCALL", "U0NOBODY", "nobody@example.com"],
                dashboards=[
                    Dashboard(
                        title="vLLM engine",
                        url="https://grafana.example/d/vllm?var-ns={namespace}&from={from_ms}",
                    )
                ],
            )
        ],
        slack=SlackConfig(announcements_channel=notices),
        runbook_url="https://git.example/ops/incident-bot/blob/main/runbooks/{file}",
    )


@dataclass
class SlackBot:
    """The running bot, its Slack stand-in, and how to talk to both."""

    url: str
    deps: Deps
    slack: SlackStandIn
    slack_url: str  # the stand-in's base, for response URLs

    def alert(self, body: bytes) -> int:
        answer = httpx.post(
            f"{self.url}/webhooks/alertmanager", content=body, headers=am_headers(), timeout=10
        )
        assert answer.status_code == 200, answer.text
        return int(answer.json()["incident_id"])

    def wait_for(self, incident_id: int, kind: str, timeout: float = 60) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            detail = httpx.get(
                f"{self.url}/api/incidents/{incident_id}", headers=api_headers(), timeout=10
            ).json()
            if any(e["kind"] == kind for e in detail["timeline"]):
                return list(detail["timeline"])
            assert time.monotonic() < deadline, (
                f"no {kind} on the timeline: {[e['kind'] for e in detail['timeline']]}"
            )
            time.sleep(0.05)

    def signed(
        self, body: bytes, *, content_type: str, at: int | None = None, secret: str = SLACK_SIGNING_SECRET
    ) -> httpx.Response:
        stamp = str(at if at is not None else int(time.time()))
        signature = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body.decode())
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": signature,
        }
        return httpx.post(f"{self.url}/slack/events", content=body, headers=headers, timeout=10)

    def command(self, text: str, *, channel: str, user: str = "U0ANA") -> tuple[httpx.Response, str]:
        """`/incident text` as Slack posts it; returns the HTTP answer and the response URL."""
        payload = self.slack.slash_command(
            self.slack_url, "/incident", text=text, user_id=user, channel_id=channel
        )
        answer = self.signed(urlencode(payload).encode(), content_type="application/x-www-form-urlencoded")
        return answer, payload["response_url"]

    def interaction(self, payload: dict[str, Any]) -> httpx.Response:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.signed(body, content_type="application/x-www-form-urlencoded")

    def channel(self, incident_id: int) -> Channel:
        """The incident's channel in the stand-in's workspace, as the bot recorded it."""
        stored = self.deps.services.chat.channel(incident_id)
        assert stored is not None and stored.channel_id is not None, f"incident {incident_id} has no channel"
        return self.slack.channel(stored.channel_id)

    def click(self, channel_id: str, message_ts: str, action: dict[str, Any], *, user: str = "U0ANA") -> str:
        """A button on a message clicked, posted as Slack's block_actions payload; returns its
        response URL (the trigger id it carries opens a modal)."""
        url = self.slack.response_url(self.slack_url, channel_id, user, message_ts=message_ts)
        payload = {
            "type": "block_actions",
            "user": {"id": user, "team_id": "T0SANDBOX"},
            "team": {"id": "T0SANDBOX"},
            "api_app_id": "A0SANDBOX",
            "trigger_id": self.slack.trigger_id(),
            "response_url": url,
            "container": {"type": "message", "message_ts": message_ts, "channel_id": channel_id},
            "channel": {"id": channel_id},
            "message": {"ts": message_ts},
            "actions": [{"type": "button", **action}],
        }
        answer = self.interaction(payload)
        assert answer.status_code == 200, answer.text
        return url

    def replies(self, response_url: str, timeout: float = 10) -> list[str]:
        """The texts the bot posted to a response URL (it answers after its ack)."""
        deadline = time.monotonic() + timeout
        while not (posts := self.slack.responses(response_url)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return [str(p.text) for p in posts]


def eventually(check: Callable[[], bool], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


@contextmanager
def running_bot(
    sandbox: Sandbox, database_url: str, *, config: BotConfig | None = None, **overrides: object
) -> Iterator[SlackBot]:
    """The bot with Slack, one worker thread (so the announcement runs before the triage);
    `config` replaces the test configuration, `overrides` change its settings (another Slack URL,
    Socket Mode)."""
    assert sandbox.slack is not None
    notices = sandbox.slack.add_channel(f"incidents-{time.monotonic_ns()}", members=["UBOT", "U0ANA"])
    own = make_settings(database_url, worker_threads=1).model_dump(
        include={"alertmanager_token", "api_token", "worker_threads", "worker_poll_seconds"}
    )
    settings = replay_settings(sandbox, database_url, slack=True, **(own | overrides))
    config = (
        config.model_copy(
            update={"slack": config.slack.model_copy(update={"announcements_channel": notices.id})}
        )
        if config
        else None
    )
    deps = build_deps(settings, config=config or slack_config(notices.id))
    deps.db.upgrade()
    try:
        with serve_in_thread(build_app(deps)) as url:
            yield SlackBot(
                url=url, deps=deps, slack=sandbox.slack, slack_url=sandbox.urls["slack"].removesuffix("/api/")
            )
    finally:
        deps.close()


@pytest.fixture
def slack_bot(sandbox: Sandbox, database_url: str) -> Iterator[SlackBot]:
    with running_bot(sandbox, database_url) as bot:
        yield bot
