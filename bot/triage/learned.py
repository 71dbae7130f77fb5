"""The learned second stage of attribution: a line no rule matches, scored by two linear models.

Rules are exact and explainable but only know the wordings someone wrote down; real lines from other
engines, versions and log shippers say the same failures in other words. Two logistic regressions
over the same character n-grams and words, trained at build time on the labelled corpus
(bot/triage/training.py) and shipped as arrays (rules/attribution_model.npz), give those lines a
code: one over the layers (INF, DEP, MOD, ENG, GW, BIZ), which decides which team is paged, and one
over the codes, which names the code within the layer the first chose. A layer learns from every
line of its codes together, so it holds up on new wording better than a code summed from the code
model's classes. The model answers only when both probabilities clear thresholds calibrated out of
fold on lines the rules miss, and (when the calibration chose it) when the labelled line sharing the
most rare features with the new one is of the layer chosen (bot/triage/neighbours.py): a line it
cannot place in one layer is left unattributed rather than sent to the wrong team. Scoring is numpy
only: no scikit-learn at run time.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bot.errors import ConfigError
from bot.triage.envelope import unwrap
from bot.triage.failure_gate import says_failure
from bot.triage.neighbours import RareIndex, Vector, agrees
from bot.triage.taxonomy import UNATTRIBUTED, prefix

DEFAULT_MODEL = Path(__file__).with_name("rules") / "attribution_model.npz"
FORMAT = 5  # 2: a layer threshold beside the code threshold; 3: a model of its own for the layer;
# 4: the nearest rare-feature line's layer as a check; 5: word triples among the features
MAX_CHARS = 512  # the head of a line says what failed; the model need not read a whole traceback
MAX_WORD = 40  # a base64 blob or a path is one "word": its n-grams say nothing


_HEX = re.compile(r"\b0x[0-9a-f]+\b|\b[0-9a-f]{8,}\b")
_ANY_CASE_HEX = re.compile(_HEX.pattern, re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[a-z_][a-z0-9_]*")
# CamelCase and snake_case names say their words (OutOfMemoryError, DEADLINE_EXCEEDED,
# model_not_ready): split, they match the same words written out in another engine's message.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_LETTERS = re.compile(r"[a-z]{2,}")
# An HTTP status (429, 503) says much, where other numbers (ports, sizes, ids) say nothing.
_STATUS = re.compile(r"(?<![\d.:/-])([45]\d\d)(?![\d.:/-])")


def _prepare(text: str) -> tuple[str, list[str]]:
    """The folded line (numbers and hex ids folded: a port or a byte count is not a cause) and its
    words, each cut to MAX_WORD."""
    folded = _DIGITS.sub("0", _HEX.sub("#", text[:MAX_CHARS].lower()))
    return folded, [chunk[:MAX_WORD] for chunk in folded.split()]


def _tokens(text: str, folded: str) -> list[str]:
    """The word-level tokens: the words of the name-split line ("w …", letters only), its HTTP
    statuses ("s 503"), then the words of the folded line ("w …"), their pairs ("b … …") and their
    triples ("t … … …"): three words in a row ("no healthy upstream") name a failure that
    each word alone, or two, leave to several (a tie out of fold with pairs alone, a small gain on
    the test split: docs/attribution-corpus.md)."""
    head = text[:MAX_CHARS]
    out = [f"w {w}" for w in _LETTERS.findall(_CAMEL.sub(" ", _ANY_CASE_HEX.sub("#", head)).lower())]
    out += [f"s {status}" for status in _STATUS.findall(head)]
    words = _WORD.findall(folded)
    out += [f"w {w}" for w in words]
    out += [f"b {a} {b}" for a, b in itertools.pairwise(words)]
    out += [f"t {a} {b} {c}" for a, b, c in zip(words, words[1:], words[2:], strict=False)]
    return out


NGRAMS = (3, 4, 5)


def _grams(padded: str, n: int) -> list[str]:
    return [padded[i : i + n] for i in range(len(padded) - n + 1)]


def word_grams(chunk: str) -> list[str]:
    """The 3 to 5 character n-grams of one word with its bounding spaces. They never hold a space
    inside, so none can be mistaken for a token (which has one), and a line's n-grams are its words'
    n-grams: scoring looks them up one word at a time, and a word seen before costs one lookup."""
    padded = f" {chunk} "
    return [gram for n in NGRAMS for gram in _grams(padded, n)]


def features(text: str, reader: Callable[[str], str] = unwrap) -> list[str]:
    """The tokens of a line (`_tokens`) and the n-grams of each of its words (`word_grams`), read by
    `reader`: the message without its shipper's envelope (envelope.py), its logger's header kept
    (without it the model answered a fifth fewer lines out of fold: docs/attribution-corpus.md).

    Training learns these strings; scoring looks the same features up (LearnedModel._ids), and a
    test checks the two agree on every corpus line. The n-grams come length by length, word by word:
    the order changes no count, but it orders each row of the matrix scikit-learn hands its solver,
    whose sums (and so the last digits of the weights) follow it; the shipped model was fitted so.
    """
    text = reader(text)
    folded, chunks = _prepare(text)
    out = _tokens(text, folded)
    padded = [f" {chunk} " for chunk in chunks]
    for n in NGRAMS:
        for word in padded:
            out += _grams(word, n)
    return out


# How many words' n-gram ids scoring keeps (emptied when full): log lines repeat their words (engine
# names, exception types, paths), and a storm repeats whole lines.
WORD_CACHE = 30_000  # about 12 MB when full; the whole corpus fills 14,000 (6 MB)


def _softmax(scores: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """A logistic regression's probabilities from its scores."""
    exp = np.exp(scores - scores.max())
    out: npt.NDArray[np.float32] = exp / exp.sum()
    return out


