"""Start everything a pack needs, print where it is, and stop it all again.

Used by `incident-bot sandbox up`, by `triage --pack` and `eval`, and by the integration tests:
one place that turns a pack into running backends, so no entry point re-implements it.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

from bot.sandbox.elasticsearch import ElasticsearchStandIn
from bot.sandbox.gpuagents import NodeAgent, agent_objects, start_agents
from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.kubernetes.apis import ServedApis
from bot.sandbox.openai import OpenAIStandIn, ScriptedReply
from bot.sandbox.pack import Pack
from bot.sandbox.prometheus import PrometheusRunner
from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn, SlackUser
from bot.sandbox.variant import Variant

SLACK_TOKEN = "xoxb-sandbox"
SLACK_SIGNING_SECRET = "sandbox-signing-secret"
# The sandbox workspace: a few responders to invite by ID, e-mail or user group.
SLACK_USERS = (
    SlackUser(id="U0ANA", name="ana", real_name="Ana Ruiz", email="ana@example.com"),
    SlackUser(id="U0BOB", name="bob", real_name="Bob Okafor", email="bob@example.com"),
    SlackUser(id="U0CAROL", name="carol", real_name="Carol Lin", email="carol@example.com"),
)
SLACK_GROUPS = {"S0ONCALL": ["U0BOB", "U0CAROL"]}
OPENAI_KEY = "sk-sandbox"
OPENAI_MODEL = "sandbox-model"


def pod_logs(logs: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[str]]:
    """Group ECS documents into per-container log streams, as the kubelet would serve them."""
    streams: dict[tuple[str, str, str], list[tuple[str, str]]] = defaultdict(list)
    for doc in logs:
        kube = doc.get("kubernetes") or {}
        namespace = kube.get("namespace") or doc.get("kubernetes.namespace")
        pod = (kube.get("pod") or {}).get("name") or doc.get("kubernetes.pod.name")
        container = (doc.get("container") or {}).get("name") or doc.get("container.name") or ""
        if namespace and pod:
            streams[(namespace, pod, container)].append((str(doc["@timestamp"]), str(doc["message"])))
    # Lines carry their RFC 3339 time first, as the kubelet stores them (it drives sinceTime).
    return {key: [f"{stamp} {message}" for stamp, message in sorted(lines)] for key, lines in streams.items()}


@dataclass
class Sandbox:
    """The running backends of one pack; use as a context manager."""

    pack: Pack
    llm_script: list[ScriptedReply] | None = None  # the OpenAI stand-in runs only with a script
    variant: Variant = field(default_factory=Variant)  # which servers the stand-ins answer as
    urls: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    gpu_agents: dict[str, NodeAgent] = field(default_factory=dict)  # node → its running GPU agent
    prometheus: PrometheusRunner | None = None
    elasticsearch: ElasticsearchStandIn | None = None
    kubernetes: KubernetesStandIn | None = None
    slack: SlackStandIn | None = None
    openai: OpenAIStandIn | None = None
    _stack: ExitStack = field(default_factory=ExitStack)

    def start(self) -> Sandbox:
        try:
            self._start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def _start(self) -> None:
        pack, stack = self.pack, self._stack
        as_of: datetime = pack.meta.as_of
        env: dict[str, str] = {"TRIAGE_AS_OF": as_of.strftime("%Y-%m-%dT%H:%M:%SZ")}
        # Only what the pack records is served: a backend it lacks is left unconfigured, so the
        # triage names it as a gap instead of reading an empty stand-in as "nothing wrong".
        if pack.metrics is not None:
            self.prometheus = stack.enter_context(PrometheusRunner(pack.metrics))
            self.urls["prometheus"] = self.prometheus.url
            env["PROMETHEUS_URL"] = self.prometheus.url
        if pack.has("logs.ndjson"):
            self.elasticsearch = ElasticsearchStandIn(now=lambda: as_of, profile=self.variant.log_server)
            docs, strings = self.variant.shipped(pack.logs)
            self.elasticsearch.index_documents(pack.meta.logs_index, docs, strings=strings)
            self.urls["elasticsearch"] = self._serve(self.elasticsearch.app, "elasticsearch")
            env.update(ELASTICSEARCH_URL=self.urls["elasticsearch"], LOGS_INDEX=pack.meta.logs_index)
        # One GPU agent per GPU node, found like in a cluster: through its DaemonSet pod when the
        # pack has a cluster, else through the static map.
        self.gpu_agents = start_agents(pack.gpus, stack, as_of=as_of)
        self.urls.update({f"gpu-agent {node}": agent.url for node, agent in self.gpu_agents.items()})
        if pack.has("k8s.yaml"):
            objects = [*pack.objects, *agent_objects(self.gpu_agents, as_of=as_of)]
            apis = ServedApis(
                httproute_versions=self.variant.httproute_versions, events_v1=self.variant.events_v1
            )
            self.kubernetes = KubernetesStandIn(
                objects, pod_logs=pod_logs(pack.logs), now=lambda: as_of, apis=apis
            )
            self.urls["kubernetes"] = self._serve(self.kubernetes.app, "kubernetes")
            stack.callback(self.kubernetes.close)  # open watches end first, so the server stops at once
            env.update(
                KUBERNETES_API_URL=self.urls["kubernetes"],
                KUBECONFIG=str(self._kubeconfig(self.urls["kubernetes"])),
                KUBERNETES_NAMESPACE=pack.meta.namespace,
            )
        self.slack = SlackStandIn(token=SLACK_TOKEN, users=SLACK_USERS, usergroups=SLACK_GROUPS)
        self.urls["slack"] = self._serve(self.slack.app, "slack") + "/api/"
        env.update(
            SLACK_API_URL=self.urls["slack"],
            SLACK_BOT_TOKEN=SLACK_TOKEN,
            SLACK_SIGNING_SECRET=SLACK_SIGNING_SECRET,
        )
        if self.llm_script is not None:
            self.openai = OpenAIStandIn(self.llm_script, api_key=OPENAI_KEY, model=OPENAI_MODEL)
            self.urls["openai"] = self._serve(self.openai.app, "openai") + "/v1"
            env.update(
                OPENAI_BASE_URL=self.urls["openai"], OPENAI_API_KEY=OPENAI_KEY, OPENAI_MODEL=OPENAI_MODEL
            )
        if self.kubernetes is None and self.gpu_agents:
            env["GPU_AGENT_URLS"] = ",".join(f"{n}={a.url}" for n, a in self.gpu_agents.items())
        self.env = env

    def _serve(self, app: Any, name: str) -> str:
        return self._stack.enter_context(ServerThread(app, name=f"sandbox-{name}")).url

    def _kubeconfig(self, server: str) -> Path:
        """A kubeconfig for kubectl and client libraries, removed with the sandbox."""
        folder = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="incident-bot-kube-")))
        path = folder / "kubeconfig"
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "sandbox", "cluster": {"server": server}}],
            "users": [{"name": "sandbox", "user": {"token": "sandbox"}}],
            "contexts": [
                {
                    "name": "sandbox",
                    "context": {
                        "cluster": "sandbox",
                        "user": "sandbox",
                        "namespace": self.pack.meta.namespace,
                    },
                }
            ],
            "current-context": "sandbox",
        }
        path.write_text(yaml.safe_dump(config))
        os.chmod(path, 0o600)
        return path

    def stop(self) -> None:
        self._stack.close()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()
