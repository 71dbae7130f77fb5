"""Reading the data files users edit (configuration, taxonomy, rules): one error style for all.

A file that cannot be read, is not YAML or is not a mapping stops start-up with a ConfigError
naming the file and line (the reading itself is shared with the tools' signal catalog).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.errors import ConfigError
from tools import yamlpos
from tools.yamlpos import did_you_mean

__all__ = ["did_you_mean", "read_yaml"]


def read_yaml(path: Path, what: str, *, empty_ok: bool = False) -> tuple[str, dict[str, Any]]:
    """The file's text and its top-level mapping; ConfigError naming the file (and line) otherwise."""
    try:
        return yamlpos.read_yaml(path, what, empty_ok=empty_ok)
    except yamlpos.DataFileError as exc:
        raise ConfigError(exc.message) from exc
