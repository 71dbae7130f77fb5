"""The Slack publisher: the incident channel and its announcement, the triage's progress message
that becomes the triage post, the chart in its thread, the notice that every alert resolved, the
resolution summary with the postmortem draft in its thread, and the channel archived.

Runs in the worker's threads with the sync Web API client. Every post is recorded by purpose, so
a retried job edits what it posted instead of posting it again; a refused call becomes a
PublishError naming the call and Slack's error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.announce import Announcement
from bot.chatstore import ChatStore
from bot.config import BotConfig
from bot.domain import ChatChannel, Incident, StoredTriage
from bot.incidents import IncidentService
from bot.postmortem.model import Postmortem
from bot.postmortem.render import markdown
from bot.promql import split_threshold
from bot.publish import PublishError
from bot.slack.blocks.notices import resolved_blocks
from bot.slack.blocks.progress import ProgressView
from bot.slack.blocks.resolution import summary_blocks, summary_text
from bot.slack.blocks.triage import triage_blocks, triage_text
from bot.slack.channels import ChannelSetup
from bot.slack.charts import Chart, Mark, render
from bot.slack.client import SLACK_FAULTS, ChannelPacer, failed
from bot.triage.progress import Progress, ProgressEvent
from bot.triage.redact import redact
from tools.prometheus import PrometheusTool
from tools.result import Window, parse_time

log = logging.getLogger(__name__)
PROGRESS_EVERY = 1.5  # seconds between edits of a progress message (chat.update is Tier 3)


class SlackPublisher:
    """Posts an incident's messages in its own channel."""

    def __init__(
        self,
        client: WebClient,
        store: ChatStore,
        incidents: IncidentService,
        config: BotConfig,
        *,
        prometheus: PrometheusTool | None = None,
        pacer: ChannelPacer | None = None,
    ) -> None:
        self._client = client
        self._store = store
        self._incidents = incidents
        self._config = config
        self._prometheus = prometheus
        self._pacer = pacer or ChannelPacer()
        self._channels = ChannelSetup(client, store, config, self._pacer)

    def announce(self, incident: Incident, announcement: Announcement) -> str:
        channel = self._channels.ensure(incident, announcement)
        return f"in Slack channel #{channel.name} ({channel.channel_id})"

    def progress(self, incident: Incident, run: int) -> Progress | None:
        return ProgressPoster(self._client, self._store, incident, run, self._pacer)

    def post_triage(self, incident: Incident, triage: StoredTriage) -> str:
        channel = self._channel(incident)
        assert channel.channel_id is not None
        cid, run = channel.channel_id, triage.run
        blocks = triage_blocks(
            incident,
            triage,
            self._incidents.proposals(incident.id, run),
            runbook_url=self._runbook_url(triage),
        )
        text = triage_text(incident, triage)
        posted = self._store.message(incident.id, "triage", run) or self._store.message(
            incident.id, "progress", run
        )
        try:
            self._pacer.wait(cid)
            if posted is not None:  # the progress message becomes the triage (or a retry edits it again)
                self._client.chat_update(channel=cid, ts=posted.ts, text=text, blocks=blocks)
                ts = posted.ts
            else:
                ts = str(
                    self._client.chat_postMessage(channel=cid, text=text, blocks=blocks, unfurl_links=False)[
                        "ts"
                    ]
                )
        except SLACK_FAULTS as exc:
            raise failed(exc, "chat.update" if posted else "chat.postMessage") from exc
        self._store.record_message(incident.id, "triage", channel_id=cid, ts=ts, run=run)
        self._post_chart(incident, triage, cid, ts)
        return f"in Slack channel #{channel.name} (message {ts})"

    def actions_changed(self, incident: Incident, triage: StoredTriage) -> None:
        """Edit the triage post in place: each proposal as it now stands (who, what came of it, Undo)."""
        posted = self._store.message(incident.id, "triage", triage.run)
        if posted is None:
            return
        blocks = triage_blocks(
            incident,
            triage,
            self._incidents.proposals(incident.id, triage.run),
            runbook_url=self._runbook_url(triage),
        )
        try:
            self._pacer.wait(posted.channel_id)
            self._client.chat_update(
                channel=posted.channel_id, ts=posted.ts, text=triage_text(incident, triage), blocks=blocks
            )
        except SLACK_FAULTS as exc:
            raise failed(exc, "chat.update") from exc

    def alerts_resolved(self, incident: Incident) -> str:
        channel = self._channel(incident)
        assert channel.channel_id is not None
        text = f"Every alert of incident {incident.id} has resolved: resolve it when you are sure."
        try:
            self._pacer.wait(channel.channel_id)
            self._client.chat_postMessage(
                channel=channel.channel_id, text=text, blocks=resolved_blocks(incident)
            )
        except SLACK_FAULTS as exc:
            raise failed(exc, "chat.postMessage") from exc
        return f"in Slack channel #{channel.name}"

    def resolved(self, incident: Incident, postmortem: Postmortem) -> str:
        """The summary, then the draft as a Markdown file in its thread; a retry posts only what is missing."""
        channel = self._channel(incident)
        assert channel.channel_id is not None
        cid, posted = channel.channel_id, self._store.message(incident.id, "resolution")
        try:
            if posted is None:
                self._pacer.wait(cid)
                answer = self._client.chat_postMessage(
                    channel=cid,
                    text=summary_text(postmortem),
                    blocks=summary_blocks(postmortem),
                    unfurl_links=False,
                )
                ts = str(answer["ts"])
                self._store.record_message(incident.id, "resolution", channel_id=cid, ts=ts)
            else:
                ts = posted.ts
            if self._store.message(incident.id, "postmortem") is None:
                self._pacer.wait(cid)
                uploaded = self._client.files_upload_v2(
                    channel=cid,
                    thread_ts=ts,
                    content=markdown(postmortem),
                    filename=f"incident-{incident.id}-postmortem.md",
                    title=f"Postmortem draft: incident {incident.id}",
                )
                self._store.record_message(incident.id, "postmortem", channel_id=cid, ts=_file_id(uploaded))
        except SLACK_FAULTS as exc:
            raise failed(
                exc, "chat.postMessage" if posted is None else "files.completeUploadExternal"
            ) from exc
        return f"in Slack channel #{channel.name} (message {ts})"

    def archive(self, incident: Incident) -> str:
        channel = self._channel(incident)
        assert channel.channel_id is not None
        try:
            self._client.conversations_archive(channel=channel.channel_id)
        except SlackApiError as exc:
            if (exc.response or {}).get("error") != "already_archived":  # a human was quicker: done
                raise failed(exc, "conversations.archive") from exc
        except OSError as exc:
            raise failed(exc, "conversations.archive") from exc
        return f"in Slack (#{channel.name})"

    # -- helpers -------------------------------------------------------------------------------
    def _channel(self, incident: Incident) -> ChatChannel:
        channel = self._store.channel(incident.id)
        if channel is None or channel.channel_id is None:
            raise PublishError(
                f"incident {incident.id} has no Slack channel yet (its announcement comes first)"
            )
        return channel

    def _runbook_url(self, triage: StoredTriage) -> str | None:
        template, path = self._config.runbook_url, triage.result.runbook
        if not template or not path:
            return None
        file = path.rsplit("/", 1)[-1]
        return template.format(file=file, id=file.removesuffix(".md"))

    def _post_chart(self, incident: Incident, triage: StoredTriage, channel: str, ts: str) -> None:
        """The burning signal in the triage's thread (files upload v2); once per run."""
        if self._store.message(incident.id, "chart", triage.run) is not None:
            return
        chart = self._chart(incident, triage)
        if chart is None:
            return
        try:
            self._pacer.wait(channel)  # completing the upload posts it in the thread
            uploaded = self._client.files_upload_v2(
                channel=channel,
                thread_ts=ts,
                file=render(chart),
                filename=f"incident-{incident.id}-triage-{triage.run}.png",
                title=chart.title,
                alt_txt=chart.alt_text()[:1000],
            )
        except SLACK_FAULTS as exc:
            raise failed(exc, "files.completeUploadExternal") from exc
        self._store.record_message(
            incident.id, "chart", channel_id=channel, ts=_file_id(uploaded), run=triage.run
        )

    def _chart(self, incident: Incident, triage: StoredTriage) -> Chart | None:
        result = triage.result
        if self._prometheus is None or not incident.query or result.as_of is None:
            return None
        split = split_threshold(incident.query)
        signal, threshold = (split[0], split[2]) if split else (incident.query, None)
        series = self._prometheus.series(signal, Window.around(incident.started_at, result.as_of))
        if not isinstance(series, list) or not any(s.points for s in series):
            return None  # a gap: the triage post already says what could not be read
        marks = [Mark(incident.started_at, "alert", "#d62728")]
        if result.onset is not None:
            marks.append(Mark(result.onset, "first sign", "#ff7f0e"))
        marks += [
            Mark(at, "rollout", "#2ca02c")
            for e in result.evidence
            if str(e.get("id", "")).startswith("k8s:rollout:") and (at := _time(e.get("at"))) is not None
        ]
        return Chart(
            title=redact(incident.alertname or incident.title),
            series=series,
            threshold=threshold,
            marks=marks,
        )


