from prmkit.data.records import Pool, Problem, Trace
from prmkit.evaluate.score import score_pools
from prmkit.models.scorer import score_items


class Lengths:
    """A StepScorer without a model: a step scores len(step) / 10."""

    def __init__(self):
        self.calls = []

    def score_steps(self, question, step_lists):
        self.calls.append((question, len(step_lists)))
        return [[len(s) / 10 for s in steps] for steps in step_lists]


def test_score_pools_takes_any_step_scorer_and_skips_done_traces():
    pools = [Pool(Problem("p0", "q0", "1"), [Trace("p0/0", "p0", ["ab", "abcd"], "1", True),
                                             Trace("p0/1", "p0", ["abc"], "2", False)]),
             Pool(Problem("p1", "q1", "1"), [Trace("p1/0", "p1", ["a"], "1", True)])]
    scorer, stats = Lengths(), {}
    records = list(score_pools(scorer, pools, "prod", "prm", skip={"p1/0"}, stats=stats))
    assert scorer.calls == [("q0", 2)] and stats["traces"] == 2
    assert [(r["id"], r["index"], r["step_scores"], r["kind"]) for r in records] == [
        ("p0/0", 0, [0.2, 0.4], "prm"), ("p0/1", 1, [0.3], "prm")]
    assert records[0]["score"] == 0.2 * 0.4 and records[1]["correct"] is False


def test_score_items_calls_score_steps_per_run_of_one_question():
    scorer = Lengths()
    items = [("q0", ["ab"]), ("q0", ["a", "abc"]), ("q1", ["abcd"]), ("q0", ["a"])]
    assert list(score_items(scorer, items)) == [(0, [0.2]), (1, [0.1, 0.3]), (2, [0.4]), (3, [0.1])]
    assert scorer.calls == [("q0", 2), ("q1", 1), ("q0", 1)]


class Reversed(Lengths):
    """A batching scorer that finishes its items last first (as length batching does for long-first input)."""

    def score_many(self, items):
        self.calls.append(len(items))
        return iter([(i, [len(s) / 10 for s in items[i][1]]) for i in reversed(range(len(items)))])


def test_score_pools_writes_input_order_whatever_order_the_scorer_finishes_in():
    pools = [Pool(Problem(f"p{i}", f"q{i}", "1"), [Trace(f"p{i}/{k}", f"p{i}", ["a" * (5 - i)] * (k + 1), "1", True)
                                                   for k in range(2)]) for i in range(3)]
    scorer = Reversed()
    records = list(score_pools(scorer, pools, "prod", "prm", window=4))
    assert [r["id"] for r in records] == ["p0/0", "p0/1", "p1/0", "p1/1", "p2/0", "p2/1"]
    assert scorer.calls == [4, 2]  # two windows
    assert records[5]["step_scores"] == [0.3, 0.3]
