"""Keeping a long-running process's heap flat: its start-up objects out of the cyclic collector's way."""

from __future__ import annotations

import gc


def settle() -> None:
    """Moves everything alive at start-up (modules, configuration, rules, the app) to the collector's
    permanent generation, once start-up is done.

    CPython collects its oldest generation only once that generation has grown by a quarter since the
    last full collection. With a start-up heap of some 300,000 objects, cyclic garbage that reached it
    waited hours: a triage chart's figure (about 6 MB with its pixel buffer) is promoted there whenever
    an automatic collection runs while it is being drawn, and in the soak such figures piled up and
    fragmented the heap. Frozen, the start-up no longer counts, so full collections come often and
    scan only what was made since (a millisecond rather than 80).
    """
    gc.collect()
    gc.freeze()
    gc.collect()  # the collector's count of long-lived objects is set only by a full collection
