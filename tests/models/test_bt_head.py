"""The bt head (PUM sec 3.4, appendix C): the Bradley-Terry loss on its worked example, the head's pair rows, and
a reward model with it on the tiny random model (scores every prefix, saves and reloads its value head)."""

import math

import pytest
import torch

from prmkit.models.heads import HEADS, BradleyTerryHead
from prmkit.models.losses import bradley_terry_loss
from prmkit.models.reward import RewardModel, RewardModelConfig
from prmkit.models.scorer import StepScorer, score_traces
from tolerances import MODEL_ABS


def test_bradley_terry_loss_worked_example():
    loss = bradley_terry_loss(torch.tensor([0.0, 0.0, 2.0, 2.0, 2.0]), torch.tensor([1.0, 0.5, 1.0, 0.5, 0.0]))
    assert loss.tolist() == pytest.approx([math.log(2), math.log(2), 0.126928, 1.126928, 2.126928], abs=MODEL_ABS)


def test_head_rows_come_in_pairs():
    head = HEADS["bt"]
    assert head is BradleyTerryHead and head.targets([1.0, 0.5]) == [[1.0], [0.5]]
    with pytest.raises(ValueError):
        head.targets([1.5])
    h = BradleyTerryHead.__new__(BradleyTerryHead)
    torch.nn.Module.__init__(h)
    outputs = torch.tensor([[2.0], [0.0], [0.0], [0.0], [0.0], [3.0]])  # pairs: Delta = 2, 0, -3
    targets = torch.tensor([[1.0], [0.0], [0.5], [0.5], [1.0], [0.0]])
    losses = h.target_losses(outputs, targets)
    assert losses.tolist() == pytest.approx([0.126928] * 2 + [math.log(2)] * 2 + [3.048587] * 2, abs=MODEL_ABS)
    assert h.hits(outputs, targets) == 4  # the first two pairs right (a win, a tie), the third wrong
    assert h.weights(["p", "p", "q", "q"]).tolist() == [0.25] * 4
    assert h.keep([3, 7, 9], 10) == [2] and h.keep([3, 7, 12], 10) is None
    with pytest.raises(ValueError, match="pairs"):
        h.target_losses(outputs[:3], targets[:3])


def test_bt_reward_model_scores_every_prefix(tiny_base, tmp_path):
    torch.manual_seed(0)
    rm = RewardModel.from_base(tiny_base, RewardModelConfig(kind="bt", aggregation="last"))
    assert isinstance(rm, StepScorer) and rm.class_ids == []
    with torch.no_grad():  # a non-zero output layer, so that scores differ between prefixes
        torch.nn.init.normal_(rm.target_head.value[2].weight)
    steps = ["3 + 4 = 7", "so the answer is 7"]
    full = rm.score_steps("Tom has 3 apples", [steps, steps[:1]])
    assert len(full[0]) == 2 and len(full[1]) == 1
    assert full[1][0] == pytest.approx(full[0][0], abs=MODEL_ABS)  # a prefix scores as it does inside the trace
    assert score_traces(rm, "Tom has 3 apples", [steps], "last") == [pytest.approx(full[0][1], abs=MODEL_ABS)]
    rm.save_pretrained(tmp_path / "bt")
    again = RewardModel.from_pretrained(tmp_path / "bt")
    assert again.score_steps("Tom has 3 apples", [steps])[0] == pytest.approx(full[0], abs=MODEL_ABS)
