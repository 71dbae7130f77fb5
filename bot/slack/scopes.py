"""Which bot scope each Web API method the bot calls needs (the manifest grants exactly these)."""

from __future__ import annotations

METHOD_SCOPES: dict[str, str] = {
    "conversations_create": "channels:manage",
    "conversations_invite": "channels:manage",
    "conversations_setTopic": "channels:manage",
    "conversations_setPurpose": "channels:manage",
    "conversations_archive": "channels:manage",
    "users_conversations": "channels:read",
    "chat_postMessage": "chat:write",
    "chat_update": "chat:write",
    "chat_postEphemeral": "chat:write",
    "bookmarks_add": "bookmarks:write",
    "pins_add": "pins:write",
    "files_upload_v2": "files:write",
    "users_lookupByEmail": "users:read.email",
    "usergroups_users_list": "usergroups:read",
    "views_open": "",  # a trigger from the user's own click is all it needs
}
# Scopes that come with a feature rather than a method call.
FEATURE_SCOPES = frozenset({"commands", "app_mentions:read", "users:read"})
