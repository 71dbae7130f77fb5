"""NVIDIA's Xid catalogue, as much of it as triage needs: what an Xid says, and whose fault it is.

The driver logs an Xid for faults of very different owners. Some are the application's: a kernel
that read an illegal address (31), a graphics-engine exception (13), a channel the driver stopped
(43) or cleaned up after one of those (45); NVIDIA's resolution for them is to restart the
application, and the card is fine. The others are the hardware's or its firmware's: ECC (48, 63, 64,
92, 94, 95), the bus (79), NVLink (74), the GPU's micro-controllers and GSP (61, 62, 119, 120); they
call for a GPU reset or a drain of the node. Only the second kind makes a node suspect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Owner = Literal["application", "hardware"]


@dataclass(frozen=True)
class Xid:
    number: int
    meaning: str
    owner: Owner


_CATALOGUE = [
    Xid(13, "graphics engine exception", "application"),
    Xid(31, "GPU memory page fault", "application"),
    Xid(43, "GPU stopped processing", "application"),
    Xid(45, "preemptive cleanup, due to previous errors", "application"),
    Xid(48, "double-bit ECC error", "hardware"),
    Xid(61, "internal micro-controller breakpoint", "hardware"),
    Xid(62, "internal micro-controller halt", "hardware"),
    Xid(63, "ECC page retirement or row remapping event", "hardware"),
    Xid(64, "ECC page retirement or row remapper recording failure", "hardware"),
    Xid(74, "NVLink error", "hardware"),
    Xid(79, "GPU has fallen off the bus", "hardware"),
    Xid(92, "high single-bit ECC error rate", "hardware"),
    Xid(94, "contained ECC error", "hardware"),
    Xid(95, "uncontained ECC error", "hardware"),
    Xid(119, "GSP RPC timeout", "hardware"),
    Xid(120, "GSP error", "hardware"),
]
XIDS = {x.number: x for x in _CATALOGUE}
APPLICATION_XIDS = frozenset(x.number for x in _CATALOGUE if x.owner == "application")


def meaning(number: int) -> str:
    known = XIDS.get(number)
    return known.meaning if known else "see NVIDIA's Xid catalogue"


def application_fault(number: int) -> bool:
    """Whether NVIDIA's resolution is to restart the application (the card itself is fine).
    An Xid this catalogue does not know counts as the hardware's: the conservative reading."""
    return number in APPLICATION_XIDS
