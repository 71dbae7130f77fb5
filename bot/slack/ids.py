"""The identifiers Slack sends back: action, callback and block ids, in one place."""

from __future__ import annotations

from enum import StrEnum


class ActionId(StrEnum):
    """`action_id` of the interactive elements the bot posts."""

    APPROVE = "approve-proposal"  # listeners match the prefixes approve / reject / undo
    REJECT = "reject-proposal"
    UNDO = "undo-proposal"
    RESOLVE = "incident-resolve"
    LINK = "link"  # link buttons post a click too; it only needs an ack


class CallbackId(StrEnum):
    """`callback_id` of the modals the bot opens."""

    RESOLVE = "incident-resolve-modal"


class BlockId(StrEnum):
    """`block_id` of input blocks whose values a submission reads."""

    REASON = "reason"
    CATEGORY = "final-category"
    CODE = "final-code"


REASON_ACTION = "reason-input"
CATEGORY_ACTION = "final-category-select"
CODE_ACTION = "final-code-select"
