"""Health, readiness and the bot's own Prometheus metrics."""

from __future__ import annotations

import json
import time

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bot.deps import build_deps
from bot.sandbox.server import free_port
from bot.server import build_app
from tests.conftest import am_headers, make_settings
from tests.support.live import serve_in_thread
from tests.support.payloads import alert, webhook


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_health_and_readiness(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


def test_readiness_fails_when_the_database_is_unreachable(config) -> None:  # type: ignore[no-untyped-def]
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nothing"
    deps = build_deps(make_settings(url), config=config)
    with serve_in_thread(build_app(deps, run_worker=False)) as base:
        ready = httpx.get(f"{base}/readyz", timeout=30)
        alive = httpx.get(f"{base}/healthz")
        stored = httpx.post(
            f"{base}/webhooks/alertmanager",
            content=json.dumps(webhook([alert()])),
            headers=am_headers(),
            timeout=30,
        )
    assert ready.status_code == 503 and "unreachable" in ready.json()["database"]
    assert alive.status_code == 200
    # 5xx makes Alertmanager retry, so nothing is lost while the database is away.
    assert stored.status_code == 503 and "could not store" in stored.json()["error"]


def test_metrics_count_alerts_incidents_latency_and_queue(client: httpx.Client) -> None:
    firing = alert(labels={"service": "llama-chat"})
    for payload in (webhook([firing]), webhook([firing]), webhook([{**firing, "status": "resolved"}])):
        client.post("/webhooks/alertmanager", content=json.dumps(payload), headers=am_headers())
    client.post("/webhooks/alertmanager", content=b"nope", headers=am_headers())
    values = samples(client.get("/metrics").text)
    assert values[("incident_bot_alerts_received_total", (("status", "firing"),))] == 2
    assert values[("incident_bot_alerts_received_total", (("status", "resolved"),))] == 1
    assert values[("incident_bot_incidents_opened_total", ())] == 1
    assert values[("incident_bot_webhooks_total", (("outcome", "rejected"),))] == 1
    assert values[("incident_bot_webhook_duration_seconds_count", ())] == 4
    # The announcement, the triage, the notice that every alert resolved, and, once the triage is
    # stored under its announcement, its post: the worker runs them all.
    deadline = time.monotonic() + 30
    while True:
        values = samples(client.get("/metrics").text)
        queue = {
            dict(labels)["status"]: v
            for (name, labels), v in values.items()
            if name == "incident_bot_job_queue_depth"
        }
        if queue.get("done") == 4 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert queue == {"queued": 0, "running": 0, "done": 4, "dead": 0}
