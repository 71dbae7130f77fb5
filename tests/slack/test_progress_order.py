"""The channel's first message is the pinned announcement: with several workers the triage job can
start while the announcement job is still setting the channel up, and its progress post waits."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from slack_sdk import WebClient

from bot.config import BotConfig
from bot.deps import build_services
from bot.sandbox.pack import load_pack
from bot.sandbox.server import ServerThread
from bot.sandbox.slack import SlackStandIn
from bot.settings import Settings
from bot.slack.client import ChannelPacer
from bot.slack.publisher import ProgressPoster
from bot.store.db import create_database
from bot.triage.progress import ProgressEvent
from tests.slack.conftest import SURGE


def test_progress_waits_for_the_announcement_then_posts(tmp_path: Path) -> None:
    settings = Settings.model_validate({"database_url": f"sqlite:///{tmp_path / 'bot.db'}"})
    db = create_database(settings.database_url, pool_size=2)
    db.upgrade()
    services = build_services(settings, config=BotConfig(), db=db)
    opened = services.intake.ingest(load_pack(SURGE).alert)
    assert opened.incident_id is not None
    incident = services.incidents.get(opened.incident_id).incident
    slack = SlackStandIn(token="xoxb-test")
    channel = slack.add_channel("inc-order", members=["UBOT"])
    # The announcement job has created the channel, not yet posted its announcement.
    services.chat.claim(incident.id, name=channel.name, owner="announce-job", lease=timedelta(minutes=1))
    services.chat.created(incident.id, owner="announce-job", channel_id=channel.id, name=channel.name)
    with ServerThread(slack.app, name="slack") as server:
        client = WebClient(token="xoxb-test", base_url=f"{server.url}/api/")
        progress = ProgressPoster(client, services.chat, incident, 1, ChannelPacer(interval=0.0), every=0.0)
        progress(ProgressEvent(step="gather", tool="prometheus", ms=5))
        assert slack.calls_to("chat.postMessage") == []
        assert services.chat.message(incident.id, "progress", 1) is None

        posted = client.chat_postMessage(channel=channel.id, text="announcement")
        services.chat.record_message(incident.id, "announcement", channel_id=channel.id, ts=str(posted["ts"]))
        progress(ProgressEvent(step="gather", tool="elasticsearch", ms=7))
        messages = slack.channel(channel.id).messages
        assert len(messages) == 2 and messages[0].text == "announcement"
        assert services.chat.message(incident.id, "progress", 1) is not None
    db.dispose()
