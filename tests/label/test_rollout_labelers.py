"""Math-Shepherd and OmegaPRM: their pure rules on worked examples (no model), then both labelers end to end on
the tiny random model through the generic recipe (ledger, settings refused, bad input, kill -9 and resume)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import cli, make_embedded_tokenizer_llama, pool_dict, write_jsonl
from prmkit.data.records import Pool, StepLabels
from prmkit.data.settings import build_config
from prmkit.data.trl import to_trl
from prmkit.label import (
    FirstErrorSearch,
    LabelConfig,
    RolloutLabelConfig,
    first_error,
    first_error_labels,
    label_pools,
    mc_estimates,
    omegaprm_tokens,
    shepherd_tokens,
)
from prmkit.label.export import soft_values


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory):
    """A 2-layer random Llama with the embedded model's tokenizer and a context that holds the few-shot prompt."""
    return str(make_embedded_tokenizer_llama(tmp_path_factory.mktemp("tiny-rollout-llama")))


def test_mc_estimates_worked_example():
    hard, soft = mc_estimates([[True, False, False, False], [False] * 4, [True] * 4])
    assert (hard, soft) == ([1.0, 0.0, 1.0], [0.25, 0.0, 1.0])
    with pytest.raises(ValueError, match="at least one"):
        mc_estimates([[True], []])


@pytest.mark.parametrize("n, final, good_up_to, error, queried", [  # error: 0-based step index, -1 = none
    (5, False, 2, 2, [2, 3]),        # the docstring's example
    (8, False, 0, 0, [4, 2, 1]),     # wrong from the first step: log2 8 = 3 queries
    (8, False, 7, 7, [4, 6, 7]),     # only the last step wrong
    (8, True, 8, -1, []),            # a correct CoT: no query, all steps 1
    (1, False, 0, 0, []),            # one wrong step: nothing to search
    (0, False, 0, -1, []),
])
def test_first_error_binary_search(n, final, good_up_to, error, queried):
    asked = []
    oracle = lambda k: asked.append(k) or k <= good_up_to  # noqa: E731
    assert first_error(n, final, oracle) == (error, queried)
    assert asked == queried
    # the search agrees with a linear scan for the first failing prefix (monotone oracle); its last step is the error
    linear = next((k - 1 for k in range(1, n + 1) if not (k <= good_up_to if k < n else final)), -1)
    assert error == linear


def test_first_error_labels_and_search_state():
    assert first_error_labels(5, 2) == [1, 1, 0, 0, 0]
    assert first_error_labels(3, -1) == [1, 1, 1]
    assert first_error_labels(0, -1) == []
    with pytest.raises(ValueError, match="outside"):
        first_error_labels(3, 3)
    search = FirstErrorSearch(4, False)
    with pytest.raises(ValueError, match="pending query 2"):
        search.answer(3, True)


def test_appendix_a_formulas_worked_examples():
    assert shepherd_tokens(4, 10, 8) == 480  # 8 * 10 * 4 * 3 / 2
    assert omegaprm_tokens(4, 10, 8) == 320  # 8 * 10 * 4/2 * log2 4
    assert omegaprm_tokens(1, 10, 8) == 0 and shepherd_tokens(1, 10, 8) == 0
    # quadratic vs N log N: doubling N from 8 to 16 multiplies them by 120/28 and 2 * 4/3
    assert shepherd_tokens(16, 1, 1) / shepherd_tokens(8, 1, 1) == pytest.approx(120 / 28)
    assert omegaprm_tokens(16, 1, 1) / omegaprm_tokens(8, 1, 1) == pytest.approx(8 / 3)
    with pytest.raises(ValueError):
        shepherd_tokens(-1, 1, 1)


POOLS = [
    pool_dict("p0", "Tom has 3 apples and buys 4 more. How many apples?", "7",
              [(["3 + 4 = 7", "so the answer is 7", "7"], "7", True),
               (["Tom has 3 apples", "3 * 4 = 12", "the price is 12", "12"], "12", False)]),
    pool_dict("p1", "Sam eats one of 5 apples. How many are left?", "4",
              [(["5 - 1 = 4", "4"], "4", True), (["10 - 2 = 8", "8"], "8", False)]),
]


