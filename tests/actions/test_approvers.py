"""Who may approve: global and per-service approvers, by user ID, user group (expanded by Slack)
and e-mail (resolved by Slack); without Slack only what is written matches, and groups never do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from slack_sdk import WebClient

from bot.actions.approvers import Approvers
from bot.config import Actions, BotConfig, Service
from bot.deps import build_deps
from bot.errors import ConfigError
from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn
from bot.sandbox.up import SLACK_GROUPS, SLACK_TOKEN, SLACK_USERS
from bot.slack.directory import SlackDirectory
from tests.conftest import make_settings

CONFIG = BotConfig(
    approvers=["U0LEAD", "carol@example.com"],
    services=[Service(name="chat", approvers=["S0ONCALL"]), Service(name="batch")],
)


@pytest.fixture(scope="module")
def slack() -> Iterator[tuple[SlackStandIn, WebClient]]:
    standin = SlackStandIn(token=SLACK_TOKEN, users=SLACK_USERS, usergroups=SLACK_GROUPS)
    with ServerThread(standin.app) as server:
        yield standin, WebClient(token=SLACK_TOKEN, base_url=server.url + "/api/")


def test_global_approvers_by_id_and_email_and_service_approvers_by_group(
    slack: tuple[SlackStandIn, WebClient],
) -> None:
    approvers = Approvers(CONFIG, SlackDirectory(slack[1]))
    assert approvers.check("U0LEAD", "batch").allowed
    assert approvers.check("U0CAROL", "batch").allowed  # carol@example.com, looked up
    assert approvers.check("carol@example.com", None).allowed
    assert approvers.check("U0BOB", "chat").allowed  # in S0ONCALL, the chat service's approvers
    refused = approvers.check("U0BOB", "batch")
    assert not refused.allowed and refused.reason == "U0BOB is not an approver of service batch"
    assert approvers.check("bob@example.com", "chat").allowed  # an e-mail given: its user ID, then the group
    assert not approvers.check("U0ANA", "chat").allowed


def test_directory_answers_are_cached_and_failures_are_asked_again(
    slack: tuple[SlackStandIn, WebClient],
) -> None:
    standin, client = slack
    approvers = Approvers(CONFIG, SlackDirectory(client))
    asked = len(standin.calls_to("usergroups.users.list"))
    for _ in range(3):
        assert approvers.check("U0BOB", "chat").allowed
    assert len(standin.calls_to("usergroups.users.list")) == asked + 1
    missing = Approvers(BotConfig(approvers=["S0NOSUCH"]), SlackDirectory(client))
    for _ in range(2):
        assert not missing.check("U0BOB", None).allowed
    assert len([c for c in standin.calls_to("usergroups.users.list") if "S0NOSUCH" in str(c)]) == 2


def test_without_slack_only_what_is_written_matches() -> None:
    approvers = Approvers(CONFIG, None)
    assert approvers.check("carol@example.com", None).allowed
    assert approvers.check("U0LEAD", None).allowed
    assert not approvers.check("U0CAROL", None).allowed  # no directory to resolve carol's e-mail
    assert not approvers.check("U0BOB", "chat").allowed  # no directory to expand the group
    assert approvers.check("Carol@Example.com", None).allowed  # an e-mail in any case
    for lookalike in ("u0lead", " U0LEAD", "U0LEAD ", "U0LEA"):  # a user id only exactly
        assert not approvers.check(lookalike, None).allowed, lookalike


def test_nobody_approves_when_no_approver_is_configured() -> None:
    verdict = Approvers(BotConfig(), None).check("U0LEAD", None)
    assert not verdict.allowed and "no approvers are configured" in verdict.reason


def test_a_verify_longer_than_the_job_lease_is_refused_at_start(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'bot.db'}", job_lease_seconds=200)
    config = BotConfig(actions=Actions(verify_seconds=180))
    with pytest.raises(ConfigError, match="verify_seconds"):
        build_deps(settings, config=config)
