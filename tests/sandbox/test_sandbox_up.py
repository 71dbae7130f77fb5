"""`incident-bot sandbox up`: everything for a pack, one JSON line first, nothing left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from elasticsearch import Elasticsearch
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from openai import OpenAI
from prometheus_api_client import PrometheusConnect
from slack_sdk import WebClient

from bot.sandbox.pack import load_pack
from bot.sandbox.up import Sandbox
from tests.conftest import ROOT

EXAMPLE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge"


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sandbox_up_serves_the_pack_and_cleans_up(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("- content: The KV cache is saturated.\n")
    with subprocess.Popen(
        [sys.executable, "-m", "bot", "sandbox", "up", "--pack", str(EXAMPLE), "--llm-script", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = json.loads(proc.stdout.readline())
        helpers = children_of(proc.pid)
        try:
            assert set(first) >= {"prometheus", "elasticsearch", "kubernetes", "slack", "openai", "env"}
            env = first["env"]
            prom = PrometheusConnect(url=first["prometheus"])
            kv = prom.custom_query("max(vllm:gpu_cache_usage_perc)", params={"time": "2026-06-16T19:05:00Z"})
            assert float(kv[0]["value"][1]) > 0.95
            es = Elasticsearch(first["elasticsearch"])
            assert es.count(index=env["LOGS_INDEX"])["count"] == 378
            es.close()
            api = k8s_config.new_client_from_config(config_file=env["KUBECONFIG"])
            pods = k8s.CoreV1Api(api).list_namespaced_pod("support-bot", _preload_content=False)
            assert len(json.loads(pods.data)["items"]) == 3
            api.close()
            slack = WebClient(token=env["SLACK_BOT_TOKEN"], base_url=env["SLACK_API_URL"])
            assert slack.auth_test()["ok"] is True
            llm = OpenAI(base_url=env["OPENAI_BASE_URL"], api_key=env["OPENAI_API_KEY"], max_retries=0)
            reply = llm.chat.completions.create(
                model=env["OPENAI_MODEL"], messages=[{"role": "user", "content": "?"}]
            )
            assert reply.choices[0].message.content == "The KV cache is saturated."
            llm.close()
            assert env["TRIAGE_AS_OF"] == "2026-06-16T19:05:00Z"
            assert env["KUBERNETES_NAMESPACE"] == "support-bot"
            assert os.path.exists(env["KUBECONFIG"])
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(30) == 0, proc.stderr.read()
            proc.stderr.read()
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in helpers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert helpers and not any(alive(pid) for pid in helpers)  # Prometheus is gone too
    assert not os.path.exists(env["KUBECONFIG"])
    for url in (first["elasticsearch"], first["prometheus"]):
        try:
            httpx.get(url, timeout=1)
        except httpx.TransportError:
            continue
        raise AssertionError(f"{url} still answers after the sandbox stopped")


def test_sandbox_up_refuses_an_invalid_pack(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "sandbox", "up", "--pack", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "scenario.yaml: missing" in result.stderr


def test_only_what_the_pack_records_is_served(tmp_path: Path) -> None:
    """No logs.ndjson, no k8s.yaml: neither Elasticsearch nor Kubernetes is configured, so the triage
    names those gaps instead of reading an empty stand-in as "nothing wrong", and never falls back to
    the cluster the process itself may run in; no LLM script: no LLM is configured."""
    import shutil

    from bot.sandbox.replay import replay_settings, replaying

    pack = tmp_path / "pack"
    shutil.copytree(EXAMPLE, pack)
    (pack / "logs.ndjson").unlink()
    (pack / "k8s.yaml").unlink()
    with Sandbox(load_pack(pack)) as sandbox:
        assert "ELASTICSEARCH_URL" not in sandbox.env and "elasticsearch" not in sandbox.urls
        assert "KUBERNETES_API_URL" not in sandbox.env and "KUBECONFIG" not in sandbox.env
        assert not any(key.startswith("OPENAI_") for key in sandbox.env)
        assert {"PROMETHEUS_URL", "SLACK_API_URL", "TRIAGE_AS_OF"} <= set(sandbox.env)
        assert replay_settings(sandbox, "sqlite:///x.db").kubernetes_in_cluster is False
        with replaying(sandbox) as replay:
            result = replay.triage().result
    assert "elasticsearch: evidence: not configured (set ELASTICSEARCH_URL)" in result.gaps
    assert any(g.startswith("kubernetes: topology: not configured") for g in result.gaps)
    assert result.code == "ENG_KV_CACHE"  # the metrics alone still say it


def test_an_unreadable_kubeconfig_stops_start_up(tmp_path: Path) -> None:
    from bot.config import BotConfig
    from bot.errors import ConfigError
    from bot.settings import Settings
    from bot.triage.backends import live_backends
    from bot.triage.knowledge import Knowledge

    broken = tmp_path / "kubeconfig"
    broken.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\n")
    settings = Settings.model_validate({"kubeconfig": broken, "kubernetes_in_cluster": False})
    catalog = Knowledge.load().catalog
    with pytest.raises(ConfigError, match=rf"KUBECONFIG {broken}:"):
        live_backends(settings, BotConfig(), catalog)
    quiet = live_backends(Settings.model_validate({"kubernetes_in_cluster": False}), BotConfig(), catalog)
    assert quiet.kube is None  # nothing configured and no cluster fallback: a named gap later
