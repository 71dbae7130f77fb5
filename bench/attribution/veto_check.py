"""Whether the learned stage's layer model can tell when a rule's answer is in another layer.

At first contact (first_contact.tsv) the rules answer about half of a new round's lines, right four
times in five and in another layer about one time in ten: most of the wrong layers the split counts
come from the rules, not the model. A veto would withdraw a rule's answer where the layer model,
fitted without that round, is confident of another layer. This runs the calibration's folds (one
per recorded round, bot/triage/calibration.py) asking about the lines the rules of their day
answered, and prints, per threshold, how many answers the veto would withdraw, how many of them
were right and how many were in another layer. A veto is worth shipping only where it withdraws
far more wrong layers than right answers.

    .venv/bin/python bench/attribution/veto_check.py      # needs the `dev` extra, minutes
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES
from bot.triage.calibration import fold_jobs
from bot.triage.corpus import first_contact, line_key
from bot.triage.fitting import Example, fit_examples
from bot.triage.taxonomy import load_taxonomy, prefix
from bot.triage.training import CORPUS, EMITTERS, FIRST_CONTACT, HANDWRITTEN, training_set

THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)


@dataclass(frozen=True)
class Met:
    """A line the rules of its day answered, with the layer model's opinion of it out of fold."""

    expected: str  # the thread's code
    rule: str  # the code the rules gave
    layer: str  # the layer model's most probable layer
    probability: float  # and its probability


def _fold(fitting: list[Example], asked: list[Example], rules: list[str]) -> list[Met]:
    fitted = fit_examples(fitting)
    probabilities = fitted.layers.predict_proba(fitted.vectorizer.transform([e.line for e in asked]))
    layers = [str(c) for c in fitted.layers.classes_]
    out = []
    for ex, rule, row in zip(asked, rules, probabilities, strict=True):
        best = int(row.argmax())
        out.append(Met(ex.code, rule, layers[best], float(row[best])))
    return out


def met_lines() -> list[Met]:
    """Every fold's answered lines: the calibration's folds, asked about what the rules answered."""
    from joblib import Parallel, delayed

    taxonomy = load_taxonomy()
    attributor = Attributor.load(taxonomy, DEFAULT_RULES)
    examples = training_set(taxonomy, attributor, CORPUS, HANDWRITTEN, EMITTERS)
    contacts = first_contact(FIRST_CONTACT)
    answered = {c.key: taxonomy.resolve(c.answer) for c in contacts if not c.missed}
    jobs = fold_jobs(examples, attributor, contacts, ask=lambda c: not c.missed)
    folds = Parallel(n_jobs=min(len(jobs), os.cpu_count() or 1))(
        delayed(_fold)(fitting, asked, [answered[line_key(e.source, e.line)] for e in asked])
        for fitting, asked in jobs
    )
    return [m for fold in folds for m in fold]


def main() -> None:
    met = met_lines()
    right = sum(m.rule == m.expected for m in met)
    wrong_layer = sum(prefix(m.rule) != prefix(m.expected) for m in met)
    print(f"{len(met)} lines the rules of their day answered: {right} right, {wrong_layer} another layer")
    for t in THRESHOLDS:
        vetoed = [m for m in met if m.layer != prefix(m.rule) and m.probability >= t]
        print(
            f"veto at {t:.2f}: withdraws {len(vetoed)},"
            f" {sum(m.rule == m.expected for m in vetoed)} of them right,"
            f" {sum(prefix(m.rule) != prefix(m.expected) for m in vetoed)} in another layer"
            f" (the model's layer right for {sum(m.layer == prefix(m.expected) for m in vetoed)})"
        )


if __name__ == "__main__":
    main()
