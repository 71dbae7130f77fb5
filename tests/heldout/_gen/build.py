"""Regenerate the held-out packs: `.venv/bin/python -m tests.heldout._gen.build [name-substring ...]`."""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# One module per pack (`p<N>_*.py`, in number order), each with `NAME` and `build(root)`.
MODULES = [
    import_module(f"{__package__}.{p.stem}")
    for p in sorted(Path(__file__).parent.glob("p[0-9]*.py"), key=lambda p: int(p.stem[1:].split("_")[0]))
]


def main(argv: list[str]) -> int:
    for mod in MODULES:
        if argv and not any(a in mod.NAME for a in argv):
            continue
        info = mod.build(ROOT)
        print(f"{info['name']}: alert startsAt {info['starts']} value {info['value']:.4g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
