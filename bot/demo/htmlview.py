"""Block Kit as HTML, laid out the way Slack lays it out: a header, sections with their fields in two
columns and an accessory, context in small grey type, dividers, images, and buttons that keep what
a click must carry (action id, value, block id, confirm dialog) in data attributes.

Every string from a message is escaped here; the page's script adds no markup of its own.
"""

from __future__ import annotations

import json
from datetime import datetime
from html import escape
from typing import Any

from bot.demo.feed import ChannelView, Names, Post
from bot.demo.mrkdwn import Kind, Piece, text_object


def text(obj: dict[str, Any] | None, names: Names) -> str:
    return pieces_html(text_object(obj), names)


def pieces_html(pieces: list[Piece], names: Names) -> str:
    out = []
    for piece in pieces:
        if piece.kind is Kind.PRE:
            out.append(f"<pre>{escape(piece.text)}</pre>")
            continue
        if piece.kind is Kind.CODE:
            html = f"<code>{escape(piece.text)}</code>"
        elif piece.kind is Kind.LINK:
            html = f'<a href="{escape(piece.target)}" target="_blank" rel="noopener">{escape(piece.text)}</a>'
        elif piece.kind is Kind.USER:
            html = f'<span class="mention">{escape(piece.text or names.user(piece.target))}</span>'
        elif piece.kind is Kind.CHANNEL:
            html = f'<span class="mention">{escape(names.channel(piece.target, piece.text))}</span>'
        elif piece.kind in (Kind.GROUP, Kind.SPECIAL):
            html = f'<span class="mention">{escape(piece.text or "@" + piece.target)}</span>'
        else:
            html = escape(piece.text).replace("\n", "<br>")
        for on, tag in ((piece.bold, "b"), (piece.italic, "i"), (piece.strike, "s")):
            if on:
                html = f"<{tag}>{html}</{tag}>"
        out.append(html)
    return "".join(out)


def button(element: dict[str, Any], block_id: str) -> str:
    label = escape(str((element.get("text") or {}).get("text", "")))
    style = escape(str(element.get("style", "")))
    if element.get("url"):
        return (
            f'<a class="bk-button {style}" href="{escape(str(element["url"]))}" target="_blank">{label}</a>'
        )
    data = {
        "action-id": element.get("action_id", ""),
        "value": element.get("value", ""),
        "block-id": block_id,
    }
    attributes = " ".join(f'data-{key}="{escape(str(value))}"' for key, value in data.items())
    confirm = element.get("confirm")
    if confirm:
        shown = {
            "title": (confirm.get("title") or {}).get("text", ""),
            "text": (confirm.get("text") or {}).get("text", ""),
            "confirm": (confirm.get("confirm") or {}).get("text", "Yes"),
            "deny": (confirm.get("deny") or {}).get("text", "Cancel"),
        }
        attributes += f' data-confirm="{escape(json.dumps(shown))}"'
    return f'<button class="bk-button {style}" {attributes}>{label}</button>'


def block(item: dict[str, Any], names: Names) -> str:
    kind = item.get("type")
    block_id = str(item.get("block_id", ""))
    if kind == "header":
        return f'<div class="bk-header">{text(item.get("text"), names)}</div>'
    if kind == "divider":
        return '<hr class="bk-divider">'
    if kind == "context":
        parts = [
            f'<img src="{escape(str(e.get("image_url", "")))}" alt="{escape(str(e.get("alt_text", "")))}">'
            if e.get("type") == "image"
            else f"<span>{text(e, names)}</span>"
            for e in item.get("elements", [])
        ]
        return f'<div class="bk-context">{"".join(parts)}</div>'
    if kind == "image":
        title = text(item.get("title"), names)
        return (
            f'<figure class="bk-image"><figcaption>{title}</figcaption>'
            f'<img src="{escape(str(item.get("image_url", "")))}" alt="{escape(str(item.get("alt_text", "")))}">'
            "</figure>"
        )
    if kind == "actions":
        buttons = "".join(button(e, block_id) for e in item.get("elements", []) if e.get("type") == "button")
        return f'<div class="bk-actions">{buttons}</div>'
    if kind == "section":
        body = f'<div class="bk-text">{text(item.get("text"), names)}</div>' if item.get("text") else ""
        fields = item.get("fields") or []
        if fields:
            body += (
                '<div class="bk-fields">' + "".join(f"<div>{text(f, names)}</div>" for f in fields) + "</div>"
            )
        accessory = item.get("accessory") or {}
        if accessory.get("type") == "button":
            body += f'<div class="bk-accessory">{button(accessory, block_id)}</div>'
        return f'<div class="bk-section">{body}</div>'
    return f'<div class="bk-unknown">[{escape(str(kind))} block]</div>'


def post_html(post: Post, names: Names, replies: list[Post] | None = None) -> str:
    when = datetime.fromtimestamp(float(post.ts))
    flags = "".join(
        f'<span class="flag">{flag}</span>'
        for flag, on in (
            ("(edited)", post.edited),
            ("📌 pinned", post.pinned),
            ("Only visible to you", post.ephemeral),
        )
        if on
    )
    body = (
        "".join(block(b, names) for b in post.blocks)
        if post.blocks
        else f'<div class="bk-text">{text({"type": "mrkdwn", "text": post.text}, names)}</div>'
    )
    files = "".join(
        f'<a href="/files/{escape(f)}" target="_blank">'
        f'<img class="file" src="/files/{escape(f)}" alt="{escape(f)}"></a>'
        for f in post.files
    )
    thread = ""
    if replies:
        thread = (
            f'<div class="thread"><div class="thread-count">{len(replies)} '
            f"repl{'y' if len(replies) == 1 else 'ies'}</div>"
            + "".join(post_html(reply, names) for reply in replies)
            + "</div>"
        )
    css = "msg ephemeral" if post.ephemeral else "msg"
    return (
        f'<div class="{css}" data-ts="{escape(post.ts)}"><div class="avatar">IB</div><div class="content">'
        f'<div class="meta"><b>incident-bot</b> <span class="app">APP</span> '
        f"<time>{when:%H:%M:%S}</time>{flags}</div>{body}{files}{thread}</div></div>"
    )


def channel_html(view: ChannelView, names: Names, answers: list[Post]) -> str:
    """One channel's pane: its header (name, topic, bookmarks) and its messages, oldest first."""
    bookmarks = "".join(
        f'<a href="{escape(link)}" target="_blank" class="bookmark">{escape(title)}</a>'
        for title, link in view.bookmarks
    )
    posts = sorted([*view.posts, *answers], key=lambda p: p.ts)
    messages = "".join(post_html(p, names, view.replies.get(p.ts)) for p in posts)
    return (
        f'<header class="channel-header"><h2>#{escape(view.name)}</h2>'
        f'<div class="topic">{escape(view.topic)}</div><nav class="bookmarks">{bookmarks}</nav></header>'
        f'<section class="messages">{messages}</section>'
    )
