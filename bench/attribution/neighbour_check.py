"""What a nearest-line check would add to the learned stage, out of fold, with and without it.

The check: the model answers only when the labelled line nearest to the new one (cosine of the same
tf-idf vectors) is of the layer it chose. It is not shipped: an exact lookup over every training
line costs about 0.6 ms a line asked, which takes the corpus mix of bench/attribution/run.py under
its 5,000 lines/s (README, Attribution). This runs the calibration's folds (one per recorded
collection round, fitted without that round, asked about the lines the rules of its day missed)
once, then chooses thresholds as training does, for three policies: no check (what ships), the
nearest line, and the three nearest lines all of the chosen layer. It prints, per policy:

- in sample: the thresholds chosen on all rounds and what they give on the same lines (the
  figures training stores), which flatters whichever policy has more knobs;
- nested: for each round in turn, thresholds chosen on the other rounds and counted on it, the
  estimate for a round nobody has seen.

    .venv/bin/python bench/attribution/neighbour_check.py      # needs the `dev` extra, minutes
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

import numpy as np

from bot.triage.attribution import DEFAULT_RULES, Attributor
from bot.triage.corpus import first_contact
from bot.triage.taxonomy import load_taxonomy, prefix
from bot.triage.training import (
    CORPUS,
    EMITTERS,
    FIRST_CONTACT,
    GRID,
    HANDWRITTEN,
    LAYER_GRID,
    LAYER_TARGET,
    MIN_ANSWERS,
    PRECISION_TARGET,
    fit,
    fold_jobs,
    training_set,
)

NEIGHBOUR_GRID = [0.0, 0.2, 0.3, 0.4]  # the cosine the nearest line (of the chosen layer) must have


@dataclass(frozen=True)
class Asked:
    """One asked line of one fold: the model's answer, its nearest fitted lines, the label."""

    fold: int
    share: float
    layer: float
    code: str
    nearest: list[tuple[float, str]]  # (similarity, code), the most similar first
    expected: str


def _fold(
    lines: list[str], codes: list[str], asked: list[str]
) -> list[tuple[float, float, str, list[tuple[float, str]]]]:
    fitted = fit(lines, codes)
    matrix = fitted.vectorizer.transform(lines)
    similarities = (fitted.vectorizer.transform(asked) @ matrix.T).toarray()
    out = []
    for (share, layer, code), row in zip(fitted.answers(asked), similarities, strict=True):
        top = np.argsort(-row, kind="stable")[:3]
        out.append((share, layer, code, [(float(row[n]), codes[n]) for n in top]))
    return out


def asked_lines() -> list[Asked]:
    """Every fold's answers, as training's calibration computes them."""
    from joblib import Parallel, delayed

    taxonomy = load_taxonomy()
    attributor = Attributor.load(taxonomy, DEFAULT_RULES)
    examples = training_set(taxonomy, attributor, CORPUS, HANDWRITTEN, EMITTERS)
    jobs = fold_jobs(examples, attributor, first_contact(FIRST_CONTACT))
    answers = Parallel(n_jobs=min(len(jobs), os.cpu_count() or 1))(
        delayed(_fold)(lines, codes, [e.line for e in asked]) for lines, codes, asked in jobs
    )
    return [
        Asked(f, share, layer, code, nearest, ex.code)
        for f, ((_l, _c, asked), fold) in enumerate(zip(jobs, answers, strict=True))
        for (share, layer, code, nearest), ex in zip(fold, asked, strict=True)
    ]


@dataclass(frozen=True)
class Gate:
    """One candidate: the code and layer thresholds, and how many nearest lines (0: none) must be of
    the chosen layer, the nearest at least `similarity` alike."""

    threshold: float
    layer: float
    nearest: int = 0
    similarity: float = 0.0

    def __call__(self, a: Asked) -> bool:
        if a.share < self.threshold or a.layer < self.layer:
            return False
        if not self.nearest:
            return True
        return a.nearest[0][0] >= self.similarity and all(
            prefix(c) == prefix(a.code) for _, c in a.nearest[: self.nearest]
        )


def policies() -> dict[str, list[Gate]]:
    """Each policy's candidate gates over training's grids."""
    out: dict[str, list[Gate]] = {"no check": [], "nearest line": [], "three nearest": []}
    for t, lt in itertools.product(GRID, LAYER_GRID):
        out["no check"].append(Gate(t, lt))
        for nt in NEIGHBOUR_GRID:
            out["nearest line"].append(Gate(t, lt, 1, nt))
            out["three nearest"].append(Gate(t, lt, 3, nt))
    return out


def tally(lines: list[Asked], gate: Gate) -> tuple[int, int, int]:
    """(answered, right, right layer)."""
    answered = [a for a in lines if gate(a)]
    return (
        len(answered),
        sum(a.code == a.expected for a in answered),
        sum(prefix(a.code) == prefix(a.expected) for a in answered),
    )


def choose(lines: list[Asked], candidates: list[Gate]) -> Gate | None:
    """Training's rule: the most right answers with both targets met (the fewest answers on ties)."""
    best: Gate | None = None
    key = (-1, 0)
    for gate in candidates:
        n, right, layer = tally(lines, gate)
        meets = n >= MIN_ANSWERS and right / n >= PRECISION_TARGET and layer / n >= LAYER_TARGET
        if meets and (right, -n) > key:
            best, key = gate, (right, -n)
    return best


def main() -> None:
    lines = asked_lines()
    folds = sorted({a.fold for a in lines})
    print(f"{len(lines)} asked lines in {len(folds)} rounds (the rules' first-contact misses)")
    for name, candidates in policies().items():
        chosen = choose(lines, candidates)
        if chosen is None:
            print(f"{name:<14} in sample: nothing reaches the targets")
            continue
        n, right, layer = tally(lines, chosen)
        nested = [0, 0, 0]
        for fold in folds:
            picked = choose([a for a in lines if a.fold != fold], candidates)
            if picked is not None:
                got = tally([a for a in lines if a.fold == fold], picked)
                nested = [x + y for x, y in zip(nested, got, strict=True)]
        print(
            f"{name:<14} in sample {chosen}: {n} answered, {right} right, {n - layer} another layer"
            f" | nested: {nested[0]} answered, {nested[1]} right, {nested[0] - nested[2]} another layer"
        )


if __name__ == "__main__":
    main()
