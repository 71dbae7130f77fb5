"""The bolt listeners, one module per kind of payload; each `register(app, services)`.

What Slack sends back is read through these helpers: a field of the wrong type is treated as
missing, an id as a database id only when it is one, and text as the store can keep it.
"""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncRespond
from slack_sdk.errors import SlackApiError

log = logging.getLogger(__name__)
MAX_ID_DIGITS = 18  # within a BIGINT (and SQLite's INTEGER)
# What a listener's Web API call raises when Slack refuses it or cannot be reached.
CALL_FAULTS = (SlackApiError, OSError, aiohttp.ClientError, TimeoutError)


def part(payload: object, key: str) -> dict[str, Any]:
    """The object under `key`, or an empty one."""
    value = payload.get(key) if isinstance(payload, dict) else None
    return value if isinstance(value, dict) else {}


def text_of(value: object) -> str:
    """A string field as the store can keep it (no NUL, no lone surrogates); "" when not a string."""
    if not isinstance(value, str):
        return ""
    return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def record_id(value: object) -> int | None:
    """A database id sent back in a button's value or a modal's metadata, or None when not one."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    digits = str(value).strip()
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= MAX_ID_DIGITS else None


async def tell(respond: AsyncRespond | None, text: str, **options: Any) -> None:
    """An ephemeral answer to the user, through the payload's response URL when it has one."""
    if respond is None:
        log.warning("no response URL to answer with: %s", text[:200])
        return
    try:
        await respond(text=text, response_type="ephemeral", **options)
    except (aiohttp.ClientError, ValueError, TimeoutError) as exc:
        log.warning("answer not delivered to the response URL: %s", exc)
