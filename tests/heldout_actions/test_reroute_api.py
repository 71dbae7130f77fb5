"""The reroute of the skewed HTTPRoute decided over the HTTP API: written with preconditions and
verified, run once however many approve, undone only by an approver, and every step on the timeline
with who and when (README: Approved actions, HTTP endpoints).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import httpx
import pytest

from bot.config import Actions, BotConfig
from tests.heldout_actions.support import ROUTE_PACK, Harness, harness, weights

pytestmark = pytest.mark.timeout(300)

NS, ROUTE = "translate-svc", "translate-gemma"
ROUTE_PATH = f"/httproutes/{ROUTE}"
SKEWED = {"vllm-gemma3-27b-a": 90, "vllm-gemma3-27b-b": 10}


def config() -> BotConfig:
    return BotConfig(approvers=["U0BOB", "U0CAROL"], actions=Actions(verify_seconds=20))


def approve_and_verify(h: Harness, incident: int, proposal_id: int, actor: str) -> None:
    mark = h.last_event_id(incident)
    answer = h.decide("approve", proposal_id, actor)
    assert answer.status_code == 200, answer.text
    h.wait_event(incident, "action_verified", after=mark)


def test_approved_reroute_is_a_guarded_patch_that_evens_the_weights_and_is_verified(
    database_url: str,
) -> None:
    with harness(ROUTE_PACK, database_url, config()) as h:
        generation_before = h.cluster.route(NS, ROUTE)["metadata"]["generation"]
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "reroute")

        approve_and_verify(h, incident, proposal["id"], "U0BOB")

        route = h.cluster.route(NS, ROUTE)
        shares = weights(route)
        # Both pools have one Ready replica: the skewed split becomes an even one.
        assert shares["vllm-gemma3-27b-a"] == shares["vllm-gemma3-27b-b"] > 0, shares
        generation = route["metadata"]["generation"]
        assert generation > generation_before
        accepted = [
            c
            for parent in route["status"]["parents"]
            for c in parent["conditions"]
            if c["type"] == "Accepted"
        ]
        assert accepted, route["status"]
        assert all(c["status"] == "True" and c["observedGeneration"] == generation for c in accepted)

        # One write, a JSON Patch with test ops (the values read, the generation), as incident-bot.
        writes = h.real_writes()
        assert [w.path for w in writes] == [w.path for w in writes if ROUTE_PATH in w.path], writes
        assert len(writes) == 1, [(w.verb, w.path) for w in writes]
        write = writes[0]
        assert write.verb == "PATCH"
        assert "json-patch" in (write.content_type or ""), write.content_type
        tests = [op for op in write.body if op.get("op") == "test"]
        assert any("weight" in op["path"] for op in tests), write.body
        assert any("generation" in op["path"] for op in tests), write.body
        assert "fieldManager=incident-bot" in write.query, write.query

        stored = h.proposal(incident, proposal["id"])
        assert stored["status"] != "proposed"
        assert stored["decided_by"] and "U0BOB" in stored["decided_by"], stored
        assert stored["decided_at"], stored
        assert stored["outcome"], stored


def test_two_approvers_at_once_run_it_once_and_the_second_is_told_who_came_first(database_url: str) -> None:
    with harness(ROUTE_PACK, database_url, config()) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "reroute")
        barrier = threading.Barrier(2)

        def approve(actor: str) -> tuple[str, httpx.Response]:
            barrier.wait()
            return actor, h.decide("approve", proposal["id"], actor)

        with ThreadPoolExecutor(2) as pool:
            answers = dict(pool.map(approve, ["U0BOB", "U0CAROL"]))
        codes = sorted(a.status_code for a in answers.values())
        assert codes == [200, 409], {k: (v.status_code, v.text) for k, v in answers.items()}
        winner = next(actor for actor, a in answers.items() if a.status_code == 200)
        loser = next(actor for actor, a in answers.items() if a.status_code == 409)
        assert winner in answers[loser].json()["error"], answers[loser].text

        h.wait_event(incident, "action_verified")
        again = h.decide("approve", proposal["id"], loser)
        assert again.status_code == 409, again.text
        assert winner in again.json()["error"], again.text

        time.sleep(1.0)
        assert len(h.real_writes(ROUTE_PATH)) == 1, [(w.verb, w.path) for w in h.real_writes()]
        timeline = h.timeline(incident)
        approvals = [e for e in timeline if e["kind"] == "action_approved"]
        assert len(approvals) == 1 and winner in approvals[0]["actor"], approvals
        assert len([e for e in timeline if e["kind"] == "action_executed"]) == 1
        assert winner in (h.proposal(incident, proposal["id"])["decided_by"] or "")


def _at(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(str(event["at"]).replace("Z", "+00:00"))


def test_undo_needs_an_approver_restores_the_weights_once_and_the_trail_has_who_and_when(
    database_url: str,
) -> None:
    with harness(ROUTE_PACK, database_url, config()) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "reroute")
        pid = proposal["id"]
        approve_and_verify(h, incident, pid, "U0BOB")
        rerouted = weights(h.cluster.route(NS, ROUTE))
        assert rerouted != SKEWED

        mark = h.last_event_id(incident)
        refused = h.decide("undo", pid, "U0ANA")
        assert refused.status_code == 403, refused.text
        h.wait_event(incident, "action_refused", after=mark, fail_on=("action_undone",))
        time.sleep(0.5)
        assert weights(h.cluster.route(NS, ROUTE)) == rerouted

        answer = h.decide("undo", pid, "U0CAROL")
        assert answer.status_code == 200, answer.text
        h.wait_event(incident, "action_undone", after=mark)
        assert weights(h.cluster.route(NS, ROUTE)) == SKEWED

        assert h.decide("undo", pid, "U0CAROL").status_code == 409
        assert h.decide("approve", pid, "U0BOB").status_code == 409
        assert len(h.real_writes(ROUTE_PATH)) == 2, [(w.verb, w.path) for w in h.real_writes()]

        # The audit trail: every step an entry with its actor and its time, in order.
        timeline = h.timeline(incident)

        def first(kind: str) -> dict[str, Any]:
            found = [e for e in timeline if e["kind"] == kind]
            assert found, f"no {kind} on the timeline: {[e['kind'] for e in timeline]}"
            return found[0]

        steps = [
            "action_proposed",
            "action_approved",
            "action_dry_run",
            "action_executed",
            "action_verified",
            "action_undone",
        ]
        for kind in steps:
            event = first(kind)
            assert event["actor"], event
            assert event["at"], event
        assert "U0BOB" in first("action_approved")["actor"]
        undo_actors = [
            e["actor"] for e in timeline if e["kind"] in ("action_undo_requested", "action_undone")
        ]
        assert any("U0CAROL" in actor for actor in undo_actors), undo_actors
        assert any("U0ANA" in e["actor"] for e in timeline if e["kind"] == "action_refused")
        ordered = [
            "action_proposed",
            "action_approved",
            "action_executed",
            "action_verified",
            "action_undone",
        ]
        order = [_at(first(kind)) for kind in ordered]
        assert order == sorted(order), list(zip(ordered, order, strict=True))
        # The target is dry-run again when the approval resumes the run.
        approved_at = _at(first("action_approved"))
        assert any(_at(e) >= approved_at for e in timeline if e["kind"] == "action_dry_run"), timeline
