"""What an exported pack must never carry: credentials, and what users sent or were sent.

Every text value of every file passes through here. Credentials are found by the patterns the
triage already redacts before a model sees text (bot.triage.redact), and by the name they go
under (`HF_TOKEN`, `api-key`, an `Authorization` header); prompts, completions and request or
response bodies are replaced whole by a fixed marker, whatever they hold.
"""

from __future__ import annotations

import re
from typing import Any

from bot.triage.redact import REDACTED, redact

USER_CONTENT = "[USER CONTENT REMOVED]"
# Field names (the last segment of a dotted or nested key) whose values are what users sent or
# were sent: OpenAI-style requests and answers, and the HTTP bodies ECS and shippers record.
USER_CONTENT_FIELDS = frozenset(
    {
        "prompt",
        "prompts",
        "completion",
        "completions",
        "messages",
        "input",
        "inputs",
        "output",
        "outputs",
        "body",
        "request_body",
        "response_body",
        "query_text",
    }
)
# A key or an env/header name that says its value is a credential.
SECRET_NAME = re.compile(
    r"(?i)(password|passwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|authorization|cookie)"
)
# Kubernetes bookkeeping that is no evidence; the last applied configuration repeats the whole
# spec, env values included.
DROPPED_METADATA = ("managedFields", "resourceVersion", "selfLink")
DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def text(value: str) -> str:
    """One text value with its credentials replaced (the key names kept so the line still reads)."""
    return redact(value)


def is_user_content(key: str) -> bool:
    return key.rsplit(".", 1)[-1].lower() in USER_CONTENT_FIELDS


def scrub(value: Any, *, key: str = "") -> Any:
    """A JSON-like value with every string redacted, user content replaced, secret-named values
    hidden; `key` is the name the value sits under."""
    if key and is_user_content(key):
        return USER_CONTENT
    if isinstance(value, str):
        return REDACTED if key and SECRET_NAME.search(key) and value else text(value)
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, dict):
        named = value.get("name")
        if isinstance(named, str) and isinstance(value.get("value"), str) and SECRET_NAME.search(named):
            # an env entry or a header: {"name": "HF_TOKEN", "value": "..."}
            return {**{k: scrub(v, key=k) for k, v in value.items() if k != "value"}, "value": REDACTED}
        return {k: scrub(v, key=str(k)) for k, v in value.items()}
    return value


def kube_object(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A Kubernetes object fit for a pack, or None for one never exported (a Secret)."""
    if obj.get("kind") == "Secret":
        return None
    metadata = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in DROPPED_METADATA}
    annotations = {
        k: v for k, v in (metadata.get("annotations") or {}).items() if k not in DROPPED_ANNOTATIONS
    }
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    cleaned = scrub({**obj, "metadata": metadata})
    assert isinstance(cleaned, dict)
    return cleaned
