"""One proposed action on the triage post, as its state stands: the dry run and Approve / Reject
before, who approved and "applying…" during, the result and Undo after.

The buttons carry only the proposal id; everything else is on the server. Block ids carry the
proposal's version, so each update of the message gets fresh ones, as Slack asks.
"""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    MarkdownTextObject,
    SectionBlock,
)

from bot.actions.model import ProposalState
from bot.domain import ActionProposal
from bot.slack.blocks.text import SECTION, cut, escape, inline, plain
from bot.slack.ids import ActionId

P = ProposalState
MAX_DIFF = 8
MARK = {
    P.APPROVED: ":hourglass_flowing_sand:",
    P.RUNNING: ":hourglass_flowing_sand:",
    P.DONE: ":white_check_mark:",
    P.FAILED: ":x:",
    P.REFUSED: ":no_entry:",
    P.BLOCKED: ":shield:",
    P.REJECTED: ":heavy_multiplication_x:",
    P.EXPIRED: ":alarm_clock:",
    P.UNDO_REQUESTED: ":hourglass_flowing_sand:",
    P.UNDOING: ":hourglass_flowing_sand:",
    P.UNDONE: ":leftwards_arrow_with_hook:",
    P.UNDO_FAILED: ":x:",
}


def _who(user: str | None) -> str:
    if not user:
        return "someone"
    return f"<@{user}>" if user[:1] in ("U", "W") and user.isalnum() else escape(user)


def _diff(lines: list[Any]) -> str:
    if not lines:
        return ""
    shown = [escape(str(line)).replace("`", "'") for line in lines[:MAX_DIFF]]
    more = f"\n… {len(lines) - len(shown)} more" if len(lines) > len(shown) else ""
    return "\n```" + cut("\n".join(shown), 1500) + more + "```"


def _preview(proposal: ActionProposal) -> str:
    preview = proposal.preview
    if not preview:
        return ""
    if not preview.get("ok"):
        return f"\n:no_entry: Cannot run now: {escape(str(preview.get('reason', '')))}"
    said = f"\n_Dry run:_ {escape(str(preview.get('summary', '')))}"
    if preview.get("blocked"):
        said += f"\n:shield: {escape(str(preview['blocked']))}"
    return said + _diff(list(preview.get("diff") or []))


def _status(proposal: ActionProposal) -> str:
    state = P(proposal.status)
    outcome = proposal.outcome
    who = _who(proposal.decided_by)
    if state in (P.APPROVED, P.RUNNING):
        return f"\n{MARK[state]} Approved by {who}: applying…"
    if state in (P.UNDO_REQUESTED, P.UNDOING):
        return f"\n{MARK[state]} Undo approved by {who}: restoring…"
    if state is P.REJECTED:
        return f"\n{MARK[state]} Rejected by {who}"
    if state is P.EXPIRED:
        return f"\n{MARK[state]} Expired unapproved"
    summary = escape(str(outcome.get("summary", "")))
    text = f"\n{MARK.get(state, '')} *{state.value.replace('_', ' ')}* ({who}): {summary}"
    return text + (_diff(list(outcome.get("diff") or [])) if state in (P.DONE, P.UNDONE) else "")


def _confirm(proposal: ActionProposal, verb: str) -> ConfirmObject:
    action = proposal.action
    lines = (proposal.preview or {}).get("diff") or []
    body = f"{verb} {action.kind.value} on {action.target}. " + "; ".join(str(x) for x in lines[:3])
    return ConfirmObject(
        title=plain(f"{verb} {action.kind.value}?", 100),
        text=cut(escape(body), 300),
        confirm=verb,
        deny="Cancel",
    )


def _buttons(proposal: ActionProposal) -> list[ButtonElement]:
    state, value = P(proposal.status), str(proposal.id)
    if state is P.PROPOSED:
        delete = proposal.action.params.get("mode") == "delete"
        label = "Delete anyway" if delete else "Approve"
        buttons = []
        if (proposal.preview or {}).get("ok", True):
            buttons.append(
                ButtonElement(
                    text=label,
                    action_id=ActionId.APPROVE.value,
                    value=value,
                    style="danger" if delete else "primary",
                    confirm=_confirm(proposal, label),
                )
            )
        buttons.append(ButtonElement(text="Reject", action_id=ActionId.REJECT.value, value=value))
        return buttons
    if state is P.DONE:
        return [
            ButtonElement(
                text="Undo", action_id=ActionId.UNDO.value, value=value, confirm=_confirm(proposal, "Undo")
            )
        ]
    return []


def proposal_blocks(proposal: ActionProposal, run: int, *, number: int) -> list[Block]:
    action = proposal.action
    what = f"*{number}. {action.kind.value.replace('_', ' ')}* {inline(action.target)}"
    why = f" — {escape(action.rationale)}" if action.rationale else ""
    if proposal.status == P.PROPOSED:
        undo = f"\n_Undo:_ {escape(action.undo)}" if action.undo else ""
        until = (
            f"\n_Expires {proposal.expires_at:%H:%M} UTC_ · proposal {proposal.id}"
            if proposal.expires_at
            else ""
        )
        text = what + why + undo + _preview(proposal) + until
    else:
        text = what + why + _status(proposal)
    blocks: list[Block] = [SectionBlock(text=MarkdownTextObject(text=cut(text, SECTION)))]
    buttons = _buttons(proposal)
    if buttons:
        blocks.append(
            ActionsBlock(block_id=f"proposal-{proposal.id}-v{proposal.version}-run-{run}", elements=buttons)
        )
    return blocks
