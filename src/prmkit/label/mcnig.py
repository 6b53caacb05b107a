"""Monte Carlo Net Information Gain step scores (MCNIG paper sec 3.2.2 and appendix D)."""

from collections.abc import Callable, Sequence

__all__ = ["ANSWER_SET_AGGREGATIONS", "REFERENCES", "mcnig", "net_information"]

ANSWER_SET_AGGREGATIONS: dict[str, Callable[[Sequence[float]], float]] = {"max": max,
                                                                          "mean": lambda xs: sum(xs) / len(xs)}
REFERENCES = ("step0", "previous")


def net_information(info: list[list[float]], correct: Sequence[int], incorrect: Sequence[int],
                    aggregation: str = "max") -> list[float]:
    """NetInfo_i = max_{y in C_q} I_i(y) - max_{y in W_q} I_i(y), i = 0..N (MCNIG paper sec 3.2.2); `info[i][a]` =
    I_i(y_a), `correct`/`incorrect` index C_q/W_q. "mean" averages the log-likelihoods I_i (appendix D)."""
    if not correct or not incorrect:
        raise ValueError("MCNIG needs at least one correct and one incorrect answer")
    agg = ANSWER_SET_AGGREGATIONS[aggregation]
    return [agg([row[a] for a in correct]) - agg([row[a] for a in incorrect]) for row in info]


def mcnig(info: list[list[float]], correct: Sequence[int], incorrect: Sequence[int],
          aggregation: str = "max", reference: str = "step0") -> list[float]:
    """MCNIG_i = NetInfo_i - NetInfo_0 (reference "step0", MCNIG paper sec 3.2.2) or NetInfo_i - NetInfo_{i-1}
    ("previous", appendix D), i = 1..N, from one trace's information table (rows i = 0..N).
    Example: C = {a}, W = {b}; I(a) = [-5, -3, -1], I(b) = [-4, -4, -6] -> NetInfo = [-1, 1, 5] ->
    step0 [2, 6], previous [2, 4]."""
    if reference not in REFERENCES:
        raise ValueError(f"reference must be one of {REFERENCES}, got {reference!r}")
    net = net_information(info, correct, incorrect, aggregation)
    if reference == "step0":
        return [v - net[0] for v in net[1:]]
    return [net[i] - net[i - 1] for i in range(1, len(net))]
