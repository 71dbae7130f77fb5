"""The Slack stand-in: the Web API methods the bot calls, over workspace state kept in memory."""

from bot.sandbox.slack.standin import SlackStandIn
from bot.sandbox.slack.state import SlackCall, SlackUser

__all__ = ["SlackCall", "SlackStandIn", "SlackUser"]
