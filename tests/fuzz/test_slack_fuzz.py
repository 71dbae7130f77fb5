"""`POST /slack/events` under hostile input: forged requests are refused with nothing done, and signed
but malformed ones (fuzzed commands, clicks, modal submissions, events, bodies) never fail the server
or a listener, never change what they must not, and tell the user why when the bot answers."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.domain import Category
from bot.sandbox.pack import load_pack
from bot.sandbox.up import SLACK_SIGNING_SECRET, Sandbox
from bot.slack.ids import ActionId, CallbackId
from bot.store.models import JobRow
from bot.triage.taxonomy import UNATTRIBUTED
from tests.slack.conftest import SURGE, SlackBot, eventually, running_bot, slack_config
from tests.support.store import totals

pytestmark = pytest.mark.timeout(240)
Logs = pytest.LogCaptureFixture

APPROVER = "U0BOB"
FORM = "application/x-www-form-urlencoded"
QUIET = [*HealthCheck]  # the examples share one running bot
FUZZ = settings(max_examples=20, derandomize=True, database=None, deadline=None, suppress_health_check=QUIET)
MENTIONS = st.sampled_from(["<!channel>", "<!here>", "<@U123>", "<#C0FAKE|general>", "<!subteam^S0ONCALL>"])
ODD = ["\x00", "\u202e", "\ud800", "🔥" * 50, "a" * 5000, "  ", "\n\t", "%00", "999999999999999999999"]
TEXT = st.text(max_size=40) | st.text(st.characters(codec="utf-8"), max_size=40)
WEIRD = TEXT | MENTIONS | st.sampled_from(ODD)
CLEAN = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)  # what a form can carry
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | WEIRD,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
IDS = WEIRD | JSON | st.integers() | st.integers().map(str) | st.sampled_from(["-1", " 1 ", "1.0", "\u0661"])
UNKNOWN_CODES = st.from_regex(r"[A-Z]{2,5}_[A-Z0-9_]{1,8}", fullmatch=True)
CHANNEL_VERBS = ["status", "triage", "tag", "severity", "ack", "note", "timeline", "resolve"]
LEVELS, CATEGORIES = {"critical", "major", "minor", "info"}, {c.value for c in Category}


@dataclass
class World:
    """The bot, an incident of the pack with its channel and proposals, and a channel of no incident."""

    bot: SlackBot
    incident_id: int
    channel: str
    lobby: str
    proposals: list[int]

    def url(self, channel: str | None = None, user: str = "U0ANA") -> str:
        return self.bot.slack.response_url(self.bot.slack_url, channel or self.channel, user)

    def proposal_state(self) -> list[tuple[int, str]]:
        return [(p.id, p.status) for p in self.bot.deps.services.actions.list(self.incident_id)]

    def timeline_kinds(self) -> list[str]:
        return [e.kind.value for e in self.bot.deps.services.incidents.get(self.incident_id).timeline]

    def unknown_code(self, code: str) -> bool:
        """Whether a final tag may not name `code` (neither a code of the taxonomy nor an alias)."""
        try:
            return self.bot.deps.services.incidents.taxonomy.resolve(code) == UNATTRIBUTED
        except KeyError:
            return True


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    config = slack_config(None).model_copy(update={"approvers": [APPROVER]})
    database_url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'bot.db'}"
    pack = load_pack(SURGE)
    with Sandbox(pack) as sandbox, running_bot(sandbox, database_url, config=config) as bot:
        incident_id = bot.alert(pack.alert_body)
        bot.wait_for(incident_id, "triage_posted")
        proposals = [p.id for p in bot.deps.services.actions.list(incident_id)]
        assert proposals, "the pack's triage proposes actions"
        lobby = bot.slack.add_channel(f"lobby-{time.monotonic_ns()}", members=["UBOT", "U0ANA"]).id
        yield World(bot, incident_id, bot.channel(incident_id).id, lobby, proposals)


def settled(bot: SlackBot) -> dict[str, int]:
    """The store's totals once the worker has no due job left and the bot has stopped calling Slack."""
    deadline = time.monotonic() + 60
    while True:
        with bot.deps.db.reader() as session:
            due = JobRow.status.in_(["queued", "running"]) & (JobRow.run_after <= datetime.now(UTC))
            busy = session.scalars(select(JobRow.id).where(due)).all()
        calls = len(bot.slack.calls)
        time.sleep(0.3)
        if not busy and calls == len(bot.slack.calls):
            return totals(bot.deps.db)
        assert time.monotonic() < deadline, f"the bot never settled: jobs {busy}"


