"""The Slack stand-in's interactive side: response URLs and Socket Mode, through slack_sdk and slack_bolt.

Slash commands and button clicks reach a Socket Mode app over a WebSocket and are answered through the
payload's `response_url`; both are driven here with the clients the bot uses (SocketModeClient on
aiohttp, WebhookClient, slack_bolt's respond), against the stand-in served on loopback.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import websockets.exceptions
import websockets.sync.client
from slack_bolt.context.respond import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook import WebhookClient

from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn, SlackUser
from tests.support.clock import Clock

TOKEN = "xoxb-sandbox"
APP_TOKEN = "xapp-sandbox"
ANA = SlackUser(id="U0ANA", name="ana", real_name="Ana Ops", email="ana@example.com")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def standin(clock: Clock) -> SlackStandIn:
    return SlackStandIn(token=TOKEN, app_token=APP_TOKEN, users=[ANA], clock=clock)


@pytest.fixture
def server(standin: SlackStandIn) -> Iterator[ServerThread]:
    with ServerThread(standin.app, name="slack") as running:
        yield running


@pytest.fixture
def slack(server: ServerThread) -> WebClient:
    return WebClient(token=TOKEN, base_url=server.url + "/api/")


@pytest.fixture
def channel_id(slack: WebClient) -> str:
    channel = str(slack.conversations_create(name="inc-20250101-gpu-oom")["channel"]["id"])
    slack.conversations_invite(channel=channel, users="U0ANA")
    return channel


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


# -- response_url ---------------------------------------------------------------------------------


def test_reply_is_ephemeral_by_default(standin: SlackStandIn, server: ServerThread, channel_id: str) -> None:
    url = standin.response_url(server.url, channel_id, "U0ANA")
    answer = WebhookClient(url).send(text="Declaring SEV2", blocks=[section("*SEV2* declared")])
    assert (answer.status_code, answer.body) == (200, "ok")
    (ephemeral,) = standin.channel(channel_id).ephemerals
    assert (ephemeral.user, ephemeral.text, ephemeral.blocks) == (
        "U0ANA",
        "Declaring SEV2",
        [section("*SEV2* declared")],
    )
    assert standin.channel(channel_id).messages == []
    (post,) = standin.responses(url)
    assert (post.response_type, post.replace_original, post.delete_original) == ("ephemeral", False, False)


def test_in_channel_reply_is_posted_as_the_bot(
    slack: WebClient, standin: SlackStandIn, server: ServerThread, channel_id: str
) -> None:
    parent = slack.chat_postMessage(channel=channel_id, text="status")["ts"]
    url = standin.response_url(server.url, channel_id, "U0ANA")
    # slack_bolt's respond(), as the bot's listeners call it.
    Respond(response_url=url)(text="IC is @ana", response_type="in_channel", thread_ts=parent)
    reply = standin.channel(channel_id).messages[-1]
    assert (reply.user, reply.bot_id, reply.text, reply.thread_ts) == (
        "UBOT",
        "B0SANDBOX",
        "IC is @ana",
        parent,
    )
    assert standin.responses(url)[0].thread_ts == parent


def test_replace_and_delete_the_original_message(
    slack: WebClient, standin: SlackStandIn, server: ServerThread, channel_id: str
) -> None:
    ts = slack.chat_postMessage(channel=channel_id, text="Ack?", blocks=[section("Ack?")])["ts"]
    url = standin.response_url(server.url, channel_id, "U0ANA", message_ts=ts)
    Respond(response_url=url)(text="Acked by ana", blocks=[section("Acked")], replace_original=True)
    (message,) = standin.channel(channel_id).messages
    assert (message.ts, message.text, message.blocks) == (ts, "Acked by ana", [section("Acked")])
    assert Respond(response_url=url)(delete_original=True).status_code == 200
    assert standin.channel(channel_id).messages == []


def test_replace_original_ephemeral(standin: SlackStandIn, server: ServerThread, channel_id: str) -> None:
    first = standin.response_url(server.url, channel_id, "U0ANA")
    WebhookClient(first).send(text="Pick a severity")
    (ephemeral,) = standin.channel(channel_id).ephemerals
    clicked = standin.response_url(server.url, channel_id, "U0ANA", message_ts=ephemeral.ts)
    WebhookClient(clicked).send(text="SEV1 chosen", replace_original=True)
    assert [e.text for e in standin.channel(channel_id).ephemerals] == ["SEV1 chosen"]


@pytest.mark.parametrize(
    ("body", "status", "answer"),
    [
        ({"text": ""}, 400, "no_text"),
        ({"text": "x", "blocks": [section("x" * 3001)]}, 400, "invalid_blocks"),
        ({"text": "x", "blocks": [{"type": "table"}]}, 400, "invalid_blocks"),
        ({"text": 5}, 400, "invalid_payload"),
    ],
)
def test_reply_refusals(
    standin: SlackStandIn,
    server: ServerThread,
    channel_id: str,
    body: dict[str, Any],
    status: int,
    answer: str,
) -> None:
    url = standin.response_url(server.url, channel_id, "U0ANA")
    response = WebhookClient(url).send_dict(body)
    assert (response.status_code, response.body) == (status, answer)
    assert standin.channel(channel_id).ephemerals == []
    if answer != "invalid_payload":
        assert [(post.status, post.answer) for post in standin.responses(url)] == [(status, answer)]


def test_reply_must_be_json(standin: SlackStandIn, server: ServerThread, channel_id: str) -> None:
    url = standin.response_url(server.url, channel_id, "U0ANA")
    response = httpx.post(url, data={"text": "form-encoded"})
    assert (response.status_code, response.text) == (400, "invalid_payload")
    assert httpx.post(server.url + "/_sandbox/respond/never-issued", json={"text": "x"}).status_code == 404


def test_url_takes_five_replies(standin: SlackStandIn, server: ServerThread, channel_id: str) -> None:
    url = standin.response_url(server.url, channel_id, "U0ANA")
    hook = WebhookClient(url)
    assert hook.send(text="no blocks", blocks=[section("x" * 3001)]).status_code == 400
    assert [hook.send(text=f"update {n}").status_code for n in range(5)] == [200] * 5
    refused = hook.send(text="one too many")
    assert (refused.status_code, refused.body) == (404, "used_url")
    assert len(standin.channel(channel_id).ephemerals) == 5


def test_url_expires_after_thirty_minutes(
    standin: SlackStandIn, server: ServerThread, channel_id: str, clock: Clock
) -> None:
    url = standin.response_url(server.url, channel_id, "U0ANA")
    clock.now += 30 * 60
    assert WebhookClient(url).send(text="just in time").status_code == 200
    clock.now += 1
    late = WebhookClient(url).send(text="too late")
    assert (late.status_code, late.body) == (404, "expired_url")


def test_reply_to_an_archived_channel(
    slack: WebClient, standin: SlackStandIn, server: ServerThread, channel_id: str
) -> None:
    url = standin.response_url(server.url, channel_id, "U0ANA")
    slack.conversations_archive(channel=channel_id)
    gone = WebhookClient(url).send(text="x", response_type="in_channel")
    assert (gone.status_code, gone.body) == (410, "channel_is_archived")


# -- Socket Mode ----------------------------------------------------------------------------------


def test_connections_open_needs_the_app_level_token(server: ServerThread) -> None:
    client = WebClient(base_url=server.url + "/api/")
    url = client.apps_connections_open(app_token=APP_TOKEN)["url"]
    assert url.startswith(f"ws://127.0.0.1:{server.port}/_sandbox/socket?ticket=")
    for token, error in ((TOKEN, "not_allowed_token_type"), ("xapp-wrong", "invalid_auth")):
        with pytest.raises(SlackApiError) as caught:
            client.apps_connections_open(app_token=token)
        assert caught.value.response["error"] == error


def test_socket_refuses_a_ticket_it_never_issued(server: ServerThread) -> None:
    with pytest.raises(websockets.exceptions.InvalidStatus):
        websockets.sync.client.connect(f"ws://127.0.0.1:{server.port}/_sandbox/socket?ticket=made-up")


async def eventually(check: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


def test_socket_mode_client_gets_a_slash_command_and_acks_it(
    standin: SlackStandIn, server: ServerThread, channel_id: str
) -> None:
    """The client slack_bolt's AsyncSocketModeHandler runs: hello, one envelope, one ack."""
    greetings: list[dict[str, Any]] = []
    requests: list[SocketModeRequest] = []

    async def scenario() -> str:
        client = SocketModeClient(
            app_token=APP_TOKEN, web_client=AsyncWebClient(base_url=server.url + "/api/")
        )

        async def on_message(_client: Any, message: dict[str, Any], _raw: str | None) -> None:
            if message.get("type") == "hello":
                greetings.append(message)

        async def on_request(client: Any, request: SocketModeRequest) -> None:
            requests.append(request)
            ack = SocketModeResponse(envelope_id=request.envelope_id, payload={"text": "Declaring…"})
            await client.send_socket_mode_response(ack)

        client.message_listeners.append(on_message)
        client.socket_mode_request_listeners.append(on_request)
        await client.connect()
        try:
            await eventually(lambda: bool(greetings))
            payload = standin.slash_command(
                server.url, "/incident", text="declare gpu oom", user_id="U0ANA", channel_id=channel_id
            )
            envelope = {"type": "slash_commands", "payload": payload, "accepts_response_payload": True}
            envelope_id = standin.socket_send(envelope)
            await eventually(lambda: bool(standin.socket_acks()))
        finally:
            await client.close()
        return envelope_id

    envelope_id = asyncio.run(scenario())
    (hello,) = greetings
    assert (hello["num_connections"], hello["connection_info"]) == (1, {"app_id": "A0SANDBOX"})
    (request,) = requests
    assert (request.type, request.envelope_id, request.accepts_response_payload) == (
        "slash_commands",
        envelope_id,
        True,
    )
    assert (request.payload["command"], request.payload["text"]) == ("/incident", "declare gpu oom")
    (ack,) = standin.socket_acks()
    assert (ack.envelope_id, ack.payload) == (envelope_id, {"text": "Declaring…"})
    # The payload's response_url is live: the listener's later reply would land in the channel.
    assert WebhookClient(request.payload["response_url"]).send(text="SEV2 declared").body == "ok"
    assert standin.channel(channel_id).ephemerals[-1].text == "SEV2 declared"


