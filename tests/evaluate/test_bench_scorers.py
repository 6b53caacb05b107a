"""`prmkit bench --scorers NAME=SPEC` and `prmkit evaluate processbench --scorers NAME=SPEC`: a PRM trained
elsewhere judged beside the labelers. Here the PRM is a tiny prmkit PRM trained for a few steps on the true labels
of other bench problems and exported with `prmkit export-hf`, loaded as `token-classification`: its row comes
with the labelers' (same tau rule, same table), its cost ledger is empty, and its step scores are the
checkpoint's own (`prmkit score`)."""

from __future__ import annotations

import json

import pytest

from prmkit.cli.main import main
from prmkit.data.jsonl import read_records
from prmkit.data.records import StepLabels
from prmkit.models.reward import RewardModel
from tolerances import MODEL_ABS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def trained_export(tiny_base, tmp_path_factory):
    """(checkpoint, its export-hf output) of a tiny PRM trained on true bench labels (seed 31, not the bench's)."""
    d = tmp_path_factory.mktemp("trained")
    assert main(["--quiet", "data", "bench", "--output", str(d / "problems.jsonl"), "--problems", "8", "--levels",
                 "1,2", "--seed", "31", "--pools", str(d / "pools.jsonl"), "--labels", str(d / "labels.jsonl")]) == 0
    assert main(["--quiet", "train", "prm", "--pools", str(d / "pools.jsonl"), "--labels", str(d / "labels.jsonl"),
                 "--model", tiny_base, "--max-steps", "8", "--lr", "1e-3", "--save-strategy", "no", "--output",
                 str(d / "prm")]) == 0
    assert main(["--quiet", "export-hf", "--model", str(d / "prm"), "--output", str(d / "prm_hf")]) == 0
    return d / "prm", d / "prm_hf"


def test_bench_judges_a_scorer_beside_the_labelers(tiny_base, trained_export, tmp_path, capsys):
    ckpt, export = trained_export
    out = tmp_path / "bench"
    args = ["bench", "--output", str(out), "--problems", "4", "--levels", "1,2", "--policy-k", "0", "--labelers",
            "ig", "--model", tiny_base, "--bootstrap", "50", "--scorers", f"trained=token-classification:{export}"]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text())
    rows = {(r["labeler"], r["level"]): r for r in report["rows"]}
    assert {lv for name, lv in rows if name == "trained"} == {"1", "2", "all"} == {lv for n, lv in rows if n == "ig"}
    mine = rows["trained", "all"]
    assert mine["traces"] == rows["ig", "all"]["traces"] and mine["tokens_per_trace"] == 0
    print("bench row:", {k: mine[k] for k in ("f1", "f1_low", "f1_high", "error_accuracy", "correct_accuracy",
                                              "step_balanced_accuracy", "traces")})
    assert 0.0 <= mine["f1_low"] <= mine["f1"] <= mine["f1_high"] <= 1.0
    table = (out / "table.md").read_text()
    assert "| trained | all |" in table and "| ig | all |" in table
    assert report["labelers"]["trained"]["scorer"] == f"token-classification:{export}"
    # its step scores are the trained checkpoint's own
    records = {r.trace_id: r for r in read_records(out / "scorers" / "trained.jsonl", StepLabels.from_dict)}
    pools = [json.loads(line) for line in (out / "pools.jsonl").read_text().splitlines()]
    rm = RewardModel.from_pretrained(ckpt)
    items = [(p["problem"]["question"], t["steps"], t["id"]) for p in pools for t in p["traces"]]
    ref = rm.step_probs([(q, s) for q, s, _ in items])
    delta = max(abs(a - b) for (_, _, tid), r in zip(items, ref, strict=True)
                for a, b in zip(records[tid].scores, r, strict=True))
    print(f"bench scorer scores vs the checkpoint: max |delta| = {delta:.2e} over {len(items)} traces")
    assert delta <= MODEL_ABS and all(not r.cost and r.method == "trained" for r in records.values())
    # a re-run scores nothing again; --no-label reads what is there
    before = (out / "scorers" / "trained.jsonl").read_text()
    assert main([*args, "--no-label"]) == 0
    assert (out / "scorers" / "trained.jsonl").read_text() == before
    assert "| trained | all |" in capsys.readouterr().out


def test_a_scorer_named_as_a_labeler_is_refused_before_anything_runs(tmp_path, capsys):
    assert main(["bench", "--output", str(tmp_path / "b"), "--policy-k", "0", "--labelers", "ig", "--scorers",
                 "ig=token-classification:x"]) == 2
    assert "are labelers' names" in capsys.readouterr().err


def test_processbench_scores_a_benchmark_with_a_scorer_spec(trained_export, tmp_path, capsys):
    ckpt, export = trained_export
    bench = tmp_path / "benchmark.jsonl"
    steps = [["3 + 4 = 7", "7 * 2 = 14", "The answer is 14"], ["3 + 4 = 8", "8 * 2 = 16", "The answer is 16"]]
    bench.write_text("".join(json.dumps({"id": f"r{i}-{k}", "problem": f"Tom has 3 and gets 4, then doubles. {i}",
                                         "steps": s, "label": -1 if k == 0 else 0}) + "\n"
                             for i in range(6) for k, s in enumerate(steps)))
    assert main(["evaluate", "processbench", "--benchmark", str(bench), "--scorers", f"PRM={export}",
                 f"HF=token-classification:{export}", "--choose-on", "0:3", "--report-on", "3:6", "--output",
                 str(tmp_path / "pb.json")]) == 2  # a bare path is a reward-model checkpoint: the export is not one
    assert "not a reward-model checkpoint" in capsys.readouterr().err
    assert main(["evaluate", "processbench", "--benchmark", str(bench), "--scorers", f"PRM={ckpt}",
                 f"HF=token-classification:{export}", "--choose-on", "0:3", "--report-on", "3:6", "--output",
                 str(tmp_path / "pb.json")]) == 0
    rows = {r["scorer"]: r for r in json.loads((tmp_path / "pb.json").read_text())["rows"]}
    assert rows["PRM"]["f1"] == rows["HF"]["f1"] and rows["PRM"]["tau"] == pytest.approx(rows["HF"]["tau"], abs=1e-5)
    assert "HF" in capsys.readouterr().out


def test_a_bench_rerun_resumes_a_scorer_named_another_way_and_refuses_another_scorer(tiny_base, trained_export,
                                                                                      tmp_path, capsys):
    """`--scorers prm=runs/prm/` then `prm=runs/prm`: one checkpoint, so the re-run resumes its scores (the file
    is kept by the rule `prmkit score` and `search` keep theirs by, the scorer resolved); another scorer under
    the same name is refused, its file untouched."""
    ckpt, export = trained_export
    out = tmp_path / "bench"
    args = ["--quiet", "bench", "--output", str(out), "--problems", "4", "--levels", "1,2", "--policy-k", "0",
            "--labelers", "", "--model", tiny_base, "--bootstrap", "0"]
    assert main([*args, "--scorers", f"prm={ckpt}/"]) == 0
    before = (out / "scorers" / "prm.jsonl").read_text()
    assert main([*args, "--scorers", f"prm={ckpt}"]) == 0
    assert (out / "scorers" / "prm.jsonl").read_text() == before
    capsys.readouterr()
    assert main([*args, "--scorers", f"prm=token-classification:{export}"]) == 2
    assert "scored with other settings (prm.model" in capsys.readouterr().err
    assert (out / "scorers" / "prm.jsonl").read_text() == before
