import math

import pytest

from prmkit.rewards import adjusted_weibull, pspo_wrs


def test_weibull_values_from_the_formula():
    assert adjusted_weibull(8) == pytest.approx(10.735 * 1.5 / 8 * math.exp(-1), rel=1e-12)
    assert adjusted_weibull(8) == pytest.approx(0.74047, abs=1e-5)
    assert adjusted_weibull(2) == pytest.approx(0.88815, abs=1e-5)
    assert adjusted_weibull(0) == 0.0


def test_weibull_peak_is_one_near_four_steps():
    mode = 8 * (0.5 / 1.5) ** (1 / 1.5)
    assert mode == pytest.approx(3.846, abs=1e-3)
    assert adjusted_weibull(mode) == pytest.approx(1.0, abs=1e-3)
    assert adjusted_weibull(mode) > adjusted_weibull(3) and adjusted_weibull(mode) > adjusted_weibull(5)


def test_pspo_wrs_is_geomean_times_weibull():
    assert pspo_wrs([0.9, 0.4]) == pytest.approx(0.6 * adjusted_weibull(2))
    assert pspo_wrs([0.9, 0.4]) == pytest.approx(0.53289, abs=1e-5)
    assert pspo_wrs([]) == 0.0
    assert pspo_wrs([0.5, 0.0]) == 0.0
    with pytest.raises(ValueError):
        adjusted_weibull(-1)
