"""Benchmark of the approved actions: per catalog kind, approval to verified, and undo to restored.

Each run is the production path on the sandbox (no Slack): the pack's alert opens an incident, the
worker triages it and stores the dry run of each proposal; then an approver's decision goes
through the action service (the claim, the queued job), the worker resumes the paused triage run
from its checkpoint, which dry-runs again, writes, and verifies against the cluster stand-in (its
controllers replace pods and roll deployments; a new pod is Ready after the stand-in's start
delay). "apply" is the decision to the proposal's `done`; "undo" the undo decision to `undone`.
The stand-in's pod start delay is a floor of every kind that waits for a pod.

    .venv/bin/python bench/actions/run.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bot.actions.model import ProposalState
from bot.config import Actions, BotConfig
from bot.sandbox.pack import load_pack
from bot.sandbox.replay import replaying
from bot.sandbox.up import Sandbox

ROOT = Path(__file__).resolve().parents[2]
PACKS = {
    "reroute": "httproute-weight-skew-429",
    "cordon_node": "gpu-xid79-fell-off-bus",
    "restart_pod": "gpu-xid79-fell-off-bus",
    "rollback_deployment": "cuda-oom-after-max-num-seqs-rollout",
    "add_replica": "kv-cache-preemption-traffic-surge",
}
CONFIG = BotConfig(approvers=["sre@example.com"], actions=Actions(verify_seconds=60))
ACTOR = "sre@example.com"


def timed(kind: str, runs: int) -> tuple[list[float], list[float]]:
    """(ms approve → done, ms undo → undone) per run, each run on a fresh sandbox of the pack."""
    applied, undone = [], []
    for _ in range(runs):
        with (
            Sandbox(load_pack(ROOT / "scenarios" / PACKS[kind])) as sandbox,
            replaying(sandbox, config=CONFIG) as replay,
        ):
            stored = replay.triage()
            actions = replay.deps.services.actions
            proposal = next(p for p in actions.list(stored.incident_id) if p.action.kind.value == kind)
            for verb, wanted, into in (
                ("approve", ProposalState.DONE, applied),
                ("undo", ProposalState.UNDONE, undone),
            ):
                started = time.perf_counter()
                getattr(actions, verb)(proposal.id, actor=ACTOR)
                replay.deps.worker.drain(timeout=120)
                state = actions.get(proposal.id)
                if state.status != wanted:
                    raise SystemExit(f"{kind}: {verb} ended {state.status}: {state.outcome}")
                into.append((time.perf_counter() - started) * 1000)
    return applied, undone


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'kind':<20} {'apply p50 ms':>13} {'apply max':>10} {'undo p50 ms':>12} {'undo max':>9}  runs")
    for kind in PACKS:
        applied, undone = timed(kind, args.runs)
        print(
            f"{kind:<20} {statistics.median(applied):>13.0f} {max(applied):>10.0f} "
            f"{statistics.median(undone):>12.0f} {max(undone):>9.0f}  {args.runs}"
        )


if __name__ == "__main__":
    main()
