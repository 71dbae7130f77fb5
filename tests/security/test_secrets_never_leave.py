"""No credential leaves the bot. A pack's logs, alert labels and annotations, and Kubernetes objects
(env values, flags, annotations, event messages) are planted with every kind of credential; the bot
announces, triages (the LLM review calling its tools against the OpenAI stand-in) and is resolved in
Slack. Then no planted value is in any call the Slack stand-in recorded, any file it was sent, any
request the OpenAI stand-in received, or the postmortem (Markdown and JSON)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from bot.config import BotConfig, Dashboard, Service
from bot.sandbox.openai import ScriptedReply
from bot.sandbox.pack import load_pack
from bot.sandbox.up import Sandbox
from bot.triage.redact import redact
from tests.conftest import ROOT, api_headers
from tests.slack.conftest import running_bot

pytestmark = pytest.mark.timeout(240)

OOM = ROOT / "scenarios" / "cuda-oom-after-max-num-seqs-rollout"
SERVICE = "vllm-mistral-small-24b"
ROLLOUT = f"k8s:rollout:search-llm/{SERVICE}:12"
MARK = "credentialleak"  # a word the planted log lines carry, for the model's log search
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCPlantedKeyBody"

# Credentials known by their shape, planted as they would appear in text.
SHAPED = {
    "slack bot token": "xoxb-2718281828-3141592653-PlantedSlackBot",
    "slack user token": "xoxp-1111111111-2222222222-PlantedSlackUser",
    "slack app token": "xapp-1-A0PLANT-PlantedAppLevelToken",
    "github token": "ghp_PlantedGithub0123456789abcdefghijklm",
    "github pat": "github_pat_11PLANTED0abcdefghijkl_mnopqrstuvwxyz0123456789",
    "openai key": "sk-proj-PlantedOpenAI0123456789abcdef",
    "aws key id": "AKIAPLANTEDEXAMPLE12",
    "google key": "AIzaSyPlantedGoogleKey0123456789abcdefg",
    "hugging face token": "hf_PlantedHuggingFace0123456789abcd",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.PlantedJwtSignature123",
}
# The value of each, as found in a sink; the text it is planted in.
SECRETS = {
    **SHAPED,
    "private key": KEY_BODY,
    "password=": "PlantedPassw0rd",
    '"password":': "PlantedJsonPass",
    "bearer header": "PlantedBearerToken0123456789",
    "basic header": "cGxhbnRlZDpiYXNpYw==",
    "url password": "PlantedUrlPass",
    "postgres url password": "PlantedPgPass",
    "query token": "PlantedQueryToken",
    "query api_key": "PlantedQueryKey",
    "label dsn": "PlantedLabelPass",
    "title api_key": "PlantedTitleKey",
    "runbook url token": "PlantedRunbookToken",
    "generator url api_key": "PlantedGeneratorKey",
    "env old": "PlantedEnvOld",
    "env new": "PlantedEnvNew",
    "env HF_TOKEN": "PlantedHfEnvValue",
    "flag old": "PlantedFlagOld",
    "flag new": "PlantedFlagNew",
    "template annotation": "PlantedAnnotation",
    "change-cause": "PlantedCause",
    "probe url password": "PlantedProbePass",
    "probe url token": "PlantedProbeToken",
    "event bearer": "PlantedEventBearer0123",
    "model echo": "PlantedEchoPass",
}
TEXT = " ".join(
    [
        *SHAPED.values(),
        f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----",
        f"password={SECRETS['password=']}",
        f'{{"password": "{SECRETS[chr(34) + "password" + chr(34) + ":"]}"}}',
        f"Authorization: Bearer {SECRETS['bearer header']}",
        f"(Authorization: Basic {SECRETS['basic header']})",
        f"https://svc:{SECRETS['url password']}@db.internal/x",
        f"postgresql://app:{SECRETS['postgres url password']}@pg:5432/search",
        f"GET /v1/x?token={SECRETS['query token']}&api_key={SECRETS['query api_key']}",
    ]
)


def plant(target: Path) -> None:
    """Copy of the OOM pack with credentials in its logs, alert and cluster objects."""
    logs = []
    for line in (target / "logs.ndjson").read_text().splitlines():
        doc = json.loads(line)
        if "EngineCore encountered a fatal error." in doc["message"]:
            doc["message"] += f" {MARK} token={SHAPED['slack bot token']} {TEXT}"
        logs.append(json.dumps(doc))
    (target / "logs.ndjson").write_text("\n".join(logs) + "\n")

    alert = json.loads((target / "alert.json").read_text())
    for holder in (alert["commonAnnotations"], *(a["annotations"] for a in alert["alerts"])):
        holder["summary"] = f"search-answer: 5xx ratio above 3% (api_key={SECRETS['title api_key']})"
        holder["description"] = f"More than 3% fail. {TEXT}"
        holder["runbook_url"] += f"?token={SECRETS['runbook url token']}"
    for holder in (alert["commonLabels"], *(a["labels"] for a in alert["alerts"])):
        holder["dsn"] = f"postgresql://app:{SECRETS['label dsn']}@pg/search"
    for each in alert["alerts"]:
        each["generatorURL"] += f"&api_key={SECRETS['generator url api_key']}"
    (target / "alert.json").write_text(json.dumps(alert))

    objects = list(yaml.safe_load_all((target / "k8s.yaml").read_text()))
    for obj in objects:
        name, kind = obj["metadata"]["name"], obj["kind"]
        if kind in ("Deployment", "ReplicaSet"):
            old = name.endswith("4zzfzmfkkq")
            template = obj["spec"]["template"]
            container = template["spec"]["containers"][0]
            container["env"] += [
                {"name": "DB_PASSWORD", "value": SECRETS["env old" if old else "env new"]},
                *([] if old else [{"name": "HF_TOKEN", "value": SECRETS["env HF_TOKEN"]}]),
            ]
            container["args"] += ["--api-key", SECRETS["flag old" if old else "flag new"]]
            if not old:
                meta = template.setdefault("metadata", {})
                meta.setdefault("annotations", {})["vault.example/db-password"] = SECRETS[
                    "template annotation"
                ]
                obj["metadata"]["annotations"]["kubernetes.io/change-cause"] = (
                    f"kubectl set env deployment/{SERVICE} DB_PASSWORD={SECRETS['change-cause']}"
                )
        if kind == "Event" and obj.get("reason") == "Unhealthy":
            obj["message"] = (
                obj["message"]
                .replace("http://", f"http://probe:{SECRETS['probe url password']}@")
                .replace("/health", f"/health?access_token={SECRETS['probe url token']}")
            )
        if kind == "Event" and obj.get("reason") == "BackOff":
            obj["message"] += f" (Authorization: Bearer {SECRETS['event bearer']})"
    (target / "k8s.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))


def script() -> list[ScriptedReply]:
    """The model reads the planted logs, the rollouts, events and pods, and echoes a credential."""
    answer = {
        "category": "infrastructure",
        "code": "INF_GPU_OOM",
        "layer": "INF",
        "hypothesis": f"The rollout raised max-num-seqs and the GPUs ran out of memory "
        f"(the logs also show password={SECRETS['model echo']}).",
        "confidence": 0.8,
        "evidence_ids": [ROLLOUT],
        "claims": [{"text": "max-num-seqs went from 128 to 512", "evidence_ids": [ROLLOUT]}],
        "actions": [],
    }
    calls = [
        {"name": "search_logs", "arguments": {"text": MARK}},
        {"name": "kubernetes", "arguments": {"view": "rollouts"}},
        {"name": "kubernetes", "arguments": {"view": "events"}},
        {"name": "kubernetes", "arguments": {"view": "pods"}},
    ]
    return [
        ScriptedReply.model_validate({"tool_calls": calls}),
        ScriptedReply(content=json.dumps(answer)),
        ScriptedReply(content=json.dumps(answer)),  # for a repair, should the first be refused
    ]


@dataclass
class Sinks:
    """Everything that left the bot, as text."""

    slack: list[str]  # one entry per recorded Web API call, response-URL post or uploaded file
    llm: list[dict[str, Any]]  # the chat-completions requests
    markdown: str
    draft: dict[str, Any]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("planted") / "pack"
    shutil.copytree(OOM, target)
    plant(target)
    return target


@pytest.fixture(scope="module")
def sinks(planted: Path) -> Iterator[Sinks]:
    target, folder = planted, planted.parent
    config = BotConfig(
        services=[
            Service(
                name=SERVICE,
                responders=["U0ANA"],
                dashboards=[Dashboard(title="engine", url="https://grafana.example/d/x?var-ns={namespace}")],
            )
        ],
        runbook_url="https://git.example/ops/runbooks/{file}",
    )
    with (
        Sandbox(load_pack(target), llm_script=script()) as sandbox,
        running_bot(sandbox, f"sqlite:///{folder / 'bot.db'}", config=config) as bot,
    ):
        incident = bot.alert((target / "alert.json").read_bytes())
        bot.wait_for(incident, "triage_posted", timeout=120)
        answer, url = bot.command(
            "resolve INF_GPU_OOM max-num-seqs back to 128", channel=bot.channel(incident).id
        )
        assert answer.status_code == 200
        bot.wait_for(incident, "postmortem_drafted", timeout=60)
        api = f"{bot.url}/api/incidents/{incident}/postmortem"
        markdown = httpx.get(api, params={"format": "md"}, headers=api_headers(), timeout=10).text
        draft = httpx.get(api, headers=api_headers(), timeout=10).json()
        assert sandbox.openai is not None
        slack = [json.dumps({"method": c.method, "params": c.params}, default=str) for c in bot.slack.calls]
        slack += [f.content.decode(errors="replace") for f in bot.slack.files.values() if f.content]
        slack += bot.replies(url)
        yield Sinks(slack=slack, llm=list(sandbox.openai.requests), markdown=markdown, draft=draft)


def leaked(texts: list[str]) -> dict[str, str]:
    """Each planted credential found, with the start of the text it was found in."""
    found = {}
    for what, secret in SECRETS.items():
        for text in texts:
            if secret in text:
                at = text.index(secret)
                found[what] = text[max(0, at - 80) : at + len(secret)]
    return found


def test_the_pack_really_carries_the_planted_credentials(planted: Path) -> None:
    """Every planted value is in the files the stand-ins serve: only redaction keeps it in."""
    raw = "".join(path.read_text() for path in planted.iterdir() if path.is_file())
    missing = [what for what, secret in SECRETS.items() if secret not in raw and what != "model echo"]
    assert missing == []


def test_no_credential_reaches_slack(sinks: Sinks) -> None:
    assert leaked(sinks.slack) == {}
    said = "\n".join(sinks.slack)
    # The planted texts did arrive, redacted: the title, the triage's evidence, the resolution.
    assert "5xx ratio above 3% (api_key=[REDACTED])" in said
    assert "chat.update" in said and "files.completeUploadExternal" in said
    assert "[REDACTED]" in said


def test_no_credential_reaches_the_llm(sinks: Sinks) -> None:
    assert len(sinks.llm) >= 2, "the review never called its tools"
    texts = [json.dumps(request) for request in sinks.llm]
    assert leaked(texts) == {}
    tools = [m["content"] for m in sinks.llm[-1]["messages"] if m["role"] == "tool"]
    assert len(tools) == 4
    logs, rollouts, events, _ = tools
    assert MARK in logs and logs.count("[REDACTED]") >= len(SHAPED), logs[:2000]
    assert "max-num-seqs" in rollouts and "DB_PASSWORD [REDACTED]" in rollouts, rollouts[:2000]
    assert "Readiness probe failed" in events and "[REDACTED]" in events, events[:2000]
    user = next(m["content"] for m in sinks.llm[0]["messages"] if m["role"] == "user")
    assert "More than 3% fail." in user and "dsn" in user and "[REDACTED]" in user


def test_no_credential_reaches_the_postmortem(sinks: Sinks) -> None:
    texts = [sinks.markdown, json.dumps(sinks.draft)]
    assert leaked(texts) == {}
    assert "# Postmortem draft" in sinks.markdown and "max-num-seqs back to 128" in sinks.markdown
    assert "[REDACTED]" in sinks.markdown and sinks.draft["evidence"]


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("retry failed (token=abc123def)", "retry failed (token=[REDACTED])"),
        ("HF_TOKEN=hf_x DB_PASSWORD=hunter2", "HF_TOKEN=[REDACTED] DB_PASSWORD=[REDACTED]"),
        ('{"password": "s3cr3t", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
        ("env DB_PASSWORD hunter2 → hunter3", "env DB_PASSWORD [REDACTED] → [REDACTED]"),
        ("--api-key removed (was abc123)", "--api-key removed (was [REDACTED])"),
        (
            "~ spec.containers[vllm].env[DB_PASSWORD].value: old1 → new1",
            "~ spec.containers[vllm].env[DB_PASSWORD].value: [REDACTED] → [REDACTED]",
        ),
        (
            "~ args[13]: old1 → new1 (after --api-key)",
            "~ args[13]: [REDACTED] → [REDACTED] (after --api-key)",
        ),
        ("postgresql://app:p@ss@pg:5432/db", "postgresql://app:[REDACTED]@pg:5432/db"),
        ("GET /x?token=abc&api_key=def&page=2", "GET /x?token=[REDACTED]&api_key=[REDACTED]&page=2"),
        (
            "key -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY----- read",
            "key [REDACTED] read",
        ),
        ("{'name': 'DB_PASSWORD', 'value': 'hunter2'}", "{'name': 'DB_PASSWORD', 'value': '[REDACTED]'}"),
    ],
)
def test_redaction_keeps_the_line_readable(raw: str, kept: str) -> None:
    assert redact(raw) == kept


@pytest.mark.parametrize(
    "line",
    [
        "INFO 06-01 10:00:00 metrics: max_tokens=512 num_tokens: 4 prompt_tokens=80",
        "vllm serve --max-num-batched-tokens 8192 --tokenizer-mode mistral",
        "WARNING invalid token received from client; closing stream",
        "~ spec.template.spec.containers[vllm].args[11]: 128 → 512 (after --max-num-seqs)",
    ],
)
def test_evidence_without_credentials_is_untouched(line: str) -> None:
    """Serving logs talk about tokens all the time: none of that is a credential."""
    assert redact(line) == line
