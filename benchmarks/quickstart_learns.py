"""Does the README's Python pipeline end with a PRM that learned? Runs the README's ```python block that makes bench
data, trains and scores, as written (the embedded model), then prints what the PRM does on the held-out problems'
steps: step accuracy at 0.5 against the majority class, the mean score of right and of wrong steps, accuracy per
slip kind, the best-of-K table and its warnings, the wall time and the load average.

The block writes into `runs/` of the folder it runs in, the current one unless `--workdir` names another, so the
README's next command (`prmkit export-hf --model runs/prm --output runs/prm_hf`) finds the PRM where it says.

    python3 benchmarks/quickstart_learns.py                     # into ./runs/, as the README's block
    python3 benchmarks/quickstart_learns.py --workdir /tmp/qs   # into /tmp/qs/runs/

As with the block itself, a second run into the same folder is refused where it would train over `runs/prm`: remove
`runs/` or give another --workdir.

Exit status 1 when the PRM did not learn: held-out step accuracy under the majority class + 0.05, right steps not
scored 0.1 above wrong ones on average, or a warning that it calls every step right or wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import time
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_pipeline() -> str:
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
              if "api.bench_set" in b]
    if len(blocks) != 1:
        raise SystemExit(f"README.md has {len(blocks)} python blocks with api.bench_set, expected 1")
    return blocks[0]


def held_out_figures(scores: Path, truth: Path) -> dict[str, object]:
    """Step accuracy at 0.5 against the true labels, the majority class, mean scores of right / wrong steps, and
    accuracy per slip kind of the trace ("right": the right trace)."""
    labels = {r["trace_id"]: r for r in map(json.loads, truth.read_text().splitlines())}
    steps = [(s, y, labels[r["id"]]["params"]["slip"] or "right")
             for r in map(json.loads, scores.read_text().splitlines())
             for s, y in zip(r["step_scores"], labels[r["id"]]["labels"], strict=True)]
    right, wrong = [s for s, y, _ in steps if y], [s for s, y, _ in steps if not y]
    acc = lambda rows: sum((s > 0.5) == bool(y) for s, y, *_ in rows) / len(rows)  # noqa: E731
    return {"steps": len(steps), "accuracy": acc(steps), "majority": max(len(right), len(wrong)) / len(steps),
            "right_mean": sum(right) / len(right), "wrong_mean": sum(wrong) / len(wrong),
            "by_slip": {k: round(acc([x for x in steps if x[2] == k]), 3) for k in sorted({x[2] for x in steps})}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default=".", help="the folder whose runs/ the README's block writes into "
                                                   "(default: the current one, as the README runs it)")
    args = ap.parse_args(argv)
    from prmkit.data.warn import PrmkitWarning

    work = Path(args.workdir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(work)
    code = readme_pipeline()
    out = io.StringIO()
    start, load = time.perf_counter(), os.getloadavg()[0]
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrmkitWarning)
        exec(compile(code, "README.md", "exec"), {})
    seconds = time.perf_counter() - start
    said = [str(w.message) for w in caught if issubclass(w.category, PrmkitWarning)]
    figures = held_out_figures(Path("runs/test_scores.jsonl"), Path("runs/test_truth.jsonl"))
    print(out.getvalue())
    print(*(f"warning: {w}" for w in said), sep="\n")
    print(f"held-out: {figures['steps']} steps, accuracy {figures['accuracy']:.3f} (majority class "
          f"{figures['majority']:.3f}); mean score right {figures['right_mean']:.3f}, wrong "
          f"{figures['wrong_mean']:.3f}; by trace kind {figures['by_slip']}")
    print(f"wall {seconds:.0f} s (load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end); "
          f"in {work / 'runs'}")
    learned = (figures["accuracy"] >= figures["majority"] + 0.05
               and figures["right_mean"] >= figures["wrong_mean"] + 0.1 and not [w for w in said if "every step" in w])
    print("the PRM learned" if learned else "the PRM did NOT learn")
    return 0 if learned else 1


if __name__ == "__main__":
    sys.exit(main())
