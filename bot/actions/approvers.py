"""Who may approve an action: the configuration's global and per-service `approvers`.

An approver is named by Slack user ID (`U…`, `W…` on Enterprise Grid), user group ID (`S…`,
expanded with `usergroups.users.list`) or e-mail (resolved with `users.lookupByEmail`). The same
check serves a Slack click (the user's ID) and the API or CLI (the actor given, an ID or an
e-mail). Without a directory (no Slack), groups cannot be expanded and IDs and e-mails only match
as written. Answers from the directory are cached for a few minutes: a click must answer at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.config import BotConfig


class Directory(Protocol):
    """Who is who in the chat workspace."""

    def members(self, group_id: str) -> set[str]: ...

    def user_for_email(self, email: str) -> str | None: ...


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str


def _is_email(value: str) -> bool:
    return "@" in value


class Approvers:
    """The approver check; `directory` is None when no chat workspace is connected."""

    def __init__(
        self,
        config: BotConfig,
        directory: Directory | None = None,
        *,
        ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._directory = directory
        self._ttl = ttl
        self._clock = clock
        self._cache: dict[tuple[str, str], tuple[float, object]] = {}
        self._lock = threading.Lock()

    def principals(self, service: str | None) -> list[str]:
        """Who may approve on `service`: the global approvers and the service's own."""
        svc = self._config.service(service)
        return list(dict.fromkeys([*self._config.approvers, *(svc.approvers if svc else [])]))

    def check(self, actor: str, service: str | None) -> Verdict:
        names = self.principals(service)
        if not names:
            return Verdict(False, "no approvers are configured (`approvers` in the configuration file)")
        actor_id = self._id_of(actor)
        for name in names:
            # an e-mail names its owner in any case; a user id is exact (`u0bob` is nobody in Slack)
            if name == actor or (_is_email(name) and name.lower() == actor.lower()):
                return Verdict(True, f"{actor} is an approver")
            if name.startswith("S"):
                if self._directory is None:
                    continue
                if actor_id is not None and actor_id in self._members(name):
                    return Verdict(True, f"{actor} is in approver group {name}")
            elif _is_email(name) and actor_id is not None and self._email_id(name) == actor_id:
                return Verdict(True, f"{actor} is approver {name}")
        where = f" of service {service}" if service and self._config.service(service) else ""
        return Verdict(False, f"{actor} is not an approver{where}")

    def _id_of(self, actor: str) -> str | None:
        if _is_email(actor):
            return self._email_id(actor) if self._directory is not None else None
        return actor

    def _cached(self, key: tuple[str, str], fetch: Callable[[], object]) -> object:
        now = self._clock()
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None and now - hit[0] < self._ttl:
                return hit[1]
        value = fetch()
        if value:  # a failed or empty lookup is asked again next time, not remembered
            with self._lock:
                self._cache[key] = (now, value)
        return value

    def _members(self, group: str) -> set[str]:
        assert self._directory is not None
        directory = self._directory
        found = self._cached(("group", group), lambda: directory.members(group))
        return found if isinstance(found, set) else set()

    def _email_id(self, email: str) -> str | None:
        if self._directory is None:
            return None
        directory = self._directory
        found = self._cached(("email", email.lower()), lambda: directory.user_for_email(email))
        return found if isinstance(found, str) else None
