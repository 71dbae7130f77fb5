"""Build-time training of the learned attribution stage (needs the `dev` extra: scikit-learn).

    python -m bot.triage.training            # rewrite rules/attribution_model.npz from the corpus
    python -m bot.triage.training --check    # exit 1 when the shipped model is not what training gives

The model learns from the train and dev splits of the real-wording corpus, the older hand-written
lines (error_lines.tsv) and every rule's examples; the test split is never read. Its abstain
threshold is calibrated out of fold, grouped by source repository (a project's wording is never in
both the fitting and the scoring folds), on the lines the rules leave unattributed: those are the
only lines the model is ever asked about.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bot.triage.attribution import DEFAULT_RULES, Attributor
from bot.triage.corpus import load_corpus
from bot.triage.learned import DEFAULT_MODEL, FORMAT, LearnedModel, features, says_failure
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy, load_taxonomy

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "triage" / "corpus" / "real_lines.tsv"
HANDWRITTEN = REPO / "tests" / "triage" / "error_lines.tsv"
TRAINING_SPLITS = ("train", "dev")
C = 10.0  # inverse regularisation, chosen on the dev split
PRECISION_TARGET = 2 / 3  # answer only where at least 2 in 3 out-of-fold answers had the right code
MIN_ANSWERS = 10  # a threshold judged on fewer out-of-fold answers than this is noise
FOLDS = 5
GRID = [round(0.05 * i, 2) for i in range(2, 20)]


@dataclass(frozen=True)
class Example:
    line: str
    code: str
    group: str  # what calibration folds keep together: a repository, or a synthetic source
    source: str
    real: bool  # from a public thread (calibrated on), not written with the rules


def training_set(
    taxonomy: Taxonomy, attributor: Attributor, corpus: Path, handwritten: Path
) -> list[Example]:
    """Every labelled line the model may learn from: never a line of the corpus's test split, even
    when a rule's example or a hand-written line happens to be the same canonical wording."""
    rows = load_corpus(corpus)
    held_out = {r.line for r in rows if r.split not in TRAINING_SPLITS}
    out = [
        Example(r.line, taxonomy.resolve(r.code), r.source.split("#")[0].lower(), r.source, True)
        for r in rows
        if r.split in TRAINING_SPLITS
    ]
    for raw in handwritten.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            code, source, line = raw.split("\t", 2)
            out.append(
                Example(line, taxonomy.resolve(code), "handwritten", f"error_lines.tsv:{source}", False)
            )
    for rule in attributor.rules:
        for example in rule.examples:
            out.append(Example(example, rule.code, "rules", f"rule {rule.id}", False))
    seen: set[str] = set()
    unique = []
    for ex in out:
        if ex.line not in seen and ex.line not in held_out:
            seen.add(ex.line)
            unique.append(ex)
    return unique


