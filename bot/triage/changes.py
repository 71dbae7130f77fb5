"""What a rollout changed, in the words that decide whether it can have caused the incident.

A rollout is a cause only through what it changed. A new checkpoint, revision, tokenizer or chat
template, quantization or dtype, engine image or parallelism changes what the model computes; an
engine setting (batch size, memory share, context length) changes how much it takes on; a log level,
a tracing endpoint, labels or probes change neither. The template diff (tools/templates.py) says each
change in one line ("--max-num-seqs 128 → 512", "image a → b", "env VLLM_LOGGING_LEVEL INFO → DEBUG");
this module sorts those lines.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Change(StrEnum):
    ARTIFACT = "model artifact"
    REVISION = "model revision"
    TOKENIZER = "tokenizer or chat template"
    QUANTIZATION = "quantization or dtype"
    IMAGE = "engine image"
    PARALLELISM = "parallelism"
    ENGINE_CONFIG = "engine setting"
    RESOURCES = "resources"
    UNRELATED = "unrelated (logging, tracing, metadata)"


# The changes that alter what the model computes: a model rollout.
MODEL_CHANGES = frozenset(
    {
        Change.ARTIFACT,
        Change.REVISION,
        Change.TOKENIZER,
        Change.QUANTIZATION,
        Change.IMAGE,
        Change.PARALLELISM,
    }
)
# The changes that can make a healthy engine fail under the same load: worth rolling back.
RISKY_CHANGES = MODEL_CHANGES | {Change.ENGINE_CONFIG, Change.RESOURCES}

_FLAG = re.compile(r"^(--[A-Za-z0-9][\w.-]*)")
_ENV = re.compile(r"^env (\S+)")
_KINDS: list[tuple[Change, re.Pattern[str]]] = [
    (Change.TOKENIZER, re.compile(r"^--(tokenizer(-\w+)*|chat-template(-\w+)*|tokenizer-config-path)$")),
    (Change.QUANTIZATION, re.compile(r"^--(quantization|quantize|dtype|kv-cache-dtype|load-format)$")),
    (Change.REVISION, re.compile(r"^--(revision|code-revision|model-revision)$")),
    (
        Change.PARALLELISM,
        re.compile(
            r"^--(tensor-parallel-size|tp|tp-size|pipeline-parallel-size|pp|pp-size|data-parallel-size|dp"
            r"|num-shard|sharded|enable-expert-parallel|world-size)$"
        ),
    ),
    (
        Change.ARTIFACT,
        re.compile(
            r"^--(model|model-id|model-path|model-repository|model-name|weights|checkpoint|hf-overrides)$"
        ),
    ),
]
_ENV_KINDS: list[tuple[Change, re.Pattern[str]]] = [
    (Change.UNRELATED, re.compile(r"(LOG|LOGGING|VERBOSE|DEBUG|TRACE|TRACING|OTEL|SENTRY|PROFIL)", re.I)),
    (Change.TOKENIZER, re.compile(r"(TOKENIZER|CHAT_TEMPLATE)", re.I)),
    (Change.QUANTIZATION, re.compile(r"(QUANTIZ|DTYPE)", re.I)),
    (Change.REVISION, re.compile(r"REVISION", re.I)),
    (
        Change.ARTIFACT,
        re.compile(r"^(MODEL|MODEL_ID|MODEL_PATH|MODEL_NAME|HF_MODEL\w*|CHECKPOINT\w*)$", re.I),
    ),
]
_UNRELATED_FLAGS = re.compile(
    r"^--(log-level|uvicorn-log-level|disable-log-requests|disable-log-stats|enable-log-requests|"
    r"log-requests|otlp-traces-endpoint|collect-detailed-traces|json-output|served-model-name)$"
)


_SIDECAR = re.compile(r"^container [^:\s]+: ")


def classify(line: str) -> Change:
    """The kind of one change line of the template diff; a sidecar's change (`container x: ...`)
    never changes the model, though it can break the serving path."""
    text = line.strip()
    sidecar = _SIDECAR.match(text)
    if sidecar:
        inner = classify(text[sidecar.end() :])
        return inner if inner in (Change.UNRELATED, Change.RESOURCES) else Change.ENGINE_CONFIG
    if text.startswith(("restart (", "template annotation ", "template label ")):
        return Change.UNRELATED  # a restart or the template's metadata: the same model, the same engine
    if text.startswith("image "):
        return Change.IMAGE
    if text.startswith(("limits.", "requests.")):
        return Change.RESOURCES
    if text.startswith("container ") and "added" in text:
        return Change.ENGINE_CONFIG
    env = _ENV.match(text)
    if env:
        return next((kind for kind, p in _ENV_KINDS if p.search(env.group(1))), Change.ENGINE_CONFIG)
    flag = _FLAG.match(text)
    if flag:
        name = flag.group(1)
        if _UNRELATED_FLAGS.match(name):
            return Change.UNRELATED
        return next((kind for kind, p in _KINDS if p.match(name)), Change.ENGINE_CONFIG)
    if text.startswith("arg"):  # a positional argument (often the model, for `vllm serve MODEL`)
        return Change.ARTIFACT
    return Change.ENGINE_CONFIG


def kinds(changes: str) -> set[Change]:
    """The kinds of a rollout's changes (its `changes` label: lines joined by " | ")."""
    lines = [c for c in changes.split(" | ") if c.strip() and c.strip() != "first revision"]
    return {classify(c) for c in lines}