def test_socket_mode_client_reconnects_on_disconnect(standin: SlackStandIn, server: ServerThread) -> None:
    """Slack asks for a refresh now and then; the client opens a new connection and carries on."""
    hellos: list[dict[str, Any]] = []

    async def scenario() -> None:
        client = SocketModeClient(
            app_token=APP_TOKEN, web_client=AsyncWebClient(base_url=server.url + "/api/")
        )

        async def on_message(_client: Any, message: dict[str, Any], _raw: str | None) -> None:
            if message.get("type") == "hello":
                hellos.append(message)

        async def on_request(client: Any, request: SocketModeRequest) -> None:
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))

        client.message_listeners.append(on_message)
        client.socket_mode_request_listeners.append(on_request)
        await client.connect()
        try:
            await eventually(lambda: len(hellos) == 1)
            standin.socket_disconnect()
            await eventually(lambda: len(hellos) == 2)
            await eventually(lambda: standin.socket_connections == 1)
            assert len(standin.calls_to("apps.connections.open")) == 2
            standin.socket_send({"envelope_id": "after-refresh", "type": "events_api", "payload": {}})
            await eventually(lambda: bool(standin.socket_acks()))
        finally:
            await client.close()

    asyncio.run(scenario())
    assert [(ack.envelope_id, ack.payload) for ack in standin.socket_acks()] == [("after-refresh", None)]


def test_socket_send_without_a_client_fails(standin: SlackStandIn) -> None:
    with pytest.raises(RuntimeError, match="no Socket Mode client"):
        standin.socket_send({"type": "events_api", "payload": {}})
