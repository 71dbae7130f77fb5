"""The learned stage's fitting: a tf-idf vectorizer over `features` and two logistic regressions,
one over the codes and one over their layers (needs the `dev` extra: scikit-learn). Training fits it
on every labelled line (bot/triage/training.py), calibration once per fold (bot/triage/calibration.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bot.triage.learned import choose, features
from bot.triage.taxonomy import prefix

C = 10.0  # inverse regularisation, chosen on the dev split


@dataclass(frozen=True)
class Example:
    line: str
    code: str
    group: str  # what calibration folds keep together: a repository, or a synthetic source
    source: str
    real: bool  # from a public thread (calibrated on), not written with the rules


@dataclass(frozen=True)
class Fitted:
    """The tf-idf vectorizer over `features`, the vectors of the lines it was fitted on, and the two
    logistic regressions fitted on them: one over the codes, one over their layers."""

    vectorizer: Any
    matrix: Any  # the fitted lines' tf-idf vectors (CSR), one row per line
    codes: Any
    layers: Any

    def answers(self, lines: list[str]) -> list[tuple[float, float, str]]:
        """(the code's share of its layer, the layer's probability, the code) per line (`choose`)."""
        return self.answers_of(self.vectorizer.transform(lines))

    def answers_of(self, matrix: Any) -> list[tuple[float, float, str]]:
        """`answers` for lines already vectorized (rows of `vectorizer.transform`)."""
        p_codes = self.codes.predict_proba(matrix)
        p_layers = self.layers.predict_proba(matrix)
        code_layers = np.array([prefix(str(c)) for c in self.codes.classes_])
        layers = np.array([str(c) for c in self.layers.classes_])
        out = []
        for row, layer_row in zip(p_codes, p_layers, strict=True):
            k, share, layer = choose(row, code_layers, layer_row, layers)
            out.append((share, layer, str(self.codes.classes_[k])))
        return out


def fit(lines: list[str], codes: list[str]) -> Fitted:
    """The vectorizer and both regressions, fitted on these lines."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(analyzer=features, sublinear_tf=True, min_df=2, dtype=np.float32)
    matrix = vectorizer.fit_transform(lines)
    by_code = LogisticRegression(C=C, max_iter=5000).fit(matrix, codes)
    by_layer = LogisticRegression(C=C, max_iter=5000).fit(matrix, [prefix(c) for c in codes])
    return Fitted(vectorizer, matrix, by_code, by_layer)
