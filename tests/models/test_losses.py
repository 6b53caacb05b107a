import math

import pytest
import torch

from prmkit.models.heads import class_targets
from prmkit.models.losses import grouped_cross_entropy, soft_cross_entropy, step_weights
from tolerances import FLOAT32_REL


def test_worked_example_is_log_two():
    logits = torch.zeros(2, 2)
    targets = torch.tensor(class_targets("prm", [1, 0.5]))
    assert grouped_cross_entropy(logits, targets, ["q", "q"]).item() == pytest.approx(math.log(2))


def test_average_over_steps_of_a_problem_then_over_problems():
    # problem a: 3 steps, problem b: 1 step -> each problem counts 1/2, a's steps 1/6 each
    assert step_weights(["a", "a", "b", "a"]).tolist() == pytest.approx([1 / 6, 1 / 6, 1 / 2, 1 / 6])
    logits = torch.tensor([[2.0, 0.0], [0.0, 1.0], [3.0, -1.0], [0.5, 0.5]])
    targets = torch.tensor(class_targets("prm", [1, 0, 1, 1]))
    ce = soft_cross_entropy(logits, targets)
    expected = ((ce[0] + ce[1] + ce[3]) / 3 + ce[2]) / 2
    grouped = grouped_cross_entropy(logits, targets, ["a", "a", "b", "a"]).item()
    assert grouped == pytest.approx(expected.item(), rel=FLOAT32_REL)
    # a flat mean over steps would weigh problem b as 1/4, not 1/2
    assert expected.item() != pytest.approx(ce.mean().item())


def test_soft_label_minimum_is_at_the_label():
    target = torch.tensor(class_targets("prm", [0.7]))
    diffs = torch.linspace(-3, 3, 601)
    losses = [soft_cross_entropy(torch.tensor([[d, 0.0]]), target).item() for d in diffs]
    best = diffs[int(torch.tensor(losses).argmin())].item()
    assert best == pytest.approx(math.log(0.7 / 0.3), abs=0.01)


def test_three_class_targets_and_bad_labels():
    assert class_targets("prm3", [1, 0, -1]) == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(ValueError):
        class_targets("prm3", [2])
    with pytest.raises(ValueError):
        class_targets("prm", [1.5])
