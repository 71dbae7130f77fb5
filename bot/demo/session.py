"""One demo run: a bundled scenario's sandbox, the bot serving on loopback against it, and the demo
user's signed clicks.

Nothing here triages, posts or acts by itself: the alert goes to the bot's own webhook over HTTP,
the bot's worker does what it does in production, and a click is the `block_actions` request Slack
would send, signed with the signing secret, to `/slack/events`. The demo only watches and clicks.
"""

from __future__ import annotations

import json
import secrets
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx
from slack_sdk.signature import SignatureVerifier

from bot.config import Actions, BotConfig, SlackConfig
from bot.deps import Deps, build_deps
from bot.domain import ActionProposal, StoredTriage, TimelineEvent
from bot.errors import BotError
from bot.sandbox.pack import Pack
from bot.sandbox.replay import replay_settings
from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackUser
from bot.sandbox.slack.state import APP_ID, TEAM_ID
from bot.sandbox.up import Sandbox
from bot.server import build_app
from bot.settings import Settings

# The person trying the demo: a member of the sandbox workspace, a responder and the approver.
DEMO_USER = SlackUser(id="U0DEMO", name="you", real_name="You (demo)", email="you@example.com")
ANNOUNCEMENTS = "incidents"
POLL = 0.1
T = TypeVar("T")


class DemoError(BotError):
    """The demo could not go on (the bot stored no triage, an action never finished); says why."""


@dataclass(frozen=True)
class Workspace:
    """Where the bot posts: the sandbox's Slack stand-in, or a real workspace from the environment."""

    real: bool
    user_id: str  # who the demo's clicks come from (and who is invited and may approve)
    signing_secret: str


def demo_config(user: str, *, announcements: str | None) -> BotConfig:
    """The embedded configuration: the demo user responds and approves; verification is short."""
    return BotConfig(
        responders=[user, "S0ONCALL"] if user == DEMO_USER.id else [user],
        approvers=[user],
        actions=Actions(verify_seconds=30),
        slack=SlackConfig(announcements_channel=announcements),
    )


