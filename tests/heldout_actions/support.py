"""What the held-out action tests share: a pack's sandbox with the bot running on it, the incident
API, the cluster read through the official `kubernetes` client, and the triage post's buttons.

Only the documented surfaces are used: the HTTP API, the Slack stand-in's workspace, the Kubernetes
stand-in through its REST API (and its record of mutating requests).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import kubernetes.client as k8s

from bot.config import BotConfig
from bot.sandbox.pack import load_pack
from bot.sandbox.up import Sandbox
from tests.conftest import ROOT, api_headers
from tests.slack.conftest import SlackBot, running_bot

SCENARIOS = ROOT / "scenarios"
ROUTE_PACK = SCENARIOS / "httproute-weight-skew-429"
XID_PACK = SCENARIOS / "gpu-xid79-fell-off-bus"
OOM_PACK = SCENARIOS / "cuda-oom-after-max-num-seqs-rollout"
SURGE_PACK = SCENARIOS / "kv-cache-preemption-traffic-surge"

GATEWAY_GROUP = "gateway.networking.k8s.io"
REVISION = "deployment.kubernetes.io/revision"
HISTORY = "deployment.kubernetes.io/revision-history"
HASH_LABEL = "pod-template-hash"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def as_json(response: Any) -> dict[str, Any]:
    """A raw (`_preload_content=False`) client answer as JSON: pack objects may not fit the models."""
    return dict(json.loads(response.data))


class Cluster:
    """The sandbox's Kubernetes, read and written through the official client."""

    def __init__(self, url: str) -> None:
        cfg = k8s.Configuration()
        cfg.host = url
        self.api = k8s.ApiClient(cfg)
        self.core = k8s.CoreV1Api(self.api)
        self.apps = k8s.AppsV1Api(self.api)
        self.custom = k8s.CustomObjectsApi(self.api)

    def close(self) -> None:
        self.api.close()

    def node(self, name: str) -> dict[str, Any]:
        return as_json(self.core.read_node(name, _preload_content=False))

    def nodes(self) -> dict[str, dict[str, Any]]:
        items = as_json(self.core.list_node(_preload_content=False))["items"]
        return {o["metadata"]["name"]: o for o in items}

    def deployment(self, namespace: str, name: str) -> dict[str, Any]:
        return as_json(self.apps.read_namespaced_deployment(name, namespace, _preload_content=False))

    def deployments(self, namespace: str) -> dict[str, dict[str, Any]]:
        items = as_json(self.apps.list_namespaced_deployment(namespace, _preload_content=False))["items"]
        return {o["metadata"]["name"]: o for o in items}

    def replicasets(self, namespace: str) -> dict[str, dict[str, Any]]:
        items = as_json(self.apps.list_namespaced_replica_set(namespace, _preload_content=False))["items"]
        return {o["metadata"]["name"]: o for o in items}

    def pods(self, namespace: str) -> dict[str, dict[str, Any]]:
        items = as_json(self.core.list_namespaced_pod(namespace, _preload_content=False))["items"]
        return {o["metadata"]["name"]: o for o in items}

    def services(self, namespace: str) -> dict[str, dict[str, Any]]:
        items = as_json(self.core.list_namespaced_service(namespace, _preload_content=False))["items"]
        return {o["metadata"]["name"]: o for o in items}

    def route(self, namespace: str, name: str) -> dict[str, Any]:
        return as_json(
            self.custom.get_namespaced_custom_object(
                GATEWAY_GROUP, "v1", namespace, "httproutes", name, _preload_content=False
            )
        )

    def routes(self, namespace: str) -> dict[str, dict[str, Any]]:
        items = as_json(
            self.custom.list_namespaced_custom_object(
                GATEWAY_GROUP, "v1", namespace, "httproutes", _preload_content=False
            )
        )["items"]
        return {o["metadata"]["name"]: o for o in items}

    def snapshot(self, namespace: str) -> dict[str, Any]:
        """Every object an action could touch, as the API server serves it (resourceVersion included)."""
        return {
            "nodes": self.nodes(),
            "deployments": self.deployments(namespace),
            "replicasets": self.replicasets(namespace),
            "pods": self.pods(namespace),
            "services": self.services(namespace),
            "httproutes": self.routes(namespace),
        }


