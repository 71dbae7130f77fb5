"""The taxonomy's vocabulary (rules/taxonomy.yaml): code meanings and aliases."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

TAXONOMY = Path(__file__).with_name("rules") / "taxonomy.yaml"


@cache
def _data(path: Path = TAXONOMY) -> dict[str, dict[str, object]]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return loaded if isinstance(loaded, dict) else {}


def code_meanings() -> dict[str, str]:
    """Every code and its one-line meaning."""
    return {str(k): str(v) for k, v in (_data().get("codes") or {}).items()}


def aliases() -> dict[str, str]:
    """Other names accepted for a code (e.g. MOD_INFERENCE_TIMEOUT → ENG_TIMEOUT)."""
    return {str(k): str(v) for k, v in (_data().get("aliases") or {}).items()}


def canonical(code: str) -> str:
    return aliases().get(code, code)


def meaning(code: str) -> str:
    """`CODE: Meaning` for a sentence."""
    text = code_meanings().get(code, "")
    return f"{code}: {text[0].upper()}{text[1:]}" if text else code
