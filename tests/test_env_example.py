"""`.env.example` documents every setting the bot reads, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_documented() -> None:
    text = (ROOT / ".env.example").read_text()
    documented = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    settings = {name.upper() for name in Settings.model_fields}
    assert settings <= documented, f"undocumented: {sorted(settings - documented)}"
    assert documented - settings <= {"PG_BINDIR"}, f"documented but unused: {sorted(documented - settings)}"