def weights(route: dict[str, Any]) -> dict[str, int]:
    """The HTTPRoute's backend weights by backend name (first rule, as the pack has one)."""
    refs = route["spec"]["rules"][0]["backendRefs"]
    return {ref["name"]: int(ref.get("weight", 1)) for ref in refs}


def pruned(value: Any) -> Any:
    """Without nulls and empty maps or lists, which the API server's typed decoding treats as absent."""
    if isinstance(value, dict):
        kept = {key: pruned(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in (None, {}, [])}
    if isinstance(value, list):
        return [pruned(item) for item in value]
    return value


def template_key(template: dict[str, Any]) -> Any:
    """A pod template as `kubectl rollout undo` compares it: without the pod-template-hash label."""
    bare = json.loads(json.dumps(template))
    ((bare.get("metadata") or {}).get("labels") or {}).pop(HASH_LABEL, None)
    return pruned(bare)


def args_of(deployment_or_rs: dict[str, Any]) -> list[str]:
    return list(deployment_or_rs["spec"]["template"]["spec"]["containers"][0].get("args") or [])


def revision(obj: dict[str, Any]) -> int:
    value = (obj["metadata"].get("annotations") or {}).get(REVISION, "0")
    return int(value) if value.isdigit() else 0


def walk_buttons(blocks: list[Any]) -> list[dict[str, Any]]:
    """Every button in a message's blocks, each with the block_id of the block that holds it."""
    found: list[dict[str, Any]] = []

    def walk(node: Any, block_id: str | None) -> None:
        if isinstance(node, dict):
            block_id = node.get("block_id", block_id)
            if node.get("type") == "button" and "action_id" in node:
                found.append({**node, "_block_id": block_id})
            for value in node.values():
                walk(value, block_id)
        elif isinstance(node, list):
            for value in node:
                walk(value, block_id)

    walk(blocks, None)
    return found


def find_button(blocks: list[Any], prefix: str, proposal_id: int) -> dict[str, Any] | None:
    return next(
        (
            b
            for b in walk_buttons(blocks)
            if str(b["action_id"]).startswith(prefix) and str(b.get("value")) == str(proposal_id)
        ),
        None,
    )


def click_payload(button: dict[str, Any]) -> dict[str, Any]:
    """The `actions[0]` entry Slack sends for a click on this button (type is added by `click`)."""
    action = {"action_id": button["action_id"], "value": button["value"], "action_ts": f"{time.time():.6f}"}
    if button.get("_block_id"):
        action["block_id"] = button["_block_id"]
    if button.get("text"):
        action["text"] = button["text"]
    return action


def eventually(check: Callable[[], Any], *, timeout: float = 30, what: str = "condition") -> Any:
    """The first truthy answer of `check` within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        assert time.monotonic() < deadline, f"{what} not reached within {timeout} s"
        time.sleep(0.1)


@dataclass
class Harness:
    """A pack's sandbox, the bot on it (with Slack), and the cluster client."""

    sandbox: Sandbox
    bot: SlackBot
    cluster: Cluster
    pack_dir: Path

    # --- the incident API -----------------------------------------------------------------------

    def open_incident(self) -> int:
        return self.bot.alert((self.pack_dir / "alert.json").read_bytes())

    def detail(self, incident_id: int) -> dict[str, Any]:
        answer = httpx.get(f"{self.bot.url}/api/incidents/{incident_id}", headers=api_headers(), timeout=10)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def timeline(self, incident_id: int) -> list[dict[str, Any]]:
        return list(self.detail(incident_id)["timeline"])

    def actions(self, incident_id: int) -> list[dict[str, Any]]:
        answer = httpx.get(
            f"{self.bot.url}/api/incidents/{incident_id}/actions", headers=api_headers(), timeout=10
        )
        assert answer.status_code == 200, answer.text
        return list(answer.json()["actions"])

    def proposal(self, incident_id: int, proposal_id: int) -> dict[str, Any]:
        found = [p for p in self.actions(incident_id) if p["id"] == proposal_id]
        assert found, f"proposal {proposal_id} is not listed for incident {incident_id}"
        return found[0]

    def wait_proposal(self, incident_id: int, kind: str, timeout: float = 60) -> dict[str, Any]:
        """The triage's proposal of `kind`, once the triage is posted (its dry run shown)."""
        self.bot.wait_for(incident_id, "triage_posted", timeout=timeout)

        def found() -> dict[str, Any] | None:
            return next((p for p in self.actions(incident_id) if p["action"]["kind"] == kind), None)

        proposal = eventually(found, timeout=timeout, what=f"a {kind} proposal")
        return dict(proposal)

    def decide(self, verb: str, proposal_id: int, actor: str) -> httpx.Response:
        return httpx.post(
            f"{self.bot.url}/api/actions/{proposal_id}/{verb}",
            json={"actor": actor},
            headers=api_headers(),
            timeout=30,
        )

    def wait_event(
        self,
        incident_id: int,
        kinds: str | tuple[str, ...],
        *,
        after: int = 0,
        fail_on: tuple[str, ...] = ("action_failed",),
        timeout: float = 60,
    ) -> dict[str, Any]:
        """The first timeline event of `kinds` with an id above `after`; a `fail_on` one ends the wait."""
        wanted = (kinds,) if isinstance(kinds, str) else kinds
        deadline = time.monotonic() + timeout
        while True:
            events = [e for e in self.timeline(incident_id) if e["id"] > after]
            for event in events:
                if event["kind"] in wanted:
                    return event
                if event["kind"] in fail_on and event["kind"] not in wanted:
                    raise AssertionError(f"{event['kind']} on the timeline: {event['text']} {event['data']}")
            assert time.monotonic() < deadline, (
                f"no {wanted} on the timeline within {timeout} s: {[(e['kind'], e['text']) for e in events]}"
            )
            time.sleep(0.1)

    def last_event_id(self, incident_id: int) -> int:
        return max((e["id"] for e in self.timeline(incident_id)), default=0)

    # --- the cluster's record of writes ---------------------------------------------------------

    def real_writes(self, path_part: str = "") -> list[Any]:
        """Mutating requests that changed the store (not dry runs, not refused), optionally by path."""
        assert self.sandbox.kubernetes is not None
        return [
            w
            for w in self.sandbox.kubernetes.writes
            if not w.dry_run and w.resource_version is not None and path_part in w.path
        ]

    def all_writes(self) -> list[Any]:
        assert self.sandbox.kubernetes is not None
        return list(self.sandbox.kubernetes.writes)

    # --- Slack ----------------------------------------------------------------------------------

    def triage_post(self, incident_id: int) -> tuple[str, str]:
        stored = self.bot.deps.services.chat.message(incident_id, "triage", 1)
        assert stored is not None, f"incident {incident_id} has no triage post"
        return stored.channel_id, stored.ts

    def blocks(self, channel_id: str, ts: str) -> list[Any]:
        message = self.bot.slack.channel(channel_id).message(ts)
        assert message is not None, f"message {ts} is gone from {channel_id}"
        return list(message.blocks)

    def message_text(self, channel_id: str, ts: str) -> str:
        message = self.bot.slack.channel(channel_id).message(ts)
        assert message is not None, f"message {ts} is gone from {channel_id}"
        return message.text + "\n" + json.dumps(message.blocks)


@contextmanager
def harness(pack_dir: Path, database_url: str, config: BotConfig) -> Iterator[Harness]:
    """A fresh sandbox of the pack (actions change its cluster) and the bot with Slack on it."""
    with Sandbox(load_pack(pack_dir)) as sandbox, running_bot(sandbox, database_url, config=config) as bot:
        cluster = Cluster(sandbox.urls["kubernetes"])
        try:
            yield Harness(sandbox=sandbox, bot=bot, cluster=cluster, pack_dir=pack_dir)
        finally:
            cluster.close()


def mentions(text: str, user_id: str, name: str) -> bool:
    """Whether a text names a Slack user, by ID (`<@U…>` or bare) or by name / e-mail."""
    return user_id in text or name.lower() in text.lower()
