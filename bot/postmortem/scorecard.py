"""How often the first triage was right, per final category: the figure that says whether the
rules, runbooks and signals are getting better (`incident-bot report`).

Read from the postmortem drafts, so the report counts exactly what each postmortem says.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from bot.domain import Frozen
from bot.postmortem.model import ActionRecord, Postmortem

UNTAGGED = "untagged"


class Tally(Frozen):
    """Matches out of the incidents where the comparison could be made."""

    right: int = 0
    of: int = 0

    def add(self, ok: bool | None) -> Tally:
        if ok is None:
            return self
        return Tally(right=self.right + ok, of=self.of + 1)

    def text(self) -> str:
        return f"{self.right}/{self.of} ({self.right / self.of:.0%})" if self.of else "-"


class Row(Frozen):
    """One final category's figures."""

    category: str
    incidents: int = 0
    category_ok: Tally = Field(default_factory=Tally)
    code_ok: Tally = Field(default_factory=Tally)
    action_ok: Tally = Field(default_factory=Tally)
    offered_unused: int = 0  # the triage offered actions and none was run: not scored


class Scorecard(Frozen):
    rows: list[Row]
    total: Row


def first_action_ok(actions: Sequence[ActionRecord]) -> bool | None:
    """The first triage's first proposal against the first action that was applied and held.

    No action ran: right when the triage offered none, not scored when it offered some (the
    incident may have ended on its own)."""
    offered = next((a for a in actions if a.run == 1), None)
    ran = sorted(
        ((a.executed_at, a) for a in actions if a.executed_at is not None and a.verified), key=lambda p: p[0]
    )
    if not ran:
        return True if offered is None else None
    first = ran[0][1]
    return offered is not None and (offered.kind, offered.target) == (first.kind, first.target)


def scorecard(drafts: Sequence[Postmortem]) -> Scorecard:
    rows: dict[str, Row] = {}
    total = Row(category="all")
    for pm in drafts:
        key = pm.tag.final_category.value if pm.tag.final_category else UNTAGGED
        action = first_action_ok(pm.actions)
        unused = action is None
        for name, row in ((key, rows.get(key, Row(category=key))), ("all", total)):
            updated = Row(
                category=row.category,
                incidents=row.incidents + 1,
                category_ok=row.category_ok.add(pm.tag.category_ok),
                code_ok=row.code_ok.add(pm.tag.code_ok),
                action_ok=row.action_ok.add(action),
                offered_unused=row.offered_unused + unused,
            )
            if name == "all":
                total = updated
            else:
                rows[key] = updated
    return Scorecard(rows=sorted(rows.values(), key=lambda r: r.category), total=total)


def table(card: Scorecard, *, since: str) -> str:
    """The scorecard as a fixed-width table."""
    head = (
        f"{'final category':<18} {'incidents':>9}  {'category':<12} {'code':<12} {'first action':<12} unused"
    )
    lines = [f"first triage against the final tag, incidents resolved in the last {since}", head]
    for row in [*card.rows, card.total]:
        lines.append(
            f"{row.category:<18} {row.incidents:>9}  {row.category_ok.text():<12} {row.code_ok.text():<12} "
            f"{row.action_ok.text():<12} {row.offered_unused}"
        )
    return "\n".join(lines)
