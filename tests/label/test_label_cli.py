"""End-to-end `prmkit label` on the tiny model: numbers, resume after kill -9, tau transfer, TRL export."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import cli, pool_dict, write_jsonl
from tolerances import FLOAT32_REL, MODEL_ABS

WORDS = ["Tom has 3 apples", "he buys 4 more", "3 + 4 = 7", "the price is 12 dollars", "5 * 6 = 30", "Sam eats one"]


def make_pools(n: int) -> list[dict]:
    pools = []
    for k in range(n):
        traces = [([WORDS[(k + j + s) % len(WORDS)] for s in range(1 + (k + j) % 3)], ans, ans == "7")
                  for j, ans in enumerate(["7", "12", "30", "7"])]
        pools.append(pool_dict(f"p{k}", f"How many apples does Tom have now ? case {k}", "7", traces))
    return pools


def prmkit(*args: str) -> subprocess.CompletedProcess:
    """`prmkit ARGS` by the CLI's `main` in this process (`helpers.cli`); a non-zero exit raises."""
    return cli(*args, check=True)


def read(path) -> list[dict]:
    return [json.loads(x) for x in open(path)]


def best_balanced_accuracy(records: list[dict], exclude_final: bool) -> float:
    """Max over every split "CoT score > t" (t below all scores, or at each score) of (TPR + TNR) / 2."""
    cots = [min(r["scores"][:-1] if exclude_final else r["scores"], default=float("inf")) for r in records]
    truth = [r["correct"] for r in records]
    best = 0.0
    for t in [min(cots) - 1, *cots]:
        tpr = sum(c > t for c, y in zip(cots, truth, strict=True) if y) / sum(truth)
        tnr = sum(c <= t for c, y in zip(cots, truth, strict=True) if not y) / (len(truth) - sum(truth))
        best = max(best, (tpr + tnr) / 2)
    return best


def test_label_mcnig_and_ig_end_to_end(tmp_path, tiny_base):
    pools = write_jsonl(tmp_path / "pools.jsonl", make_pools(6))
    out = prmkit("label", "--method", "ig,mcnig", "--input", pools, "--output", str(tmp_path / "{method}.jsonl"),
                 "--model", tiny_base, "--quiet")
    reports = [json.loads(block) for block in out.stdout.replace("}\n{", "}\n\n{").split("\n\n")]
    assert [r["method"] for r in reports] == ["ig", "mcnig"]
    assert all(r["traces"] == 24 and r["problems"] == 6 for r in reports)
    mc = read(tmp_path / "mcnig.jsonl")
    assert len(mc) == 24 and all(len(r["scores"]) == len(r["labels"]) for r in mc)
    tau = mc[0]["threshold"]
    assert all(r["labels"] == [int(s > tau) for s in r["scores"]] for r in mc)
    # the reported best balanced accuracies are those of an independent exhaustive search over the file
    for name, excl in (("final_excluded", True), ("final_included", False)):
        assert reports[1]["sweeps"][name]["balanced_accuracy"] == pytest.approx(best_balanced_accuracy(mc, excl))
    assert (tmp_path / "mcnig.sweep.png").stat().st_size > 1000
    # tau chosen on one file, applied to another: an IG tau means nothing for MCNIG scores unless forced
    before = (tmp_path / "mcnig.jsonl").read_text()
    cmd = ["threshold", "--choose-on", str(tmp_path / "ig.jsonl"), "--apply-to", str(tmp_path / "mcnig.jsonl")]
    refused = cli(*cmd)
    assert refused.returncode == 2 and "method 'ig' vs 'mcnig'" in refused.stderr and "--force" in refused.stderr
    assert (tmp_path / "mcnig.jsonl").read_text() == before
    out = prmkit(*cmd, "--force")
    assert "prmkit threshold: warning: tau of" in out.stderr
    assert json.loads(out.stdout.splitlines()[1])["warnings"][0].endswith("(forced)")
    ig_tau = read(tmp_path / "ig.jsonl")[0]["threshold"]
    applied = read(tmp_path / "mcnig.jsonl")
    assert all(r["threshold"] == ig_tau for r in applied)
    # the held-out figure is the balanced accuracy at the transferred tau, not the file's own best
    pred = [all(s > ig_tau for s in r["scores"][:-1]) for r in applied]
    pos = [p for p, r in zip(pred, applied, strict=True) if r["correct"]]
    neg = [not p for p, r in zip(pred, applied, strict=True) if not r["correct"]]
    held = json.loads(out.stdout.splitlines()[1])["applied"]
    assert held["tau"] == ig_tau
    assert held["balanced_accuracy"] == pytest.approx((sum(pos) / len(pos) + sum(neg) / len(neg)) / 2)
    # TRL export keeps one record per trace, labels aligned with steps
    prmkit("export", "--format", "trl", "--pools", pools, "--labels", str(tmp_path / "mcnig.jsonl"),
           "--output", str(tmp_path / "trl.jsonl"))
    trl = read(tmp_path / "trl.jsonl")
    assert len(trl) == 24 and all(len(r["completions"]) == len(r["labels"]) for r in trl)


