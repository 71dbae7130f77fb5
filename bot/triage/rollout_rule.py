"""The model-rollout rule: a rollout that changed the model is the cause when the symptoms start with it.

It names the deployment whose pods fail (not merely the newest rollout of the namespace), sorts what
the rollout changed (bot.triage.changes: an unrelated change such as a log level never makes it a
model rollout), and only wins when its onset lines up with the symptoms. A fault the rollout cannot
have caused (a GPU that fell off the bus, an NCCL failure, a node gone, an image that cannot be
pulled) that shows first, or together with the symptoms, still wins: it goes to the earliest-cause
rule.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.domain import Category
from bot.triage.changes import MODEL_CHANGES, RISKY_CHANGES, Change, kinds
from bot.triage.findings import TIE, Finding, kind
from bot.triage.taxonomy import Taxonomy
from tools.kubernetes import pod_name_pattern
from tools.result import Evidence, Source

ROLLOUT_LEAD = timedelta(minutes=15)
# Where a changed model shows first: errors and latency at the gateway, the model's own quality
# signals, the engine's queues.
SYMPTOM_LAYERS = frozenset({"GW", "MOD", "ENG"})
SLACK = timedelta(minutes=1)
# Infrastructure codes a changed model explains (a checkpoint with another vocabulary trips a
# device-side assert); every other infrastructure fault stands on its own.
EXPLAINED_BY_MODEL = frozenset({"INF_CUDA_ERROR"})
# The attribution rule of "weight files not found" lines (rules/attribution/).
FILES_MISSING_RULES = frozenset({"model-files-absent"})
ARTIFACT_CHANGES = frozenset({Change.ARTIFACT, Change.REVISION})


@dataclass(frozen=True)
class RolloutCause:
    code: str
    cause: Finding
    why: str


def failing_rollout(
    evidence: list[Evidence], findings: list[Finding], related: Collection[str] = ()
) -> Evidence | None:
    """The rollout of the deployment whose pods fail, else the newest one that changed the model,
    else one that changed something that matters, else the newest. A rollout of a `related`
    deployment (another part of the application: the model server an API calls) only counts when
    it changed the model."""
    dated = sorted((e for e in kind(evidence, "rollout") if e.onset), key=lambda e: e.onset or datetime.min)
    rollouts = [r for r in dated if r.labels.get("deployment") not in related or changed(r) & MODEL_CHANGES]
    if not rollouts:
        return None
    failing = {p for f in findings for p in f.targets.get("pod", set())}
    # By the pod-name shape, not a prefix: `<deploy>-canary-…` pods are not `<deploy>`'s.
    mine = [
        r
        for r in rollouts
        if any(re.fullmatch(pod_name_pattern(r.labels.get("deployment", "")), p) for p in failing)
    ]
    model = [r for r in rollouts if changed(r) & MODEL_CHANGES]
    risky = [r for r in rollouts if changed(r) & RISKY_CHANGES]
    return (mine or model or risky or rollouts)[-1]


def _symptom_onsets(evidence: Sequence[Evidence], after: datetime) -> list[datetime]:
    return [
        e.onset
        for e in evidence
        if e.source is Source.PROMETHEUS
        and e.labels.get("abnormal") == "true"
        and e.layer in SYMPTOM_LAYERS
        and e.onset is not None
        and e.onset >= after
    ]


def _files_missing(f: Finding) -> bool:
    """Weight files not found, with nothing wrong with the storage itself (no full volume, no I/O
    error): after a rollout that changed the model's path, the new revision points where no model
    is, a load failure of the model (taxonomy: absent from storage is INF_DISK, and storage is fine)."""
    return f.code == "INF_DISK" and bool(f.rules) and f.rules <= FILES_MISSING_RULES


def changed(rollout: Evidence | None) -> set[Change]:
    return kinds(rollout.labels.get("changes", "")) if rollout is not None else set()


def model_rollout(
    rollout: Evidence | None,
    findings: list[Finding],
    symptoms_start: datetime,
    taxonomy: Taxonomy,
    *,
    evidence: Sequence[Evidence] = (),
) -> RolloutCause | None:
    """The rule's cause, or None when it does not apply. The symptoms start when the alert's
    expression did, or earlier, when a reading still abnormal at as_of crossed its threshold after
    the rollout (a quality alert's long window fires well after the canary dropped)."""
    if rollout is None or rollout.onset is None:
        return None
    what = changed(rollout)
    after = rollout.onset - SLACK
    symptoms_start = min([symptoms_start, *_symptom_onsets(evidence, after)])
    mod_findings = [
        f
        for f in findings
        if taxonomy.category_of(f.code) is Category.MODEL_CONFIG and (f.onset is None or f.onset >= after)
    ]
    if not (what & MODEL_CHANGES) and not mod_findings:
        return None
    if not (after <= symptoms_start <= rollout.onset + ROLLOUT_LEAD):
        return None
    missing = [f for f in findings if _files_missing(f)] if what & ARTIFACT_CHANGES else []
    standing = [
        f
        for f in findings
        if taxonomy.category_of(f.code) is Category.INFRASTRUCTURE
        and not f.symptom
        and f.code not in EXPLAINED_BY_MODEL
        and f not in missing
        and f.onset is not None
        and f.onset <= symptoms_start + TIE
    ]
    if standing or any(
        taxonomy.category_of(f.code) is Category.INFRASTRUCTURE and f.onset and f.onset < rollout.onset
        for f in findings
        if not f.symptom
    ):
        return None
    codes = {f.code for f in mod_findings}
    if Change.QUANTIZATION in what or "MOD_QUALITY_REGRESSION" in codes:
        code, why = "MOD_QUALITY_REGRESSION", "precision or quantization changed by the rollout"
    elif Change.TOKENIZER in what or "MOD_TOKENIZER" in codes:
        code, why = "MOD_TOKENIZER", "tokenizer or chat template changed by the rollout"
    elif mod_findings:
        code = min(mod_findings, key=lambda f: (f.onset or rollout.onset, -f.strength)).code
        why = "model-layer errors right after the rollout"
    elif any(f.code == "MOD_LOAD_FAILED" for f in findings):
        code, why = "MOD_LOAD_FAILED", "the new model failed to load"
    elif missing:
        code, why = (
            "MOD_LOAD_FAILED",
            "the new revision's model files are not where it points, and storage is fine",
        )
    else:
        changes = ", ".join(sorted(c.value for c in what & MODEL_CHANGES))
        code, why = "MOD_CONFIG_MISMATCH", f"the rollout changed the {changes} and errors began with it"
    cause = next((f for f in mod_findings if f.code == code), None)
    if cause is None:
        cause = Finding(
            code=code,
            onset=rollout.onset,
            strength=0.7,
            evidence=[rollout.id],
            source=Source.KUBERNETES,
            note=rollout.summary,
        )
    elif rollout.id not in cause.evidence:
        cause.evidence.insert(0, rollout.id)
    cause.add_target("deployment", rollout.labels.get("deployment", ""))
    return RolloutCause(code=code, cause=cause, why=why)
