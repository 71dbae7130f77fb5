"""`incidents export-pack`: an incident of a sandbox becomes a pack that evaluates to the same triage.

Each test serves a bundled pack, lets the bot open and triage its incident through the worker,
resolves it with a final tag, exports it with the real command against the sandbox's live
backends, and replays the export with the real `eval`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.domain import Category
from bot.sandbox.pack import load_pack
from tests.packs.support import SCENARIOS, clean_env, cli, opened

ALL_FILES = {
    "scenario.yaml",
    "alert.json",
    "metrics.om",
    "logs.ndjson",
    "k8s.yaml",
    "gpus.json",
    "expected.yaml",
}
# One with GPU readings and a rollout (a card fell off the bus after a log-level rollout), one
# gateway- and logs-heavy (an ingress rate limit after a policy change).
PACKS = ["loglevel-rollout-then-xid79", "nginx-ratelimit-429-after-policy-change"]


def promtool() -> str:
    found = shutil.which("promtool")
    assert found, (
        "promtool not found: the Debian package `prometheus` provides it (scripts/lib.sh installs it)"
    )
    return found


def evaluate(pack: Path, tmp_path: Path) -> dict[str, Any]:
    scores = tmp_path / "scores.json"
    done = cli(clean_env(), "eval", str(pack), "--json", str(scores))
    assert done.returncode == 0, done.stderr
    packs = json.loads(scores.read_text())["packs"]
    assert len(packs) == 1, packs
    row: dict[str, Any] = packs[0]
    assert row["result"] is not None, row.get("error")
    return row


def first_action(actions: list[dict[str, Any]]) -> tuple[str, str] | None:
    return (actions[0]["kind"], actions[0]["target"]) if actions else None


@pytest.mark.parametrize("name", PACKS)
def test_an_exported_incident_evaluates_to_the_same_triage(name: str, tmp_path: Path) -> None:
    out = tmp_path / "exported"
    with opened(SCENARIOS / name) as incident:
        original = incident.triage.result
        final = incident.pack.expected
        assert final is not None
        incident.replay.deps.services.incidents.resolve(
            incident.incident_id,
            reason="rolled back and drained",
            actor="ana",
            category=final.category,
            code=final.code,
        )
        done = cli(incident.env, "incidents", "export-pack", str(incident.incident_id), str(out))
    assert done.returncode == 0, done.stderr
    assert "left out" not in done.stdout, done.stdout
    assert {p.name for p in out.iterdir()} == ALL_FILES

    # The pack loads, its metrics backfill with promtool, and its clock is the first triage's.
    pack = load_pack(out)
    assert pack.meta.as_of == original.as_of
    assert pack.meta.name.startswith(f"incident-{incident.incident_id}-")
    backfilled = subprocess.run(
        [
            promtool(),
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            str(out / "metrics.om"),
            str(tmp_path / "tsdb"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert backfilled.returncode == 0, backfilled.stderr
    assert pack.alert.groupKey == incident.pack.alert.groupKey

    expected = yaml.safe_load((out / "expected.yaml").read_text())
    assert (expected["category"], expected["code"]) == (str(final.category), final.code)

    row = evaluate(out, tmp_path)
    result = row["result"]
    assert (result["category"], result["code"]) == (str(original.category), original.code)
    assert first_action(result["actions"]) == first_action(
        [a.model_dump(mode="json") for a in original.actions]
    )
    for part in ("namespace", "pods", "nodes", "deployments", "routes"):
        assert result["scope"][part] == original.scope[part], part
    assert row["category_ok"] and row["code_ok"] and row["action_ok"], row


PLANTED = {
    "log": "sk-live-PLANTEDlogsecret0123456789",
    "prompt": "PLANTED-PROMPT tell me the quarterly numbers",
    "annotation": "ghp_PLANTEDannotation0123456789abcd",
    "env": "hf_PLANTEDenvtoken0123456789abcdef",
    "alert": "PLANTEDalertpassword",
}


def plant(root: Path) -> None:
    """Secrets in every log line, in the Deployments' and Pods' annotations and env, and in the alert."""
    lines = []
    for line in (root / "logs.ndjson").read_text().splitlines():
        doc = json.loads(line)
        doc["message"] = f"{doc['message']} (upstream said: Authorization: Bearer {PLANTED['log']})"
        doc["prompt"] = PLANTED["prompt"]
        doc["messages"] = [{"role": "user", "content": PLANTED["prompt"]}]
        lines.append(json.dumps(doc))
    (root / "logs.ndjson").write_text("\n".join(lines) + "\n")
    objects = list(yaml.safe_load_all((root / "k8s.yaml").read_text()))
    for obj in objects:
        if not obj or obj.get("kind") not in ("Deployment", "Pod"):
            continue
        obj["metadata"].setdefault("annotations", {})["example.com/notes"] = f"token: {PLANTED['annotation']}"
        spec = obj["spec"] if obj["kind"] == "Pod" else obj["spec"]["template"]["spec"]
        for container in spec.get("containers") or []:
            container.setdefault("env", []).append({"name": "HF_TOKEN", "value": PLANTED["env"]})
    (root / "k8s.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))
    body = json.loads((root / "alert.json").read_text())
    for alert in body["alerts"]:
        alert["annotations"]["runbook_url"] = f"https://oncall:{PLANTED['alert']}@wiki.example/runbooks/x"
    (root / "alert.json").write_text(json.dumps(body))


def test_secrets_and_user_content_never_reach_the_exported_files(tmp_path: Path) -> None:
    source = tmp_path / "planted"
    shutil.copytree(SCENARIOS / PACKS[1], source)
    plant(source)
    out = tmp_path / "exported"
    with opened(source) as incident:
        done = cli(incident.env, "incidents", "export-pack", str(incident.incident_id), str(out))
    assert done.returncode == 0, done.stderr
    texts = {p.name: p.read_text() for p in out.iterdir()}
    assert {"logs.ndjson", "k8s.yaml", "alert.json"} <= set(texts)
    for where, secret in PLANTED.items():
        leaked = [name for name, text in texts.items() if secret in text]
        assert leaked == [], f"the planted {where} secret is in {leaked}"
    # Redacted in place, so the lines still read: the marker stands where the value was.
    assert "(upstream said: Authorization: [REDACTED]" in texts["logs.ndjson"]
    assert '"prompt": "[USER CONTENT REMOVED]"' in texts["logs.ndjson"]
    assert "token: [REDACTED]" in texts["k8s.yaml"]
    assert "HF_TOKEN" in texts["k8s.yaml"]
    assert "managedFields" not in texts["k8s.yaml"]
    assert "oncall:[REDACTED]@wiki.example" in texts["alert.json"]
    load_pack(out)  # still a valid pack


def test_a_missing_backend_is_a_named_gap_and_a_changed_code_leaves_the_actions_open(tmp_path: Path) -> None:
    """A pack without logs serves no logs backend: the export says so and still exits 0. Resolved
    with a code the triage did not give, and no action run, expected.yaml names no first action."""
    out = tmp_path / "exported"
    with opened(SCENARIOS / "no-logs-tgi-queue-full") as incident:
        triaged = incident.triage.result.code
        final = "DEP_STORAGE" if triaged != "DEP_STORAGE" else "INF_GPU_OOM"
        incident.replay.deps.services.incidents.resolve(
            incident.incident_id, reason="the weights bucket was slow", actor="bob", code=final
        )
        done = cli(incident.env, "incidents", "export-pack", str(incident.incident_id), str(out))
    assert done.returncode == 0, done.stderr
    assert "left out logs.ndjson: logs not configured (set ELASTICSEARCH_URL)" in done.stdout
    assert not (out / "logs.ndjson").exists()
    text = (out / "expected.yaml").read_text()
    expected = yaml.safe_load(text)
    assert expected == {"category": str(Category.INFRASTRUCTURE), "code": final}
    assert f"differs from the first triage's ({triaged})" in text
    pack = load_pack(out)
    assert pack.expected is not None and pack.expected.acceptable_first_actions == []


def test_export_refuses_a_directory_in_use_and_an_unknown_incident(tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine")
    with opened(SCENARIOS / PACKS[1]) as incident:
        in_use = cli(incident.env, "incidents", "export-pack", str(incident.incident_id), str(used))
        unknown = cli(incident.env, "incidents", "export-pack", "999", str(tmp_path / "new"))
    assert in_use.returncode != 0 and "is not an empty directory" in in_use.stderr
    assert (used / "notes.txt").read_text() == "mine"
    assert unknown.returncode != 0 and "incident 999 does not exist" in unknown.stderr
