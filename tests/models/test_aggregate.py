import pytest

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


def test_pspo_wrs_is_registered_without_importing_rewards():
    import subprocess
    import sys

    code = ("import sys; from prmkit.models.aggregate import AGGREGATIONS; assert 'pspo_wrs' in AGGREGATIONS; "
            "assert 'prmkit.rewards' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_rewards_reexport_the_models_formulas():
    import prmkit.rewards as rewards_pspo
    from prmkit.models import pspo

    assert rewards_pspo.pspo_wrs is pspo.pspo_wrs is AGGREGATIONS["pspo_wrs"]
    assert rewards_pspo.adjusted_weibull is pspo.adjusted_weibull
    assert aggregate([0.9, 0.5, 0.8], "pspo_wrs") == pytest.approx(0.36 ** (1 / 3) * pspo.adjusted_weibull(3))
