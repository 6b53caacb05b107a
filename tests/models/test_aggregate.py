import pytest

import prmkit.rewards  # noqa: F401  (registers pspo_wrs)
from prmkit.models.aggregate import AGGREGATIONS, aggregate


@pytest.mark.parametrize(("name", "value"), [("prod", 0.36), ("min", 0.5), ("mean", 2.2 / 3), ("last", 0.8),
                                             ("geomean", 0.36 ** (1 / 3))])
def test_worked_example(name, value):
    assert aggregate([0.9, 0.5, 0.8], name) == pytest.approx(value)


def test_single_score_and_empty_trace():
    for name in AGGREGATIONS:
        if name != "pspo_wrs":
            assert aggregate([0.42], name) == pytest.approx(0.42)
        assert aggregate([], name) == 0.0
    with pytest.raises(ValueError, match="unknown aggregation"):
        aggregate([0.5], "max")
