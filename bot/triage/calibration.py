"""Calibration of the learned stage's thresholds, out of fold, on the lines the rules miss.

The three thresholds (the code's share of its layer, the layer's probability, and the similarity of
the nearest rare-feature line, which must be of the chosen layer, or no such check) are those that give
the most right answers while those answers have the right code two times in three and the right layer
nine times in ten. Folds are grouped so that a project's wording is never in both the fitting and the
scoring side: where the corpus records which lines the rules of their day missed at first contact
(first_contact.tsv), a fold is one collection round asked about those lines; else folds are grouped by
source repository.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bot.triage.attribution import Attributor
from bot.triage.corpus import Contact, line_key
from bot.triage.envelope import unwrap
from bot.triage.failure_gate import says_failure
from bot.triage.fitting import SHIPPED, Example, Settings, fit_examples
from bot.triage.neighbours import RareIndex, Vector, agrees
from bot.triage.taxonomy import UNATTRIBUTED, prefix

PRECISION_TARGET = 2 / 3  # answer only where at least 2 in 3 out-of-fold answers had the right code
# and 9 in 10 the right layer: a wrong layer pages the wrong team. The target for the whole stage
# is at most 5 % of lines in a wrong layer, and the rules alone already give 4.4 % on the lines of
# the first-contact rounds; at 17 in 20 the model's answers took that to 6.2 %, at 9 in 10 to 5.0 %.
LAYER_TARGET = 0.9
MIN_ANSWERS = 10  # a threshold judged on fewer out-of-fold answers than this is noise
FOLDS = 5
GRID = [round(0.05 * i, 2) for i in range(2, 20)]
# the probability the layer must have
LAYER_GRID = [0.0, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
# the similarity of the nearest rare-feature line (of the chosen layer); -1: no such check
NEIGHBOUR_GRID = [-1.0, 0.0, 0.1, 0.2, 0.3]


def _wording(line: str) -> str:
    """A line with its numbers and case folded: copies that differ only there are one wording."""
    return " ".join(_NUMBER.sub("0", line.lower()).split())


_NUMBER = re.compile(r"0x[0-9a-f]+|\d+")
_COPY_MIN = 30  # a shorter example is a phrase, not a copy of a line


def _copied(wording: str, lines: list[str]) -> bool:
    """Whether `wording` is one of `lines`, or a long enough cut of one (or one is a cut of it)."""
    if len(wording) < _COPY_MIN:
        return wording in lines
    return any(wording in line or (len(line) >= _COPY_MIN and line in wording) for line in lines)


def _missed(contact: Contact) -> bool:
    return contact.missed


def _folds(
    examples: list[Example],
    attributor: Attributor,
    contacts: list[Contact],
    ask: Callable[[Contact], bool] = _missed,
) -> list[tuple[set[int], list[Example]]]:
    """(held-out indices, the lines asked about) per fold. With recorded rounds, a fold is one
    round, asked about its lines that `ask` picks (what the rules of its day missed: new wording
    meets a model that has never seen that round, as in production). Without, folds are grouped by
    repository and asked about what the rules miss."""
    from sklearn.model_selection import GroupKFold

    real = [i for i, ex in enumerate(examples) if ex.real]
    out = []
    if contacts:
        keys = {n: line_key(examples[n].source, examples[n].line) for n in real}
        for round_ in sorted({c.round for c in contacts}):
            members = {c.key for c in contacts if c.round == round_}
            picked = {c.key for c in contacts if c.round == round_ and ask(c)}
            held = {n for n in real if keys[n] in members}
            out.append((held, [examples[n] for n in sorted(held) if keys[n] in picked]))
        return out
    groups = [examples[i].group for i in real]
    for _fit_idx, score_idx in GroupKFold(n_splits=FOLDS).split(real, groups=groups):
        held = {real[i] for i in score_idx}
        asked = [examples[n] for n in sorted(held) if not attributor.attribute(examples[n].line).attributed]
        out.append((held, asked))
    return out


def fold_jobs(
    examples: list[Example],
    attributor: Attributor,
    contacts: list[Contact],
    ask: Callable[[Contact], bool] = _missed,
) -> list[tuple[list[Example], list[Example]]]:
    """Per fold (`_folds`, asking about the recorded lines `ask` picks): the lines it is fitted on,
    and the failure lines it is asked about; a fold that asks nothing is left out."""
    jobs = []
    for held, asked_all in _folds(examples, attributor, contacts, ask):
        asked = [ex for ex in asked_all if says_failure(unwrap(ex.line))]
        if not asked:
            continue
        # A rule's example copied from a held-out line (whole or cut) would let the fold see it.
        held_wording = [_wording(examples[n].line) for n in held]
        fitting = [
            ex
            for n, ex in enumerate(examples)
            if n not in held and (ex.real or not _copied(_wording(ex.line), held_wording))
        ]
        jobs.append((fitting, asked))
    return jobs


@dataclass(frozen=True)
class FoldAnswer:
    """What a fold's model said of one asked line, with the line's label."""

    share: float  # the code's share of its layer
    layer: float  # the layer's probability
    code: str
    similarity: float  # of the nearest rare-feature line of the fold's fitted lines (0: none)
    neighbour_layer: str  # that line's layer
    expected: str

    def passes(self, threshold: float, layer_threshold: float, neighbour: float) -> bool:
        """Whether the model, with these thresholds, answers the line (LearnedModel.best)."""
        if self.share < threshold or self.layer < layer_threshold or self.code == UNATTRIBUTED:
            return False
        return neighbour < 0 or agrees(self.similarity, self.neighbour_layer, prefix(self.code), neighbour)


def _rows(matrix: Any) -> list[Vector]:
    """A CSR matrix's rows as (feature indices, weights)."""
    return [
        (matrix.indices[a:b].astype(np.intp), matrix.data[a:b])
        for a, b in zip(matrix.indptr[:-1], matrix.indptr[1:], strict=True)
    ]


