"""doctor's Slack and LLM checks, through slack_sdk and openai against the stand-ins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.config import BotConfig, SlackConfig
from bot.doctor.llm import check_llm
from bot.doctor.report import Verdict
from bot.doctor.slack import check_slack
from bot.sandbox.openai import OpenAIStandIn
from bot.sandbox.server import ServerThread
from bot.sandbox.slack.standin import ALL_SCOPES, SlackStandIn
from bot.settings import Settings


def slack_settings(url: str, token: str = "xoxb-sandbox") -> Settings:
    return Settings(slack_bot_token=token, slack_signing_secret="s", slack_api_url=f"{url}/api/")


@pytest.fixture
def slack() -> Iterator[tuple[SlackStandIn, str]]:
    standin = SlackStandIn()
    with ServerThread(standin.app) as server:
        yield standin, server.url


def test_socket_mode_checks_the_app_token(slack: tuple[SlackStandIn, str]) -> None:
    _, url = slack
    good = slack_settings(url).model_copy(update={"slack_app_token": SecretStr("xapp-sandbox")})
    report = check_slack(good, BotConfig(), timeout=5)
    assert report.verdict is Verdict.OK and any("Socket Mode" in f.text for f in report.findings)
    wrong = good.model_copy(update={"slack_app_token": SecretStr("xapp-garbage")})
    refused = check_slack(wrong, BotConfig(), timeout=5)
    assert refused.verdict is Verdict.UNUSABLE
    assert refused.summary == "SLACK_APP_TOKEN refused by apps.connections.open: invalid_auth (Socket Mode)"


def test_slack_with_every_scope_is_ok(slack: tuple[SlackStandIn, str]) -> None:
    _, url = slack
    report = check_slack(slack_settings(url), BotConfig(), timeout=5)
    assert report.verdict is Verdict.OK, report
    assert "team Sandbox" in report.summary
    assert any("HTTP mode" in f.text for f in report.findings)


def test_slack_app_installed_from_an_older_manifest_names_each_missing_scope() -> None:
    standin = SlackStandIn(scopes=ALL_SCOPES - {"pins:write", "bookmarks:write"})
    with ServerThread(standin.app) as server:
        report = check_slack(slack_settings(server.url), BotConfig(), timeout=5)
        client = WebClient(token="xoxb-sandbox", base_url=f"{server.url}/api/")
        with pytest.raises(SlackApiError) as refused:  # what the bot would meet when it pins
            client.pins_add(channel="C1", timestamp="1.1")
    assert (
        refused.value.response["error"] == "missing_scope"
        and refused.value.response["needed"] == "pins:write"
    )
    assert report.verdict is Verdict.LIMITED
    missing = [f.text for f in report.findings if f.ok is False]
    assert missing == [
        "scope bookmarks:write missing: needed by bookmarks.add",
        "scope pins:write missing: needed by pins.add",
    ]


def test_private_channels_need_the_groups_scopes(slack: tuple[SlackStandIn, str]) -> None:
    _, url = slack
    config = BotConfig(slack=SlackConfig(private=True))
    report = check_slack(slack_settings(url), config, timeout=5)
    assert report.verdict is Verdict.LIMITED
    assert {f.text.split()[1] for f in report.findings if f.ok is False} == {"groups:read", "groups:write"}


def test_slack_bad_token_or_no_slack_at_all(slack: tuple[SlackStandIn, str]) -> None:
    _, url = slack
    refused = check_slack(slack_settings(url, "xoxb-wrong"), BotConfig(), timeout=5)
    assert refused.verdict is Verdict.UNUSABLE and "invalid_auth" in refused.summary
    gone = check_slack(slack_settings("http://127.0.0.1:9"), BotConfig(), timeout=2)
    assert gone.verdict is Verdict.UNUSABLE and "unreachable" in gone.summary
    assert check_slack(Settings(), BotConfig(), timeout=5).verdict is Verdict.NOT_CONFIGURED


def test_llm_model_served_wrong_model_and_wrong_key() -> None:
    standin = OpenAIStandIn([], api_key="sk-doctor", model="qwen3-32b")
    with ServerThread(standin.app) as server:
        base = f"{server.url}/v1"
        good = Settings(openai_base_url=base, openai_api_key="sk-doctor", openai_model="qwen3-32b")
        assert check_llm(good, timeout=5).verdict is Verdict.OK
        other = check_llm(good.model_copy(update={"openai_model": "gpt-4o"}), timeout=5)
        assert other.verdict is Verdict.UNUSABLE and "serves: qwen3-32b" in other.summary
        bare = check_llm(good.model_copy(update={"openai_base_url": server.url}), timeout=5)
        assert bare.verdict is Verdict.UNUSABLE and bare.summary.endswith("does OPENAI_BASE_URL end in /v1?")
        key = check_llm(
            Settings(openai_base_url=base, openai_api_key="sk-no", openai_model="qwen3-32b"), timeout=5
        )
        assert key.verdict is Verdict.UNUSABLE and "401" in key.summary
    assert standin.requests == []  # doctor spends no tokens
    assert check_llm(Settings(), timeout=5).verdict is Verdict.NOT_CONFIGURED
