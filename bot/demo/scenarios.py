"""The bundled scenarios a demo can run: the packs in the repository's `scenarios/` folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.errors import NotFoundError
from bot.sandbox.pack import Pack, load_meta, load_pack

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


class UnknownScenario(NotFoundError):
    """The name is not a bundled scenario; the message lists the ones there are."""


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path
    summary: str  # the pack's description, first sentence


def bundled(folder: Path = SCENARIOS) -> list[Scenario]:
    """Every pack folder (one with a scenario.yaml), by name."""
    found = []
    for path in sorted(p for p in folder.iterdir() if (p / "scenario.yaml").is_file()):
        meta = load_meta(path)  # the listing needs no metrics, logs or objects
        found.append(Scenario(meta.name, path, first_sentence(meta.description or "")))
    return found


def first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    head, dot, _ = flat.partition(". ")
    return head + ("." if dot else "")


def load(name: str, folder: Path = SCENARIOS) -> Pack:
    path = folder / name
    if not (path / "scenario.yaml").is_file():
        names = ", ".join(s.name for s in bundled(folder))
        raise UnknownScenario(f"no bundled scenario {name!r}; there are: {names}")
    return load_pack(path, with_expected=False)