def _cfg(tiny_base, cls=RolloutLabelConfig, **kw):
    """The labelers' settings of these tests, given flat as to `prmkit label` (PUM's students carry the model)."""
    return build_config(cls, {}, {"model": tiny_base, "k": 3, "max_new_tokens": 8, "chat": False, **kw})


def read(path) -> dict[str, dict]:
    return {(d := json.loads(x))["trace_id"]: d for x in open(path)}


def test_both_labelers_through_the_recipe(tiny_base, tmp_path):
    pools = [Pool.from_dict(p) for p in POOLS]
    out = str(tmp_path / "{method}.jsonl")
    reports = label_pools(pools, LabelConfig(method="math-shepherd,math-shepherd-hard,omegaprm"), out,
                          [_cfg(tiny_base)], progress=False)
    soft, hard, omega = (read(tmp_path / f"{m}.jsonl") for m in ("math-shepherd", "math-shepherd-hard", "omegaprm"))
    for tid, rec in soft.items():
        n, correct = len(rec["scores"]), rec["correct"]
        assert rec["scores"][-1] == hard[tid]["scores"][-1] == float(correct)  # the CoT is its last step's rollout
        assert hard[tid]["scores"] == [float(s > 0) for s in rec["scores"]]
        assert all(s * 3 == int(s * 3) for s in rec["scores"])  # fractions of M = 3
        assert rec["cost"]["prefixes"] == n - 1 and rec["cost"]["rollouts"] == 3 * (n - 1)
        assert rec["cost"]["tokens_generated"] > 0
        assert (rec["cost"]["tokens_read"] > rec["cost"]["tokens_read_cached"]) == (n > 2)  # n - 1 prefixes read
        assert rec["cost"]["paper_tokens"] == pytest.approx(shepherd_tokens(n, rec["cost"]["step_tokens"], 3))
        o = omega[tid]
        assert o["cost"]["prefixes"] == len(o["cost"]["queried"])
        if correct:  # nothing to search
            assert o["scores"] == [1.0] * n and o["cost"]["tokens_generated"] == o["cost"]["prefixes"] == 0
        else:
            assert o["scores"] == first_error_labels(n, o["cost"]["first_error"])
            assert 1 <= o["cost"]["prefixes"] <= n - 1 and o["cost"]["rollouts"] == 3 * o["cost"]["prefixes"]
    # the report sums the ledgers; soft labels thresholded into 0/1 labels, scores kept as floats for TRL
    ms = reports["math-shepherd"]
    assert ms.tokens_generated == sum(r["cost"]["tokens_generated"] for r in soft.values())
    assert ms.paper_tokens == sum(round(r["cost"]["paper_tokens"]) for r in soft.values())
    assert reports["omegaprm"].tokens_generated == sum(r["cost"]["tokens_generated"] for r in omega.values())
    assert all(set(r["labels"]) <= {0, 1} and r["threshold"] is not None for r in soft.values())
    trl = list(to_trl(pools, [StepLabels.from_dict(r) for r in soft.values()], soft_values, keep_scores=True))
    assert [type(v) for t in trl for v in t["labels"]] == [float] * sum(len(r["scores"]) for r in soft.values())
    # a re-run with another M is refused, naming the difference; batch_size changes no score
    with pytest.raises(ValueError, match="rollouts: 3 -> 4"):
        label_pools(pools, LabelConfig(method="omegaprm"), tmp_path / "omegaprm.jsonl",
                    [_cfg(tiny_base, k=4)], progress=False)
    again = label_pools(pools, LabelConfig(method="omegaprm"), tmp_path / "omegaprm.jsonl",
                        [_cfg(tiny_base, batch_size=5)], progress=False)["omegaprm"]
    assert (again.traces, again.resumed) == (0, 2)


def test_bad_input_is_a_clear_error_and_unjudged_pools_are_skipped(tiny_base, tmp_path):
    bad = Pool.from_dict(pool_dict("b", "q", "7", [(["3 [STEP] 4", "7"], "7", True)]))
    with pytest.raises(ValueError, match=r"b/0@1: step 0 is empty or contains \[STEP\]"):
        label_pools([bad], LabelConfig(method="math-shepherd"), tmp_path / "ms.jsonl", [_cfg(tiny_base)],
                    progress=False)
    unjudged = Pool.from_dict(pool_dict("u", "q", "7", [(["3 + 4 = 7", "7"], "7", None)]))
    report = label_pools([unjudged], LabelConfig(method="omegaprm"), tmp_path / "o.jsonl", [_cfg(tiny_base)],
                         progress=False)["omegaprm"]
    assert report.skipped == {"a trace without a verdict": 1} and report.traces == 0


