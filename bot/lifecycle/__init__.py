"""Every lifecycle transition of an incident: the only writer of its timeline, and of the jobs each implies."""

from bot.lifecycle.base import BOT, MAX_NOTE, actor_of, run_label
from bot.lifecycle.core import Lifecycle

__all__ = ["BOT", "MAX_NOTE", "Lifecycle", "actor_of", "run_label"]
