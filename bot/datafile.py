"""Reading the data files users edit (taxonomy, rules, configuration): one error style for all.

A file that cannot be read, is not YAML or is not a mapping stops start-up with the file and line.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from bot.errors import ConfigError


def read_yaml(path: Path, what: str) -> tuple[str, dict[str, Any]]:
    """The file's text and its top-level mapping; ConfigError naming the file (and line) otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: the {what} must be a mapping")
    return text, data


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """` (did you mean 'X'?)` for the closest known name, or nothing."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
