"""`incident-bot doctor` as a real process against a pack's sandbox served as other real-world
configurations: what it says of each backend, and its exit code when one is unusable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from bot.sandbox.pack import Pack
from bot.sandbox.up import Sandbox
from bot.sandbox.variant import Variant


def doctor(env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "doctor", "--json"],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr == "", done.stderr
    return done.returncode, json.loads(done.stdout)


def by_backend(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["backend"]: b for b in report["backends"]}


def texts(backend: dict[str, Any]) -> list[str]:
    return [f["text"] for f in backend["findings"]]


def test_elasticsearch_8_basic_and_a_v1beta1_cluster(example: Pack) -> None:
    variant = Variant(logs="elasticsearch-8-basic", gateway_api="v1beta1", events="core")
    with Sandbox(example, llm_script=[], variant=variant) as sandbox:
        code, report = doctor(sandbox.env)
    assert code == 0 and report["healthy"] is True, report
    backends = by_backend(report)
    assert {b: backends[b]["verdict"] for b in backends} == {
        "prometheus": "ok",
        "logs": "ok",
        "kubernetes": "ok",
        "gpu": "ok",
        "slack": "ok",
        "llm": "ok",
    }
    assert "engines: vllm" in backends["prometheus"]["summary"]
    assert backends["logs"]["summary"] == "Elasticsearch 8.15.3 (basic licence)"
    assert any(t.startswith("signatures are mined with drain3") for t in texts(backends["logs"]))
    kube = texts(backends["kubernetes"])
    assert "Gateway API v1beta1 served: HTTPRoutes read as v1beta1" in kube
    assert "events read from core/v1 (events.k8s.io/v1 not served)" in kube
    nodes = sorted(example.gpus)
    assert backends["gpu"]["summary"] == f"{len(nodes)} of {len(nodes)} agents answer"
    assert backends["llm"]["summary"] == "OpenAI-compatible, reviews with sandbox-model"


def test_opensearch_with_fluent_bit_and_a_prometheus_that_is_gone(example: Pack) -> None:
    variant = Variant(logs="opensearch-2", shipper="fluentbit")
    with Sandbox(example, variant=variant) as sandbox:
        code, report = doctor({**sandbox.env, "PROMETHEUS_URL": "http://127.0.0.1:9"})
    assert code == 1 and report["healthy"] is False
    backends = by_backend(report)
    assert backends["prometheus"]["verdict"] == "unusable"
    assert "connection refused" in backends["prometheus"]["summary"]
    assert backends["logs"]["summary"] == "OpenSearch 2.19.1"
    assert any(t.endswith("fields match the fluentbit preset") for t in texts(backends["logs"]))
    assert backends["llm"]["verdict"] == "not configured"
