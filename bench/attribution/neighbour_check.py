"""What the learned stage's neighbour check adds, out of fold, against no check and an exact one.

The check the calibration may choose (bot/triage/neighbours.py; since word triples joined the
features it chooses none): the model answers only when the labelled line
sharing the most rare features with the new one (features in at most RARE_DF training lines) is of
the layer it chose. This runs the calibration's folds (bot/triage/calibration.py: one per recorded
collection round, fitted without that round, asked about the lines the rules of its day missed) once,
then chooses thresholds as the calibration does for three policies over the same grids: no check, the
check over rare features (bot/triage/neighbours.py), and the nearest line over every feature (the exact cosine, whose
lookup gathers about sixty times the postings). It prints, per policy:

- in sample: the thresholds chosen on all rounds and what they give on the same lines (the
  figures training stores), which flatters whichever policy has more knobs;
- nested: for each round in turn, thresholds chosen on the other rounds and counted on it, the
  estimate for a round nobody has seen.

    .venv/bin/python bench/attribution/neighbour_check.py      # needs the `dev` extra, minutes
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES
from bot.triage.calibration import FoldAnswer, fold_answers, fold_jobs, report
from bot.triage.corpus import first_contact
from bot.triage.fitting import Example, fit_examples
from bot.triage.taxonomy import load_taxonomy, prefix
from bot.triage.training import CORPUS, EMITTERS, FIRST_CONTACT, HANDWRITTEN, training_set


def _exact(fitting: list[Example], asked: list[str]) -> list[tuple[float, str]]:
    """(similarity, layer) of the nearest fitted line by the cosine over every feature."""
    lines, codes = [e.line for e in fitting], [e.code for e in fitting]
    vectorizer = fit_examples(fitting).vectorizer
    similarities = (vectorizer.transform(asked) @ vectorizer.transform(lines).T).toarray()
    out = []
    for row in similarities:
        n = int(np.argmax(row))
        out.append((float(row[n]), prefix(codes[n])))
    return out


def folds() -> dict[str, list[list[FoldAnswer]]]:
    """Each policy's answers per fold: the calibration's, and the same with the exact neighbour."""
    from joblib import Parallel, delayed

    taxonomy = load_taxonomy()
    attributor = Attributor.load(taxonomy, DEFAULT_RULES)
    examples = training_set(taxonomy, attributor, CORPUS, HANDWRITTEN, EMITTERS)
    contacts = first_contact(FIRST_CONTACT)
    shipped = fold_answers(examples, attributor, contacts)
    jobs = fold_jobs(examples, attributor, contacts)
    exact = Parallel(n_jobs=min(len(jobs), os.cpu_count() or 1))(
        delayed(_exact)(fitting, [e.line for e in asked]) for fitting, asked in jobs
    )
    return {
        "rare features": shipped,
        "every feature": [
            [
                dataclasses.replace(a, similarity=s, neighbour_layer=layer)
                for a, (s, layer) in zip(f, e, strict=True)
            ]
            for f, e in zip(shipped, exact, strict=True)
        ],
    }


def main() -> None:
    answers = folds()
    asked = sum(len(f) for f in answers["rare features"])
    print(f"{asked} asked lines in {len(answers['rare features'])} rounds (the rules' first-contact misses)")
    print(f"{'no check':<24} {report(answers['rare features'], [-1.0])}")
    print(f"{'rare features':<24} {report(answers['rare features'])}")
    print(f"{'every feature':<24} {report(answers['every feature'])}")


if __name__ == "__main__":
    main()
