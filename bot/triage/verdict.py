"""The LLM reviewer's validated verdict, and how it overrides the rules' decision and result.

A verdict exists only once its codes, categories, evidence ids and action targets were checked
against the taxonomy, the catalog and the evidence; the rules' cause, findings and rollout stay.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.actions.catalog import spec_for
from bot.domain import Category, ProposedAction, TriageResult
from bot.errors import validation_reasons
from bot.triage.classify import Decision
from bot.triage.gather import Gathered
from bot.triage.redact import redact
from bot.triage.report import MAX_EVIDENCE
from bot.triage.taxonomy import UNATTRIBUTED, Taxonomy, prefix


class Verdict(BaseModel):
    """The review's answer once validated."""

    model_config = ConfigDict(frozen=True)

    category: Category
    code: str
    layer: str
    hypothesis: str
    confidence: float = Field(ge=0, le=1)
    evidence_ids: list[str]
    actions: list[ProposedAction]


def overridden(decision: Decision, verdict: Verdict) -> Decision:
    """The rules' decision with the verdict's code, category and layer."""
    return dataclasses.replace(
        decision, code=verdict.code, category=verdict.category, layer=verdict.layer, rule="llm review"
    )


def with_verdict(result: TriageResult, verdict: Verdict, gathered: Gathered) -> TriageResult:
    """The result with the verdict's hypothesis, confidence and cited evidence first."""
    by_id = {e.id: e for e in gathered.evidence}
    cited = [by_id[i].public() for i in verdict.evidence_ids if i in by_id]
    rest = [e for e in result.evidence if e["id"] not in set(verdict.evidence_ids)]
    return result.model_copy(
        update={
            "hypothesis": verdict.hypothesis,
            "confidence": verdict.confidence,
            "engine": "llm",
            "evidence": (cited + rest)[:MAX_EVIDENCE],
        }
    )


# -- the model's answer, checked ----------------------------------------------------------------

JSON_OBJECT = re.compile(r"\{.*\}", re.S)


class _Claim(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str
    evidence_ids: list[str] = Field(min_length=1)


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: str
    target: str
    rationale: str = ""


class Answer(BaseModel):
    """The structure the model must answer with (the system prompt shows it)."""

    model_config = ConfigDict(extra="ignore")
    category: str
    code: str
    layer: str
    hypothesis: str = Field(min_length=10)
    confidence: float = Field(ge=0, le=1)
    evidence_ids: list[str] = Field(min_length=1)
    claims: list[_Claim] = Field(default_factory=list)
    actions: list[_Action] = Field(default_factory=list)


def validate_answer(
    text: str, *, taxonomy: Taxonomy, evidence_ids: Collection[str], targets: Collection[str], namespace: str
) -> tuple[Verdict | None, list[str]]:
    """The verdict when the answer holds: known code and category that fit, cited evidence that
    exists, catalog actions on targets the evidence names; else the problems, for one repair."""
    match = JSON_OBJECT.search(text or "")
    if match is None:
        return None, ["the answer holds no JSON object"]
    try:
        answer = Answer.model_validate_json(match.group(0))
    except ValidationError as exc:
        return None, validation_reasons(exc, limit=5)
    problems: list[str] = []
    categories = [c.value for c in Category]
    if answer.category not in categories:
        problems.append(f"category {answer.category!r} is not one of {categories}")
    code = answer.code
    if code == UNATTRIBUTED or code not in taxonomy.codes:
        problems.append(f"code {code!r} is not in the taxonomy")
    layer = prefix(code)
    if answer.layer != layer:
        problems.append(f"layer {answer.layer!r} does not match code {code}")
    if code in taxonomy.codes and not taxonomy.fits(code, answer.category):
        expected = taxonomy.category_of(code).value
        problems.append(f"category {answer.category} does not fit layer {layer} (its category is {expected})")
    cited = set(answer.evidence_ids) | {i for c in answer.claims for i in c.evidence_ids}
    unknown = sorted(i for i in cited if i not in evidence_ids)
    if unknown:
        problems.append(f"evidence ids that do not exist: {', '.join(unknown[:5])}")
    actions: list[ProposedAction] = []
    for action in answer.actions:
        try:
            spec = spec_for(action.kind)
        except ValueError:
            problems.append(f"action {action.kind!r} is not in the catalog")
            continue
        if action.target.split("/", 1)[0] != spec.target_kind:
            problems.append(f"{action.kind} acts on a {spec.target_kind}, not {action.target}")
        elif action.target not in targets:
            problems.append(f"target {action.target} does not appear in the evidence")
        else:
            actions.append(
                ProposedAction(
                    kind=spec.kind,
                    target=action.target,
                    namespace=namespace if spec.namespaced else None,
                    undo=spec.undo,
                    rationale=redact(action.rationale)[:500],
                )
            )
    if problems:
        return None, problems
    verdict = Verdict(
        category=Category(answer.category),
        code=code,
        layer=layer,
        hypothesis=redact(answer.hypothesis),
        confidence=answer.confidence,
        evidence_ids=list(dict.fromkeys(answer.evidence_ids)),
        actions=actions,
    )
    return verdict, []
