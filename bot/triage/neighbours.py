"""The learned stage's second opinion: the labelled line that shares the most rare features with a
new one, and whether it is of the layer the model chose.

A linear model can be sure of wording it has never seen when common n-grams ("error", "failed to")
carry the score. A labelled line that shares the new line's uncommon words and n-grams, and is of the
same layer, is evidence the model is reading the right thing; one of another layer is a reason to
abstain. Only rare features count (those in at most RARE_DF training lines): their postings are
short, so a lookup gathers about 1,400 weights where every feature's would be about 85,000, and out
of fold the check over rare features did better than the same check over every feature
(bench/attribution/neighbour_check.py). The calibration (bot/triage/calibration.py) builds the same
index from each fold's vectors, so the similarity threshold it picks means what scoring does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

RARE_DF = 50  # a feature in more training lines than this is too common to say which line is nearest

Vector = tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]  # feature indices, tf-idf weights


@dataclass(frozen=True)
class RareIndex:
    """Postings of the rare features: for each feature, the training lines holding it and their
    weights (`ptr[f]:ptr[f + 1]` in `rows` and `weights`)."""

    ptr: npt.NDArray[np.intp]
    rows: npt.NDArray[np.intp]
    weights: npt.NDArray[np.float32]
    size: int  # training lines

    @classmethod
    def build(cls, vectors: Sequence[Vector], n_features: int) -> RareIndex:
        """The index of these training lines' vectors (L2-normalised, as the model scores them)."""
        lengths = np.array([len(idx) for idx, _ in vectors], dtype=np.intp)
        if not lengths.sum():
            return cls(np.zeros(n_features + 1, dtype=np.intp), lengths[:0], np.zeros(0, np.float32), 0)
        features = np.concatenate([idx for idx, _ in vectors]).astype(np.intp)
        weights = np.concatenate([values for _, values in vectors]).astype(np.float32)
        rows = np.repeat(np.arange(len(vectors), dtype=np.intp), lengths)
        rare = np.bincount(features, minlength=n_features)[features] <= RARE_DF
        features, rows, weights = features[rare], rows[rare], weights[rare]
        order = np.argsort(features, kind="stable")
        ptr = np.zeros(n_features + 1, dtype=np.intp)
        np.cumsum(np.bincount(features, minlength=n_features), out=ptr[1:])
        return cls(ptr, rows[order], weights[order], len(vectors))

    def nearest(self, vector: Vector) -> tuple[int, float]:
        """(training line, similarity) of the line whose rare features weigh most against this
        vector's (the first such line on ties); (-1, 0.0) when it shares none with any line."""
        idx, values = vector
        if not len(idx):
            return -1, 0.0
        starts = self.ptr[idx]
        lengths = self.ptr[idx + 1] - starts
        total = int(lengths.sum())
        if not total:
            return -1, 0.0
        # the positions of every posting of the line's features, feature after feature
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
        scores = np.bincount(
            self.rows[offsets],
            weights=self.weights[offsets] * np.repeat(values, lengths),
            minlength=self.size,
        )
        best = int(np.argmax(scores))
        return best, float(scores[best])

    def nearest_layer(self, vector: Vector, layers: Sequence[str]) -> tuple[float, str]:
        """(similarity, layer) of the nearest line (`nearest`), `layers` giving each training line's;
        (0.0, "") when it shares no rare feature with any line: what the check (`agrees`) reads."""
        line, similarity = self.nearest(vector)
        return similarity, layers[line] if line >= 0 else ""


def agrees(similarity: float, neighbour_layer: str, layer: str, threshold: float) -> bool:
    """The check: a rare-feature neighbour exists, is at least `threshold` alike, and is of `layer`.
    One home for the rule, used by scoring and by calibration alike."""
    return similarity > 0 and similarity >= threshold and neighbour_layer == layer