def _env() -> dict[str, str]:
    tests = str(Path(__file__).parents[1])
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), tests])),
                         "OMP_NUM_THREADS": "1"}


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_equals_a_clean_run(tiny_base, tmp_path):
    pools = [pool_dict(f"p{k}", f"Tom has {k} apples and buys 4 more.", str(k + 4),
                       [([f"{k} + 4 = {k + 4}", "3 * 4 = 12", f"{k + 4}"], str(k + 4), j == 0) for j in range(2)])
             for k in range(12)]
    path = write_jsonl(tmp_path / "pools.jsonl", pools)
    args = ["label", "--method", "math-shepherd", "--input", path, "--quiet", "--model", tiny_base, "--k", "2",
            "--max-new-tokens", "3", "--no-chat", "--output"]
    cli(*args, str(tmp_path / "clean.jsonl"), check=True)  # the clean run and the re-run in this process
    victim = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "prmkit.cli.main", *args, str(victim)], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300  # model loading alone takes long on a loaded machine
    while time.time() < deadline and (not victim.exists() or victim.read_text().count("\n") < 2):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = victim.read_text().count("\n")
    assert 2 <= written < 24, "the kill must land mid-run"
    assert json.loads(cli(*args, str(victim), check=True).stdout)["traces"] == 24 - written
    # seeded per prefix: the same labels; the ledgers may differ only where the kill fell between the two traces
    # of a problem, which share every prefix: the resumed trace paid for them alone
    def labels(path):
        return {t: {k: v for k, v in r.items() if k != "cost"} for t, r in read(path).items()}

    assert labels(victim) == labels(tmp_path / "clean.jsonl")


SHARED = pool_dict("s", "Tom has 3 apples and buys 4 more, then doubles them. How many apples?", "14",
                   [(["3 + 4 = 7", "7 * 2 = 14", "14"], "14", True),         # right
                    (["3 + 4 = 7", "7 * 3 = 21", "21"], "21", False),        # slipped at step 2: shares step 1
                    (["3 + 4 = 7", "7 * 2 = 14", "14 + 1 = 15", "15"], "15", False)])  # shares steps 1-2


def test_prefixes_that_traces_share_are_rolled_out_once(tiny_base, tmp_path):
    pool = Pool.from_dict(SHARED)
    report = label_pools([pool], LabelConfig(method="math-shepherd"), tmp_path / "ms.jsonl", [_cfg(tiny_base)],
                         progress=False)["math-shepherd"]
    recs = [read(tmp_path / "ms.jsonl")[t.id] for t in pool.traces]
    # asked: 2 + 2 + 3 prefixes; distinct: "3+4" and "3+4, 7*2" (three traces), "3+4, 7*3", "3+4, 7*2, 14+1"
    assert [r["cost"]["prefixes"] for r in recs] == [2, 2, 3]
    assert [r["cost"]["prefixes_shared"] for r in recs] == [2, 1, 2]
    assert recs[0]["scores"][:2] == recs[2]["scores"][:2] and recs[0]["scores"][0] == recs[1]["scores"][0]
    # the ledgers split each shared prefix's tokens: they sum to what was generated, each prefix once
    spent = sum(r["cost"]["tokens_generated"] for r in recs)
    assert report.tokens_generated == spent > 0
    lone = label_pools([Pool(pool.problem, pool.traces[2:])], LabelConfig(method="math-shepherd"),
                       tmp_path / "lone.jsonl", [_cfg(tiny_base)], progress=False)["math-shepherd"]
    assert lone.tokens_generated < spent  # 3 prefixes rolled out against 4
    # a prefix's samples do not depend on which traces a call labels: the prefix is named by the pool's first
    # trace that has it, so labeling only the third trace gives it the scores it had among all three
    from prmkit.label import build_labelers

    labeler = build_labelers(["math-shepherd"], [_cfg(tiny_base)])[0]
    alone = labeler.label(pool, {"math-shepherd": {pool.traces[2].id}}).records["math-shepherd"][0]
    assert alone.scores == recs[2]["scores"]
    assert alone.cost["prefixes_shared"] == 0 and alone.cost["tokens_generated"] > recs[2]["cost"]["tokens_generated"]


