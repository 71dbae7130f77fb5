"""Escaping and cutting text for Block Kit (limits from Slack's block reference)."""

from __future__ import annotations

from datetime import datetime

SECTION = 3000  # characters of a section's text
FIELD = 2000  # characters of one section field
HEADER = 150
BUTTON = 75
MAX_BLOCKS = 50
ELLIPSIS = "…"


def escape(text: str) -> str:
    """Slack's three control characters, so data never becomes a mention or a link."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cut(text: str, limit: int, *, more: str = "") -> str:
    """`text` within `limit` characters, ending in … (and `more`, e.g. a link) when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ELLIPSIS) - len(more))].rstrip() + ELLIPSIS + more


def code(text: str, limit: int) -> str:
    """A code block whose content cannot close it early."""
    body = text.replace("```", "` ` `")
    return "```" + cut(body, limit - 6) + "```"


def link(url: str | None, label: str) -> str:
    """`<url|label>`, or just the label when there is no URL; the label is escaped."""
    shown = escape(label).replace("|", "¦")
    if not url:
        return shown
    return f"<{url.replace('>', '%3E').replace('|', '%7C')}|{shown}>"


def when(at: datetime) -> str:
    """A time every reader sees in their own zone, with a UTC fallback."""
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{at:%Y-%m-%d %H:%M:%SZ}>"
