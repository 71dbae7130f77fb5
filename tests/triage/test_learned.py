"""The learned second stage: trained from the corpus at build time, scored without scikit-learn,
answering only above its calibrated threshold and only on failure lines, and explained."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot.errors import ConfigError
from bot.triage import learned
from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES
from bot.triage.corpus import load_corpus
from bot.triage.explain import explain
from bot.triage.fitting import fit
from bot.triage.knowledge import Knowledge, model_path
from bot.triage.learned import DEFAULT_MODEL, LearnedModel, features
from bot.triage.lines import time_of
from bot.triage.neighbours import RARE_DF
from bot.triage.taxonomy import UNATTRIBUTED, prefix
from bot.triage.training import CORPUS, differences, train

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return Knowledge.load()


@pytest.fixture(scope="module")
def model() -> LearnedModel:
    return LearnedModel.load()


LENIENT = 0.45  # the shipped threshold may keep the model silent; the mechanics are tested below it


@pytest.fixture(scope="module")
def lenient_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with np.load(DEFAULT_MODEL) as shipped:
        arrays = {k: shipped[k] for k in shipped.files}
    arrays["threshold"] = np.array(LENIENT)
    arrays["layer_threshold"] = np.array(0.0)
    arrays["neighbour_similarity"] = np.array(-1.0)  # the check is tested on its own below
    path = tmp_path_factory.mktemp("model") / "lenient.npz"
    np.savez(path, **arrays)
    return path


@pytest.fixture(scope="module")
def lenient(lenient_file: Path) -> Knowledge:
    return Knowledge.load(model=lenient_file)


@pytest.mark.timeout(1200)  # a full training: a fit per round and one over everything (minutes)
def test_the_shipped_model_is_what_training_on_the_corpus_gives_now(model: LearnedModel) -> None:
    """Shipped as data, but never hand-made: retraining from the corpus, the hand-written lines and
    the rules' examples gives the same model (else: python -m bot.triage.training)."""
    fresh = train()
    assert differences(model, fresh) == [], "stale model: retrain with `python -m bot.triage.training`"
    summary = json.loads(str(fresh["summary"]))
    assert summary["calibration"]["chosen"]["threshold"] == model.threshold
    assert summary["calibration"]["chosen"]["layer_threshold"] == model.layer_threshold


def test_training_never_reads_the_test_split(model: LearnedModel) -> None:
    rows = load_corpus(CORPUS)
    held_out = {r.line for r in rows if r.split == "test"}
    learned = set(model.lines)
    assert held_out and not held_out & learned
    assert {r.line for r in rows if r.split in ("train", "dev")} <= learned


def test_numpy_scoring_equals_scikit_learn() -> None:
    """The run-time scorer re-implements tf-idf, the softmax and the layer-then-code choice; it must
    give sklearn's numbers and training's answers."""
    rows = [r for r in load_corpus(CORPUS) if r.split == "train"][:300]
    fitted = fit([r.line for r in rows], [r.code for r in rows])
    vectorizer = fitted.vectorizer
    arrays = {
        "classes": np.array([str(c) for c in fitted.codes.classes_]),
        "vocabulary": np.array(sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.get)),
        "idf": vectorizer.idf_.astype(np.float32),
        "coef": fitted.codes.coef_.T.astype(np.float32),
        "intercept": fitted.codes.intercept_.astype(np.float32),
        "layers": np.array([str(c) for c in fitted.layers.classes_]),
        "layer_coef": fitted.layers.coef_.T.astype(np.float32),
        "layer_intercept": fitted.layers.intercept_.astype(np.float32),
        "threshold": np.array(0.5),
        "layer_threshold": np.array(0.0),
        "neighbour_similarity": np.array(-1.0),
        "lines": np.array([r.line for r in rows]),
        "line_codes": np.array([r.code for r in rows]),
        "line_sources": np.array([r.source for r in rows]),
        "summary": np.array("{}"),
    }
    ours = LearnedModel(Path("memory"), arrays)
    probe = [*[r.line for r in load_corpus(CORPUS) if r.split == "dev"][:40], "", "0x1f 42"]
    matrix = vectorizer.transform(probe)
    assert np.allclose([ours.probabilities(x) for x in probe], fitted.codes.predict_proba(matrix), atol=1e-4)
    assert np.allclose(
        [ours.layer_probabilities(x) for x in probe], fitted.layers.predict_proba(matrix), atol=1e-4
    )
    for line, (share, layer, code) in zip(probe, fitted.answers(probe), strict=True):
        guess = ours.best(line)
        assert guess.code == code and guess.probability == pytest.approx(share, abs=1e-4)
        assert guess.layer_probability == pytest.approx(layer, abs=1e-4)
    # the neighbour check's lookup: the fitted line whose rare features (in at most RARE_DF fitted
    # lines) weigh most against the probe's, as the sparse product over those columns finds it
    fitted_matrix = vectorizer.transform([r.line for r in rows]).tocsc()
    rare = np.flatnonzero(np.diff(fitted_matrix.indptr) <= RARE_DF)
    similarities = (matrix.tocsc()[:, rare] @ fitted_matrix[:, rare].T).toarray()
    found = 0
    for line, row in zip(probe, similarities, strict=True):
        neighbour = ours.rare_neighbour(line)
        if row.max() <= 0:
            assert neighbour is None or neighbour.similarity == 0, line
            continue
        found += 1
        assert neighbour is not None and neighbour.similarity == pytest.approx(row.max(), abs=1e-3)
        assert row[ours.lines.index(neighbour.line)] == pytest.approx(row.max(), abs=1e-5)
    assert found > 20, "too few probes share a rare feature: the comparison proves little"


