"""Short messages: every alert resolved (with its button), the resolve modal, `/incident` replies."""

from __future__ import annotations

import json
from collections.abc import Sequence

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    InputBlock,
    MarkdownTextObject,
    Option,
    OptionGroup,
    PlainTextInputElement,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.domain import Category, Incident, StoredTriage, TimelineEvent
from bot.slack.blocks.text import BUTTON, SECTION, cut, escape, when
from bot.slack.ids import CATEGORY_ACTION, CODE_ACTION, REASON_ACTION, ActionId, BlockId, CallbackId

HELP = """*`/incident` commands*
• `new <title> [critical|major|minor|info]` declare an incident (it gets its own channel)
• `status` where the incident stands · `timeline` its last events
• `triage` run the triage again · `ack` acknowledge · `note <text>` add to the timeline
• `tag <category> [reason]` set the category (infrastructure, model_config, inference_engine, operational)
• `severity <critical|major|minor|info>` · `resolve [CODE] <reason>` · `help` this list
All but `new` and `help` work in an incident's channel."""


def resolved_blocks(incident: Incident) -> list[Block]:
    text = (
        f":white_check_mark: Every alert of incident {incident.id} has resolved. "
        "The bot does not close incidents: resolve it when you are sure, with a reason."
    )
    return [
        SectionBlock(text=MarkdownTextObject(text=text)),
        ActionsBlock(
            block_id=f"resolve-{incident.id}",
            elements=[
                ButtonElement(
                    text="Resolve incident",
                    action_id=ActionId.RESOLVE.value,
                    value=str(incident.id),
                    style="primary",
                )
            ],
        ),
    ]


def _option(value: str, text: str) -> Option:
    return Option(value=value, text=cut(text, BUTTON))


def _code_select(codes: Sequence[tuple[str, str, str]], initial: str | None) -> StaticSelectElement:
    """Every code of the taxonomy, grouped by its category, the triage's code chosen to start with."""
    groups: dict[str, list[Option]] = {}
    chosen = None
    for code, meaning, category in codes:
        option = _option(code, f"{code}: {meaning}")
        groups.setdefault(category, []).append(option)
        chosen = option if code == initial else chosen
    return StaticSelectElement(
        action_id=CODE_ACTION,
        placeholder="The root cause, as a code of the taxonomy",
        option_groups=[OptionGroup(label=c, options=o) for c, o in groups.items()],
        initial_option=chosen,
    )


def resolve_modal(
    incident: Incident,
    *,
    channel_id: str,
    codes: Sequence[tuple[str, str, str]] = (),
    triage: StoredTriage | None = None,
) -> View:
    """Asks for the reason and the final tag (category, code: `codes` as (code, meaning, category)),
    started from the triage's; the submission carries the incident and the channel in its metadata."""
    said = triage.result if triage else None
    category = incident.category or (said.category if said else None)
    categories = [_option(c.value, c.value) for c in Category]
    code_initial = incident.code or (said.code if said else None)
    tag_blocks: list[Block] = [
        InputBlock(
            block_id=BlockId.CATEGORY.value,
            label="Final category",
            optional=True,
            element=StaticSelectElement(
                action_id=CATEGORY_ACTION,
                placeholder="The layer that failed first",
                options=categories,
                initial_option=next((o for o in categories if category and o.value == category.value), None),
            ),
        )
    ]
    if codes:
        tag_blocks.append(
            InputBlock(
                block_id=BlockId.CODE.value,
                label="Final code",
                optional=True,
                hint="It settles the category; the triage is scored against it.",
                element=_code_select(codes, code_initial),
            )
        )
    return View(
        type="modal",
        callback_id=CallbackId.RESOLVE.value,
        title="Resolve incident",
        submit="Resolve",
        close="Cancel",
        private_metadata=json.dumps({"incident_id": incident.id, "channel_id": channel_id}),
        blocks=[
            SectionBlock(
                text=MarkdownTextObject(
                    text=cut(f"*Incident {incident.id}*: {escape(incident.title)}", SECTION)
                )
            ),
            InputBlock(
                block_id=BlockId.REASON.value,
                label="Why is it resolved?",
                element=PlainTextInputElement(action_id=REASON_ACTION, multiline=True, max_length=3000),
            ),
            *tag_blocks,
        ],
    )


def status_text(incident: Incident, triage: StoredTriage | None) -> str:
    lines = [
        f"*Incident {incident.id}*: {escape(incident.title)}",
        f"status `{incident.status.value}` · severity `{incident.severity.value}` · "
        f"category `{incident.category.value if incident.category else 'untagged'}`",
        f"started {when(incident.started_at)}",
    ]
    if triage is not None:
        r = triage.result
        lines.append(
            f"latest triage (run {triage.run}): `{r.category.value}` / `{r.code}`, {r.confidence:.0%}"
        )
    return cut("\n".join(lines), SECTION)


def timeline_text(incident: Incident, events: Sequence[TimelineEvent], *, last: int = 20) -> str:
    shown = list(events)[-last:]
    lines = [f"{when(e.at)} *{escape(e.actor)}* {escape(cut(e.text, 200))}" for e in shown]
    head = f"*Incident {incident.id} timeline* (last {len(shown)} of {len(events)})"
    return cut("\n".join([head, *lines]), SECTION)
