"""How the Slack stand-in reads one Web API call's arguments, the way Slack reads them.

Form bodies give strings and JSON bodies anything, so every handler goes through `Args`: typed
accessors with Slack's `invalid_arguments` complaints, and the decoded, checked `blocks` and
`attachments` of message-posting methods (Block Kit violations answer `invalid_blocks`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.sandbox.slack.blocks import MESSAGE_BLOCK_LIMIT, BlocksFormatError, check_blocks, decode_blocks
from bot.sandbox.slack.state import Answer, Params, SlackError, invalid_arguments

MAX_ATTACHMENTS = 100


@dataclass(frozen=True)
class Args:
    """One call's parameters with typed accessors; form bodies give strings, JSON bodies anything."""

    params: Params
    base_url: str

    def get(self, key: str) -> str | None:
        value = self.params.get(key)
        if value is None or value == "":
            return None
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        return json.dumps(value)

    def need(self, key: str, error: str | None = None) -> str:
        value = self.get(key)
        if value is None:
            raise SlackError(error) if error else invalid_arguments(f"[ERROR] missing required field: {key}")
        return value

    def flag(self, key: str) -> bool:
        value = self.params.get(key)
        return value is True or (isinstance(value, str) and value.lower() in ("true", "1"))

    def structured(self, key: str) -> Any:
        """A JSON argument: a string in a form body, already decoded in a JSON body."""
        value = self.params.get(key)
        if not isinstance(value, str):
            return value
        try:
            return json.loads(value)
        except ValueError:
            raise invalid_arguments(f"[ERROR] {key} must be valid JSON") from None

    def csv(self, key: str, error: str) -> list[str]:
        return [item.strip() for item in self.need(key, error).split(",") if item.strip()]

    def blocks(self) -> list[Any] | None:
        """Decoded, checked `blocks`, or None when absent; Block Kit violations answer invalid_blocks."""
        raw = self.params.get("blocks")
        if raw is None or raw == "":
            return None
        try:
            blocks = decode_blocks(raw)
        except BlocksFormatError:
            raise SlackError("invalid_blocks_format") from None
        errors = check_blocks(blocks, limit=MESSAGE_BLOCK_LIMIT)
        if errors:
            raise SlackError("invalid_blocks", response_metadata={"messages": errors})
        return blocks

    def attachments(self) -> list[Any]:
        attachments = self.structured("attachments") or []
        if not isinstance(attachments, list):
            raise invalid_arguments("[ERROR] attachments must be an array")
        if len(attachments) > MAX_ATTACHMENTS:
            raise SlackError("too_many_attachments")
        return attachments


Handler = Callable[[Args], Answer]
