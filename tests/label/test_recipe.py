"""The generic labeling recipe with a labeler registered by a test (step score = step length, step_length.py):
it labels, thresholds at a tau computed by hand, resumes after kill -9, and refuses other settings."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import cli, pool_dict, write_jsonl
from label.step_length import StepLengthConfig
from prmkit.data.jsonl import read_clock
from prmkit.data.records import Pool
from prmkit.label import LABELERS, LabelConfig, label_pools, output_paths

# (steps, answer, correct); scores are the step lengths in characters
HAND = [
    pool_dict("p0", "q0", "7", [(["aaaa", "bbbbbb", "x"], "7", True), (["a", "bbbbb", "c"], "8", False)]),
    pool_dict("p1", "q1", "7", [(["aaa", "bb"], "7", True), (["aaaaa", "cc"], "9", False)]),
    pool_dict("p2", "q2", "7", []),
]


def read(path) -> list[dict]:
    return [json.loads(x) for x in open(path)]


def test_registered_labeler_runs_and_thresholds_at_the_hand_computed_tau(tmp_path):
    # CoT scores, final step excluded: min of all but the last step: 4, 1 (p0) and 3, 5 (p1); truth T, F, T, F.
    # Cut points 0, 2, 3.5, 4.5, 6 give balanced accuracy .5, .75, .5, .25, .5: tau = 2, 0.75.
    # Final step included: 1, 1, 2, 2: every cut gives 0.5; the first, 1 - 1 = 0, is chosen.
    pools = [Pool.from_dict(p) for p in HAND]
    out = tmp_path / "len.jsonl"
    report = label_pools(pools, LabelConfig(method="length"), out, [StepLengthConfig()], progress=False)["length"]
    assert (report.problems, report.traces, report.resumed, report.skipped) == (2, 4, 0, {"pools without traces": 1})
    assert report.sweeps["final_excluded"] == {"tau": 2.0, "balanced_accuracy": 0.75, "n": 4}
    assert report.sweeps["final_included"] == {"tau": 0.0, "balanced_accuracy": 0.5, "n": 4}
    assert report.sweeps["applied"] == {"tau": 2.0, "balanced_accuracy": 0.75}
    assert report.tokens_read == report.paper_tokens == 30
    records = {r["trace_id"]: r for r in read(out)}
    assert {k: r["scores"] for k, r in records.items()} == {"p0/0": [4, 6, 1], "p0/1": [1, 5, 1], "p1/0": [3, 2],
                                                            "p1/1": [5, 2]}
    assert {k: r["labels"] for k, r in records.items()} == {"p0/0": [1, 1, 0], "p0/1": [0, 1, 0], "p1/0": [1, 0],
                                                            "p1/1": [1, 0]}
    assert all(r["threshold"] == 2.0 and r["params"] == {"method": "length", "unit": "chars"} for r in records.values())
    # a re-run finds everything written: nothing labeled, the skip still counted, the same labels
    again = label_pools(pools, LabelConfig(method="length"), out, progress=False)["length"]
    assert (again.problems, again.traces, again.resumed, again.skipped) == (0, 0, 2, {"pools without traces": 1})
    assert {r["trace_id"]: r for r in read(out)} == records
    # another setting into the same file is refused, naming the difference; the delay changes no score
    with pytest.raises(ValueError, match="unit: 'chars' -> 'words'"):
        label_pools(pools, LabelConfig(method="length"), out, [StepLengthConfig(unit="words")], progress=False)
    label_pools(pools, LabelConfig(method="length"), out, [StepLengthConfig(delay=0.001)], progress=False)
    # tau taken from the labeled file, applied to new labels (in words: every step is 1 word, all labels 0):
    # a tau in chars means nothing for words, so it is an error unless forced, and then a warning
    words = tmp_path / "words.jsonl"
    with pytest.raises(ValueError, match=r"unit: 'chars' vs 'words'.*--force-tau"):
        label_pools(pools, LabelConfig(method="length", tau_from=str(out)), words, [StepLengthConfig("words")],
                    progress=False)
    with pytest.warns(UserWarning, match="forced"):
        held = label_pools(pools, LabelConfig(method="length", tau_from=str(out), force_tau=True), words,
                           [StepLengthConfig("words")], progress=False)["length"]
    assert held.sweeps["applied"] == {"tau": 2.0, "balanced_accuracy": 0.5} and "(forced)" in held.warnings[0]
    assert all(r["labels"] == [0] * len(r["scores"]) for r in read(words))
    with pytest.raises(ValueError, match="not both"):
        label_pools(pools, LabelConfig(method="length", tau=1.0, tau_from=str(out)), words, progress=False)


def test_seconds_ledger_sums_each_call_over_runs_and_survives_a_torn_line(tmp_path):
    pools = [Pool.from_dict(p) for p in HAND]
    out, clock = tmp_path / "len.jsonl", tmp_path / "seconds.jsonl"
    cfg, slow = LabelConfig(method="length"), [StepLengthConfig(delay=0.02)]
    label_pools(pools[:1], cfg, out, slow, progress=False, clock=clock)
    first = read_clock(clock)["length"]
    assert sorted(first) == ["p0/0", "p0/1"] and first["p0/0"] == first["p0/1"] >= 0.009  # one call, shared evenly
    with open(clock, "a") as f:  # a crash while the line was written
        f.write('{"methods": ["length"], "traces": ["p1/0"')
    label_pools(pools, cfg, out, slow, progress=False, clock=clock)  # resumes: labels (and times) p1 only
    both = read_clock(clock)["length"]
    assert sorted(both) == ["p0/0", "p0/1", "p1/0", "p1/1"] and {k: both[k] for k in first} == first
    assert len([line for line in clock.read_text().splitlines() if line.strip()]) == 4  # reset, two calls, torn
    assert read_clock(tmp_path / "none.jsonl") == {}
    out.unlink()  # relabeled from scratch: the deleted file's seconds no longer count
    label_pools(pools[1:2], cfg, out, slow, progress=False, clock=clock)
    assert sorted(read_clock(clock)["length"]) == ["p1/0", "p1/1"]


def test_output_paths_fill_in_the_method():
    assert output_paths("runs/{method}.jsonl", ["ig", "mcnig"]) == {"ig": "runs/ig.jsonl", "mcnig": "runs/mcnig.jsonl"}
    assert output_paths("runs/l.jsonl", ["mcnig"]) == {"mcnig": "runs/l.jsonl"}
    with pytest.raises(ValueError, match="must contain"):
        output_paths("runs/l.jsonl", ["ig", "mcnig"])
    with pytest.raises(ValueError, match="one output per method"):
        output_paths({"ig": "a"}, ["ig", "mcnig"])
    with pytest.raises(ValueError, match="unknown method"):
        label_pools([], LabelConfig(method="ig,nope"), "x.jsonl")
    assert LABELERS["ig"] is LABELERS["mcnig"]  # one labeler: one forward pass per problem for both


def test_a_method_named_twice_is_labeled_once(tmp_path):
    # "length,length" once stopped with "the labelers serve ['length', 'length'] but outputs are given for
    # ['length']"; it is one method, into the one file --output names
    pools = [Pool.from_dict(p) for p in HAND]
    out = tmp_path / "len.jsonl"
    reports = label_pools(pools, LabelConfig(method="length, length"), out, [StepLengthConfig()], progress=False)
    assert list(reports) == ["length"] and reports["length"].traces == 4
    assert sorted(r["trace_id"] for r in read(out)) == ["p0/0", "p0/1", "p1/0", "p1/1"]


def _cli(*args: str) -> list[str]:
    """`prmkit` with the test labeler registered first (it is not part of prmkit)."""
    code = "import label.step_length; from prmkit.cli.main import main; raise SystemExit(main())"
    return [sys.executable, "-c", code, *args]


def _env() -> dict[str, str]:
    tests = str(Path(__file__).parents[1])
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), tests])),
                         "OMP_NUM_THREADS": "1"}


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_loses_and_duplicates_nothing(tmp_path):
    pools = [pool_dict(f"p{k}", f"q{k}", "7", [(["x" * (1 + (k + j) % 5), "yy"], "7", j % 2 == 0) for j in range(4)])
             for k in range(80)]
    path = write_jsonl(tmp_path / "pools.jsonl", pools)
    args = ["label", "--method", "length", "--input", path, "--quiet", "--delay", "0.05", "--output"]
    cli(*args, str(tmp_path / "clean.jsonl"), check=True)  # the clean run and the re-run in this process
    victim = tmp_path / "killed.jsonl"
    proc = subprocess.Popen(_cli(*args, str(victim)), env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and (not victim.exists() or victim.read_text().count("\n") < 40):
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = victim.read_text().count("\n")  # whole lines; a half-written one is cut on reopening
    assert 40 <= written < 320, "the kill must land mid-run"
    report = json.loads(cli(*args, str(victim), check=True).stdout)
    assert report["traces"] == 320 - written and report["resumed"] == written // 4
    clean, resumed = read(tmp_path / "clean.jsonl"), read(victim)
    assert len(resumed) == len({r["trace_id"] for r in resumed}) == 320
    assert sorted(resumed, key=lambda r: r["trace_id"]) == sorted(clean, key=lambda r: r["trace_id"])
