"""The Slack stand-in, driven only through slack_sdk's WebClient as the bot drives the real API."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn, SlackUser
from tests.support.clock import Clock

TOKEN = "xoxb-sandbox"
APP_TOKEN = "xapp-sandbox"
ANA = SlackUser(id="U0ANA", name="ana", real_name="Ana Ops", email="ana@example.com")
BEN = SlackUser(id="U0BEN", name="ben", email="Ben@Example.com")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def standin(clock: Clock) -> SlackStandIn:
    return SlackStandIn(
        token=TOKEN,
        app_token=APP_TOKEN,
        users=[ANA, BEN],
        usergroups={"S0ONCALL": ["U0ANA", "U0BEN"]},
        clock=clock,
    )


@pytest.fixture
def server(standin: SlackStandIn) -> Iterator[ServerThread]:
    with ServerThread(standin.app, name="slack") as running:
        yield running


@pytest.fixture
def slack(server: ServerThread) -> WebClient:
    return WebClient(token=TOKEN, base_url=server.url + "/api/")


@pytest.fixture
def channel_id(slack: WebClient) -> str:
    return str(slack.conversations_create(name="inc-20250101-gpu-oom")["channel"]["id"])


def error_of(call: Any) -> SlackApiError:
    with pytest.raises(SlackApiError) as caught:
        call()
    return caught.value


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def button(**overrides: Any) -> dict[str, Any]:
    return {"type": "button", "text": {"type": "plain_text", "text": "Ack"}, "action_id": "ack"} | overrides


def actions(*elements: dict[str, Any]) -> dict[str, Any]:
    return {"type": "actions", "elements": list(elements)}


def confirm(**overrides: str) -> dict[str, Any]:
    texts = {"title": "Sure?", "text": "Restart the pod", "confirm": "Yes", "deny": "No"} | overrides
    return {key: {"type": "plain_text", "text": value} for key, value in texts.items()}


# -- auth and dispatch ----------------------------------------------------------------------------


def test_auth_test_names_the_bot(slack: WebClient) -> None:
    answer = slack.auth_test()
    assert answer["ok"] is True
    assert answer["user_id"] == "UBOT"
    assert answer["bot_id"]


def test_missing_token_is_not_authed(server: ServerThread, standin: SlackStandIn) -> None:
    anonymous = WebClient(base_url=server.url + "/api/")
    assert error_of(anonymous.auth_test).response["error"] == "not_authed"
    assert standin.calls_to("auth.test")[0].error == "not_authed"


def test_wrong_token_is_invalid_auth(server: ServerThread) -> None:
    stranger = WebClient(token="xoxb-wrong", base_url=server.url + "/api/")
    assert error_of(stranger.auth_test).response["error"] == "invalid_auth"


def test_app_level_token_is_refused_by_web_api_methods(server: ServerThread) -> None:
    app_level = WebClient(token=APP_TOKEN, base_url=server.url + "/api/")
    failure = error_of(lambda: app_level.chat_postMessage(channel="C0ANY", text="x"))
    assert failure.response["error"] == "not_allowed_token_type"


def test_unknown_method(slack: WebClient) -> None:
    assert error_of(lambda: slack.api_call("incidents.declare")).response["error"] == "unknown_method"


def test_calls_are_recorded_without_the_token(slack: WebClient, standin: SlackStandIn) -> None:
    slack.conversations_create(name="inc-recorded")
    (call,) = standin.calls_to("conversations.create")
    assert call.params == {"name": "inc-recorded"}
    assert call.error is None


# -- conversations --------------------------------------------------------------------------------


def test_create_channel_makes_the_bot_a_member(slack: WebClient, standin: SlackStandIn) -> None:
    created = slack.conversations_create(name="inc-20250101-gpu-oom")["channel"]
    assert created["id"].startswith("C")
    assert created["is_member"] is True
    assert slack.conversations_info(channel=created["id"])["channel"]["name"] == "inc-20250101-gpu-oom"
    assert slack.conversations_members(channel=created["id"])["members"] == ["UBOT"]
    assert standin.channel("#inc-20250101-gpu-oom").id == created["id"]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("Inc-Upper", "invalid_name_specials"),
        ("inc 2025", "invalid_name_specials"),
        ("inc.gpu", "invalid_name_specials"),
        ("i" * 81, "invalid_name_maxlength"),
        ("", "invalid_name_required"),
        ("--", "invalid_name_punctuation"),
    ],
)
def test_create_channel_rejects_bad_names(slack: WebClient, name: str, error: str) -> None:
    assert error_of(lambda: slack.conversations_create(name=name)).response["error"] == error


def test_create_channel_accepts_eighty_characters(slack: WebClient) -> None:
    assert slack.conversations_create(name="i" * 80)["ok"] is True


def test_create_channel_name_taken(slack: WebClient, channel_id: str) -> None:
    failure = error_of(lambda: slack.conversations_create(name="inc-20250101-gpu-oom"))
    assert failure.response["error"] == "name_taken"


def test_invite_adds_members(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    slack.conversations_invite(channel=channel_id, users=["U0ANA", "U0BEN"])
    assert standin.channel(channel_id).members == ["UBOT", "U0ANA", "U0BEN"]


@pytest.mark.parametrize(
    ("users", "error"),
    [("U0ANA", "already_in_channel"), ("U0NOBODY", "user_not_found"), ("UBOT", "cant_invite_self")],
)
def test_invite_errors(slack: WebClient, channel_id: str, users: str, error: str) -> None:
    slack.conversations_invite(channel=channel_id, users="U0ANA")
    failure = error_of(lambda: slack.conversations_invite(channel=channel_id, users=users))
    assert failure.response["error"] == error


def test_invite_to_unknown_channel(slack: WebClient) -> None:
    failure = error_of(lambda: slack.conversations_invite(channel="C0MISSING", users="U0ANA"))
    assert failure.response["error"] == "channel_not_found"


def test_invite_with_force_skips_failures(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    answer = slack.conversations_invite(channel=channel_id, users="U0NOBODY,U0BEN", force=True)
    assert answer["errors"] == [{"user": "U0NOBODY", "ok": False, "error": "user_not_found"}]
    assert standin.channel(channel_id).members == ["UBOT", "U0BEN"]


def test_topic_and_purpose(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    slack.conversations_setTopic(channel=channel_id, topic="SEV1 | llama-chat | IC @ana")
    slack.conversations_setPurpose(channel=channel_id, purpose="p" * 250)
    channel = standin.channel(channel_id)
    assert channel.topic == "SEV1 | llama-chat | IC @ana"
    assert channel.purpose == "p" * 250
    assert slack.conversations_info(channel=channel_id)["channel"]["topic"]["value"] == channel.topic


def test_topic_too_long(slack: WebClient, channel_id: str) -> None:
    failure = error_of(lambda: slack.conversations_setTopic(channel=channel_id, topic="t" * 251))
    assert failure.response["error"] == "too_long"
    failure = error_of(lambda: slack.conversations_setPurpose(channel=channel_id, purpose="p" * 251))
    assert failure.response["error"] == "too_long"


def test_topic_needs_membership_until_joined(slack: WebClient, standin: SlackStandIn) -> None:
    general = standin.add_channel("general", members=["U0ANA"])
    failure = error_of(lambda: slack.conversations_setTopic(channel=general.id, topic="hi"))
    assert failure.response["error"] == "not_in_channel"
    slack.conversations_join(channel=general.id)
    assert slack.conversations_setTopic(channel=general.id, topic="hi")["ok"] is True
    assert slack.conversations_join(channel=general.id)["warning"] == "already_in_channel"


def test_info_counts_members_only_when_asked(slack: WebClient, channel_id: str) -> None:
    assert "num_members" not in slack.conversations_info(channel=channel_id)["channel"]
    counted = slack.conversations_info(channel=channel_id, include_num_members=True)["channel"]
    assert counted["num_members"] == 1


def test_members_are_paged_with_cursors(slack: WebClient, channel_id: str) -> None:
    slack.conversations_invite(channel=channel_id, users="U0ANA,U0BEN")
    first = slack.conversations_members(channel=channel_id, limit=2)
    assert first["members"] == ["UBOT", "U0ANA"]
    cursor = first["response_metadata"]["next_cursor"]
    rest = slack.conversations_members(channel=channel_id, limit=2, cursor=cursor)
    assert (rest["members"], rest["response_metadata"]["next_cursor"]) == (["U0BEN"], "")


def test_users_conversations_pages_through_the_bots_channels(slack: WebClient, standin: SlackStandIn) -> None:
    ids = [slack.conversations_create(name=f"inc-{n}")["channel"]["id"] for n in range(5)]
    standin.add_channel("general", members=["U0ANA"])
    slack.conversations_create(name="inc-private", is_private=True)
    seen: list[str] = []
    cursor = ""
    pages = 0
    while True:
        answer = slack.users_conversations(limit=2, cursor=cursor or None)
        seen += [channel["id"] for channel in answer["channels"]]
        pages += 1
        cursor = answer["response_metadata"]["next_cursor"]
        if not cursor:
            break
    assert (seen, pages) == (ids, 3)
    listed = slack.users_conversations()["channels"][0]
    assert listed == slack.conversations_info(channel=ids[0])["channel"]


def test_users_conversations_types_and_other_users(slack: WebClient, standin: SlackStandIn) -> None:
    public = slack.conversations_create(name="inc-public")["channel"]["id"]
    private = slack.conversations_create(name="inc-private", is_private=True)["channel"]["id"]
    direct = slack.chat_postMessage(channel="U0ANA", text="you are IC")["channel"]
    both = slack.users_conversations(types="public_channel,private_channel")["channels"]
    assert [channel["id"] for channel in both] == [public, private]
    assert [channel["id"] for channel in slack.users_conversations(types="im")["channels"]] == [direct]
    slack.conversations_invite(channel=public, users="U0ANA")
    hidden = standin.add_channel("ana-private", members=["U0ANA"], is_private=True)
    anas = slack.users_conversations(user="U0ANA", types="public_channel,private_channel,im")["channels"]
    assert [channel["id"] for channel in anas] == [public, direct]
    assert hidden.id not in [channel["id"] for channel in anas]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"limit": 0}, "invalid_limit"),
        ({"limit": 1001}, "invalid_limit"),
        ({"cursor": "bm90LWEtY3Vyc29y"}, "invalid_cursor"),
        ({"cursor": "%%%"}, "invalid_cursor"),
        ({"types": "public_channel,groups"}, "invalid_types"),
        ({"user": "U0NOBODY"}, "user_not_found"),
    ],
)
def test_users_conversations_errors(
    slack: WebClient, channel_id: str, kwargs: dict[str, Any], error: str
) -> None:
    assert error_of(lambda: slack.users_conversations(**kwargs)).response["error"] == error


def test_archived_channel_refuses_writes_but_keeps_its_name(slack: WebClient, channel_id: str) -> None:
    ts = slack.chat_postMessage(channel=channel_id, text="SEV1")["ts"]
    assert slack.conversations_archive(channel=channel_id)["ok"] is True
    assert slack.conversations_info(channel=channel_id)["channel"]["is_archived"] is True
    refused = {
        "already_archived": lambda: slack.conversations_archive(channel=channel_id),
        "name_taken": lambda: slack.conversations_create(name="inc-20250101-gpu-oom"),
        "is_archived": lambda: slack.chat_postMessage(channel=channel_id, text="x"),
        "is_inactive": lambda: slack.chat_update(channel=channel_id, ts=ts, text="x"),
    }
    for error, call in refused.items():
        assert error_of(call).response["error"] == error
    for call in (
        lambda: slack.conversations_setTopic(channel=channel_id, topic="closed"),
        lambda: slack.conversations_invite(channel=channel_id, users="U0ANA"),
        lambda: slack.conversations_join(channel=channel_id),
    ):
        assert error_of(call).response["error"] == "is_archived"


def test_users_conversations_exclude_archived(slack: WebClient, channel_id: str) -> None:
    live = slack.conversations_create(name="inc-live")["channel"]["id"]
    slack.conversations_archive(channel=channel_id)
    assert [c["id"] for c in slack.users_conversations()["channels"]] == [channel_id, live]
    assert [c["id"] for c in slack.users_conversations(exclude_archived=True)["channels"]] == [live]


def test_archive_errors(slack: WebClient, standin: SlackStandIn) -> None:
    general = standin.add_channel("general", members=["UBOT", "U0ANA"], is_general=True)
    elsewhere = standin.add_channel("random", members=["U0ANA"])
    direct = slack.chat_postMessage(channel="U0ANA", text="hi")["channel"]
    cases = {
        general.id: "cant_archive_general",
        elsewhere.id: "not_in_channel",
        direct: "method_not_supported_for_channel_type",
        "C0MISSING": "channel_not_found",
    }
    for channel, error in cases.items():
        assert error_of(lambda c=channel: slack.conversations_archive(channel=c)).response["error"] == error


# -- messages -------------------------------------------------------------------------------------


def test_post_with_blocks_and_thread(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    blocks = [{"type": "header", "text": {"type": "plain_text", "text": "SEV1"}}, section("GPU OOM")]
    posted = slack.chat_postMessage(channel=channel_id, text="SEV1: GPU OOM", blocks=blocks)
    assert posted["channel"] == channel_id
    assert posted["message"]["blocks"] == blocks
    reply = slack.chat_postMessage(channel=channel_id, text="update", thread_ts=posted["ts"])
    assert reply["message"]["thread_ts"] == posted["ts"]
    channel = standin.channel(channel_id)
    assert [message.text for message in channel.messages] == ["SEV1: GPU OOM", "update"]
    assert [message.ts for message in channel.replies(posted["ts"])] == [reply["ts"]]


def test_post_by_channel_name_and_to_a_user(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    assert slack.chat_postMessage(channel="#inc-20250101-gpu-oom", text="hi")["channel"] == channel_id
    direct = slack.chat_postMessage(channel="U0ANA", text="you are IC")
    assert direct["channel"].startswith("D")
    assert standin.channel(direct["channel"]).messages[0].text == "you are IC"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"channel": "C0MISSING", "text": "x"}, "channel_not_found"),
        ({"channel": "general", "text": "x"}, "not_in_channel"),
    ],
)
def test_post_errors(
    slack: WebClient, standin: SlackStandIn, channel_id: str, kwargs: dict[str, Any], error: str
) -> None:
    standin.add_channel("general", members=["U0ANA"])
    assert error_of(lambda: slack.chat_postMessage(**kwargs)).response["error"] == error


def test_post_without_text_or_blocks(slack: WebClient, channel_id: str) -> None:
    # Straight through api_call: chat_postMessage itself warns before sending such a message.
    failure = error_of(lambda: slack.api_call("chat.postMessage", json={"channel": channel_id}))
    assert failure.response["error"] == "no_text"


LIMIT_CASES: list[tuple[str, list[dict[str, Any]], str]] = [
    (
        "section text",
        [section("x" * 3001)],
        "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ),
    ("too many blocks", [{"type": "divider"}] * 51, "no more than 50 items allowed [json-pointer:/blocks]"),
    (
        "too many fields",
        [{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * 11}],
        "no more than 10 items allowed [json-pointer:/blocks/0/fields]",
    ),
    (
        "field text",
        [{"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * 2001}]}],
        "must be less than 2001 characters [json-pointer:/blocks/0/fields/0/text]",
    ),
    (
        "header text",
        [{"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}],
        "must be less than 151 characters [json-pointer:/blocks/0/text/text]",
    ),
    (
        "header mrkdwn",
        [{"type": "header", "text": {"type": "mrkdwn", "text": "*h*"}}],
        "must be one of: plain_text [json-pointer:/blocks/0/text/type]",
    ),
    ("unknown block", [{"type": "table"}], "unsupported block type: table [json-pointer:/blocks/0/type]"),
    (
        "button text",
        [actions(button(text={"type": "plain_text", "text": "b" * 76}))],
        "must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]",
    ),
    (
        "button value",
        [actions(button(value="v" * 2001))],
        "must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]",
    ),
    (
        "button url",
        [actions(button(url="https://x/" + "u" * 2991))],
        "must be less than 3001 characters [json-pointer:/blocks/0/elements/0/url]",
    ),
    (
        "action_id length",
        [actions(button(action_id="a" * 256))],
        "must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]",
    ),
    (
        "duplicate action_id",
        [actions(button(), button())],
        "duplicate action_id: ack [json-pointer:/blocks/0/elements/1/action_id]",
    ),
    (
        "block_id length",
        [{"type": "divider", "block_id": "b" * 256}],
        "must be less than 256 characters [json-pointer:/blocks/0/block_id]",
    ),
    (
        "duplicate block_id",
        [{"type": "divider", "block_id": "d"}, {"type": "divider", "block_id": "d"}],
        "duplicate block_id: d [json-pointer:/blocks/1/block_id]",
    ),
    (
        "too many actions",
        [actions(*(button(action_id=f"a{i}") for i in range(26)))],
        "no more than 25 items allowed [json-pointer:/blocks/0/elements]",
    ),
    (
        "too many context elements",
        [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11}],
        "no more than 10 items allowed [json-pointer:/blocks/0/elements]",
    ),
    (
        "confirm title",
        [actions(button(confirm=confirm(title="t" * 101)))],
        "must be less than 101 characters [json-pointer:/blocks/0/elements/0/confirm/title/text]",
    ),
    (
        "confirm text",
        [actions(button(confirm=confirm(text="t" * 301)))],
        "must be less than 301 characters [json-pointer:/blocks/0/elements/0/confirm/text/text]",
    ),
    (
        "confirm button",
        [actions(button(confirm=confirm(confirm="c" * 31)))],
        "must be less than 31 characters [json-pointer:/blocks/0/elements/0/confirm/confirm/text]",
    ),
    (
        "deny button",
        [actions(button(confirm=confirm(deny="d" * 31)))],
        "must be less than 31 characters [json-pointer:/blocks/0/elements/0/confirm/deny/text]",
    ),
    (
        "accessory",
        [section("x") | {"accessory": button(text={"type": "plain_text", "text": "b" * 76})}],
        "must be less than 76 characters [json-pointer:/blocks/0/accessory/text/text]",
    ),
]


@pytest.mark.parametrize(
    ("blocks", "message"), [case[1:] for case in LIMIT_CASES], ids=[c[0] for c in LIMIT_CASES]
)
def test_block_kit_limits(
    slack: WebClient, channel_id: str, blocks: list[dict[str, Any]], message: str
) -> None:
    failure = error_of(lambda: slack.chat_postMessage(channel=channel_id, text="t", blocks=blocks))
    assert failure.response["error"] == "invalid_blocks"
    assert f"[ERROR] {message}" in failure.response["response_metadata"]["messages"]


def test_block_kit_limits_are_inclusive(slack: WebClient, channel_id: str) -> None:
    """Exactly at each limit is fine; the same action_id may repeat in different blocks."""
    blocks = [
        section("x" * 3000),
        {"type": "header", "text": {"type": "plain_text", "text": "h" * 150}},
        actions(*(button(action_id=f"a{i}", value="v" * 2000) for i in range(25))),
        actions(button(confirm=confirm(title="t" * 100, text="t" * 300, confirm="c" * 30, deny="d" * 30))),
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 10},
    ]
    blocks += [{"type": "divider"}] * (50 - len(blocks))
    assert slack.chat_postMessage(channel=channel_id, text="t", blocks=blocks)["ok"] is True


def test_blocks_as_a_form_encoded_json_string(slack: WebClient, channel_id: str) -> None:
    """Form bodies carry blocks as a JSON string; the same checks apply."""
    ok = slack.api_call(
        "chat.postMessage", params={"channel": channel_id, "blocks": json.dumps([section("x")])}
    )
    assert ok["message"]["blocks"] == [section("x")]
    params = {"channel": channel_id, "blocks": json.dumps([section("x" * 3001)])}
    assert (
        error_of(lambda: slack.api_call("chat.postMessage", params=params)).response["error"]
        == "invalid_blocks"
    )
    params = {"channel": channel_id, "blocks": "[{not json"}
    failure = error_of(lambda: slack.api_call("chat.postMessage", params=params))
    assert failure.response["error"] == "invalid_blocks_format"


def test_update_with_blocks_replaces_them(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    ts = slack.chat_postMessage(channel=channel_id, text="SEV1", blocks=[section("open")])["ts"]
    updated = slack.chat_update(channel=channel_id, ts=ts, text="SEV1", blocks=[section("mitigated")])
    assert updated["message"]["blocks"] == [section("mitigated")]
    message = standin.channel(channel_id).messages[0]
    # Slack shows no "edited" mark on an update that carries blocks.
    assert (message.text, message.blocks, message.edited) == ("SEV1", [section("mitigated")], False)


def test_update_with_text_and_no_blocks_drops_the_blocks(
    slack: WebClient, standin: SlackStandIn, channel_id: str
) -> None:
    """Slack renders the new text instead: previous blocks survive only an update without text."""
    ts = slack.chat_postMessage(channel=channel_id, text="SEV1", blocks=[section("open")])["ts"]
    answer = slack.chat_update(channel=channel_id, ts=ts, text="resolved")
    assert "blocks" not in answer["message"]
    message = standin.channel(channel_id).messages[0]
    assert (message.text, message.blocks, message.edited) == ("resolved", [], True)


def test_update_with_an_empty_block_list_removes_them(
    slack: WebClient, standin: SlackStandIn, channel_id: str
) -> None:
    ts = slack.chat_postMessage(channel=channel_id, text="SEV1", blocks=[section("open")])["ts"]
    slack.chat_update(channel=channel_id, ts=ts, text="SEV1 closed", blocks=[])
    message = standin.channel(channel_id).messages[0]
    assert (message.text, message.blocks) == ("SEV1 closed", [])
    nothing = {"channel": channel_id, "ts": ts, "blocks": []}
    assert error_of(lambda: slack.api_call("chat.update", json=nothing)).response["error"] == "no_text"


def test_update_without_text_or_blocks_keeps_both(
    slack: WebClient, standin: SlackStandIn, channel_id: str
) -> None:
    ts = slack.chat_postMessage(channel=channel_id, text="SEV1", blocks=[section("open")])["ts"]
    paged = [{"fallback": "paged", "color": "#d00000", "text": "on-call paged"}]
    slack.chat_update(channel=channel_id, ts=ts, attachments=paged)
    message = standin.channel(channel_id).messages[0]
    assert (message.text, message.blocks, message.attachments) == ("SEV1", [section("open")], paged)


def test_update_errors(slack: WebClient, channel_id: str) -> None:
    failure = error_of(lambda: slack.chat_update(channel=channel_id, ts="1.000001", text="x"))
    assert failure.response["error"] == "message_not_found"
    ts = slack.chat_postMessage(channel=channel_id, text="SEV1")["ts"]
    failure = error_of(
        lambda: slack.chat_update(channel=channel_id, ts=ts, text="t", blocks=[section("x" * 3001)])
    )
    assert failure.response["error"] == "invalid_blocks"


def test_post_ephemeral(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    slack.conversations_invite(channel=channel_id, users="U0ANA")
    answer = slack.chat_postEphemeral(channel=channel_id, user="U0ANA", text="only you")
    (ephemeral,) = standin.channel(channel_id).ephemerals
    assert (ephemeral.ts, ephemeral.user, ephemeral.text) == (answer["message_ts"], "U0ANA", "only you")
    failure = error_of(lambda: slack.chat_postEphemeral(channel=channel_id, user="U0BEN", text="x"))
    assert failure.response["error"] == "user_not_in_channel"


def test_bookmarks_and_pins(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    link = "https://grafana.example/d/vllm"
    bookmark = slack.bookmarks_add(channel_id=channel_id, title="Dashboard", type="link", link=link)[
        "bookmark"
    ]
    assert (bookmark["title"], bookmark["link"], bookmark["type"]) == ("Dashboard", link, "link")
    failure = error_of(lambda: slack.bookmarks_add(channel_id=channel_id, title="x", type="folder"))
    assert failure.response["error"] == "invalid_bookmark_type"
    ts = slack.chat_postMessage(channel=channel_id, text="status")["ts"]
    slack.pins_add(channel=channel_id, timestamp=ts)
    assert (
        error_of(lambda: slack.pins_add(channel=channel_id, timestamp=ts)).response["error"]
        == "already_pinned"
    )
    channel = standin.channel(channel_id)
    assert [b.link for b in channel.bookmarks] == [link]
    assert channel.pins == [ts]


# -- files ----------------------------------------------------------------------------------------


def test_files_upload_v2_end_to_end(slack: WebClient, standin: SlackStandIn, channel_id: str) -> None:
    parent = slack.chat_postMessage(channel=channel_id, text="timeline below")["ts"]
    content = "12:00 alert fired\n12:05 IC assigned\n"
    answer = slack.files_upload_v2(
        channel=channel_id,
        content=content,
        filename="timeline.md",
        title="Timeline",
        initial_comment="Incident timeline",
        thread_ts=parent,
    )
    file_id = answer["file"]["id"]
    stored = standin.files[file_id]
    assert stored.content == content.encode()
    assert (stored.title, stored.channels) == ("Timeline", [channel_id])
    channel = standin.channel(channel_id)
    assert channel.files == [file_id]
    shared = channel.messages[-1]
    assert (shared.text, shared.files, shared.thread_ts) == ("Incident timeline", [file_id], parent)
    assert len(standin.calls_to("files.getUploadURLExternal")) == 1
    assert len(standin.calls_to("files.completeUploadExternal")) == 1


def test_files_upload_to_a_channel_the_bot_is_not_in(slack: WebClient, standin: SlackStandIn) -> None:
    general = standin.add_channel("general", members=["U0ANA"])
    failure = error_of(lambda: slack.files_upload_v2(channel=general.id, content="x", filename="x.txt"))
    assert failure.response["error"] == "not_in_channel"


def test_complete_upload_of_a_file_never_uploaded(slack: WebClient) -> None:
    file_id = slack.files_getUploadURLExternal(filename="a.txt", length=1)["file_id"]
    failure = error_of(lambda: slack.files_completeUploadExternal(files=[{"id": file_id}]))
    assert failure.response["error"] == "file_not_found"


def test_upload_url_also_takes_a_multipart_body(
    slack: WebClient, standin: SlackStandIn, server: ServerThread
) -> None:
    ticket = slack.files_getUploadURLExternal(filename="log.txt", length=5)
    assert ticket["upload_url"].startswith(server.url)
    answer = httpx.post(ticket["upload_url"], files={"file": ("log.txt", b"hello")})
    assert answer.status_code == 200
    assert standin.files[ticket["file_id"]].content == b"hello"


# -- users, groups, views -------------------------------------------------------------------------


def test_users_lookup_by_email(slack: WebClient) -> None:
    assert slack.users_lookupByEmail(email="ben@example.com")["user"]["id"] == "U0BEN"
    failure = error_of(lambda: slack.users_lookupByEmail(email="nobody@example.com"))
    assert failure.response["error"] == "users_not_found"


def test_users_info(slack: WebClient) -> None:
    user = slack.users_info(user="U0ANA")["user"]
    assert (user["name"], user["profile"]["email"]) == ("ana", "ana@example.com")
    assert error_of(lambda: slack.users_info(user="U0NOBODY")).response["error"] == "user_not_found"


def test_usergroup_members(slack: WebClient) -> None:
    assert slack.usergroups_users_list(usergroup="S0ONCALL")["users"] == ["U0ANA", "U0BEN"]
    failure = error_of(lambda: slack.usergroups_users_list(usergroup="S0NONE"))
    assert failure.response["error"] == "no_such_subteam"


def modal(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "modal", "title": {"type": "plain_text", "text": "Declare"}, "blocks": blocks}


def test_views_open(slack: WebClient, standin: SlackStandIn) -> None:
    field = {
        "type": "input",
        "label": {"type": "plain_text", "text": "Title"},
        "element": {"type": "plain_text_input", "action_id": "title"},
    }
    view = slack.views_open(trigger_id="123.456.abc", view=modal([field]))["view"]
    assert view["id"].startswith("V")
    assert view["blocks"] == [field]
    assert standin.views[0].trigger_id == "123.456.abc"
    failure = error_of(lambda: slack.views_open(trigger_id="123.456.abc", view=modal([field])))
    assert failure.response["error"] == "exchanged_trigger_id"


def test_views_open_errors(slack: WebClient) -> None:
    failure = error_of(lambda: slack.views_open(trigger_id="", view=modal([])))
    assert failure.response["error"] == "invalid_arguments"
    slack.views_open(trigger_id="1.1.a1", view=modal([{"type": "divider"}] * 100))
    failure = error_of(lambda: slack.views_open(trigger_id="1.2.a2", view=modal([{"type": "divider"}] * 101)))
    assert failure.response["error"] == "invalid_arguments"
    expected = "[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]"
    assert failure.response["response_metadata"]["messages"] == [expected]
    assert error_of(lambda: slack.views_open(trigger_id="t1", view=modal([]))).response["error"] == (
        "invalid_trigger_id"
    )
    huge = modal([section("x" * 3000)] * 90)
    assert error_of(lambda: slack.views_open(trigger_id="1.3.a3", view=huge)).response["error"] == (
        "view_too_large"
    )


def test_trigger_ids_expire_after_three_seconds(
    slack: WebClient, standin: SlackStandIn, clock: Clock
) -> None:
    fresh, stale = standin.trigger_id(), standin.trigger_id()
    clock.now += 3
    assert slack.views_open(trigger_id=fresh, view=modal([]))["ok"] is True
    clock.now += 1
    assert error_of(lambda: slack.views_open(trigger_id=stale, view=modal([]))).response["error"] == (
        "expired_trigger_id"
    )


# -- rate limiting --------------------------------------------------------------------------------


def test_rate_limit_is_retried_by_the_sdk_handler(
    slack: WebClient, standin: SlackStandIn, channel_id: str
) -> None:
    slack.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=2))
    standin.rate_limit("chat.postMessage", times=1, retry_after=1)
    started = time.monotonic()
    assert slack.chat_postMessage(channel=channel_id, text="after a wait")["ok"] is True
    assert time.monotonic() - started >= 1
    assert [call.error for call in standin.calls_to("chat.postMessage")] == ["ratelimited", None]
    assert len(standin.channel(channel_id).messages) == 1


def test_rate_limit_without_a_handler_raises(slack: WebClient, server: ServerThread, channel_id: str) -> None:
    """`/_sandbox/ratelimit` lets a person trigger the same thing by hand."""
    body = {"method": "chat.postMessage", "times": 2, "retry_after": 7}
    assert httpx.post(server.url + "/_sandbox/ratelimit", json=body).json()["ok"] is True
    for _ in range(2):
        failure = error_of(lambda: slack.chat_postMessage(channel=channel_id, text="x"))
        assert failure.response.status_code == 429
        assert failure.response["error"] == "ratelimited"
        assert failure.response.headers["Retry-After"] == "7"
    assert slack.chat_postMessage(channel=channel_id, text="x")["ok"] is True


def test_ratelimit_endpoint_rejects_bad_orders(server: ServerThread) -> None:
    for body in (
        {"times": 2},
        {"method": "chat.postMessage", "times": 0},
        {"method": "x", "retry_after": -1},
    ):
        assert httpx.post(server.url + "/_sandbox/ratelimit", json=body).status_code == 400