def failures(caplog: Logs) -> list[str]:
    """Errors a listener or bolt logged (a listener that raised, a middleware that failed)."""
    ours = [r for r in caplog.records if r.name.startswith(("slack_bolt", "bot.slack")) or r.exc_info]
    return [caplog.handler.format(r) for r in ours if r.levelno >= logging.ERROR]


def signature(secret: str, stamp: str, body: bytes) -> str:
    return "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()


def post(bot: SlackBot, body: bytes, kind: str = FORM, headers: dict[str, str] | None = None) -> Any:
    """`body` signed as Slack signs it (over the raw bytes), unless `headers` say otherwise."""
    at = str(int(time.time()))
    signed = {"X-Slack-Request-Timestamp": at, "X-Slack-Signature": signature(SLACK_SIGNING_SECRET, at, body)}
    sent = {"Content-Type": kind, **(signed if headers is None else headers)}
    return httpx.post(f"{bot.url}/slack/events", content=body, headers=sent, timeout=15)


def click(world: World, action: dict[str, Any], user: Any, url: str, **extra: Any) -> dict[str, Any]:
    """A block_actions payload as Slack posts it for a button on the incident's triage post."""
    who = {"user": {"id": user, "team_id": "T0SANDBOX"}, "team": {"id": "T0SANDBOX"}, "response_url": url}
    where = {"container": {"type": "message", "channel_id": world.channel}, "channel": {"id": world.channel}}
    sent = {
        "trigger_id": world.bot.slack.trigger_id(),
        "actions": [{"type": "button", "block_id": "b", **action}],
    }
    return {"type": "block_actions", **who, **where, **sent, **extra}


def interaction(bot: SlackBot, payload: dict[str, Any]) -> httpx.Response:
    return post(bot, urlencode({"payload": json.dumps(payload)}).encode())


def slash(world: World, text: str, channel: str, user: str = "U0ANA", url: str | None = None) -> bytes:
    """`/incident text` as Slack posts it, from `user` (who may be no one); lone surrogates as raw bytes."""
    slack = world.bot.slack
    payload = slack.slash_command(world.bot.slack_url, "/incident", user_id="U0ANA", channel_id=channel)
    payload |= {"user_id": user, "response_url": url or world.url(channel), "text": text}
    return urlencode(payload, errors="surrogatepass").encode()


# -- forged requests ------------------------------------------------------------------------------

FORGERIES = ["unsigned", "wrong secret", "stale", "future", "other body", "garbled", "bad stamp"]
STAMPS = st.sampled_from(["", "abc", "-1", "1e9", "9" * 30, "12.5", "0x1f"])


def test_forged_requests_are_refused_and_nothing_happens(world: World) -> None:
    """An approver's click or any command, unsigned or signed wrongly, stale or replayed with another
    body: 401, and no row, no timeline event, no Slack call, no answer."""
    bot = world.bot
    before, calls, proposals, urls = settled(bot), len(bot.slack.calls), world.proposal_state(), []

    @FUZZ
    @given(st.sampled_from(FORGERIES), STAMPS, st.sampled_from(["new", "note", "resolve", "approve"]), WEIRD)
    def attempt(forgery: str, stamp: str, verb: str, text: str) -> None:
        urls.append(url := world.url(user=APPROVER))
        action = {"action_id": "approve-proposal", "value": str(world.proposals[0])}  # the approver's own
        clicked = urlencode({"payload": json.dumps(click(world, action, APPROVER, url))}).encode()
        body = clicked if verb == "approve" else slash(world, f"{verb} x{text}", world.channel, APPROVER, url)
        now = int(time.time())
        at = {"stale": str(now - 301), "future": str(now + 360), "bad stamp": stamp}.get(forgery, str(now))
        mac = signature("not-the-secret" if forgery == "wrong secret" else SLACK_SIGNING_SECRET, at, body)
        mac = "v0=" + "0" * 64 if forgery == "garbled" else mac
        headers = {"X-Slack-Request-Timestamp": at, "X-Slack-Signature": mac}
        sent = body + b"&text=resolve+forged" if forgery == "other body" else body
        answer = post(bot, sent, headers={} if forgery == "unsigned" else headers)
        assert answer.status_code == 401, (answer.status_code, answer.text)
        assert totals(bot.deps.db) == before and len(bot.slack.calls) == calls

    attempt()
    time.sleep(1)  # what a listener would have done after its ack
    assert totals(bot.deps.db) == before and len(bot.slack.calls) == calls
    assert world.proposal_state() == proposals and not [url for url in urls if bot.slack.responses(url)]


