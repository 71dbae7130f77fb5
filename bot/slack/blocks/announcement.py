"""The incident channel's first, pinned message: what fired, where, since when, its query and
value, the dashboards scoped to the window, the runbook and who was called in."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.announce import Announcement
from bot.slack.blocks.text import FIELD, HEADER, SECTION, code, cut, escape, inline, link, plain, when

SEVERITY_MARK = {
    "critical": ":red_circle:",
    "major": ":large_orange_circle:",
    "minor": ":large_yellow_circle:",
}


def mention(principal: str) -> str:
    """A responder as Slack shows them: a user, a user group, or an e-mail as plain text."""
    if principal.startswith(("U", "W")) and "@" not in principal:
        return f"<@{principal}>"
    if principal.startswith("S") and "@" not in principal:
        return f"<!subteam^{principal}>"
    return escape(principal)


def announcement_text(a: Announcement) -> str:
    """The fallback text (notifications, screen readers)."""
    return cut(f"Incident {a.incident_id} ({escape(a.severity)}): {escape(a.title)}", 300)


def notice_text(a: Announcement, channel_id: str) -> str:
    """The one line in the announcements channel, pointing at the incident's channel."""
    said = f":rotating_light: Incident {a.incident_id} ({escape(a.severity)}): {escape(a.title)}"
    return f"{cut(said, 470)} — <#{channel_id}>"


def announcement_blocks(a: Announcement) -> list[Block]:
    mark = SEVERITY_MARK.get(a.severity, ":white_circle:")
    fields = [
        f"*Severity*\n{mark} {escape(a.severity)}",
        f"*Alert*\n{escape(a.alertname or 'declared by hand')}",
        f"*Service*\n{escape(a.service or '-')}",
        f"*Model*\n{escape(a.model or '-')}",
        f"*Namespace*\n{escape(a.namespace or '-')}",
        f"*Started*\n{when(a.started_at)}",
    ]
    blocks: list[Block] = [
        HeaderBlock(text=plain(f"Incident {a.incident_id}: {a.title}", HEADER)),
        SectionBlock(fields=[MarkdownTextObject(text=cut(f, FIELD)) for f in fields]),
    ]
    if a.query:
        value = f"\n*Violating value* {inline(a.value)}" if a.value else ""
        query = "*Query*\n" + code(escape(a.query), SECTION - 20 - len(value))
        blocks.append(SectionBlock(text=MarkdownTextObject(text=query + value)))
    links = [link(d.url, d.title) for d in a.dashboards]
    if a.runbook:
        links.append(link(a.runbook.url, a.runbook.title))
    if a.source:
        links.append(link(a.source.url, a.source.title))
    if links:
        blocks.append(
            SectionBlock(
                text=MarkdownTextObject(text=cut("*Links*\n" + "\n".join(f"• {x}" for x in links), SECTION))
            )
        )
    blocks.append(DividerBlock())
    called = " ".join(mention(p) for p in a.responders) or "nobody is configured for this service"
    blocks.append(
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=cut(f"Responders: {called} · triage running, it posts below", SECTION)
                )
            ]
        )
    )
    return blocks
