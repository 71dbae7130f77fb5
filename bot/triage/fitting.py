"""The learned stage's fitting: a tf-idf vectorizer over `features` and two logistic regressions,
one over the codes and one over their layers (needs the `dev` extra: scikit-learn). Training fits it
on every labelled line (bot/triage/training.py), calibration once per fold (bot/triage/calibration.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bot.triage.learned import choose, features
from bot.triage.taxonomy import prefix


@dataclass(frozen=True)
class Settings:
    """How the stage is fitted. Training ships SHIPPED; bench/attribution/variants.py measures
    others on the calibration's folds. Scoring computes `features` itself, so a variant with another
    analyzer can be measured but not shipped without changing scoring too."""

    c: float = 10.0  # inverse regularisation
    min_df: int = 2  # a feature seen in fewer lines is dropped
    class_weight: str | None = None  # "balanced": classes weighed by their inverse frequency
    group_power: float = 0.0  # a line weighs 1 / (lines of its weight group) ** power
    analyzer: Callable[[str], list[str]] = features


SHIPPED = Settings()
C = SHIPPED.c


@dataclass(frozen=True)
class Example:
    line: str
    code: str
    group: str  # what calibration folds keep together: a repository, or a synthetic source
    source: str
    real: bool  # from a public thread (calibrated on), not written with the rules

    @property
    def weight_group(self) -> str:
        """The lines `Settings.group_power` weighs together: a real line's repository, or the rule,
        emitter or hand-written source a synthetic line came from."""
        return self.group if self.real else self.source


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


def line_weights(groups: list[str] | None, power: float) -> np.ndarray | None:
    """Per line, 1 / (lines of its group) ** power, scaled to a mean of 1 (so that C keeps its
    meaning); None (every line weighs 1) without groups or power."""
    if not groups or not power:
        return None
    sizes = Counter(groups)
    raw = np.array([sizes[g] ** -power for g in groups], dtype=np.float64)
    out: np.ndarray = raw * (len(raw) / raw.sum())
    return out


def fit(
    lines: list[str], codes: list[str], groups: list[str] | None = None, settings: Settings = SHIPPED
) -> Fitted:
    """The vectorizer and both regressions, fitted on these lines (`groups`: each line's
    `Example.weight_group`, read only when `settings.group_power` is set)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(
        analyzer=settings.analyzer, sublinear_tf=True, min_df=settings.min_df, dtype=np.float32
    )
    matrix = vectorizer.fit_transform(lines)
    weights = line_weights(groups, settings.group_power)

    def regression(labels: list[str]) -> Any:
        model = LogisticRegression(C=settings.c, class_weight=settings.class_weight, max_iter=5000)
        return model.fit(matrix, labels, sample_weight=weights)

    return Fitted(vectorizer, matrix, regression(codes), regression([prefix(c) for c in codes]))


def fit_examples(examples: list[Example], settings: Settings = SHIPPED) -> Fitted:
    """`fit` on these examples, each weighed by its `weight_group`."""
    lines = [e.line for e in examples]
    return fit(lines, [e.code for e in examples], [e.weight_group for e in examples], settings)
