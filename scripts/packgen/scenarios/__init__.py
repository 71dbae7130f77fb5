"""One module per scenario (`pNN_*.py`, in file-name order); each exposes `NAME` and `build() -> Pack`."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from types import ModuleType

MODULES = sorted(p.stem for p in Path(__file__).parent.glob("p[0-9]*.py"))


def all_scenarios() -> list[ModuleType]:
    return [import_module(f"{__name__}.{m}") for m in MODULES]
