"""Slack's mrkdwn, read back into pieces a terminal or a web page can render.

The bot writes mrkdwn for Slack; the demo shows what Slack would show. Parsing once into typed
pieces keeps the two renderers (rich, HTML) from each re-implementing Slack's rules: code spans and
blocks take no formatting, `<…>` is a link, a mention, a channel or a date, `*bold*`, `_italic_`
and `~strike~` open only at a word boundary, and `&amp;`, `&lt;`, `&gt;` are Slack's escapes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    TEXT = "text"
    CODE = "code"  # `inline`
    PRE = "pre"  # ```block```
    LINK = "link"
    USER = "user"  # <@U…>
    CHANNEL = "channel"  # <#C…|name>
    GROUP = "group"  # <!subteam^S…>
    SPECIAL = "special"  # <!here>, <!channel>


@dataclass(frozen=True)
class Piece:
    kind: Kind
    text: str
    bold: bool = False
    italic: bool = False
    strike: bool = False
    target: str = ""  # a link's URL, a mention's ID


# The emoji the bot writes, as Slack shows them; any other keeps its :name:.
EMOJI = {
    "alarm_clock": "⏰",
    "building_construction": "🏗️",
    "eyes": "👀",
    "gear": "⚙️",
    "heavy_multiplication_x": "✖️",
    "hourglass_flowing_sand": "⏳",
    "large_orange_circle": "🟠",
    "large_yellow_circle": "🟡",
    "leftwards_arrow_with_hook": "↩️",
    "mag": "🔍",
    "no_entry": "⛔",
    "package": "📦",
    "red_circle": "🔴",
    "rollout": "🚀",
    "rotating_light": "🚨",
    "shield": "🛡️",
    "traffic_light": "🚦",
    "warning": "⚠️",
    "white_check_mark": "✅",
    "white_circle": "⚪",
    "x": "❌",
}

PRE = re.compile(r"```(.*?)```", re.DOTALL)
# One token of inline mrkdwn: a code span, an angle-bracket reference, or a styled run.
INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|<(?P<ref>[^<>\n]+)>"
    r"|(?<![\w*])\*(?P<bold>\S(?:[^*\n]*?\S)?)\*(?![\w*])"
    r"|(?<![\w_])_(?P<italic>\S(?:[^_\n]*?\S)?)_(?![\w_])"
    r"|(?<![\w~])~(?P<strike>\S(?:[^~\n]*?\S)?)~(?![\w~])"
)
EMOJI_NAME = re.compile(r":([a-z0-9_+-]+):")


def emojify(text: str) -> str:
    return EMOJI_NAME.sub(lambda m: EMOJI.get(m.group(1), m.group(0)), text)


def parse(text: str) -> list[Piece]:
    """The pieces of one mrkdwn string, in order; newlines stay inside TEXT pieces."""
    pieces: list[Piece] = []
    at = 0
    for block in PRE.finditer(text):
        pieces.extend(_inline(text[at : block.start()], Piece(Kind.TEXT, "")))
        pieces.append(Piece(Kind.PRE, html.unescape(block.group(1).strip("\n"))))
        at = block.end()
    pieces.extend(_inline(text[at:], Piece(Kind.TEXT, "")))
    return [piece for piece in pieces if piece.text or piece.kind is not Kind.TEXT]


def plain(text: str) -> list[Piece]:
    """A plain_text object: no formatting, but Slack still turns :emoji: into pictures."""
    return [Piece(Kind.TEXT, emojify(text))]


def text_object(obj: Mapping[str, Any] | None) -> list[Piece]:
    """The pieces of a Block Kit text object, read by its `type` (mrkdwn or plain_text)."""
    if not obj:
        return []
    raw = str(obj.get("text", ""))
    return parse(raw) if obj.get("type") == "mrkdwn" else plain(raw)


def _inline(text: str, style: Piece) -> list[Piece]:
    pieces: list[Piece] = []
    at = 0
    for token in INLINE.finditer(text):
        pieces.append(_text(text[at : token.start()], style))
        at = token.end()
        if token.group("code") is not None:
            pieces.append(_styled(Kind.CODE, html.unescape(token.group("code")), style))
        elif token.group("ref") is not None:
            pieces.append(_reference(token.group("ref"), style))
        else:
            name = next(n for n in ("bold", "italic", "strike") if token.group(n) is not None)
            inner = Piece(
                Kind.TEXT,
                "",
                bold=style.bold or name == "bold",
                italic=style.italic or name == "italic",
                strike=style.strike or name == "strike",
            )
            pieces.extend(_inline(token.group(name), inner))
    pieces.append(_text(text[at:], style))
    return pieces


def _text(text: str, style: Piece) -> Piece:
    return _styled(Kind.TEXT, emojify(html.unescape(text)), style)


def _styled(kind: Kind, text: str, style: Piece, target: str = "") -> Piece:
    return Piece(kind, text, bold=style.bold, italic=style.italic, strike=style.strike, target=target)


def _reference(ref: str, style: Piece) -> Piece:
    """`<…>`: a user, a channel, a user group, a special mention, a date, or a link."""
    body, _, label = ref.partition("|")
    label = html.unescape(label)
    if body.startswith("@"):
        return _styled(Kind.USER, label, style, target=body[1:])
    if body.startswith("#"):
        return _styled(Kind.CHANNEL, label, style, target=body[1:])
    if body.startswith("!subteam^"):
        return _styled(Kind.GROUP, label, style, target=body.removeprefix("!subteam^"))
    if body.startswith("!date^"):
        return _styled(Kind.TEXT, label or body, style)  # the fallback text is what it shows
    if body.startswith("!"):
        return _styled(Kind.SPECIAL, f"@{body[1:]}", style, target=body[1:])
    url = html.unescape(body)
    return _styled(Kind.LINK, label or url, style, target=url)
