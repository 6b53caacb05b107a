"""`prmkit payoff` on the tiny random model: rows of three labelers from a real bench, resume, the table, bad input."""

from __future__ import annotations

import json

import pytest

from prmkit.cli.main import main
from prmkit.experiments.bench import BenchConfig, run_bench
from prmkit.experiments.payoff import PayoffConfig, run_payoff
from prmkit.experiments.payoff_report import format_payoff, payoff_table


@pytest.fixture(scope="module")
def benches(tmp_path_factory):
    """A bench of 4 training problems (levels 1-2, IG and MCNIG labels) and the pools of 2 fresh problems (level
    3: no question in common), both on the tiny base with a context long enough for the few-shot prompt."""
    from helpers import make_tiny_base

    root = tmp_path_factory.mktemp("payoff")
    base = str(make_tiny_base(root / "base", context=4096))
    common = dict(model=base, k=2, max_new_tokens=6, batch_size=8, bootstrap=0, slips="arithmetic,corrected")
    run_bench(BenchConfig(output=str(root / "train"), problems=4, levels="1,2", policy_k=2, labelers="ig,mcnig",
                          **common), progress=False)
    run_bench(BenchConfig(output=str(root / "fresh"), problems=2, levels="3", seed=1, policy_k=2, labelers="ig",
                          **common), progress=False)
    recipe = root / "recipe.yaml"
    recipe.write_text("epochs: 1\nmax_steps: 2\nbatch_traces: 4\nmicro_batch: 4\nmax_length: 512\nlr: 1.0e-3\n"
                      "eval_strategy: 'no'\nsave_strategy: 'no'\nreport_to: none\nheld_out: 0\n")
    return root, base, str(recipe)


def _row(benches, labeler, out, **more):
    root, base, recipe = benches
    return PayoffConfig(bench=str(root / "train"), labeler=labeler, fresh=str(root / "fresh" / "pools.jsonl"),
                        output=str(out), train_config=recipe, model=base, **more)


def _lines(path):
    return path.read_text().splitlines()


