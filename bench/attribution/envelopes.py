"""How the attribution of the corpus moves when its lines come the way a cluster ships them.

A thread quotes a line trimmed; a pod's log, a CRI file, journald or a JSON logger hands it over
whole. Each corpus line is wrapped in one shipper's envelope (`SHIPPERS`) or given one logger's
header (`HEADERS`, inside whatever envelope it had), and attributed again, rules with the learned
stage. Printed per wrapping: the lines whose code moved, and the right answers lost and gained
against the bare line. tests/triage/test_envelope.py asserts that no shipper moves a train or dev
line, and that the learned stage reads every line the same under each header.

    .venv/bin/python bench/attribution/envelopes.py [--split test]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from bot.triage.corpus import SPLITS, load_corpus
from bot.triage.envelope import unwrap
from bot.triage.knowledge import Knowledge

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "triage" / "corpus" / "real_lines.tsv"


def _logfmt(message: str) -> str:
    quoted = message.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'time=2026-12-07T15:42:03.120Z level=ERROR source=server.go:449 msg="{quoted}"'


def _json(**fields: object) -> str:
    return json.dumps(fields)


SHIPPERS: dict[str, Callable[[str], str]] = {
    "containerd's CRI file": lambda m: f"2026-12-07T15:42:03.123456789Z stderr F {m}",
    "syslog": lambda m: f"Dec  7 15:42:03 gpu-node-1 kubelet[1234]: {m}",
    "journald short-iso": lambda m: f"2026-12-07T15:42:03+0000 gpu-node-1 ollama[77]: {m}",
    "RFC 5424": lambda m: f'<11>1 2026-12-07T15:42:03Z gpu-node-1 vllm 7 - [meta seq="1"] {m}',
    "Docker json-file": lambda m: _json(log=m + "\n", stream="stderr", time="2026-12-07T15:42:03Z"),
    "tracing JSON (TGI)": lambda m: _json(
        timestamp="2026-12-07T15:42:03Z", level="ERROR", fields={"message": m}, target="router"
    ),
    "OpenTelemetry": lambda m: _json(body=m, severity_text="ERROR", resource={"service.name": "x"}),
    "structlog": lambda m: _json(event=m, level="error", timestamp="2026-12-07T15:42:03Z"),
    "logfmt (slog)": _logfmt,
    "JSON inside CRI inside syslog": lambda m: (
        "Dec  7 15:42:03 gpu-node-1 containerd[9]: "
        "2026-12-07T15:42:03.1Z stdout F " + _json(level="error", msg=m)
    ),
}

HEADERS: dict[str, Callable[[str], str]] = {
    "klog": lambda m: f"E1207 15:42:03.123456       1 server.cc:123] {m}",
    "vLLM": lambda m: f"(EngineCore_DP0 pid=10311) ERROR 12-07 15:42:03 [core.py:512] {m}",
    "Python logging": lambda m: f"2026-12-07 15:42:03,123 - app.server - ERROR - {m}",
    "TGI": lambda m: (
        f"2026-12-07T15:42:03.021427Z ERROR text_generation_router::server: router/src/server.rs:42: {m}"
    ),
    "SGLang": lambda m: f"[2026-12-07 15:42:03 DP0 TP3] {m}",
    "Go's log": lambda m: f"2026/12/07 15:42:03 llama.go:459: {m}",
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="test")
    args = parser.parse_args()
    rows = [r for r in load_corpus(CORPUS) if args.split in ("all", r.split)]
    attribute = Knowledge.load().attributor.attribute
    bare = [attribute(r.line).code for r in rows]
    right = sum(got == r.code for got, r in zip(bare, rows, strict=True))
    print(f"{args.split} split: {len(rows)} lines, {right} given their code bare")
    print("| wrapping | lines moved | right lost | right gained |")
    print("|---|---|---|---|")
    wrappings = [*SHIPPERS.items(), *((f"{k} header", _inside(v)) for k, v in HEADERS.items())]
    for name, wrap in wrappings:
        moved = lost = gained = 0
        for row, before in zip(rows, bare, strict=True):
            after = attribute(wrap(row.line)).code
            if after != before:
                moved += 1
                lost += before == row.code
                gained += after == row.code
        print(f"| {name} | {moved} | {lost} | {gained} |")


def _inside(add: Callable[[str], str]) -> Callable[[str], str]:
    """A logger's header goes on the message, inside the envelope that shipped it."""
    return lambda line: add(unwrap(line))


if __name__ == "__main__":
    main()
