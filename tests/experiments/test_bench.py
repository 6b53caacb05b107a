"""`prmkit bench` on the tiny random model: the whole run, its figures against the truth, resume, bad input."""

from __future__ import annotations

import json
import math

import pytest

from prmkit.cli.main import main
from prmkit.data.bench import bench_problems, constructed_pools
from prmkit.data.records import StepLabels
from prmkit.experiments.bench import BenchConfig, pass_at_k, run_bench
from prmkit.experiments.bench_metrics import bench_rows, cost_scaling, f1_per_ktokens, paired_differences
from prmkit.experiments.bench_report import LABELER_COLUMNS, format_bench
from prmkit.label.registry import LABELERS


def _truth(n=8):
    _, truth = constructed_pools(bench_problems(n, seed=3, levels=(1, 2)), ("arithmetic", "corrected"), seed=3)
    return truth


def _scored(truth, f):
    return {t.trace_id: StepLabels(t.trace_id, "x", [f(t, i) for i in range(len(t.labels))], [], None, {}, t.correct,
                                   t.problem_id, {"tokens_read": 10}) for t in truth}


def test_a_scorer_that_knows_the_truth_scores_f1_one_and_a_constant_one_does_not():
    truth = _truth()
    rows, coverage = bench_rows(truth, {"oracle": _scored(truth, lambda t, i: float(t.labels[i])),
                                        "constant": _scored(truth, lambda t, i: 0.5)}, n_boot=50)
    by = {(r["labeler"], r["level"]): r for r in rows}
    assert by["oracle", "all"]["f1"] == 1.0 and by["oracle", "all"]["process_only_recall"] == 1.0
    assert by["oracle", "all"]["step_balanced_accuracy"] == 1.0 and by["oracle", "all"]["process_only"] > 0
    assert by["constant", "all"]["f1"] == 0.0  # one tau flags every trace or none
    assert {r["level"] for r in rows} == {"1", "2", "all"}
    assert coverage["common_traces"] == len(truth) and coverage["missing"] == {"oracle": 0, "constant": 0}
    assert by["oracle", "all"]["tokens_read"] == 10 * len(truth)
    assert by["oracle", "2"]["steps_per_trace"] > by["oracle", "1"]["steps_per_trace"]


def test_a_tau_per_level_recovers_scores_that_shift_with_the_level():
    truth = _truth(12)
    shifted = _scored(truth, lambda t, i: float(t.labels[i]) + 2.0 * (t.params["level"] - 1))
    rows, _ = bench_rows(truth, {"shifted": shifted}, n_boot=0)
    by = {r["level"]: r for r in rows}
    assert by["all"]["f1_level_tau"] == 1.0 and by["all"]["f1"] < 1.0  # one tau cannot serve both levels
    assert by["2"]["tau_level"] > by["1"]["tau_level"]


def test_f1_per_1k_tokens_per_trace_compares_levels_the_all_row_and_bench_sizes():
    """A labeler that knows the truth at 10 tokens a trace: 100 F1 points / 0.01 thousand tokens, in every row and
    whatever the number of problems (the old figure divided by the tokens a row summed: "all" 1/3 of a level)."""
    for n in (8, 16):
        truth = _truth(n)
        rows, _ = bench_rows(truth, {"oracle": _scored(truth, lambda t, i: float(t.labels[i]))}, n_boot=0)
        assert {r["level"]: r["f1_per_ktoken"] for r in rows} == {"1": 10_000.0, "2": 10_000.0, "all": 10_000.0}
    assert f1_per_ktokens(0.6, 500) == 120.0 and math.isnan(f1_per_ktokens(0.6, 0))


def test_the_labeler_table_has_a_key_line_per_column():
    truth = _truth()
    rows, coverage = bench_rows(truth, {"oracle": _scored(truth, lambda t, i: float(t.labels[i]))}, n_boot=0)
    lines = format_bench({"policy": {}, "coverage": coverage, "labelers": {}, "rows": rows}).splitlines()
    header = next(line for line in lines if line.startswith("| labeler | level |"))
    columns = header.strip("| ").split(" | ")
    assert len(columns) == 13 and columns == list(LABELER_COLUMNS)
    key = lines[lines.index("key ('-' in a cell: undefined, no trace of that kind):") + 1:]
    assert [line.split(": ", 1)[0] for line in key] == [f"- {c}" for c in columns]  # one line per column, in order
    assert "- process-only recall: of the traces with a right final answer but a wrong step, % whose first error " \
           "is found exactly; (N): how many such traces" in key
    assert lines[lines.index(header) + 2].endswith("| 10000.0 | n/a |")  # F1 per 1k tok/trace, s/trace


