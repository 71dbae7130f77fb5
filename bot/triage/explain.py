"""Why a line got its code: the rule and the pattern that matched, or the model's nearest lines.

A responder believes a code they can check. For a rule that is the pattern and the rule's own
examples; for the learned stage it is its probability against the threshold (and its layer's against
the layer threshold), the labelled lines it resembles most and the one its neighbour check read, which
is also what a reviewer reads when a model answer looks wrong.
"""

from __future__ import annotations

from bot.triage.attribution import Attribution, Attributor
from bot.triage.attribution_rules import Rule
from bot.triage.envelope import unwrap
from bot.triage.failure_gate import says_failure
from bot.triage.log_header import strip_header

NEAREST = 3


def _matched(rule: Rule, text: str) -> list[str]:
    folded = text.lower() if text.isascii() else None
    return [c.rx.pattern for c in (*rule.any_of, *rule.all_of) if c.search(text, folded)]


def explain(attributor: Attributor, message: str, got: Attribution) -> dict[str, object]:
    """The `explain` object of one answer (what `attribute --explain` adds to each line)."""
    message = unwrap(message)  # what the rules and the model read
    out: dict[str, object] = {"stage": got.stage}
    if got.stage == "rule" and got.rule is not None:
        rule = next(r for r in attributor.rules if r.id == got.rule)
        matched = _matched(rule, message) or _matched(rule, strip_header(message))
        out.update(rule=rule.id, engines=list(rule.engines), patterns=matched, example=rule.examples[0])
    elif got.stage == "explicit":
        out["reason"] = "the line carries its own error code"
    model = attributor.model
    if model is not None and got.stage in ("model", "none"):
        guess = model.best(message)
        out.update(
            model_code=guess.code,
            probability=round(guess.probability, 3),
            threshold=model.threshold,
            layer_probability=round(guess.layer_probability, 3),
            layer_threshold=model.layer_threshold,
            failure_words=says_failure(message),
            nearest=[
                {"similarity": n.similarity, "code": n.code, "source": n.source, "line": n.line}
                for n in model.nearest(message, NEAREST)
            ],
        )
        if model.neighbour_similarity >= 0:  # the check the answer also needs (neighbours.py)
            rare = model.rare_neighbour(message)
            out["neighbour_check"] = {
                "threshold": model.neighbour_similarity,
                "nearest_by_rare_features": None
                if rare is None
                else {
                    "similarity": rare.similarity,
                    "code": rare.code,
                    "source": rare.source,
                    "line": rare.line,
                },
            }
    elif model is None and got.stage == "none":
        out["reason"] = "no rule matched and the learned stage is off"
    return out
