"""What doctor says about one backend: a verdict, a one-line summary and the facts behind it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    OK = "ok"
    LIMITED = "limited"  # usable, but some evidence or some action will be missing
    UNUSABLE = "unusable"  # configured, and the bot cannot use it
    NOT_CONFIGURED = "not configured"  # the triage names it as a gap


@dataclass(frozen=True)
class Finding:
    """One fact; `ok` False is something the bot will miss, None is plain information."""

    text: str
    ok: bool | None = None


@dataclass(frozen=True)
class BackendReport:
    backend: str
    verdict: Verdict
    summary: str
    target: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @classmethod
    def absent(cls, backend: str, hint: str) -> BackendReport:
        return cls(backend, Verdict.NOT_CONFIGURED, hint)

    @classmethod
    def unusable(cls, backend: str, target: str | None, reason: str) -> BackendReport:
        return cls(backend, Verdict.UNUSABLE, reason, target)

    @classmethod
    def judged(cls, backend: str, target: str | None, summary: str, findings: list[Finding]) -> BackendReport:
        """OK unless a finding says something will be missing."""
        verdict = Verdict.LIMITED if any(f.ok is False for f in findings) else Verdict.OK
        return cls(backend, verdict, summary, target, findings)


@dataclass(frozen=True)
class Diagnosis:
    reports: list[BackendReport]

    @property
    def healthy(self) -> bool:
        """No configured backend is unusable (an absent one is a gap, not a failure)."""
        return all(r.verdict is not Verdict.UNUSABLE for r in self.reports)

    def to_json(self) -> str:
        return json.dumps(
            {"healthy": self.healthy, "backends": [asdict(r) for r in self.reports]}, indent=2, default=str
        )

    def to_text(self) -> str:
        mark = {
            Verdict.OK: "ok",
            Verdict.LIMITED: "limited",
            Verdict.UNUSABLE: "FAIL",
            Verdict.NOT_CONFIGURED: "-",
        }
        lines: list[str] = []
        for report in self.reports:
            where = f" ({report.target})" if report.target else ""
            lines.append(f"[{mark[report.verdict]:>7}] {report.backend}{where}: {report.summary}")
            for finding in report.findings:
                bullet = {True: "+", False: "!", None: "·"}[finding.ok]
                lines.append(f"           {bullet} {finding.text}")
        unusable = [r.backend for r in self.reports if r.verdict is Verdict.UNUSABLE]
        if unusable:
            lines.append(f"unusable: {', '.join(unusable)}")
        elif all(r.verdict is Verdict.NOT_CONFIGURED for r in self.reports):
            lines.append("no backend is configured: a triage would be gaps only (see .env.example)")
        elif limited := [r.backend for r in self.reports if r.verdict is Verdict.LIMITED]:
            lines.append(f"every configured backend is usable; with something missing: {', '.join(limited)}")
        else:
            lines.append("every configured backend is usable")
        return "\n".join(lines)
