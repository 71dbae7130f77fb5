"""A long-running process's heap: cyclic garbage that reached the oldest generation is collected soon.

This is how a triage chart's figure (reference cycles around a 2.5 MB pixel buffer) outlived its
triage in the soak: an automatic collection while it was being drawn promoted it to the oldest
generation, which CPython collects only once that generation has grown by a quarter, and a serving
process's start-up heap made that hours. Run in a child process, because `settle` freezes the
collector for the life of the process.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

CHILD = r"""
import gc, json, sys, weakref

import bot.server, bot.worker  # a serving process's modules
from bot.heap import settle

state = [{"n": n} for n in range(300_000)]  # and what it holds: rules, the model, the app, caches
if sys.argv[1] == "settled":
    settle()
else:
    gc.collect()  # where a process that has run a while stands after its last full collection


class Figure:
    def __init__(self):
        self.canvas = {"figure": self, "pixels": bytearray(2_500_000)}


figure = Figure()
alive = weakref.ref(figure)
gc.collect(1)  # a collection mid-draw: the figure, still in use, is promoted to the oldest generation
del figure  # the triage is done with it: garbage now, and only the cyclic collector can free it
handled = 0
while alive() is not None and handled < 400:  # requests: what each holds a while, and passing objects
    request = [{"n": n} for n in range(1_000)]
    for n in range(3_000):
        line = {"line": n, "labels": {"pod": str(n)}}
    handled += 1
print(json.dumps({"freed": alive() is None, "after_requests": handled}))
"""


def run(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    answer: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return answer


def test_after_settle_garbage_in_the_oldest_generation_is_freed_while_requests_go_on() -> None:
    assert run("settled")["freed"] is True


def test_without_settle_the_same_garbage_waits_for_a_full_collection() -> None:
    """The case the first test guards against, so that it cannot pass for a reason of its own."""
    plain = run("plain")
    assert plain == {"freed": False, "after_requests": 400}
