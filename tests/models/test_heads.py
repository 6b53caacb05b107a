"""The head registry: what each kind decides, and a new head added as one class plus one registry line."""

import pytest
import torch

from prmkit.models.aggregate import geometric_mean
from prmkit.models.heads import HEADS, BinaryHead, head_class
from prmkit.models.reward import HEAD_WEIGHTS, RewardModel, RewardModelConfig, length_batches
from prmkit.models.scorer import BatchStepScorer, StepScorer, score_traces
from tolerances import MODEL_ABS

Q = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
GOOD, BAD = ["3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 8 wrong step"]


def test_each_kind_decides_positions_truncation_and_labels():
    assert list(HEADS) == ["prm", "orm", "prm3", "bt"]
    assert HEADS["prm"].target_positions(None, [5, 9, 14]) == [5, 9, 14]
    assert HEADS["orm"].target_positions(None, [5, 9, 14]) == [14]
    assert HEADS["prm3"].keep(None, [5, 9, 14], 10) == [0, 1]  # targets within max_length stay
    assert HEADS["prm"].keep(None, [12], 10) is None
    assert HEADS["orm"].keep(None, [14], 10) is None and HEADS["orm"].keep(None, [14], 15) == [0]
    assert [h.label_source for h in HEADS.values()] == ["steps", "outcome", "three_class", "pairs"]
    assert HEADS["bt"].keep(None, [5, 9, 14], 15) == [2] and HEADS["bt"].keep(None, [5, 9, 14], 10) is None
    HEADS["prm"].check_labels([[0.0, 1.0]])
    with pytest.raises(ValueError, match="no step is labeled -1"):
        HEADS["prm3"].check_labels([[0.0, 1.0]])
    with pytest.raises(ValueError, match="unknown reward model kind 'pum'"):
        head_class("pum")  # a name of `prmkit train` only (KIND_ALIASES), not a head


def test_one_geometric_mean_and_length_batches():
    assert geometric_mean([0.9, 0.4]) == pytest.approx(0.6) and geometric_mean([0.5, 0.0]) == 0.0
    assert list(length_batches([5, 2, 4], 8, 64)) == [[1, 2], [0]]
    assert list(length_batches([1, 1, 1], 100, 2)) == [[0, 1], [2]]


class ShiftedHead(BinaryHead):
    """A head with a parameter of its own: a learnable shift of the <pos> logit."""

    def __init__(self, config, token_id):
        super().__init__(config, token_id)
        self.shift = torch.nn.Parameter(torch.tensor([3.0, 0.0]))

    def forward(self, hidden, lm_head):
        return super().forward(hidden, lm_head) + self.shift


def test_a_new_head_with_parameters_is_one_class_and_one_line(tiny_base, tmp_path, monkeypatch):
    monkeypatch.setitem(HEADS, "shifted", ShiftedHead)
    torch.manual_seed(0)
    plain = RewardModel.from_base(tiny_base, RewardModelConfig())
    torch.manual_seed(0)
    rm = RewardModel.from_base(tiny_base, RewardModelConfig(kind="shifted"))
    assert isinstance(rm, StepScorer) and isinstance(rm, BatchStepScorer)
    assert rm.parameters()[-1] is rm.target_head.shift
    base, shifted = plain.score_steps(Q, [GOOD, BAD]), rm.score_steps(Q, [GOOD, BAD])
    assert [len(s) for s in shifted] == [2, 1]
    assert all(s > b for s_row, b_row in zip(shifted, base, strict=True) for s, b in zip(s_row, b_row, strict=True))
    many = sorted(rm.score_many([(Q, BAD), ("Sam eats one", GOOD)]))
    assert [i for i, _ in many] == [0, 1] and many[0][1] == pytest.approx(shifted[1], abs=MODEL_ABS)
    assert many[1][1] == pytest.approx(rm.score_steps("Sam eats one", [GOOD])[0], abs=MODEL_ABS)
    assert score_traces(rm, Q, [GOOD, BAD], "min") == pytest.approx([min(shifted[0]), shifted[1][0]], abs=MODEL_ABS)
    with torch.no_grad():
        rm.target_head.shift[0] = -2.0
    rm.save_pretrained(tmp_path / "ckpt")
    assert (tmp_path / "ckpt" / HEAD_WEIGHTS).is_file()
    again = RewardModel.from_pretrained(tmp_path / "ckpt")
    assert again.target_head.shift.tolist() == [-2.0, 0.0]
    plain.save_pretrained(tmp_path / "plain")  # a head without parameters writes no extra file
    assert not (tmp_path / "plain" / HEAD_WEIGHTS).exists()
