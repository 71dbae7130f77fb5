"""Socket Mode for the Slack stand-in: the WebSocket a Socket Mode app receives its payloads on.

A Socket Mode app calls apps.connections.open with its app-level token, connects to the URL it
gets, is greeted with `hello`, then receives envelopes (`slash_commands`, `interactive`,
`events_api`) and acks each with `{"envelope_id": ..., "payload": ...}`. Tests push envelopes
from their own thread and read the acks back, so the bot's listeners run as they would in Slack.
The socket lives on the server's event loop; pushes cross over with run_coroutine_threadsafe.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from starlette.websockets import WebSocket

ROUTE = "/_sandbox/socket"
SEND_TIMEOUT = 5.0


class SocketAck(BaseModel):
    """One acknowledgement a Socket Mode client sent back, with its optional response payload."""

    envelope_id: str
    payload: dict[str, Any] | None = None
    time: datetime


@dataclass
class _Connection:
    websocket: WebSocket
    loop: asyncio.AbstractEventLoop
    greeted: asyncio.Event = field(default_factory=asyncio.Event)


class SocketModeHub:
    """Connection tickets, the open connections, and the acks they sent."""

    def __init__(self, app_id: str) -> None:
        self.app_id = app_id
        self._tickets: set[str] = set()
        self._connections: list[_Connection] = []
        self._acks: list[SocketAck] = []
        self._lock = threading.Lock()

    def open_url(self, base_url: str) -> str:
        """apps.connections.open's URL: the HTTP base with ws(s), a ticket only this hub knows."""
        ticket = secrets.token_hex(16)
        with self._lock:
            self._tickets.add(ticket)
        scheme, _, rest = base_url.partition("://")
        ws_scheme = "wss" if scheme == "https" else "ws"
        return f"{ws_scheme}://{rest}{ROUTE}?ticket={ticket}&app_id={self.app_id}"

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._connections)

    def acks(self) -> list[SocketAck]:
        with self._lock:
            return list(self._acks)

    def send(self, message: dict[str, Any]) -> None:
        """Writes `message` to every open connection; returns once each has it."""
        with self._lock:
            targets = list(self._connections)
        if not targets:
            raise RuntimeError("no Socket Mode client is connected")
        text = json.dumps(message)
        pending = [asyncio.run_coroutine_threadsafe(_write(target, text), target.loop) for target in targets]
        for future in pending:
            future.result(SEND_TIMEOUT)

    def send_envelope(self, envelope: dict[str, Any]) -> str:
        """Pushes one envelope (an `envelope_id` is made up when missing); returns its id."""
        envelope = {"envelope_id": str(uuid.uuid4()), **envelope}
        self.send(envelope)
        return str(envelope["envelope_id"])

    async def serve(self, websocket: WebSocket) -> None:
        """One client's connection: refused without a ticket we issued, else hello, then acks."""
        with self._lock:
            known = websocket.query_params.get("ticket") in self._tickets
        if not known:
            await websocket.close(code=1008)
            return
        connection = _Connection(websocket, asyncio.get_running_loop())
        with self._lock:
            # Registered before the handshake completes, so a client that is connected can be sent to.
            self._connections.append(connection)
            count = len(self._connections)
        try:
            await websocket.accept()
            await websocket.send_text(json.dumps(self._hello(count)))
            connection.greeted.set()
            async for text in websocket.iter_text():
                self._record(text)
        finally:
            connection.greeted.set()
            with self._lock:
                self._connections.remove(connection)

    def _hello(self, count: int) -> dict[str, Any]:
        return {
            "type": "hello",
            "num_connections": count,
            "debug_info": {
                "host": "applink-sandbox",
                "build_number": 1,
                "approximate_connection_time": 18060,
            },
            "connection_info": {"app_id": self.app_id},
        }

    def _record(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            return
        if isinstance(message, dict) and isinstance(message.get("envelope_id"), str):
            payload = message.get("payload")
            ack = SocketAck(
                envelope_id=message["envelope_id"],
                payload=payload if isinstance(payload, dict) else None,
                time=datetime.now(UTC),
            )
            with self._lock:
                self._acks.append(ack)


async def _write(connection: _Connection, text: str) -> None:
    """Waits for `hello` to go out first: Slack greets before it sends anything else."""
    await connection.greeted.wait()
    await connection.websocket.send_text(text)