def test_step_utilities_worked_example():
    from prmkit.label.pum.labeler import step_utilities

    assert step_utilities({"a": 0.25, "b": 0.0}, [{"a": 0.5, "b": 0.25}, {"a": 1.0, "b": 1.0}]) == [0.25, 0.875]


def test_pum_labels_are_the_students_mean_gain_after_each_step(tiny_base, tmp_path):
    from prmkit.label import PumLabelConfig

    pool = Pool.from_dict(SHARED)
    cfg = _cfg(tiny_base, PumLabelConfig, students=[tiny_base, f"{tiny_base}@1.5"])
    report = label_pools([pool], LabelConfig(method="pum"), tmp_path / "pum.jsonl", [cfg], progress=False)["pum"]
    recs = [read(tmp_path / "pum.jsonl")[t.id] for t in pool.traces]
    baselines = recs[0]["cost"]["baselines"]
    assert len(baselines) == 2 and all(b * 3 == int(b * 3) for b in baselines.values())  # fractions of K = 3
    for t, r in zip(pool.traces, recs, strict=True):
        # the last step: the CoT's verdict minus each student's baseline, averaged
        assert r["scores"][-1] == pytest.approx(sum(float(t.correct) - b for b in baselines.values()) / 2)
        assert all(-1 <= s <= 1 for s in r["scores"]) and r["params"]["students"] == cfg.students
        assert r["cost"]["prefixes"] == 2 * (len(t.steps) - 1) + (2 if r is recs[0] else 0)  # + baselines
    assert recs[0]["scores"][:2] == recs[2]["scores"][:2]  # shared prefixes, shared gains
    assert report.tokens_generated == sum(r["cost"]["tokens_generated"] for r in recs) > 0
    assert report.tokens_read == sum(r["cost"]["tokens_read"] for r in recs)
    for r in recs:  # each student's own tokens, which a compute count (parameters x tokens) weighs apart
        mine = r["cost"]["students"]
        assert list(mine) == list(baselines) and all(m["tokens_generated"] > 0 for m in mine.values())
        for k in ("tokens_read", "tokens_generated"):
            assert sum(m[k] for m in mine.values()) == r["cost"][k]


# problems of 2-5 steps, some traces sharing prefixes: enough prefixes that a batch holds several problems
MANY = [*POOLS, SHARED] + [
    pool_dict(f"m{k}", f"Ann has {k} pens and finds {k + 2} more. How many pens?", str(2 * k + 2),
              [([f"{k} + {k + 2} = {2 * k + 2}", f"{2 * k + 2}"], str(2 * k + 2), True),
               ([f"{k} + {k + 2} = {2 * k + 2}", f"{2 * k + 2} * 2 = {4 * k + 4}", "twice", f"{4 * k + 4}"],
                str(4 * k + 4), False),
               ([f"{k} * 2 = {2 * k}"] * (k % 3 + 1) + [f"{2 * k}"], str(2 * k), False)])
    for k in range(4)]


def _counting(backend):
    """`backend` with its generate_rendered calls recorded (prompts per call)."""
    calls, inner = [], backend.generate_rendered
    backend.generate_rendered = lambda prompts, cfg, seeds: calls.append(len(prompts)) or inner(prompts, cfg, seeds)
    return calls


def _dump(done: list, method: str) -> list[str]:
    """Each record as its JSON line, then each call's measured and paper tokens."""
    return ([json.dumps(r.to_dict()) for d in done for r in d.records[method]]
            + [json.dumps([d.cost.tokens_read, d.cost.tokens_generated, d.cost.paper_tokens]) for d in done])


