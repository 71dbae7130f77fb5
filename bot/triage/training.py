"""Build-time training of the learned attribution stage (needs the `dev` extra: scikit-learn).

    python -m bot.triage.training            # rewrite rules/attribution_model.npz from the corpus
    python -m bot.triage.training --check    # exit 1 when the shipped model is not what training gives

The model learns from the train and dev splits of the real-wording corpus, the older hand-written
lines (error_lines.tsv), the failure messages read in the emitters' own source (emitter_lines.tsv)
and every rule's examples; the test split is never read. It is fitted as bot/triage/fitting.py
says, and its abstain thresholds are calibrated out of fold on the lines the rules leave
unattributed, the only lines the model is ever asked about (bot/triage/calibration.py). Once the
rules have been written from a line, what they still miss of it is the residue they were made to
leave (a line whose text says another cause than its thread found), not new wording; so where the
corpus records which lines the rules of their day missed at first contact (first_contact.tsv),
those are the lines calibrated on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES
from bot.triage.calibration import LAYER_TARGET, PRECISION_TARGET, calibrate
from bot.triage.corpus import first_contact, load_corpus, load_emitter_lines, load_renamed, project
from bot.triage.fitting import C, Example, fit_examples
from bot.triage.learned import DEFAULT_MODEL, FORMAT, LearnedModel
from bot.triage.taxonomy import Taxonomy, load_taxonomy

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "triage" / "corpus" / "real_lines.tsv"
HANDWRITTEN = REPO / "tests" / "triage" / "error_lines.tsv"
FIRST_CONTACT = CORPUS.with_name("first_contact.tsv")
EMITTERS = CORPUS.with_name("emitter_lines.tsv")
RENAMED = CORPUS.with_name("renamed.tsv")
TRAINING_SPLITS = ("train", "dev")


def training_set(
    taxonomy: Taxonomy, attributor: Attributor, corpus: Path, handwritten: Path, emitters: Path = EMITTERS
) -> list[Example]:
    """Every labelled line the model may learn from: never a line of the corpus's test split, even
    when a rule's example or a hand-written line happens to be the same canonical wording."""
    rows = load_corpus(corpus)
    renamed = load_renamed(corpus.with_name(RENAMED.name))
    held_out = {r.line for r in rows if r.split not in TRAINING_SPLITS}
    out = [
        Example(r.line, taxonomy.resolve(r.code), project(r.source, renamed), r.source, True)
        for r in rows
        if r.split in TRAINING_SPLITS
    ]
    for raw in handwritten.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            code, source, line = raw.split("\t", 2)
            out.append(
                Example(line, taxonomy.resolve(code), "handwritten", f"error_lines.tsv:{source}", False)
            )
    for emitted in load_emitter_lines(emitters) if emitters.exists() else []:
        out.append(Example(emitted.line, taxonomy.resolve(emitted.code), "emitters", emitted.source, False))
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


def train(
    corpus: Path = CORPUS,
    handwritten: Path = HANDWRITTEN,
    rules: Path = DEFAULT_RULES,
) -> dict[str, np.ndarray]:
    """The arrays of the model file, deterministic for the same corpus, rules and library."""
    import sklearn

    taxonomy = load_taxonomy()
    attributor = Attributor.load(taxonomy, rules)
    examples = training_set(taxonomy, attributor, corpus, handwritten, corpus.with_name(EMITTERS.name))
    contacts = first_contact(corpus.with_name(FIRST_CONTACT.name))
    threshold, layer_threshold, neighbour, calibration = calibrate(examples, attributor, contacts)
    fitted = fit_examples(examples)
    vectorizer, model = fitted.vectorizer, fitted.codes
    vocabulary = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.get)
    summary = {
        "lines": len(examples),
        "real_lines": sum(e.real for e in examples),
        "features": len(vocabulary),
        "classes": len(model.classes_),
        "C": C,
        "precision_target": PRECISION_TARGET,
        "layer_target": LAYER_TARGET,
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
        "layers": np.array([str(c) for c in fitted.layers.classes_]),
        "layer_coef": fitted.layers.coef_.T.astype(np.float16),
        "layer_intercept": fitted.layers.intercept_.astype(np.float32),
        "threshold": np.array(threshold),
        "layer_threshold": np.array(layer_threshold),
        "neighbour_similarity": np.array(neighbour),
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
    if shipped.layer_threshold != float(arrays["layer_threshold"]):
        out.append(f"layer threshold {shipped.layer_threshold} != {float(arrays['layer_threshold'])}")
    if shipped.neighbour_similarity != float(arrays["neighbour_similarity"]):
        out.append(
            f"neighbour threshold {shipped.neighbour_similarity} != {float(arrays['neighbour_similarity'])}"
        )
    # Stored as float16: solver noise of another BLAS kernel can flip a weight by one step of that
    # storage (2**-8 at 4.0), so the tolerance is relative as well; a stale model differs by far more.
    fresh = arrays["coef"].astype(np.float32)
    if not out and not np.allclose(shipped.coef, fresh, atol=2e-3, rtol=2e-3):
        out.append("coefficients differ")
    fresh_layers = arrays["layer_coef"].astype(np.float32)
    if not out and (
        list(shipped.layers) != [str(c) for c in arrays["layers"]]
        or not np.allclose(shipped.layer_coef, fresh_layers, atol=2e-3, rtol=2e-3)
    ):
        out.append("layer coefficients differ")
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