def test_rows_resume_and_the_table_compares_them_on_the_same_problems(benches, tmp_path):
    rows = {}
    for labeler in ("mcnig", "truth", "outcome"):
        rows[labeler] = run_payoff(_row(benches, labeler, tmp_path / labeler), log=lambda _: None)
    fresh = [json.loads(line) for line in _lines(benches[0] / "fresh" / "pools.jsonl")]
    ids = sorted(t["id"] for p in fresh for t in p["traces"])
    for labeler, row in rows.items():
        scored = [json.loads(line) for line in _lines(tmp_path / labeler / "scores.jsonl")]
        assert sorted(s["id"] for s in scored) == ids, labeler  # every fresh trace, once
        assert row["train"]["examples"] > 0 and row["train"]["peak_rss_gb"] > 0
    assert (rows["mcnig"]["kind"], rows["truth"]["kind"], rows["outcome"]["kind"]) == ("prm", "prm", "orm")
    # MCNIG's labels cost the tokens its forward pass read; the checker's truth and the answers cost none
    assert rows["mcnig"]["label_cost"]["tokens_read"] > 0 and rows["mcnig"]["label_cost"]["tokens_generated"] == 0
    assert rows["truth"]["label_cost"]["tokens_read"] == rows["outcome"]["label_cost"]["tokens_read"] == 0
    # and the seconds of its calls in the bench's seconds ledger, over the traces the row trained on
    from prmkit.data.jsonl import read_clock
    clock = read_clock(benches[0] / "train" / "labels" / "seconds.jsonl")["mcnig"]
    assert 0 < rows["mcnig"]["label_cost"]["seconds"] <= round(sum(clock.values()), 3)
    assert rows["truth"]["label_cost"]["seconds"] == rows["outcome"]["label_cost"]["seconds"] == 0

    before = _lines(tmp_path / "mcnig" / "scores.jsonl")
    logs: list[str] = []
    again = run_payoff(_row(benches, "mcnig", tmp_path / "mcnig"), log=logs.append)
    assert any("trained before" in m for m in logs) and again["score"]["written"] == 0
    assert _lines(tmp_path / "mcnig" / "scores.jsonl") == before  # nothing redone, nothing duplicated
    with pytest.raises(ValueError, match=r"other settings \(.*labeler: 'mcnig' -> 'ig'"):
        run_payoff(_row(benches, "ig", tmp_path / "mcnig"), log=lambda _: None)

    report = payoff_table([str(tmp_path / n) for n in rows], str(tmp_path / "table"), [1, 2], bootstrap=50)
    assert report["problems"] == 2 and [c["labeler"] for c in report["costs"]] == list(rows)
    methods = {d["method"] for d in report["differences"]}
    assert {"mcnig", "weighted:mcnig", "truth", "outcome"} <= methods
    assert report["costs"][1]["points_per_million_tokens"] is None  # truth: no label tokens to divide by
    for name in ("table.json", "table.md", "payoff.png", "payoff_tokens.png"):  # MCNIG's labels cost tokens
        assert (tmp_path / "table" / name).stat().st_size > 0
    md = (tmp_path / "table" / "table.md").read_text()
    assert "points per 10^6 label tokens" in md and " traces | " in md and "| labeling s |" in md
    # row against row, paired by problem: the same K-subsets, so the mean difference is that of the two rows'
    # differences to majority voting; an unknown row is an error
    paired = payoff_table([str(tmp_path / n) for n in rows], None, [1, 2], bootstrap=50, against="truth")
    to_majority = {(d["method"], d["k"]): d["mean"] for d in paired["differences"]}
    mine = {(d["method"], d["k"]): d for d in paired["against"]}
    assert set(mine) == {(m, k) for m in ("weighted:mcnig", "weighted:outcome", "mcnig", "outcome") for k in (1, 2)}
    for (method, k), d in mine.items():
        base = "weighted:truth" if method.startswith("weighted:") else "truth"
        assert d["against"] == base and d["mean"] == pytest.approx(to_majority[method, k] - to_majority[base, k])
        assert d["lo"] <= d["mean"] <= d["hi"]
    assert "| paired against truth | K=1 | K=2 |" in format_payoff(paired)
    with pytest.raises(ValueError, match="--against 'nobody' is none of the rows"):
        payoff_table([str(tmp_path / n) for n in rows], None, [1, 2], bootstrap=10, against="nobody")
    largest = max(len(p["traces"]) for p in fresh)  # 3 constructed traces + 2 policy samples a problem
    assert payoff_table([str(tmp_path / "mcnig")], bootstrap=10)["ks"] == [k for k in (1, 2, 4, 8) if k <= largest]


def test_policy_traces_alone(benches, tmp_path):
    row = run_payoff(_row(benches, "truth", tmp_path / "p", traces="policy"), log=lambda _: None)
    kept = [t["id"] for line in _lines(tmp_path / "p" / "train_pools.jsonl") for t in json.loads(line)["traces"]]
    truth = {json.loads(line)["trace_id"]: json.loads(line) for line in _lines(benches[0] / "train" / "truth.jsonl")}
    assert len(kept) == 4 * 2 and all(truth[t]["params"]["slip"] == "policy" for t in kept)
    assert row["train"]["examples"] == 8