# -- signed but hostile commands ------------------------------------------------------------------


def first_word(text: str) -> str:
    return text.replace("\x00", "").encode("utf-8", "replace").decode().strip().partition(" ")[0].lower()


def refused_commands(world: World) -> st.SearchStrategy[tuple[str, str, str, str]]:
    """(text, channel, user, what the answer starts with) of commands the bot must refuse; "" for any
    text but `new` in a channel of no incident (unicode, NUL, lone surrogates, markup, 5000 characters)."""
    here, lobby, ana = world.channel, world.lobby, "U0ANA"
    verb = CLEAN.filter(lambda v: v.split() == [v])
    heads = st.sampled_from(["", *CHANNEL_VERBS, "HELP", "ack\n"])
    anything = st.tuples(heads, WEIRD | MENTIONS.map(" ".__add__)).map("".join)
    unknown = verb.filter(lambda v: v.lower() not in {"help", "new", *CHANNEL_VERBS})
    level = CLEAN.filter(lambda w: w.strip().lower() not in LEVELS).map("severity ".__add__)
    tag = verb.filter(lambda w: w.lower() not in CATEGORIES).map("tag {} as said".format)
    code = UNKNOWN_CODES.filter(world.unknown_code).map("resolve {} surge over".format)
    cases = [
        (anything.filter(lambda t: first_word(t) != "new"), lobby, ana, ""),
        (unknown, here, ana, "Unknown subcommand `"),
        (level, here, ana, "Severity is one of"),
        (tag, here, ana, "Tag with one of"),
        (code, here, ana, ":warning:"),
        (st.sampled_from(["ack", "note hi", "resolve done", "triage"]), here, "", ":warning: every change"),
        (st.sampled_from(["note", "resolve ", "note  \t", "resolve"]), here, ana, "Say "),
    ]
    where = "`/incident {}` works in an incident's channel"
    elsewhere = st.tuples(st.sampled_from(CHANNEL_VERBS), WEIRD)
    elsewhere = elsewhere.map(lambda c: (" ".join(c), lobby, ana, where.format(c[0])))
    return elsewhere | st.one_of([st.tuples(t, st.just(c), st.just(u), st.just(w)) for t, c, u, w in cases])


def test_refused_commands_say_why_and_change_nothing(world: World, caplog: Logs) -> None:
    """Anything but `new` where no incident is, unknown subcommands, levels, categories or codes, no
    actor, no argument: 200 at once, one ephemeral answer saying why (markup escaped), no row changes."""
    before, timeline = settled(world.bot), world.timeline_kinds()

    @FUZZ
    @given(refused_commands(world))
    def attempt(case: tuple[str, str, str, str]) -> None:
        text, channel, user, starts = case
        url = world.url(channel)
        answer = post(world.bot, slash(world, text, channel, user, url))
        assert (answer.status_code, answer.text) == (200, "")
        [said] = world.bot.replies(url)
        assert said.startswith(starts) and "<!channel>" not in said and "<!here>" not in said, said
        assert world.bot.slack.responses(url)[0].response_type == "ephemeral"
        assert totals(world.bot.deps.db) == before, text
        assert not failures(caplog)

    attempt()
    assert world.timeline_kinds() == timeline


# -- clicks, the resolve form --------------------------------------------------------------------

USERS = st.sampled_from(["U0ANA", "U0CAROL", "UBOT", "S0ONCALL", "bob@example.com", ""]) | WEIRD | JSON
NOT_APPROVERS = USERS.filter(lambda u: not (isinstance(u, str) and first_word(u) == APPROVER.lower()))
VERBS = st.sampled_from(["approve", "reject", "undo"])
DECISIONS = VERBS.map("{}-proposal".format) | VERBS.flatmap(lambda verb: WEIRD.map(verb.__add__))


