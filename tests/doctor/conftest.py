"""The pack doctor's stand-ins are loaded with: the KV-cache surge (one namespace, one route)."""

from __future__ import annotations

import pytest

from bot.sandbox.pack import Pack, load_pack
from tests.conftest import ROOT

EXAMPLE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"


@pytest.fixture(scope="session")
def example() -> Pack:
    return load_pack(EXAMPLE)