def test_a_finished_row_run_again_with_keep_writes_its_kept_file_and_the_table_reads_it(benches, tmp_path):
    """A row that kept nothing gets its kept file by a re-run with --keep (nothing trained or scored again); the
    table of the kept file and the fresh pools is the row directory's."""
    from prmkit.experiments.payoff_kept import read_kept

    run_payoff(_row(benches, "truth", tmp_path / "t", traces="policy", seed=3, name="truth#s3"), log=lambda _: None)
    again = run_payoff(_row(benches, "truth", tmp_path / "t", traces="policy", seed=3, name="truth#s3",
                            keep=str(tmp_path / "kept")), log=lambda _: None)
    assert again["score"]["written"] == 0 and again["seed"] == 3
    figures, steps = read_kept(tmp_path / "kept" / "truth_s3.jsonl.gz")
    assert figures["seed"] == 3 and figures["train"] == again["train"] and len(steps) == 2
    fresh = str(benches[0] / "fresh" / "pools.jsonl")
    mine = payoff_table([str(tmp_path / "kept" / "truth_s3.jsonl.gz")], None, [1, 2], bootstrap=10, fresh=fresh)
    theirs = payoff_table([str(tmp_path / "t")], None, [1, 2], bootstrap=10, fresh=fresh)
    assert (mine["rows"], mine["differences"], mine["costs"]) == (theirs["rows"], theirs["differences"],
                                                                    theirs["costs"])


def test_a_learning_curve_trains_on_nested_problem_sets_and_the_summary_has_a_row_per_k(benches, tmp_path):
    rows = [run_payoff(_row(benches, "truth", tmp_path / f"t{n}", train_problems=n, name=f"truth@{n}",
                            traces="policy"), log=lambda _: None) for n in (2, 4)]
    assert [r["train_problems"] for r in rows] == [2, 4] and [r["name"] for r in rows] == ["truth@2", "truth@4"]
    pools = [json.loads(line) for line in _lines(tmp_path / "t2" / "train_pools.jsonl")]
    train = [json.loads(line) for line in _lines(benches[0] / "train" / "pools.jsonl")]
    assert [p["problem"]["id"] for p in pools] == [p["problem"]["id"] for p in train[:2]]  # the bench's first two
    assert {json.loads(line)["problem_id"] for line in _lines(tmp_path / "t2" / "train_labels.jsonl")} == \
        {p["problem"]["id"] for p in pools}
    assert rows[0]["train"]["examples"] == 2 * 2 < rows[1]["train"]["examples"] == 4 * 2
    summary = tmp_path / "scale.json"
    report = payoff_table([str(tmp_path / "t2"), str(tmp_path / "t4")], str(tmp_path / "table"), [1, 2, 4],
                          bootstrap=20, summary=str(summary))
    written = json.loads(summary.read_text())
    assert [(r["row"], r["k"], r["train_problems"]) for r in written] == [
        ("truth@2", 2, 2), ("truth@2", 4, 2), ("truth@4", 2, 4), ("truth@4", 4, 4)]
    diffs = {(d["method"], d["k"]): d for d in report["differences"]}
    assert written[1]["bon_minus_majority"] == [round(diffs[("truth@2", 4)][x], 4) for x in ("mean", "lo", "hi")]
    auc = report["rank_robustness"]["truth@2"]["within_problem_auc"]
    assert written[0]["within_problem_auc"] == round(auc, 4) and (auc != auc or 0 <= auc <= 1)  # nan: no mixed pool
    assert (tmp_path / "table" / "payoff_scale.png").stat().st_size > 0
    assert "within-problem AUC" in (tmp_path / "table" / "table.md").read_text()
    # DIR@AGGREGATION: the same row's step scores re-aggregated, a row of its own
    last = payoff_table([str(tmp_path / "t2"), f"{tmp_path / 't2'}@last"], ks=[2], bootstrap=20)
    assert [c["labeler"] for c in last["costs"]] == ["truth@2", "truth@2/last"]
    scores = [json.loads(line) for line in _lines(tmp_path / "t2" / "scores.jsonl")]
    assert any(abs(s["score"] - s["step_scores"][-1]) > 1e-9 for s in scores)  # prod differs from last here
    with pytest.raises(ValueError, match="has 4 problems"):
        run_payoff(_row(benches, "truth", tmp_path / "t9", train_problems=9), log=lambda _: None)


