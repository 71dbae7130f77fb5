"""What every executor is: plan from the cluster, write (or dry-run) the plan, verify it, plan its undo.

`Refused` is a precondition that does not hold: nothing was written and nothing will be. The
helpers here turn objects into the lines of a diff (what a dry run would change) and poll a check
until its deadline.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from bot.actions.kube import KubeActions, Obj
from bot.actions.model import Plan, Verification
from bot.domain import ProposedAction


class Refused(Exception):
    """A precondition that does not hold; the message says which, in a responder's words."""


@dataclass(frozen=True)
class Limits:
    """The configured bounds every executor keeps to."""

    min_ready_replicas: int = 1
    verify_seconds: float = 180.0
    poll_seconds: float = 2.0  # the longest pause between two reads of verify


class Executor(Protocol):
    """One catalog kind: its plan, its write, its check, and its undo."""

    def plan(self, action: ProposedAction, *, actor: str, incident_id: int) -> Plan: ...

    def write(self, plan: Plan, *, dry_run: bool) -> Obj: ...

    def current(self, plan: Plan) -> Obj | None:
        """The object `write` changes, as it is now (what its dry run is diffed against); None when the
        write answers no such object (an eviction answers a Status)."""
        ...

    def applied(self, plan: Plan) -> bool:
        """Whether the cluster already holds what `plan` writes (a retried execution finds it done)."""
        ...

    def verify(self, plan: Plan, written: Obj) -> Verification: ...

    def undo(self, plan: Plan, written: Obj, *, actor: str, incident_id: int) -> Plan: ...


class KubeExecutor:
    """Shared by the executors: the cluster client, the limits, and polling with a deadline."""

    def __init__(self, kube: KubeActions, limits: Limits) -> None:
        self.kube = kube
        self.limits = limits

    def poll(self, check: Callable[[], Verification]) -> Verification:
        """Run `check` until it is ok or the deadline passes; the last answer says what was seen."""
        deadline = time.monotonic() + self.limits.verify_seconds
        pause = (
            0.05  # doubling up to poll_seconds: a quick effect is seen at once, a slow one is not hammered
        )
        while True:
            seen = check()
            if seen.ok or seen.final or time.monotonic() >= deadline:
                return seen
            time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, self.limits.poll_seconds)


def target_name(action: ProposedAction) -> str:
    return action.target.split("/", 1)[1] if "/" in action.target else action.target


def need_namespace(action: ProposedAction) -> str:
    if not action.namespace:
        raise Refused(f"{action.target} names no namespace")
    return action.namespace


def _flat(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for key in sorted(value):
            yield from _flat(value[key], f"{path}.{key}" if path else str(key))
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item.get("name"), str) else None
            yield from _flat(item, f"{path}[{name or index}]")
    else:
        yield path, value


IGNORED = ("metadata.resourceVersion", "metadata.managedFields", "metadata.generation", "status")


def diff(before: Obj, after: Obj, *, roots: tuple[str, ...] = ("spec", "metadata.annotations")) -> list[str]:
    """What changes between two versions of an object, one `path: old → new` line per leaf."""
    old = dict(_flat(before, ""))
    new = dict(_flat(after, ""))
    lines = []
    for path in sorted(set(old) | set(new)):
        if not path.startswith(roots) or path.startswith(IGNORED):
            continue
        if path not in new:
            lines.append(f"- {path}: {_show(old[path])}")
        elif path not in old:
            lines.append(f"+ {path}: {_show(new[path])}")
        elif isinstance(old[path], list) and isinstance(new[path], list):
            lines += _list_diff(path, old[path], new[path])
        elif old[path] != new[path]:
            lines.append(f"~ {path}: {_show(old[path])} → {_show(new[path])}")
    return lines


def _list_diff(path: str, old: list[Any], new: list[Any]) -> list[str]:
    """Only the items that change (a container's args: the flag whose value moved, not the whole list)."""
    lines = []
    matcher = difflib.SequenceMatcher(a=[repr(v) for v in old], b=[repr(v) for v in new], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        before, after = " ".join(_show(v) for v in old[i1:i2]), " ".join(_show(v) for v in new[j1:j2])
        context = f" (after {_show(old[i1 - 1])})" if i1 > 0 else ""
        if op == "replace":
            lines.append(f"~ {path}[{i1}]: {before} → {after}{context}")
        elif op == "delete":
            lines.append(f"- {path}[{i1}]: {before}{context}")
        elif op == "insert":
            lines.append(f"+ {path}[{i1}]: {after}{context}")
    return lines


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def annotations_of(obj: Obj) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def ready(pod: Obj) -> bool:
    """Running, not terminating, and its Ready condition True."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def label_selector(labels: dict[str, str]) -> str:
    """Labels that must all match, as a label selector string."""
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))


def selector_of(obj: Obj) -> str:
    """The `matchLabels` of a workload's selector, as a label selector string."""
    return label_selector(((obj.get("spec") or {}).get("selector") or {}).get("matchLabels") or {})


def unschedulable(pods: list[Obj]) -> str | None:
    """Why the first of `pods` that could not be scheduled waits (the scheduler's message)."""
    for pod in pods:
        for condition in (pod.get("status") or {}).get("conditions") or []:
            if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
                return str(condition.get("message") or condition.get("reason") or "unschedulable")
    return None


def pointer(*parts: str | int) -> str:
    """A JSON Pointer (RFC 6901) from its parts."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
