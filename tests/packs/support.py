"""A bundled pack's incident, opened and triaged by the bot against the pack's sandbox, and the
`incident-bot` command line pointed at that sandbox and that bot's store."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.domain import StoredTriage
from bot.sandbox.pack import Pack, load_pack
from bot.sandbox.replay import Replay, replaying
from bot.sandbox.up import Sandbox
from bot.settings import Settings
from tests.conftest import ROOT

SCENARIOS = ROOT / "scenarios"


def clean_env() -> dict[str, str]:
    """The process environment without any of the bot's own settings (no stray backend)."""
    names = {name.upper() for name in Settings.model_fields}
    return {k: v for k, v in os.environ.items() if k.upper() not in names}


def cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


@dataclass
class Opened:
    """The incident the pack's alert opened, its first stored triage, and the CLI's environment."""

    pack: Pack
    replay: Replay
    triage: StoredTriage
    env: dict[str, str]

    @property
    def incident_id(self) -> int:
        return self.triage.incident_id


@contextmanager
def opened(root: Path) -> Iterator[Opened]:
    """Serve the pack, post its alert to the bot, let the worker triage it; the CLI's environment
    is what `sandbox up` prints (Slack left out) on the bot's store."""
    pack = load_pack(root)
    with Sandbox(pack) as sandbox, replaying(sandbox) as replay:
        stored = replay.triage()
        env = {
            **clean_env(),
            **{k: v for k, v in sandbox.env.items() if not k.startswith(("SLACK_", "TRIAGE_"))},
            "DATABASE_URL": replay.deps.settings.database_url,
            "KUBERNETES_IN_CLUSTER": "false",
        }
        yield Opened(pack=pack, replay=replay, triage=stored, env=env)
