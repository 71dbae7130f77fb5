"""The taxonomy file is the one home of the vocabulary: editing it changes the triage, and every
other data file (rules, signals, runbooks, packs) is checked against it at start-up."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.domain import Category
from bot.errors import ConfigError
from bot.sandbox.pack import load_pack
from bot.sandbox.replay import triage_pack
from bot.triage.knowledge import Knowledge
from bot.triage.runbooks import DEFAULT_DIR
from bot.triage.taxonomy import DEFAULT_TAXONOMY, default_taxonomy, load_taxonomy
from tests.conftest import ROOT
from tools.signals import DEFAULT_CATALOG

XID = ROOT / "scenarios" / "gpu-xid79-fell-off-bus"
INFRASTRUCTURE_LAYER = """  INF:
    meaning: infrastructure and GPU (compute, node, orchestration, local storage)
    category: infrastructure
"""


def edited(tmp_path: Path, old: str, new: str) -> Path:
    text = DEFAULT_TAXONOMY.read_text()
    assert old in text
    path = tmp_path / "taxonomy.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_a_layers_category_in_the_file_is_the_triages_tag(tmp_path: Path) -> None:
    """The Xid pack is infrastructure; tag the INF layer operational in a copy and the same
    evidence, through the same production path, comes out operational."""
    pack = load_pack(XID)
    shipped = triage_pack(pack)
    assert (shipped.category, shipped.code) == (Category.INFRASTRUCTURE, "INF_GPU_XID")
    copy = edited(
        tmp_path, INFRASTRUCTURE_LAYER, INFRASTRUCTURE_LAYER.replace("infrastructure\n", "operational\n")
    )
    changed = triage_pack(pack, taxonomy_file=copy)
    assert (changed.category, changed.code) == (Category.OPERATIONAL, "INF_GPU_XID")
    assert [(a.kind, a.target) for a in changed.actions] == [(a.kind, a.target) for a in shipped.actions]


def test_a_code_meaning_in_the_file_is_the_hypothesis_wording(tmp_path: Path) -> None:
    old = "  INF_GPU_XID: GPU hardware or driver fault"
    copy = edited(tmp_path, old, "  INF_GPU_XID: the card is gone, replace it")
    result = triage_pack(load_pack(XID), taxonomy_file=copy)
    assert result.hypothesis.startswith("INF_GPU_XID: The card is gone, replace it")


def test_caller_errors_need_the_category_their_incidents_get(tmp_path: Path) -> None:
    copy = edited(
        tmp_path, "    category: none\n    incident_category: operational\n", "    category: none\n"
    )
    with pytest.raises(ConfigError) as info:
        load_taxonomy(copy)
    assert f"{copy}:" in info.value.message
    assert "layers.BIZ: Value error, a layer whose category is `none` needs an incident_category" in (
        info.value.message
    )
    table = default_taxonomy()
    assert table.layers["BIZ"].category == "none"  # one error line of a caller: not an incident
    assert table.category_of("BIZ_INPUT_TOO_LONG") is Category.OPERATIONAL  # an SLO burning on them is
    assert table.info("BIZ_AUTH").category == "none"  # what `attribute` prints per line


def test_every_data_file_speaks_the_taxonomy(tmp_path: Path) -> None:
    signals = tmp_path / "signals.yaml"
    text = DEFAULT_CATALOG.read_text()
    assert "    layer: ENG\n" in text
    signals.write_text(text.replace("    layer: ENG\n", "    layer: ENGINE\n", 1))
    with pytest.raises(ConfigError) as info:
        Knowledge.load(signals=signals)
    assert (
        f"{signals}:" in info.value.message
        and "'ENGINE' is not a layer of the taxonomy" in info.value.message
    )
    runbooks = tmp_path / "runbooks"
    shutil.copytree(DEFAULT_DIR, runbooks)
    book = next(p for p in sorted(runbooks.glob("*.md")) if "ENG_KV_CACHE" in p.read_text())
    book.write_text(book.read_text().replace("ENG_KV_CACHE", "ENG_KV_CACHE_FULL", 1))
    with pytest.raises(ConfigError, match=r"'ENG_KV_CACHE_FULL' is not a taxonomy code \(did you mean"):
        Knowledge.load(runbooks=runbooks)
    # An alias is a code everywhere: a runbook naming seed 000's name matches the canonical code.
    book.write_text(book.read_text().replace("ENG_KV_CACHE_FULL", "MOD_INFERENCE_TIMEOUT", 1))
    knowledge = Knowledge.load(runbooks=runbooks)
    assert knowledge.runbooks.match("ENG_TIMEOUT", None) is not None
    assert "ENG_TIMEOUT" in knowledge.runbooks.get(book.stem).meta.matches.codes  # type: ignore[union-attr]


def test_the_codes_the_rules_name_must_be_in_the_taxonomy(tmp_path: Path) -> None:
    """The classifier and the evidence readers name some codes themselves: each is declared, and a
    taxonomy that drops one is refused at start-up instead of tagging incidents with an unknown code."""
    import re

    from bot.triage.classify import DECISION_CODES
    from bot.triage.findings import FINDING_CODES

    named = set()
    for module in ("classify.py", "findings.py"):
        named |= set(
            re.findall(r'"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"', (ROOT / "bot" / "triage" / module).read_text())
        )
    assert named <= FINDING_CODES | DECISION_CODES
    assert set(default_taxonomy().codes) >= FINDING_CODES | DECISION_CODES
    copy = edited(tmp_path, "  ENG_QUEUE_FULL: ", "  ENG_QUEUE_IS_FULL: ")
    with pytest.raises(ConfigError, match=r"codes: the triage rules name ENG_QUEUE_FULL, which the taxonomy"):
        Knowledge.load(taxonomy=copy)


def test_the_commands_read_the_data_files_the_settings_name(tmp_path: Path) -> None:
    """`triage --pack` (and `eval`, through the same replay) use TAXONOMY_FILE like the server does;
    a broken one is a one-line error with its file and line, exit 2."""
    import json
    import os
    import subprocess
    import sys

    copy = edited(
        tmp_path, INFRASTRUCTURE_LAYER, INFRASTRUCTURE_LAYER.replace("infrastructure\n", "operational\n")
    )
    env = {**os.environ, "TAXONOMY_FILE": str(copy)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "triage", "--pack", str(XID), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["category"] == "operational"
    broken = edited(tmp_path, "    rank: 1\n", "    rank: first\n")
    failed = subprocess.run(
        [sys.executable, "-m", "bot", "eval", str(XID.parent)],
        env={**os.environ, "TAXONOMY_FILE": str(broken)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode == 2 and f"{broken}:" in failed.stderr and "layers.INF.rank" in failed.stderr
    assert "Traceback" not in failed.stderr
