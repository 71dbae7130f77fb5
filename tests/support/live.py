"""Run the bot for a test: the ASGI app under uvicorn in a thread, or `incident-bot serve` as a process."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.applications import Starlette

from bot.sandbox.server import ServerThread


@contextmanager
def serve_in_thread(app: Starlette) -> Iterator[str]:
    """Yield the base URL while uvicorn serves `app`; shut down cleanly afterwards."""
    with ServerThread(app, name="bot") as server:
        yield server.url


@contextmanager
def serve_process(env: dict[str, str]) -> Iterator[str]:
    """`incident-bot serve --port 0` with `env`; yields the URL on its first line, then checks that
    it shut down gracefully (uvicorn re-raises the SIGTERM it caught once it has)."""
    with subprocess.Popen(
        [sys.executable, "-m", "bot", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        try:
            first = proc.stdout.readline()
            assert first.startswith("incident-bot listening on http://"), first + proc.stderr.read()
            yield first.split()[3]
        finally:
            proc.terminate()
            code = proc.wait(20)
        assert code in (0, -signal.SIGTERM)
        assert "Application shutdown complete" in proc.stderr.read()