def _file_id(uploaded: Any) -> str:
    """The uploaded file's ID from a files upload v2 answer."""
    return str((uploaded.get("file") or {}).get("id") or (uploaded.get("files") or [{}])[0].get("id", ""))


def _time(value: object) -> datetime | None:
    return parse_time(value) if isinstance(value, str) else None


class ProgressPoster:
    """Keeps one message per triage run up to date while it runs (best effort: a failed edit is
    logged, never fails the triage)."""

    def __init__(
        self,
        client: WebClient,
        store: ChatStore,
        incident: Incident,
        run: int,
        pacer: ChannelPacer,
        *,
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client, self._store, self._incident, self._pacer = client, store, incident, pacer
        self._view = ProgressView(run=run)
        self._every, self._clock = every, clock
        self._last = float("-inf")

    def __call__(self, event: ProgressEvent) -> None:
        self._view.add(event)
        if self._clock() - self._last < self._every:
            return
        channel = self._store.channel(self._incident.id)
        if channel is None or channel.channel_id is None:
            return  # the announcement has not made the channel yet: the post comes later
        posted = self._store.message(self._incident.id, "progress", self._view.run)
        if posted is None and self._store.message(self._incident.id, "announcement") is None:
            return  # with several workers the triage can start first: the announcement leads the channel
        if not self._pacer.try_take(channel.channel_id):
            return  # too soon after another post there; a later event (or the triage) catches up
        self._last = self._clock()
        try:
            if posted is None:
                answer = self._client.chat_postMessage(
                    channel=channel.channel_id, text=self._view.text(), blocks=self._view.blocks()
                )
                self._store.record_message(
                    self._incident.id,
                    "progress",
                    channel_id=channel.channel_id,
                    ts=str(answer["ts"]),
                    run=self._view.run,
                )
            else:
                self._client.chat_update(
                    channel=channel.channel_id,
                    ts=posted.ts,
                    text=self._view.text(),
                    blocks=self._view.blocks(),
                )
        except SLACK_FAULTS as exc:
            call = "chat.postMessage" if posted is None else "chat.update"
            log.warning(
                "progress of incident %s not posted: %s", self._incident.id, failed(exc, call).message
            )
