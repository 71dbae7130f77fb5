"""Incident lifecycle through the HTTP API; every change is on the timeline with actor and time."""

from __future__ import annotations

import time
from datetime import datetime

import httpx

from bot.deps import Deps, build_deps
from bot.server import build_app
from tests.conftest import api_headers, make_settings
from tests.support.live import serve_in_thread
from tests.support.store import totals

H = api_headers()


def declare(client: httpx.Client, **extra: object) -> dict:  # type: ignore[type-arg]
    body = {"title": "TTFT burning on llama-chat", "actor": "U0ALICE", "severity": "major", **extra}
    response = client.post("/api/incidents", json=body, headers=H)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_full_lifecycle_writes_a_timeline_event_per_change(client: httpx.Client) -> None:
    incident = declare(client, service="llama-chat")
    iid = incident["id"]
    assert incident["status"] == "open"
    steps = [
        ("ack", {"actor": "U0BOB"}),
        ("severity", {"actor": "U0BOB", "severity": "critical"}),
        ("category", {"actor": "U0CAROL", "category": "inference_engine"}),
        ("notes", {"actor": "U0CAROL", "text": "KV cache at 99% since the rollout"}),
        ("resolve", {"actor": "U0BOB", "reason": "rolled back to revision 1"}),
    ]
    for path, body in steps:
        response = client.post(f"/api/incidents/{iid}/{path}", json=body, headers=H)
        assert response.status_code == 200, (path, response.text)
    detail = client.get(f"/api/incidents/{iid}", headers=H).json()
    final = detail["incident"]
    assert final["status"] == "resolved"
    assert final["severity"] == "critical"
    assert final["category"] == "inference_engine"
    assert final["acknowledged_by"] == "U0BOB" and final["resolved_by"] == "U0BOB"
    assert final["resolution"] == "rolled back to revision 1"
    # What the responders did, in order (the bot's own announcement and triage interleave with it).
    events = [(e["kind"], e["actor"]) for e in detail["timeline"] if e["actor"] != "incident-bot"]
    assert events == [
        ("opened", "U0ALICE"),
        ("acknowledged", "U0BOB"),
        ("severity_changed", "U0BOB"),
        ("category_tagged", "U0CAROL"),
        ("note", "U0CAROL"),
        ("resolved", "U0BOB"),
    ]
    times = [datetime.fromisoformat(e["at"]) for e in detail["timeline"]]
    assert times == sorted(times) and all(t.tzinfo is not None for t in times)
    changed = next(e for e in detail["timeline"] if e["kind"] == "severity_changed")
    assert changed["data"] == {"from": "major", "to": "critical"}


def test_invalid_transitions_are_409_and_change_nothing(client: httpx.Client, deps: Deps) -> None:
    iid = declare(client)["id"]
    wait_for(client, iid, {"triage_posted"})  # the bot's own work on the new incident is done
    client.post(f"/api/incidents/{iid}/ack", json={"actor": "U1"}, headers=H).raise_for_status()
    again = client.post(f"/api/incidents/{iid}/ack", json={"actor": "U1"}, headers=H)
    assert again.status_code == 409 and "acknowledged" in again.json()["error"]
    client.post(f"/api/incidents/{iid}/resolve", json={"actor": "U1", "reason": "fixed"}, headers=H)
    wait_for(client, iid, {"postmortem_drafted"})  # and the bot's own work after resolve
    before = totals(deps.db)
    for path, body in [
        ("resolve", {"actor": "U1", "reason": "x"}),
        ("severity", {"actor": "U1", "severity": "minor"}),
    ]:
        response = client.post(f"/api/incidents/{iid}/{path}", json=body, headers=H)
        assert response.status_code == 409 and "already resolved" in response.json()["error"]
    assert totals(deps.db) == before
    # The final category may still be set after resolution (postmortem tagging).
    tagged = client.post(
        f"/api/incidents/{iid}/category", json={"actor": "U1", "category": "operational"}, headers=H
    )
    assert tagged.status_code == 200


def test_unknown_incident_is_404(client: httpx.Client) -> None:
    assert client.get("/api/incidents/999", headers=H).status_code == 404
    response = client.post("/api/incidents/999/ack", json={"actor": "U1"}, headers=H)
    assert response.status_code == 404 and "999" in response.json()["error"]


def test_bad_bodies_are_400_with_the_field(client: httpx.Client, deps: Deps) -> None:
    iid = declare(client)["id"]
    wait_for(client, iid, {"triage_posted"})  # the bot's own work on the new incident is done
    before = totals(deps.db)
    cases = [
        (f"/api/incidents/{iid}/severity", {"actor": "U1", "severity": "apocalyptic"}, "severity"),
        (f"/api/incidents/{iid}/category", {"actor": "U1", "category": "gremlins"}, "category"),
        (f"/api/incidents/{iid}/resolve", {"actor": "U1"}, "reason"),
        (f"/api/incidents/{iid}/notes", {"text": "who am I"}, "actor"),
        (f"/api/incidents/{iid}/notes", {"actor": "U1", "text": "x", "extra": 1}, "extra"),
        ("/api/incidents", {"actor": "U1"}, "title"),
    ]
    for path, body, field in cases:
        response = client.post(path, json=body, headers=H)
        assert response.status_code == 400, (path, response.text)
        assert field in response.json()["error"]
    bad_json = client.post(f"/api/incidents/{iid}/ack", content=b"{", headers=H)
    assert bad_json.status_code == 400 and "JSON" in bad_json.json()["error"]
    assert totals(deps.db) == before