def test_outcome_pairs_train_a_bradley_terry_head_on_right_and_wrong_samples_of_a_problem(benches, tmp_path):
    from prmkit.data.records import Pool
    from prmkit.experiments.payoff import outcome_pairs

    def trace(i, ok):
        return {"id": f"p/{i}", "problem_id": "p", "steps": [f"step {i}", f"answer {int(ok)}"], "answer": str(int(ok)),
                "correct": ok}
    pool = Pool.from_dict({"problem": {"id": "p", "question": "q?", "answer": "1"},
                           "traces": [trace(i, ok) for i, ok in enumerate([True, False, False, True, False])]})
    pairs = outcome_pairs([pool], per_problem=4, seed=0)
    assert len(pairs) == 4 and [p.label for p in pairs] == [1, -1, 1, -1]
    for p in pairs:  # the right sample is the preferred one, whichever side it is on
        right, wrong = (p.prefix_a, p.prefix_b) if p.label == 1 else (p.prefix_b, p.prefix_a)
        assert right[-1] == "answer 1" and wrong[-1] == "answer 0"
    assert len(outcome_pairs([pool], per_problem=99)) == 2 * 3 and outcome_pairs([pool], 4, 1) != pairs
    with pytest.raises(ValueError, match="no problem has both"):
        outcome_pairs([Pool(pool.problem, pool.traces[:1])], 4)

    root = benches[0]
    policy = [json.loads(line) for line in _lines(root / "train" / "pools.jsonl")]
    mixed = sum(1 for p in policy if len({t["correct"] for t in p["traces"]}) == 2)
    row = run_payoff(_row(benches, "outcome-pairs", tmp_path / "bt", pairs_per_problem=2), log=lambda _: None)
    written = _lines(tmp_path / "bt" / "train_pairs.jsonl")
    assert row["kind"] == "bt" and 0 < len(written) <= 2 * mixed and row["train"]["examples"] == 2 * len(written)


def test_pum_pairs_are_picked_by_the_training_problems_and_traces_like_step_labels(benches, tmp_path):
    """A PUM row trains on the pairs between prefixes of the traces `--train-problems` and `--traces` keep; what
    they cost is what the manifest of `prmkit pum`'s output says its students spent."""
    from prmkit.data.jsonl import write_records
    from prmkit.data.manifest import write_manifest
    from prmkit.data.records import Pool, PrefixPair

    root = benches[0]
    pools = [Pool.from_dict(json.loads(line)) for line in _lines(root / "train" / "pools.jsonl")]
    truth = {json.loads(line)["trace_id"]: json.loads(line) for line in _lines(root / "train" / "truth.jsonl")}
    pairs = []  # each problem: every two traces' 1-step prefixes, either way round
    for pool in pools:
        traces = [t for t in pool.traces if t.steps]
        for i, (a, b) in enumerate((a, b) for n, a in enumerate(traces) for b in traces[n + 1:]):
            pairs.append(PrefixPair(pool.problem.id, pool.problem.question, a.steps[:1], b.steps[:1],
                                    1 if i % 2 else -1, f"{a.id}@1", f"{b.id}@1", kind="horizontal"))
    write_records(tmp_path / "pum_out" / "pairs.jsonl", pairs)
    cost = {"tokens_read": 1200, "tokens_generated": 345, "seconds": 6.7}
    write_manifest(tmp_path / "pum_out", "pum", {}, outputs={"pairs": tmp_path / "pum_out" / "pairs.jsonl"},
                   cost=cost | {"rollouts": 8})
    row = run_payoff(_row(benches, "pum", tmp_path / "pum", pairs=str(tmp_path / "pum_out" / "pairs.jsonl"),
                          train_problems=2, traces="policy", name="pum@2"), log=lambda _: None)
    assert row["label_cost"] == cost | {"known": True}
    kept = [json.loads(line) for line in _lines(tmp_path / "pum" / "train_pairs.jsonl")]
    first_two = {p.problem.id for p in pools[:2]}
    expected = [p for p in pairs if p.problem_id in first_two and
                all(truth[i.rsplit("@", 1)[0]]["params"]["slip"] == "policy" for i in (p.id_a, p.id_b))]
    assert [(p["id_a"], p["id_b"]) for p in kept] == [(p.id_a, p.id_b) for p in expected]
    assert expected and row["kind"] == "bt" and row["train_problems"] == 2
    other = tmp_path / "other.jsonl"
    write_records(other, [PrefixPair("x", "q?", ["a"], ["b"], 1, "x/0@1", "x/1@1")])
    with pytest.raises(ValueError, match="none of its 1 pairs"):
        run_payoff(_row(benches, "pum", tmp_path / "pum2", pairs=str(other)), log=lambda _: None)


