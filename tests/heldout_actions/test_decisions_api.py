"""Who may decide, and when a decision may not run: reject by a non-approver, approve after a
reject, a proposal on a resolved incident, a service's approver on another service's action
(README: Approved actions, HTTP endpoints: 403 for a non-approver, 409 when already decided).
"""

from __future__ import annotations

import time

import httpx
import pytest

from bot.config import Actions, BotConfig, Service
from tests.conftest import api_headers
from tests.heldout_actions.support import OOM_PACK, SURGE_PACK, args_of, harness, revision

pytestmark = pytest.mark.timeout(300)

VERIFY = Actions(verify_seconds=20)
SURGE_NS, SURGE_DEPLOYMENT = "support-bot", "vllm-llama31-8b-support"
OOM_NS, OOM_DEPLOYMENT, OOM_SERVICE = "search-llm", "vllm-mistral-small-24b", "vllm-mistral-small-24b"


def test_reject_needs_an_approver_and_a_rejected_proposal_can_never_run(database_url: str) -> None:
    config = BotConfig(approvers=["U0BOB"], actions=VERIFY)
    with harness(SURGE_PACK, database_url, config) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "add_replica")
        pid = proposal["id"]

        refused = h.decide("reject", pid, "U0ANA")
        assert refused.status_code == 403, refused.text
        assert h.proposal(incident, pid)["status"] == "proposed"
        refusal = h.wait_event(incident, "action_refused", fail_on=("action_rejected",))
        assert "U0ANA" in refusal["actor"], refusal

        rejected = h.decide("reject", pid, "U0BOB")
        assert rejected.status_code == 200, rejected.text
        stored = h.proposal(incident, pid)
        assert stored["status"] not in ("proposed", "approved"), stored
        assert "U0BOB" in (stored["decided_by"] or ""), stored
        event = h.wait_event(incident, "action_rejected")
        assert "U0BOB" in event["actor"], event

        for verb in ("approve", "reject", "undo"):
            again = h.decide(verb, pid, "U0BOB")
            assert again.status_code == 409, (verb, again.status_code, again.text)

        time.sleep(1.0)
        assert h.cluster.deployment(SURGE_NS, SURGE_DEPLOYMENT)["spec"]["replicas"] == 3
        assert h.real_writes() == [], [(w.verb, w.path) for w in h.real_writes()]
        kinds = [e["kind"] for e in h.timeline(incident)]
        assert "action_approved" not in kinds and "action_executed" not in kinds, kinds


def test_a_proposal_of_a_resolved_incident_cannot_run(database_url: str) -> None:
    config = BotConfig(approvers=["U0BOB"], actions=VERIFY)
    with harness(OOM_PACK, database_url, config) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "rollback_deployment")
        before = h.cluster.snapshot(OOM_NS)

        resolved = httpx.post(
            f"{h.bot.url}/api/incidents/{incident}/resolve",
            json={"actor": "U0BOB", "reason": "mitigated by hand"},
            headers=api_headers(),
            timeout=10,
        )
        assert resolved.status_code == 200, resolved.text
        assert h.detail(incident)["incident"]["status"] == "resolved"

        answer = h.decide("approve", proposal["id"], "U0BOB")
        assert answer.status_code == 409, answer.text

        time.sleep(2.0)
        assert h.real_writes() == [], [(w.verb, w.path) for w in h.real_writes()]
        assert h.cluster.snapshot(OOM_NS) == before
        kinds = [e["kind"] for e in h.timeline(incident)]
        assert "action_approved" not in kinds and "action_executed" not in kinds, kinds
        assert h.proposal(incident, proposal["id"])["status"] != "approved"


def test_a_service_approver_cannot_approve_another_services_action(database_url: str) -> None:
    config = BotConfig(
        services=[
            Service(name=OOM_SERVICE, approvers=["U0CAROL"]),
            Service(name="translate-gemma", approvers=["U0BOB"]),
        ],
        actions=VERIFY,
    )
    with harness(OOM_PACK, database_url, config) as h:
        incident = h.open_incident()
        assert h.detail(incident)["incident"]["service"] == OOM_SERVICE
        proposal = h.wait_proposal(incident, "rollback_deployment")
        pid = proposal["id"]

        foreign = h.decide("approve", pid, "U0BOB")
        assert foreign.status_code == 403, foreign.text
        refusal = h.wait_event(incident, "action_refused", fail_on=("action_approved",))
        assert "U0BOB" in refusal["actor"], refusal
        time.sleep(0.5)
        assert h.real_writes() == [], [(w.verb, w.path) for w in h.real_writes()]
        assert h.proposal(incident, pid)["status"] == "proposed"
        deployment = h.cluster.deployment(OOM_NS, OOM_DEPLOYMENT)
        assert args_of(deployment)[-2:] == ["--max-num-seqs", "512"]
        assert revision(deployment) == 12

        own = h.decide("approve", pid, "U0CAROL")
        assert own.status_code == 200, own.text
        h.wait_event(incident, "action_executed")
        assert args_of(h.cluster.deployment(OOM_NS, OOM_DEPLOYMENT))[-2:] == ["--max-num-seqs", "128"]
        assert "U0CAROL" in (h.proposal(incident, pid)["decided_by"] or "")