@pytest.mark.slow
@pytest.mark.parametrize("method", ["math-shepherd", "omegaprm"])
def test_batches_across_problems_make_the_records_of_pool_by_pool(tiny_base, method):
    from prmkit.label import build_labelers

    pools = [Pool.from_dict(p) for p in MANY]
    # every trace of each problem, but only the last trace of SHARED (a resumed problem's rest)
    items = [(p, {method: {t.id for t in (p.traces[-1:] if p.problem.id == "s" else p.traces)}}) for p in pools]
    one = build_labelers([method], [_cfg(tiny_base, batch_size=3)])[0]  # one prefix per batch, one pool per call
    alone = [one.label(pool, todo) for pool, todo in items]
    many = build_labelers([method], [_cfg(tiny_base, batch_size=24)])[0]  # 8 prefixes of K = 3 rows per batch
    calls = _counting(many.roller.backend)
    together = list(many.label_stream(items))
    assert _dump(together, method) == _dump(alone, method)  # byte-equal records, ledgers and costs
    assert max(calls) == 8 and len(calls) < len(pools)  # batches hold several problems' prefixes


@pytest.mark.slow
def test_pum_students_batch_across_problems_and_make_the_records_of_pool_by_pool(tiny_base):
    """Each PUM student's prefixes of several problems share its generation batches (up to batch_size rows), with
    the records, ledgers and costs of labeling pool by pool in batches of one prefix."""
    from prmkit.label import PumLabelConfig, build_labelers

    pools = [Pool.from_dict(p) for p in MANY[:4]]
    items = [(p, {"pum": {t.id for t in (p.traces[-1:] if p.problem.id == "s" else p.traces)}}) for p in pools]

    def labeler(batch_size):
        cfg = _cfg(tiny_base, PumLabelConfig, batch_size=batch_size, students=[tiny_base, f"{tiny_base}@1.5"])
        return build_labelers(["pum"], [cfg])[0]

    one = labeler(3)  # one prefix per batch, one pool per call
    singles = {spec.name: _counting(one.roller(spec).backend) for spec in one.specs}
    alone = [one.label(pool, todo) for pool, todo in items]
    many = labeler(24)  # 8 prefixes of K = 3 rows per batch
    calls = {spec.name: _counting(many.roller(spec).backend) for spec in many.specs}
    together = list(many.label_stream(items))
    assert _dump(together, "pum") == _dump(alone, "pum")  # byte-equal records, ledgers and costs
    for name, prompts in calls.items():  # per student: batches of 8 prefixes (24 rows) of several problems,
        assert max(prompts) == 8 and len(prompts) < len(pools)
        assert sum(prompts) == sum(singles[name])  # and each prefix rolled out once, as pool by pool


@pytest.mark.slow
def test_a_crash_mid_batch_keeps_the_problems_written_and_a_rerun_makes_the_same_file(tiny_base, tmp_path):
    from prmkit.label import build_labelers, run_labelers

    pools = [Pool.from_dict(p) for p in MANY]
    clean = tmp_path / "clean.jsonl"
    label_pools(pools, LabelConfig(method="math-shepherd"), clean, [_cfg(tiny_base, batch_size=3)], progress=False)
    labeler = build_labelers(["math-shepherd"], [_cfg(tiny_base, batch_size=24)])[0]
    backend, calls = labeler.roller.backend, []
    inner = backend.generate_rendered

    def dies_at_third_call(prompts, cfg, seeds):
        if len(calls) == 2:
            raise RuntimeError("killed mid-batch")
        calls.append(len(prompts))
        return inner(prompts, cfg, seeds)

    backend.generate_rendered = dies_at_third_call
    out = {"math-shepherd": str(tmp_path / "ms.jsonl")}
    with pytest.raises(RuntimeError, match="killed"):
        run_labelers(pools, [labeler], out, progress=False)
    written = [json.loads(x) for x in Path(out["math-shepherd"]).read_text().splitlines()]
    expected = [json.loads(x) for x in clean.read_text().splitlines()]
    assert 0 < len(written) < len(expected)  # the problems done before the crash, each whole, in order
    assert [(r["trace_id"], r["scores"], r["cost"]) for r in written] == \
        [(r["trace_id"], r["scores"], r["cost"]) for r in expected[: len(written)]]
    backend.generate_rendered = inner
    report = run_labelers(pools, [labeler], out, progress=False)["math-shepherd"]
    assert report.resumed == len({r["problem_id"] for r in written})
    assert Path(out["math-shepherd"]).read_bytes() == clean.read_bytes()
