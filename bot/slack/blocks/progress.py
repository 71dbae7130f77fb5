"""The message a running triage keeps up to date: which tools answered, which became gaps, which
step it is on. The finished triage then replaces it in place."""

from __future__ import annotations

from dataclasses import dataclass, field

from slack_sdk.models.blocks import Block, ContextBlock, MarkdownTextObject, SectionBlock

from bot.slack.blocks.text import SECTION, cut, escape
from bot.triage.progress import STEPS, ProgressEvent


@dataclass
class ProgressView:
    """What a triage run has said so far."""

    run: int
    tools: dict[str, tuple[float, list[str]]] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)

    def add(self, event: ProgressEvent) -> None:
        if event.tool is not None:
            self.tools[event.tool] = (event.ms, event.gaps)
        elif event.step not in self.steps:
            self.steps.append(event.step)

    def text(self) -> str:
        return f"Triage run {self.run} running: {len(self.tools)} tools answered"

    def blocks(self) -> list[Block]:
        lines = []
        for name, (ms, gaps) in sorted(self.tools.items()):
            lines.append(
                f":warning: *{escape(name)}*: {escape('; '.join(gaps))}"
                if gaps
                else f":white_check_mark: *{escape(name)}* {ms:.0f} ms"
            )
        done = [s for s in STEPS if s in self.steps]
        now = next((s for s in STEPS if s not in self.steps and s != "llm_review"), "report")
        return [
            SectionBlock(
                text=MarkdownTextObject(
                    text=cut(
                        f":hourglass_flowing_sand: *Triage run {self.run} running* — {now}…\n"
                        + "\n".join(lines),
                        SECTION,
                    )
                )
            ),
            ContextBlock(elements=[MarkdownTextObject(text=" → ".join(done) or "gathering evidence")]),
        ]
