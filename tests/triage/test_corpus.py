"""The real-wording corpus (corpus/real_lines.tsv): every row well-formed, labelled with a taxonomy
code, sourced from a public thread, and in the split its repository hashes to (no project's
wording in two splits)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from bot.triage.taxonomy import UNATTRIBUTED, load_taxonomy

CORPUS = Path(__file__).with_name("corpus") / "real_lines.tsv"
SOURCE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#\d+$")


def rows() -> list[list[str]]:
    text = CORPUS.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in text if line.strip() and not line.startswith("#")]


def split_of(source: str) -> str:
    bucket = int(hashlib.sha1(source.split("#")[0].lower().encode()).hexdigest(), 16) % 10
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
