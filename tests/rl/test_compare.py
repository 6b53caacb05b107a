"""`prmkit rl compare`: settings' runs side by side, the paired difference from the baseline (over problems and over
seeds), steps to the baseline's final accuracy, accuracy by generated tokens, the hacking checks, bad input."""

from __future__ import annotations

import json

import pytest

from prmkit.cli.main import main
from prmkit.rl.compare import compare_runs, parse_groups


def _run(path, curve: dict[int, list[int]], samples_per_problem: int = 2, answered: float = 0.5, data="h.jsonl",
         seed: int | None = None, metrics: list[dict] | None = None):
    """A run directory as `prmkit rl grpo --heldout-steps` leaves it: its held-out lines, its report and (given
    `metrics`) its training log."""
    path.mkdir(parents=True)
    config = {"heldout_data": data, "heldout_range": "0:4", "group_size": 2, "prompts_per_step": 2}
    if seed is not None:
        config["seed"] = seed
    if metrics is not None:
        (path / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    with (path / "heldout.jsonl").open("w") as fh:
        for step, right in curve.items():
            n = len(right) * samples_per_problem
            fh.write(json.dumps({"step": step, "accuracy": sum(right) / n, "greedy_accuracy": 0.5,
                                 "answered": answered, "steps": 2.0, "samples": n, "tokens": 10, "seconds": 1.0,
                                 "right": right, "greedy_right": [1, 0] * (len(right) // 2)}) + "\n")
    (path / "report.json").write_text(json.dumps({"config": config, "train_seconds": 12.3, "generated_tokens": 456,
                                                  "cpu_seconds_this_run": 20.4, "peak_rss_gb": 1.5}))
    return str(path)


def test_the_difference_is_paired_by_problem_and_averaged_over_seeds(tmp_path):
    base = [_run(tmp_path / "o0", {0: [1, 1, 0, 0], 10: [1, 1, 0, 0]}),
            _run(tmp_path / "o1", {0: [1, 1, 0, 0], 10: [2, 1, 0, 0]})]
    other = [_run(tmp_path / "p0", {0: [1, 1, 0, 0], 10: [2, 2, 1, 0], 20: [2, 2, 2, 2]}, answered=0.9)]
    result = compare_runs({"outcome": base, "pum": other}, tmp_path / "cmp", bootstrap=200)
    assert result["step"] == 10  # the last step every run reached
    rows = {r["setting"]: r for r in result["rows"]}
    # per problem: outcome (1 + 2) / 2 / 2 = 0.75, 0.5, 0, 0; pum 1, 1, 0.5, 0 -> differences 0.25, 0.5, 0.5, 0
    assert rows["pum"]["minus_baseline"] == pytest.approx(0.3125)
    assert rows["pum"]["minus_baseline_low"] <= 0.3125 <= rows["pum"]["minus_baseline_high"]
    assert rows["outcome"]["minus_baseline"] is None
    # gain over training, paired: pum's problems 1, 1, 0.5, 0 at step 10 against 0.5, 0.5, 0, 0 at step 0
    assert rows["pum"]["gain"] == pytest.approx(0.375) and rows["outcome"]["gain"] == pytest.approx(0.0625)
    assert rows["outcome"]["accuracy"] == pytest.approx((2 / 8 + 3 / 8) / 2)
    assert (rows["outcome"]["accuracy_min"], rows["outcome"]["accuracy_max"]) == (2 / 8, 3 / 8)
    assert rows["pum"]["answered"] == 0.9 and rows["pum"]["generated_tokens"] == [456]
    assert [r["step"] for r in result["curves"]["pum"]] == [0, 10, 20]  # each setting's curve: its own steps
    # the baseline's final 0.3125: pum from 0.25 at step 0 to 0.625 at 10 -> 10 x 0.0625 / 0.375; outcome at 10
    assert rows["pum"]["steps_to_baseline"] == pytest.approx(10 / 6) and rows["outcome"]["steps_to_baseline"] == 10
    assert "| pum | 1 |" in (tmp_path / "cmp" / "compare.md").read_text()
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 1000


def test_cli_and_bad_input(tmp_path, capsys):
    a = _run(tmp_path / "a", {0: [1, 0], 5: [1, 1]})
    b = _run(tmp_path / "b", {0: [0, 0], 5: [2, 1]})
    assert main(["rl", "compare", f"x={a}", f"y={b}", "--output", str(tmp_path / "out")]) == 0
    assert "minus baseline" in capsys.readouterr().out
    import prmkit

    prmkit.api.rl_compare([f"x={a}", f"y={b}"], output=tmp_path / "api")
    assert (tmp_path / "api" / "compare.json").read_text() == (tmp_path / "out" / "compare.json").read_text()
    c = _run(tmp_path / "c", {0: [1, 0, 0, 0]})  # another number of held-out problems
    with pytest.raises(ValueError, match="different numbers of held-out problems"):
        compare_runs({"x": [a], "z": [c]})
    d = _run(tmp_path / "d", {0: [1, 0], 5: [1, 1]}, data="other.jsonl")
    with pytest.raises(ValueError, match="different held-out problems"):
        compare_runs({"x": [a], "d": [d]})
    with pytest.raises(FileNotFoundError, match=r"no heldout\.jsonl"):
        compare_runs({"x": [str(tmp_path)]})
    for bad in (["x"], ["x=a", "x=b"], []):
        with pytest.raises(ValueError):
            parse_groups(bad)


def _seeds(tmp_path, name: str, rights: list[list[int]], seeds: list[int]) -> list[str]:
    """One run per seed, 4 problems x 2 samples, measured at steps 0 and 40 (step 0: 2 of 8 right)."""
    return [_run(tmp_path / f"{name}{s}", {0: [1, 1, 0, 0], 40: right}, seed=s)
            for right, s in zip(rights, seeds, strict=True)]


def test_the_seed_interval_is_a_t_interval_of_per_seed_differences_or_welch_s(tmp_path):
    # outcome at seeds 0, 1, 2: 2/8, 3/8, 4/8 right; the other setting at the same seeds 4/8, 4/8, 7/8
    base = _seeds(tmp_path, "o", [[1, 1, 0, 0], [2, 1, 0, 0], [2, 2, 0, 0]], [0, 1, 2])
    same = _seeds(tmp_path, "p", [[2, 2, 0, 0], [2, 1, 1, 0], [2, 2, 2, 1]], [0, 1, 2])
    other = _seeds(tmp_path, "q", [[2, 2, 0, 0], [2, 1, 1, 0], [2, 2, 2, 1]], [3, 4, 5])
    rows = {r["setting"]: r for r in compare_runs({"outcome": base, "same": same, "other": other},
                                                  tmp_path / "cmp", bootstrap=100)["rows"]}
    # paired by seed: differences 2/8, 1/8, 3/8 -> mean 0.25, sd 0.125, t_0.975(2 df) = 4.3027 (a t table)
    paired = rows["same"]["minus_baseline_seeds"]
    half = 4.3027 * 0.125 / 3**0.5
    assert paired["method"] == "paired by seed (t, 2 df)" and paired["mean"] == pytest.approx(0.25)
    assert (paired["low"], paired["high"]) == pytest.approx((0.25 - half, 0.25 + half), abs=1e-4)
    # other seeds: Welch. va = var(4, 4, 7 /8) / 3 = 0.015625, vb = var(2, 3, 4 /8) / 3 = 0.0052083; se = 0.14434;
    # df = (va + vb)^2 / (va^2 / 2 + vb^2 / 2) = 3.2, t_0.975(3.2) = 3.0728
    welch = rows["other"]["minus_baseline_seeds"]
    half = 3.0728 * 0.14434
    assert welch["method"] == "Welch (other seeds)" and welch["mean"] == pytest.approx(0.25)
    assert (welch["low"], welch["high"]) == pytest.approx((0.25 - half, 0.25 + half), abs=1e-3)
    assert rows["outcome"]["minus_baseline_seeds"] is None
    table = (tmp_path / "cmp" / "compare.md").read_text()
    assert "+25.0 [-6.1, +56.1] paired by seed (t, 2 df)" in table and "Welch (other seeds)" in table
    assert "| same | 3 (0, 1, 2) |" in table


def test_t_quantiles_against_a_t_table():
    from prmkit.evaluate.stats import t_interval, t_quantile, welch_interval

    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 9: 2.262, 30: 2.042, 120: 1.980}  # t_0.975
    for df, value in table.items():
        assert t_quantile(df) == pytest.approx(value, abs=1e-3)
    assert t_quantile(1e9) == pytest.approx(1.960, abs=1e-3)
    assert t_interval([1, 2, 6]) == pytest.approx((3, 3 - 4.3027 * 7**0.5 / 3**0.5, 3 + 4.3027 * 7**0.5 / 3**0.5),
                                                  abs=1e-3)
    assert welch_interval([1, 2, 3], [0, 0, 3]) == pytest.approx((1, -2.548, 4.548), abs=1e-3)
    assert t_interval([0.5])[1] != t_interval([0.5])[1]  # one seed: no interval (nan)
    scipy = pytest.importorskip("scipy.stats")
    for df in (1.5, 3.2, 7.7):  # Welch's df are not whole
        assert t_quantile(df) == pytest.approx(scipy.t.ppf(0.975, df), abs=1e-6)


def test_steps_to_reach_interpolates_between_held_out_points(tmp_path):
    from prmkit.rl.compare_stats import steps_to_reach

    assert steps_to_reach([0, 20, 40], [0.40, 0.44, 0.50], 0.47) == pytest.approx(30)  # 20 + 0.03 / 0.06 x 20
    assert steps_to_reach([0, 20, 40], [0.40, 0.44, 0.46], 0.47) is None
    assert steps_to_reach([0, 20], [0.5, 0.3], 0.47) == 0
    # through compare: baseline 0 -> 3/8 at step 40; the other reaches 3/8 between 20 (2/8) and 40 (6/8): 25
    # steps; tokens: 2 x 2 completions a step of 10 tokens -> 40 a step, 1,000 tokens at step 25
    metrics = [{"step": s, "completions/mean_length": 10.0, "accuracy": 0.5, "rewards/pspo_wrs/mean": 0.2 + s / 100}
               for s in range(1, 41)]
    base = [_run(tmp_path / "o", {0: [1, 1, 0, 0], 20: [1, 1, 0, 0], 40: [2, 1, 0, 0]}, metrics=metrics)]
    fast = [_run(tmp_path / "f", {0: [1, 1, 0, 0], 20: [1, 1, 0, 0], 40: [2, 2, 2, 0]}, metrics=metrics)]
    slow = [_run(tmp_path / "s", {0: [1, 1, 0, 0], 20: [1, 1, 0, 0], 40: [1, 1, 0, 0]}, metrics=metrics)]
    result = compare_runs({"outcome": base, "fast": fast, "slow": slow}, tmp_path / "cmp", bootstrap=0)
    rows = {r["setting"]: r for r in result["rows"]}
    assert rows["fast"]["steps_to_baseline"] == pytest.approx(25) and rows["slow"]["steps_to_baseline"] is None
    assert rows["fast"]["tokens_to_baseline"] == pytest.approx(1000)
    assert [p["tokens"] for p in result["curves"]["fast"]] == [0, 800, 1600]
    # the hacking checks from the training log: the scorer's mean against the true accuracy, first -> last 10
    training = result["training"]["fast"]
    assert training["scorers"] == ["pspo_wrs"]
    assert training["first_last"]["pspo_wrs"] == pytest.approx([0.255, 0.555])
    assert training["first_last"]["accuracy"] == pytest.approx([0.5, 0.5])
    table = (tmp_path / "cmp" / "compare.md").read_text()
    assert "| 25.0 (1,000) |" in table and "not reached" in table
    assert "pspo_wrs 0.26 / 0.50 -> 0.56 / 0.50" in table
    for png in ("compare.png", "hacking.png"):
        assert (tmp_path / "cmp" / png).stat().st_size > 1000
