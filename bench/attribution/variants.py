"""Ways of fitting the learned stage, compared on the calibration's folds.

Each variant (a `Settings` of bot/triage/fitting.py) is fitted once per recorded collection round,
without that round, and asked about the lines the rules of its day missed (bot/triage/calibration.py),
then its thresholds are chosen as the calibration chooses them. Per variant it prints:

- best guess: how many asked lines the model's most probable code gets right, thresholds aside;
- in sample: the thresholds chosen on all rounds and what they give on the same lines;
- nested: each round counted under thresholds chosen on the other rounds, the estimate for a round
  nobody has seen, and the figure a variant must win on to ship.

    .venv/bin/python bench/attribution/variants.py                      # every variant, five to twelve minutes each
    .venv/bin/python bench/attribution/variants.py shipped weighed-0.5   # some of them
"""

from __future__ import annotations

import argparse

from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES
from bot.triage.calibration import fold_answers, report
from bot.triage.corpus import first_contact
from bot.triage.envelope import unwrap
from bot.triage.fitting import SHIPPED, Settings
from bot.triage.learned import features
from bot.triage.log_header import strip_header
from bot.triage.taxonomy import load_taxonomy
from bot.triage.training import CORPUS, EMITTERS, FIRST_CONTACT, HANDWRITTEN, training_set


def without_triples(text: str) -> list[str]:
    """The features as they were before word triples (r19's model)."""
    return [f for f in features(text) if not f.startswith("t ")]


def triples_last(text: str) -> list[str]:
    """The shipped features with the word triples moved to the end: the same features, counted the
    same, in another order, which tells how far the solver's order alone moves the counts."""
    feats = features(text)
    return [f for f in feats if not f.startswith("t ")] + [f for f in feats if f.startswith("t ")]


def header_stripped(text: str) -> list[str]:
    """The features of the message without its logger's header (log_header.py) as well as its
    shipper's envelope: a line would read the same with a header or without, but out of fold the
    model answers fewer lines (docs/attribution-corpus.md)."""
    return features(text, reader=lambda line: strip_header(unwrap(line)))


VARIANTS = {
    "shipped": SHIPPED,
    "no-triples": Settings(analyzer=without_triples),
    "triples-last": Settings(analyzer=triples_last),
    "c3": Settings(c=3.0),
    "c30": Settings(c=30.0),
    "balanced": Settings(class_weight="balanced"),
    "min-df-1": Settings(min_df=1),
    # a repository with many lines (or a rule with many examples) weighs less per line: the split
    # and production meet repositories the fit has never seen
    "weighed-0.5": Settings(group_power=0.5),
    "weighed-1": Settings(group_power=1.0),
    "header-stripped": Settings(analyzer=header_stripped),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", help=f"variants to run, of {', '.join(VARIANTS)} (default: all)")
    names = parser.parse_args(argv).names or list(VARIANTS)
    unknown = sorted(set(names) - set(VARIANTS))
    if unknown:
        parser.error(f"no variant named {', '.join(unknown)}")
    taxonomy = load_taxonomy()
    attributor = Attributor.load(taxonomy, DEFAULT_RULES)
    examples = training_set(taxonomy, attributor, CORPUS, HANDWRITTEN, EMITTERS)
    contacts = first_contact(FIRST_CONTACT)
    for name in names:
        per_fold = fold_answers(examples, attributor, contacts, VARIANTS[name])
        every = [a for fold in per_fold for a in fold]
        guess = sum(a.code == a.expected for a in every)
        print(f"{name:<12} {len(every)} asked, best guess {guess} right | {report(per_fold)}", flush=True)


if __name__ == "__main__":
    main()
