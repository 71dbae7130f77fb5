"""The workspace's people, for the approver check: a user group's members and a user by e-mail.

A lookup Slack refuses is an empty answer (the approver check then refuses too: fail closed), and
is logged with Slack's error so a missing scope (`usergroups:read`, `users:read.email`) shows.
"""

from __future__ import annotations

import logging

from slack_sdk import WebClient

from bot.slack.client import SLACK_FAULTS

log = logging.getLogger(__name__)


class SlackDirectory:
    def __init__(self, client: WebClient) -> None:
        self._client = client

    def members(self, group_id: str) -> set[str]:
        try:
            answer = self._client.usergroups_users_list(usergroup=group_id)
        except SLACK_FAULTS as exc:
            log.warning("usergroups.users.list %s failed: %s", group_id, exc)
            return set()
        return {str(user) for user in answer.get("users") or []}

    def user_for_email(self, email: str) -> str | None:
        try:
            answer = self._client.users_lookupByEmail(email=email)
        except SLACK_FAULTS as exc:
            log.warning("users.lookupByEmail failed: %s", exc)
            return None
        user = answer.get("user") or {}
        return str(user["id"]) if user.get("id") else None
