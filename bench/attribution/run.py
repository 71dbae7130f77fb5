"""Benchmark of the attribution engine: error lines per second on one core.

The lines are the rules' own examples mixed with everyday lines that match nothing (access logs,
engine metrics lines), so both the match path and the prefilter's reject path are timed.

    .venv/bin/python bench/attribution/run.py [--lines N] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from bot.triage.attribution import Attributor
from bot.triage.taxonomy import default_taxonomy

NOISE = [
    'INFO:     10.42.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO 06-01 09:57:00 [metrics.py:455] Avg prompt throughput: 1024.3 tokens/s, Avg generation "
    "throughput: 812.9 tokens/s, Running: 31 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: "
    "71.2%, CPU KV cache usage: 0.0%.",
    "[2026-06-01 09:57:01 TP0] Decode batch. #running-req: 12, #token: 5012, token usage: 0.35, "
    "gen throughput (token/s): 1200.00, #queue-req: 0",
]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    attributor = Attributor.load(default_taxonomy())
    sample = [e for r in attributor.rules for e in r.examples] + NOISE * 20
    lines = (sample * (args.lines // len(sample) + 1))[: args.lines]
    rates = []
    for _ in range(args.runs):
        started = time.perf_counter()
        for line in lines:
            attributor.attribute(line)
        rates.append(len(lines) / (time.perf_counter() - started))
    print(
        f"attribution: {len(lines)} lines, {len(attributor.rules)} rules, median of {args.runs} runs: "
        f"{statistics.median(rates):,.0f} lines/s (min {min(rates):,.0f}, max {max(rates):,.0f})"
    )


if __name__ == "__main__":
    main()
