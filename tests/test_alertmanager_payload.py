"""Parsing of the Alertmanager payload and what is derived from it."""

from __future__ import annotations

import json

import pytest

from bot.alertmanager import parse_payload, promql_from_generator_url
from bot.errors import PayloadError
from tests.conftest import ROOT

EXAMPLE = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge" / "alert.json"


def test_example_payload() -> None:
    payload = parse_payload(EXAMPLE.read_bytes())
    alert = payload.alerts[0]
    assert alert.ended_at is None  # Go's zero time
    assert alert.value(["value"]) == "0.141"
    assert payload.label("model", "model_name") == "llama-3.1-8b-support"
    assert len(payload.group_hash) == 64


def test_generator_url_expression() -> None:
    url = "http://prom:9090/graph?g0.expr=sum%28rate%28x%5B5m%5D%29%29+%3E+0.5&g0.tab=1"
    assert promql_from_generator_url(url) == "sum(rate(x[5m])) > 0.5"
    assert promql_from_generator_url("http://prom:9090/graph") is None
    assert promql_from_generator_url("") is None


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    data = json.loads(EXAMPLE.read_text())
    data["futureField"] = {"x": 1}
    data["alerts"][0]["futureAlertField"] = True
    assert parse_payload(json.dumps(data).encode()).groupKey == data["groupKey"]


def test_label_values_must_be_strings() -> None:
    data = json.loads(EXAMPLE.read_text())
    data["alerts"][0]["labels"]["replicas"] = 3
    with pytest.raises(PayloadError, match=r"alerts\.0\.labels\.replicas"):
        parse_payload(json.dumps(data).encode())


def test_oversized_body_is_refused() -> None:
    with pytest.raises(PayloadError, match="limit"):
        parse_payload(b" " * (5 * 1024 * 1024 + 1))
