"""Approved actions end to end: a pack's cluster (the Kubernetes stand-in, with its controllers),
the Slack stand-in, the bot on loopback, and the objects read back through the `kubernetes` client.

Approvers: Carol by e-mail (globally) and the on-call group S0ONCALL (Bob, Carol); Ana is a
responder who may not approve.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import kubernetes.client as k8s
import yaml

from bot.actions.catalog import spec_for
from bot.actions.kube import KubeActions
from bot.config import Actions, BotConfig
from bot.domain import ActionProposal, ProposedAction
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.server import ServerThread
from bot.sandbox.up import Sandbox
from tests.conftest import ROOT
from tests.slack.conftest import SlackBot, running_bot
from tools.kubernetes import api_client

APPROVER_BY_GROUP = "U0BOB"
APPROVER_BY_EMAIL = "U0CAROL"
NOT_APPROVER = "U0ANA"
PACKS = {
    "reroute": "httproute-weight-skew-429",
    "restart_pod": "gpu-xid79-fell-off-bus",
    "cordon_node": "gpu-xid79-fell-off-bus",
    "rollback_deployment": "cuda-oom-after-max-num-seqs-rollout",
    "add_replica": "kv-cache-preemption-traffic-surge",
}


def approval_config(**actions: Any) -> BotConfig:
    return BotConfig(
        approvers=["carol@example.com", "S0ONCALL"],
        actions=Actions(verify_seconds=20, **actions),
    )


def pack_for(kind: str) -> Pack:
    return load_pack(ROOT / "scenarios" / PACKS[kind])


HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "support", "namespace": "llm-serving"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"},
        "minReplicas": 1,
        "maxReplicas": 8,
    },
}


def expected_target(kind: str) -> ProposedAction:
    """The action of `kind` a pack's expected.yaml accepts as a first move, on its target."""
    pack = pack_for(kind)
    expected = yaml.safe_load((pack.root / "expected.yaml").read_text())
    target = next(a["target"] for a in expected["acceptable_first_actions"] if a["kind"] == kind)
    namespace = next(o for o in pack.objects if o["kind"] == "Deployment")["metadata"]["namespace"]
    spec = spec_for(kind)
    return ProposedAction(kind=spec.kind, target=target, namespace=namespace if spec.namespaced else None)


@contextmanager
def served(objects: list[dict[str, Any]]) -> Iterator[tuple[KubernetesStandIn, KubeActions]]:
    """A cluster stand-in holding `objects`, served on loopback, and the executors' client to it."""
    standin = KubernetesStandIn(objects)
    try:
        with ServerThread(standin.app) as server:
            kube = KubeActions(api_client(server.url))
            yield standin, kube
            kube.close()
    finally:
        standin.close()


@dataclass
class Cluster:
    """The stand-in's API through the official client, as an operator would read it."""

    api: k8s.ApiClient

    @property
    def core(self) -> k8s.CoreV1Api:
        return k8s.CoreV1Api(self.api)

    @property
    def apps(self) -> k8s.AppsV1Api:
        return k8s.AppsV1Api(self.api)

    @property
    def custom(self) -> k8s.CustomObjectsApi:
        return k8s.CustomObjectsApi(self.api)

    @property
    def autoscaling(self) -> k8s.AutoscalingV2Api:
        return k8s.AutoscalingV2Api(self.api)

    def raw(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """A read as the server answered it (packs hold objects the typed models would refuse)."""
        return dict(json.loads(call(*args, _preload_content=False, **kwargs).data))

    def node(self, name: str) -> dict[str, Any]:
        return self.raw(self.core.read_node, name)

    def cordoned(self, name: str) -> bool:
        return bool((self.node(name).get("spec") or {}).get("unschedulable"))


def cluster_of(sandbox: Sandbox) -> Cluster:
    config = k8s.Configuration()
    config.host = sandbox.urls["kubernetes"].rstrip("/")
    return Cluster(k8s.ApiClient(config))


@contextmanager
def approval_bot(sandbox: Sandbox, database_url: str, **actions: Any) -> Iterator[SlackBot]:
    with running_bot(sandbox, database_url, config=approval_config(**actions)) as bot:
        yield bot


def proposal_of(bot: SlackBot, incident_id: int, kind: str) -> ActionProposal:
    found = [p for p in bot.deps.services.actions.list(incident_id) if p.action.kind.value == kind]
    assert found, (
        f"no {kind} proposal: {[p.action.kind for p in bot.deps.services.actions.list(incident_id)]}"
    )
    return found[0]


def triage_message(bot: SlackBot, incident_id: int) -> tuple[str, str]:
    posted = bot.deps.services.chat.message(incident_id, "triage", 1)
    assert posted is not None
    return posted.channel_id, posted.ts


def buttons(bot: SlackBot, incident_id: int) -> list[dict[str, Any]]:
    channel, ts = triage_message(bot, incident_id)
    message = bot.slack.channel(channel).message(ts)
    assert message is not None
    return [e for b in message.blocks if b["type"] == "actions" for e in b["elements"]]


def message_text(bot: SlackBot, incident_id: int) -> str:
    channel, ts = triage_message(bot, incident_id)
    message = bot.slack.channel(channel).message(ts)
    assert message is not None
    return str(message.blocks)


def click(bot: SlackBot, incident_id: int, action_id: str, proposal_id: int, user: str) -> str:
    channel, ts = triage_message(bot, incident_id)
    action = {"action_id": action_id, "value": str(proposal_id), "block_id": f"b{time.monotonic_ns()}"}
    return bot.click(channel, ts, action, user=user)


def wait_state(bot: SlackBot, proposal_id: int, states: set[str], timeout: float = 60) -> ActionProposal:
    deadline = time.monotonic() + timeout
    while True:
        proposal = bot.deps.services.actions.get(proposal_id)
        if proposal.status in states:
            return proposal
        assert time.monotonic() < deadline, f"proposal {proposal_id} stayed {proposal.status}"
        time.sleep(0.1)


def kinds_on_timeline(bot: SlackBot, incident_id: int, proposal_id: int) -> list[str]:
    timeline = bot.deps.services.incidents.get(incident_id).timeline
    return [e.kind.value for e in timeline if e.data.get("proposal_id") == proposal_id]
