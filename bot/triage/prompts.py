"""Prompts are files (prompts/*.j2, partials start with `_`), rendered with StrictUndefined so a
missing variable fails loudly instead of sending the model a hole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from bot import shipped

PROMPTS = shipped.PROMPTS  # the top-level prompts/, or the wheel's copy


def environment(folder: Path = PROMPTS) -> Environment:
    return Environment(
        loader=FileSystemLoader(folder),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=False,
    )


def render(name: str, folder: Path = PROMPTS, **context: Any) -> str:
    return environment(folder).get_template(name).render(**context)


def templates(folder: Path = PROMPTS) -> list[str]:
    """The top-level templates (partials are rendered through them)."""
    return sorted(p.name for p in folder.glob("*.j2") if not p.name.startswith("_"))
