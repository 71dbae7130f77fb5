"""The pacing of posts to one channel, and how a call that did not get through is said."""

from __future__ import annotations

import urllib.error

from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

from bot.slack.client import PACED_CHANNELS, ChannelPacer, failed
from tests.support.clock import Clock


def test_a_burst_of_three_then_one_a_second_per_channel() -> None:
    clock = Clock(100.0)
    pacer = ChannelPacer(1.0, burst=3, clock=clock)
    assert [pacer.try_take("C1") for _ in range(4)] == [True, True, True, False]
    assert pacer.try_take("C2")  # another channel has its own bucket
    clock.now += 0.5
    assert not pacer.try_take("C1")  # nothing taken by the refusals
    clock.now += 0.5
    assert pacer.try_take("C1") and not pacer.try_take("C1")  # one a second, sustained
    clock.now += 10
    assert [pacer.try_take("C1") for _ in range(4)] == [True, True, True, False]  # idle refills the burst


def test_wait_reserves_the_next_free_slot() -> None:
    clock = Clock(100.0)
    pacer = ChannelPacer(1.0, burst=1, clock=clock)
    pacer.wait("C1")  # due: returns at once
    assert not pacer.try_take("C1")  # the wait took this second's slot
    clock.now += 1.0
    assert pacer.try_take("C1")


def test_a_pacer_does_not_keep_every_channel_it_ever_paced() -> None:
    """A channel per incident: after thousands of incidents the pacer holds only the channels it is
    still holding back, and forgetting the others changes no slot."""
    clock = Clock(100.0)
    pacer = ChannelPacer(1.0, burst=3, clock=clock)
    for incident in range(5000):
        pacer.wait(f"C{incident}")
        clock.now += 0.1
    assert len(pacer._due) <= PACED_CHANNELS + 1
    assert [pacer.try_take("CBUSY") for _ in range(4)] == [True, True, True, False]
    for idle in range(PACED_CHANNELS):  # the busy channel is still held back, whatever is forgotten
        pacer.wait(f"CIDLE{idle}")
        assert not pacer.try_take("CBUSY")
    clock.now += 1.0
    assert pacer.try_take("CBUSY") and not pacer.try_take("CBUSY")


def test_a_refused_call_and_an_unreachable_slack_are_said_by_call() -> None:
    response = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="https://slack.example/api/pins.add",
        req_args={},
        data={"ok": False, "error": "ratelimited"},
        headers={},
        status_code=429,
    )
    refused = failed(SlackApiError("refused", response), "pins.add")
    assert refused.message == "pins.add: ratelimited"
    down = failed(
        urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")), "chat.postMessage"
    )
    assert (
        down.message.startswith("chat.postMessage: Slack unreachable (")
        and "Connection refused" in down.message
    )
