"""Block Kit checks for the Slack stand-in: the documented limits, reported the way Slack reports them.

Slack rejects a message whose blocks break a limit with `invalid_blocks` and one
`[ERROR] <what> [json-pointer:<where>]` line per problem. Checking the same limits here means a
rendering bug (a 3001-character section, a 26th button) fails in tests instead of in an incident.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

MESSAGE_BLOCK_LIMIT = 50
VIEW_BLOCK_LIMIT = 100

BLOCK_TYPES = frozenset({"section", "header", "divider", "context", "actions", "image", "rich_text", "input"})
ELEMENT_TYPES = frozenset(
    {
        "button",
        "checkboxes",
        "radio_buttons",
        "overflow",
        "datepicker",
        "timepicker",
        "datetimepicker",
        "plain_text_input",
        "email_text_input",
        "url_text_input",
        "number_input",
        "rich_text_input",
        "file_input",
        "static_select",
        "external_select",
        "users_select",
        "conversations_select",
        "channels_select",
        "multi_static_select",
        "multi_external_select",
        "multi_users_select",
        "multi_conversations_select",
        "multi_channels_select",
        "image",
    }
)
TEXT_TYPES = frozenset({"plain_text", "mrkdwn"})


class BlocksFormatError(ValueError):
    """`blocks` is not a JSON array of objects at all (Slack: `invalid_blocks_format`)."""


def decode_blocks(raw: object) -> list[Any]:
    """Blocks arrive as a JSON string in a form body and as a list in a JSON body; accept both."""
    value = raw
    if isinstance(raw, str | bytes):
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise BlocksFormatError(str(exc)) from exc
    if not isinstance(value, list):
        raise BlocksFormatError("blocks must be an array")
    return value


def check_blocks(
    blocks: list[Any], *, limit: int = MESSAGE_BLOCK_LIMIT, pointer: str = "/blocks"
) -> list[str]:
    """Every limit `blocks` breaks, as Slack's `response_metadata.messages` lines (empty when valid)."""
    checker = _Checker()
    checker.blocks(blocks, pointer, limit)
    return checker.errors


def error_line(message: str, pointer: str) -> str:
    return f"[ERROR] {message} [json-pointer:{pointer}]"