def test_a_non_approver_click_never_runs_an_action(world: World, caplog: Logs) -> None:
    """Approve / reject / undo from anyone but the approver, on real, unknown or garbled proposal ids:
    every proposal stays proposed, nothing is queued, only refusals are audited, the clicker is told."""
    before, proposals, kinds = settled(world.bot), world.proposal_state(), world.timeline_kinds()
    reasons = ("Nothing was changed.", "not exist", "unknown here", "an actor")

    @FUZZ
    @given(DECISIONS, st.sampled_from([str(p) for p in world.proposals]) | IDS, NOT_APPROVERS, st.booleans())
    def attempt(action_id: str, value: Any, user: Any, user_as_id: bool) -> None:
        payload = click(world, {"action_id": action_id, "value": value}, user, url := world.url())
        answer = interaction(world.bot, payload | ({"user": user} if user_as_id else {}))
        assert answer.status_code in (200, 400), answer.text  # 400: a `user` Slack never sends
        assert answer.status_code == 400 or any(why in world.bot.replies(url)[0] for why in reasons)
        added = world.timeline_kinds()[len(kinds) :]
        assert world.proposal_state() == proposals and set(added) <= {"action_refused"}, added
        assert totals(world.bot.deps.db) == before | {"timeline": before["timeline"] + len(added)}
        assert not failures(caplog)

    attempt()
    assert "action_refused" in world.timeline_kinds()[len(kinds) :]  # the approver check itself was reached


def test_the_resolve_button_opens_the_form_or_says_why(world: World, caplog: Logs) -> None:
    """Only the real incident with a live trigger opens the form; any other click is told why; no click
    changes the store."""
    before, views, incident = settled(world.bot), len(world.bot.slack.views), str(world.incident_id)

    @FUZZ
    @given(st.just(incident) | IDS, st.sampled_from(["fresh", None, "used-or-unknown"]) | WEIRD)
    def attempt(value: Any, trigger: Any) -> None:
        url, opened = world.url(), len(world.bot.slack.views)
        extra = {} if trigger == "fresh" else {"trigger_id": trigger}
        action = {"action_id": ActionId.RESOLVE.value, "value": value}
        answer = interaction(world.bot, click(world, action, "U0ANA", url, **extra))
        assert answer.status_code == 200, answer.text
        if trigger == "fresh" and type(value) in (str, int) and str(value).strip() == incident:
            eventually(lambda: len(world.bot.slack.views) > opened)
        else:
            [said] = world.bot.replies(url)
            assert any(why in said for why in ("unknown here", "does not exist", "did not open")), said
        assert totals(world.bot.deps.db) == before and not failures(caplog)

    attempt()
    assert len(world.bot.slack.views) > views


@st.composite
def submissions(draw: st.DrawFn, world: World) -> dict[str, Any]:
    """The resolve form submitted with fuzzed state and metadata, none of which may resolve anything."""
    real = json.dumps({"incident_id": world.incident_id, "channel_id": world.channel})
    named = st.fixed_dictionaries({"incident_id": IDS | st.just(999999), "channel_id": WEIRD}).map(json.dumps)
    meta = draw(st.just(real) | named | WEIRD | JSON.map(json.dumps))
    refused = UNKNOWN_CODES.filter(world.unknown_code)  # the real incident's form: only a refused code
    code = draw(refused if meta == real else st.none() | WEIRD | UNKNOWN_CODES)
    category = draw(st.none() | WEIRD | st.sampled_from([c.value for c in Category]))
    reason = draw(CLEAN.filter(str.strip) | CLEAN.filter(str.strip) | WEIRD | st.none() | JSON)
    values = {
        "reason": {"reason-input": {"type": "plain_text_input", "value": reason}},
        "final-category": {"final-category-select": {"selected_option": category and {"value": category}}},
        "final-code": {"final-code-select": {"selected_option": code and {"value": code}}},
    }
    state = draw(st.sampled_from([{"values": values}] * 2) | JSON | JSON.map(lambda j: {"values": j}))
    view = {
        "type": "modal",
        "callback_id": CallbackId.RESOLVE.value,
        "private_metadata": meta,
        "state": state,
    }
    user = draw(st.sampled_from([{"id": "U0ANA"}, {"id": "U0ANA"}, {}, {"id": ""}, {"id": None}, {"id": 5}]))
    return {"type": "view_submission", "user": user, "view": view}