def _fold_answers(
    fitting: list[Example], asked: list[Example], settings: Settings = SHIPPED
) -> list[FoldAnswer]:
    """One fold: fitted on `fitting`, what it answers of each asked line and the line's nearest
    rare-feature neighbour among the fitted lines (the index scoring builds from the shipped lines)."""
    fitted = fit_examples(fitting, settings)
    index = RareIndex.build(_rows(fitted.matrix), len(fitted.vectorizer.vocabulary_))
    fitted_layers = [prefix(e.code) for e in fitting]
    vectors = fitted.vectorizer.transform([ex.line for ex in asked])
    out = []
    for (share, layer, code), vector, ex in zip(
        fitted.answers_of(vectors), _rows(vectors), asked, strict=True
    ):
        similarity, neighbour = index.nearest_layer(vector, fitted_layers)
        out.append(FoldAnswer(share, layer, code, similarity, neighbour, ex.code))
    return out


def fold_answers(
    examples: list[Example],
    attributor: Attributor,
    contacts: list[Contact],
    settings: Settings = SHIPPED,
) -> list[list[FoldAnswer]]:
    """Every fold's answers (`fold_jobs`, `_fold_answers`): what calibration chooses from."""
    from joblib import Parallel, delayed

    jobs = fold_jobs(examples, attributor, contacts)
    # The folds are independent fits: one process each, up to the cores there are (same answers).
    answers: list[list[FoldAnswer]] = Parallel(n_jobs=min(len(jobs), os.cpu_count() or 1) or 1)(
        delayed(_fold_answers)(fitting, asked, settings) for fitting, asked in jobs
    )
    return answers


def curve_point(
    answers: list[FoldAnswer], threshold: float, layer: float, neighbour: float
) -> dict[str, Any]:
    """What these thresholds answer of the asked lines: how many, how many right, right layer."""
    answered = [a for a in answers if a.passes(threshold, layer, neighbour)]
    return {
        "threshold": threshold,
        "layer_threshold": layer,
        "neighbour_similarity": neighbour,
        "answered": len(answered),
        "right": sum(a.code == a.expected for a in answered),
        "right_layer": sum(prefix(a.code) == prefix(a.expected) for a in answered),
    }


def sweep(answers: list[FoldAnswer], neighbour_grid: list[float] = NEIGHBOUR_GRID) -> list[dict[str, Any]]:
    """`curve_point` at every point of the grids, the strictest last."""
    return [curve_point(answers, t, lt, s) for t in GRID for lt in LAYER_GRID for s in neighbour_grid]


def choose_point(curve: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The point with the most right answers whose answers reach both targets (the fewest answers
    among equals: the fewest wrong ones); None when none does."""
    feasible = [
        c
        for c in curve
        if c["answered"] >= MIN_ANSWERS
        and c["right"] / c["answered"] >= PRECISION_TARGET
        and c["right_layer"] / c["answered"] >= LAYER_TARGET
    ]
    return max(feasible, key=lambda c: (c["right"], -c["answered"])) if feasible else None


def nested(per_fold: list[list[FoldAnswer]], neighbour_grid: list[float] = NEIGHBOUR_GRID) -> dict[str, int]:
    """Each fold counted under the thresholds chosen on the other folds: the estimate, for a round
    nobody has seen, of what calibration's choice answers (a fold where nothing reaches the targets
    answers nothing)."""
    out = {"answered": 0, "right": 0, "right_layer": 0}
    for k, fold in enumerate(per_fold):
        others = [a for j, f in enumerate(per_fold) if j != k for a in f]
        picked = choose_point(sweep(others, neighbour_grid))
        if picked is not None:
            got = curve_point(
                fold, picked["threshold"], picked["layer_threshold"], picked["neighbour_similarity"]
            )
            out = {key: out[key] + got[key] for key in out}
    return out


def report(per_fold: list[list[FoldAnswer]], neighbour_grid: list[float] = NEIGHBOUR_GRID) -> str:
    """What these folds' answers give, in one line: in sample (thresholds chosen on every fold, the
    figures training stores) and `nested`, the figure a way of fitting must win on."""
    chosen = choose_point(sweep([a for fold in per_fold for a in fold], neighbour_grid))
    got = nested(per_fold, neighbour_grid)
    sample = (
        "nothing reaches the targets"
        if chosen is None
        else f"({chosen['threshold']}, {chosen['layer_threshold']}, {chosen['neighbour_similarity']}):"
        f" {chosen['answered']} answered, {chosen['right']} right,"
        f" {chosen['answered'] - chosen['right_layer']} another layer"
    )
    return (
        f"in sample {sample} | nested: {got['answered']} answered, {got['right']} right,"
        f" {got['answered'] - got['right_layer']} another layer"
    )


def calibrate(
    examples: list[Example], attributor: Attributor, contacts: list[Contact] | None = None
) -> tuple[float, float, float, dict[str, Any]]:
    """The code, layer and neighbour thresholds whose out-of-fold answers reach the targets with
    the most right answers."""
    best = [a for fold in fold_answers(examples, attributor, contacts or []) for a in fold]
    curve = sweep(best)
    chosen = choose_point(curve) or curve[-1]  # none reaches the targets: the strictest point
    population = "first-contact misses, by round" if contacts else "lines the rules miss, by repository"
    summary = {"calibrated_on": population, "asked": len(best), "curve": curve, "chosen": chosen}
    return (
        float(chosen["threshold"]),
        float(chosen["layer_threshold"]),
        float(chosen["neighbour_similarity"]),
        summary,
    )