@dataclass(frozen=True)
class Guess:
    """The model's answer for one line: the layer model's most probable layer and its probability,
    the code model's most probable code within that layer and its share of the layer's codes, and
    whether both clear their thresholds (and the neighbour check, when the model has one)."""

    code: str
    probability: float
    confident: bool
    layer_probability: float = 0.0


def choose(
    p_codes: npt.NDArray[np.floating[Any]],
    code_layers: npt.NDArray[np.str_],
    p_layers: npt.NDArray[np.floating[Any]],
    layers: npt.NDArray[np.str_],
) -> tuple[int, float, float]:
    """(class index, the code's share of its layer, the layer's probability): the layer the layer
    model holds most probable, and the code model's best code within it. One home for the decision,
    used by scoring and by calibration alike."""
    j = int(np.argmax(p_layers))
    within = code_layers == layers[j]
    if not within.any():  # a layer with no code class (cannot happen with one training set)
        return int(np.argmax(p_codes)), 0.0, float(p_layers[j])
    k = int(np.argmax(np.where(within, p_codes, -1.0)))
    total = float(p_codes[within].sum())
    return k, float(p_codes[k]) / total if total > 0 else 0.0, float(p_layers[j])


@dataclass(frozen=True)
class Neighbour:
    """A labelled training line close to the one being explained."""

    similarity: float
    code: str
    source: str
    line: str