@pytest.mark.slow
def test_mcnig_skips_problems_without_incorrect_answers(tmp_path, tiny_base):
    pools = make_pools(2)
    for t in pools[1]["traces"]:
        t["answer"], t["correct"] = "7", True
    path = write_jsonl(tmp_path / "pools.jsonl", pools)
    # both methods, twice: the re-run finds nothing owed (the skipped problem included) and runs no model
    args = ["label", "--method", "ig,mcnig", "--input", path, "--output", str(tmp_path / "{method}.jsonl"),
            "--model", tiny_base, "--quiet"]
    for run in range(2):
        out = prmkit(*args)
        ig, mc = (json.loads(b) for b in out.stdout.replace("}\n{", "}\n\n{").split("\n\n"))
        assert mc["skipped"] == {"no incorrect answer": 1} and (ig["traces"], mc["traces"]) == ((8, 4), (0, 0))[run]
        assert ig["resumed"] == 2 * run and (ig["tokens_read"] == 0) == (run == 1)
    assert len(read(tmp_path / "ig.jsonl")) == 8 and len(read(tmp_path / "mcnig.jsonl")) == 4
    assert {r["problem_id"] for r in read(tmp_path / "mcnig.jsonl")} == {"p0"}
    # extending a file made with other settings is refused, with the difference named
    with pytest.raises(subprocess.CalledProcessError) as err:
        prmkit(*args, "--reference", "previous")
    assert "reference: 'step0' -> 'previous'" in err.value.stderr


