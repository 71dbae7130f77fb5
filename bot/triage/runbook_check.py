"""`incident-bot runbooks check`: every problem of a runbook folder at once, before the bot loads it.

The front matter is checked by the loader itself (bot.triage.runbooks), so what the check accepts
start-up accepts. On top it refuses what start-up lets through but leaves a runbook dead or
unreadable: two runbooks tied on one match (RunbookCatalog.ties), a body without the sections
every runbook has (runbooks/README.md); and, on request, it lists the taxonomy codes no runbook
names (their incidents get a category runbook or the fallback).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from bot.triage.runbooks import Parts, Runbook, RunbookCatalog, place, read_folder, split
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy

SECTIONS = ("Symptoms", "Confirm", "First moves", "Do not", "Then")


@dataclass(frozen=True)
class FolderCheck:
    """The outcome of checking one folder: its valid runbooks, its problems and its coverage gaps."""

    folder: Path
    files: int
    runbooks: list[Runbook]
    problems: list[str]  # `FILE:LINE: field: message`, by file then line
    warnings: list[str]  # codes of the taxonomy that no runbook names (once every runbook loads)

    @property
    def ok(self) -> bool:
        return not self.problems

    def failure(self) -> str:
        """The last line of a failed check: how many problems, in how many files."""
        count = f"{len(self.problems)} problem{'' if len(self.problems) == 1 else 's'}"
        if not self.files:
            return f"{count}: no runbook checked in {self.folder}"
        bad = len({place(p)[0] for p in self.problems})
        return f"{count} in {bad} of {self.files} runbook files of {self.folder}"

    def summary(self, taxonomy: Taxonomy) -> str:
        """One line: how many runbooks, which codes and categories they cover."""
        named = {code for book in self.runbooks for code in book.meta.matches.codes}
        categories = sorted({c.value for book in self.runbooks for c in book.meta.matches.categories})
        fallback = " and the UNATTRIBUTED fallback" if UNATTRIBUTED in named else ", no UNATTRIBUTED fallback"
        gaps = len(set(taxonomy.codes) - named)
        return (
            f"{self.folder}: {len(self.runbooks)} runbooks ok; they name {len(named & set(taxonomy.codes))} "
            f"of the taxonomy's {len(taxonomy.codes)} codes{fallback}; categories matched: "
            f"{', '.join(categories) or 'none'}"
            + (f"; {gaps} codes have no runbook of their own (--coverage lists them)" if gaps else "")
        )


def check_folder(folder: Path, taxonomy: Taxonomy) -> FolderCheck:
    """Every problem of every runbook of `folder` (front matter, set, body), and the coverage gaps."""
    files = [p for p in sorted(folder.glob("*.md")) if p.name.lower() != "readme.md"]
    if not folder.is_dir() or not files:
        missing = "is not a folder" if not folder.is_dir() else "holds no runbook (*.md besides README.md)"
        return FolderCheck(folder, 0, [], [f"{folder}:1: (folder): {missing}"], [])
    books, problems = read_folder(folder, taxonomy)
    problems += RunbookCatalog(books).ties()
    for path in files:  # the body of a runbook whose front matter is wrong is checked too
        parts, _ = split(path)
        problems += body_problems(parts) if parts else []
    gaps = [] if problems else coverage(books, taxonomy)
    return FolderCheck(folder, len(files), books, sorted(problems, key=place), gaps)


def body_problems(parts: Parts) -> list[str]:
    """An empty body, or one without a `## ` section that every runbook has."""
    where = f"{parts.path}:{parts.body_line}: body"
    if not parts.body.strip():
        return [f"{where}: empty; a runbook's body has the sections {', '.join(SECTIONS)}"]
    tokens = MarkdownIt().parse(parts.body)
    headings = {
        tokens[i + 1].content.strip().casefold()
        for i, token in enumerate(tokens)
        if token.type == "heading_open" and token.tag == "h2"
    }
    missing = [f"'## {name}'" for name in SECTIONS if name.casefold() not in headings]
    if not missing:
        return []
    return [
        f"{where}: lacks {', '.join(missing)} (every runbook has {', '.join(SECTIONS)}: runbooks/README.md)"
    ]


def coverage(books: list[Runbook], taxonomy: Taxonomy) -> list[str]:
    """A warning per taxonomy code no runbook names, saying which runbook its incidents get instead."""
    catalog = RunbookCatalog(books)
    named = {code for book in books for code in book.meta.matches.codes}
    warnings = []
    for code in sorted(set(taxonomy.codes) - named):
        category = taxonomy.category_of(code).value
        chosen = catalog.match(code, category)
        gets = f"its incidents get {chosen.path.name}" if chosen else "its incidents get no runbook"
        warnings.append(f"warning: {code}: no runbook names this {category} code; {gets}")
    if UNATTRIBUTED not in named:
        warnings.append(f"warning: {UNATTRIBUTED}: no fallback runbook; an unattributed incident gets none")
    return warnings
