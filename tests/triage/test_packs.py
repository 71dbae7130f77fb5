"""Every pack on both ways in: category, code and first action against expected.yaml.

Each pack is served by the sandbox (a real Prometheus, stand-ins of Elasticsearch and Kubernetes,
NVML readings behind pynvml's calls) and triaged twice: by the replay `triage --pack` and `eval`
run (the alert through intake into a throwaway store, the worker triaging), and by a real
`incident-bot serve` process started with the environment `sandbox up` prints, the pack's
alert.json posted to its webhook. Both must store the same category, code and ordered actions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bot.actions.catalog import SCOPE_FIELD
from bot.config import BotConfig
from bot.domain import TriageResult
from bot.sandbox.evaluate import find_packs, score
from bot.sandbox.pack import load_pack
from bot.sandbox.replay import replaying
from bot.sandbox.safety import unsafe_actions
from bot.sandbox.up import Sandbox
from bot.triage.knowledge import Knowledge
from tests.conftest import ROOT
from tests.support.live import serve_process

# The shipped packs, and held-out packs written apart from the bot's code.
PACKS = [*find_packs(ROOT / "scenarios"), *find_packs(ROOT / "tests" / "heldout")]
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
    assert len(PACKS) >= 18
    assert {e.category.value for e in expected if e} == {
        "infrastructure",
        "model_config",
        "inference_engine",
        "operational",
    }


def process_env(env: dict[str, str], folder: Path) -> dict[str, str]:
    """The sandbox's environment for `serve`, on its own database, with nothing else of ours set."""
    merged = {
        **os.environ,
        **env,
        "DATABASE_URL": f"sqlite:///{folder / 'live.db'}",
        "WORKER_POLL_SECONDS": "0.1",
    }
    for unset in ("ALERTMANAGER_TOKEN", "API_TOKEN", "INCIDENT_BOT_CONFIG", "OPENAI_BASE_URL"):
        merged.pop(unset, None)
    return merged


def live_triage(url: str, body: bytes) -> TriageResult:
    """Post the alert as Alertmanager would, then read the stored triage back over the API."""
    with httpx.Client(base_url=url, timeout=10) as client:
        opened = client.post(
            "/webhooks/alertmanager", content=body, headers={"Content-Type": "application/json"}
        )
        assert opened.status_code == 200, opened.text
        incident = opened.json()["incident_id"]
        deadline = time.monotonic() + 90
        while (stored := client.get(f"/api/incidents/{incident}").json().get("triage")) is None:
            assert time.monotonic() < deadline, "the worker stored no triage"
            time.sleep(0.2)
    return TriageResult.model_validate(stored)


def plan(result: TriageResult) -> tuple[str, str, list[tuple[str, str]]]:
    return result.category.value, result.code, [(a.kind.value, a.target) for a in result.actions]


@pytest.mark.parametrize("folder", PACKS, ids=[p.name for p in PACKS])
def test_pack(folder: Path, knowledge: Knowledge, tmp_path: Path) -> None:
    pack = load_pack(folder)
    assert pack.expected is not None
    with Sandbox(pack) as sandbox:
        with replaying(sandbox, knowledge=knowledge) as replay:
            result = replay.triage().result
        with serve_process(process_env(sandbox.env, tmp_path)) as url:
            live = live_triage(url, pack.alert_body)
    category_ok, code_ok, action_ok = score(pack.expected, result, knowledge.taxonomy, pack.objects)
    assert unsafe_actions(pack.expected, result, pack.objects) == [], plan(result)
    assert (category_ok, code_ok, action_ok) == (True, True, True), plan(result)
    assert plan(live) == plan(result)
    if pack.expected.secondary is not None:  # two causes at once: both are told
        assert pack.expected.secondary.code in [a.code for a in result.alternatives], result.alternatives
    assert set(result.public()) >= CONTRACT
    assert result.engine == "rules" and result.runbook and Path(ROOT / result.runbook).exists()
    # Every action acts on an object of the triage's own scope, as resolved from the cluster.
    for action in result.actions:
        kind, _, name = action.target.partition("/")
        assert name in result.scope[SCOPE_FIELD[kind]], (action.target, result.scope)
    cited = {e["id"] for e in result.evidence}
    assert cited, "a triage always rests on evidence"
    assert all(e["query"] and e["summary"] for e in result.evidence)
    assert result.incident.severity == BotConfig().severity_for(pack.alert.label("severity")).value
    # Every catalog query ran against the pack's real Prometheus, and every backend the pack records
    # answered: NVML may stay unread, logs only when the pack has none. A scope the alert does not
    # tie to a workload is a gap of its own, named exactly when the scope says so.
    expected_gaps = ("gpu:", "kubernetes: scope:") + (() if pack.has("logs.ndjson") else ("elasticsearch:",))
    assert [g for g in result.gaps if not g.startswith(expected_gaps)] == [], result.gaps
    # A GPU gap is only a GPU node in scope whose readings the pack did not record (no agent there).
    assert all(g.startswith("gpu: no agent on node ") for g in result.gaps if g.startswith("gpu:"))
    assert any(g.startswith("kubernetes: scope:") for g in result.gaps) == bool(result.scope["unresolved"])
    assert pack.has("logs.ndjson") or any(g.startswith("elasticsearch:") for g in result.gaps)
    # The process reached the same backends, the GPU agents too (found through the stand-in's pods).
    assert [g for g in live.gaps if not g.startswith(expected_gaps)] == [], live.gaps
    assert [g for g in live.gaps if g.startswith("gpu:")] == [g for g in result.gaps if g.startswith("gpu:")]


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
        + "frobnicator 3 failed to sprocket\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "bot", "attribute", str(lines)], capture_output=True, text=True, timeout=60
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["code"] for a in answers] == ["INF_GPU_OOM", "INF_GPU_XID", "UNATTRIBUTED", "UNATTRIBUTED"]
    assert answers[0]["layer"] == "INF" and answers[0]["category"] == "infrastructure" and answers[0]["rule"]
    reported = subprocess.run(
        [sys.executable, "-m", "bot", "attribute", "--report", str(lines)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert reported.stdout == done.stdout
    assert reported.stderr.startswith("unattributed: 1/3 (33.3%, target < 10%)")
    assert "left out: 1 lines that report no failure" in reported.stderr  # "everything is fine"
    assert "frobnicator failed to sprocket" in reported.stderr
    piped = subprocess.run(
        [sys.executable, "-m", "bot", "attribute"],
        input="upstream request timeout\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(piped.stdout)["code"].startswith("GW_")