@pytest.mark.slow
def test_kill_9_then_rerun_gives_each_trace_once_and_same_labels(tmp_path, tiny_base):
    pools = write_jsonl(tmp_path / "pools.jsonl", make_pools(150))
    args = ["label", "--method", "mcnig", "--input", pools, "--model", tiny_base, "--quiet", "--output"]
    prmkit(*args, str(tmp_path / "clean.jsonl"))
    victim = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "prmkit.cli.main", *args, str(victim)],
                            env=os.environ | {"OMP_NUM_THREADS": "1"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and (not victim.exists() or victim.read_text().count("\n") < 40):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = victim.read_text().count("\n")
    assert 40 <= written < 600, "the kill must land mid-run"
    prmkit(*args, str(victim))
    clean, resumed = read(tmp_path / "clean.jsonl"), read(victim)
    assert sorted(r["trace_id"] for r in resumed) == sorted(r["trace_id"] for r in clean)
    assert len({r["trace_id"] for r in resumed}) == len(resumed) == 600
    by_id = {r["trace_id"]: r for r in clean}
    for r in resumed:
        assert r["scores"] == pytest.approx(by_id[r["trace_id"]]["scores"], abs=MODEL_ABS, rel=FLOAT32_REL)
        assert r["labels"] == by_id[r["trace_id"]]["labels"]


def test_one_model_flag_gives_its_model_to_every_labeler(tmp_path, tiny_base, monkeypatch):
    """`--model` is the `model` field of `LabelerModelConfig`, which every labeler config inherits: one flag sets
    the model of MCNIG's scorer and of Math-Shepherd's completer (whose few-shot prompts exceed the tiny model's
    context: its traces are skipped, and the model it loaded is checked instead of its records)."""
    from prmkit.cli.main import main
    from prmkit.label import InformationConfig, RolloutLabelConfig, recipe
    from prmkit.label.base import LabelerModelConfig
    from prmkit.models.loading import DEFAULT_MODEL

    shared = LabelerModelConfig.__dataclass_fields__["model"]
    for cls in (InformationConfig, RolloutLabelConfig):
        assert issubclass(cls, LabelerModelConfig) and cls.__dataclass_fields__["model"] == shared
    assert tiny_base != DEFAULT_MODEL
    built, build = [], recipe.build_labelers
    monkeypatch.setattr(recipe, "build_labelers", lambda *a, **kw: built.extend(labs := build(*a, **kw)) or labs)
    pools = write_jsonl(tmp_path / "pools.jsonl", make_pools(1))
    assert main(["--quiet", "label", "--method", "math-shepherd,mcnig", "--input", pools, "--model", tiny_base,
                 "--k", "1", "--max-new-tokens", "2", "--skip-too-long", "--output",
                 str(tmp_path / "{method}.jsonl")]) == 0
    assert sorted(type(lab.config).__name__ for lab in built) == ["InformationConfig", "RolloutLabelConfig"]
    assert all(lab.config.model == tiny_base for lab in built)
    (shepherd,) = [lab for lab in built if isinstance(lab.config, RolloutLabelConfig)]
    assert shepherd.roller.backend.model.config.name_or_path == tiny_base  # the model the completer loaded
    assert {r["params"]["model"] for r in read(tmp_path / "mcnig.jsonl")} == {tiny_base}


def test_a_trace_with_an_empty_step_is_refused_before_any_model_loads(tmp_path, capsys):
    """An empty step is malformed input: refused with its file, line, trace and step, not scored and labeled (the
    model named here does not exist: nothing loads before the check)."""
    from prmkit.cli.main import main

    pools = make_pools(2)
    pools[1]["traces"][2]["steps"] = ["3 + 4 = 7", "   ", "so 7"]
    path = write_jsonl(tmp_path / "pools.jsonl", pools)
    out = tmp_path / "l.jsonl"
    assert main(["label", "--method", "ig", "--input", path, "--output", str(out), "--model",
                 str(tmp_path / "no-model"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{path}:2: traces[2]: Trace p1/2: step 2 (of 3) is empty" in err and err.count("\n") == 0
    assert not out.exists()


def test_pools_without_a_wrong_answer_warn_what_is_true(tmp_path, tiny_base):
    """MCNIG labels no pool whose answers are all right: one warning says so with the count, not a claim about
    verdicts of 0 records."""
    pools = make_pools(2)
    for pool in pools:
        for t in pool["traces"]:
            t["answer"], t["correct"] = "7", True
    path = write_jsonl(tmp_path / "pools.jsonl", pools)
    out = prmkit("label", "--method", "mcnig", "--input", path, "--output", str(tmp_path / "l.jsonl"), "--model",
                 tiny_base, "--quiet")
    assert json.loads(out.stdout)["warnings"] == [
        f"{tmp_path / 'l.jsonl'}: mcnig labeled no trace (skipped: no incorrect answer (2)), so no tau is chosen and "
        "the file is empty"]
    assert "null in all 0" not in out.stderr and out.stderr.count("warning:") == 1
