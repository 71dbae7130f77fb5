"""A pack through the production path: what `triage --pack`, `eval`, the benchmarks and the demo run.

The pack's alert goes through intake into a throwaway SQLite store, the worker triages it with the
engine built from the settings the sandbox prints (its backends, its clock), and the stored triage
is read back: what is printed and scored is what a responder would read.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot import jobs
from bot.alertmanager import WebhookPayload
from bot.config import BotConfig
from bot.deps import Deps, build_deps
from bot.domain import StoredTriage, TriageResult
from bot.errors import BotError
from bot.sandbox.openai import ScriptedReply
from bot.sandbox.pack import Pack
from bot.sandbox.up import Sandbox
from bot.sandbox.variant import Variant
from bot.settings import Settings
from bot.triage.knowledge import Knowledge

DRAIN_SECONDS = 120.0


class ReplayError(BotError):
    """The pack's triage was not stored (a job failed); the message says which and why."""


def replay_settings(
    sandbox: Sandbox, database_url: str, *, slack: bool = False, **overrides: Any
) -> Settings:
    """The settings `serve` would get from the environment `sandbox up` prints, on `database_url`.

    Neither the process environment nor the pod's own service account is used: a replay reads
    the pack's backends and nothing else (a backend the pack lacks is a gap). With `slack`, the
    posts go to the sandbox's Slack; without, they stay on the timeline.
    """
    values: dict[str, Any] = {
        key.lower(): value
        for key, value in sandbox.env.items()
        if value and (slack or not key.startswith("SLACK_"))
    }
    values.update(
        {"worker_threads": 0, "kubernetes_in_cluster": False, **overrides, "database_url": database_url}
    )
    return Settings.model_validate(values)


class Replay:
    """A bot on a throwaway store, wired to a running sandbox; each `triage()` is one new incident."""

    def __init__(self, sandbox: Sandbox, deps: Deps) -> None:
        self.sandbox = sandbox
        self.deps = deps
        self._groups = 0

    def triage(self, payload: WebhookPayload | None = None) -> StoredTriage:
        """Post the pack's alert (as a new alert group after the first), run the jobs, read the triage."""
        payload = payload or self.sandbox.pack.alert
        if self._groups:
            payload = payload.model_copy(update={"groupKey": f"{payload.groupKey}#replay{self._groups}"})
        self._groups += 1
        services = self.deps.services
        opened = services.intake.ingest(payload)
        if opened.incident_id is None:
            raise ReplayError(f"{self.sandbox.pack.name}: the alert opened no incident ({opened.reason})")
        self.deps.worker.drain(timeout=DRAIN_SECONDS)
        stored = services.incidents.triage(opened.incident_id)
        if stored is None:
            with self.deps.db.reader() as session:
                failed = jobs.failures(session, opened.incident_id)
            why = "; ".join(f"{kind} (attempt {n}): {error}" for kind, n, error in failed) or "no job ran"
            raise ReplayError(f"{self.sandbox.pack.name}: no triage was stored: {why}")
        return stored


@contextmanager
def replaying(
    sandbox: Sandbox,
    *,
    knowledge: Knowledge | None = None,
    config: BotConfig | None = None,
    slack: bool = False,
    **overrides: Any,
) -> Iterator[Replay]:
    """A replay of the sandbox's pack (posting to its Slack with `slack`); the store and the
    clients are gone afterwards."""
    with tempfile.TemporaryDirectory(prefix="incident-bot-replay-") as folder:
        settings = replay_settings(
            sandbox, f"sqlite:///{Path(folder) / 'replay.db'}", slack=slack, **overrides
        )
        deps = build_deps(settings, config=config or BotConfig(), knowledge=knowledge)
        try:
            deps.db.upgrade()
            yield Replay(sandbox, deps)
        finally:
            deps.close()


def triage_pack(
    pack: Pack,
    *,
    llm_script: list[ScriptedReply] | None = None,
    knowledge: Knowledge | None = None,
    variant: Variant | None = None,
    **overrides: Any,
) -> TriageResult:
    """Serve the pack (as `variant`'s servers), triage its alert through the production path, stop
    everything again."""
    started = time.perf_counter()
    with Sandbox(pack, llm_script=llm_script, variant=variant or Variant()) as sandbox:
        ready = time.perf_counter()
        with replaying(sandbox, knowledge=knowledge, **overrides) as replay:
            posted = time.perf_counter()
            result = replay.triage().result
            done = time.perf_counter()
    timings = {
        **result.timings_ms,
        "sandbox_start": round((ready - started) * 1000, 1),
        "store_setup": round((posted - ready) * 1000, 1),
        "total": round((done - posted) * 1000, 1),  # webhook payload in, stored triage out
    }
    return result.model_copy(update={"timings_ms": timings})
