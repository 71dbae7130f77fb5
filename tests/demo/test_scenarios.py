"""Every bundled scenario through the demo, as `incident-bot demo --scenario NAME --yes` runs it:
the channel receives the announcement and the triage the pack expects, and where an action is
proposed, the approved one changes its object in the sandbox's cluster (read with kubectl)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.demo import scenarios
from bot.demo.session import DemoSession
from bot.sandbox.pack import load_pack
from tests.demo.support import kubectl_get, original, quiet, run_terminal

pytestmark = pytest.mark.timeout(180)
BUNDLED = scenarios.bundled()


def test_every_pack_in_the_scenarios_folder_is_offered() -> None:
    folders = sorted(p.name for p in scenarios.SCENARIOS.iterdir() if (p / "scenario.yaml").is_file())
    assert [s.name for s in BUNDLED] == folders and len(folders) >= 24
    assert all(s.summary for s in BUNDLED)


@pytest.mark.parametrize("name", [s.name for s in BUNDLED])
def test_scenario_runs_through_the_demo(name: str, tmp_path: Path) -> None:
    pack = load_pack(scenarios.SCENARIOS / name)
    assert pack.expected is not None
    with DemoSession(scenarios.load(name), quiet()) as session:
        run = run_terminal(session, tmp_path)
        summary, output = run.summary, run.output
        assert (summary.category, summary.code) == (pack.expected.category.value, pack.expected.code), output
        assert f"Incident {summary.incident_id}" in output and "Triage:" in output
        assert summary.engine == "rules"
        proposals = session.proposals(summary.incident_id)
        if not proposals:
            assert "No action to approve" in output and summary.action is None
            return
        first = next(p for p in proposals if p.preview.get("ok", True))
        assert summary.action == f"{first.action.kind.value} {first.action.target}"
        assert summary.action_state == "done", output
        assert first.action.undo and "Undo" in output
        kubeconfig = session.sandbox.env["KUBECONFIG"]
        now = kubectl_get(kubeconfig, first.action.target, first.action.namespace or pack.meta.namespace)
        before = original(pack, first.action.target)
        if first.action.kind.value == "restart_pod":
            assert now is None or now["metadata"].get("uid") != before["metadata"].get("uid")
        else:
            assert now is not None and now["spec"] != before["spec"], f"{first.action.target} did not change"


def test_undo_from_the_terminal_restores_the_object(tmp_path: Path) -> None:
    """Answered yes twice (a responder at a terminal): the replica added, then taken back."""
    with DemoSession(scenarios.load("kv-cache-preemption-traffic-surge"), quiet()) as session:
        run = run_terminal(session, tmp_path, undo=True)
        kubeconfig = session.sandbox.env["KUBECONFIG"]
        deployment = kubectl_get(kubeconfig, "deployment/vllm-llama31-8b-support", "support-bot")
        proposal = session.proposals(run.summary.incident_id)[0]
    assert run.summary.action_state == "done"
    assert proposal.status == "undone", run.output
    assert deployment is not None and deployment["spec"]["replicas"] == 3
    assert "undone" in run.output and "spec.replicas: 4 → 3" in run.output