def test_api_auth(client: httpx.Client, database_url: str, config) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/api/incidents").status_code == 401
    assert client.post("/api/incidents", json={"title": "t", "actor": "U1"}).status_code == 401
    assert client.get("/api/incidents", headers={"Authorization": "Bearer wrong"}).status_code == 401
    # Without API_TOKEN, reads are open and writes are refused.
    deps = build_deps(make_settings(database_url, api_token=None), config=config)
    with serve_in_thread(build_app(deps, run_worker=False)) as url:
        assert httpx.get(f"{url}/api/incidents").status_code == 200
        refused = httpx.post(f"{url}/api/incidents", json={"title": "t", "actor": "U1"})
    deps.close()
    assert refused.status_code == 403 and "API_TOKEN" in refused.json()["error"]


def test_list_filters_by_status_newest_first(client: httpx.Client) -> None:
    a, b, c = (declare(client, title=f"incident {n}")["id"] for n in range(3))
    client.post(f"/api/incidents/{b}/resolve", json={"actor": "U1", "reason": "noise"}, headers=H)
    every = [i["id"] for i in client.get("/api/incidents", headers=H).json()["incidents"]]
    assert every == [c, b, a]
    open_only = [i["id"] for i in client.get("/api/incidents?status=open", headers=H).json()["incidents"]]
    assert open_only == [c, a]
    assert client.get("/api/incidents?status=sleeping", headers=H).status_code == 400


def wait_for(client: httpx.Client, iid: int, kinds: set[str], timeout: float = 30) -> list[dict]:  # type: ignore[type-arg]
    deadline = time.monotonic() + timeout
    while True:
        timeline = client.get(f"/api/incidents/{iid}", headers=H).json()["timeline"]
        if kinds <= {e["kind"] for e in timeline}:
            return list(timeline)
        assert time.monotonic() < deadline, f"never saw {kinds - {e['kind'] for e in timeline}}"
        time.sleep(0.05)


def test_a_declared_incident_is_announced_and_triaged_like_an_alerts(client: httpx.Client) -> None:
    iid = declare(client, service="llama-chat", namespace="llm-serving")["id"]
    timeline = wait_for(client, iid, {"announced", "triaged", "triage_posted"})
    kinds = [e["kind"] for e in timeline]
    assert kinds[0] == "opened" and kinds.index("triage_posted") > kinds.index("announced")
    announced = next(e for e in timeline if e["kind"] == "announced")
    assert announced["data"]["dashboards"][0]["url"].startswith(
        "https://grafana.example/d/vllm?var-ns=llm-serving"
    )
    triage = client.get(f"/api/incidents/{iid}", headers=H).json()["triage"]
    assert triage["code"] == "UNATTRIBUTED" and triage["incident"]["namespace"] == "llm-serving"
    assert "kubernetes: topology: not configured (set KUBERNETES_API_URL or KUBECONFIG)" in triage["gaps"]


def test_a_triage_can_be_run_again_and_each_run_is_kept(client: httpx.Client, deps: Deps) -> None:
    iid = declare(client)["id"]
    wait_for(client, iid, {"triage_posted"})
    again = client.post(f"/api/incidents/{iid}/triage", json={"actor": "U0DAVE"}, headers=H)
    assert again.status_code == 200 and again.json() == {"incident_id": iid, "run": 2}
    timeline = wait_for(client, iid, {"triage_requested"})
    deadline = time.monotonic() + 30
    while (
        (second := deps.services.incidents.triage(iid)) is None or second.run != 2 or second.posted_at is None
    ):
        assert time.monotonic() < deadline, "run 2 was not stored and posted"
        time.sleep(0.05)
    first = deps.services.incidents.triage(iid, run=1)
    assert first is not None and first.run == 1 and second.created_at >= first.created_at
    timeline = client.get(f"/api/incidents/{iid}", headers=H).json()["timeline"]
    texts = [e["text"] for e in timeline]
    assert "triage run 2 requested by U0DAVE" in texts
    assert any(t.startswith("triage run 2 (rules): ") for t in texts)
    assert any(t.startswith("triage run 2 posted") for t in texts)
    assert client.get(f"/api/incidents/{iid}", headers=H).json()["incident"]["triage_runs"] == 2
    missing = client.post("/api/incidents/999/triage", json={"actor": "U0DAVE"}, headers=H)
    assert missing.status_code == 404


def test_a_namespace_nobody_named_is_said_to_be_a_guess(client: httpx.Client) -> None:
    iid = declare(client)["id"]  # no service, no namespace, no alerts
    wait_for(client, iid, {"triaged"})
    triage = client.get(f"/api/incidents/{iid}", headers=H).json()["triage"]
    assert triage["incident"]["namespace"] is None  # never reported as if known
    assert triage["scope"]["namespace"] == "default" and triage["scope"]["namespace_assumed"] is True
    assert "neither the incident nor its alerts name a namespace: default is assumed" in triage["notes"]
