"""rollback_deployment as `kubectl rollout undo` does it: the previous ReplicaSet's template back on the
Deployment, that ReplicaSet reused at a new highest revision, the rollout complete; undone the same
way; and a paused Deployment never rolled back (README: Approved actions).
"""

from __future__ import annotations

import json
import time

import pytest

from bot.config import Actions, BotConfig
from tests.heldout_actions.support import (
    HISTORY,
    OOM_PACK,
    args_of,
    eventually,
    harness,
    revision,
    template_key,
)

pytestmark = pytest.mark.timeout(300)

NS, DEPLOYMENT = "search-llm", "vllm-mistral-small-24b"
PREVIOUS_RS, CURRENT_RS = f"{DEPLOYMENT}-4zzfzmfkkq", f"{DEPLOYMENT}-ltd54hwn2"  # revisions 11 and 12


def config() -> BotConfig:
    return BotConfig(approvers=["U0ANA"], actions=Actions(verify_seconds=20))


def test_rollback_is_rollout_undo_with_a_new_highest_revision_and_undo_rolls_forward_again(
    database_url: str,
) -> None:
    with harness(OOM_PACK, database_url, config()) as h:
        sets_before = h.cluster.replicasets(NS)
        assert revision(sets_before[PREVIOUS_RS]) == 11 and revision(sets_before[CURRENT_RS]) == 12
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "rollback_deployment")
        assert proposal["action"]["target"] == f"deployment/{DEPLOYMENT}"
        # The dry run's diff shows the template change it would make (--max-num-seqs 512 -> 128).
        assert "128" in json.dumps(proposal["preview"]), proposal["preview"]

        mark = h.last_event_id(incident)
        answer = h.decide("approve", proposal["id"], "U0ANA")
        assert answer.status_code == 200, answer.text
        h.wait_event(incident, "action_verified", after=mark)

        deployment = h.cluster.deployment(NS, DEPLOYMENT)
        sets = h.cluster.replicasets(NS)
        assert set(sets) == set(sets_before), "rollout undo reuses the previous ReplicaSet, it makes none"
        previous = sets[PREVIOUS_RS]
        assert template_key(deployment["spec"]["template"]) == template_key(previous["spec"]["template"])
        assert args_of(deployment)[-2:] == ["--max-num-seqs", "128"]
        assert revision(previous) == 13 == max(revision(rs) for rs in sets.values())
        assert revision(deployment) == 13
        assert "11" in (previous["metadata"].get("annotations") or {}).get(HISTORY, "").split(",")
        assert previous["spec"]["replicas"] == 3 and sets[CURRENT_RS]["spec"]["replicas"] == 0

        # Complete as `kubectl rollout status` says.
        status = deployment["status"]
        assert status.get("observedGeneration", 0) >= deployment["metadata"]["generation"], status
        assert status.get("updatedReplicas") == status.get("availableReplicas") == 3, status
        progressing = next(c for c in status["conditions"] if c["type"] == "Progressing")
        assert progressing["reason"] == "NewReplicaSetAvailable", progressing

        deployment_writes = h.real_writes(f"/deployments/{DEPLOYMENT}")
        assert len(deployment_writes) == 1, [(w.verb, w.path) for w in h.real_writes()]
        assert "fieldManager=incident-bot" in deployment_writes[0].query

        mark = h.last_event_id(incident)
        undo = h.decide("undo", proposal["id"], "U0ANA")
        assert undo.status_code == 200, undo.text
        h.wait_event(incident, "action_undone", after=mark)

        def rolled_forward() -> bool:
            current = h.cluster.deployment(NS, DEPLOYMENT)
            return args_of(current)[-2:] == ["--max-num-seqs", "512"] and revision(current) == 14

        eventually(rolled_forward, timeout=20, what="the template the bot replaced back at revision 14")
        assert revision(h.cluster.replicasets(NS)[CURRENT_RS]) == 14


def test_a_paused_deployment_is_not_rolled_back(database_url: str) -> None:
    with harness(OOM_PACK, database_url, config()) as h:
        incident = h.open_incident()
        proposal = h.wait_proposal(incident, "rollback_deployment")

        # Someone pauses the rollout between the proposal and the approval.
        h.cluster.apps.patch_namespaced_deployment(
            DEPLOYMENT, NS, {"spec": {"paused": True}}, _preload_content=False
        )
        assert h.cluster.deployment(NS, DEPLOYMENT)["spec"]["paused"] is True
        seen_writes = len(h.all_writes())
        mark = h.last_event_id(incident)

        answer = h.decide("approve", proposal["id"], "U0ANA")
        if answer.status_code == 200:
            outcome = h.wait_event(
                incident, ("action_failed", "action_refused", "action_executed"), after=mark, fail_on=()
            )
            assert outcome["kind"] != "action_executed", outcome
        else:
            assert answer.status_code == 409, answer.text

        time.sleep(1.0)
        deployment = h.cluster.deployment(NS, DEPLOYMENT)
        assert deployment["spec"]["paused"] is True
        assert args_of(deployment)[-2:] == ["--max-num-seqs", "512"]
        assert revision(deployment) == 12
        later = [w for w in h.all_writes()[seen_writes:] if not w.dry_run and w.resource_version is not None]
        assert later == [], [(w.verb, w.path) for w in later]
        assert "action_executed" not in [e["kind"] for e in h.timeline(incident)]
