"""The demo in a terminal: what the channel receives, live, then the first action approved through
the signed click path, its result and its Undo offer, and a short summary.

Everything shown is read back from where the bot put it (the stand-in's workspace, the timeline,
the stored triage), so the terminal shows what a responder in Slack would see.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from bot.actions.model import ProposalState
from bot.demo.feed import Post, WorkspaceFeed
from bot.demo.richview import post_panel
from bot.demo.session import DemoError, DemoSession, wait
from bot.domain import ActionProposal
from bot.slack.ids import ActionId

P = ProposalState
SETTLED = frozenset({P.DONE, P.FAILED, P.REFUSED, P.BLOCKED, P.REJECTED, P.EXPIRED})
UNDO_SETTLED = frozenset({P.UNDONE, P.UNDO_FAILED})
CHART_GRACE = 10.0  # seconds a chart may follow the triage post (it has no data without Prometheus)
ACTION_SECONDS = 90.0

Decide = Callable[[str], bool]  # asks a yes/no question


@dataclass
class Summary:
    scenario: str
    incident_id: int
    seconds_to_triage: float
    category: str
    code: str
    confidence: float
    engine: str
    hypothesis: str
    gaps: list[str]
    proposals: int
    action: str | None = None  # "kind target"
    action_state: str | None = None
    action_result: str | None = None
    seconds_to_result: float | None = None  # the approving click to the verified (or failed) result
    chart: Path | None = None
    triage_json: Path | None = None  # the whole stored triage: the demo's store goes with the demo


class TerminalDemo:
    """Runs one demo session in `console`; `approve` and `undo` answer whether to click."""

    def __init__(
        self, demo: DemoSession, console: Console, *, out_dir: Path, approve: Decide, undo: Decide
    ) -> None:
        self.demo = demo
        self.console = console
        self.out_dir = out_dir
        self.approve = approve
        self.undo = undo
        slack = demo.sandbox.slack
        assert slack is not None
        self.feed = None if demo.workspace.real else WorkspaceFeed(slack, demo.workspace.user_id)
        self.saved: dict[str, Path] = {}
        self._shown: dict[tuple[str, str], list[dict[str, Any]]] = {}  # each post's blocks as last shown
        self._events = 0
        self.incident_id = 0

    def run(self) -> Summary:
        started = time.monotonic()
        self.incident_id = self.demo.post_alert()
        self.console.print(
            f"[bold]→ Alertmanager[/] posted [cyan]{self.demo.pack.name}[/]'s alert to "
            f"{self.demo.url}/webhooks/alertmanager: incident {self.incident_id} opened"
        )
        self._follow(lambda: self._triage_post() is not None, 120, "triage post")
        seconds = time.monotonic() - started  # the triage is in the channel; its chart follows
        posted_at = time.monotonic()
        self._follow(lambda: self._settled(posted_at), 60, "the proposals' dry runs")
        stored = self.demo.triage(self.incident_id)
        if stored is None:
            raise DemoError(f"incident {self.incident_id}: no triage was stored")
        result = stored.result
        self.out_dir.mkdir(parents=True, exist_ok=True)
        saved = self.out_dir / f"{self.demo.pack.name}-triage.json"
        saved.write_text(json.dumps(result.public(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        summary = Summary(
            scenario=self.demo.pack.name,
            incident_id=self.incident_id,
            seconds_to_triage=seconds,
            category=result.category.value,
            code=result.code,
            confidence=result.confidence,
            engine=result.engine,
            hypothesis=result.hypothesis,
            gaps=list(result.gaps),
            proposals=len(self.demo.proposals(self.incident_id)),
            chart=next((p for p in self.saved.values() if p.suffix == ".png"), None),
            triage_json=saved.resolve(),
        )
        self._first_action(summary)
        self._follow(lambda: True, 1, "")
        return summary

    # -- following the channel ---------------------------------------------------------------

    def _follow(self, done: Callable[[], bool], timeout: float, what: str) -> None:
        """Show what arrives until `done()`; DemoError naming `what` past `timeout`."""

        def step() -> bool | None:
            self._show_new()
            return True if done() else None

        wait(step, timeout, f"incident {self.incident_id}: no {what}")
        self._show_new()

    def _show_new(self) -> None:
        if self.feed is not None:
            snapshot = self.feed.snapshot()
            for post in self.feed.changes(snapshot):
                key = (post.channel_id, post.ts)
                self.console.print(post_panel(post, snapshot.names, since=self._shown.get(key)))
                self._shown[key] = post.blocks
                for path in self._save_files(post):
                    self.console.print(Text(f"  saved {path}", "magenta"), soft_wrap=True)
        timeline = self.demo.timeline(self.incident_id)
        for event in timeline[self._events :]:
            self.console.print(
                Text(f"  timeline · {event.at:%H:%M:%S} · {event.actor} · {event.text}", "grey50")
            )
        self._events = len(timeline)

    def _save_files(self, post: Post) -> list[Path]:
        """Save the post's files (the chart) under the output folder; the paths newly saved."""
        assert self.feed is not None
        new: list[Path] = []
        for file_id in post.files:
            found = None if file_id in self.saved else self.feed.file(file_id)
            if found is None:
                continue
            name, content = found
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path = self.out_dir / f"{self.demo.pack.name}-{name}"
            path.write_bytes(content)
            self.saved[file_id] = path.resolve()
            new.append(self.saved[file_id])
        return new

    def _has(self, kind: str, after: int = 0) -> bool:
        return any(e.kind == kind and e.id > after for e in self.demo.timeline(self.incident_id))

    def _settled(self, posted_at: float) -> bool:
        """Every proposal shows its dry run, and the chart is in the thread (or will not come)."""
        pending = [
            p for p in self.demo.proposals(self.incident_id) if p.status == P.PROPOSED and not p.preview
        ]
        chart = self.demo.deps.services.chat.message(self.incident_id, "chart", 1) is not None
        late = time.monotonic() - posted_at > CHART_GRACE
        return not pending and (chart or late or self.demo.deps.engine.backends.prometheus is None)

    # -- the first action --------------------------------------------------------------------

    def _first_action(self, summary: Summary) -> None:
        proposals = self.demo.proposals(self.incident_id)
        first = next((p for p in proposals if p.status == P.PROPOSED and p.preview.get("ok", True)), None)
        if first is None:
            why = "no reversible action fits this incident" if not proposals else "none can run now"
            self.console.print(
                f"\n[bold]No action to approve:[/] {why}; the triage's runbook says what to do next."
            )
            return
        summary.action = f"{first.action.kind.value} {first.action.target}"
        where = self._triage_post()
        approve = self._button(where, "approve", first.id)
        number = approve[2] if approve else 1
        self.console.print(f"\n[bold]First proposed action[/] (choice [{number}] on the triage post):")
        self._describe(first, approve[1] if approve else None)
        if not self.approve(f"Approve {first.action.kind.value} on {first.action.target}?"):
            self.console.print("Not approved: nothing was changed. Run with --yes to approve it.")
            summary.action_state = first.status
            return
        mark = max((e.id for e in self.demo.timeline(self.incident_id)), default=0)
        clicked = time.monotonic()
        self._click(where, approve, {"action_id": ActionId.APPROVE.value, "value": str(first.id)})
        done = self._until_state(first.id, SETTLED, "the action's result")
        summary.seconds_to_result = time.monotonic() - clicked
        summary.action_state, summary.action_result = done.status, str(done.outcome.get("summary", ""))
        refused = self._has("action_refused", after=mark)
        self._result(done, refused)
        if done.status == P.DONE:
            self._offer_undo(done, where)

    def _describe(self, proposal: ActionProposal, button: dict[str, Any] | None) -> None:
        confirm = (button or {}).get("confirm") or {}
        if confirm:
            title = (confirm.get("title") or {}).get("text", "")
            body = (confirm.get("text") or {}).get("text", "")
            self.console.print(f"  Slack asks: [bold]{escape(title)}[/] {escape(body)}")
        preview = proposal.preview
        self.console.print(
            f"  Dry run (the API server's own answer): {escape(str(preview.get('summary', '')))}"
        )
        for line in preview.get("diff") or []:
            self.console.print(Text(f"    {line}", "cyan"))
        if proposal.action.undo:
            self.console.print(f"  Undo: {escape(proposal.action.undo)}")

    def _result(self, done: ActionProposal, refused: bool) -> None:
        outcome = done.outcome
        mark = "[green]✔[/]" if done.status == P.DONE else "[red]✘[/]"
        self.console.print(f"\n{mark} [bold]{done.status}[/]: {escape(str(outcome.get('summary', '')))}")
        for line in outcome.get("diff") or []:
            self.console.print(Text(f"    {line}", "cyan"))
        if refused:
            self.console.print("  (the bot refused the click; its answer is shown above)")
        elif done.status == P.DONE:
            self.console.print(
                "  The scenario's metrics are a recording, so its alert keeps firing here; on a cluster the "
                "alert's resolved notification follows, and the channel offers to resolve the incident.",
                style="grey50",
            )

    def _offer_undo(self, done: ActionProposal, where: tuple[str, str] | None) -> None:
        if self.feed is not None:  # the post is edited once more, to offer Undo
            self._follow(lambda: self._button(where, "undo", done.id) is not None, 20, "Undo button")
        undo = self._button(where, "undo", done.id)
        number = f"[{undo[2]}] " if undo else ""
        undo_text = escape(done.action.undo or "restore the object")
        self.console.print(f"  The post now offers {number}Undo: {undo_text}")
        if not self.undo("Undo it now?"):
            self.console.print(
                "  Left as it is; the Undo button stays on the post while the incident is open."
            )
            return
        self._click(where, undo, {"action_id": ActionId.UNDO.value, "value": str(done.id)})
        undone = self._until_state(done.id, UNDO_SETTLED, "the undo's result")
        said = escape(str(undone.outcome.get("summary", "")))
        self.console.print(f"[bold]{undone.status.replace('_', ' ')}[/]: {said}")
        for line in undone.outcome.get("diff") or []:
            self.console.print(Text(f"    {line}", "cyan"))

    def _until_state(self, proposal_id: int, states: frozenset[ProposalState], what: str) -> ActionProposal:
        self._follow(lambda: self.demo.proposal(proposal_id).status in states, ACTION_SECONDS, what)
        return self.demo.proposal(proposal_id)

    def _click(
        self,
        where: tuple[str, str] | None,
        found: tuple[str, dict[str, Any], int] | None,
        fallback: dict[str, Any],
    ) -> None:
        """Click the button as posted (its block id and value), or, with a real workspace whose
        messages the demo does not read, the same action ids the bot posts."""
        if where is None:
            raise DemoError(f"incident {self.incident_id}: the triage post is not recorded")
        action = fallback if found is None else {"block_id": found[0], **found[1]}
        url = self.demo.click(where[0], where[1], {k: v for k, v in action.items() if k != "confirm"})
        if self.feed is not None:
            self.feed.clicked(url, where[0])

    def _triage_post(self) -> tuple[str, str] | None:
        stored = self.demo.deps.services.chat.message(self.incident_id, "triage", 1)
        return (stored.channel_id, stored.ts) if stored else None

    def _button(
        self, where: tuple[str, str] | None, verb: str, proposal_id: int
    ) -> tuple[str, dict[str, Any], int] | None:
        """The button `verb` of one proposal on the triage post: its block id, itself, its number."""
        if where is None or self.feed is None:
            return None
        view = next((v for v in self.feed.channels() if v.id == where[0]), None)
        post = next((p for p in view.posts if p.ts == where[1]), None) if view else None
        if post is None:
            return None
        for number, (block_id, button) in enumerate(post.buttons(), start=1):
            if str(button.get("action_id", "")).startswith(verb) and button.get("value") == str(proposal_id):
                return block_id, button, number
        return None


def summary_table(summary: Summary) -> Table:
    table = Table(title=f"Demo summary · {summary.scenario}", show_header=False, title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    rows = [
        ("Time to triage", f"{summary.seconds_to_triage:.1f} s (alert posted → triage in the channel)"),
        ("Found", f"{summary.category} / {summary.code} ({summary.confidence:.0%}, {summary.engine})"),
        ("Hypothesis", summary.hypothesis),
        ("Gaps", "; ".join(summary.gaps) or "none"),
        ("Proposed actions", str(summary.proposals)),
        ("First action", _action_line(summary)),
        ("Chart", str(summary.chart) if summary.chart else "none"),
        ("Triage JSON", f"{summary.triage_json} (every evidence item; the demo's store ends with it)"),
    ]
    for name, value in rows:
        table.add_row(name, Text(value))  # data, never markup: "[pod=…]" is a label, not a style
    return table


def _action_line(summary: Summary) -> str:
    if not summary.action:
        return "none proposed"
    line = f"{summary.action} → {summary.action_state}"
    if summary.seconds_to_result is not None:
        line += f" ({summary.seconds_to_result:.1f} s from the click)"
    return line
