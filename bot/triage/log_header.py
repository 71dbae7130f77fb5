"""The header an emitter's logger writes before a message: when, how severe, which process, where.

`I1207 15:42:03.123456 1 model_lifecycle.cc:756] failed to load 'llama'` (klog, glog: Triton,
kubelet), `ERROR 12-07 15:42:03 [engine.py:123] …` (vLLM), `(EngineCore_DP0 pid=7) …` (Ray and
vLLM's worker processes), `2024-02-09T09:28:45.021427Z ERROR text_generation_router::server:
router/src/server.rs:123: …` (TGI), `2026-12-07 15:42:03,123 - app.server - ERROR - …` (Python's
logging), `[12/05/2025-09:20:41] [TRT-LLM] [E] …` (TensorRT-LLM): the same failure reaches the bot
with or without one, since a thread quotes a line trimmed and a pod's log holds it whole.

A rule written for the bare message (`^KeyError: 'gemma3n'$`) is tried on the message without
its header when no rule matched the whole line (attribution.py); a rule that needs the header (one
naming a source file the header holds, as Milvus's `[session_util.go:123]`) matched the whole line
first. The learned stage reads the header: without it, the model answered a fifth fewer lines
out of fold (docs/attribution-corpus.md). A bracketed tag such as `[TRT-LLM]` is kept: it says
which emitter wrote the line.
"""

from __future__ import annotations

import re

_LEVELS = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERR(?:OR)?|CRIT(?:ICAL)?|FATAL|PANIC|SEVERE)"
# Each piece with the separator its format writes after it, and only that one: a "- " or ":" the
# message itself begins with is the message's.
_PIECES = "|".join(
    (
        r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: [A-Z]{2}\d+)+\]",  # SGLang's [time TP0]
        r"[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\s\]]+:\d+\]",  # klog / glog
        r"\[?\d{4}[-/.]\d\d[-/.]\d\d(?:[ T_-]|, ?)\d\d:\d\d:\d\d(?:[.,:]\d+)?(?: ?(?:Z|UTC|[+-]\d\d:?\d\d))?\]?:?"
        r"(?:[ \t]+[-|](?=[ \t]))?",  # Python's "%(asctime)s - ", loguru's "<time> | "
        r"\[?\d\d[-/]\d\d(?:[-/]\d{2,4})?[ T-]\d\d:\d\d:\d\d(?:[.,]\d+)?\]?",  # vLLM's 12-07 15:42:03
        r"\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?:?",
        r"\[\d{10}(?:\.\d+)?\]",  # llama.cpp's epoch seconds
        rf"\[{_LEVELS}\]|\[[IWEFD]\]|[IWEF](?= [^\s\]]+:\d+\])",
        rf"{_LEVELS}(?=[\s:\]|])(?::|[ \t]+[-|](?=[ \t]))?",  # "ERROR:    …", "ERROR - …"
        r"\([^()\n]{0,80}\bpid=\d+[^()\n]{0,60}\)",  # Ray's and vLLM's process tag
        r"\[?[\w./<>-]+\.(?:py|go|cc|cpp|cxx|c|h|hpp|rs|java|kt|js|ts|cu):\d+(?::\d+)?\]?:?|\[[\w./-]+:\d+\]",
        # a Rust target: text_generation_router::server, or one word before a .rs location
        r"[a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)+:|[a-z_][a-z0-9_]*:(?= [\w/.-]+\.rs:\d+)",
        rf"[\w.]+[ \t]+-(?=[ \t]+{_LEVELS}\b)",  # Python's "%(name)s - %(levelname)s"
        r"[\w.]+:[\w<>]+:\d+[ \t]+-(?=[ \t])",  # loguru's "module:function:line - "
    )
)
_PIECE = re.compile(rf"(?:{_PIECES})[ \t]*")
# A header says when, how severe or which process; a piece that is only a name tells nothing.
_TELLING = re.compile(rf"\d|pid=|{_LEVELS}|\[[IWEFD]\]")
HEADER_CHARS = 200  # no header is longer; a message is not read past this for one


def strip_header(message: str) -> str:
    """The message without its logger's header (the message itself when it has none)."""
    pos = end = 0  # end: after the last piece that tells something; a name after it is the message's
    limit = min(len(message), HEADER_CHARS)
    while pos < limit:
        m = _PIECE.match(message, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
        if _TELLING.search(m.group()):
            end = pos
    rest = message[end:]
    return rest if rest.strip() else message