class DemoSession:
    """`with DemoSession(pack, environment) as demo:` runs the sandbox and the bot until the block ends.

    `environment` is what the process was started with: an LLM (`OPENAI_*`) is used when it names
    one, and a real workspace (`SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET`) replaces the stand-in.
    """

    def __init__(self, pack: Pack, environment: Settings) -> None:
        self.pack = pack
        self.environment = environment
        self._stack = ExitStack()
        self.sandbox: Sandbox
        self.deps: Deps
        self.url = ""
        self.workspace: Workspace
        self._client = httpx.Client(timeout=15)
        self._answers_channel: str | None = None
        self._token = secrets.token_urlsafe(16)

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> DemoSession:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        self.sandbox = self._stack.enter_context(Sandbox(self.pack))
        slack = self.sandbox.slack
        assert slack is not None  # the sandbox always serves Slack
        slack.add_user(DEMO_USER)
        env = self.environment
        real = env.slack_bot_token is not None and env.slack_signing_secret is not None
        overrides: dict[str, Any] = {
            "worker_threads": 2,
            "worker_poll_seconds": 0.2,
            "alertmanager_token": self._token,
            "log_level": env.log_level,
        }
        if env.openai_base_url:
            overrides.update(
                openai_base_url=env.openai_base_url,
                openai_api_key=env.openai_api_key,
                openai_model=env.openai_model,
            )
        announcements: str | None = None
        if real:
            overrides.update(
                slack_bot_token=env.slack_bot_token,
                slack_signing_secret=env.slack_signing_secret,
                slack_api_url=env.slack_api_url,
            )  # HTTP mode (no app token): the demo's clicks are signed requests to /slack/events
            secret = env.slack_signing_secret.get_secret_value() if env.slack_signing_secret else ""
            if not env.demo_slack_user:
                raise DemoError(
                    "a real workspace needs DEMO_SLACK_USER, your member ID: it is invited and approves"
                )
            user = env.demo_slack_user
            # Slack's own response URLs cannot be made here: a click's answer (a refusal, said to
            # the clicker alone) goes to one the stand-in issues, for a channel of its own.
            slack.add_user(SlackUser(id=user, name=user))
            self._answers_channel = slack.add_channel("demo-clicks", members=[slack.bot_user_id, user]).id
        else:
            secret = self.sandbox.env["SLACK_SIGNING_SECRET"]
            user = DEMO_USER.id
            announcements = slack.add_channel(ANNOUNCEMENTS, members=[slack.bot_user_id, user]).id
        folder = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="incident-bot-demo-")))
        settings = replay_settings(self.sandbox, f"sqlite:///{folder / 'demo.db'}", slack=True, **overrides)
        config = demo_config(user, announcements=announcements)
        self.workspace = Workspace(real=real, user_id=user, signing_secret=secret)
        self.deps = build_deps(settings, config=config)
        self._stack.callback(self.deps.close)
        self.deps.db.upgrade()
        self.url = self._stack.enter_context(ServerThread(build_app(self.deps), name="demo-bot")).url

    def stop(self) -> None:
        self._client.close()
        self._stack.close()

    def __enter__(self) -> DemoSession:
        return self.start()

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()

    # -- what the demo does ------------------------------------------------------------------

    @property
    def slack_base(self) -> str:
        """The stand-in's base URL (response URLs live there, in both modes)."""
        return self.sandbox.urls["slack"].removesuffix("/api/")

    def post_alert(self) -> int:
        """The scenario's notification, posted to the bot's webhook as Alertmanager posts it."""
        answer = self._client.post(
            f"{self.url}/webhooks/alertmanager",
            content=self.pack.alert_body,
            headers={"Authorization": f"Bearer {self._token}", "Content-Type": "application/json"},
        )
        if answer.status_code != 200:
            raise DemoError(f"the webhook answered {answer.status_code}: {answer.text}")
        return int(answer.json()["incident_id"])

    def timeline(self, incident_id: int) -> list[TimelineEvent]:
        return self.deps.services.incidents.get(incident_id).timeline

    def triage(self, incident_id: int) -> StoredTriage | None:
        return self.deps.services.incidents.triage(incident_id)

    def proposals(self, incident_id: int) -> list[ActionProposal]:
        return self.deps.services.actions.list(incident_id)

    def proposal(self, proposal_id: int) -> ActionProposal:
        return self.deps.services.actions.get(proposal_id)

    def click(self, channel_id: str, message_ts: str, action: dict[str, Any]) -> str:
        """A button clicked by the demo user, posted as Slack posts `block_actions` (signed).

        Returns the response URL the click carries: a refusal is answered there, on the stand-in.
        """
        slack = self.sandbox.slack
        assert slack is not None
        user = self.workspace.user_id
        answers = self._answers_channel or channel_id
        response_url = slack.response_url(self.slack_base, answers, user, message_ts=message_ts)
        payload = {
            "type": "block_actions",
            "user": {"id": user, "team_id": TEAM_ID},
            "team": {"id": TEAM_ID},
            "api_app_id": APP_ID,
            "trigger_id": slack.trigger_id(),
            "response_url": response_url,
            "container": {"type": "message", "message_ts": message_ts, "channel_id": channel_id},
            "channel": {"id": channel_id},
            "message": {"ts": message_ts},
            "actions": [{"type": "button", "action_ts": f"{time.time():.6f}", **action}],
        }
        self._signed(urlencode({"payload": json.dumps(payload)}))
        return response_url

    def command(self, channel_id: str, text: str) -> str:
        """`/incident text` typed by the demo user in a channel, posted as Slack posts it (signed).

        Returns the response URL the command carries: the bot's ephemeral answer goes there.
        """
        slack = self.sandbox.slack
        assert slack is not None
        payload = slack.slash_command(
            self.slack_base, "/incident", text=text, user_id=self.workspace.user_id, channel_id=channel_id
        )
        self._signed(urlencode(payload))
        return payload["response_url"]

    def _signed(self, body: str) -> None:
        """POST a form body to /slack/events with the v0 signature Slack puts on every request."""
        stamp = str(int(time.time()))
        signature = SignatureVerifier(self.workspace.signing_secret).generate_signature(
            timestamp=stamp, body=body
        )
        assert signature is not None  # None only without a timestamp
        answer = self._client.post(
            f"{self.url}/slack/events",
            content=body.encode(),
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "X-Slack-Request-Timestamp": stamp,
                "X-Slack-Signature": signature,
            },
        )
        if answer.status_code != 200:
            raise DemoError(f"/slack/events answered {answer.status_code}: {answer.text}")


def wait(check: Callable[[], T | None], timeout: float, what: str) -> T:
    """Poll `check` until it returns something; DemoError naming `what` past `timeout`."""
    deadline = time.monotonic() + timeout
    while (found := check()) is None:
        if time.monotonic() > deadline:
            raise DemoError(f"{what} after {timeout:g} s")
        time.sleep(POLL)
    return found
