"""`scripts/demo.sh` and `incident-bot demo` as a new user runs them: no account, no key, no
terminal to answer in (CI), so `--yes` approves and its absence changes nothing."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.demo import scenarios
from tests.conftest import ROOT

pytestmark = pytest.mark.timeout(240)


def bare_env(**extra: str) -> dict[str, str]:
    """A fresh machine's environment: no Slack, no LLM, no backends."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {**keep, "COLUMNS": "120", **extra}


def demo(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "demo", *args],
        cwd=cwd,
        env=env or bare_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )


def test_demo_sh_yes_runs_to_the_end_and_shows_the_triage_and_the_executed_action(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(ROOT / "scripts" / "demo.sh"), "--yes", "--out", str(tmp_path / "out")],
        env=bare_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=220,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    # The channel as it fills: announcement (pinned), progress, notice, triage with numbered buttons.
    assert "incident-bot demo · kv-cache-preemption-traffic-surge" in out
    assert "A recorded incident, replayed: its evidence is read as of 2026-06-16 19:05Z" in out
    assert "rules engine (no LLM: set OPENAI_BASE_URL" in out
    assert "Incident 1: support-bot: p95 time per output token above 80ms" in out and "pinned" in out
    assert "Triage run 1 running" in out
    assert "Triage: inference_engine · ENG_KV_CACHE" in out
    assert "kv_cache_usage [pod=vllm-llama31-8b-support-wjlzdcvg4h-gn466] = 0.99" in out
    assert re.search(r"\[1\]\s+Approve\s+\[2\]\s+Reject", out), out
    # The approval through the click path, its dry run, result and Undo offer; edits show what changed.
    assert "Dry run (the API server's own answer)" in out and "~ spec.replicas: 3 → 4" in out
    assert "yes (--yes)" in out
    assert "approved add_replica deployment/vllm-llama31-8b-support" in out
    assert "blocks changed" in out and "Approved by @you: applying" in out
    assert "✔ done" in out and "has 4 Ready replicas" in out
    assert re.search(r"The post now offers \[\d\] Undo", out), out
    assert out.count("Triage: inference_engine · ENG_KV_CACHE") == 1  # the post is shown once, then its edits
    # The summary, the chart and the triage JSON, saved where it says.
    assert "Time to triage" in out and "inference_engine / ENG_KV_CACHE (77%, rules)" in out
    flat = out.replace("\n", "").replace("│", "").replace(" ", "")
    saved = tmp_path / "out" / "kv-cache-preemption-traffic-surge-triage.json"
    assert json.loads(saved.read_text())["code"] == "ENG_KV_CACHE" and saved.name in flat
    charts = list((tmp_path / "out").glob("*.png"))
    assert len(charts) == 1 and charts[0].read_bytes()[:4] == b"\x89PNG"
    assert charts[0].name in flat


def test_without_yes_and_without_a_terminal_nothing_is_approved(tmp_path: Path) -> None:
    done = demo("--scenario", "httproute-weight-skew-429", "--out", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not a terminal: pass --yes to approve" in done.stdout
    assert "Not approved: nothing was changed" in done.stdout
    assert "approved reroute" not in done.stdout and "✔ done" not in done.stdout
    assert "reroute httproute/translate-gemma → proposed" in done.stdout


def test_list_names_every_bundled_scenario_with_one_line(tmp_path: Path) -> None:
    done = demo("--list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [s.name for s in scenarios.bundled()]
    assert all(len(line.split()) > 3 for line in lines)


def test_an_unknown_scenario_is_refused_with_the_names_there_are(tmp_path: Path) -> None:
    done = demo("--scenario", "no-such-thing", cwd=tmp_path)
    assert done.returncode == 3
    assert "no bundled scenario 'no-such-thing'; there are: canary-split-cuda-illegal-address" in done.stderr


def test_web_with_a_real_workspace_is_refused(tmp_path: Path) -> None:
    env = bare_env(SLACK_BOT_TOKEN="xoxb-real", SLACK_SIGNING_SECRET="s", DEMO_SLACK_USER="U0REAL")
    done = demo("--web", cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert "with SLACK_BOT_TOKEN set, your Slack shows it" in done.stderr


def test_web_on_a_port_in_use_says_so(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = demo("--web", "--port", str(port), cwd=tmp_path)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
