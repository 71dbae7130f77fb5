"""Redact secrets from text before it reaches a model (or a Slack message)."""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"
PATTERNS = [
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{6,}"),
    re.compile(r"\bxapp-[A-Za-z0-9-]{6,}"),
    re.compile(r"\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{12,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bhf_[A-Za-z0-9]{20,}"),
    re.compile(
        r"(?i)(\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|authorization)\b\s*[=:]\s*)"
        r"(\"[^\"]*\"|'[^']*'|[^\s,;&]+)"
    ),
    re.compile(r"(?i)(://[^/\s:@]+:)([^@\s/]+)(@)"),
]


def redact(text: str) -> str:
    """Replace credentials with [REDACTED], keeping the key names so the line still reads."""
    for pattern in PATTERNS:
        if pattern.groups >= 2:
            text = pattern.sub(
                lambda m: m.group(1) + REDACTED + (m.group(3) if m.re.groups >= 3 else ""), text
            )
        else:
            text = pattern.sub(REDACTED, text)
    return text


_FRAMING = re.compile(r"<(/?)(data)\b", re.I)


def framed(text: str) -> str:
    """Text from the systems under investigation, ready to sit between <data> and </data>: secrets
    redacted, and any framing tag inside it neutralised so that it cannot close the frame early."""
    return _FRAMING.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", redact(text))