def test_cost_scaling_recovers_the_exponent():
    rows = [{"labeler": "mcnig", "level": str(n), "steps_per_trace": n, "tokens_per_trace": 10 * n} for n in (2, 4, 8)]
    rows += [{"labeler": "shepherd", "level": str(n), "steps_per_trace": n, "tokens_per_trace": 3 * n * n}
             for n in (2, 4, 8)]
    scaling = cost_scaling(rows, "mcnig")["shepherd"]
    assert scaling["exponent"] == pytest.approx(1.0) and scaling["ratio_by_level"]["8"] == 2.4


def test_labelers_are_compared_on_the_traces_all_of_them_scored():
    truth = _truth()
    partial = _scored(truth, lambda t, i: float(t.labels[i]))
    dropped = [t.trace_id for t in truth[::3]]
    for tid in dropped:
        del partial[tid]
    rows, coverage = bench_rows(truth, {"a": _scored(truth, lambda t, i: 1.0), "b": partial}, n_boot=0)
    assert coverage["common_traces"] == len(truth) - len(dropped)
    assert coverage["missing"] == {"a": 0, "b": len(dropped)}
    assert len({r["traces"] for r in rows if r["level"] == "all"}) == 1  # the same traces for both


def test_paired_differences_rank_an_oracle_above_a_constant_and_a_labeler_level_with_itself():
    truth = _truth(12)
    labels = {"mcnig": _scored(truth, lambda t, i: float(t.labels[i])), "ig": _scored(truth, lambda t, i: 0.5),
              "math-shepherd": _scored(truth, lambda t, i: float(t.labels[i]))}
    rows, _ = bench_rows(truth, labels, n_boot=0)
    diffs = {(d["labeler"], d["against"], d["level"]): d for d in paired_differences(truth, labels, rows, n_boot=200)}
    assert {k[:2] for k in diffs} == {("mcnig", "ig"), ("mcnig", "math-shepherd")}  # pairs whose labelers both ran
    better = diffs["mcnig", "ig", "all"]
    assert better["f1_diff"] == 1.0 and better["f1_diff_low"] > 0 and better["share_at_least"] == 1.0
    assert better["step_balanced_accuracy_diff"] == 0.5
    same = diffs["mcnig", "math-shepherd", "all"]
    assert same["f1_diff"] == same["f1_diff_low"] == same["f1_diff_high"] == 0.0
    assert same["traces"] == sum(d["traces"] for k, d in diffs.items() if k[:2] == ("mcnig", "math-shepherd")
                                 and k[2] != "all")


def test_pass_at_k():
    assert pass_at_k(4, 0, 1) == 0.0 and pass_at_k(4, 4, 1) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25) and pass_at_k(4, 1, 4) == 1.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)


@pytest.fixture(scope="module")
def long_base(tmp_path_factory):
    """The tiny base with a context long enough for the few-shot prompt of the rollouts (300-token BPE vocabulary)."""
    from helpers import make_tiny_base

    return str(make_tiny_base(tmp_path_factory.mktemp("long_base"), context=4096))


