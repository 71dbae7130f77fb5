"""Run the real ASGI app under uvicorn on a loopback port, in a thread."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from starlette.applications import Starlette

from bot.sandbox.server import ServerThread


@contextmanager
def serve_in_thread(app: Starlette) -> Iterator[str]:
    """Yield the base URL while uvicorn serves `app`; shut down cleanly afterwards."""
    with ServerThread(app, name="bot") as server:
        yield server.url
