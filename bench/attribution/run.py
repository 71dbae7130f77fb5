"""Benchmark of attribution, both stages together: error lines per second on one core.

First one pass over the corpus by a freshly loaded attributor (`cold`: the learned stage has seen no
word yet). Then three mixes, each timed over the same number of lines:
- `corpus`: the real-wording corpus (every line distinct, most of them long; the lines no rule
  matches go through the learned stage), the hardest case;
- `storm`: what a storm looks like in a log index: a few dozen distinct problem lines repeated,
  mixed with everyday lines that match nothing (access logs, engine metrics);
- `examples`: the rules' own examples and the everyday lines (the match path and the reject path).

Then the slowest single line: every rule's examples behind 16,000 characters of filler (letters,
digits, dashes, spaces), the shape that makes a pattern with a greedy run of word characters or
digits before its literal backtrack over the whole line. One such line must not stall a batch.

    .venv/bin/python bench/attribution/run.py [--lines N] [--runs N] [--no-model]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from bot.triage.corpus import load_corpus
from bot.triage.knowledge import Knowledge

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "triage" / "corpus" / "real_lines.tsv"
NOISE = [
    'INFO:     10.42.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "INFO 06-01 09:57:00 [metrics.py:455] Avg prompt throughput: 1024.3 tokens/s, Avg generation "
    "throughput: 812.9 tokens/s, Running: 31 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: "
    "71.2%, CPU KV cache usage: 0.0%.",
    "[2026-06-01 09:57:01 TP0] Decode batch. #running-req: 12, #token: 5012, token usage: 0.35, "
    "gen throughput (token/s): 1200.00, #queue-req: 0",
]


def mixes(knowledge: Knowledge, n: int) -> dict[str, list[str]]:
    rng = random.Random(7)
    corpus = [r.line for r in load_corpus(CORPUS)]
    problems = rng.sample(corpus, 40)
    storm = [rng.choice(problems) if rng.random() < 0.4 else rng.choice(NOISE) for _ in range(n)]
    examples = [e for r in knowledge.attributor.rules for e in r.examples] + NOISE * 20
    return {
        "corpus": (corpus * (n // len(corpus) + 1))[:n],
        "storm": storm,
        "examples": (examples * (n // len(examples) + 1))[:n],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-model", action="store_true", help="rules only (the learned stage off)")
    args = parser.parse_args()
    knowledge = Knowledge.load(model=None) if args.no_model else Knowledge.load()
    attributor = knowledge.attributor
    stages = "rules only" if args.no_model else "rules + learned stage"
    print(
        f"attribution ({stages}): {len(attributor.rules)} rules, {args.lines} lines a run, median of {args.runs}"
    )
    distinct = list(dict.fromkeys(r.line for r in load_corpus(CORPUS)))
    took = cold_pass(args.no_model, distinct)
    print(f"  {'cold':<9} {len(distinct) / took:>8,.0f} lines/s (the corpus once, every cache empty)")
    for name, lines in mixes(knowledge, args.lines).items():
        rates = []
        for _ in range(args.runs):
            started = time.perf_counter()
            for line in lines:
                attributor.attribute(line)
            rates.append(len(lines) / (time.perf_counter() - started))
        answered = Counter(attributor.attribute(line).stage for line in lines)
        share = ", ".join(f"{stage} {count / len(lines):.0%}" for stage, count in answered.most_common())
        print(
            f"  {name:<9} {statistics.median(rates):>8,.0f} lines/s "
            f"(min {min(rates):,.0f}, max {max(rates):,.0f}); answered by: {share}"
        )
    took, rule, filler = slowest_padded_line(knowledge)
    print(f"  slowest padded line {took * 1000:,.1f} ms (an example of rule {rule} behind {filler!r} filler)")


def cold_pass(no_model: bool, lines: list[str]) -> float:
    """Seconds for one pass over `lines` by a freshly loaded attributor, whose learned stage has
    seen no word yet (its neighbour index, built once on first use, is built before the clock
    starts)."""
    knowledge = Knowledge.load(model=None) if no_model else Knowledge.load()
    model = knowledge.attributor.model
    if model is not None:
        model.rare_neighbour("warm up the neighbour index")
        model.clear_word_cache()
    started = time.perf_counter()
    for line in lines:
        knowledge.attributor.attribute(line)
    return time.perf_counter() - started


FILLERS = ("a" * 16_000, "0" * 16_000, "-" * 16_000, " " * 16_000, "a " * 8_000)


def slowest_padded_line(knowledge: Knowledge) -> tuple[float, str, str]:
    """The longest one line takes: (seconds, the rule whose example it ends with, the filler)."""
    worst = (0.0, "-", "")
    for rule in knowledge.attributor.rules:
        for example in rule.examples[:3]:
            for filler in FILLERS:
                started = time.perf_counter()
                knowledge.attributor.attribute(f"{filler} {example}")
                took = time.perf_counter() - started
                if took > worst[0]:
                    worst = (took, rule.id, filler[:2])
    return worst


if __name__ == "__main__":
    main()
