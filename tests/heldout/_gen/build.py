"""Regenerate the held-out packs: `.venv/bin/python -m tests.heldout._gen.build [name-substring ...]`."""

from __future__ import annotations

import sys
from pathlib import Path

from . import p1_nccl, p2_overload, p3_imagepull, p4_triton_kv, p5_sglang_oom, p6_engine_crash

ROOT = Path(__file__).resolve().parents[1]
MODULES = [p1_nccl, p2_overload, p3_imagepull, p4_triton_kv, p5_sglang_oom, p6_engine_crash]


def main(argv: list[str]) -> int:
    for mod in MODULES:
        if argv and not any(a in mod.NAME for a in argv):
            continue
        info = mod.build(ROOT)
        print(f"{info['name']}: alert startsAt {info['starts']} value {info['value']:.4g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
