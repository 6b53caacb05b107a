"""Min-form credit (PURE) and progress (PAV) on hand-computed examples, and their place in the registry."""

import math

import pytest

from prmkit.rl import PROCESS_ADVANTAGES, ProcessAdvantage
from prmkit.rl.credit import min_form_group, min_form_returns, progress_advantages, progress_group, step_rewards


def test_step_rewards_are_p_right_minus_p_wrong():
    assert step_rewards([0.9, 0.2, 0.5]) == pytest.approx([0.8, -0.6, 0.0])


def test_strict_min_form_return_is_the_minimum_ahead_not_the_sum():
    assert min_form_returns([0.8, -0.6, 0.4]) == pytest.approx([-0.6, -0.6, 0.4])
    assert min_form_returns([0.5, 0.9, 0.7]) == pytest.approx([0.5, 0.7, 0.7])  # a sum would give (2.1, 1.6, 0.7)
    assert min_form_returns([]) == []


def test_soft_min_form_weights_rewards_by_a_softmax_of_minus_r_over_t():
    # r = (1, -1), T = 1: w = (e^-1, e) / (e^-1 + e); G_1 = w.r = -tanh(1), G_2 = w_2 * -1
    w2 = math.e / (math.e + 1 / math.e)
    assert min_form_returns([1.0, -1.0], temperature=1.0) == pytest.approx([-math.tanh(1.0), -w2])
    assert min_form_returns([1.0, -1.0], temperature=1.0)[0] == pytest.approx(-0.7616, abs=1e-4)
    # PURE's T = 0.1: G_1 is close to the minimum; after the lowest step the weighted rewards left are near 0
    soft = min_form_returns([0.8, -0.6, 0.4], temperature=0.1)
    assert soft[0] == pytest.approx(-0.6, abs=1e-3) and soft[2] == pytest.approx(0.0, abs=1e-3)


def test_min_form_group_subtracts_the_group_mean_of_the_first_return():
    # G (-0.6, -0.6, 0.4) and (1.0,): baseline (-0.6 + 1.0) / 2 = 0.2
    out = min_form_group([[0.9, 0.2, 0.7], [1.0], []])
    assert out[0] == pytest.approx([-0.8, -0.8, 0.2]) and out[1] == pytest.approx([0.8]) and out[2] == []
    assert PROCESS_ADVANTAGES["min"]([[0.9, 0.2, 0.7], [1.0]]) == [pytest.approx([-0.8, -0.8, 0.2]),
                                                                   pytest.approx([0.8])]
    # the oracle's scores (1 before the first error, 0 from it): every step of a wrong completion gets -1
    assert min_form_group([[1.0, 0.0, 0.0], [1.0, 1.0]]) == [pytest.approx([-1.0, -1.0, -1.0]),
                                                             pytest.approx([1.0, 1.0])]
    soft = PROCESS_ADVANTAGES["softmin"]([[0.0, 1.0], [1.0]])  # r (-1, 1): G_1 ~ -1, G_2 ~ 0; baseline ~ 0
    assert soft[0] == pytest.approx([-1.0, 0.0], abs=1e-6) and soft[1] == pytest.approx([1.0], abs=1e-6)


def test_progress_is_the_change_in_the_prefix_value():
    assert progress_advantages([1.0, 1.0, 0.0, 0.0], 0.75) == pytest.approx([0.25, 0.0, -1.0, 0.0])
    assert progress_advantages([0.25, 0.75, 0.5], 0.5) == pytest.approx([-0.25, 0.5, -0.25])
    # Q(p_0) = the group mean of Q(p_1) = 0.5; the differences telescope to Q(p_n) - Q(p_0)
    out = progress_group([[1.0, 1.0, 0.0], [0.0, 0.0], []])
    assert out[0] == pytest.approx([0.5, 0.0, -1.0]) and out[1] == pytest.approx([-0.5, 0.0]) and out[2] == []
    assert PROCESS_ADVANTAGES["progress"]([[0.6, 0.9], [0.2]]) == [pytest.approx([0.2, 0.3]), pytest.approx([-0.2])]


class Scores:
    """A StepScorer that gives each step the number written in it."""

    def score_steps(self, question, step_lists):
        return [[float(s.split()[0]) for s in steps] for steps in step_lists]


def test_min_form_segment_is_the_lowest_step_of_it_progress_the_last(tiny_lm):
    _, tok = tiny_lm
    # 3 steps in 2 segments: [0.9, 0.2] and [0.7]
    text = "0.9 a [STEP] 0.2 b [STEP] 0.7 c"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    mins = ProcessAdvantage("min", Scores(), max_segments=2).batch(tok, [ids], [text], ["q"], ["g"])
    # segment rewards min(0.8, -0.6) = -0.6 and 0.4 -> G (-0.6, 0.4), baseline -0.6
    assert mins.segment_advantages == [pytest.approx([0.0, 1.0])]
    progress = ProcessAdvantage("progress", Scores(), max_segments=2).batch(tok, [ids], [text], ["q"], ["g"])
    assert progress.segment_advantages == [pytest.approx([0.0, 0.5])]  # Q (0.2, 0.7), Q(p_0) = 0.2


def test_every_credit_assignment_is_in_the_help():
    from prmkit.rl.config import RLConfig

    text = RLConfig.__dataclass_fields__["process"].metadata["help"]
    assert all(f"{name}:" in text for name in PROCESS_ADVANTAGES)
    assert {"pum", "prm", "min", "softmin", "progress"} <= set(PROCESS_ADVANTAGES)
