"""Two-level credit assignment (PUM sec 4.4 / D.4) on worked examples, and the token -> step mapping."""

import pytest

from prmkit.rl import (
    PROCESS_ADVANTAGES,
    ProcessAdvantage,
    group_advantages,
    piece_steps,
    prefix_utility_advantages,
    prm_step_advantages,
    segment_ends,
    step_segments,
    token_advantages,
    token_steps,
)


def test_grpo_group_advantage_matches_the_worked_example():
    adv = group_advantages([1, 0, 0, 0, 0.5, 0.5, 0.5, 0.5], 4)
    assert adv[:4] == pytest.approx([1.4997, -0.4999, -0.4999, -0.4999], abs=1e-4)
    assert adv[4:] == [0.0] * 4  # a group with one reward gives no signal
    with pytest.raises(ValueError):
        group_advantages([1, 0, 0], 2)


def test_pum_nested_prefix_utility_differences():
    assert prefix_utility_advantages([0.2, 0.5, 0.4], 0.3) == pytest.approx([-0.1, 0.3, -0.1])
    # U(p_0) is the group mean of U(p_1): (0.2 + 0.4) / 2 = 0.3; a completion without steps keeps no segments
    out = PROCESS_ADVANTAGES["pum"]([[0.2, 0.5, 0.4], [0.4, 0.9], []])
    assert out[0] == pytest.approx([-0.1, 0.3, -0.1]) and out[1] == pytest.approx([0.1, 0.5]) and out[2] == []
    # the differences telescope: their sum is U(p_N) - U(p_0)
    assert sum(out[0]) == pytest.approx(0.4 - 0.3)


def test_prm_variant_shifts_step_scores_by_a_half():
    assert prm_step_advantages([0.9, 0.4]) == pytest.approx([0.4, -0.1])
    assert PROCESS_ADVANTAGES["prm"]([[0.9, 0.4], [0.5]]) == [pytest.approx([0.4, -0.1]), [0.0]]


def test_segments_group_steps_beyond_the_limit():
    assert step_segments(3, 8) == [0, 1, 2]
    assert step_segments(10, 8) == [0, 0, 1, 2, 3, 4, 4, 5, 6, 7]
    assert segment_ends([0, 0, 1, 2, 2]) == [1, 2, 4]
    assert segment_ends(step_segments(10, 8)) == [1, 2, 3, 4, 6, 7, 8, 9]


def test_token_advantages_add_the_scaled_segment_advantage():
    out = token_advantages([1.5, -0.5], [[0, 0, 1], [0, -1]], [[0.4, -0.1], [0.2]])
    assert out == [pytest.approx([1.7, 1.7, 1.45]), pytest.approx([-0.4, -0.5])]
    assert token_advantages([1.0], [[0]], [[0.4]], coef=0.0) == [[1.0]]


def test_token_steps_follow_the_step_delimiters():
    assert token_steps([1, 8, 11, 18], "a [STEP] bc [STEP]") == [0, 0, 1, 1]
    # whitespace pieces join a neighbour; the split agrees with split_steps (two steps)
    assert piece_steps("  [STEP] a [STEP] [STEP] b") == [(8, 0), (17, 0), (24, 0), (26, 1)]
    assert token_steps([2, 10, 12, 20, 26, 30], "  [STEP] a [STEP] [STEP] b") == [0, 0, 0, 0, 1, 1]
    assert token_steps([3, 5], "   ") == [-1, -1]


class Prefixes:
    """A StepScorer whose value of prefix p_t is t / 10 (a scorer that likes every new step)."""

    def score_steps(self, question, step_lists):
        return [[(t + 1) / 10 for t in range(len(steps))] for steps in step_lists]


def test_process_batch_on_a_real_tokenizer(tiny_lm):
    _, tok = tiny_lm
    texts = ["3 + 4 = 7 [STEP] so the answer is 7", "Tom has 3 apples", "  "]
    ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    batch = ProcessAdvantage("pum", Prefixes()).batch(tok, ids, texts, ["q"] * 3, ["g"] * 3)
    # values (0.1, 0.2) and (0.1,); U(p_0) = 0.1 -> (0.0, 0.1) and (0.0,)
    assert batch.segment_advantages[0] == pytest.approx([0.0, 0.1]) and batch.segment_advantages[1] == [0.0]
    first = batch.token_segments[0]
    assert first[0] == 0 and first[-1] == 1 and first == sorted(first)
    boundary = first.index(1)
    assert "[STEP]" in tok.decode(ids[0][:boundary]) and "[STEP]" not in tok.decode(ids[0][boundary:])
    assert set(batch.token_segments[1]) == {0} and set(batch.token_segments[2]) == {-1}
    with pytest.raises(ValueError, match="unknown process advantage"):
        ProcessAdvantage("ppo", Prefixes())
