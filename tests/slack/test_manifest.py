"""The Slack manifest asks for exactly the scopes the code uses, and points Slack at /slack/events."""

from __future__ import annotations

import re

import yaml

from bot.slack.scopes import FEATURE_SCOPES, METHOD_SCOPES
from tests.conftest import ROOT

MANIFEST = ROOT / "deploy" / "slack" / "manifest.yaml"
CALL = re.compile(r"\b_?client\.([a-z]+_[A-Za-z0-9_]+)\(")


def called_methods() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "bot" / "slack").rglob("*.py"):
        found |= set(CALL.findall(path.read_text()))
    return found


def test_every_method_the_bot_calls_has_its_scope_and_no_scope_is_spare() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())
    granted = set(manifest["oauth_config"]["scopes"]["bot"])
    called = called_methods()
    assert called <= set(METHOD_SCOPES), f"scope unknown for {sorted(called - set(METHOD_SCOPES))}"
    needed = {METHOD_SCOPES[m] for m in called if METHOD_SCOPES[m]} | FEATURE_SCOPES
    assert granted == needed
    assert {"conversations_create", "chat_postMessage", "files_upload_v2", "pins_add"} <= called


def test_one_endpoint_for_events_interactivity_and_commands() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())
    urls = {
        manifest["settings"]["event_subscriptions"]["request_url"],
        manifest["settings"]["interactivity"]["request_url"],
        *(c["url"] for c in manifest["features"]["slash_commands"]),
    }
    assert len(urls) == 1 and next(iter(urls)).endswith("/slack/events")
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == ["/incident"]
    assert manifest["settings"]["event_subscriptions"]["bot_events"] == ["app_mention"]
