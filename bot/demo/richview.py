"""Block Kit as a terminal shows it, with rich: a header in bold, fields in two columns, context in
grey, links that a modern terminal can open, and buttons as numbered choices."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.style import Style
from rich.table import Table
from rich.text import Text

from bot.demo.feed import Names, Post
from bot.demo.mrkdwn import Kind, Piece, text_object

BUTTON_STYLE = {"primary": "bold white on green", "danger": "bold white on red"}


def text(obj: dict[str, Any] | None, names: Names) -> Text:
    """A text object (mrkdwn or plain_text) as rich Text."""
    return pieces_text(text_object(obj), names)


def pieces_text(pieces: list[Piece], names: Names) -> Text:
    out = Text()
    for piece in pieces:
        style = Style(bold=piece.bold or None, italic=piece.italic or None, strike=piece.strike or None)
        if piece.kind is Kind.PRE:
            out.append(("\n" if out and not out.plain.endswith("\n") else "") + piece.text + "\n", "cyan")
        elif piece.kind is Kind.CODE:
            out.append(piece.text, style + Style(color="cyan"))
        elif piece.kind is Kind.LINK:
            out.append(piece.text, style + Style(color="blue", underline=True, link=piece.target))
        elif piece.kind is Kind.USER:
            out.append(piece.text or names.user(piece.target), style + Style(color="yellow"))
        elif piece.kind is Kind.CHANNEL:
            out.append(names.channel(piece.target, piece.text), style + Style(color="blue"))
        elif piece.kind in (Kind.GROUP, Kind.SPECIAL):
            out.append(piece.text or f"@{piece.target}", style + Style(color="yellow"))
        else:
            out.append(piece.text, style)
    return out


def button_label(number: int, button: dict[str, Any]) -> Text:
    label = str((button.get("text") or {}).get("text", "button"))
    style = BUTTON_STYLE.get(str(button.get("style", "")), "bold")
    shown = Text(f"[{number}] ", style="bold")
    shown.append(f" {label} ", style=style)
    return shown


def block(item: dict[str, Any], names: Names, numbers: dict[int, int]) -> RenderableType | None:
    """One block; `numbers` maps a button's id() to its choice number on this post."""
    kind = item.get("type")
    if kind == "header":
        return Text(str((item.get("text") or {}).get("text", "")), style="bold underline")
    if kind == "divider":
        return Rule(style="grey50")
    if kind == "context":
        parts = [
            text(e, names) if e.get("type") != "image" else Text(f"[{e.get('alt_text', 'image')}]")
            for e in item.get("elements", [])
        ]
        joined = Text("  ").join(parts)
        joined.stylize("grey62")
        return joined
    if kind == "image":
        return Text(f"[image: {item.get('alt_text', '')}] {item.get('image_url', '')}", style="grey62")
    if kind == "actions":
        buttons = [e for e in item.get("elements", []) if e.get("type") == "button"]
        return Text("  ").join(button_label(numbers[id(b)], b) for b in buttons)
    if kind == "section":
        return _section(item, names, numbers)
    return Text(f"[{kind} block]", style="grey50")


def _section(item: dict[str, Any], names: Names, numbers: dict[int, int]) -> RenderableType:
    parts: list[RenderableType] = []
    if item.get("text"):
        parts.append(text(item["text"], names))
    fields = item.get("fields") or []
    if fields:
        grid = Table.grid(padding=(0, 4))
        grid.add_column(ratio=1)
        grid.add_column(ratio=1)
        cells = [text(f, names) for f in fields]
        for at in range(0, len(cells), 2):
            grid.add_row(*cells[at : at + 2], *([Text()] if at + 1 >= len(cells) else []))
        parts.append(grid)
    accessory = item.get("accessory") or {}
    if accessory.get("type") == "button":
        parts.append(button_label(numbers[id(accessory)], accessory))
    return Group(*parts)


def post_panel(post: Post, names: Names, *, since: list[dict[str, Any]] | None = None) -> Panel:
    """The post in a panel titled with where it is; buttons numbered from 1 in reading order.

    With `since` (the blocks shown before), an edit shows only the blocks it changed, so a post
    edited three times reads as its story rather than three copies of itself.
    """
    numbers = {id(button): n for n, (_, button) in enumerate(post.buttons(), start=1)}
    before = {_same(b) for b in since or []}
    shown = [b for b in post.blocks if _same(b) not in before]
    body: list[RenderableType] = [r for b in shown if (r := block(b, names, numbers)) is not None]
    if not post.blocks and post.text:
        body.append(text({"type": "mrkdwn", "text": post.text}, names))
    body += [Text(f"📎 {file_id} (saved, path below)", style="magenta") for file_id in post.files]
    where = "only visible to you" if post.ephemeral else f"#{post.channel_name}"
    if post.thread_ts:
        where += " · in thread"
    flags = [flag for flag, on in (("edited", post.edited), ("pinned", post.pinned)) if on]
    if since is not None and len(shown) < len(post.blocks):
        flags.append(f"{len(shown)} of {len(post.blocks)} blocks changed")
    title = " · ".join([where, *flags])
    return Panel(
        Group(*body), title=title, title_align="left", border_style="grey50" if post.ephemeral else "blue"
    )


def _same(item: dict[str, Any]) -> str:
    """A block as its reader sees it: its block id changes with each version, its content may not."""
    return json.dumps({k: v for k, v in item.items() if k != "block_id"}, sort_keys=True, default=str)