def test_balance_repeats_the_rarer_verdict_of_each_problem_with_its_labels(benches, tmp_path):
    from prmkit.data.records import Pool, StepLabels
    from prmkit.experiments.payoff import balance_pools

    def trace(i, ok, problem="p"):
        return {"id": f"{problem}/{i}", "problem_id": problem, "steps": [f"s{i}", "a"], "answer": "1", "correct": ok}
    pool = Pool.from_dict({"problem": {"id": "p", "question": "q?", "answer": "1"},
                           "traces": [trace(i, ok) for i, ok in enumerate([True, False, True, True, True, None])]})
    alone = Pool.from_dict({"problem": {"id": "r", "question": "r?", "answer": "1"}, "traces": [trace(9, True, "r")]})
    records = [StepLabels(t.id, "truth", [1.0, 0.0], [1, 0], 0.5, {}, t.correct, t.problem_id) for t in pool.traces]
    pools, labels = balance_pools([pool, alone], records)
    assert [t.id for t in pools[0].traces[6:]] == ["p/1#b1", "p/1#b2", "p/1#b3"] and pools[1] == alone
    assert sum(t.correct is True for t in pools[0].traces) == sum(t.correct is False for t in pools[0].traces) == 4
    assert [r.trace_id for r in labels[6:]] == ["p/1#b1", "p/1#b2", "p/1#b3"] and labels[6].labels == [1, 0]

    plain = run_payoff(_row(benches, "truth", tmp_path / "plain"), log=lambda _: None)
    row = run_payoff(_row(benches, "truth", tmp_path / "bal", balance=True), log=lambda _: None)
    pools = [json.loads(line) for line in _lines(tmp_path / "bal" / "train_pools.jsonl")]
    for p in pools:
        verdicts = [t["correct"] for t in p["traces"]]
        assert True not in verdicts or False not in verdicts or verdicts.count(True) == verdicts.count(False)
    ids = {t["id"] for p in pools for t in p["traces"]}
    assert any("#b" in i for i in ids) and {json.loads(line)["trace_id"] for line in
                                            _lines(tmp_path / "bal" / "train_labels.jsonl")} == ids
    assert row["train"]["examples"] > plain["train"]["examples"] and row["label_cost"] == plain["label_cost"]
    with pytest.raises(ValueError, match="trains on pairs"):
        _row(benches, "outcome-pairs", tmp_path / "x", balance=True)


def test_within_problem_auc_counts_pairs_inside_each_problem():
    from prmkit.evaluate.bok import Candidate
    from prmkit.evaluate.rank import within_problem_auc

    example = [Candidate("1", False, 0.9), Candidate("2", True, 0.2), Candidate("2", True, 0.3),
               Candidate("3", False, 0.1)]
    assert within_problem_auc([example]) == (0.5, 1)
    # easy problems score high, hard ones low, and within each problem the scorer is backwards: overall it
    # separates right from wrong, within a problem it never does
    easy = [Candidate("a", True, 0.8), Candidate("b", False, 0.9)]
    hard = [Candidate("a", True, 0.1), Candidate("b", False, 0.2), Candidate("c", False, 0.2)]
    assert within_problem_auc([easy, hard, [Candidate("a", True, 0.5)]]) == (0.0, 2)
    assert within_problem_auc([[Candidate("a", True, 0.5), Candidate("b", False, 0.5)]]) == (0.5, 1)


