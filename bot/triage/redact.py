"""Redact secrets from text before it leaves the bot: to a model, a Slack message, a postmortem.

One home for every sink. Credentials are found by their shape (a Slack or GitHub token, a private
key, a JWT, a URL's password) and by the name they go under (`password=`, `"api_key": "..."`,
`HF_TOKEN hf_... → hf_...` in a rollout's diff), in plain text and in JSON text alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

REDACTED = "[REDACTED]"
# What a credential is called: a key, an env variable, a header, a flag (HF_TOKEN, db-password).
_SECRET_WORD = (
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|credentials?|authorization|auth|cookie|session[_-]?id|signature)"
)
SECRET_NAME = re.compile(
    rf"(?i)(?:^|[^a-z0-9])(?:[a-z0-9]{{1,64}}[_.\-/]){{0,8}}{_SECRET_WORD}$|^{_SECRET_WORD}$"
)
# Bounded repeats keep every rule linear in the text, whatever it holds (a long dotted path, a blob).
_PREFIX = r"(?:[A-Za-z0-9]{1,64}[_.\-/]){0,8}"
_NAME = rf"(?<![A-Za-z0-9]){_PREFIX}{_SECRET_WORD}(?![A-Za-z0-9])"
# A value: quoted (JSON-escaped quotes inside too), or a bare word up to a separator.
_VALUE = r"(?:\\?\"(?:[^\"\\]|\\[^\"])*\\?\"|'[^']*'|[^\s,;&\"'<>|`]+)"
_ARROW = r"(?:\s*(?:→|\\u2192|->)\s*)"
_CLOSERS = {")": "(", "]": "[", "}": "{"}

_SHAPES: list[re.Pattern[str]] = [
    re.compile(
        r"-----BEGIN[A-Z ]{0,32}PRIVATE KEY-----"
        r"(?:[\s\S]{0,8192}?-----END[A-Z ]{0,32}PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]{0,8192})"
    ),
    re.compile(r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{6,}"),
    re.compile(r"\bxapp-[A-Za-z0-9-]{6,}"),
    re.compile(r"\bsk-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_-]{12,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bhf_[A-Za-z0-9]{20,}"),
]
# `scheme://user:password@host`: the password goes, the user stays (the last @ ends it).
_URL_PASSWORD = re.compile(r"(?i)(://[^/\s:@<>|]{1,128}:)([^\s/?#<>|]{0,256})(@)")
# `{"name": "DB_PASSWORD", "value": "..."}`: an env entry or a header, as JSON or Python shows it.
_NAMED_ENTRY = re.compile(
    rf"""(?i)(["']name["']\s*:\s*["']{_NAME}["']\s*,\s*["']value["']\s*:\s*)({_VALUE})"""
)
# `password=x`, `"api_key": "x"`, `token: x`, `?access_token=x&`: a name, a separator, a value.
_KEYED = re.compile(rf"""(?i){_NAME}\\?["']?\s*[=:]\s*(?P<v>{_VALUE})(?P<a>{_ARROW}{_VALUE})?""")
# `env[DB_PASSWORD].value: x → y`, `args[13]: x → y (after --api-key)`: an object's diff, by path.
_INDEXED = re.compile(
    rf"""(?i)\[["']?{_NAME}["']?\](?:\.value)?\s*[=:]\s*(?P<v>{_VALUE})(?P<a>{_ARROW}{_VALUE})?"""
)
_ARG = r"[^\s:()]{1,512}"
_AFTER_FLAG = re.compile(
    rf"""(?i):\s*(?P<v>{_ARG})(?P<a>{_ARROW}{_ARG})?(?=\s*\(after\s+--?{_PREFIX}{_SECRET_WORD}\))"""
)
# `HF_TOKEN hf_x → hf_y`, `--api-key added x`, `db-password removed (was x)`: a name that reads
# as one (capitals, or joined by _ - . /), then a space and the value (a diff's line).
_SPACED = re.compile(
    rf"""((?<![A-Za-z0-9])(?i:(?:--?)?(?:[A-Za-z0-9]{{1,64}}[_.\-/]){{1,8}}{_SECRET_WORD})(?![A-Za-z0-9])"""
    rf"""|(?<![A-Za-z0-9])(?i:--?{_SECRET_WORD})(?![A-Za-z0-9])"""
    rf"""|\b[A-Z_]{{0,64}}(?:PASSWORD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|CREDENTIALS?)\b)"""
    rf"""\s+(?:added\s+|removed\s+\(was\s+|was\s+)?(?P<v>{_VALUE})(?P<a>{_ARROW}{_VALUE})?"""
)