def test_the_code_is_chosen_within_the_layer_the_layer_model_holds_most_probable(model: LearnedModel) -> None:
    """The layer model decides the team; the code model only names the code within that layer, even
    where its own best code overall sits in another layer."""
    rows = [r for r in load_corpus(CORPUS) if r.split == "dev"]
    disagree = 0
    for row in rows:
        guess = model.best(row.line)
        p_layers = model.layer_probabilities(row.line)
        assert prefix(guess.code) == model.layers[int(np.argmax(p_layers))]
        assert guess.layer_probability == pytest.approx(float(p_layers.max()), abs=1e-6)
        p = model.probabilities(row.line)
        same = [i for i, c in enumerate(model.classes) if prefix(c) == prefix(guess.code)]
        assert guess.probability == pytest.approx(
            float(p[model.classes.index(guess.code)] / p[same].sum()), abs=1e-5
        )
        disagree += model.classes[int(np.argmax(p))] != guess.code
    assert disagree, "no line where the layer overrules the code model's own best: the test proves nothing"


def test_features_fold_numbers_and_ids() -> None:
    assert features("Shard 3 failed at 0xdeadbeef") == features("Shard 11 failed at 0xcafe")
    assert {"w shard", "w failed", "b shard failed", " sh", "iled "} <= set(features("Shard 3 failed"))
    assert features("a" * 10_000)[:3] == features("a" * 600)[:3]  # a huge line is cut, not read whole


