"""The real-wording corpus (corpus/real_lines.tsv): every row well-formed, labelled with a taxonomy
code, sourced from a public thread, and in the split its repository hashes to (no project's
wording in two splits)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from bot.triage.corpus import load_renamed, project
from bot.triage.taxonomy import UNATTRIBUTED, load_taxonomy

CORPUS = Path(__file__).with_name("corpus") / "real_lines.tsv"
RENAMED = load_renamed(CORPUS.with_name("renamed.tsv"))
SOURCE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#\d+$")


def rows() -> list[list[str]]:
    text = CORPUS.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in text if line.strip() and not line.startswith("#")]


def split_of(source: str) -> str:
    bucket = int(hashlib.sha1(project(source, RENAMED).encode()).hexdigest(), 16) % 10
    return "train" if bucket < 6 else "dev" if bucket < 8 else "test"


def test_every_row_is_well_formed_and_labelled_with_a_code() -> None:
    taxonomy = load_taxonomy()
    found = rows()
    assert found
    for row in found:
        assert len(row) == 6, row
        _split, code, source, family, line, _note = row
        assert code == UNATTRIBUTED or code in taxonomy.codes, row  # canonical codes, not aliases
        assert SOURCE.match(source), row
        assert family and line.strip() == line and len(line) <= 600, row
    lines = [r[4] for r in found]
    assert len(set(lines)) == len(lines)


def test_a_repository_sits_in_one_split_only() -> None:
    found = rows()
    for split, _code, source, *_ in found:
        assert split == split_of(source), (split, source)
    splits = {r[0] for r in found}
    assert splits == {"train", "dev", "test"}


def test_a_renamed_repository_counts_as_its_current_name() -> None:
    """Its old name hashes elsewhere (ggerganov/llama.cpp to test, ggml-org/llama.cpp to train): a
    line under the old name goes where the current name's lines are."""
    assert RENAMED and all(old != new and "/" in new for old, new in RENAMED.items())
    assert not set(RENAMED) & set(RENAMED.values())  # one step: a current name is never old
    assert split_of("ggerganov/llama.cpp#1") == split_of("ggml-org/llama.cpp#1") == "train"
    assert split_of("hwchase17/langchain#9") == split_of("langchain-ai/langchain#9")


def test_the_shipped_attribution_holds_its_measured_figures_on_every_split() -> None:
    """Floors a little under what the rules and the model measured (README): a rule change that
    costs held-out accuracy, or that sends lines to the wrong layer, fails here."""
    from bot.triage.corpus import load_corpus, score
    from bot.triage.knowledge import Knowledge

    knowledge = Knowledge.load()
    rows = load_corpus(CORPUS)
    # dev's wrong layer: r16 added four dev lines whose text says another layer than the thread
    # found (the split's older lines hold 4.4 %); test's: the neighbour check answers 15 more test
    # lines, 8 right and 4 in another layer (README, Attribution); r17 to r19 added 51 test lines
    # met at 42 %, 44 % and 38 % right, and r19's calibration raised the code threshold to 0.60 (the
    # model answers fewer lines, more of them right): the split went from 62.7 % to 61.3 % right;
    # word triples took it to 62.0 % with a layer threshold of 0.80 and no neighbour check, which
    # answers fewer of the train and dev lines the model was fitted on (86.5 % -> 85.2 % and
    # 84.2 % -> 82.9 % right there)
    floors = {"train": (0.85, 0.09, 0.04), "dev": (0.82, 0.095, 0.05), "test": (0.615, 0.26, 0.08)}
    # what the rules answer is right: the test split's lines of r14 to r16 were met at 43 %, 64 % and 36 %
    rule_floor = {"train": 0.85, "dev": 0.85, "test": 0.825}
    for split, (right, unattributed, wrong_layer) in floors.items():
        got = score([r for r in rows if r.split == split], knowledge.attributor.attribute, knowledge.taxonomy)
        tally = got.overall
        assert tally.share(tally.right) >= right, (split, got.render(split))
        assert tally.share(tally.unattributed) <= unattributed, (split, got.render(split))
        assert tally.share(tally.wrong_layer) <= wrong_layer, (split, got.render(split))
        rules = got.by_stage["rule"]
        assert rules.share(rules.right) >= rule_floor[split], (split, got.render(split))


def test_the_first_contact_record_names_train_and_dev_lines_only() -> None:
    """The learned stage is calibrated on these: a test-split line there would leak into it."""
    from bot.triage.corpus import first_contact, line_key
    from bot.triage.training import FIRST_CONTACT

    contacts = first_contact(FIRST_CONTACT)
    assert {c.round for c in contacts} >= {"r1", "r2", "r3", "r4"}
    split_of_key = {line_key(source, line): split for split, _code, source, _f, line, _n in rows()}
    taxonomy = load_taxonomy()
    for contact in contacts:
        assert split_of_key.get(contact.key) in ("train", "dev"), contact
    assert all(c.answer == UNATTRIBUTED or c.answer in taxonomy.codes for c in contacts)
    assert len({c.key for c in contacts}) == len(contacts)


def test_the_readers_answers_are_for_lines_first_contact_missed() -> None:
    """reader_answers.tsv (a language model reading each line alone) covers exactly the lines its
    rounds' rules of the day left unattributed, once each, with codes of the taxonomy: the README's
    figure for it is over those lines and no others."""
    from bot.triage.corpus import first_contact
    from bot.triage.training import FIRST_CONTACT

    read = first_contact(CORPUS.with_name("reader_answers.tsv"))
    rounds = {c.round for c in read}
    missed = {(c.round, c.key) for c in first_contact(FIRST_CONTACT) if c.answer == UNATTRIBUTED}
    assert rounds == {"r5", "r6", "r7", "r8", "r9"}
    assert {(c.round, c.key) for c in read} == {m for m in missed if m[0] in rounds}
    assert len({c.key for c in read}) == len(read) == 506
    taxonomy = load_taxonomy()
    assert all(c.answer == UNATTRIBUTED or c.answer in taxonomy.codes for c in read)


EMITTERS = CORPUS.with_name("emitter_lines.tsv")
EMITTER_SOURCE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{7,40}:[^:\s]+:\d+$")


def test_the_emitters_wording_is_well_formed_and_never_a_held_out_line() -> None:
    """Messages read in the servers' own source: a code of the taxonomy each, the file and line
    they were read at, and never the text of a test-split line (which would leak into training)."""
    from bot.triage.corpus import load_emitter_lines

    taxonomy = load_taxonomy()
    found = load_emitter_lines(EMITTERS)
    assert len(found) >= 300
    held_out = {r[4] for r in rows() if r[0] == "test"}
    for row in found:
        assert row.code == UNATTRIBUTED or row.code in taxonomy.codes, row
        assert EMITTER_SOURCE.match(row.source), row
        assert row.family == row.family.lower() and row.line.strip() == row.line and len(row.line) <= 400, row
        assert row.line not in held_out, row
    assert len({r.line for r in found}) == len(found)
    families = {r.family for r in found}
    assert {"triton", "trtllm", "sglang", "kserve", "ray-serve"} <= families


def test_a_malformed_emitter_row_is_named_by_file_and_line(tmp_path: Path) -> None:
    from bot.errors import ConfigError
    from bot.triage.corpus import load_emitter_lines

    bad = tmp_path / "emitters.tsv"
    bad.write_text(
        "# comment\nENG_CRASH\tx/y@0123456789ab:a.py:1\tsglang\tScheduler is dead\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"emitters\.tsv:2: expected 5 tab-separated columns"):
        load_emitter_lines(bad)
