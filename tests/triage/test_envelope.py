"""A line reads the same however it was shipped: the envelopes of container runtimes, syslog,
journald, JSON loggers and logfmt come off; a rule written for a bare message still finds it behind
its logger's header.

The property tests wrap every train and dev line of the corpus the way a cluster's shippers do and
assert the attribution does not move (before envelope.py, a TGI-style JSON record lost 63 of the
1,020 dev lines the bare line got right)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.attribution.envelopes import HEADERS, SHIPPERS
from bot.triage.attribution import Attributor
from bot.triage.corpus import load_corpus
from bot.triage.envelope import unwrap
from bot.triage.knowledge import Knowledge
from bot.triage.lines import message_of, read_line
from bot.triage.log_header import strip_header

CORPUS = Path(__file__).with_name("corpus") / "real_lines.tsv"
LINES = [r.line for r in load_corpus(CORPUS) if r.split in ("train", "dev")]


@pytest.fixture(scope="module")
def attributor() -> Attributor:
    return Knowledge.load().attributor


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("2026-12-07T15:42:03.123456789Z stderr F CUDA out of memory", "CUDA out of memory"),
        ("2026-12-07T15:42:03.1+01:00 stdout P partial line", "partial line"),
        ("Dec 07 15:42:03 node-3 kernel: NVRM: Xid (PCI:0000:3b:00): 79", "NVRM: Xid (PCI:0000:3b:00): 79"),
        ("<3>Dec  7 15:42:03 node-3 kubelet: Node not ready", "Node not ready"),
        ('{"log":"engine dead\\n","stream":"stderr","time":"2026-12-07T15:42:03Z"}', "engine dead"),
        (
            '{"level":"error","ts":1.7e9,"caller":"x.go:1","msg":"load failed","error":"no such file"}',
            "load failed | no such file",
        ),
        (
            '{"timestamp":"t","level":"WARN","fields":{"message":"slow","error":"reset"},"target":"r"}',
            "slow | reset",
        ),
        (
            'level=error msg="upstream said \\"503\\"" err="EOF" limit=2048',
            'upstream said "503" | EOF | limit=2048',
        ),
        ('time="2019-04-27T16:58:24Z" level=info msg="apply failure"', "apply failure"),
    ],
)
def test_an_envelope_comes_off(line: str, message: str) -> None:
    assert unwrap(line) == message


@pytest.mark.parametrize(
    "line",
    [
        '{"error":{"message":"This model\'s maximum context length is 4096 tokens","type":"invalid_request_error"}}',
        '{"detail":"Not Found"}',
        "max_model_len=40960 is larger than the derived max_model_len=32768",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "Dec is the month the cache filled",
        "{not json at all",
        "",
    ],
)
def test_a_payload_or_a_bare_message_is_read_as_it_is(line: str) -> None:
    """An error body is not a log record (no level or time beside its message): rules read it whole."""
    assert unwrap(line) == line.strip()


def test_a_file_of_json_lines_may_hold_a_bare_message_field() -> None:
    assert message_of('{"message": "queue is full"}') == "queue is full"
    text, at = read_line(
        '{"@timestamp": "2026-12-07T15:42:03Z", "message": "2026-12-07T15:42:03Z stderr F x"}'
    )
    assert text == "x"
    assert at is not None and at.isoformat().startswith("2026-12-07T15:42:03")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "I1220 01:42:33.998279 100348 model_lifecycle.cc:756] failed to load 'tensorrt_llm'",
            "failed to load 'tensorrt_llm'",
        ),
        ("ERROR 12-07 15:42:03 [engine.py:123] CUDA out of memory", "CUDA out of memory"),
        ("(VllmWorker rank=0 pid=9) WARNING 12-07 15:42:03 [utils.py:1] NCCL timeout", "NCCL timeout"),
        ("2024-02-09T09:28:45.02Z  WARN text_generation_router: router/src/main.rs:245: no tag", "no tag"),
        (
            "2019-12-23 16:13:40.451220: W tensorflow/core/framework/allocator.cc:107] Allocation",
            "Allocation",
        ),
        ("[12/05/2025-09:20:41] [TRT-LLM] [E] Health check failed", "[TRT-LLM] [E] Health check failed"),
        ("[1704891429] unexpected error in llama server", "unexpected error in llama server"),
        ("ERROR:    Exception in ASGI application", "Exception in ASGI application"),
    ],
)
def test_a_loggers_header_comes_off(line: str, message: str) -> None:
    assert strip_header(line) == message


@pytest.mark.parametrize(
    "line",
    [
        "std::io::Error: connection reset by peer",
        "RuntimeError: CUDA error: out of memory",
        "ERROR",
        "model.safetensors not found",
        "ValueError: max_tokens must be at least 1",
    ],
)
def test_a_message_without_a_header_is_left_whole(line: str) -> None:
    assert strip_header(line) == line


@pytest.mark.parametrize("shipper", SHIPPERS)
def test_every_corpus_line_is_attributed_the_same_however_it_was_shipped(
    shipper: str, attributor: Attributor
) -> None:
    wrap = SHIPPERS[shipper]
    moved = [
        (line[:80], bare.code, shipped.code)
        for line in LINES
        if (bare := attributor.attribute(line)) != (shipped := attributor.attribute(wrap(line)))
    ]
    assert not moved, f"{len(moved)} of {len(LINES)} lines moved under {shipper}: {moved[:5]}"


@pytest.mark.parametrize("header", HEADERS)
def test_every_corpus_line_has_the_same_body_under_a_loggers_header(header: str) -> None:
    """What a rule is tried on when none matched the headed line: the header comes off whole, and a
    message's own beginning ("- ReadTimeout", ":infer:") stays."""
    add = HEADERS[header]  # the header is the logger's: inside whatever envelope shipped the line
    moved = [line[:80] for line in LINES if strip_header(add(unwrap(line))) != strip_header(unwrap(line))]
    assert not moved, (
        f"{len(moved)} of {len(LINES)} lines read differently under a {header} header: {moved[:5]}"
    )


def test_a_rule_written_for_the_bare_message_matches_it_under_a_header(attributor: Attributor) -> None:
    bare = attributor.attribute("KeyError: 'gemma3n'")
    assert bare.stage == "rule"
    for add in HEADERS.values():
        got = attributor.attribute(add("KeyError: 'gemma3n'"))
        assert (got.code, got.rule) == (bare.code, bare.rule)
