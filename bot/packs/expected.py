"""scenario.yaml and expected.yaml: the pack's name, clock and story, and the incident's final tag.

The right answer of an exported incident is what the responders settled on: the category and code
it was resolved with, and as acceptable first actions the actions that were approved, ran and
were verified. When none ran, the first triage's first proposal stands in for it only if the
final code agrees with that triage's code. Otherwise the key is left out with a comment: `eval`
reads a missing list as an empty one ("no action of the catalog helps; the right triage proposes
none"), which is all the incident itself showed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from bot.actions.model import ProposalState
from bot.domain import ActionProposal, Incident, TriageResult
from bot.packs.alert import stamp
from bot.packs.redaction import text

NO_ACTION_RAN = (
    "# acceptable_first_actions is left out: no action ran and was verified during the incident,\n"
    "# and the final code ({final}) differs from the first triage's ({triaged}), so its proposal is\n"
    "# no answer. `eval` reads a missing list as an empty one: the right triage proposes no action.\n"
    "# Add the right first actions here before using this pack as a regression case.\n"
)


def pack_name(incident: Incident) -> str:
    """`incident-<id>-<slug of the title>`, within the pack format's [a-z0-9-]."""
    slug = re.sub(r"[^a-z0-9]+", "-", incident.title.lower()).strip("-")[:48].strip("-")
    return f"incident-{incident.id}" + (f"-{slug}" if slug else "")


def scenario(incident: Incident, *, as_of: datetime, namespace: str, logs_index: str) -> dict[str, Any]:
    who = incident.resolved_by or "nobody (not resolved)"
    why = f": {incident.resolution}" if incident.resolution else ""
    return {
        "name": pack_name(incident),
        "as_of": stamp(as_of),
        "namespace": namespace,
        "logs_index": logs_index,
        "description": text(f"{incident.title}. Resolved by {who}{why}"),
    }


def verified_actions(proposals: Sequence[ActionProposal]) -> list[dict[str, str]]:
    """The actions that ran and were verified, in the order they were decided, once each."""
    ran = [p for p in proposals if p.status == ProposalState.DONE.value and p.outcome.get("verified") is True]
    ran.sort(key=lambda p: (p.decided_at is None, p.decided_at or datetime.min, p.id))
    seen: dict[tuple[str, str], None] = {}
    for p in ran:
        seen.setdefault((str(p.action.kind), p.action.target), None)
    return [{"kind": kind, "target": target} for kind, target in seen]


def expected(
    incident: Incident, first: TriageResult, proposals: Sequence[ActionProposal]
) -> tuple[dict[str, Any], str] | str:
    """The expected.yaml data and the comment to head it with, or why there is none."""
    if incident.category is None or not incident.code:
        return "the incident has no final category and code (resolve it with both)"
    data: dict[str, Any] = {"category": str(incident.category), "code": incident.code}
    ran = verified_actions(proposals)
    if ran:
        data["acceptable_first_actions"] = ran
        return (
            data,
            "# acceptable_first_actions: the actions approved, run and verified during the incident.\n",
        )
    if incident.code == first.code:
        data["acceptable_first_actions"] = [
            {"kind": str(a.kind), "target": a.target} for a in first.actions[:1]
        ]
        return (
            data,
            "# acceptable_first_actions: no action ran; the first triage's first proposal (same code).\n",
        )
    return data, NO_ACTION_RAN.format(final=incident.code, triaged=first.code)


def write_yaml(data: dict[str, Any], path: Path, *, comment: str = "") -> None:
    path.write_text(comment + yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
