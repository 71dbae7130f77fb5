"""How the learned stage is fitted and how a way of fitting is judged: lines weighed by their
repository, and the nested count that compares ways of fitting on rounds their thresholds never saw."""

from __future__ import annotations

import numpy as np
import pytest

from bot.triage.calibration import FoldAnswer, choose_point, nested, report, sweep
from bot.triage.fitting import Example, Settings, fit, fit_examples, line_weights


def test_a_line_weighs_the_inverse_power_of_its_groups_size_and_the_mean_stays_one() -> None:
    weights = line_weights(["a", "a", "a", "a", "b"], 0.5)
    assert weights is not None
    assert weights[0] == pytest.approx(weights[4] / 2)
    assert weights.mean() == pytest.approx(1.0)
    assert line_weights(["a", "b"], 0.0) is None
    assert line_weights(None, 1.0) is None


def test_weighing_by_group_keeps_one_talkative_repository_from_deciding_a_wording() -> None:
    """Twenty lines of one repository say "engine stalled" of a crash; two other repositories say it
    of a timeout. Unweighed, the one repository wins; weighed by 1 / its size, two repositories beat one."""
    crash = [Example("engine stalled", "ENG_CRASH", "big/repo", f"big/repo#{i}", True) for i in range(20)]
    timeout = [
        Example("engine stalled", "DEP_EXTERNAL_TIMEOUT", f"small/repo{i}", f"small/repo{i}#1", True)
        for i in range(2)
    ]
    examples = crash + timeout
    plain = fit_examples(examples)
    weighed = fit_examples(examples, Settings(group_power=1.0))
    assert plain.answers(["engine stalled"])[0][2] == "ENG_CRASH"
    assert weighed.answers(["engine stalled"])[0][2] == "DEP_EXTERNAL_TIMEOUT"
    # the groups are only read when a power asks for them
    same = fit([e.line for e in examples], [e.code for e in examples], [e.weight_group for e in examples])
    assert np.allclose(same.codes.coef_, plain.codes.coef_)


def test_a_synthetic_line_is_weighed_with_its_own_source_not_with_every_synthetic_line() -> None:
    rule = Example("CUDA out of memory", "INF_GPU_OOM", "rules", "rule gpu-oom", False)
    real = Example("CUDA out of memory", "INF_GPU_OOM", "vllm-project/vllm", "vllm-project/vllm#1", True)
    assert (rule.weight_group, real.weight_group) == ("rule gpu-oom", "vllm-project/vllm")


def _answers(n: int, share: float, right: bool) -> list[FoldAnswer]:
    code = "ENG_CRASH" if right else "INF_DISK"
    return [FoldAnswer(share, 0.95, code, 0.0, "", "ENG_CRASH") for _ in range(n)]


def test_nested_counts_each_fold_under_thresholds_the_other_folds_chose() -> None:
    """Folds where confident answers are right and doubtful ones wrong, and one whose two confident
    answers are wrong: each fold is counted at the thresholds the others reach the targets with, so
    the odd fold's wrong answers count; a fold whose others reach nothing counts nothing."""
    good = _answers(12, 0.9, True) + _answers(12, 0.3, False)
    odd = _answers(2, 0.9, False)
    assert nested([good, good, good, odd], [-1.0]) == {"answered": 38, "right": 36, "right_layer": 36}
    assert report([good, good, good, odd], [-1.0]).endswith("nested: 38 answered, 36 right, 2 another layer")
    bad = _answers(12, 0.9, False)
    assert choose_point(sweep(good + bad, [-1.0])) is None
    assert nested([good, bad], [-1.0]) == {"answered": 12, "right": 0, "right_layer": 0}
    assert report([good, bad], [-1.0]).startswith(
        "in sample nothing reaches the targets | nested: 12 answered"
    )
