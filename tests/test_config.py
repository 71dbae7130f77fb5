"""The YAML configuration: a valid file loads, an invalid one names the file, line and field."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.config import load_config
from bot.domain import Severity
from bot.errors import ConfigError
from bot.settings import load_settings

EXAMPLE = Path(__file__).resolve().parents[1] / "deploy" / "config.example.yaml"


def test_example_config_loads() -> None:
    config = load_config(EXAMPLE)
    service = config.service("llama-chat")
    assert service is not None and service.slos[0].objective == 0.995
    assert config.severity_for("page") is Severity.CRITICAL
    assert config.severity_for("warning") is Severity.MINOR  # built-in mapping
    assert config.severity_for(None) is Severity.MAJOR
    assert config.backends.logs_index == "logs-inference"


def test_example_objectives_are_the_shipped_alert_rules() -> None:
    """The example's SLOs are the ones the shipped recording rules alert on, name and objective,
    so a team that starts from both files reads the same budget in Slack as in Prometheus."""
    rules = yaml.safe_load((EXAMPLE.parent / "prometheus" / "slo.rules.yaml").read_text())
    shipped = {
        rule["labels"]["sloth_slo"]: float(rule["expr"].removeprefix("vector(").removesuffix(")"))
        for group in rules["groups"]
        for rule in group["rules"]
        if rule.get("record") == "slo:objective:ratio"
    }
    assert len(shipped) == 3
    for service in load_config(EXAMPLE).services:
        assert {slo.name: slo.objective for slo in service.slos} == shipped, service.name
        assert {slo.window for slo in service.slos} == {"30d"}  # the rules' period


def test_no_file_means_embedded_defaults() -> None:
    config = load_config(None)
    assert config.services == [] and config.backends.timeout_seconds == 5.0


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bot.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "services:\n  - name: a\n    slos:\n      - name: x\n        objective: 1.5\n",
            "bot.yaml:5: services[0].slos[0].objective: Input should be less than 1",
        ),
        ("approvers: [U0OK, not a user]\n", "bot.yaml:1: approvers[1]: String should match pattern"),
        (
            "backends:\n  prometheus_url: http://p\n  timeout_secs: 3\n",
            "bot.yaml:3: backends.timeout_secs: Extra inputs",
        ),
        (
            "dashboards:\n  - title: d\n    url: https://g/d?x={secret}\n",
            "bot.yaml:3: dashboards[0].url: Value error, unknown placeholder {secret}",
        ),
        ("services:\n  - name: a\n  - name: a\n", "service 'a' is declared twice"),
        ("severity_map:\n  page: apocalyptic\n", "bot.yaml:2: severity_map.page: Input should be"),
        ("services: [\n", "bot.yaml:2: not valid YAML"),
        ("- just\n- a list\n", "bot.yaml:1: the top level of the configuration must be a mapping"),
    ],
)
def test_invalid_files_name_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert expected in info.value.message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the configuration"):
        load_config(tmp_path / "absent.yaml")


def test_invalid_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKER_THREADS", "many")
    with pytest.raises(ConfigError, match="WORKER_THREADS"):
        load_settings()


def test_serve_refuses_to_start_on_an_invalid_file(tmp_path: Path) -> None:
    path = write(tmp_path, "responders: [nobody]\n")
    env = {
        "INCIDENT_BOT_CONFIG": str(path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}",
        "PATH": "/usr/bin",
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{path}:1: responders[0]" in result.stderr
    assert "listening" not in result.stdout
    check = subprocess.run(
        [sys.executable, "-m", "bot", "config", "check", str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0 and "1 services, 3 SLOs, 2 approvers" in check.stdout
    assert "learned stage attribution_model.npz (thresholds 0." in check.stdout
    rules_only = subprocess.run(
        [sys.executable, "-m", "bot", "config", "check", str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ATTRIBUTION_MODEL": "off"},
    )
    assert rules_only.returncode == 0 and "learned stage off" in rules_only.stdout


def test_serve_refuses_to_start_on_a_broken_runbook_or_catalog(tmp_path: Path) -> None:
    runbooks = tmp_path / "runbooks"
    runbooks.mkdir()
    (runbooks / "gpu.md").write_text(
        "---\nid: gpu\ntitle: t\nmatches: {codes: [INF_GPU_XID]}\nactions:\n"
        "  - kind: delete_node\n    target: 'node/{node}'\n---\n# body\n"
    )
    env = {
        "RUNBOOKS_DIR": str(runbooks),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}",
        "PATH": "/usr/bin",
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and f"{runbooks / 'gpu.md'}:6: actions[0].kind" in result.stderr
    catalog = tmp_path / "signals.yaml"
    catalog.write_text(
        "signals:\n  kv:\n    description: d\n    layer: ENG\n    threshold: {mode: absolute, "
        "direction: above, value: 1}\n    queries: {vllm: 'x{pod=~\"$pod\"}'}\n"
    )
    env = {"SIGNALS_FILE": str(catalog), "DATABASE_URL": f"sqlite:///{tmp_path / 'y.db'}", "PATH": "/usr/bin"}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "signals.yaml:6: signals.kv.queries" in result.stderr
    assert "unknown placeholder $pod" in result.stderr


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_BOT_TOKEN is set without SLACK_SIGNING_SECRET"),
        ({"SLACK_APP_TOKEN": "xapp-1"}, "SLACK_APP_TOKEN is set without SLACK_BOT_TOKEN"),
    ],
)
def test_slack_fails_closed(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], needle: str) -> None:
    """A bot token with nothing to verify Slack's requests by would accept anyone's: refuse to start."""
    for key in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError, match=needle):
        load_settings()
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s3cret")
    if "SLACK_BOT_TOKEN" in env:
        assert load_settings().slack  # signed requests: fine
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1")
    assert load_settings().slack_app_token is not None  # Socket Mode: fine too
