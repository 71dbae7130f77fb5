"""End to end with a real Alertmanager: its notifications open, attach to and resolve alerts."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import httpx

from tests.conftest import ALERTMANAGER_TOKEN, api_headers
from tests.support.alertmanager import running_alertmanager
from tests.support.payloads import generator_url

EXPR = 'sum(rate(vllm:request_success_total{finished_reason="abort"}[5m])) > 1'


def wait_until(check, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "Alertmanager's notification did not arrive"
        time.sleep(0.2)


def test_real_alertmanager_notifications(live: str) -> None:
    with httpx.Client(base_url=live, headers=api_headers(), timeout=10) as api:
        check_notifications(live, api)


def check_notifications(live: str, api: httpx.Client) -> None:
    started = datetime.now(UTC) - timedelta(minutes=3)
    alert = {
        "labels": {
            "alertname": "VllmAbortsBurning",
            "service": "llama-chat",
            "namespace": "llm-serving",
            "model_name": "llama",
            "severity": "page",
            "pod": "vllm-llama-0",
        },
        "annotations": {"summary": "aborted requests on llama-chat", "value": "3.2"},
        "startsAt": started.isoformat(),
        "generatorURL": generator_url(EXPR),
    }
    second = {**alert, "labels": {**alert["labels"], "pod": "vllm-llama-1"}}
    with running_alertmanager(f"{live}/webhooks/alertmanager", ALERTMANAGER_TOKEN) as am:
        httpx.post(f"{am}/api/v2/alerts", json=[alert]).raise_for_status()
        incidents = wait_until(lambda: api.get("/api/incidents").json()["incidents"])
        assert len(incidents) == 1
        incident = incidents[0]
        assert incident["title"] == "aborted requests on llama-chat"
        assert incident["service"] == "llama-chat" and incident["model"] == "llama"
        assert incident["query"] == EXPR and incident["value"] == "3.2"
        assert incident["severity"] == "critical"
        iid = incident["id"]

        httpx.post(f"{am}/api/v2/alerts", json=[alert, second]).raise_for_status()
        wait_until(lambda: len(api.get(f"/api/incidents/{iid}").json()["alerts"]) == 2)

        ended = {**alert, "endsAt": datetime.now(UTC).isoformat()}
        httpx.post(f"{am}/api/v2/alerts", json=[ended]).raise_for_status()

        def resolved_recorded() -> bool:
            detail = api.get(f"/api/incidents/{iid}").json()
            return any(e["kind"] == "alert_resolved" for e in detail["timeline"])

        wait_until(resolved_recorded)
    detail = api.get(f"/api/incidents/{iid}").json()
    assert detail["incident"]["status"] == "open"  # a resolved notification does not close it
    statuses = sorted(a["status"] for a in detail["alerts"])
    assert statuses == ["firing", "resolved"]
    assert len(api.get("/api/incidents").json()["incidents"]) == 1
    assert all(len(a["fingerprint"]) == 16 for a in detail["alerts"])


def test_real_alertmanager_forwards_an_alert_without_alertname_and_it_is_kept(live: str) -> None:
    """Alertmanager's API takes an alert with any non-empty labels; the bot must not 400 its group."""
    started = datetime.now(UTC) - timedelta(minutes=2)
    alert = {
        "labels": {"service": "llama-chat", "namespace": "llm-serving", "severity": "page"},
        "annotations": {"summary": "posted by a script without an alertname"},
        "startsAt": started.isoformat(),
    }
    with (
        httpx.Client(base_url=live, headers=api_headers(), timeout=10) as api,
        running_alertmanager(f"{live}/webhooks/alertmanager", ALERTMANAGER_TOKEN) as am,
    ):
        httpx.post(f"{am}/api/v2/alerts", json=[alert]).raise_for_status()
        incidents = wait_until(lambda: api.get("/api/incidents").json()["incidents"])
        detail = api.get(f"/api/incidents/{incidents[0]['id']}").json()
    assert [a["alertname"] for a in detail["alerts"]] == ["UnnamedAlert"]
    assert any("without an alertname" in e["text"] for e in detail["timeline"])