@pytest.mark.slow
def test_bench_runs_every_labeler_on_the_same_traces_and_resumes(long_base, tmp_path):
    out = tmp_path / "bench"
    settings = dict(output=str(out), problems=4, levels="1,2", policy_k=1, model=long_base, k=2, max_new_tokens=6,
                    labelers="ig,mcnig,math-shepherd,omegaprm,pum", students=f"{long_base},{long_base}@1.0",
                    batch_size=8, bootstrap=20, slips="arithmetic,corrected")
    report = run_bench(BenchConfig(**settings), progress=False)
    assert report["traces"] == 4 * (3 + 1)  # right + two slips + one policy sample per problem
    assert report["traces_by_kind"]["corrected"] == {"traces": 4, "answer_right": 4, "process_error": 4}
    assert {r["labeler"] for r in report["rows"]} == {"ig", "mcnig", "math-shepherd", "omegaprm", "pum"}
    assert report["labelers"]["math-shepherd"]["tokens_generated"] > 0
    # PUM's two students roll out every prefix Math-Shepherd does, plus one baseline per problem: twice the rollouts
    ms, pum = ({r["trace_id"]: r for r in map(json.loads, (out / f"labels/{m}.jsonl").open())}
               for m in ("math-shepherd", "pum"))
    assert sum(r["cost"]["rollouts"] for r in pum.values()) == 2 * (sum(r["cost"]["rollouts"] for r in ms.values())
                                                                    + 4 * 2)
    assert report["labelers"]["ig"]["shared_with"] == ["ig", "mcnig"]  # one forward pass for both
    own = {n: report["labelers"][n]["seconds"] for n in ("ig", "math-shepherd")}
    assert 0 < own["ig"] < report["labelers"]["ig"]["run_seconds"]  # its own calls, not the whole run's wall time
    assert own["ig"] + own["math-shepherd"] <= report["labelers"]["ig"]["run_seconds"] + 0.1
    pairs = {(d["labeler"], d["against"]) for d in report["differences"]}
    assert pairs == {("mcnig", "ig"), ("mcnig", "math-shepherd"), ("mcnig", "omegaprm"), ("pum", "math-shepherd")}
    assert "| pum | math-shepherd | all |" in (out / "table.md").read_text()
    for name in ("report.json", "table.md", "f1_tokens.png", "truth.jsonl", "pools.jsonl", "labels/ig.jsonl"):
        assert (out / name).stat().st_size > 0
    lines = (out / "labels/math-shepherd.jsonl").read_text().splitlines()
    again = run_bench(BenchConfig(**settings), progress=False)
    assert (out / "labels/math-shepherd.jsonl").read_text().splitlines() == lines  # resumed: nothing redone
    assert again["labelers"]["math-shepherd"]["resumed"] == 4

    # the seconds ledger: every trace timed once; a resumed run that labels nothing adds no seconds
    assert all(r["timed_traces"] == r["labeled_traces"] > 0 for r in report["rows"])
    ms_all = next(r for r in report["rows"] if r["labeler"] == "math-shepherd" and r["level"] == "all")
    assert ms_all["seconds"] == pytest.approx(own["math-shepherd"], abs=0.2)
    assert again["rows"] == report["rows"]
    with pytest.raises(ValueError, match=r"other settings .*seed: 0 -> 1"):
        run_bench(BenchConfig(**(settings | {"seed": 1})), progress=False)

    # a run stopped partway (PUM has not labeled the last problem): --no-label reports on the traces every labeler
    # finished, labels nothing more and spends nothing
    lines = (out / "labels/pum.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])["problem_id"]
    kept = [line for line in lines if json.loads(line)["problem_id"] != last]
    (out / "labels/pum.jsonl").write_text("\n".join(kept) + "\n")
    partial = run_bench(BenchConfig(**settings, label=False), progress=False)
    assert (out / "labels/pum.jsonl").read_text().splitlines() == kept
    assert partial["coverage"]["common_traces"] == len(kept) < report["coverage"]["common_traces"]
    assert partial["coverage"]["missing"]["pum"] == report["traces"] - len(kept)
    assert partial["labelers"]["pum"]["resumed"] == len(kept) and partial["labelers"]["ig"]["seconds"] == 0
    assert {r["labeler"] for r in partial["rows"]} == {"ig", "mcnig", "math-shepherd", "omegaprm", "pum"}

    # the problems are a prefix-stable stream: a bench grows, the first problems' samples kept; no labeler is fine
    raw = (out / "policy.raw.jsonl").read_text().splitlines()
    grown = run_bench(BenchConfig(**(settings | {"problems": 6, "labelers": ""})), progress=False)
    assert grown["problems"] == 6 and grown["rows"] == [] and grown["traces"] == 6 * 4
    assert (out / "policy.raw.jsonl").read_text().splitlines()[:4] == raw
    assert len(list((out / "pools.jsonl").open())) == 6


def test_a_new_labeler_joins_the_bench_with_one_file_and_one_registry_line(long_base, tmp_path, monkeypatch):
    """tests/label/step_length.py (one file, one `LABELERS` line) runs in the bench beside IG, is scored against the
    truth, its cost ledger counted, and compared with what it claims to match: no edit to the bench."""
    from label.step_length import StepLength

    monkeypatch.setitem(LABELERS, "length", StepLength)
    monkeypatch.setattr(StepLength, "claims", {"length": ("ig",)}, raising=False)
    report = run_bench(BenchConfig(output=str(tmp_path / "b"), problems=4, levels="1,2", policy_k=0, model=long_base,
                                   labelers="ig,length", bootstrap=20, slips="arithmetic,corrected"), progress=False)
    assert {r["labeler"] for r in report["rows"]} == {"ig", "length"}
    assert report["labelers"]["length"]["tokens_read"] > 0 and report["labelers"]["length"]["shared_with"] == ["length"]
    length = next(r for r in report["rows"] if r["labeler"] == "length" and r["level"] == "all")
    assert length["traces"] == next(r for r in report["rows"] if r["labeler"] == "ig" and r["level"] == "all")["traces"]
    assert 0 <= length["f1"] <= 1
    assert [(d["labeler"], d["against"], d["level"]) for d in report["differences"]][-1] == ("length", "ig", "all")


def test_no_label_samples_nothing_and_loads_no_policy(tmp_path):
    """--no-label reports on what a run holds: the policy's samples are read, never drawn. A bench asked with more
    problems than the run sampled is refused before anything is written (it used to sample them, for a report no
    label covers), and a report of the run itself never loads the policy (its weights are gone here)."""
    from helpers import make_tiny_base

    base = make_tiny_base(tmp_path / "base", context=4096)
    out = tmp_path / "b"
    settings = dict(output=str(out), problems=4, levels="1,2", policy_k=1, model=str(base), labelers="ig",
                    max_new_tokens=6, batch_size=8, bootstrap=0, slips="arithmetic")
    first = run_bench(BenchConfig(**settings), progress=False)
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with pytest.raises(ValueError, match=r"--no-label samples nothing.* samples of 4 of the 6 problems.*--problems 4"):
        run_bench(BenchConfig(**(settings | {"problems": 6}), label=False), progress=False)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files  # nothing sampled, nothing written
    (base / "model.safetensors").unlink()
    again = run_bench(BenchConfig(**settings, label=False), progress=False)
    assert json.dumps(again["rows"]) == json.dumps(first["rows"]) and again["policy"]["tokens"] == 0


def test_no_label_reports_on_a_scorer_s_scores_the_run_holds(long_base, tmp_path, capsys):
    """A bench of scorers alone (`--labelers ''`): --no-label reports on the step scores in OUTPUT/scorers/, without
    loading the scorer (its path here does not exist); it used to refuse such a run as holding "no labels of "."""
    out = tmp_path / "b"
    flags = ["bench", "--output", str(out), "--problems", "4", "--levels", "1,2", "--policy-k", "0", "--model",
             long_base, "--slips", "arithmetic,corrected", "--bootstrap", "0", "--labelers", ""]
    assert main(flags) == 0
    spec = f"step-tag:{tmp_path / 'gone'}"
    pools = [json.loads(line) for line in (out / "pools.jsonl").read_text().splitlines()]
    traces = [(p["problem"]["id"], t) for p in pools for t in p["traces"]]
    (out / "scorers").mkdir()
    (out / "scorers" / "judge.jsonl").write_text("".join(json.dumps(
        StepLabels(t["id"], "judge", [1.0 - i / 10 for i in range(len(t["steps"]))], [], None, {"scorer": spec},
                   t["correct"], pid).to_dict()) + "\n" for pid, t in traces))
    capsys.readouterr()
    assert main([*flags, "--scorers", f"judge={spec}", "--no-label"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert {r["labeler"] for r in report["rows"]} == {"judge"} and report["coverage"]["common_traces"] == len(traces)
    assert main([*flags, "--no-label"]) == 2  # neither labeler nor scorer: refused, and the message says so
    assert "no labels of any labeler (--labelers is empty)" in capsys.readouterr().err


def test_a_run_without_labelers_leaves_no_plot_of_an_earlier_run_and_names_only_what_it_wrote(long_base, tmp_path,
                                                                                                capsys):
    """`--labelers ''` after a run with labelers: its table has no row, so the earlier run's f1_tokens.png (which
    would contradict it) is gone, and the closing line names report.json and table.md alone."""
    out = tmp_path / "b"
    flags = ["bench", "--output", str(out), "--problems", "4", "--levels", "1,2", "--policy-k", "0", "--model",
             long_base, "--slips", "arithmetic,corrected", "--bootstrap", "0", "--quiet"]
    assert main([*flags, "--labelers", "ig"]) == 0
    assert (out / "f1_tokens.png").is_file() and capsys.readouterr().out.rstrip().endswith("table.md, f1_tokens.png")
    assert main([*flags, "--labelers", ""]) == 0
    assert not (out / "f1_tokens.png").exists()
    assert capsys.readouterr().out.rstrip().endswith(f"wrote {out}/report.json, table.md")


@pytest.mark.parametrize(("flags", "message"), [
    (["--labelers", "ig,oracle"], "unknown labeler(s) ['oracle']"),
    (["--levels", "1,12"], "level(s) [12] outside the templates' 1..8"),
    (["--size", "huge"], "unknown size 'huge'"),
    (["--problems", "3", "--levels", "1,2"], "at least two problems per level"),
    (["--model", "no-such-model"], "no-such-model"),
    (["--labelers", "pum", "--students", "smollm2-135m,no-such-student"], "no-such-student"),
    (["--labelers", "pum", "--students", "smollm2-135m#no_such_prompt"], "no built-in template 'no_such_prompt'"),
    # a dtype meant for the transformers rollouts that a ct2 student cannot compute on a CPU: before the policy samples
    (["--labelers", "pum", "--students", "ct2:smollm2-135m", "--dtype", "float16"], "cannot compute in float16"),
])
def test_bad_input_is_a_clear_error_before_any_model_loads(tmp_path, capsys, flags, message):
    code = main(["bench", "--output", str(tmp_path / "b"), "--policy-k", "0", "--labelers", "ig", *flags])
    assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "b" / "labels").exists()


@pytest.mark.parametrize("made", ["nothing", "settings"])
def test_no_label_on_a_folder_without_a_run_is_an_error_before_any_model_loads(tmp_path, capsys, made):
    """--no-label promises a report of what a run labeled: a new folder (or one whose run labeled nothing yet)
    is refused, and the policy is never sampled (the model named here does not even exist)."""
    out = tmp_path / "b"
    if made == "settings":
        out.mkdir()
        (out / "settings.json").write_text("{}\n")
    code = main(["bench", "--no-label", "--output", str(out), "--model", str(tmp_path / "no-model"), "--labelers",
                 "ig"])
    err = capsys.readouterr().err
    assert code == 2 and "--no-label" in err and str(out) in err and len(err.strip().splitlines()) == 1
    assert ("no bench run" if made == "nothing" else "no labels of ig") in err
    assert not (out / "policy.raw.jsonl").exists() and not (out / "report.json").exists()


@pytest.mark.parametrize("spec", ["token-classification:{tmp}/nope", "openai-pooling:http://127.0.0.1:{port},sep_id=5"])
def test_a_scorer_that_cannot_load_is_refused_before_the_labelers_run(long_base, tmp_path, capsys, spec):
    """`--scorers` are loaded and checked before the policy samples and the labelers run (they used to be loaded
    after them, leaving an empty scores file)."""
    from models.fake_pooling_server import free_port

    spec = spec.format(tmp=tmp_path, port=free_port())
    out = tmp_path / "b"
    code = main(["bench", "--output", str(out), "--problems", "4", "--levels", "1,2", "--policy-k", "0", "--model",
                 long_base, "--slips", "arithmetic", "--bootstrap", "0", "--labelers", "ig", "--scorers",
                 f"judge={spec}"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("prmkit bench: error: --scorers judge: ")
    assert ("no such directory" if "nope" in spec else "connection refused") in err
    assert not (out / "labels").exists() and not (out / "scorers").exists()
