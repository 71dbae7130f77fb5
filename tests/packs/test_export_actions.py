"""An exported incident's acceptable first actions are the actions that ran and were verified."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from bot.config import Actions, BotConfig
from bot.sandbox.pack import load_pack
from bot.sandbox.up import Sandbox
from tests.packs.support import SCENARIOS, clean_env, cli
from tests.slack.conftest import running_bot

pytestmark = pytest.mark.timeout(300)


def test_the_approved_and_verified_action_is_the_exported_first_action(
    database_url: str, tmp_path: Path
) -> None:
    pack_dir = SCENARIOS / "httproute-weight-skew-429"
    config = BotConfig(approvers=["U0BOB"], actions=Actions(verify_seconds=20))
    out = tmp_path / "exported"
    with Sandbox(load_pack(pack_dir)) as sandbox, running_bot(sandbox, database_url, config=config) as bot:
        incident = bot.alert((pack_dir / "alert.json").read_bytes())
        bot.wait_for(incident, "triage_posted")
        actions = bot.deps.services.actions
        proposal = next(p for p in actions.list(incident) if p.action.kind == "reroute")
        actions.approve(proposal.id, actor="U0BOB")
        deadline = time.monotonic() + 60
        while (done := actions.get(proposal.id)).status in ("approved", "running"):
            assert time.monotonic() < deadline, f"the reroute is still {done.status}"
            time.sleep(0.1)
        assert done.status == "done" and done.outcome.get("verified") is True, done
        bot.deps.services.incidents.resolve(
            incident, reason="weights evened", actor="U0BOB", code="GW_ROUTING"
        )
        env = {
            **clean_env(),
            **{k: v for k, v in sandbox.env.items() if not k.startswith(("SLACK_", "TRIAGE_"))},
            "DATABASE_URL": database_url,
            "KUBERNETES_IN_CLUSTER": "false",
        }
        exported = cli(env, "incidents", "export-pack", str(incident), str(out))
    assert exported.returncode == 0, exported.stderr
    text = (out / "expected.yaml").read_text()
    assert "approved, run and verified" in text
    assert yaml.safe_load(text) == {
        "category": "operational",
        "code": "GW_ROUTING",
        "acceptable_first_actions": [{"kind": "reroute", "target": proposal.action.target}],
    }
