"""`eval` never dies of one pack, and `sandbox validate` says of each pack what `eval` will meet."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

GOOD = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"
# Kinds real clusters hold beside the serving objects, which the stand-in has no model of.
OTHER_KINDS = """---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: vllm-llama31-8b-support, namespace: support-bot}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm-llama31-8b-support}
  minReplicas: 3
  maxReplicas: 6
  metrics:
  - type: Pods
    pods:
      metric: {name: vllm_num_requests_waiting}
      target: {type: AverageValue, averageValue: "10"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: vllm-llama31-8b-support, namespace: support-bot}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: vllm-llama31-8b-support}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: support-chat-retries, namespace: support-bot}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: support-chat}]
  retry: {numRetries: 2}
"""


def copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / "packs" / name
    shutil.copytree(GOOD, target)
    scenario = target / "scenario.yaml"
    scenario.write_text(
        scenario.read_text().replace("name: kv-cache-preemption-traffic-surge", f"name: {name}")
    )
    return target


def test_broken_packs_are_their_own_rows_and_the_run_goes_on(tmp_path: Path) -> None:
    copy(tmp_path, "a-good-one")
    bad_alert = copy(tmp_path, "b-bad-alert")
    (bad_alert / "alert.json").write_text("{")
    bad_metrics = copy(tmp_path, "c-bad-metrics")
    metrics = bad_metrics / "metrics.om"
    lines = metrics.read_text().splitlines()
    lines[3] = lines[3].rsplit(" ", 2)[0] + " abc " + lines[3].rsplit(" ", 1)[1]  # promtool refuses the value
    metrics.write_text("\n".join(lines) + "\n")
    cluster = copy(tmp_path, "d-other-kinds")
    (cluster / "k8s.yaml").write_text((cluster / "k8s.yaml").read_text().rstrip() + "\n" + OTHER_KINDS)
    scores = tmp_path / "scores.json"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "eval", str(tmp_path / "packs"), "--json", str(scores)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:-1]}
    assert set(rows) == {"a-good-one", "b-bad-alert", "c-bad-metrics", "d-other-kinds"}
    assert "error:" in rows["b-bad-alert"] and "alert.json:1" in rows["b-bad-alert"]
    assert "error:" in rows["c-bad-metrics"] and "promtool could not backfill it" in rows["c-bad-metrics"]
    for good in ("a-good-one", "d-other-kinds"):
        assert rows[good].split()[1:4] == ["ok", "ok", "ok"], rows[good]
    assert done.stdout.splitlines()[-1].endswith("all three right: 2/4; unsafe actions: 0")
    saved = {p["name"]: p for p in json.loads(scores.read_text())["packs"]}
    assert saved["b-bad-alert"]["result"] is None and saved["b-bad-alert"]["error"]
    validated = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "sandbox",
            "validate",
            *sorted(map(str, (tmp_path / "packs").iterdir())),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    verdicts = [line.split()[0] for line in validated.stdout.splitlines() if line.startswith(("ok", "FAIL"))]
    assert validated.returncode == 1 and verdicts == ["ok", "FAIL", "FAIL", "ok"], validated.stdout