class LearnedModel:
    """Two multinomial logistic regressions (codes, layers) over one tf-idf vector, read from an .npz
    of plain arrays."""

    def __init__(self, path: Path, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        self.path = path
        self.classes: list[str] = [str(c) for c in arrays["classes"]]
        self.vocabulary: dict[str, int] = {str(f): i for i, f in enumerate(arrays["vocabulary"])}
        self.idf = arrays["idf"].astype(np.float32)
        self.layers = np.array([str(c) for c in arrays["layers"]])
        # both models' weights side by side (features x (classes + layers)): one gather of the
        # line's rows scores both
        self._weights = np.hstack([arrays["coef"], arrays["layer_coef"]]).astype(np.float32)
        self._bias = np.concatenate([arrays["intercept"], arrays["layer_intercept"]]).astype(np.float32)
        self.coef = self._weights[:, : len(self.classes)]  # features x classes
        self.layer_coef = self._weights[:, len(self.classes) :]  # features x layers
        self.threshold = float(arrays["threshold"])
        self.layer_threshold = float(arrays["layer_threshold"])
        # the similarity the nearest rare-feature line of the chosen layer must reach; below 0: no check
        self.neighbour_similarity = float(arrays["neighbour_similarity"])
        self._layers = np.array([prefix(c) for c in self.classes])
        self.lines: list[str] = [str(s) for s in arrays["lines"]]
        self.line_codes: list[str] = [str(s) for s in arrays["line_codes"]]
        self.line_sources: list[str] = [str(s) for s in arrays["line_sources"]]
        self._line_layers = [prefix(c) for c in self.line_codes]
        self.summary = str(arrays["summary"])
        self._word_ids: dict[str, tuple[int, ...]] = {}

    @classmethod
    def load(cls, path: Path = DEFAULT_MODEL) -> LearnedModel:
        """Read and check the arrays; ConfigError names the file and what is wrong."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: cannot read the attribution model: {exc}") from exc
        needed = (
            "format",
            "classes",
            "vocabulary",
            "idf",
            "coef",
            "intercept",
            "layers",
            "layer_coef",
            "layer_intercept",
            "threshold",
            "layer_threshold",
            "neighbour_similarity",
        )
        missing = [n for n in needed if n not in arrays]
        if missing:
            raise ConfigError(f"{path}: not an attribution model (missing {', '.join(missing)})")
        if int(arrays["format"]) != FORMAT:
            raise ConfigError(
                f"{path}: model format {int(arrays['format'])}, this bot reads {FORMAT}: "
                "retrain it with `python -m bot.triage.training`"
            )
        n_feat, n_cls = arrays["coef"].shape
        if (n_feat, n_cls) != (len(arrays["vocabulary"]), len(arrays["classes"])):
            raise ConfigError(f"{path}: coef is {n_feat}x{n_cls}, vocabulary and classes disagree")
        if arrays["layer_coef"].shape != (n_feat, len(arrays["layers"])):
            raise ConfigError(f"{path}: layer_coef is not vocabulary x layers")
        layers = sorted(str(c) for c in arrays["layers"])
        if layers != sorted({prefix(str(c)) for c in arrays["classes"]}):
            raise ConfigError(f"{path}: layers {', '.join(layers)} are not the layers of its classes")
        return cls(path, arrays)

    def _ids(self, text: str) -> npt.NDArray[np.intp]:
        """The vocabulary index of every feature of `text` found in the vocabulary, repeats kept:
        the same multiset as looking each string of `features(text)` up."""
        text = unwrap(text)
        folded, chunks = _prepare(text)
        get = self.vocabulary.get
        ids = [j for j in map(get, _tokens(text, folded)) if j is not None]
        cache = self._word_ids
        for chunk in chunks:
            known = cache.get(chunk)
            if known is None:
                known = tuple(j for j in map(get, word_grams(chunk)) if j is not None)
                if len(cache) >= WORD_CACHE:  # bounded: a stream of random ids cannot grow it
                    cache.clear()
                cache[chunk] = known
            ids += known
        return np.array(ids, dtype=np.intp)

    def _vector(self, text: str) -> Vector:
        """The line's tf-idf vector as (feature indices, L2-normalised weights), as sklearn's
        TfidfVectorizer(sublinear_tf=True) computes it."""
        ids = self._ids(text)
        if not len(ids):
            return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.float32)
        idx, counts = np.unique(ids, return_counts=True)
        values = ((1.0 + np.log(counts)) * self.idf[idx]).astype(np.float32)
        norm = float(np.sqrt(np.dot(values, values)))
        return idx, values / norm if norm else values

    def _probabilities(self, vector: Vector) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """P(code | line) in `classes` order and P(layer | line) in `layers` order."""
        idx, values = vector
        scores = self._bias + values @ self._weights[idx] if len(idx) else self._bias.copy()
        return _softmax(scores[: len(self.classes)]), _softmax(scores[len(self.classes) :])

    def probabilities(self, text: str) -> npt.NDArray[np.float32]:
        """P(code | line) for every class, in `classes` order."""
        return self._probabilities(self._vector(text))[0]

    def layer_probabilities(self, text: str) -> npt.NDArray[np.float32]:
        """P(layer | line) for every layer, in `layers` order."""
        return self._probabilities(self._vector(text))[1]

    def best(self, text: str) -> Guess:
        """The most probable layer, the best code within it (`choose`), and whether both clear
        their thresholds."""
        vector = self._vector(text)
        p_codes, p_layers = self._probabilities(vector)
        k, share, layer = choose(p_codes, self._layers, p_layers, self.layers)
        code = self.classes[k]
        confident = share >= self.threshold and layer >= self.layer_threshold
        if confident and self.neighbour_similarity >= 0:  # looked up only when it can decide
            similarity, neighbour = self._rare.nearest_layer(vector, self._line_layers)
            confident = agrees(similarity, neighbour, prefix(code), self.neighbour_similarity)
        return Guess(code, share, confident, layer)

    def guess(self, text: str) -> Guess:
        """`best`, asked only of a line that says something failed (FAILURE_WORDS): any other line is
        not an error line, and costs no scoring."""
        if not says_failure(unwrap(text)):
            return Guess(UNATTRIBUTED, 0.0, False)
        return self.best(text)

    def clear_word_cache(self) -> None:
        """Forget every word's n-gram ids (benchmarks time a cold start with it)."""
        self._word_ids.clear()

    @cached_property
    def _line_vectors(self) -> list[Vector]:
        return [self._vector(line) for line in self.lines]

    @cached_property
    def _training_vectors(self) -> list[dict[int, float]]:
        return [dict(zip(i.tolist(), v.tolist(), strict=True)) for i, v in self._line_vectors]

    @cached_property
    def _rare(self) -> RareIndex:
        """Built on first use from the shipped lines (about a second), as training builds it."""
        return RareIndex.build(self._line_vectors, len(self.idf))

    def rare_neighbour(self, text: str) -> Neighbour | None:
        """The labelled line sharing the most rare features with `text` (what the check reads)."""
        line, similarity = self._rare.nearest(self._vector(text))
        if line < 0:
            return None
        return Neighbour(
            round(similarity, 3), self.line_codes[line], self.line_sources[line], self.lines[line]
        )

    def nearest(self, text: str, k: int = 3) -> list[Neighbour]:
        """The k labelled training lines most like `text` (cosine of their tf-idf vectors): the
        evidence a responder can read behind a model's answer."""
        idx, values = self._vector(text)
        query = dict(zip(idx.tolist(), values.tolist(), strict=True))
        ranked = sorted(
            (
                (sum(w * vec.get(j, 0.0) for j, w in query.items()), n)
                for n, vec in enumerate(self._training_vectors)
            ),
            reverse=True,
        )[:k]
        return [
            Neighbour(round(sim, 3), self.line_codes[n], self.line_sources[n], self.lines[n])
            for sim, n in ranked
        ]