def fit(lines: list[str], codes: list[str]) -> tuple[Any, Any]:
    """The tf-idf vectorizer over `features` and the logistic regression, fitted on these lines."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(analyzer=features, sublinear_tf=True, min_df=2, dtype=np.float32)
    matrix = vectorizer.fit_transform(lines)
    model = LogisticRegression(C=C, max_iter=5000)
    model.fit(matrix, codes)
    return vectorizer, model


def calibrate(examples: list[Example], attributor: Attributor) -> tuple[float, dict[str, Any]]:
    """The lowest threshold whose out-of-fold answers on rule-missed real lines reach the target."""
    from sklearn.model_selection import GroupKFold

    real = [i for i, ex in enumerate(examples) if ex.real]
    groups = [examples[i].group for i in real]
    best: list[tuple[float, str, str]] = []  # probability, predicted, expected
    for _fit_idx, score_idx in GroupKFold(n_splits=FOLDS).split(real, groups=groups):
        held = {real[i] for i in score_idx}
        fitting = [ex for n, ex in enumerate(examples) if n not in held]
        vectorizer, model = fit([e.line for e in fitting], [e.code for e in fitting])
        asked = [
            examples[n]
            for n in sorted(held)
            if says_failure(examples[n].line) and not attributor.attribute(examples[n].line).attributed
        ]
        if not asked:
            continue
        proba = model.predict_proba(vectorizer.transform([e.line for e in asked]))
        for row, ex in zip(proba, asked, strict=True):
            k = int(np.argmax(row))
            best.append((float(row[k]), str(model.classes_[k]), ex.code))
    curve = []
    for t in GRID:
        answered = [(p, e) for prob, p, e in best if prob >= t and p != UNATTRIBUTED]
        right = sum(p == e for p, e in answered)
        same_layer = sum(p.split("_")[0] == e.split("_")[0] for p, e in answered)
        curve.append({"threshold": t, "answered": len(answered), "right": right, "right_layer": same_layer})
    chosen = next(
        (c for c in curve if c["answered"] >= MIN_ANSWERS and c["right"] / c["answered"] >= PRECISION_TARGET),
        curve[-1],
    )
    summary = {"rule_missed_real_lines": len(best), "curve": curve, "chosen": chosen}
    return float(chosen["threshold"]), summary


def train(
    corpus: Path = CORPUS, handwritten: Path = HANDWRITTEN, rules: Path = DEFAULT_RULES
) -> dict[str, np.ndarray]:
    """The arrays of the model file, deterministic for the same corpus, rules and library."""
    import sklearn

    taxonomy = load_taxonomy()
    attributor = Attributor.load(taxonomy, rules)
    examples = training_set(taxonomy, attributor, corpus, handwritten)
    threshold, calibration = calibrate(examples, attributor)
    vectorizer, model = fit([e.line for e in examples], [e.code for e in examples])
    vocabulary = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.get)
    summary = {
        "lines": len(examples),
        "real_lines": sum(e.real for e in examples),
        "features": len(vocabulary),
        "classes": len(model.classes_),
        "C": C,
        "precision_target": PRECISION_TARGET,
        "scikit_learn": sklearn.__version__,
        "calibration": calibration,
    }
    return {
        "format": np.array(FORMAT),
        "classes": np.array([str(c) for c in model.classes_]),
        "vocabulary": np.array(vocabulary),
        "idf": vectorizer.idf_.astype(np.float32),
        "coef": model.coef_.T.astype(np.float16),
        "intercept": model.intercept_.astype(np.float32),
        "threshold": np.array(threshold),
        "lines": np.array([e.line for e in examples]),
        "line_codes": np.array([e.code for e in examples]),
        "line_sources": np.array([e.source for e in examples]),
        "summary": np.array(json.dumps(summary, sort_keys=True)),
    }


def differences(shipped: LearnedModel, arrays: dict[str, np.ndarray]) -> list[str]:
    """What separates the shipped model from a fresh training (empty when they agree)."""
    out = []
    if shipped.classes != [str(c) for c in arrays["classes"]]:
        out.append("classes differ")
    if list(shipped.vocabulary) != [str(v) for v in arrays["vocabulary"]]:
        out.append("vocabulary differs")
    if shipped.threshold != float(arrays["threshold"]):
        out.append(f"threshold {shipped.threshold} != {float(arrays['threshold'])}")
    if not out and not np.allclose(shipped.coef, arrays["coef"].astype(np.float32), atol=2e-3):
        out.append("coefficients differ")
    if shipped.lines != [str(s) for s in arrays["lines"]]:
        out.append("training lines differ")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--handwritten", type=Path, default=HANDWRITTEN)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES, help="rule file or folder (calibration)")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    arrays = train(args.corpus, args.handwritten, args.rules)
    if args.check:
        found = differences(LearnedModel.load(args.out), arrays)
        for line in found:
            print(f"{args.out}: {line}; retrain with `python -m bot.triage.training`", file=sys.stderr)
        return 1 if found else 0
    with args.out.open("wb") as fh:
        np.savez_compressed(fh, allow_pickle=False, **arrays)
    print(json.dumps(json.loads(str(arrays["summary"])), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