class _Checker:
    """Walks one message's blocks, collecting errors; remembers ids that must be unique."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self._block_ids: set[str] = set()

    def fail(self, pointer: str, message: str) -> None:
        self.errors.append(error_line(message, pointer))

    # -- primitives ---------------------------------------------------------------------------

    def obj(self, value: object, pointer: str) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.fail(pointer, "must provide an object")
        return None

    def string(self, parent: dict[str, Any], key: str, pointer: str, max_len: int, *, required: bool) -> None:
        value = parent.get(key)
        where = f"{pointer}/{key}"
        if value is None:
            if required:
                self.fail(pointer, f"missing required field: {key}")
            return
        if not isinstance(value, str):
            self.fail(where, "must provide a string")
        elif not value and required:
            self.fail(where, "must be more than 0 characters")
        elif len(value) > max_len:
            self.fail(where, f"must be less than {max_len + 1} characters")

    def array(
        self, parent: dict[str, Any], key: str, pointer: str, max_items: int, *, required: bool = True
    ) -> list[Any]:
        value = parent.get(key)
        where = f"{pointer}/{key}"
        if value is None:
            if required:
                self.fail(pointer, f"missing required field: {key}")
            return []
        if not isinstance(value, list):
            self.fail(where, "must provide an array")
            return []
        if required and not value:
            self.fail(where, "must provide at least 1 item")
        if len(value) > max_items:
            self.fail(where, f"no more than {max_items} items allowed")
        return value

    def text(
        self,
        parent: dict[str, Any],
        key: str,
        pointer: str,
        max_len: int,
        *,
        required: bool = True,
        plain_only: bool = False,
    ) -> None:
        """A text object: `{"type": "plain_text"|"mrkdwn", "text": ...}` with a length limit."""
        if key not in parent:
            if required:
                self.fail(pointer, f"missing required field: {key}")
            return
        where = f"{pointer}/{key}"
        self.text_object(parent[key], where, max_len, plain_only=plain_only)

    def text_object(self, value: object, pointer: str, max_len: int, *, plain_only: bool = False) -> None:
        text = self.obj(value, pointer)
        if text is None:
            return
        kind = text.get("type")
        if kind not in TEXT_TYPES or (plain_only and kind != "plain_text"):
            allowed = "plain_text" if plain_only else "plain_text, mrkdwn"
            self.fail(f"{pointer}/type", f"must be one of: {allowed}")
        self.string(text, "text", pointer, max_len, required=True)

    def unique(self, parent: dict[str, Any], key: str, pointer: str, seen: set[str]) -> None:
        """An id of at most 255 characters that appears once in its scope."""
        self.string(parent, key, pointer, 255, required=False)
        value = parent.get(key)
        if isinstance(value, str) and value:
            if value in seen:
                self.fail(f"{pointer}/{key}", f"duplicate {key}: {value}")
            seen.add(value)

    # -- blocks -------------------------------------------------------------------------------

    def blocks(self, blocks: list[Any], pointer: str, limit: int) -> None:
        if len(blocks) > limit:
            self.fail(pointer, f"no more than {limit} items allowed")
        for index, raw in enumerate(blocks):
            self.block(raw, f"{pointer}/{index}")

    def block(self, raw: object, pointer: str) -> None:
        block = self.obj(raw, pointer)
        if block is None:
            return
        kind = block.get("type")
        check = self._block_checks().get(kind) if isinstance(kind, str) else None
        if check is None:
            self.fail(f"{pointer}/type", f"unsupported block type: {kind}")
            return
        self.unique(block, "block_id", pointer, self._block_ids)
        check(block, pointer, set())

    def _block_checks(self) -> dict[str, Callable[[dict[str, Any], str, set[str]], None]]:
        return {
            "section": self._section,
            "header": self._header,
            "divider": lambda _block, _pointer, _ids: None,
            "context": self._context,
            "actions": self._actions,
            "image": self._image,
            "rich_text": self._rich_text,
            "input": self._input,
        }

    def _section(self, block: dict[str, Any], pointer: str, action_ids: set[str]) -> None:
        if "text" not in block and "fields" not in block:
            self.fail(pointer, "must provide either text or fields")
        self.text(block, "text", pointer, 3000, required=False)
        fields = self.array(block, "fields", pointer, 10, required=False)
        for index, field in enumerate(fields):
            self.text_object(field, f"{pointer}/fields/{index}", 2000)
        if "accessory" in block:
            self.element(block["accessory"], f"{pointer}/accessory", action_ids)

    def _header(self, block: dict[str, Any], pointer: str, _action_ids: set[str]) -> None:
        self.text(block, "text", pointer, 150, plain_only=True)

    def _context(self, block: dict[str, Any], pointer: str, _action_ids: set[str]) -> None:
        for index, raw in enumerate(self.array(block, "elements", pointer, 10)):
            where = f"{pointer}/elements/{index}"
            element = self.obj(raw, where)
            if element is None:
                continue
            if element.get("type") == "image":
                self._image_fields(element, where)
            else:
                self.text_object(element, where, 3000)

    def _actions(self, block: dict[str, Any], pointer: str, action_ids: set[str]) -> None:
        for index, raw in enumerate(self.array(block, "elements", pointer, 25)):
            self.element(raw, f"{pointer}/elements/{index}", action_ids)

    def _image(self, block: dict[str, Any], pointer: str, _action_ids: set[str]) -> None:
        self._image_fields(block, pointer)
        self.text(block, "title", pointer, 2000, required=False, plain_only=True)

    def _image_fields(self, image: dict[str, Any], pointer: str) -> None:
        if "slack_file" not in image:
            self.string(image, "image_url", pointer, 3000, required=True)
        self.string(image, "alt_text", pointer, 2000, required=True)

    def _rich_text(self, block: dict[str, Any], pointer: str, _action_ids: set[str]) -> None:
        for index, raw in enumerate(self.array(block, "elements", pointer, 10_000)):
            self.obj(raw, f"{pointer}/elements/{index}")

    def _input(self, block: dict[str, Any], pointer: str, action_ids: set[str]) -> None:
        self.text(block, "label", pointer, 2000, plain_only=True)
        self.text(block, "hint", pointer, 2000, required=False, plain_only=True)
        if "element" not in block:
            self.fail(pointer, "missing required field: element")
        else:
            self.element(block["element"], f"{pointer}/element", action_ids)

    # -- elements -----------------------------------------------------------------------------

    def element(self, raw: object, pointer: str, action_ids: set[str]) -> None:
        """An interactive element; its action_id must be unique within the containing block."""
        element = self.obj(raw, pointer)
        if element is None:
            return
        kind = element.get("type")
        if kind not in ELEMENT_TYPES:
            self.fail(f"{pointer}/type", f"unsupported element type: {kind}")
            return
        if kind == "image":
            self._image_fields(element, pointer)
            return
        self.unique(element, "action_id", pointer, action_ids)
        self.text(element, "placeholder", pointer, 150, required=False, plain_only=True)
        if kind == "button":
            self._button(element, pointer)
        if "confirm" in element:
            self._confirm(element["confirm"], f"{pointer}/confirm")

    def _button(self, button: dict[str, Any], pointer: str) -> None:
        self.text(button, "text", pointer, 75, plain_only=True)
        self.string(button, "value", pointer, 2000, required=False)
        self.string(button, "url", pointer, 3000, required=False)
        style = button.get("style")
        if style is not None and style not in ("primary", "danger"):
            self.fail(f"{pointer}/style", "must be one of: primary, danger")

    def _confirm(self, raw: object, pointer: str) -> None:
        confirm = self.obj(raw, pointer)
        if confirm is None:
            return
        self.text(confirm, "title", pointer, 100, plain_only=True)
        self.text(confirm, "text", pointer, 300)
        self.text(confirm, "confirm", pointer, 30, plain_only=True)
        self.text(confirm, "deny", pointer, 30, plain_only=True)


def check_view(view: dict[str, Any]) -> list[str]:
    """The limits of a modal or Home tab view, its blocks included (pointers start at `/view`)."""
    checker = _Checker()
    pointer = "/view"
    kind = view.get("type")
    if kind not in ("modal", "home"):
        checker.fail(f"{pointer}/type", "must be one of: modal, home")
    if kind == "modal":
        checker.text(view, "title", pointer, 24, plain_only=True)
    for key in ("submit", "close"):
        checker.text(view, key, pointer, 24, required=False, plain_only=True)
    checker.string(view, "callback_id", pointer, 255, required=False)
    checker.string(view, "private_metadata", pointer, 3000, required=False)
    blocks = view.get("blocks")
    if not isinstance(blocks, list):
        checker.fail(f"{pointer}/blocks", "must provide an array")
    else:
        checker.blocks(blocks, f"{pointer}/blocks", VIEW_BLOCK_LIMIT)
    return checker.errors
