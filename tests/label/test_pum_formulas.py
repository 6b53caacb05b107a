"""PUM's formulas on their worked examples, no model: prefix positions, gain, normalisation, utility, weights
(pum_paper sec 3.1-3.2, 4.5, A.2-A.3), candidate pairs and labels (A.2, A.4), Spearman (appendix B)."""

import math

import pytest

from prmkit.data.records import PrefixPair, RecordError
from prmkit.label.pum.pairs import (
    BT_TARGETS,
    PrefixPoint,
    candidate_pairs,
    conflict_rate,
    global_margin,
    length_matched,
    mean_difference,
    pair_label,
    pair_margin,
    resolution_floor,
)
from prmkit.label.pum.plots import ranks, spearman
from prmkit.label.pum.prefix_gain import (
    STUDENT_WEIGHTINGS,
    capability_weights,
    effective_students,
    gain,
    intrinsic_utility,
    normalisation,
    normalise,
    prefix_step_counts,
    solve_rate,
)
from prmkit.label.pum.students import parse_student, parse_students


def test_prefix_step_counts_worked_example():
    assert prefix_step_counts([10, 10, 10, 10]) == {0.1: 1, 0.2: 1, 0.35: 1, 0.5: 2, 0.7: 3, 0.9: 3}
    # uneven steps: a long first step takes the early cuts; never the last step
    assert prefix_step_counts([50, 5, 5, 40], [0.1, 0.5, 0.6, 0.9]) == {0.1: 1, 0.5: 1, 0.6: 3, 0.9: 3}
    assert prefix_step_counts([7]) == {} and prefix_step_counts([]) == {}
    with pytest.raises(ValueError, match="in \\(0, 1\\)"):
        prefix_step_counts([1, 2], [1.0])


def test_gain_and_normalisation():
    assert solve_rate([True, False, True, False, False, False, True, False]) == 0.375
    assert gain(0.625, 0.25) == 0.375 and gain(0.0, 0.5) == -0.5
    with pytest.raises(ValueError):
        gain(1.5, 0.0)
    mu, sigma = normalisation([0.0, 0.25, 0.5, -0.25])
    assert mu == 0.125 and sigma == pytest.approx(0.279508, abs=1e-6)
    assert normalise(0.5, 0.125, 0.25, eps=0.0) == 1.5
    assert normalise(0.0, 0.0, 0.0) == 0.0  # a student whose gains never vary: eps keeps it finite


def test_intrinsic_utility_and_capability_weights():
    assert intrinsic_utility({"a": 1.5, "b": -0.5}) == 0.5
    assert intrinsic_utility({"a": 1.5, "b": -0.5}, {"a": 0.25, "b": 0.75}) == pytest.approx(0.0)
    assert math.isnan(intrinsic_utility({}))
    weak = capability_weights({"a": 0.5, "b": 0.0, "c": 0.25}, STUDENT_WEIGHTINGS["weak"])
    assert weak == pytest.approx({"b": 0.6, "c": 0.3, "a": 0.1})
    strong = capability_weights({"a": 0.5, "b": 0.0, "c": 0.25}, STUDENT_WEIGHTINGS["strong"])
    assert strong == pytest.approx({"b": 0.1, "c": 0.3, "a": 0.6})
    assert capability_weights({"a": 0.5, "b": 0.0}, (0.6, 0.3, 0.1)) == pytest.approx({"b": 2 / 3, "a": 1 / 3})
    assert capability_weights({"a": 0.5, "b": 0.0}, None) == {"a": 0.5, "b": 0.5}
    # six students: two per group, each group's weight shared
    six = capability_weights({f"s{k}": k / 10 for k in range(6)}, (0.6, 0.3, 0.1))
    assert six == pytest.approx({"s0": 0.3, "s1": 0.3, "s2": 0.15, "s3": 0.15, "s4": 0.05, "s5": 0.05})
    assert effective_students([1, 1, 1]) == 3 and effective_students([0.6, 0.3, 0.1]) == pytest.approx(2.173913)


def point(pid, trace, source, correct, steps, positions, tokens):
    return PrefixPoint(pid, trace, source, correct, steps, positions, tokens)


