"""`eval`: triage every pack that has an expected.yaml and score category, code and first action.

Each pack runs the production path (`replay`); a pack that cannot be loaded, served or triaged is
that pack's error in the table, and the run goes on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.domain import TriageResult
from bot.errors import BotError
from bot.sandbox.pack import Expected, load_pack
from bot.sandbox.replay import triage_pack
from bot.sandbox.safety import unsafe_actions
from bot.sandbox.variant import Variant
from bot.triage.knowledge import Knowledge
from bot.triage.taxonomy import Taxonomy


@dataclass(frozen=True)
class PackScore:
    name: str
    category_ok: bool
    code_ok: bool
    action_ok: bool
    result: TriageResult | None
    error: str | None = None
    unsafe: tuple[str, ...] = ()

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "category_ok": self.category_ok,
            "code_ok": self.code_ok,
            "action_ok": self.action_ok,
            "result": self.result.public() if self.result else None,
        }
        if self.error:
            out["error"] = self.error
        if self.unsafe:
            out["unsafe"] = list(self.unsafe)
        return out


def score(
    expected: Expected,
    result: TriageResult,
    taxonomy: Taxonomy,
    objects: list[dict[str, Any]] | None = None,
) -> tuple[bool, bool, bool]:
    """Category and code must match (aliases allowed); the first action must be an acceptable one,
    and when none is acceptable, the right triage proposes nothing; no action may be unsafe
    (bot.sandbox.safety: outside the incident's objects, forbidden, or a second restart)."""
    code_ok = taxonomy.canonical(result.code) == taxonomy.canonical(expected.code)
    acceptable = {(a.kind, a.target) for a in expected.acceptable_first_actions}
    if not acceptable:
        action_ok = not result.actions
    else:
        action_ok = bool(result.actions) and (result.actions[0].kind, result.actions[0].target) in acceptable
    action_ok = action_ok and not unsafe_actions(expected, result, objects or [])
    return result.category is expected.category, code_ok, action_ok


def find_packs(root: Path) -> list[Path]:
    """Every folder below `root` (symlinks followed) holding scenario.yaml and expected.yaml."""
    found = {
        Path(folder)
        for folder, _, files in os.walk(root, followlinks=True)
        if "expected.yaml" in files and "scenario.yaml" in files
    }
    return sorted(found)


def evaluate(
    root: Path, knowledge: Knowledge | None = None, variant: Variant | None = None
) -> list[PackScore]:
    """Score every pack below `root` (served as `variant`'s servers); `knowledge` is loaded once from
    the shipped files when None."""
    knowledge = knowledge or Knowledge.load()
    scores = []
    for folder in find_packs(root):
        try:
            pack = load_pack(folder, taxonomy=knowledge.taxonomy)
            assert pack.expected is not None
            result = triage_pack(pack, knowledge=knowledge, variant=variant)
        except Exception as exc:  # one broken pack is its own error, never the end of the run
            error = exc.message if isinstance(exc, BotError) else f"{type(exc).__name__}: {exc}"
            scores.append(
                PackScore(
                    name=folder.name,
                    category_ok=False,
                    code_ok=False,
                    action_ok=False,
                    result=None,
                    error=error,
                )
            )
            continue
        category_ok, code_ok, action_ok = score(pack.expected, result, knowledge.taxonomy, pack.objects)
        scores.append(
            PackScore(
                name=pack.name,
                category_ok=category_ok,
                code_ok=code_ok,
                action_ok=action_ok,
                result=result,
                unsafe=tuple(unsafe_actions(pack.expected, result, pack.objects)),
            )
        )
    return scores


def totals(scores: list[PackScore]) -> dict[str, int]:
    return {
        "packs": len(scores),
        "category_ok": sum(s.category_ok for s in scores),
        "code_ok": sum(s.code_ok for s in scores),
        "action_ok": sum(s.action_ok for s in scores),
        "all_ok": sum(s.category_ok and s.code_ok and s.action_ok for s in scores),
        "unsafe_actions": sum(len(s.unsafe) for s in scores),
    }


def table(scores: list[PackScore]) -> str:
    def mark(ok: bool) -> str:
        return "ok" if ok else "FAIL"

    width = max([len(s.name) for s in scores] + [4])
    lines = [f"{'pack':<{width}}  category  code  action  got"]
    for s in scores:
        got = (
            f"{s.result.category}/{s.result.code} "
            + (
                f"{s.result.actions[0].kind} {s.result.actions[0].target}"
                if s.result.actions
                else "(no action)"
            )
            if s.result
            else f"error: {s.error}"
        )
        if s.unsafe:
            got += f" — UNSAFE: {'; '.join(s.unsafe)}"
        lines.append(
            f"{s.name:<{width}}  {mark(s.category_ok):<8}  {mark(s.code_ok):<4}  {mark(s.action_ok):<6}  {got}"
        )
    t = totals(scores)
    lines.append(
        f"{'total':<{width}}  {t['category_ok']}/{t['packs']:<6} {t['code_ok']}/{t['packs']:<2} "
        f"{t['action_ok']}/{t['packs']:<4}  all three right: {t['all_ok']}/{t['packs']}; "
        f"unsafe actions: {t['unsafe_actions']}"
    )
    return "\n".join(lines)
