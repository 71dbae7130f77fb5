"""Alertmanager intake over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx

from bot.deps import Deps
from bot.server import build_app
from tests.conftest import ROOT, am_headers, api_headers, make_settings
from tests.support.live import serve_in_thread
from tests.support.payloads import alert, webhook
from tests.support.store import jobs_by_kind, totals

EXAMPLE_ALERT = ROOT / "scenarios" / "kv-cache-preemption-traffic-surge" / "alert.json"


def post(client: httpx.Client, payload: object) -> httpx.Response:
    return client.post("/webhooks/alertmanager", content=json.dumps(payload), headers=am_headers())


def fetch(client: httpx.Client, incident_id: int) -> dict:  # type: ignore[type-arg]
    response = client.get(f"/api/incidents/{incident_id}", headers=api_headers())
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def wait_for(predicate, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_real_payload_opens_incident_with_derived_fields(client: httpx.Client, deps: Deps) -> None:
    body = Path(EXAMPLE_ALERT).read_bytes()
    response = client.post("/webhooks/alertmanager", content=body, headers=am_headers())
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["outcome"] == "opened"
    incident = fetch(client, result["incident_id"])["incident"]
    assert incident["service"] == "vllm-llama31-8b-support"
    assert incident["model"] == "llama-3.1-8b-support"  # the model_name label
    assert incident["namespace"] == "support-bot"
    assert incident["severity"] == "critical"  # severity=page
    assert incident["alertname"] == "SupportBotTimePerOutputTokenHigh"
    assert incident["value"] == "0.141"
    assert incident["query"].startswith(
        "histogram_quantile(0.95, sum by (le) (rate(vllm:time_per_output_token"
    )
    assert incident["query"].endswith("[5m]))) > 0.08")
    assert incident["started_at"] == "2026-06-16T18:51:23Z"
    assert incident["status"] == "open"


def test_model_name_label_and_configured_namespace_fallback(client: httpx.Client) -> None:
    a = alert(labels={"service": "llama-chat", "model_name": "llama-70b", "severity": "warning"})
    result = post(client, webhook([a], common_labels=a["labels"])).json()
    incident = fetch(client, result["incident_id"])["incident"]
    assert incident["model"] == "llama-70b"
    assert incident["namespace"] == "llm-serving"  # not in the labels: from the configured service
    assert incident["severity"] == "minor"


def test_repeats_and_new_alerts_of_the_group_attach(client: httpx.Client, deps: Deps) -> None:
    first = alert(labels={"service": "llama-chat", "pod": "vllm-0"})
    second = alert(labels={"service": "llama-chat", "pod": "vllm-1"})
    opened = post(client, webhook([first])).json()
    again = post(client, webhook([first])).json()
    grown = post(client, webhook([first, second])).json()
    assert opened["outcome"] == "opened"
    assert again == {**again, "outcome": "attached", "incident_id": opened["incident_id"], "new_alerts": 0}
    assert grown["outcome"] == "attached" and grown["new_alerts"] == 1 and grown["updated_alerts"] == 1
    counts = totals(deps.db)
    assert counts["incidents"] == 1 and counts["alerts"] == 2
    queued = jobs_by_kind(deps.db)  # repeats and new alerts of the group queue nothing more
    assert queued["incident.announce"] == 1 and queued["incident.triage"] == 1
    detail = fetch(client, opened["incident_id"])
    by_fp = {a["fingerprint"]: a for a in detail["alerts"]}
    assert by_fp[first["fingerprint"]]["notifications"] == 3
    assert by_fp[second["fingerprint"]]["notifications"] == 1
    firing_events = [e for e in detail["timeline"] if e["kind"] == "alert_firing"]
    assert len(firing_events) == 2  # repeats add no noise to the timeline


def test_resolved_notification_is_recorded_and_does_not_close(client: httpx.Client) -> None:
    firing = alert(labels={"service": "llama-chat"})
    opened = post(client, webhook([firing])).json()
    resolved = {**firing, "status": "resolved", "endsAt": "2026-06-01T10:30:00Z"}
    answer = post(client, webhook([resolved])).json()
    assert answer["outcome"] == "attached"
    detail = fetch(client, opened["incident_id"])
    assert detail["incident"]["status"] == "open"
    assert detail["alerts"][0]["status"] == "resolved"
    assert detail["alerts"][0]["ends_at"] == "2026-06-01T10:30:00Z"
    kinds = [e["kind"] for e in detail["timeline"]]
    assert "alert_resolved" in kinds
    refire = post(client, webhook([{**firing, "startsAt": "2026-06-01T11:00:00Z"}])).json()
    assert refire["incident_id"] == opened["incident_id"]
    texts = [e["text"] for e in fetch(client, opened["incident_id"])["timeline"]]
    assert any("firing again" in t for t in texts)


def test_resolved_only_notification_for_unknown_group_stores_nothing(
    client: httpx.Client, deps: Deps
) -> None:
    lone = alert(status="resolved", ends_at="2026-06-01T10:00:00Z")
    answer = post(client, webhook([lone])).json()
    assert answer["outcome"] == "ignored" and answer["incident_id"] is None
    assert "resolved" in answer["reason"]
    assert totals(deps.db) == {"incidents": 0, "alerts": 0, "timeline": 0, "jobs": 0}


def test_group_firing_after_resolution_opens_a_new_incident(client: httpx.Client) -> None:
    a = alert(labels={"service": "llama-chat"})
    first = post(client, webhook([a])).json()["incident_id"]
    client.post(
        f"/api/incidents/{first}/resolve",
        json={"actor": "U1", "reason": "rolled back"},
        headers=api_headers(),
    ).raise_for_status()
    second = post(client, webhook([a])).json()
    assert second["outcome"] == "opened" and second["incident_id"] != first


def test_malformed_bodies_get_400_with_reason_and_store_nothing(client: httpx.Client, deps: Deps) -> None:
    good = webhook([alert()])
    naive = webhook([alert(starts_at="2026-06-01T09:58:00")])
    cases = {
        b"{not json": "not valid JSON",
        b"[]": "JSON object",
        json.dumps({**good, "version": "3"}).encode(): "version",
        json.dumps({k: v for k, v in good.items() if k != "groupKey"}).encode(): "groupKey",
        json.dumps({**good, "alerts": []}).encode(): "alerts",
        json.dumps({**good, "status": "exploded"}).encode(): "status",
        json.dumps(naive).encode(): "time zone",
        "\xff".encode("latin-1"): "not valid JSON",
    }
    for body, reason in cases.items():
        response = client.post("/webhooks/alertmanager", content=body, headers=am_headers())
        assert response.status_code == 400, body
        assert reason in response.json()["error"], (body, response.json())
    assert totals(deps.db) == {"incidents": 0, "alerts": 0, "timeline": 0, "jobs": 0}


def test_alert_without_alertname_is_kept_under_a_placeholder_and_noted(
    client: httpx.Client, deps: Deps
) -> None:
    """Alertmanager does not retry a 4xx: refusing the unnamed alert would lose its whole group."""
    unnamed = alert(labels={"service": "llama-chat"})
    del unnamed["labels"]["alertname"]
    named = alert(alertname="LlamaChatErrorBudgetBurn")
    body = webhook([unnamed, named], common_labels={})
    answer = post(client, body).json()
    assert answer["outcome"] == "opened" and answer["new_alerts"] == 2
    incident = fetch(client, answer["incident_id"])
    assert {a["alertname"] for a in incident["alerts"]} == {"UnnamedAlert", "LlamaChatErrorBudgetBurn"}
    notes = [e["text"] for e in incident["timeline"] if "without an alertname" in e["text"]]
    assert len(notes) == 1 and unnamed["fingerprint"] in notes[0] and "service" in notes[0], notes
    again = post(client, body).json()  # the next notification of the group notes it no more
    assert again["outcome"] == "attached"
    timeline = fetch(client, answer["incident_id"])["timeline"]
    assert sum("without an alertname" in e["text"] for e in timeline) == 1


def test_bearer_token_is_enforced(client: httpx.Client, deps: Deps) -> None:
    body = json.dumps(webhook([alert()]))
    missing = client.post("/webhooks/alertmanager", content=body)
    wrong = client.post("/webhooks/alertmanager", content=body, headers={"Authorization": "Bearer nope"})
    basic = client.post("/webhooks/alertmanager", content=body, headers={"Authorization": "Basic YTpi"})
    for response in (missing, wrong, basic):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
    assert totals(deps.db)["incidents"] == 0
    assert client.post("/webhooks/alertmanager", content=body, headers=am_headers()).status_code == 200


def test_no_token_configured_accepts_any_caller(database_url: str, config) -> None:  # type: ignore[no-untyped-def]
    from bot.deps import build_deps

    open_deps = build_deps(make_settings(database_url, alertmanager_token=None), config=config)
    open_deps.db.upgrade()
    with serve_in_thread(build_app(open_deps)) as url:
        response = httpx.post(f"{url}/webhooks/alertmanager", content=json.dumps(webhook([alert()])))
    open_deps.close()
    assert response.status_code == 200 and response.json()["outcome"] == "opened"


def test_identical_webhooks_at_the_same_instant_open_one_incident(deps: Deps, config) -> None:  # type: ignore[no-untyped-def]
    """Two replicas (two apps, two engines) on one database, hit by identical notifications at once."""
    from bot.deps import build_deps

    replica = build_deps(
        make_settings(str(deps.db.engine.url.render_as_string(hide_password=False))), config=config
    )
    body = json.dumps(webhook([alert(labels={"service": "llama-chat"})]))
    answers: list[httpx.Response] = []
    with serve_in_thread(build_app(deps)) as one, serve_in_thread(build_app(replica)) as two:
        barrier = threading.Barrier(16)

        def fire(url: str) -> None:
            with httpx.Client(timeout=30) as c:
                barrier.wait()
                answers.append(c.post(f"{url}/webhooks/alertmanager", content=body, headers=am_headers()))

        threads = [threading.Thread(target=fire, args=(one if i % 2 else two,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    replica.close()
    assert [r.status_code for r in answers] == [200] * 16
    outcomes = sorted(r.json()["outcome"] for r in answers)
    assert outcomes == ["attached"] * 15 + ["opened"]
    assert len({r.json()["incident_id"] for r in answers}) == 1
    counts = totals(deps.db)
    assert counts["incidents"] == 1 and counts["alerts"] == 1
    queued = jobs_by_kind(deps.db)  # opening queues one announcement and one triage run, once
    assert queued["incident.announce"] == 1 and queued["incident.triage"] == 1
    assert queued.get("incident.post_triage", 0) <= 1  # once both ran, the post follows


def test_opening_queues_the_announcement_that_the_worker_posts(client: httpx.Client) -> None:
    a = alert(
        labels={"service": "llama-chat", "namespace": "llm-serving"},
        annotations={"summary": "burn", "value": "0.031"},
    )
    incident_id = post(client, webhook([a])).json()["incident_id"]

    def announced() -> bool:
        timeline = fetch(client, incident_id)["timeline"]
        return any(e["kind"] == "announced" for e in timeline)

    wait_for(announced)
    event = next(e for e in fetch(client, incident_id)["timeline"] if e["kind"] == "announced")
    data = event["data"]
    assert data["value"] == "0.031"
    assert data["query"].startswith("slo:sli_error:ratio_rate5m")
    assert data["responders"] == ["S0ONCALL", "U0RESPOND1"]
    url = data["dashboards"][0]["url"]
    # The window starts one hour before the alert started: 2026-06-01T08:58:00Z.
    assert "var-ns=llm-serving&from=1780304280000&to=" in url


def test_truncated_notifications_are_noted_once_per_count(client: httpx.Client) -> None:
    a = alert(labels={"service": "llama-chat"})
    truncated = {**webhook([a]), "truncatedAlerts": 40}
    incident_id = post(client, truncated).json()["incident_id"]
    post(client, truncated)
    post(client, {**truncated, "truncatedAlerts": 55})
    notes = [e for e in fetch(client, incident_id)["timeline"] if e["kind"] == "note"]
    assert [n["data"]["truncated_alerts"] for n in notes] == [40, 55]
    assert "left 40 alerts of this group out" in notes[0]["text"] and notes[0]["actor"] == "alertmanager"


def test_text_no_store_can_hold_is_kept_as_go_would_decode_it(client: httpx.Client) -> None:
    """A lone surrogate escape (in groupKey, hashed for the group) and U+0000 (refused by PostgreSQL's
    text and jsonb) are stored as U+FFFD, as Go's decoder reads them: answered 200, not 500, which
    Alertmanager would retry without end. Repeats of the notification attach to the same incident."""
    payload = webhook([alert(labels={"pod": "vllm-0\u0000", "note": "\ud800 half a pair"})])
    payload["groupKey"] = '{}:{alertname="X\ud800"}'
    body = json.dumps(payload)  # ensure_ascii: the escapes travel as \ud800 and \u0000
    assert "\\ud800" in body and "\\u0000" in body
    first = client.post("/webhooks/alertmanager", content=body, headers=am_headers())
    assert first.status_code == 200, first.text
    again = client.post("/webhooks/alertmanager", content=body, headers=am_headers())
    assert again.status_code == 200 and again.json()["outcome"] == "attached"
    assert again.json()["incident_id"] == first.json()["incident_id"]
    stored = fetch(client, first.json()["incident_id"])
    labels = stored["alerts"][0]["labels"]
    assert labels["pod"] == "vllm-0\ufffd" and labels["note"] == "\ufffd half a pair"
    assert stored["incident"]["group_key"] == '{}:{alertname="X\ufffd"}'
    # a valid pair, escaped, is one character as before
    emoji = webhook([alert(labels={"note": "\U0001f600"})])
    emoji["groupKey"] = "emoji"
    response = client.post("/webhooks/alertmanager", content=json.dumps(emoji), headers=am_headers())
    assert response.status_code == 200
    assert fetch(client, response.json()["incident_id"])["alerts"][0]["labels"]["note"] == "\U0001f600"


def test_a_database_gone_away_is_503_with_a_reason_on_every_route(config) -> None:  # type: ignore[no-untyped-def]
    """The webhook (Alertmanager retries a 5xx) and the API's writes say the database is unavailable;
    an unknown path or method is a JSON 404 / 405, never a bare page."""
    from bot.deps import build_deps
    from bot.sandbox.server import free_port

    away = build_deps(make_settings(f"postgresql+psycopg://bot@127.0.0.1:{free_port()}/bot"), config=config)
    try:
        with serve_in_thread(build_app(away, run_worker=False)) as url, httpx.Client(base_url=url) as client:
            hook = client.post(
                "/webhooks/alertmanager", content=json.dumps(webhook([alert()])), headers=am_headers()
            )
            assert hook.status_code == 503 and "could not store the notification" in hook.json()["error"]
            write = client.post("/api/incidents", json={"actor": "ana", "title": "x"}, headers=api_headers())
            assert write.status_code == 503 and "database is unavailable" in write.json()["error"], write.text
            read = client.get("/api/incidents", headers=api_headers())
            assert read.status_code == 503 and "database is unavailable" in read.json()["error"], read.text
            assert client.get("/readyz").status_code == 503
            missing = client.get("/api/nowhere")
            assert missing.status_code == 404 and missing.json() == {"error": "Not Found"}
            wrong = client.delete("/api/incidents")
            assert wrong.status_code == 405 and wrong.json() == {"error": "Method Not Allowed"}
    finally:
        away.close()
