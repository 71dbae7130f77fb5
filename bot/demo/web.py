"""`demo --web`: a local page that shows the demo workspace as Slack would, live, and clicks through
the same signed `/slack/events` path as the terminal.

It renders whatever the Slack stand-in received, so any message the bot builds can be looked at
here. A click names a button on a post; only a button that is on that post is clicked.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bot.demo.feed import WorkspaceFeed
from bot.demo.htmlview import channel_html
from bot.demo.session import DemoError, DemoSession
from bot.sandbox.server import ServerThread

PAGE = Path(__file__).with_name("page.html")


class WebView:
    """The page, the workspace's state as HTML, files, and clicks."""

    def __init__(self, session: DemoSession) -> None:
        slack = session.sandbox.slack
        assert slack is not None
        self.session = session
        self.feed = WorkspaceFeed(slack, session.workspace.user_id)
        self.app = Starlette(
            routes=[
                Route("/", self._page),
                Route("/state", self._state),
                Route("/files/{file_id}", self._file),
                Route("/click", self._click, methods=["POST"]),
                Route("/command", self._command, methods=["POST"]),
            ]
        )

    def state(self) -> dict[str, Any]:
        """The sidebar and every channel's pane, with a version that changes when anything does."""
        snapshot = self.feed.snapshot()
        panes = {
            v.id: channel_html(v, snapshot.names, self.feed.answers(snapshot.names, v.id))
            for v in snapshot.channels
        }
        sidebar = [{"id": v.id, "name": v.name} for v in snapshot.channels]
        version = hashlib.sha256(json.dumps([sidebar, panes]).encode()).hexdigest()[:16]
        return {"version": version, "sidebar": sidebar, "panes": panes}

    def click(self, channel_id: str, ts: str, action_id: str, value: str) -> None:
        """Click the button with this action id and value on that post, as the demo user."""
        view = next((v for v in self.feed.channels() if v.id == channel_id), None)
        post = next((p for p in (view.posts if view else []) if p.ts == ts), None)
        if post is None:
            raise DemoError(f"no message {ts} in channel {channel_id}")
        found = next(
            (
                (block_id, b)
                for block_id, b in post.buttons()
                if b.get("action_id") == action_id and str(b.get("value", "")) == value
            ),
            None,
        )
        if found is None:
            raise DemoError(f"message {ts} has no button {action_id} with value {value!r} (any more)")
        block_id, element = found
        action = {k: v for k, v in element.items() if k != "confirm"} | {"block_id": block_id}
        self.feed.clicked(self.session.click(channel_id, ts, action), channel_id)

    def command(self, channel_id: str, text: str) -> None:
        """`/incident …` typed in a channel of the page, as the demo user."""
        if channel_id not in {v.id for v in self.feed.channels()}:
            raise DemoError(f"no channel {channel_id}")
        words = text.strip().split(maxsplit=1)
        if not words or words[0] != "/incident":
            raise DemoError("only /incident commands go to the bot, e.g. /incident status")
        rest = words[1] if len(words) > 1 else ""
        self.feed.clicked(self.session.command(channel_id, rest), channel_id)

    async def _page(self, _: Request) -> Response:
        return HTMLResponse(PAGE.read_text(encoding="utf-8"))

    async def _state(self, request: Request) -> Response:
        state = await run_in_threadpool(self.state)
        if request.query_params.get("v") == state["version"]:
            return Response(status_code=204)
        return JSONResponse(state)

    async def _file(self, request: Request) -> Response:
        found = await run_in_threadpool(self.feed.file, request.path_params["file_id"])
        if found is None:
            return JSONResponse({"error": "no such file"}, status_code=404)
        name, content = found
        media = "image/png" if name.endswith(".png") else "application/octet-stream"
        return Response(content, media_type=media)

    async def _click(self, request: Request) -> Response:
        return await _posted(request, ("channel", "ts", "action_id", "value"), self.click)

    async def _command(self, request: Request) -> Response:
        return await _posted(request, ("channel", "text"), self.command)


async def _posted(request: Request, keys: tuple[str, ...], act: Callable[..., None]) -> Response:
    """Run `act` with the JSON body's `keys`: 415 unless JSON, 400 when malformed, 409 when refused."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        # a cross-site form or no-cors fetch cannot send JSON without a preflight this app refuses
        return JSONResponse({"ok": False, "error": "expected Content-Type: application/json"}, 415)
    try:
        body = await request.json()
        fields = [str(body[key]) for key in keys]
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"ok": False, "error": f"expected {', '.join(keys)}"}, 400)
    try:
        await run_in_threadpool(act, *fields)
    except DemoError as exc:
        return JSONResponse({"ok": False, "error": exc.message}, status_code=409)
    return JSONResponse({"ok": True})


@contextmanager
def serve_web(session: DemoSession, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve the page for `session` at the URL yielded, until the block ends."""
    if session.workspace.real:
        raise DemoError("the web view shows the sandbox's workspace; with a real one, Slack shows it")
    with ServerThread(WebView(session).app, host=host, port=port, name="demo-web") as server:
        yield server.url
