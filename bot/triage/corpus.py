"""Labelled error lines, and how well an attributor does on them.

The real-wording corpus (tests/triage/corpus/real_lines.tsv) is what the rules are written from
(its train split), what the learned stage is trained on (train and dev) and what the figures in the
README are measured on (its test split, never read while writing rules); first_contact.tsv records
how each collection round's lines met the rules of their day. Scoring counts what a
responder feels: the right code, no code at all, and the worst case, a code of another layer that
sends the page to the wrong team.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bot.errors import ConfigError
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy

SPLITS = ("train", "dev", "test")
COLUMNS = ("split", "code", "source", "family", "line", "note")
EMITTER_COLUMNS = ("code", "source", "family", "line", "note")


@dataclass(frozen=True)
class LabelledLine:
    """One error line and the code of the root cause its thread states."""

    split: str
    code: str
    source: str  # owner/repo#N
    family: str  # what emitted it: vllm, nccl, kubelet, openai-client …
    line: str
    note: str = ""


def _rows(path: Path, columns: tuple[str, ...], what: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of each row of a TSV (# comments and blank lines skipped);
    ConfigError names the file, and the line when its columns are off."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if len(cells) != len(columns):
            raise ConfigError(
                f"{path}:{n}: expected {len(columns)} tab-separated columns "
                f"({', '.join(columns)}), found {len(cells)}"
            )
        yield n, cells


def load_corpus(path: Path) -> list[LabelledLine]:
    """The rows of a corpus TSV (# comments skipped); ConfigError names the file and line."""
    out: list[LabelledLine] = []
    for n, (split, code, source, family, line, note) in _rows(path, COLUMNS, "corpus"):
        if split not in SPLITS:
            raise ConfigError(f"{path}:{n}: split: {split!r} is not one of {', '.join(SPLITS)}")
        out.append(LabelledLine(split, code, source, family, line, note))
    return out


def load_renamed(path: Path) -> dict[str, str]:
    """Old owner/repo -> current, lower case: a renamed project's threads sit under both names,
    and it belongs to one split, its current name's."""
    return {
        old.lower(): current.lower()
        for _, (old, current) in _rows(path, ("old", "current"), "renamed repositories")
    }


def project(source: str, renamed: Mapping[str, str]) -> str:
    """The repository a source (owner/repo#N) counts as: its current name, lower case."""
    repo = source.split("#")[0].lower()
    return renamed.get(repo, repo)


@dataclass(frozen=True)
class EmitterLine:
    """A failure message read in an emitter's own source (owner/repo@commit:path:line), written as
    the log line it prints, with the code the message itself gives: the wording of the servers whose
    own repositories are held out, known before any user reports it."""

    code: str
    source: str
    family: str
    line: str
    note: str = ""  # the format string as the source writes it


def load_emitter_lines(path: Path) -> list[EmitterLine]:
    """The rows of an emitter-wording TSV (# comments skipped); ConfigError names the file and line."""
    return [EmitterLine(*cells) for _, cells in _rows(path, EMITTER_COLUMNS, "emitter wording")]


def line_key(source: str, line: str) -> tuple[str, str]:
    """How first_contact.tsv names a corpus line: its source and the start of its sha1."""
    return source, hashlib.sha1(line.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Contact:
    """A corpus line as the rules of its day met it: its collection round and what they answered."""

    round: str
    key: tuple[str, str]
    answer: str  # the code the rules gave, UNATTRIBUTED when they missed it

    @property
    def missed(self) -> bool:
        return self.answer == UNATTRIBUTED

    def row(self) -> str:
        """The line of first_contact.tsv that records it."""
        return "\t".join((self.round, *self.key, self.answer))


def first_contact(path: Path) -> list[Contact]:
    """Every recorded collection round's lines (empty when there is no such file)."""
    if not path.exists():
        return []
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            round_, source, digest, answer = raw.split("\t")
            out.append(Contact(round_, (source, digest), answer))
    return out


class _Answer(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def stage(self) -> str: ...


@dataclass
class Tally:
    """Counts of one slice of the corpus."""

    total: int = 0
    right: int = 0
    unattributed: int = 0
    wrong_layer: int = 0

    def add(self, right: bool, unattributed: bool, wrong_layer: bool) -> None:
        self.total += 1
        self.right += right
        self.unattributed += unattributed
        self.wrong_layer += wrong_layer

    def share(self, count: int) -> float:
        return count / self.total if self.total else 0.0

    def row(self, name: str) -> str:
        return (
            f"| {name} | {self.total} | {self.share(self.right):.1%} | "
            f"{self.share(self.unattributed):.1%} | {self.share(self.wrong_layer):.1%} |"
        )


@dataclass
class CorpusScore:
    """The figures of one corpus slice: overall, by the stage that answered and by source family."""

    overall: Tally = field(default_factory=Tally)
    by_stage: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_family: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    misses: list[tuple[LabelledLine, str]] = field(default_factory=list)

    def render(self, title: str) -> str:
        head = "| {} | lines | code right | unattributed | wrong layer |\n|---|---|---|---|---|"
        stages = sorted(self.by_stage.items(), key=lambda kv: -kv[1].total)
        families = sorted(self.by_family.items(), key=lambda kv: (-kv[1].total, kv[0]))
        return "\n".join(
            [
                f"### {title}",
                "",
                head.format("slice"),
                self.overall.row("all"),
                *(t.row(f"stage: {name}") for name, t in stages),
                "",
                head.format("source family"),
                *(t.row(name) for name, t in families),
            ]
        )


def score(
    lines: Iterable[LabelledLine], attribute: Callable[[str], _Answer], taxonomy: Taxonomy
) -> CorpusScore:
    """Attribute every line and count right / unattributed / wrong layer, per stage and family."""
    out = CorpusScore()
    for item in lines:
        got = attribute(item.line)
        expected = taxonomy.resolve(item.code)
        answered = got.code != UNATTRIBUTED
        right = got.code == expected
        wrong_layer = (
            answered
            and expected != UNATTRIBUTED
            and taxonomy.layer_of(got.code).name != taxonomy.layer_of(expected).name
        ) or (answered and expected == UNATTRIBUTED)
        flags = (right, not answered and expected != UNATTRIBUTED, wrong_layer)
        out.overall.add(*flags)
        out.by_stage[got.stage].add(*flags)
        out.by_family[item.family].add(*flags)
        if not right:
            out.misses.append((item, got.code))
    return out
