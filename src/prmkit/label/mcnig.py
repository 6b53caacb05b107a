"""Monte Carlo Net Information Gain step scores (MCNIG paper, mcnig_paper.txt sec 3.2.2 and appendix D).

    NetInfo_i = max_{y in C_q} I_i(y) - max_{y in W_q} I_i(y)
    MCNIG_i   = NetInfo_i - NetInfo_0                       (reference "step0", the paper's default)
    MCNIG_i   = NetInfo_i - NetInfo_{i-1}                   (reference "previous", appendix D)

`aggregation="mean"` replaces both maxima by means of I_i over each set (appendix D, table 8: worse by
8-15 points of balanced accuracy in the paper). The paper says "average of the alternative solutions'
likelihoods"; we average the log-likelihoods I_i (one reading of it; averaging probabilities would be a
log-mean-exp, which sits closer to the max).

Example: C = {a}, W = {b}; I(a) = [-5, -3, -1], I(b) = [-4, -4, -6]
    NetInfo = [-1, 1, 5]  ->  MCNIG (step0) = [2, 6];  MCNIG (previous) = [2, 4].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["ANSWER_SET_AGGREGATIONS", "REFERENCES", "mcnig", "net_information"]

ANSWER_SET_AGGREGATIONS: dict[str, Callable[[Sequence[float]], float]] = {
    "max": max,
    "mean": lambda xs: sum(xs) / len(xs),
}
REFERENCES = ("step0", "previous")


def net_information(info: list[list[float]], correct: Sequence[int], incorrect: Sequence[int],
                    aggregation: str = "max") -> list[float]:
    """NetInfo_i for i = 0..N. `info[i][a]` = I_i(y_a); `correct`/`incorrect` index the answers of C_q/W_q."""
    if not correct or not incorrect:
        raise ValueError("MCNIG needs at least one correct and one incorrect answer")
    agg = ANSWER_SET_AGGREGATIONS[aggregation]
    return [agg([row[a] for a in correct]) - agg([row[a] for a in incorrect]) for row in info]


def mcnig(info: list[list[float]], correct: Sequence[int], incorrect: Sequence[int],
          aggregation: str = "max", reference: str = "step0") -> list[float]:
    """MCNIG_1..MCNIG_N from the information table of one trace (rows i = 0..N)."""
    if reference not in REFERENCES:
        raise ValueError(f"reference must be one of {REFERENCES}, got {reference!r}")
    net = net_information(info, correct, incorrect, aggregation)
    if reference == "step0":
        return [v - net[0] for v in net[1:]]
    return [net[i] - net[i - 1] for i in range(1, len(net))]