def test_candidate_pairs_worked_example():
    a1 = point("t0@1", "t0", "m1", True, 1, (0.5,), 40)
    a2 = point("t0@2", "t0", "m1", True, 2, (0.5,), 80)
    b1 = point("t1@1", "t1", "m2", False, 1, (0.5,), 41)
    pairs = candidate_pairs([a1, a2, b1])
    assert [(p.a.prefix_id, p.b.prefix_id, p.kind) for p in pairs] == [("t0@1", "t0@2", "vertical"),
                                                                        ("t0@1", "t1@1", "horizontal")]
    assert pairs[1].within_model is False
    # within-model horizontal pairs need one correct and one incorrect trajectory (A.2)
    c1 = point("t2@1", "t2", "m1", True, 1, (0.5,), 40)
    assert not [p for p in candidate_pairs([a1, c1]) if p.kind == "horizontal"]
    d1 = point("t3@1", "t3", "m1", False, 1, (0.5,), 39)
    assert [(p.kind, p.within_model) for p in candidate_pairs([a1, d1])] == [("horizontal", True)]
    # different positions are never paired horizontally
    e1 = point("t4@1", "t4", "m3", False, 1, (0.2,), 40)
    assert candidate_pairs([a1, e1]) == []
    assert length_matched(100, 96) and not length_matched(100, 94) and not length_matched(0, 0)


def test_pair_label_rules():
    d, d_mean = mean_difference({"s1": 1.0, "s2": 0.5, "s3": 0.2}, {"s1": 0.0, "s2": 1.0})
    assert d == {"s1": 1.0, "s2": -0.5} and d_mean == 0.25
    assert mean_difference({"s1": 1.0}, {"s1": 0.0, "s2": 1.0}, {"s1": 0.2, "s2": 0.8})[1] == 1.0
    assert math.isnan(mean_difference({"s1": 1.0}, {"s2": 0.0})[1])
    assert global_margin([0, 0.1, 0.2, 0.4, 1.0]) == pytest.approx(0.1)
    assert global_margin([1.0, 0.4, 0.2, 0.1, 0], 0.5) == pytest.approx(0.2)
    assert global_margin([0.0, 1.0], 0.25) == pytest.approx(0.25) and global_margin([]) == 0.0
    assert resolution_floor(2) == 0.0625 and resolution_floor(1, rollouts=8, scale=2.0) == 0.25
    assert pair_margin([1.0, 1.0], 0.05) == 0.0625 and pair_margin([1.0], 0.3) == 0.3
    assert conflict_rate([0.5, -0.2, 0.1, 0.0]) == pytest.approx(1 / 3) and conflict_rate([0.0]) == 0.0
    assert pair_label(0.3, 0.1, 0.5) == 1 and pair_label(-0.3, 0.1, 0.5) == -1
    assert pair_label(0.05, 0.1, 0.0) == 0 and pair_label(0.05, 0.1, 0.5) is None
    assert pair_label(0.1, 0.1, 0.0) == 0  # |d| <= eps is a tie
    assert BT_TARGETS == {1: 1.0, 0: 0.5, -1: 0.0}


def test_prefix_pair_record_checks():
    ok = {"problem_id": "p", "question": "q", "prefix_a": ["a"], "prefix_b": ["b"], "label": 1, "id_a": "t@1",
          "id_b": "u@1"}
    assert PrefixPair.from_dict(ok).label == 1
    for bad, match in (({"label": 2}, "1, 0 or -1"), ({"label": True}, "must be int"), ({"prefix_a": []}, "step"),
                       ({"label": 0.5}, "must be int")):
        with pytest.raises(RecordError, match=match):
            PrefixPair.from_dict(ok | bad)


def test_spearman_and_ranks():
    assert ranks([0.5, 0.1, 0.5]) == [2.5, 1.0, 2.5]
    assert spearman([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(0.8)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))


def test_student_specs():
    s = parse_student("ct2:smollm2-135m@1.0", "transformers")
    assert (s.name, s.backend, s.model, s.temperature) == ("smollm2-135m_T1.0", "ct2", "smollm2-135m", 1.0)
    assert parse_student("/models/qwen3", "ct2") == parse_student("ct2:/models/qwen3", "vllm")
    assert parse_student("openai:Qwen/Qwen3-1.7B", "ct2").model == "Qwen/Qwen3-1.7B"
    with pytest.raises(ValueError, match="given twice"):
        parse_students(["smollm2-135m", "ct2:smollm2-135m"], "transformers")
