"""The attribution's figures on the labelled corpus: per split, per stage and per source family.

Code right, unattributed, and a wrong layer (the worst miss: the page goes to another team), for
the rules with the learned stage and for the rules alone. The test split is the held-out figure:
no rule was written from it and the model never learned from it.

    .venv/bin/python bench/attribution/score.py [--split test] [--corpus FILE] [--misses]
    .venv/bin/python bench/attribution/score.py --first-contact
    .venv/bin/python bench/attribution/score.py --record r3 NEW_ROWS.tsv
    .venv/bin/python bench/attribution/score.py --reader
    .venv/bin/python bench/attribution/score.py --split test --interval

`--first-contact` prints, per collection round, how the rules of the day did on that round's lines
before any rule was written from them (first_contact.tsv): the figure for wording nobody has seen.
`--record ROUND FILE` is how a round gets there: run it on the new rows (the corpus's columns,
train and dev only) after appending them to the corpus and before writing any rule from them.
`--reader` scores reader_answers.tsv: what a large language model named for the lines the rules
of their day missed, reading each line alone, and first contact with the rules first and it after.
`--interval` adds how far the figures would move on another draw of repositories: the split is
drawn by repository, and one repository's lines succeed or fail together, so the interval comes
from resampling repositories, not lines (a change smaller than it says little).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.triage.corpus import (
    SPLITS,
    Contact,
    LabelledLine,
    first_contact,
    line_key,
    load_corpus,
    load_renamed,
    project,
    score,
)
from bot.triage.knowledge import Knowledge
from bot.triage.taxonomy import UNATTRIBUTED, load_taxonomy
from bot.triage.training import FIRST_CONTACT, RENAMED

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "triage" / "corpus" / "real_lines.tsv"
READER = CORPUS.with_name("reader_answers.tsv")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a TSV in the corpus's columns")
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="test")
    parser.add_argument("--misses", action="store_true", help="also list the lines not given their code")
    parser.add_argument("--first-contact", action="store_true", help="each round's first-contact figures")
    parser.add_argument("--record", nargs=2, metavar=("ROUND", "FILE"), help="record a round's first contact")
    parser.add_argument("--reader", action="store_true", help="score reader_answers.tsv (see above)")
    parser.add_argument("--interval", action="store_true", help="add the figures' interval over repositories")
    args = parser.parse_args()
    if args.record:
        record(args.record[0], load_corpus(Path(args.record[1])))
        return
    if args.first_contact:
        print_first_contact(load_corpus(args.corpus))
        return
    if args.reader:
        print_reader(load_corpus(args.corpus))
        return
    rows = [r for r in load_corpus(args.corpus) if args.split in ("all", r.split)]
    for title, knowledge in (
        ("rules + learned stage", Knowledge.load()),
        ("rules only", Knowledge.load(model=None)),
    ):
        result = score(rows, knowledge.attributor.attribute, knowledge.taxonomy)
        print(result.render(f"{args.split} split, {title}"))
        print()
        if args.interval:
            print(interval(rows, knowledge))
            print()
        if args.misses and title.startswith("rules +"):
            for item, got in result.misses:
                print(f"  {item.code:<22} got {got:<22} {item.source:<40} {item.line[:120]}")
            print()


DRAWS = 2000


def interval(rows: list[LabelledLine], knowledge: Knowledge) -> str:
    """The 90 % interval of each figure over repositories drawn with replacement (fixed seed)."""
    renamed = load_renamed(RENAMED)
    by_repository: dict[str, list[LabelledLine]] = {}
    for row in rows:
        by_repository.setdefault(project(row.source, renamed), []).append(row)
    tallies = [
        score(group, knowledge.attributor.attribute, knowledge.taxonomy).overall
        for group in by_repository.values()
    ]
    counts = np.array([[t.total, t.right, t.unattributed, t.wrong_layer] for t in tallies], dtype=np.float64)
    draws = np.random.default_rng(0).integers(0, len(counts), size=(DRAWS, len(counts)))
    sums = counts[draws].sum(axis=1)
    low, high = np.percentile(sums[:, 1:] / sums[:, :1], [5, 95], axis=0)
    spans = ", ".join(
        f"{name} {a:.1%} to {b:.1%}"
        for name, a, b in zip(("right", "unattributed", "wrong layer"), low, high, strict=True)
    )
    return f"90 % interval over {len(counts)} repositories ({DRAWS} draws): {spans}"


@dataclass(frozen=True)
class _Recorded:
    code: str
    stage: str

    @classmethod
    def of(cls, code: str, stage: str) -> _Recorded:
        """A recorded answer; a stage answers only when it named a code."""
        return cls(code, "none" if code == UNATTRIBUTED else stage)


def print_first_contact(rows: list[LabelledLine]) -> None:
    """Score each round's recorded first-contact answers against the lines' labels."""
    taxonomy = load_taxonomy()
    by_key = {line_key(r.source, r.line): r for r in rows}
    contacts = first_contact(FIRST_CONTACT)
    rounds = list(dict.fromkeys(c.round for c in contacts))  # in the order they were recorded
    for round_ in [*rounds, None]:
        met = [c for c in contacts if round_ is None or c.round == round_]
        lines = [by_key[c.key] for c in met]
        recorded = {by_key[c.key].line: _Recorded.of(c.answer, "rule") for c in met}
        title = f"round {round_}" if round_ else f"all {len(rounds)} rounds"
        print(
            score(lines, recorded.__getitem__, taxonomy).render(f"{title}, first contact (rules of the day)")
        )
        print()


def print_reader(rows: list[LabelledLine]) -> None:
    """The reader alone on the lines the rules of their day missed, then the rules of the day with
    the reader on what they missed, over the rounds it read."""
    taxonomy = load_taxonomy()
    by_key = {line_key(r.source, r.line): r for r in rows}
    read_by = first_contact(READER)
    read = {c.key: c.answer for c in read_by}
    rounds = list(dict.fromkeys(c.round for c in read_by))  # in the order they were recorded
    met = [c for c in first_contact(FIRST_CONTACT) if c.round in rounds]
    answers = {
        by_key[c.key].line: _Recorded.of(read[c.key], "reader")
        if c.key in read
        else _Recorded.of(c.answer, "rule")
        for c in met
    }
    missed = [by_key[key] for key in read]
    title = "the reader alone, on the lines the rules of their day missed"
    print(score(missed, answers.__getitem__, taxonomy).render(title))
    print()
    title = f"rounds {', '.join(rounds)}: rules of the day, then the reader"
    print(score([by_key[c.key] for c in met], answers.__getitem__, taxonomy).render(title))
    print()


def record(round_: str, rows: list[LabelledLine]) -> None:
    """Append each row with the code the current rules give it (the learned stage off)."""
    if any(r.split == "test" for r in rows):
        raise SystemExit("a test-split row cannot be recorded: the learned stage is calibrated on these")
    known = {c.key for c in first_contact(FIRST_CONTACT)}
    attributor = Knowledge.load(model=None).attributor
    new = [r for r in rows if line_key(r.source, r.line) not in known]
    with FIRST_CONTACT.open("a", encoding="utf-8") as out:
        for r in new:
            contact = Contact(round_, line_key(r.source, r.line), attributor.attribute(r.line).code)
            out.write(contact.row() + "\n")
    print(f"recorded {len(new)} lines as round {round_} in {FIRST_CONTACT}")


if __name__ == "__main__":
    main()