@pytest.mark.parametrize(("flags", "message"), [
    (["--labeler", "math-shepherd"], "has no labels of 'math-shepherd': it ran ig, mcnig"),
    (["--labeler", "pum"], "give --pairs"),
    (["--labeler", "mcnig", "--traces", "some"], "unknown --traces 'some'"),
    (["--labeler", "mcnig", "--fresh-from-train"], "are training problems of the bench"),
    (["--labeler", "mcnig", "--fresh-filtered"], "it was filtered"),
    (["--labeler", "mcnig", "--train-config", "no-such-recipe"], "no recipe 'no-such-recipe'"),
])
def test_bad_input_is_a_clear_error_before_any_model_loads(benches, tmp_path, capsys, flags, message):
    root, _, recipe = benches
    fresh = str(root / "fresh" / "pools.jsonl")
    if "--fresh-from-train" in flags:
        flags, fresh = flags[:-1], str(root / "train" / "pools.jsonl")
    if "--fresh-filtered" in flags:  # `prmkit generate`'s filtered output, its raw samples beside it
        flags, fresh = flags[:-1], str(tmp_path / "gen" / "pools.jsonl")
        assert main(["generate", "--data", str(root / "fresh" / "problems.jsonl"), "--model", root.joinpath("base")
                     .as_posix(), "--k", "2", "--max-new-tokens", "4", "--output", fresh, "--quiet"]) == 0
    code = main(["payoff", "run", "--bench", str(root / "train"), "--fresh", fresh, "--output", str(tmp_path / "r"),
                 "--train-config", recipe, *flags])  # a later --train-config wins
    assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "r" / "model").exists()


def test_fresh_pools_filtered_before_manifests_are_refused_too(tmp_path):
    """`prmkit generate`'s output from before manifests: its raw file beside it holds more samples."""
    from prmkit.experiments.payoff import check_unfiltered

    pools, raw = tmp_path / "pools.jsonl", tmp_path / "pools.raw.jsonl"
    for path, samples in ((pools, [{}]), (raw, [{}, {}])):
        path.write_text(json.dumps({"problem": {"id": "p"}, "traces": samples}) + "\n")
    with pytest.raises(ValueError, match=f"it was filtered .* pass --fresh {raw}"):
        check_unfiltered(str(pools))
    check_unfiltered(str(raw))  # every sample the policy drew


def test_table_ks_that_are_not_numbers_are_named_as_the_setting(tmp_path, capsys):
    assert main(["payoff", "table", str(tmp_path / "row"), "--ks", "2,x"]) == 2
    assert "--ks '2,x': expected a comma list of whole numbers" in capsys.readouterr().err


def test_the_recipes_differ_only_in_the_labels():
    """recipes/payoff_*.yaml: one row per labeler, the same traces, reward-model recipe and fresh set."""
    from pathlib import Path

    from prmkit.data.settings import build_config, read_config_file

    recipes = sorted(Path(__file__).resolve().parents[2].joinpath("recipes").glob("payoff_*.yaml"))
    configs = {p.stem: build_config(PayoffConfig, read_config_file(str(p), (PayoffConfig,)), {}) for p in recipes}
    assert set(configs) == {f"payoff_{n}" for n in ("outcome", "ig", "mcnig", "math-shepherd", "omegaprm", "pum",
                                                    "truth")}
    shared = {(c.bench, c.fresh, c.train_config, c.model, c.traces, c.soft, c.seed) for c in configs.values()}
    assert len(shared) == 1
    for stem, c in configs.items():
        assert stem == f"payoff_{c.labeler}" and c.output == f"runs/payoff/{c.labeler}"


