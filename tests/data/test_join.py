from prmkit.data.join import join_labels
from prmkit.data.records import Pool, Problem, StepLabels, Trace


def test_join_yields_every_trace_with_its_labels_or_none():
    pools = [Pool(Problem(f"p{k}", "q", "1"), [Trace(f"p{k}/{j}", f"p{k}", ["a"], "1") for j in range(2)])
             for k in range(2)]
    labels = [StepLabels("p1/0", "ig", [0.3], [0]), StepLabels("p0/1", "ig", [0.9], [1]),
              StepLabels("elsewhere", "ig", [0.1], [0])]
    rows = [(pool.problem.id, trace.id, lab and lab.labels) for pool, trace, lab in join_labels(pools, labels)]
    assert rows == [("p0", "p0/0", None), ("p0", "p0/1", [1]), ("p1", "p1/0", [0]), ("p1", "p1/1", None)]
    assert [lab for _, _, lab in join_labels(pools, None)] == [None] * 4
