"""Slack: `auth.test` with the bot token, and its granted scopes against the ones the bot calls for.

Slack sends a token's scopes in the `x-oauth-scopes` header of every Web API answer, so one
`auth.test` tells both who the bot is and what it may do.
"""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.config import BotConfig
from bot.doctor.report import BackendReport, Finding
from bot.settings import Settings
from bot.slack.scopes import FEATURE_SCOPES, METHOD_SCOPES

PRIVATE_SCOPES = frozenset({"groups:write", "groups:read"})


def needed_scopes(config: BotConfig) -> dict[str, str]:
    """Every scope the bot needs, with the first thing that needs it."""
    needed: dict[str, str] = {}
    for method, scope in METHOD_SCOPES.items():
        if scope:
            needed.setdefault(scope, method.replace("_", ".", 1))
    needed.update({scope: "a feature of the app (manifest)" for scope in FEATURE_SCOPES})
    if config.slack.private:
        needed.update({scope: "private incident channels (slack.private)" for scope in PRIVATE_SCOPES})
    return needed


def check_slack(settings: Settings, config: BotConfig, *, timeout: float) -> BackendReport:
    if settings.slack_bot_token is None:
        return BackendReport.absent("slack", "SLACK_BOT_TOKEN unset: incidents stay on the timeline")
    client = WebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=settings.slack_api_url,
        timeout=int(timeout) or 1,
    )
    target = settings.slack_api_url
    try:
        answer = client.auth_test()
    except SlackApiError as exc:
        return BackendReport.unusable("slack", target, f"auth.test refused: {exc.response.get('error')}")
    except OSError as exc:
        return BackendReport.unusable("slack", target, f"unreachable: {exc}")
    headers = {k.lower(): v for k, v in (answer.headers or {}).items()}
    raw = headers.get("x-oauth-scopes")
    granted = {s.strip() for s in str(raw[0] if isinstance(raw, list) else raw or "").split(",") if s.strip()}
    if settings.slack_app_token is not None:
        refused = _socket_mode(settings, timeout)
        if refused is not None:
            return BackendReport.unusable("slack", target, refused)
    mode = "Socket Mode" if settings.slack_app_token else "HTTP mode (signed requests to /slack/events)"
    findings = [
        Finding(f"bot @{answer.get('user')} ({answer.get('user_id')}) in {answer.get('team')}; {mode}")
    ]
    if raw is None:
        findings.append(Finding("Slack did not say which scopes the token has (no x-oauth-scopes)", ok=False))
    else:
        missing = {s: why for s, why in needed_scopes(config).items() if s not in granted}
        findings.extend(
            Finding(f"scope {s} missing: needed by {why}", ok=False) for s, why in sorted(missing.items())
        )
        if not missing:
            findings.append(
                Finding(f"all {len(needed_scopes(config))} scopes the bot needs are granted", ok=True)
            )
    return BackendReport.judged("slack", target, f"team {answer.get('team')}", findings)


def _socket_mode(settings: Settings, timeout: float) -> str | None:
    """Why the app-level token cannot open Socket Mode, or None. `apps.connections.open` only hands
    out a WebSocket URL; nothing connects to it, so this takes no events away from a running bot."""
    assert settings.slack_app_token is not None
    client = WebClient(base_url=settings.slack_api_url, timeout=int(timeout) or 1)
    try:
        client.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
    except SlackApiError as exc:
        return f"SLACK_APP_TOKEN refused by apps.connections.open: {exc.response.get('error')} (Socket Mode)"
    except OSError as exc:
        return f"unreachable: {exc}"
    return None
