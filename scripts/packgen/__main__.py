"""Entry point for `python scripts/packgen`: puts `scripts/` on the path and runs the CLI."""

import sys
from pathlib import Path


def _main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from packgen.cli import main

    return main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(_main())
