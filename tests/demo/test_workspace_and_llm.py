"""The demo with a team's own Slack (its token and signing secret; the backends stay the sandbox's)
and with a configured LLM: the same run, posting elsewhere or reviewed by the model."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from bot.cli.demo import intro
from bot.demo import scenarios
from bot.demo.session import DemoError, DemoSession
from bot.sandbox.openai import OpenAIStandIn, ScriptedReply
from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn, SlackUser
from tests.demo.support import quiet, run_terminal

pytestmark = pytest.mark.timeout(180)
TEAM_TOKEN, TEAM_SECRET = "xoxb-team-workspace", "team-signing-secret"
TEAMMATE = SlackUser(id="U0TEAMMATE", name="dana", real_name="Dana Ito", email="dana@team.example")


def test_a_real_workspace_gets_the_channel_and_the_approval_is_signed_with_its_secret(tmp_path: Path) -> None:
    team = SlackStandIn(token=TEAM_TOKEN, users=[TEAMMATE], bot_user_id="UTEAMBOT")
    with ServerThread(team.app, name="team-slack") as server:
        env = quiet(
            slack_bot_token=TEAM_TOKEN,
            slack_signing_secret=TEAM_SECRET,
            slack_api_url=f"{server.url}/api/",
            demo_slack_user=TEAMMATE.id,
        )
        with DemoSession(scenarios.load("httproute-weight-skew-429"), env) as session:
            assert session.workspace.real
            run = run_terminal(session, tmp_path)
            sandbox_slack = session.sandbox.slack
            assert sandbox_slack is not None
            assert not sandbox_slack.calls_to("chat.postMessage")  # nothing went to the stand-in
    assert run.summary.action_state == "done", run.output
    channel = next(c for c in team.channels.values() if c.name.startswith("inc-"))
    assert set(channel.members) == {"UTEAMBOT", TEAMMATE.id}
    post = next(m for m in channel.messages if m.blocks and "Triage:" in json.dumps(m.blocks[0]))
    body = json.dumps(post.blocks)
    assert "done" in body and "undo-proposal" in body and f"<@{TEAMMATE.id}>" in body
    assert "weight: 90 → 50" in run.output


def test_a_real_workspace_without_the_demo_user_is_refused() -> None:
    env = quiet(slack_bot_token=TEAM_TOKEN, slack_signing_secret=TEAM_SECRET)
    with pytest.raises(DemoError, match="needs DEMO_SLACK_USER, your member ID"):
        DemoSession(scenarios.load("httproute-weight-skew-429"), env).start()


KV = "prom:kv_cache_usage:vllm:pod=vllm-llama31-8b-support-wjlzdcvg4h-gn466"
VERDICT = {
    "category": "inference_engine",
    "code": "ENG_KV_CACHE",
    "layer": "ENG",
    "hypothesis": "The evening surge filled every replica's KV cache; vLLM is preempting sequences.",
    "confidence": 0.83,
    "evidence_ids": [KV],
    "claims": [
        {"text": "KV cache near full on vllm-llama31-8b-support-wjlzdcvg4h-gn466", "evidence_ids": [KV]}
    ],
    "actions": [
        {"kind": "add_replica", "target": "deployment/vllm-llama31-8b-support", "rationale": "more KV cache"}
    ],
}


def test_with_an_llm_configured_the_demo_says_so_and_the_model_reviews_the_triage(tmp_path: Path) -> None:
    model = OpenAIStandIn([ScriptedReply(content=json.dumps(VERDICT))], api_key="sk-team", model="team-model")
    with ServerThread(model.app, name="team-llm") as server:
        env = quiet(openai_base_url=f"{server.url}/v1", openai_api_key="sk-team", openai_model="team-model")
        with DemoSession(scenarios.load("kv-cache-preemption-traffic-surge"), env) as session:
            shown = io.StringIO()
            intro(Console(file=shown, width=200, color_system=None), session)
            run = run_terminal(session, tmp_path)
    assert f"rules engine, reviewed by team-model at {server.url}/v1" in shown.getvalue()
    assert model.requests, "the model was never asked"
    assert run.summary.engine == "llm" and run.summary.hypothesis == VERDICT["hypothesis"]
    assert "83% (llm)" in run.output, run.output
    assert run.summary.action == "add_replica deployment/vllm-llama31-8b-support"
    assert run.summary.action_state == "done", run.output
