"""`python scripts/packgen generate|validate|list`: build the public packs and check them."""

from __future__ import annotations

import argparse
from pathlib import Path

from .readme import write_readme
from .scenarios import all_scenarios

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="packgen", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write packs (all, or the named ones)")
    gen.add_argument("names", nargs="*")
    gen.add_argument("--out", type=Path, default=ROOT / "scenarios")
    val = sub.add_parser("validate", help="check written packs")
    val.add_argument("names", nargs="*")
    val.add_argument("--dir", type=Path, default=ROOT / "scenarios")
    val.add_argument(
        "--prometheus", action="store_true", help="also evaluate each alert in a real Prometheus"
    )
    sub.add_parser("list", help="list the scenarios")
    args = parser.parse_args(argv)

    modules = all_scenarios()
    if args.command == "list":
        for mod in modules:
            print(f"{mod.NAME:45s} {(mod.__doc__ or '').strip().splitlines()[0]}")
        return 0
    if args.command == "generate":
        wanted = set(args.names)
        built = []
        for mod in modules:
            if wanted and mod.NAME not in wanted:
                continue
            pack = mod.build()
            built.append(pack)
            out = pack.write(args.out)
            size = sum(f.stat().st_size for f in out.iterdir())
            print(
                f"wrote {out.relative_to(args.out.parent) if out.is_relative_to(args.out.parent) else out} "
                f"({size / 1e6:.2f} MB) fires {pack.notes.get('fires', '?')}"
            )
        if not wanted:
            print(f"wrote {write_readme(args.out, modules, built)}")
        return 0
    from .validate import validate_all

    names = args.names or [m.NAME for m in modules]
    return validate_all(args.dir, names, prometheus=args.prometheus)
