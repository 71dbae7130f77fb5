"""The classifier on every pack: category, code and first action against expected.yaml.

Each pack is triaged end to end through the real clients (real Prometheus, stand-ins of
Elasticsearch and Kubernetes, NVML readings behind pynvml's calls).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.sandbox.pack import load_pack
from bot.triage.evaluate import find_packs, score
from bot.triage.service import Knowledge, triage_pack
from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parents[2]
# The shipped packs, the shared example, and held-out packs written apart from the bot's code.
PACKS = [
    *find_packs(ROOT / "scenarios"),
    SHARED / "examples" / "kv-cache-exhaustion-after-deploy",
    *find_packs(ROOT / "tests" / "heldout"),
]
CONTRACT = {
    "incident",
    "category",
    "code",
    "layer",
    "hypothesis",
    "confidence",
    "evidence",
    "blast_radius",
    "actions",
    "runbook",
    "engine",
    "timings_ms",
}


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return Knowledge.load()


def test_the_scenarios_cover_every_category() -> None:
    expected = [load_pack(p).expected for p in PACKS]
    assert len(PACKS) >= 19
    assert {e.category.value for e in expected if e} == {
        "infrastructure",
        "model_config",
        "inference_engine",
        "operational",
    }


@pytest.mark.parametrize("folder", PACKS, ids=[p.name for p in PACKS])
def test_pack(folder: Path, knowledge: Knowledge) -> None:
    pack = load_pack(folder)
    assert pack.expected is not None
    result = triage_pack(pack, knowledge)
    category_ok, code_ok, action_ok = score(pack.expected, result)
    got = (result.category, result.code, [(a.kind, a.target) for a in result.actions][:1])
    assert (category_ok, code_ok, action_ok) == (True, True, True), got
    assert set(result.public()) >= CONTRACT
    assert result.engine == "rules" and result.runbook and Path(ROOT / result.runbook).exists()
    assert all(a.reversible and a.undo for a in result.actions)
    cited = {e["id"] for e in result.evidence}
    assert cited, "a triage always rests on evidence"
    assert all(e["query"] and e["summary"] for e in result.evidence)
    # Every catalog query ran against the pack's real Prometheus, and every backend answered; only a
    # pack without gpus.json may leave NVML unread.
    assert [g for g in result.gaps if not g.startswith("gpu:")] == [], result.gaps
    assert all(
        g.endswith("NVML not available") or "NVML not available on this host" in g for g in result.gaps
    )


def test_triage_and_eval_commands(tmp_path: Path) -> None:
    pack = PACKS[0]
    triaged = subprocess.run(
        [sys.executable, "-m", "bot", "triage", "--pack", str(pack), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert triaged.returncode == 0, triaged.stderr
    result = json.loads(triaged.stdout)
    assert set(result) >= CONTRACT and result["incident"]["started_at"]
    script = tmp_path / "script.yaml"
    script.write_text("- content: not JSON at all\n- content: still not JSON\n")
    reviewed = subprocess.run(
        [sys.executable, "-m", "bot", "triage", "--pack", str(pack), "--json", "--llm-script", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    notes = json.loads(reviewed.stdout)["notes"]
    assert any(n.startswith("llm review discarded after one repair") for n in notes)
    folder = tmp_path / "two"
    folder.mkdir()
    for source in PACKS[:2]:
        (folder / source.name).symlink_to(source)
    out = tmp_path / "scores.json"
    evaluated = subprocess.run(
        [sys.executable, "-m", "bot", "eval", str(folder), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    lines = evaluated.stdout.strip().splitlines()
    assert lines[0].split() == ["pack", "category", "code", "action", "got"]
    assert lines[-1].startswith("total") and "all three right: 2/2" in lines[-1]
    scores = json.loads(out.read_text())
    assert [p["name"] for p in scores["packs"]] == [load_pack(p).name for p in sorted(PACKS[:2])]
    assert set(scores["packs"][0]) >= {"name", "category_ok", "code_ok", "action_ok", "result"}
    assert scores["totals"]["packs"] == 2


def test_attribute_command(tmp_path: Path) -> None:
    lines = tmp_path / "lines.ndjson"
    lines.write_text(
        json.dumps({"message": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"})
        + "\n"
        + "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
        + "everything is fine\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "bot", "attribute", str(lines)], capture_output=True, text=True, timeout=60
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["code"] for a in answers] == ["INF_GPU_OOM", "INF_GPU_XID", "UNATTRIBUTED"]
    assert answers[0]["layer"] == "INF" and answers[0]["category"] == "infrastructure" and answers[0]["rule"]
    reported = subprocess.run(
        [sys.executable, "-m", "bot", "attribute", "--report", str(lines)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert reported.stdout == done.stdout
    assert reported.stderr.startswith("unattributed: 1/3 (33.3%, target < 10%)")
    assert "everything is fine" in reported.stderr
    piped = subprocess.run(
        [sys.executable, "-m", "bot", "attribute"],
        input="upstream request timeout\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(piped.stdout)["code"].startswith("GW_")
