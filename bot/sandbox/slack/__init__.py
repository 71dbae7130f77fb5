"""The Slack stand-in: the Web API methods the bot calls, over workspace state kept in memory."""

from bot.sandbox.slack.respond import ResponsePost
from bot.sandbox.slack.socket_mode import SocketAck
from bot.sandbox.slack.standin import SlackStandIn
from bot.sandbox.slack.state import SlackCall, SlackUser

__all__ = ["ResponsePost", "SlackCall", "SlackStandIn", "SlackUser", "SocketAck"]