def test_fill_gives_the_traces_a_labeler_skipped_their_outcome_labels(benches, tmp_path):
    """A problem without labels (as MCNIG leaves one whose samples are all right): with --fill outcome its traces
    train on their answers' verdicts, every step alike, and cost no label tokens."""
    import shutil

    root = benches[0]
    bench = tmp_path / "bench"
    shutil.copytree(root / "train", bench)
    labels = [json.loads(line) for line in _lines(bench / "labels" / "mcnig.jsonl")]
    skipped = labels[0]["problem_id"]
    (bench / "labels" / "mcnig.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in labels if r["problem_id"] != skipped))
    config = dict(bench=str(bench), labeler="mcnig", fresh=str(root / "fresh" / "pools.jsonl"), train_config=benches[2],
                  model=benches[1])
    filled = run_payoff(PayoffConfig(output=str(tmp_path / "filled"), fill="outcome", **config), log=lambda _: None)
    pools = {t["id"]: t for line in _lines(bench / "pools.jsonl") for t in json.loads(line)["traces"]}
    written = [json.loads(line) for line in _lines(tmp_path / "filled" / "train_labels.jsonl")]
    fills = [r for r in written if r["params"] == {"method": "outcome-fill"}]
    assert fills and {r["problem_id"] for r in fills} == {skipped}
    for r in fills:
        assert r["labels"] == [int(pools[r["trace_id"]]["correct"])] * len(pools[r["trace_id"]]["steps"])
    assert len(written) == len(labels) and filled["train"]["examples"] == len(written)  # no trace left out
    kept = sum(r["cost"]["tokens_read"] for r in labels if r["problem_id"] != skipped)
    assert filled["label_cost"]["tokens_read"] == kept  # a fill costs no tokens
    with pytest.raises(ValueError, match="--fill completes a labeler's step labels"):
        PayoffConfig(output=str(tmp_path / "x"), **{**config, "labeler": "truth"}, fill="outcome")


def test_a_row_whose_bench_grew_since_its_model_trained_is_refused(benches, tmp_path):
    """`prmkit bench --problems` may grow between runs; a row trained on all of a bench (no --train-problems) must
    not keep its model and write the grown bench's problems and label cost beside it when it resumes."""
    import shutil

    root, base, _ = benches
    bench = tmp_path / "bench"
    shutil.copytree(root / "train", bench)
    config = dict(bench=str(bench), labeler="truth", fresh=str(root / "fresh" / "pools.jsonl"),
                  output=str(tmp_path / "row"), train_config=benches[2], model=base)
    first = run_payoff(PayoffConfig(**config), log=lambda _: None)
    assert first["train_problems"] == 4 and json.loads((tmp_path / "row" / "train.json").read_text())["problems"] == 4
    row = (tmp_path / "row" / "row.json").read_text()
    run_bench(BenchConfig(output=str(bench), problems=6, levels="1,2", policy_k=2, labelers="", model=base, k=2,
                          max_new_tokens=6, batch_size=8, bootstrap=0, slips="arithmetic,corrected"), progress=False)
    with pytest.raises(ValueError, match=r"another training set .*\(problems 4 -> 6, .*--train-problems 4"):
        run_payoff(PayoffConfig(**config), log=lambda _: None)
    assert (tmp_path / "row" / "row.json").read_text() == row  # the row as it was trained
    grown = run_payoff(PayoffConfig(**(config | {"output": str(tmp_path / "grown")})), log=lambda _: None)
    assert grown["train_problems"] == 6 and grown["train"]["examples"] > first["train"]["examples"]


def test_a_bench_read_at_fewer_problems_than_it_labeled_costs_only_the_labels_the_row_trains_on(benches, tmp_path):
    """A bench grown to 6 problems and then read at 4 (`prmkit bench --problems 4`: its pools.jsonl holds 4, its
    label files still 6): the row trains on the 4 and counts the label tokens of those alone."""
    import shutil

    root, base, _ = benches
    bench = tmp_path / "bench"
    shutil.copytree(root / "train", bench)
    common = dict(output=str(bench), levels="1,2", policy_k=2, model=base, k=2, max_new_tokens=6, batch_size=8,
                  bootstrap=0, slips="arithmetic,corrected")
    run_bench(BenchConfig(problems=6, labelers="mcnig", **common), progress=False)
    run_bench(BenchConfig(problems=4, labelers="", **common), progress=False)
    kept = {json.loads(line)["problem"]["id"] for line in _lines(bench / "pools.jsonl")}
    labels = [json.loads(line) for line in _lines(bench / "labels" / "mcnig.jsonl")]
    assert len(kept) == 4 and len({r["problem_id"] for r in labels}) > 4  # (MCNIG may skip a problem)
    row = run_payoff(PayoffConfig(bench=str(bench), labeler="mcnig", fresh=str(root / "fresh" / "pools.jsonl"),
                                  output=str(tmp_path / "row"), train_config=benches[2], model=base),
                     log=lambda _: None)
    assert row["train_problems"] == 4
    assert row["label_cost"]["tokens_read"] == sum(r["cost"]["tokens_read"] for r in labels if r["problem_id"] in kept)


def test_a_row_whose_bench_labeled_more_since_its_model_trained_is_refused(benches, tmp_path):
    """A row trained while its labeler had not labeled every problem (a bench stopped partway), resumed after the
    bench finished labeling: its model kept, the row would count label records it never trained on."""
    import shutil

    root, base, _ = benches
    bench = tmp_path / "bench"
    shutil.copytree(root / "train", bench)
    full = (bench / "labels" / "mcnig.jsonl").read_text()
    lines = full.splitlines()
    last = json.loads(lines[-1])["problem_id"]
    (bench / "labels" / "mcnig.jsonl").write_text(
        "".join(line + "\n" for line in lines if json.loads(line)["problem_id"] != last))
    config = PayoffConfig(bench=str(bench), labeler="mcnig", fresh=str(root / "fresh" / "pools.jsonl"),
                          output=str(tmp_path / "row"), train_config=benches[2], model=base)
    run_payoff(config, log=lambda _: None)
    row = (tmp_path / "row" / "row.json").read_text()
    (bench / "labels" / "mcnig.jsonl").write_text(full)  # the bench labeled the rest
    with pytest.raises(ValueError, match=r"another training set .*\(label records \d+ -> \d+\): give a new --output$"):
        run_payoff(config, log=lambda _: None)
    assert (tmp_path / "row" / "row.json").read_text() == row


@pytest.mark.parametrize(("body", "said"), [
    ('{"name": "m", "labeler": "mcn', "row.json: not a whole JSON document (Unterminated string"),
    ("[1, 2]", "row.json: holds a list, not a row of `prmkit payoff run`"),
    ('{"labeler": "mcnig"}', "row.json: lacks kind, traces, label_cost, train, fresh, not a row"),
])
def test_a_cut_or_foreign_row_file_is_named_in_the_table_error(tmp_path, capsys, body, said):
    """A row.json cut short ended in "Expecting value: line 1 column 1" or a KeyError: no file named."""
    row = tmp_path / "row"
    row.mkdir()
    (row / "row.json").write_text(body)
    assert main(["payoff", "table", str(row)]) == 2
    err = capsys.readouterr().err
    assert f"{row}/{said}" in err and "run `prmkit payoff run` into" in err


def test_a_row_says_no_resume_flag_it_was_never_given(benches, tmp_path):
    """A first `payoff run` printed "--resume: no checkpoint in ..., starting afresh", a flag payoff has not."""
    logs: list[str] = []
    run_payoff(_row(benches, "outcome", tmp_path / "o"), log=logs.append)
    assert not any("--resume" in m for m in logs)
    assert any("no checkpoint in" in m and "to resume from: training from the start" in m for m in logs)
