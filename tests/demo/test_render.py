"""Slack's mrkdwn and Block Kit as the demo shows them: Slack's formatting rules, mentions by name,
numbered buttons in the terminal, and HTML in which text from a message can never become markup."""

from __future__ import annotations

import io
import json
from html import unescape

from rich.console import Console

from bot.demo.feed import Names, Post
from bot.demo.htmlview import block, post_html
from bot.demo.mrkdwn import Kind, parse
from bot.demo.richview import post_panel

NAMES = Names(users={"U0DEMO": "you"}, channels={"C1": "inc-1"})


def kinds(text: str) -> list[tuple[str, str]]:
    return [(p.kind.value, p.text) for p in parse(text)]


def test_code_takes_no_formatting_and_styles_open_only_at_word_boundaries() -> None:
    pieces = parse("*Evidence* `a*b*c` and file_name_here, _really_ ~gone~")
    assert pieces[0].text == "Evidence" and pieces[0].bold
    assert (pieces[2].kind, pieces[2].text) == (Kind.CODE, "a*b*c") and not pieces[2].bold
    assert any(p.text.startswith(" and file_name_here") and not p.italic for p in pieces)
    assert next(p for p in pieces if p.text == "really").italic
    assert next(p for p in pieces if p.text == "gone").strike


def test_references_escapes_emoji_and_blocks() -> None:
    text = (
        ":rotating_light: <@U0DEMO> in <#C1> for <!subteam^S0ONCALL> <!here> "
        "<https://g.example/d?a=1&amp;b=2|Dashboard> <!date^1780371017^{date}|2026-06-02> "
        "x &lt; y\n```max(x) &gt; 0.9```"
    )
    pieces = parse(text)
    assert pieces[0].text.startswith("🚨")
    by_kind = {p.kind: p for p in pieces}
    assert by_kind[Kind.USER].target == "U0DEMO"
    assert by_kind[Kind.CHANNEL].target == "C1"
    assert by_kind[Kind.GROUP].target == "S0ONCALL"
    assert by_kind[Kind.SPECIAL].text == "@here"
    assert (by_kind[Kind.LINK].text, by_kind[Kind.LINK].target) == (
        "Dashboard",
        "https://g.example/d?a=1&b=2",
    )
    assert any("2026-06-02" in p.text for p in pieces)  # a date shows its fallback
    assert any("x < y" in p.text for p in pieces)
    assert by_kind[Kind.PRE].text == "max(x) > 0.9"


def test_html_escapes_text_from_a_message_so_it_stays_data() -> None:
    hostile = {
        "type": "section",
        "text": {"type": "mrkdwn", "text": "log: <script>alert(1)</script> `<img src=x onerror=alert(1)>`"},
        "fields": [{"type": "mrkdwn", "text": '*Pod*\n"><b>x</b>'}],
    }
    html = block(hostile, NAMES)
    assert "<script>" not in html and "<img" not in html and "<b>x</b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    link = block(
        {"type": "section", "text": {"type": "mrkdwn", "text": '<https://a.example/"onmouseover="x|go>'}},
        NAMES,
    )
    assert 'href="https://a.example/&quot;onmouseover=&quot;x"' in link


def test_buttons_keep_what_a_click_carries_and_the_confirm_dialog() -> None:
    actions = {
        "type": "actions",
        "block_id": "proposal-1-v0-run-1",
        "elements": [
            {
                "type": "button",
                "action_id": "approve-proposal",
                "value": "1",
                "style": "primary",
                "text": {"type": "plain_text", "text": "Approve"},
                "confirm": {
                    "title": {"type": "plain_text", "text": "Approve cordon_node?"},
                    "text": {"type": "plain_text", "text": "cordon <node>"},
                    "confirm": {"type": "plain_text", "text": "Approve"},
                    "deny": {"type": "plain_text", "text": "Cancel"},
                },
            },
            {
                "type": "button",
                "action_id": "reject-proposal",
                "value": "1",
                "text": {"type": "plain_text", "text": "Reject"},
            },
        ],
    }
    html = block(actions, NAMES)
    assert 'data-action-id="approve-proposal"' in html and 'data-block-id="proposal-1-v0-run-1"' in html
    assert "primary" in html and "<node>" not in html  # the dialog's text is escaped in its attribute
    confirm = json.loads(unescape(html.split('data-confirm="')[1].split('"')[0]))
    assert confirm == {
        "title": "Approve cordon_node?",
        "text": "cordon <node>",
        "confirm": "Approve",
        "deny": "Cancel",
    }
    post = Post("C1", "inc-1", "1796143191.000007", "", [actions], pinned=True)
    out = io.StringIO()
    Console(file=out, width=100).print(post_panel(post, NAMES))
    shown = out.getvalue()
    assert "[1]" in shown and "Approve" in shown and "[2]" in shown and "Reject" in shown
    assert "#inc-1" in shown and "pinned" in shown
    assert "📌 pinned" in post_html(post, NAMES)
