"""Which token and which scope each Web API method of the stand-in needs, as Slack documents them."""

from __future__ import annotations

from types import MappingProxyType

APP_TOKEN_METHODS = frozenset({"apps.connections.open"})
# The bot scope each method needs, as api.slack.com/methods documents it; a token without it gets
# `missing_scope`. Every answer to a bot token carries its granted scopes in `x-oauth-scopes`.
NEEDED_SCOPES = MappingProxyType(
    {
        "conversations.create": "channels:manage",
        "conversations.invite": "channels:manage",
        "conversations.setTopic": "channels:manage",
        "conversations.setPurpose": "channels:manage",
        "conversations.archive": "channels:manage",
        "users.conversations": "channels:read",
        "chat.postMessage": "chat:write",
        "chat.update": "chat:write",
        "chat.postEphemeral": "chat:write",
        "bookmarks.add": "bookmarks:write",
        "pins.add": "pins:write",
        "files.getUploadURLExternal": "files:write",
        "files.completeUploadExternal": "files:write",
        "users.lookupByEmail": "users:read.email",
        "users.info": "users:read",
        "usergroups.users.list": "usergroups:read",
    }
)
ALL_SCOPES = frozenset(NEEDED_SCOPES.values()) | {"commands", "app_mentions:read"}
