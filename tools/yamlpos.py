"""Map a validation error's location to a line of the YAML (or JSON) text it came from.

Users edit YAML by hand; an error that says "line 12: services[0].slos[1].objective" is fixed in
seconds, one that says "validation error" is not. Shared, with the reading of a YAML file
itself, by the signal catalog here and by the bot's own data files (configuration, taxonomy,
rules, runbooks, packs).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError


def dotted(loc: tuple[Any, ...]) -> str:
    """`("services", 0, "name")` → `services[0].name`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# libyaml reads the rules and the configuration at every start about ten times faster; the pure
# loader reads a file that fails again, so that its error says what it always said.
FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compose(text: str) -> yaml.Node | None:
    """The node tree of `text` (JSON is read as YAML), or None when it cannot be composed."""
    try:
        return yaml.compose(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        return None


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, with libyaml when it is there; a YAMLError is the pure loader's."""
    try:
        return yaml.load(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        return yaml.safe_load(text)


def line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int:
    """Line (1-based) of the deepest node the location reaches."""
    if node is None:
        return 1
    line = node.start_mark.line + 1
    for part in loc:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    child = value
                    line = key.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def describe(exc: ValidationError, where: str, root: yaml.Node | None, *, line_offset: int = 0) -> list[str]:
    """One `where:line: field: message` string per error."""
    return [
        f"{where}:{line_of(root, tuple(err['loc'])) + line_offset}: "
        f"{dotted(tuple(err['loc'])) or '(top level)'}: {err['msg']}"
        for err in exc.errors()
    ]


class DataFileError(ValueError):
    """A data file cannot be read, is not YAML or has the wrong shape; the message names the file."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def read_yaml(path: Path, what: str, *, empty_ok: bool = False) -> tuple[str, dict[str, Any]]:
    """The file's text and its top-level mapping (an empty file is `{}` when `empty_ok`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataFileError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise DataFileError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if data is None and empty_ok:
        data = {}
    if not isinstance(data, dict):
        raise DataFileError(f"{path}:1: the top level of the {what} must be a mapping")
    return text, data


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """` (did you mean 'X'?)` for the closest known name, or nothing."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
