"""Drives the running bot the way Alertmanager and responders do: webhooks, `/incident` commands
signed as Slack signs them, and incident API writes; counts every answer and times the webhooks."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from urllib.parse import urlencode

import httpx
from slack_sdk.signature import SignatureVerifier

from bench.soak.mix import Group, Mix, Phase
from bot.domain import AlertStatus
from bot.sandbox.slack import SlackStandIn
from bot.sandbox.up import SLACK_SIGNING_SECRET

AM_TOKEN = "soak-alertmanager-token"
API_TOKEN = "soak-api-token"
RESPONDERS = ("U0ANA", "U0BOB", "U0CAROL")


class Driver:
    """One client of the bot; `step` moves every due group on by one notification or command."""

    def __init__(
        self,
        url: str,
        mix: Mix,
        slack: SlackStandIn,
        slack_url: str,
        codes: list[str],
        channel_of: Callable[[int], str | None],
    ) -> None:
        self.http = httpx.Client(base_url=url, timeout=30)
        self.mix = mix
        self.slack = slack
        self.slack_url = slack_url
        self.codes = codes
        self.channel_of = channel_of
        self.counts: Counter[str] = Counter()
        self.latencies: list[tuple[float, float]] = []  # (monotonic time, webhook ms)
        self.response_urls: list[str] = []
        self.incidents_expected = 0
        self.incident_ids: set[int] = set()

    # -- answers ---------------------------------------------------------------------------

    def _answered(self, what: str, answer: httpx.Response | None) -> httpx.Response | None:
        self.counts[what] += 1
        if answer is None:
            self.counts["transport errors"] += 1
        elif answer.status_code >= 500:
            self.counts["5xx"] += 1
        elif answer.status_code >= 300:
            self.counts["other non-2xx"] += 1
        return answer if answer is not None and answer.status_code < 300 else None

    def _post(self, path: str, **kwargs: object) -> httpx.Response | None:
        try:
            return self.http.post(path, **kwargs)  # type: ignore[arg-type]
        except httpx.HTTPError:
            return None

    def webhook(self, group: Group, status: AlertStatus, kind: str) -> None:
        body, alerts = group.body(status)
        started = time.perf_counter()
        answer = self._post(
            "/webhooks/alertmanager",
            content=body,
            headers={"Authorization": f"Bearer {AM_TOKEN}", "Content-Type": "application/json"},
        )
        self.latencies.append((time.monotonic(), (time.perf_counter() - started) * 1000))
        self.counts[f"notifications {kind}"] += 1
        self.counts["alerts sent"] += alerts
        ok = self._answered("webhooks", answer)
        if ok is None:
            return
        incident_id = ok.json().get("incident_id")
        if status is AlertStatus.FIRING:
            if incident_id is None:
                self.counts["firing without incident"] += 1
                return
            group.incident_id = int(incident_id)
            if group.incident_id not in group.incidents:
                group.incidents.append(group.incident_id)
                self.incident_ids.add(group.incident_id)

    def command(self, group: Group, text: str) -> bool:
        """`/incident text` in the group's incident channel; False when it has no channel yet."""
        channel = self.channel_of(group.incident_id) if group.incident_id else None
        if channel is None:
            return False
        user = self.mix.rng.choice(RESPONDERS)
        payload = self.slack.slash_command(
            self.slack_url, "/incident", text=text, user_id=user, channel_id=channel
        )
        self.response_urls.append(payload["response_url"])
        body = urlencode(payload)
        stamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier(SLACK_SIGNING_SECRET).generate_signature(
                timestamp=stamp, body=body
            ),
        }
        self._answered("slash commands", self._post("/slack/events", content=body.encode(), headers=headers))
        return True

    def api(self, group: Group, verb: str, body: dict[str, object]) -> None:
        answer = self._post(
            f"/api/incidents/{group.incident_id}/{verb}",
            json={"actor": "soak@example.com", **body},
            headers={"Authorization": f"Bearer {API_TOKEN}"},
        )
        self._answered("api writes", answer)

    def read_open(self) -> None:
        try:
            answer = self.http.get(
                "/api/incidents", params={"status": "open"}, headers={"Authorization": f"Bearer {API_TOKEN}"}
            )
        except httpx.HTTPError:
            answer = None
        self._answered("api reads", answer)

    def unanswered(self) -> int:
        """Commands whose reply has not come back yet."""
        return sum(1 for url in self.response_urls if not self.slack.responses(url))

    def warnings(self) -> int:
        """Command replies that were warnings (an unknown code, not an incident channel)."""
        return sum(
            1
            for url in self.response_urls
            for post in self.slack.responses(url)
            if ":warning:" in str(post.text)
        )

    # -- the mix ---------------------------------------------------------------------------

    def open_group(self, now: float) -> None:
        group = self.mix.new_group(now)
        self.incidents_expected += 1
        self.webhook(group, AlertStatus.FIRING, "new")

    def step(self, now: float) -> None:
        for group in self.mix.active():
            if group.due <= now:
                self._step(group, now)

    def _step(self, group: Group, now: float) -> None:
        rng, repeat = self.mix.rng, self.mix.repeat
        group.due = now + self.mix.jitter(repeat)
        if group.phase is Phase.FIRING:
            if group.repeats_left <= 0:
                self.webhook(group, AlertStatus.RESOLVED, "resolved")
                group.phase = Phase.CLEARED
                return
            group.repeats_left -= 1
            if rng.random() < 0.15:
                self.mix.grow(group)
            self.webhook(group, AlertStatus.FIRING, "repeat")
            if not group.spoken and group.incident_id and rng.random() < 0.5:
                self._speak(group)
        elif group.phase is Phase.CLEARED:
            if rng.random() < 0.25:  # flapping: it fires again before anyone closes the incident
                group.phase, group.repeats_left = Phase.FIRING, rng.randint(1, 3)
                self.webhook(group, AlertStatus.FIRING, "refire")
                return
            self._resolve(group)
            group.phase = Phase.CLOSED
            group.due = now + self.mix.jitter(4 * repeat)
        elif rng.random() < 0.2:  # closed, and the same group fires again: a new incident
            group.phase, group.repeats_left, group.spoken = Phase.FIRING, rng.randint(2, 4), False
            self.incidents_expected += 1
            self.webhook(group, AlertStatus.FIRING, "reopen")
        else:
            group.due = float("inf")

    def _speak(self, group: Group) -> None:
        group.spoken = True
        pick = self.mix.rng.random()
        if pick < 0.3 and self.command(group, "ack"):
            return
        if pick < 0.6 and self.command(group, f"note looked at the dashboards for group {group.number}"):
            return
        if pick < 0.8:
            self.api(group, "notes", {"text": f"paged the owners of group {group.number}"})
        else:
            self.api(group, "ack", {})

    def _resolve(self, group: Group) -> None:
        code = self.mix.rng.choice(self.codes)
        reason = f"soak group {group.number} mitigated"
        if self.mix.rng.random() < 0.5 and self.command(group, f"resolve {code} {reason}"):
            return
        self.api(group, "resolve", {"reason": reason, "code": code})
