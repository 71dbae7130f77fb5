"""The attribution's figures on the labelled corpus: per split, per stage and per source family.

Code right, unattributed, and a wrong layer (the worst miss: the page goes to another team), for
the rules with the learned stage and for the rules alone. The test split is the held-out figure:
no rule was written from it and the model never learned from it.

    .venv/bin/python bench/attribution/score.py [--split test] [--corpus FILE] [--misses]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.triage.corpus import SPLITS, load_corpus, score
from bot.triage.knowledge import Knowledge

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "triage" / "corpus" / "real_lines.tsv"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a TSV in the corpus's columns")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="test")
    parser.add_argument("--misses", action="store_true", help="also list the lines not given their code")
    args = parser.parse_args()
    rows = [r for r in load_corpus(args.corpus) if args.split in ("all", r.split)]
    for title, knowledge in (
        ("rules + learned stage", Knowledge.load()),
        ("rules only", Knowledge.load(model=None)),
    ):
        result = score(rows, knowledge.attributor.attribute, knowledge.taxonomy)
        print(result.render(f"{args.split} split, {title}"))
        print()
        if args.misses and title.startswith("rules +"):
            for item, got in result.misses:
                print(f"  {item.code:<22} got {got:<22} {item.source:<40} {item.line[:120]}")
            print()


if __name__ == "__main__":
    main()
