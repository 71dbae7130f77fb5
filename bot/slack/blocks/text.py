"""Escaping and cutting text for Block Kit (limits from Slack's block reference).

Every block builder puts outside text (alerts, logs, the cluster, a model's answer) through
`escape` (mrkdwn) or `plain` (plain_text), and URLs through `link`: each redacts credentials first
(bot.triage.redact), so no builder can forget to.
"""

from __future__ import annotations

import re
from datetime import datetime

from bot.triage.redact import redact

SECTION = 3000  # characters of a section's text
FIELD = 2000  # characters of one section field
HEADER = 150
BUTTON = 75
MAX_BLOCKS = 50
ELLIPSIS = "…"


_URL_UNSAFE = re.compile(r"[\s<>|\x00-\x1f\x7f]")
_FENCE = re.compile(r"`{3,}")


def _unfenced(text: str) -> str:
    """No run of three backticks (a code block's fence) left: ``` becomes ` ` `."""
    return _FENCE.sub(lambda m: " ".join(m.group(0)), text)


def escape(text: str) -> str:
    """Data for a mrkdwn text: credentials redacted, Slack's three control characters escaped (so it
    never becomes a mention or a link), and no run of backticks that could open a code block."""
    escaped = redact(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _unfenced(escaped)


def plain(text: str, limit: int) -> str:
    """Data for a plain_text object (a header, a button): credentials redacted, cut to `limit`."""
    return cut(redact(text), limit)


def inline(text: str, limit: int = 200) -> str:
    """Data as inline code: escaped, its backticks turned to quotes so it cannot close the span."""
    return "`" + cut(escape(text).replace("`", "'"), limit) + "`"


def cut(text: str, limit: int, *, more: str = "") -> str:
    """`text` within `limit` characters, ending in … (and `more`, e.g. a link) when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ELLIPSIS) - len(more))].rstrip() + ELLIPSIS + more


def code(text: str, limit: int) -> str:
    """A code block whose content cannot close it early."""
    body = _unfenced(redact(text))
    return "```" + cut(body, limit - 6) + "```"


def link(url: str | None, label: str) -> str:
    """`<url|label>`, or just the label when there is no URL; the label is escaped, the URL redacted
    and percent-encoded where it could end the link early (`>`, `|`, a space)."""
    shown = escape(label).replace("|", "¦")
    if not url:
        return shown
    safe = _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode()), redact(url))
    return f"<{safe}|{shown}>"


def when(at: datetime) -> str:
    """A time every reader sees in their own zone, with a UTC fallback."""
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{at:%Y-%m-%d %H:%M:%SZ}>"
