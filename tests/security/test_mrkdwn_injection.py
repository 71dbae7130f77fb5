"""Text from alerts, logs and the cluster reaches Slack as text: it cannot ping (`<!channel>`,
`<!here>`, `<!everyone>`, a user group, a user), forge a link (`<https://evil|click>`), open a code
block, or turn an escape it carries (`&lt;`) into the character. End to end: a pack planted with
them is announced and triaged against the Slack stand-in, whose recorded messages are checked;
then `escape` and `link` themselves, over any text Hypothesis makes."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.announce import Announcement
from bot.config import BotConfig, Service
from bot.sandbox.pack import load_pack
from bot.sandbox.up import Sandbox
from bot.slack.blocks.announcement import notice_text
from bot.slack.blocks.text import escape, link
from tests.conftest import ROOT
from tests.slack.conftest import running_bot

pytestmark = pytest.mark.timeout(240)

OOM = ROOT / "scenarios" / "cuda-oom-after-max-num-seqs-rollout"
SERVICE = "vllm-mistral-small-24b"
PINGS = "<!channel> <!here> <!everyone> <!subteam^S0ONCALL> <@U0BOB>"
FORGED = "<https://evil.example/login|open the dashboard>"
FORMAT = "*boom* _it_ ~gone~ ``` &lt;b&gt; & more"
HOSTILE = f"{PINGS} {FORGED} {FORMAT}"
MENTIONS = ("<!channel>", "<!here>", "<!everyone>", "<!subteam^", "<@U0BOB>")
MESSAGE_METHODS = ("chat.postMessage", "chat.update", "chat.postEphemeral")


def plant(target: Path) -> None:
    """The OOM pack with mentions, links and formatting in its alert, log lines and events."""
    alert = json.loads((target / "alert.json").read_text())
    for holder in (alert["commonAnnotations"], *(a["annotations"] for a in alert["alerts"])):
        holder["summary"] = f"5xx above 3% {HOSTILE}"
        holder["value"] = f"0.1275 {PINGS}"
        holder["runbook_url"] += "|<!channel>> <https://evil.example|x>"
    (target / "alert.json").write_text(json.dumps(alert))
    lines = []
    for line in (target / "logs.ndjson").read_text().splitlines():
        doc = json.loads(line)
        if "EngineCore encountered a fatal error." in doc["message"]:
            doc["message"] = doc["message"].replace("fatal error.", f"fatal error. {HOSTILE}")
        lines.append(json.dumps(doc))
    (target / "logs.ndjson").write_text("\n".join(lines) + "\n")
    objects = list(yaml.safe_load_all((target / "k8s.yaml").read_text()))
    for obj in objects:
        if obj["kind"] == "Event" and obj.get("reason") == "BackOff":
            obj["message"] += f" {HOSTILE}"
    (target / "k8s.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))


def mrkdwn_texts(value: Any) -> Iterator[str]:
    """Every text Slack parses as mrkdwn in a list of blocks (plain_text is shown as it is)."""
    if isinstance(value, dict):
        if value.get("type") == "mrkdwn" and isinstance(value.get("text"), str):
            yield value["text"]
        for item in value.values():
            yield from mrkdwn_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from mrkdwn_texts(item)


@pytest.fixture(scope="module")
def posted(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The mrkdwn of every message the bot posted or edited: its `text` and its blocks' texts."""
    folder = tmp_path_factory.mktemp("hostile")
    target = folder / "pack"
    shutil.copytree(OOM, target)
    plant(target)
    config = BotConfig(
        services=[Service(name=SERVICE, responders=["U0ANA"])],
        runbook_url="https://git.example/ops/runbooks/{file}",
    )
    with (
        Sandbox(load_pack(target)) as sandbox,
        running_bot(sandbox, f"sqlite:///{folder / 'bot.db'}", config=config) as bot,
    ):
        incident = bot.alert((target / "alert.json").read_bytes())
        bot.wait_for(incident, "triage_posted", timeout=120)
        calls = [c for c in bot.slack.calls if c.method in MESSAGE_METHODS and c.error is None]
    texts: list[str] = []
    for call in calls:
        texts.append(str(call.params.get("text", "")))
        blocks = call.params.get("blocks") or "[]"
        texts += mrkdwn_texts(json.loads(blocks) if isinstance(blocks, str) else blocks)
    return texts


def test_the_hostile_text_reached_slack_escaped(posted: list[str]) -> None:
    """The planted text is in the announcement and the triage post, as characters to read."""
    said = "\n".join(posted)
    assert "&lt;!channel&gt; &lt;!here&gt; &lt;!everyone&gt; &lt;!subteam^S0ONCALL&gt; &lt;@U0BOB&gt;" in said
    assert "&lt;https://evil.example/login|open the dashboard&gt;" in said
    assert "&amp;lt;b&amp;gt; &amp; more" in said  # shown as `&lt;b&gt; & more`, as it was written
    assert "fatal error. &lt;!channel&gt;" in said  # the log line, in the triage's evidence


def test_nothing_planted_pings_or_links(posted: list[str]) -> None:
    for text in posted:
        assert not [m for m in MENTIONS if m in text], text
        for token in re.findall(r"<([^<>]*)>", text):
            if token.startswith("!date^") or token == "@U0ANA":  # the bot's own: times, the responder
                continue
            if re.fullmatch(r"#C[0-9A-Z]+", token):  # the incident's own channel, linked by the notice
                continue
            assert token.startswith(("http://", "https://")), text
            url = token.split("|", 1)[0]
            assert urlsplit(url).hostname != "evil.example" and " " not in url, text


def test_no_planted_backticks_open_a_code_block(posted: list[str]) -> None:
    for text in posted:
        assert text.count("```") % 2 == 0, text
    assert any("~gone~ ` ` ` &amp;lt;b&amp;gt;" in text for text in posted)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet=st.sampled_from(list("<>&|!@^*_~`#:/ aS0Uhttps.lt;gamp")), max_size=60) | st.text())
def test_escaped_text_has_no_control_characters_left(text: str) -> None:
    out = escape(text)
    assert "<" not in out and ">" not in out and "```" not in out
    assert re.fullmatch(r"(?:[^&]|&(?:amp|lt|gt);)*", out, re.S)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(path=st.text(max_size=30), label=st.text(max_size=30))
def test_a_link_is_one_link_whatever_its_url_and_label(path: str, label: str) -> None:
    out = link(f"https://grafana.example/d/{path}", label)
    assert out.count("<") == 1 and out.count(">") == 1 and out.count("|") == 1
    assert out.startswith("<https://grafana.example/d/") and out.endswith(">")
    assert not any(c.isspace() for c in out.split("|", 1)[0])


def test_the_announcements_channel_line_is_escaped() -> None:
    """The one line of the announcements channel: its builder escapes the alert's title."""
    a = Announcement(
        incident_id=4,
        title=HOSTILE,
        severity="critical",
        service=None,
        model=None,
        namespace=None,
        query=None,
        value=None,
        started_at=datetime(2026, 6, 1, tzinfo=UTC),
        dashboards=[],
        responders=[],
    )
    text = notice_text(a, "C0INCIDENT")
    assert not [m for m in MENTIONS if m in text] and "<https://evil" not in text
    assert text.endswith(" — <#C0INCIDENT>") and "```" not in text
