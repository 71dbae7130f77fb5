"""The inference SLO rules (deploy/prometheus): promtool loads them, their unit tests pass, every
alert is shown both firing and silent, the alerts carry what the bot reads, and the example
Alertmanager route sends the pages (and only the pages) to the bot."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.alertmanager import SERVICE_LABELS
from bot.config import BotConfig
from tests.conftest import ROOT

RULES_DIR = ROOT / "deploy" / "prometheus"
RULE_FILES = sorted(RULES_DIR.glob("*.rules.yaml"))
UNIT_TESTS = sorted((RULES_DIR / "tests").glob("*_test.yaml"))
RECEIVER = ROOT / "deploy" / "alertmanager" / "receiver.yaml"
ENGINES = {"vllm", "tgi", "triton", "sglang"}


def tool(name: str, package: str) -> str:
    found = shutil.which(name)
    assert found is not None, f"{name} not found: apt-get install {package} (scripts/test.sh installs it)"
    return found


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=110, check=False, cwd=cwd)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def rules() -> list[dict[str, Any]]:
    return [rule for path in RULE_FILES for group in load(path)["groups"] for rule in group["rules"]]


def alerts() -> list[dict[str, Any]]:
    return [rule for rule in rules() if "alert" in rule]


def test_there_are_rule_files_and_unit_tests() -> None:
    names = {p.name for p in RULE_FILES}
    assert {f"sli-{engine}.rules.yaml" for engine in ENGINES} <= names
    assert {"slo.rules.yaml", "capacity.rules.yaml"} <= names
    assert UNIT_TESTS, "no promtool unit tests under deploy/prometheus/tests"


def test_promtool_accepts_every_rule_file() -> None:
    promtool = tool("promtool", "prometheus")
    done = run(promtool, "check", "rules", *map(str, RULE_FILES))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("SUCCESS") == len(RULE_FILES), done.stdout


@pytest.mark.parametrize("unit", UNIT_TESTS, ids=lambda p: p.name)
def test_promtool_unit_tests_pass(unit: Path) -> None:
    """Each file proves alerts fire when they should and stay silent when they should not."""
    promtool = tool("promtool", "prometheus")
    done = run(promtool, "test", "rules", unit.name, cwd=unit.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def unit_cases() -> list[dict[str, Any]]:
    return [case for path in UNIT_TESTS for case in load(path)["tests"]]


def test_every_alert_is_tested_firing_and_silent() -> None:
    firing: set[str] = set()
    silent: set[str] = set()
    for case in unit_cases():
        for check in case.get("alert_rule_test", []):
            (firing if check.get("exp_alerts") else silent).add(check["alertname"])
    names = {rule["alert"] for rule in alerts()}
    assert names - firing == set(), "alerts never shown firing"
    assert names - silent == set(), "alerts never shown silent"


def test_every_engine_fires_in_the_unit_tests() -> None:
    runtimes = {
        expected["exp_labels"]["runtime"]
        for case in unit_cases()
        for check in case.get("alert_rule_test", [])
        for expected in check.get("exp_alerts") or []
    }
    assert runtimes == ENGINES


def test_old_vllm_metric_names_are_exercised() -> None:
    """The renamed vLLM series (time_per_output_token, gpu_cache_usage_perc) fire alerts alone."""
    series = " ".join(
        s["series"] for case in unit_cases() for s in case["input_series"] if case.get("alert_rule_test")
    )
    assert "vllm:time_per_output_token_seconds" in series and "vllm:gpu_cache_usage_perc" in series
    exprs = " ".join(rule["expr"] for rule in rules())
    for old, new in [
        ("vllm:time_per_output_token_seconds", "vllm:inter_token_latency_seconds"),
        ("vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"),
    ]:
        assert old in exprs and new in exprs


def test_alerts_carry_what_the_bot_reads() -> None:
    value_keys = BotConfig().value_annotations
    for rule in alerts():
        labels, notes = rule["labels"], rule["annotations"]
        assert labels["severity"] in {"page", "ticket"}, rule["alert"]
        assert notes.get("summary"), rule["alert"]
        assert any(key in notes for key in value_keys), f"{rule['alert']}: no value annotation the bot reads"
        if "runbook_url" in notes:
            runbook = notes["runbook_url"].rsplit("/", 1)[-1]
            assert (ROOT / "runbooks" / runbook).is_file(), runbook
    burn = [rule for rule in alerts() if rule["alert"].startswith("InferenceSLOBudgetBurn")]
    assert {rule["labels"]["severity"] for rule in burn} == {"page", "ticket"}
    assert all({"slo", "window"} <= rule["labels"].keys() for rule in burn)


def test_recorded_slis_keep_the_scope_labels() -> None:
    """Every per-engine series is grouped by namespace and a service label the bot reads."""
    for path in RULE_FILES:
        if not path.name.startswith("sli-"):
            continue
        for group in load(path)["groups"]:
            for rule in group["rules"]:
                assert "namespace" in rule["expr"] and SERVICE_LABELS[0] in rule["expr"], rule["record"]
                assert rule["labels"]["runtime"] in ENGINES


def route(*labels: str) -> str:
    amtool = tool("amtool", "prometheus-alertmanager")
    done = run(amtool, "config", "routes", "test", f"--config.file={RECEIVER}", *labels)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def test_the_example_route_sends_pages_to_the_bot() -> None:
    for rule in alerts():
        labels = [
            f"alertname={rule['alert']}",
            f"severity={rule['labels']['severity']}",
            "namespace=llm-serving",
        ]
        expected = "incident-bot" if rule["labels"]["severity"] == "page" else "default"
        assert route(*labels) == expected, rule["alert"]