def _give_back(value: str) -> tuple[str, str]:
    """Closing brackets and quotes that end a bare value without opening in it belong to the text
    around it: `(token=abc)` keeps its `)`."""
    tail = ""
    while (
        value
        and len(tail) < 4
        and (
            (value[-1] in _CLOSERS and _CLOSERS[value[-1]] not in value[:-1])
            or (value[-1] in "\"'" and value.count(value[-1]) == 1)
        )
    ):
        tail, value = value[-1] + tail, value[:-1]
    return value, tail


def _hide(value: str) -> str:
    """A value replaced, its quotes and trailing unopened brackets kept."""
    value, tail = _give_back(value)
    if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
        return value[0] + REDACTED + value[-1] + tail
    if value.startswith('\\"') and value.endswith('\\"'):
        return '\\"' + REDACTED + '\\"' + tail
    return (REDACTED if value else "") + tail


def _pair(match: re.Match[str]) -> str:
    """The name and separator kept, the value `v` (and the value `a` after a diff's arrow) hidden."""
    start, end = match.start(), match.end()
    text, value, after = match.string, match.group("v"), match.group("a")
    out = text[start : match.start("v")] + _hide(value)
    if after:
        arrow = re.match(_ARROW, after)
        assert arrow is not None
        out += arrow.group(0) + _hide(after[arrow.end() :])
    return out + text[match.end("a") if after else match.end("v") : end]


_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    *((p, lambda m: REDACTED) for p in _SHAPES),
    (_URL_PASSWORD, lambda m: m.group(1) + REDACTED + m.group(3)),
    (_NAMED_ENTRY, lambda m: m.group(1) + _hide(m.group(2))),
    (_KEYED, _pair),
    (_INDEXED, _pair),
    (_AFTER_FLAG, _pair),
    (_SPACED, _pair),
]


def redact(text: str) -> str:
    """Replace credentials with [REDACTED], keeping the key names so the line still reads."""
    for pattern, replace in _RULES:
        text = pattern.sub(replace, text)
    return text


def redact_value(value: Any, *, key: str = "") -> Any:
    """A JSON-like value with every string redacted, and every value under a secret's name (a key,
    or the `name` of a `{"name": ..., "value": ...}` entry) hidden whole."""
    if isinstance(value, str):
        return REDACTED if key and value and SECRET_NAME.search(key) else redact(value)
    if isinstance(value, list | tuple):
        return [redact_value(item) for item in value]
    if isinstance(value, dict):
        named = value.get("name")
        if isinstance(named, str) and isinstance(value.get("value"), str) and SECRET_NAME.search(named):
            return {**{k: redact_value(v, key=str(k)) for k, v in value.items()}, "value": REDACTED}
        return {k: redact_value(v, key=str(k)) for k, v in value.items()}
    return value


def redact_json(text: str) -> str:
    """JSON text redacted by its structure (keys, env entries) and its strings; other text as text."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return redact(text)
    if not isinstance(parsed, dict | list):
        return redact(text)
    return redact(json.dumps(redact_value(parsed), indent=1 if "\n" in text else None, default=str))


_FRAMING = re.compile(r"<(/?)(data)\b", re.I)


def framed(text: str) -> str:
    """Text from the systems under investigation, ready to sit between <data> and </data>: secrets
    redacted, and any framing tag inside it neutralised so that it cannot close the frame early."""
    return _FRAMING.sub(lambda m: f"&lt;{m.group(1)}{m.group(2)}", redact_json(text))