def test_scoring_looks_up_the_features_training_learns_on_every_corpus_line(
    model: LearnedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scoring reads a line's n-grams word by word through a bounded cache of words seen before:
    on every corpus line, with the cache empty, full, and emptied as it fills, the ids it finds are
    the vocabulary ids of `features`, repeats included."""
    lines = [r.line for r in load_corpus(CORPUS)] + ["", "   ", "a" * 5_000, "Ünïcödé 失败 错误 0x1f"]
    wanted = [sorted(j for f in features(x) if (j := model.vocabulary.get(f)) is not None) for x in lines]
    fresh = LearnedModel.load()
    cold = [sorted(fresh._ids(x).tolist()) for x in lines]
    warm = [sorted(fresh._ids(x).tolist()) for x in lines]
    assert cold == wanted and warm == wanted
    monkeypatch.setattr(learned, "WORD_CACHE", 64)
    small = LearnedModel.load()
    assert [sorted(small._ids(x).tolist()) for x in lines] == wanted
    assert 0 < len(small._word_ids) <= 64
    assert sum(map(len, wanted)) > 100 * len(lines), "too few features found: the comparison proves little"


def test_a_line_no_rule_matches_gets_the_models_code_with_its_stage(lenient: Knowledge) -> None:
    knowledge = lenient
    attributor = knowledge.attributor
    rules_only = Attributor.load(knowledge.taxonomy, DEFAULT_RULES)
    model = attributor.model
    assert model is not None
    # Lines of the hand-written and real corpora that no rule matches and the model is sure of.
    candidates = [
        line
        for line in model.lines
        if not rules_only.attribute(line).attributed
        and model.guess(line).confident
        and model.guess(line).code != UNATTRIBUTED
    ]
    assert candidates, "the model answers nothing the rules miss"
    for line in candidates[:20]:
        got = attributor.attribute(line)
        guess = model.guess(line)
        assert (got.stage, got.rule, got.code) == ("model", None, guess.code)
        assert got.confidence is not None and got.confidence >= model.threshold
        assert got.layer == knowledge.taxonomy.layer_of(got.code).name
        assert got.as_dict()["stage"] == "model" and "confidence" in got.as_dict()


def test_the_model_abstains_below_its_threshold_and_on_lines_that_report_no_failure(
    knowledge: Knowledge,
) -> None:
    attributor = knowledge.attributor
    for line in (
        "(APIServer pid=1) WARNING 09-08 13:34:38 [protocol.py:81] The following fields were present in "
        "the request but ignored: {'uw_case_ref'}",
        'INFO:     10.42.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        "INFO 06-01 09:57:00 [metrics.py:455] Avg prompt throughput: 1024.3 tokens/s, Running: 31 reqs",
        "frobnicator widget 12 failed to sprocket",
        '{"response_code":200,"response_flags":"-","upstream_transport_failure_reason":null}',
    ):
        got = attributor.attribute(line)
        assert (got.code, got.stage) == (UNATTRIBUTED, "none"), line


def test_a_code_whose_layer_is_unsettled_is_not_answered(lenient_file: Path, lenient: Knowledge) -> None:
    """The layer decides the team paged: above the code threshold but below the layer threshold, the
    model abstains."""
    model = lenient.attributor.model
    assert model is not None
    answered = [line for line in model.lines if lenient.attributor.attribute(line).stage == "model"]
    assert answered
    with np.load(lenient_file) as data:
        arrays = {k: data[k] for k in data.files}
    strict = max(model.best(line).layer_probability for line in answered[:50])
    arrays["layer_threshold"] = np.array(strict + 1e-3)
    path = lenient_file.with_name("strict-layer.npz")
    np.savez(path, **arrays)
    gated = Knowledge.load(model=path).attributor
    for line in answered[:50]:
        got = gated.attribute(line)
        assert (got.code, got.stage) == (UNATTRIBUTED, "none"), line
        assert gated.model is not None and gated.model.best(line).probability >= LENIENT


def test_a_neighbour_of_another_layer_vetoes_the_models_answer(
    lenient_file: Path, lenient: Knowledge
) -> None:
    """With the check on, the model answers only where the line sharing the most rare features
    with the new one is of the layer it chose, and is at least as alike as the threshold."""
    model = lenient.attributor.model
    assert model is not None
    probe = [r.line for r in load_corpus(CORPUS) if r.split == "dev"][:400]
    answered = [line for line in probe if lenient.attributor.attribute(line).stage == "model"]
    assert len(answered) >= 10
    with np.load(lenient_file) as data:
        arrays = {k: data[k] for k in data.files}
    # every labelled line relabelled into one layer: only answers of that layer can pass
    arrays["line_codes"] = np.array(["INF_GPU_OOM"] * len(arrays["line_codes"]))
    arrays["neighbour_similarity"] = np.array(0.0)
    path = lenient_file.with_name("one-layer-neighbours.npz")
    np.savez(path, **arrays)
    checked = Knowledge.load(model=path).attributor
    kept, vetoed = [], []
    for line in answered:
        before = lenient.attributor.attribute(line)
        after = checked.attribute(line)
        (kept if after.stage == "model" else vetoed).append(line)
        if prefix(before.code) != "INF":
            assert (after.code, after.stage) == (UNATTRIBUTED, "none"), line
        elif after.stage == "model":
            assert after.code == before.code
            assert checked.model is not None and checked.model.rare_neighbour(line) is not None
    assert kept and vetoed, "the probe lines never exercise both outcomes"
    arrays["line_codes"] = np.array(model.line_codes)
    arrays["neighbour_similarity"] = np.array(1.01)  # no neighbour is ever that alike
    np.savez(path, **arrays)
    unreachable = Knowledge.load(model=path).attributor
    assert all(unreachable.attribute(line).stage == "none" for line in answered)


def test_what_counts_as_a_failure_line() -> None:
    from bot.triage.failure_gate import says_failure

    assert says_failure("RuntimeError: CUDA error") and says_failure("loss is NaN") and says_failure("Xid 79")
    assert not says_failure("INFO: info about the nano model") and not says_failure("INFO ok")
    assert not says_failure('{"response_code":200,"upstream_transport_failure_reason":null}')
    assert says_failure('{"response_code":503,"response_flags":"UF"}')
    assert says_failure('{"response_code_details":"upstream_reset_before_response_started"}')


def test_the_learned_stage_can_be_switched_off_or_replaced(tmp_path: Path) -> None:
    assert model_path(None) == DEFAULT_MODEL and model_path("shipped") == DEFAULT_MODEL
    assert model_path("off") is None and model_path(" OFF ") is None
    assert model_path(str(tmp_path / "m.npz")) == tmp_path / "m.npz"
    assert Knowledge.load(model=None).attributor.model is None


def test_a_broken_model_file_is_named(tmp_path: Path, model: LearnedModel) -> None:
    bad = tmp_path / "model.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ConfigError, match=str(bad)):
        LearnedModel.load(bad)
    np.savez(bad, threshold=np.array(0.5))
    with pytest.raises(ConfigError, match="not an attribution model"):
        LearnedModel.load(bad)
    with np.load(DEFAULT_MODEL) as shipped:
        arrays = {k: shipped[k] for k in shipped.files}
    arrays["classes"] = np.array(["BIZ_NOT_A_CODE", *arrays["classes"][1:]])  # a layer it has
    np.savez(bad, **arrays)
    with pytest.raises(ConfigError, match=r"BIZ_NOT_A_CODE.*ATTRIBUTION_MODEL=off"):
        Knowledge.load(model=bad)
    arrays["format"] = np.array(99)
    np.savez(bad, **arrays)
    with pytest.raises(ConfigError, match="format 99"):
        LearnedModel.load(bad)
    with np.load(DEFAULT_MODEL) as shipped:
        arrays = {k: shipped[k] for k in shipped.files}
    arrays["layers"] = np.array(["XYZ", *arrays["layers"][1:]])
    np.savez(bad, **arrays)
    with pytest.raises(ConfigError, match="are not the layers of its classes"):
        LearnedModel.load(bad)


def test_explain_shows_the_rule_and_pattern_or_the_nearest_labelled_lines(
    lenient: Knowledge, knowledge: Knowledge
) -> None:
    attributor = lenient.attributor
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    got = attributor.attribute(line)
    why = explain(attributor, line, got)
    assert why["rule"] == "gpu-oom" and why["patterns"] and "nearest" not in why
    model = attributor.model
    assert model is not None
    line = next(x for x in model.lines if attributor.attribute(x).stage == "model")
    why = explain(attributor, line, attributor.attribute(line))
    nearest = why["nearest"]
    assert isinstance(nearest, list) and len(nearest) == 3
    assert nearest[0]["similarity"] == pytest.approx(1.0, abs=1e-3)  # itself, or a line alike but numbers
    assert line in [n["line"] for n in nearest] or nearest[2]["similarity"] == pytest.approx(1.0, abs=1e-3)
    assert why["probability"] >= why["threshold"]  # type: ignore[operator]
    assert why["layer_probability"] >= why["layer_threshold"]  # type: ignore[operator]
    vague = "frobnicator widget 12 failed to sprocket"
    shipped = knowledge.attributor
    why = explain(shipped, vague, shipped.attribute(vague))
    assert why["stage"] == "none" and "model_code" in why
    assert (
        why["probability"] < why["threshold"]  # type: ignore[operator]
        or why["layer_probability"] < why["layer_threshold"]  # type: ignore[operator]
    )


def test_time_of_reads_the_usual_fields() -> None:
    assert time_of('{"@timestamp": "2026-06-01T10:00:00Z", "message": "x"}') is not None
    assert time_of('{"timestamp": 1780000000000, "message": "x"}') is not None
    assert time_of('{"time": "not a time", "message": "x"}') is None
    assert time_of("plain line") is None and time_of("{broken") is None


def test_attribute_command_says_the_stage_explains_and_reports(
    tmp_path: Path, model: LearnedModel, lenient: Knowledge, lenient_file: Path
) -> None:
    learned_line = next(
        x for x in model.lines if lenient.attributor.attribute(x).stage == "model" and not x.startswith("{")
    )
    lines = [
        json.dumps(
            {"@timestamp": "2026-06-01T00:00:00Z", "message": "torch.OutOfMemoryError: CUDA out of memory."}
        ),
        learned_line,
        *(
            json.dumps(
                {"@timestamp": f"2026-06-0{d}T00:00:00Z", "message": f"frobnicator {d} failed to sprocket"}
            )
            for d in range(1, 8)
        ),
        json.dumps({"@timestamp": "2026-06-08T00:00:00Z", "message": "gizmo quux failed"}),
    ]
    src = tmp_path / "errors.jsonl"
    src.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "bot", "attribute", str(src), "--explain", "--report"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "ATTRIBUTION_MODEL": str(lenient_file)},
    )
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert [o["stage"] for o in out[:2]] == ["rule", "model"]
    assert out[0]["explain"]["rule"] == "gpu-oom" and len(out[1]["explain"]["nearest"]) == 3
    assert all(o["stage"] == "none" for o in out[2:])
    report = done.stderr
    assert "unattributed: 8/10 (80.0%" in report
    stages = next(r for r in report.splitlines() if r.startswith("answered by stage:"))
    assert {"none 8", "rule 1", "model 1"} == {s.strip() for s in stages.split(":", 1)[1].split(",")}
    assert "the lines span 7.0 days" in report
    rows = [r for r in report.splitlines() if "sprocket" in r and "e.g." not in r]
    assert len(rows) == 1 and rows[0].split()[:2] == ["7", "7.0"] and "⚑" in rows[0]  # 7 a week > 5
    quux = [r for r in report.splitlines() if "gizmo quux failed" in r and "e.g." not in r]
    assert len(quux) == 1 and "⚑" not in quux[0]