def test_a_malformed_resolve_form_is_refused_in_the_form(world: World, caplog: Logs) -> None:
    """No reason, metadata the bot did not write, no user, a code the taxonomy refuses: the form itself
    says why, and nothing is resolved."""
    before, said = settled(world.bot), []

    @FUZZ
    @given(submissions(world))
    def attempt(payload: dict[str, Any]) -> None:
        answer = interaction(world.bot, payload)
        assert answer.status_code == 200, answer.text
        errors = answer.json()
        assert errors["response_action"] == "errors" and all(errors["errors"].values()), errors
        said.extend(errors["errors"].values())
        assert totals(world.bot.deps.db) == before and not failures(caplog)

    attempt()
    assert len(set(said)) >= 3  # each refusal was reached: no reason, not the bot's form, a refused code


# -- bodies bolt cannot read, events --------------------------------------------------------------


@st.composite
def broken(draw: st.DrawFn, world: World) -> tuple[bytes, str]:
    """A signed body bolt cannot read, or a payload (an unknown event too) with fields dropped or retyped."""
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return draw(st.binary(max_size=60)), draw(st.sampled_from([FORM, "application/json", "text/plain"]))
    if kind == 1:
        return b"payload=" + draw(WEIRD | JSON.map(json.dumps)).encode("utf-8", "surrogatepass"), FORM
    if kind == 2:
        return json.dumps(draw(JSON)).encode(), "application/json"
    mention = {"type": "app_mention", "user": "U0ANA", "text": "<@UBOT>", "ts": "1.1", "channel": world.lobby}
    bases = [
        {"type": "event_callback", "event": {"type": draw(WEIRD), "channel": draw(JSON)}},
        {"type": "event_callback", "team_id": "T0SANDBOX", "event": mention},
        {"type": "url_verification", "challenge": "c-1"},
        click(world, {"action_id": "approve-proposal", "value": "999999"}, "U0ANA", world.url()),
    ]
    payload = draw(st.sampled_from(bases) | submissions(world))
    for _ in range(draw(st.integers(0, 3))):  # drop or retype a field, at the top or one level down
        inner = [k for k, v in payload.items() if isinstance(v, dict)]
        where = payload[draw(st.sampled_from(inner))] if inner and draw(st.booleans()) else payload
        key = draw(st.sampled_from(sorted(where) or ["type"]))
        where.pop(key, None) if draw(st.booleans()) else where.update({key: draw(JSON)})
    body = json.dumps(payload).encode()
    form = (urlencode({"payload": body}).encode(), FORM)
    return form if draw(st.booleans()) else (body, "application/json")


def test_malformed_bodies_and_unknown_events_never_fail(world: World, caplog: Logs) -> None:
    """Bytes, a `payload` that is not JSON, JSON of the wrong shape, dropped or retyped fields, unknown
    events: a 2xx or 4xx answer (never 5xx), no listener failure, nothing stored."""
    before = settled(world.bot)

    @FUZZ
    @given(broken(world))
    def attempt(case: tuple[bytes, str]) -> None:
        answer = post(world.bot, *case)
        assert answer.status_code < 500, (answer.status_code, answer.text)
        time.sleep(0.1)  # a matched listener runs after the ack
        assert totals(world.bot.deps.db) == before and not failures(caplog)

    attempt()
    check = post(world.bot, b'{"type": "url_verification", "challenge": "c-1"}', "application/json")
    assert check.json() == {"challenge": "c-1"} and not failures(caplog)  # Slack's URL check still answered


@pytest.mark.parametrize("title", ["nul\x00in the middle", "<!channel> 🔥 \u202eevil", "long " * 200])
def test_new_keeps_a_hostile_title_as_text(world: World, title: str) -> None:
    """`/incident new` declares with what was typed, as text the store keeps (no NUL, 500 characters)."""
    url = world.url(world.lobby)
    assert post(world.bot, slash(world, f"new {title}", world.lobby, url=url)).status_code == 200
    incident_id = int(world.bot.replies(url)[0].split()[1])
    stored = world.bot.deps.services.incidents.get(incident_id).incident.title
    assert stored == " ".join(title.replace("\x00", "").split())[:500]
