"""A battery of hostile but realistic inputs across the verbs, run through the real CLI, each judged by what the user
sees: clear error, handled well, data loss, silent wrong result, traceback, vague message, runaway.

    python3 benchmarks/hostile_inputs.py                      # the prmkit on PYTHONPATH; prints the table
    python3 benchmarks/hostile_inputs.py --src /tmp/old/src   # another tree's prmkit (a before/after comparison)
    python3 benchmarks/hostile_inputs.py --only export --json out.json

A case runs `prmkit ARGS` in a fresh work folder (`tests/label/step_length`'s `length` labeler registered, a tiny
random Llama and a tiny reward checkpoint at hand) and is judged in this order:
- runaway: over its time limit, or a peak RSS over 2 GB (`/usr/bin/time`);
- data loss: a file the user gave as an input changed (bytes) or vanished;
- traceback: "Traceback" on stderr;
- for a case that must be refused (`bad`): exit 0 is a silent wrong result; a non-zero exit whose message has none
  of the case's words (what is wrong) is a vague message; otherwise a clear error;
- for a case that must work (`good`): exit 0 and the case's check is handled well; exit 0 and the check fails is a
  silent wrong result; a clear refusal is a clear error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
VERDICTS = ("clear error", "handled well", "data loss", "silent wrong result", "traceback", "vague message",
            "runaway")
RSS_LIMIT_KB = 2 * 1024 * 1024


@dataclass
class Case:
    name: str
    verb: str
    args: list[str] | Callable[[Path], list[str]]
    bad: bool = True  # the input is wrong: it must be refused
    words: tuple[str, ...] = ()  # a clear message names one of these (case-insensitive)
    inputs: tuple[str, ...] = ()  # files (relative to the work folder) that must keep their bytes
    setup: Callable[[Path], None] | None = None
    check: Callable[[Path, subprocess.CompletedProcess], bool] | None = None  # for a good case
    timeout: int = 120
    background: Callable[[Path], list[str]] | None = None  # a process started before the case (e.g. a lock holder)


@dataclass
class Result:
    case: str
    verb: str
    verdict: str
    rc: int | None
    seconds: float
    rss_mb: float
    message: str = ""
    extra: dict = field(default_factory=dict)


# --- the files every case can use --------------------------------------------------------------------------------

def pool(pid: str, traces: list[tuple[list[str], str, object]], question: str = "Tom has 3 apples and buys 4 more . "
         "How many apples does he have now ?", answer: str = "7") -> dict:
    return {"problem": {"id": pid, "question": question, "answer": answer},
            "traces": [{"id": f"{pid}/{k}", "problem_id": pid, "steps": s, "answer": a, "correct": c}
                       for k, (s, a, c) in enumerate(traces)]}


def pools(n: int = 4) -> list[dict]:
    return [pool(f"p{k}", [(["3 + 4 = 7", "the answer is 7"], "7", True), (["3 + 4 = 8", "the answer is 8"], "8",
                                                                           False),
                           (["3 * 4 = 12", "the answer is 12"], "12", False), (["4 + 3 = 7", "so 7"], "7", True)])
            for k in range(n)]


def labels_for(ps: list[dict], method: str = "length") -> list[dict]:
    out = []
    for p in ps:
        for t in p["traces"]:
            scores = [float(len(s)) for s in t["steps"]]
            out.append({"trace_id": t["id"], "method": method, "scores": scores,
                        "labels": [1 if s > 9 else 0 for s in scores], "threshold": 9.0, "params": {},
                        "correct": t["correct"], "problem_id": p["problem"]["id"]})
    return out


def score_records(ps: list[dict], bias: float = 0.0) -> list[dict]:
    out = []
    for p in ps:
        for k, t in enumerate(p["traces"]):
            s = (0.9 if t["correct"] else 0.2) + bias * k
            out.append({"id": t["id"], "problem_id": p["problem"]["id"], "index": k, "answer": t["answer"],
                        "correct": t["correct"], "kind": "prm", "step_scores": [s, s], "aggregation": "prod",
                        "score": s * s})
    return out


def write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def base_files(work: Path, assets: Path) -> None:
    ps = pools(6)
    write(work / "pools.jsonl", ps)
    write(work / "labels.jsonl", labels_for(ps))
    write(work / "scores.jsonl", score_records(ps))
    write(work / "scores2.jsonl", score_records(ps, 0.01))
    write(work / "problems.jsonl", [{"question": f"What is {k} + 3 ?", "answer": f"#### {k + 3}"} for k in range(4)])
    bench = [{"id": f"b{k}", "problem": "What is 3 + 4 ?", "steps": ["3 + 4 = 7", f"so {7 + k % 2}"],
              "label": -1 if k % 2 == 0 else 1, "final_answer_correct": k % 2 == 0} for k in range(8)]
    write(work / "bench.jsonl", bench)
    write(work / "bench_scores.jsonl", [{"id": f"b{k}", "problem_id": f"b{k}", "index": 0, "answer": "7",
                                         "correct": True, "kind": "prm", "step_scores": [0.9, 0.8 - 0.5 * (k % 2)],
                                         "aggregation": "prod", "score": 0.5} for k in range(8)])
    (work / "file").write_text("not a folder\n")
    (work / "adir").mkdir()
    for name in ("tiny", "ckpt"):
        os.symlink(assets / name, work / name)


def make_assets(assets: Path) -> None:
    """The tiny random Llama (context 512) and a prm reward checkpoint made from it (made with the prmkit of this
    tree: the checkpoint format is the same in every version compared)."""
    if (assets / "ckpt" / "prmkit_reward.json").is_file():
        return
    sys.path[:0] = [str(ROOT / "src"), str(TESTS)]
    from helpers import make_tiny_base
    from prmkit.models.reward import RewardModel, RewardModelConfig

    make_tiny_base(assets / "tiny")
    RewardModel.from_base(str(assets / "tiny"), RewardModelConfig(kind="prm")).save_pretrained(assets / "ckpt")


# --- the cases ---------------------------------------------------------------------------------------------------

def text(work: Path, name: str, body: str | bytes) -> None:
    (work / name).write_bytes(body if isinstance(body, bytes) else body.encode())


def jsonl(name: str, records: Callable[[], list[dict]]) -> Callable[[Path], None]:
    return lambda work: write(work / name, records())


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def mutate_pools(fn: Callable[[list[dict]], None]) -> Callable[[], list[dict]]:
    def build() -> list[dict]:
        ps = pools(4)
        fn(ps)
        return ps
    return build


def mutate_labels(fn: Callable[[list[dict]], None]) -> Callable[[], list[dict]]:
    def build() -> list[dict]:
        labs = labels_for(pools(6))
        fn(labs)
        return labs
    return build


def mutate_scores(fn: Callable[[list[dict]], None]) -> Callable[[], list[dict]]:
    def build() -> list[dict]:
        recs = score_records(pools(6))
        fn(recs)
        return recs
    return build


def setv(records: list[dict], index: int, key: str, value: object) -> None:
    records[index][key] = value


def big_step(n: int) -> Callable[[], list[dict]]:
    return lambda: [pool("big", [(["3 + 4 = 7", "x " * (n // 2)], "7", True), (["3 + 4 = 8"], "8", False)])]


def symlink(name: str, target: str) -> Callable[[Path], None]:
    return lambda work: os.symlink(work / target, work / name)


def hardlink(name: str, target: str) -> Callable[[Path], None]:
    return lambda work: os.link(work / target, work / name)


def lock_holder(path: str) -> Callable[[Path], list[str]]:
    code = ("import sys, time; from prmkit.data.locks import output_lock\n"
            "with output_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(30)")
    return lambda work: [sys.executable, "-c", code, str(work / path)]


def both(*fns: Callable[[Path], None]) -> Callable[[Path], None]:
    def run(work: Path) -> None:
        for fn in fns:
            fn(work)
    return run


OUT_WORDS = ("same file", "input", "overwrit", "same path")
LOCK_WORDS = ("being written", "another process", "lock")
LEN_WORDS = ("too long", "characters", "tokens", "limit", "context")


def exported_ok(work: Path, name: str = "t.jsonl") -> Callable[[Path, subprocess.CompletedProcess], bool]:
    return lambda w, done: (w / name).is_file() and len(lines(w / name)) == 24


def cases() -> list[Case]:
    C: list[Case] = []
    P, L, S = "pools.jsonl", "labels.jsonl", "scores.jsonl"
    lab = ["--method", "length", "--quiet"]

    # A. outputs that are inputs, symlinks, hard links, concurrent writers --------------------------------------
    C += [
        Case("export --output = --labels", "export", ["--pools", P, "--labels", L, "--output", L], words=OUT_WORDS,
             inputs=(P, L)),
        Case("export --output = --pools", "export", ["--pools", P, "--labels", L, "--output", P], words=OUT_WORDS,
             inputs=(P, L)),
        Case("export --output symlink to --labels", "export", ["--pools", P, "--labels", L, "--output", "link.jsonl"],
             words=OUT_WORDS, inputs=(P, L), setup=symlink("link.jsonl", L)),
        Case("export --output hard link of --labels", "export", ["--pools", P, "--labels", L, "--output", "hl.jsonl"],
             words=OUT_WORDS, inputs=(P, L), setup=hardlink("hl.jsonl", L)),
        Case("export parquet --output = --labels", "export", ["--pools", P, "--labels", L, "--output", L, "--format",
                                                             "parquet"], words=OUT_WORDS, inputs=(P, L)),
        Case("export --output = --pools via ./", "export", ["--pools", P, "--labels", L, "--output", f"./{P}"],
             words=OUT_WORDS, inputs=(P, L)),
        Case("generate --data F --output F", "generate", ["--data", "problems.jsonl", "--output", "problems.jsonl",
                                                         "--model", "tiny", "--k", "1", "--max-new-tokens", "4"],
             words=OUT_WORDS, inputs=("problems.jsonl",)),
        Case("generate --data F --raw F", "generate", ["--data", "problems.jsonl", "--output", "g.jsonl", "--raw",
                                                      "problems.jsonl", "--model", "tiny", "--k", "1",
                                                      "--max-new-tokens", "4"],
             words=OUT_WORDS, inputs=("problems.jsonl",)),
        Case("generate --output X --raw X", "generate", ["--data", "problems.jsonl", "--output", "g.jsonl", "--raw",
                                                        "g.jsonl", "--model", "tiny", "--k", "1",
                                                        "--max-new-tokens", "4"],
             words=("same file", "own path", "raw"), inputs=("problems.jsonl",)),
        Case("data synth --output X --labels X", "data", ["synth", "--problems", "5", "--output", "x.jsonl",
                                                         "--labels", "x.jsonl"], words=("same file", "own path")),
        Case("data synth --labels symlink to --output", "data", ["synth", "--problems", "5", "--output", "x.jsonl",
                                                                "--labels", "lx.jsonl"],
             words=("same file", "own path"), setup=both(lambda w: text(w, "x.jsonl", "old\n"),
                                                         symlink("lx.jsonl", "x.jsonl"))),
        Case("data corrupt --input G --output G", "data", ["corrupt", "--input", "problems.jsonl", "--output",
                                                          "problems.jsonl"], words=OUT_WORDS,
             inputs=("problems.jsonl",)),
        Case("data corrupt --output X --pools X", "data", ["corrupt", "--input", "problems.jsonl", "--output",
                                                          "c.jsonl", "--pools", "c.jsonl"],
             words=("same file", "own path"), inputs=("problems.jsonl",)),
        Case("label --input P --output P", "label", [*lab, "--input", P, "--output", P], words=OUT_WORDS,
             inputs=(P,)),
        Case("label --output symlink to --input", "label", [*lab, "--input", P, "--output", "lp.jsonl"],
             words=OUT_WORDS, inputs=(P,), setup=symlink("lp.jsonl", P)),
        Case("label --output = --tau-from", "label", [*lab, "--input", P, "--output", L, "--tau-from", L],
             words=OUT_WORDS, inputs=(P, L)),
        Case("threshold --choose-on L --apply-to L", "threshold", ["--choose-on", L, "--apply-to", L],
             words=("same file", "own path", "twice")),
        Case("threshold --tau nan", "threshold", ["--choose-on", L, "--tau", "nan"], words=("finite", "nan"),
             inputs=(L,)),
        Case("threshold --tau inf", "threshold", ["--choose-on", L, "--tau", "inf"], words=("finite", "inf"),
             inputs=(L,)),
        Case("threshold --tau -inf --apply-to", "threshold", ["--choose-on", L, "--tau=-inf", "--apply-to",
                                                             "l2.jsonl"], words=("finite", "inf"),
             inputs=(L, "l2.jsonl"), setup=jsonl("l2.jsonl", lambda: labels_for(pools(6)))),
        Case("verify P --output P", "verify", [P, "--output", P], words=OUT_WORDS, inputs=(P,)),
        Case("verify --output symlink to P", "verify", [P, "--output", "vp.jsonl"], words=OUT_WORDS, inputs=(P,),
             setup=symlink("vp.jsonl", P)),
        Case("score --input P --output P", "score", ["--model", "ckpt", "--input", P, "--output", P],
             words=OUT_WORDS, inputs=(P,)),
        Case("score --output symlink to --input", "score", ["--model", "ckpt", "--input", P, "--output", "sp.jsonl"],
             words=OUT_WORDS, inputs=(P,), setup=symlink("sp.jsonl", P)),
        Case("view --pools P --output P", "view", ["--pools", P, "--output", P], words=OUT_WORDS, inputs=(P,)),
        Case("view --labels L --output L", "view", ["--pools", P, "--labels", L, "--output", L], words=OUT_WORDS,
             inputs=(P, L)),
        Case("bok --output = --scores", "evaluate", ["bok", "--scores", S, "--output", S], words=OUT_WORDS,
             inputs=(S,)),
        Case("bok --plot = --scores", "evaluate", ["bok", "--scores", S, "--plot", S], words=OUT_WORDS,
             inputs=(S,)),
        Case("bok --output = --plot", "evaluate", ["bok", "--scores", S, "--plot", "r.png", "--output", "r.png"],
             words=("same file", "own path")),
        Case("processbench --output = --benchmark", "evaluate", ["processbench", "--benchmark", "bench.jsonl",
                                                                "--scores", "bench_scores.jsonl", "--choose-on",
                                                                "0:4", "--report-on", "4:", "--output",
                                                                "bench.jsonl"], words=OUT_WORDS,
             inputs=("bench.jsonl",)),
        Case("processbench --output = --scores", "evaluate", ["processbench", "--benchmark", "bench.jsonl",
                                                             "--scores", "bench_scores.jsonl", "--choose-on", "0:4",
                                                             "--report-on", "4:", "--output",
                                                             "bench_scores.jsonl"], words=OUT_WORDS,
             inputs=("bench_scores.jsonl",)),
        Case("rollout --input P --output P", "rollout", ["--input", P, "--output", P, "--model", "tiny", "--k", "1",
                                                        "--max-new-tokens", "4"], words=OUT_WORDS, inputs=(P,)),
        Case("search --input P --output P", "search", ["beam", "--input", P, "--output", P, "--model", "tiny",
                                                      "--prm", "ckpt", "--k", "2", "--max-new-tokens", "4"],
             words=OUT_WORDS, inputs=(P,)),
        Case("train --pools P --output P", "train", ["prm", "--pools", P, "--labels", L, "--output", P, "--model",
                                                    "tiny", "--epochs", "1"],
             words=("not a directory", "same file", "input"), inputs=(P, L)),
        Case("rl --data P --output P", "rl", ["grpo", "--data", "problems.jsonl", "--output", "problems.jsonl",
                                             "--model", "tiny", "--steps", "1", "--heldout-range", "0:1"],
             words=("not a directory", "same file", "input"), inputs=("problems.jsonl",)),
        Case("pum --output-dir is the input file", "pum", ["--input", P, "--output-dir", P, "--students", "tiny"],
             words=("not a directory", "same file", "input"), inputs=(P,)),
        Case("export jsonl while another process writes the output", "export",
             ["--pools", P, "--labels", L, "--output", "busy.jsonl"], words=LOCK_WORDS, inputs=(P, L),
             setup=lambda w: text(w, "busy.jsonl", "keep\n"), background=lock_holder("busy.jsonl"),
             check=lambda w, d: (w / "busy.jsonl").read_text() == "keep\n"),
        Case("export parquet while another process writes the output", "export",
             ["--pools", P, "--labels", L, "--output", "busy.parquet", "--format", "parquet"], words=LOCK_WORDS,
             inputs=(P, L), setup=lambda w: text(w, "busy.parquet", "keep\n"), background=lock_holder("busy.parquet")),
        Case("label through a symlinked name while the real one is written", "label",
             [*lab, "--input", P, "--output", "alias.jsonl"], words=LOCK_WORDS, inputs=(P,),
             setup=both(lambda w: text(w, "real.jsonl", ""), symlink("alias.jsonl", "real.jsonl")),
             background=lock_holder("real.jsonl")),
        Case("data synth while another process writes its labels", "data",
             ["synth", "--problems", "5", "--output", "sx.jsonl", "--labels", "sl.jsonl"], words=LOCK_WORDS,
             background=lock_holder("sl.jsonl")),
        Case("threshold while label still writes the file", "threshold", ["--choose-on", L], words=LOCK_WORDS,
             inputs=(L,), background=lock_holder(L)),
        Case("export through a symlinked output (not an input): written through the link", "export",
             ["--pools", P, "--labels", L, "--output", "out_link.jsonl"], bad=False, inputs=(P, L),
             setup=both(lambda w: (w / "real_out").mkdir(), lambda w: os.symlink(w / "real_out" / "t.jsonl",
                                                                                  w / "out_link.jsonl")),
             check=lambda w, d: (w / "out_link.jsonl").is_symlink() and len(lines(w / "real_out" / "t.jsonl")) == 24),
    ]

    # B. records: types, values, ids ----------------------------------------------------------------------------
    def bok(scores: str = "bad.jsonl", *extra: str) -> list[str]:
        return ["bok", "--scores", f"M={scores}", *extra]

    C += [
        Case("bok: correct is the string 'false'", "evaluate", bok(),
             words=("correct", "bool"), inputs=("bad.jsonl",),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: [x.__setitem__("correct", str(x["correct"]).lower())
                                                                for x in r]))),
        Case("bok: correct is 'yes'", "evaluate", bok(), words=("correct", "bool"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: setv(r, 3, "correct", "yes")))),
        Case("bok: correct is 1", "evaluate", bok(), words=("correct", "bool"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: setv(r, 1, "correct", 1)))),
        Case("bok: a duplicated record", "evaluate", bok(), words=("again", "duplicate", "repeat"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: r.append(dict(r[2]))))),
        Case("bok: NaN score", "evaluate", bok(), words=("nan", "finite"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: setv(r, 0, "score", float("nan"))))),
        Case("bok: all scores NaN", "evaluate", bok(), words=("nan", "finite"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: [x.__setitem__("score", float("nan")) for x in r]))),
        Case("bok: Infinity score", "evaluate", bok(), words=("inf", "finite"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: setv(r, 0, "score", float("inf"))))),
        Case("bok: NaN step score re-aggregated", "evaluate", bok("bad.jsonl", "--aggregation", "min"),
             words=("nan", "finite"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: setv(r, 0, "step_scores", [float("nan"), 0.5])))),
        Case("bok: score is a string", "evaluate", bok(), words=("score", "number")),
        Case("bok: empty file", "evaluate", bok(), words=("empty", "no score"), setup=lambda w: text(w, "bad.jsonl",
                                                                                                   "")),
        Case("bok: blank lines only", "evaluate", bok(), words=("empty", "no score"),
             setup=lambda w: text(w, "bad.jsonl", "\n\n  \n")),
        Case("bok: record without problem_id", "evaluate", bok(), words=("problem_id",),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: r[0].pop("problem_id")))),
        Case("bok: a label file as scores", "evaluate", bok(L), words=("not a score record", "score")),
        Case("bok: a directory as scores", "evaluate", bok("adir"), words=("directory",)),
        Case("bok: scores file missing", "evaluate", bok("nope.jsonl"), words=("not found", "no such", "nope")),
        Case("bok: a binary file", "evaluate", bok(), words=("utf-8", "not utf", "binary"),
             setup=lambda w: text(w, "bad.jsonl", b"\x89PNG\r\n\x1a\n\x00\xff")),
        Case("bok: truncated JSON line", "evaluate", bok(), words=("invalid json", "json"),
             setup=lambda w: text(w, "bad.jsonl", json.dumps(score_records(pools(1))[0])[:40] + "\n")),
        Case("bok: two files with other traces", "evaluate", ["bok", "--scores", f"A={S}", "--scores", "B=bad.jsonl"],
             words=("differ", "traces"),
             setup=jsonl("bad.jsonl", mutate_scores(lambda r: setv(r, 0, "id", "zz")))),
        Case("bok: normal run", "evaluate", ["bok", "--scores", f"A={S}", "--scores", "B=scores2.jsonl",
                                             "--bootstrap", "50"], bad=False,
             check=lambda w, d: "oracle" in d.stdout and "100.0" in d.stdout),
        Case("threshold: NaN score in the file", "threshold", ["--choose-on", "bad.jsonl"], words=("nan", "finite"),
             inputs=("bad.jsonl",), setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 0, "scores",
                                                                                          [float("nan"), 1.0])))),
        Case("threshold: all scores NaN", "threshold", ["--choose-on", "bad.jsonl"], words=("nan", "finite"),
             inputs=("bad.jsonl",),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: [x.__setitem__("scores", [float("nan")] * 2)
                                                               for x in r]))),
        Case("threshold: correct is 'false'", "threshold", ["--choose-on", "bad.jsonl"], words=("correct", "bool"),
             inputs=("bad.jsonl",), setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 1, "correct", "false")))),
        Case("threshold: labels 7", "threshold", ["--choose-on", "bad.jsonl"], words=("0 or 1", "label"),
             inputs=("bad.jsonl",), setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 1, "labels", [7, 1])))),
        Case("threshold: empty file", "threshold", ["--choose-on", "bad.jsonl"], words=("empty", "no record", "no "),
             inputs=("bad.jsonl",), setup=lambda w: text(w, "bad.jsonl", "")),
        Case("threshold: a pools file", "threshold", ["--choose-on", P], words=("trace_id", "unknown field", "field"),
             inputs=(P,)),
        Case("threshold: no verdicts at all", "threshold", ["--choose-on", "bad.jsonl"],
             words=("verdict", "correct", "cannot be chosen"), inputs=(),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: [x.__setitem__("correct", None) for x in r])),
             check=lambda w, d: "warning" in d.stderr.lower(), bad=False),
        Case("threshold: normal run", "threshold", ["--choose-on", L], bad=False,
             check=lambda w, d: '"tau"' in d.stdout and len(lines(w / L)) == 24),
        Case("export: labels 7 and -3", "export", ["--pools", P, "--labels", "bad.jsonl", "--output", "t.jsonl"],
             words=("0 or 1", "label"), inputs=("bad.jsonl",),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: (setv(r, 0, "labels", [7, 1]),
                                                               setv(r, 5, "labels", [-3, 0]))))),
        Case("export: NaN score (trl-soft)", "export", ["--pools", P, "--labels", "bad.jsonl", "--output", "t.jsonl",
                                                        "--format", "trl-soft"], words=("nan", "finite"),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 0, "scores", [float("nan"), 1.0])))),
        Case("export: threshold NaN in a record", "export", ["--pools", P, "--labels", "bad.jsonl", "--output",
                                                             "t.jsonl", "--format", "trl-soft"],
             words=("nan", "finite"),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 0, "threshold", float("nan"))))),
        Case("export: fewer labels than scores", "export", ["--pools", P, "--labels", "bad.jsonl", "--output",
                                                            "t.jsonl"], words=("labels", "steps", "scores"),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 0, "labels", [1])))),
        Case("export: a trace whose problem_id is not its pool's", "export",
             ["--pools", "bad.jsonl", "--labels", L, "--output", "t.jsonl"], words=("problem_id", "pool"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[1]["traces"][0].__setitem__("problem_id", "p0")))),
        Case("export: a trace id twice in a pool", "export", ["--pools", "bad.jsonl", "--labels", L, "--output",
                                                              "t.jsonl"], words=("repeat", "twice", "unique", "again"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[0]["traces"][1].__setitem__("id", "p0/0")))),
        Case("export: a trace id in two pools", "export", ["--pools", "bad.jsonl", "--labels", L, "--output",
                                                           "t.jsonl"], words=("unique", "also a trace", "repeat"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[1]["traces"][0].__setitem__("id", "p0/0")))),
        Case("export: a pools file as labels", "export", ["--pools", P, "--labels", P, "--output", "t.jsonl"],
             words=("trace_id", "field", "missing")),
        Case("export: labels of other pools", "export", ["--pools", P, "--labels", "bad.jsonl", "--output",
                                                         "t.jsonl"], words=("no labeled trace", "match"),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: [x.__setitem__("trace_id", "q" + x["trace_id"])
                                                               for x in r]))),
        Case("export: normal run", "export", ["--pools", P, "--labels", L, "--output", "t.jsonl"], bad=False,
             check=exported_ok(Path("."))),
        Case("export: normal parquet", "export", ["--pools", P, "--labels", L, "--output", "t.parquet", "--format",
                                                  "parquet"], bad=False,
             check=lambda w, d: (w / "t.parquet").stat().st_size > 0),
        Case("label: a trace id in two pools", "label", [*lab, "--input", "bad.jsonl", "--output", "o.jsonl"],
             words=("unique", "also a trace", "repeat"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[1]["traces"][0].__setitem__("id", "p0/0")))),
        Case("label: a trace of another problem", "label", [*lab, "--input", "bad.jsonl", "--output", "o.jsonl"],
             words=("problem_id", "pool"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[2]["traces"][0].__setitem__("problem_id", "p9")))),
        Case("label: correct is 'false'", "label", [*lab, "--input", "bad.jsonl", "--output", "o.jsonl"],
             words=("correct", "bool"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[0]["traces"][1].__setitem__("correct", "false")))),
        Case("label: steps not a list", "label", [*lab, "--input", "bad.jsonl", "--output", "o.jsonl"],
             words=("steps", "list")),
        Case("label: a line that is a list", "label", [*lab, "--input", "bad.jsonl", "--output", "o.jsonl"],
             words=("object", "list")),
        Case("label: normal run", "label", [*lab, "--input", P, "--output", "o.jsonl"], bad=False,
             check=lambda w, d: len(lines(w / "o.jsonl")) == 24),
        Case("label: resumed run adds nothing", "label", [*lab, "--input", P, "--output", "o.jsonl"], bad=False,
             setup=None, check=lambda w, d: len(lines(w / "o.jsonl")) == 24 and '"resumed": 6' in d.stdout),
        Case("verify: correct is 'yes'", "verify", ["bad.jsonl"], words=("correct", "bool"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[0]["traces"][0].__setitem__("correct", "yes")))),
        Case("verify: normal with --output", "verify", [P, "--output", "v.jsonl"], bad=False,
             check=lambda w, d: len(lines(w / "v.jsonl")) == 6),
        Case("processbench: NaN step score", "evaluate", ["processbench", "--benchmark", "bench.jsonl", "--scores",
                                                          "bad.jsonl", "--choose-on", "0:4", "--report-on", "4:"],
             words=("nan", "finite"),
             setup=lambda w: write(w / "bad.jsonl", [dict(r, step_scores=[float("nan"), 0.5]) for r in
                                                     lines(w / "bench_scores.jsonl")])),
        Case("processbench: a duplicated id", "evaluate", ["processbench", "--benchmark", "bench.jsonl", "--scores",
                                                           "bad.jsonl", "--choose-on", "0:4", "--report-on", "4:"],
             words=("again", "duplicate", "twice"),
             setup=lambda w: write(w / "bad.jsonl", [*lines(w / "bench_scores.jsonl"),
                                                     lines(w / "bench_scores.jsonl")[0]])),
        Case("processbench: empty scores", "evaluate", ["processbench", "--benchmark", "bench.jsonl", "--scores",
                                                        "bad.jsonl", "--choose-on", "0:4", "--report-on", "4:"],
             words=("empty", "no score"), setup=lambda w: text(w, "bad.jsonl", "")),
        Case("processbench: normal run", "evaluate", ["processbench", "--benchmark", "bench.jsonl", "--scores",
                                                      "bench_scores.jsonl", "--choose-on", "0:4", "--report-on",
                                                      "4:"], bad=False, check=lambda w, d: "F1" in d.stdout
             or "f1" in d.stdout.lower()),
        Case("view: NaN score in labels", "view", ["--pools", P, "--labels", "bad.jsonl", "--output", "v.html"],
             words=("nan", "finite"),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 0, "scores", [float("nan"), 1.0])))),
        Case("view: normal run", "view", ["--pools", P, "--labels", L, "--output", "v.html"], bad=False,
             check=lambda w, d: (w / "v.html").stat().st_size > 1000),
        Case("train: labels 7", "train", ["prm", "--pools", P, "--labels", "bad.jsonl", "--output", "ck", "--model",
                                          "tiny", "--epochs", "1"], words=("0 or 1", "label"),
             setup=jsonl("bad.jsonl", mutate_labels(lambda r: setv(r, 0, "labels", [7, 1])))),
        Case("train: trace of another problem", "train", ["prm", "--pools", "bad.jsonl", "--labels", L, "--output",
                                                          "ck", "--model", "tiny", "--epochs", "1"],
             words=("problem_id", "pool"),
             setup=jsonl("bad.jsonl", mutate_pools(lambda ps: ps[1]["traces"][0].__setitem__("problem_id", "p0")))),
    ]
    C[[c.name for c in C].index("bok: score is a string")].setup = jsonl(
        "bad.jsonl", mutate_scores(lambda r: setv(r, 2, "score", "0.5")))
    C[[c.name for c in C].index("label: steps not a list")].setup = jsonl(
        "bad.jsonl", mutate_pools(lambda ps: ps[0]["traces"][0].__setitem__("steps", "3 + 4 = 7")))
    C[[c.name for c in C].index("label: a line that is a list")].setup = lambda w: text(w, "bad.jsonl", "[1, 2]\n")
    resume = C[[c.name for c in C].index("label: resumed run adds nothing")]
    resume.setup = lambda w: subprocess.run(_cmd(w, "label", [*lab, "--input", P, "--output", "o.jsonl"]),
                                            cwd=w, env=_ENV, capture_output=True, timeout=120)

    # C. numeric flags -------------------------------------------------------------------------------------------
    gen = ["--data", "problems.jsonl", "--output", "g.jsonl", "--model", "tiny", "--max-new-tokens", "4", "--k", "1"]

    def flag(verb: str, base: list[str], name: str, value: str, words: tuple[str, ...], **kw: object) -> Case:
        return Case(f"{verb} {' '.join(base[:1]) if verb in ('evaluate', 'data', 'search', 'train', 'rl') else ''}"
                    f"{name} {value}".replace("  ", " "), verb, [*base, name, value], words=words, **kw)

    W = ("must be", "at least", "at most", "positive", "range")
    RL = ["grpo", "--data", "problems.jsonl", "--output", "rl", "--model", "tiny", "--heldout-range", "0:1"]
    C += [
        flag("label", [*lab, "--input", P, "--output", "o.jsonl"], "--limit", "0", ("limit", *W)),
        flag("label", [*lab, "--input", P, "--output", "o.jsonl"], "--limit", "-5", ("limit", *W)),
        flag("generate", gen, "--limit", "0", ("limit", *W)),
        flag("generate", gen, "--limit", "-5", ("limit", *W)),
        flag("generate", gen, "--k", "0", ("--k", *W)),
        flag("generate", gen, "--k", "-1", ("--k", *W)),
        flag("generate", gen, "--k", "100000", ("--k", *W)),
        flag("generate", gen, "--temperature", "-1", ("temperature", *W)),
        flag("generate", gen, "--temperature", "nan", ("temperature", "finite")),
        flag("generate", gen, "--top-p", "0", ("top-p", "top_p", *W)),
        flag("generate", gen, "--top-p", "1.5", ("top-p", "top_p", *W)),
        flag("generate", gen, "--batch-size", "0", ("batch", *W)),
        flag("generate", gen, "--max-new-tokens", "0", ("max-new-tokens", *W)),
        flag("generate", gen, "--seed", "-1", ("seed", *W)),
        flag("generate", gen, "--max-traces", "0", ("max-traces", *W)),
        flag("generate", gen, "--ray-actors", "0", ("ray-actors", *W)),
        flag("generate", gen, "--domain", "nosuch", ("domain", "unknown", "nosuch")),
        flag("rollout", ["--input", P, "--output", "r.jsonl", "--model", "tiny", "--max-new-tokens", "4"], "--k",
             "0", ("--k", *W)),
        flag("rollout", ["--input", P, "--output", "r.jsonl", "--model", "tiny", "--max-new-tokens", "4"],
             "--positions", "-1", ("positions", *W)),
        flag("rollout", ["--input", P, "--output", "r.jsonl", "--model", "tiny", "--max-new-tokens", "4"], "--limit",
             "0", ("limit", *W)),
        flag("search", ["beam", "--input", P, "--output", "s.jsonl", "--model", "tiny", "--prm", "ckpt"], "--k", "0",
             ("--k", "N =", *W)),
        flag("search", ["beam", "--input", P, "--output", "s.jsonl", "--model", "tiny", "--prm", "ckpt"], "--width",
             "0", ("width", "N =", *W)),
        flag("search", ["beam", "--input", P, "--output", "s.jsonl", "--model", "tiny", "--prm", "ckpt"],
             "--max-steps", "0", ("max_steps", "max-steps", *W)),
        flag("search", ["beam", "--input", P, "--output", "s.jsonl", "--model", "tiny", "--prm", "ckpt"],
             "--temperature", "-1", ("temperature", *W)),
        flag("search", ["beam", "--input", P, "--output", "s.jsonl", "--model", "tiny", "--prm", "ckpt"],
             "--limit", "-2", ("limit", *W)),
        flag("label", ["--method", "math-shepherd", "--quiet", "--input", P, "--output", "o.jsonl", "--model", "tiny"],
             "--k", "0", ("--k", *W)),
        flag("label", ["--method", "math-shepherd", "--quiet", "--input", P, "--output", "o.jsonl", "--model", "tiny"],
             "--rollouts", "100000", ("--k", "rollouts", *W)),
        flag("label", ["--method", "mcnig", "--quiet", "--input", P, "--output", "o.jsonl", "--model", "tiny"],
             "--max-batch-tokens", "0", ("max-batch-tokens", *W)),
        flag("label", ["--method", "mcnig", "--quiet", "--input", P, "--output", "o.jsonl", "--model", "tiny"],
             "--max-step-tokens", "0", ("max-step-tokens", *W)),
        flag("label", [*lab, "--input", P, "--output", "o.jsonl"], "--tau", "nan", ("tau", "finite")),
        flag("label", [*lab, "--input", P, "--output", "o.jsonl"], "--tau-from", "nope.jsonl",
             ("nope", "not found", "no such")),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--problems-range", "10:5",
             ("range", "start", "below")),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--problems-range", "abc",
             ("range", "START:STOP", "expected")),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--problems-range", "500:600",
             ("range", "selects none", "none of")),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--max-batch", "0",
             ("max-batch", *W)),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--window", "0", ("window", *W)),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--threads", "-1", ("threads", *W)),
        flag("score", ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], "--max-tokens", "0",
             ("max-tokens", *W)),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--epochs", "0",
             ("epochs", *W)),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--lr", "-1",
             ("lr", *W)),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--micro-batch", "0",
             ("micro-batch", *W)),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--problems-range",
             "10:5", ("range", "start", "below")),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--warmup", "2",
             ("warmup", *W)),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--held-out", "-1",
             ("held-out", *W)),
        flag("train", ["prm", "--pools", P, "--labels", L, "--output", "ck", "--model", "tiny"], "--batch-traces",
             "0", ("batch-traces", *W)),
        flag("rl", RL, "--steps", "0",
             ("steps", *W)),
        flag("rl", RL, "--group-size", "0",
             ("group-size", *W)),
        flag("rl", RL, "--problems-range",
             "10:5", ("range", "start", "below")),
        flag("rl", RL, "--temperature", "-1",
             ("temperature", *W)),
        flag("pum", ["--input", P, "--output-dir", "pum", "--students", "tiny"], "--k", "0", ("--k", *W)),
        flag("pum", ["--input", P, "--output-dir", "pum", "--students", "tiny"], "--margin-quantile", "2",
             ("margin-quantile", *W)),
        flag("pum", ["--input", P, "--output-dir", "pum", "--students", "tiny"], "--problems-range", "10:5",
             ("range", "start", "below", "selects none", "none of")),
        flag("data", ["synth", "--output", "sx.jsonl", "--labels", "sl.jsonl"], "--problems", "0", ("problems", *W)),
        flag("data", ["synth", "--output", "sx.jsonl", "--labels", "sl.jsonl"], "--wrong", "-1", ("wrong", *W)),
        flag("data", ["synth", "--output", "sx.jsonl", "--labels", "sl.jsonl"], "--wrong", "100000000",
             ("wrong", *W)),
        flag("data", ["synth", "--output", "sx.jsonl", "--labels", "sl.jsonl"], "--seed", "-3", ("seed", *W)),
        flag("data", ["corrupt", "--input", "problems.jsonl", "--output", "c.jsonl"], "--limit", "0",
             ("limit", *W)),
        flag("view", ["--pools", P, "--output", "v.html"], "--limit", "0", ("limit", *W)),
        flag("verify", [P], "--show", "-1", ("show", *W)),
        flag("evaluate", ["bok", "--scores", S], "--bootstrap", "0", ("bootstrap", *W)),
        flag("evaluate", ["bok", "--scores", S], "--bootstrap", "-1", ("bootstrap", *W)),
        flag("evaluate", ["bok", "--scores", S], "--max-subsets", "0", ("max-subsets", *W)),
        flag("evaluate", ["bok", "--scores", S], "--ks", "0", ("K", "ks", *W, "outside")),
        flag("evaluate", ["bok", "--scores", S], "--ks", "a,b", ("ks", "whole number", "comma")),
        flag("evaluate", ["bok", "--scores", S], "--ks", "100", ("K=", "outside", "largest pool")),
        flag("evaluate", ["bok", "--scores", S], "--problems-range", "10:5", ("range", "start", "below")),
        flag("evaluate", ["bok", "--scores", S], "--problems-range", "50:60", ("range", "selects none", "none of")),
        flag("evaluate", ["bok", "--scores", S], "--seed", "-1", ("seed", *W)),
        flag("evaluate", ["processbench", "--benchmark", "bench.jsonl", "--scores", "bench_scores.jsonl"],
             "--choose-on", "10:5", ("choose", "range", "start", "below")),
        flag("evaluate", ["processbench", "--benchmark", "bench.jsonl", "--scores", "bench_scores.jsonl",
                          "--choose-on", "0:4"], "--report-on", "abc", ("report", "range", "START:STOP")),
    ]

    # D. config files ------------------------------------------------------------------------------------------
    def conf(name: str, body: str | bytes, verb: str, base: list[str], words: tuple[str, ...], bad: bool = True,
             check: Callable | None = None) -> Case:
        return Case(name, verb, [*base, "--config", "run.yaml"], words=words, bad=bad, check=check,
                    setup=lambda w: text(w, "run.yaml", body), inputs=("run.yaml",))

    C += [
        conf("config: YAML syntax error", "k: [1, 2\nlimit: 3\n", "generate", gen[:-2], ("run.yaml:", "yaml")),
        conf("config: YAML bad indentation", "k: 2\n  limit: 3\n", "generate", gen[:-2], ("run.yaml:", "yaml")),
        conf("config: k is 'four'", "k: four\n", "generate", gen[:-2], ("run.yaml:1", "k", "whole number")),
        conf("config: limit is a list", "temperature: 1.0\nlimit: [1, 2]\n", "generate", gen[:-2],
             ("run.yaml:2", "limit")),
        conf("config: temperature is 'hot'", "temperature: hot\n", "generate", gen[:-2],
             ("run.yaml:1", "temperature", "number")),
        conf("config: binary file", b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "generate", gen[:-2],
             ("run.yaml", "yaml", "utf-8", "text")),
        conf("config: unknown key", "kk: 2\n", "generate", gen[:-2], ("unknown", "kk")),
        conf("config: a list, not a mapping", "- k\n- 2\n", "generate", gen[:-2], ("mapping",)),
        conf("config: problems_range 1:5 (YAML reads base 60: 65)", "problems_range: 1:5\n", "score",
             ["--model", "ckpt", "--input", P, "--output", "s.jsonl"], ("run.yaml:1", "problems_range", "text")),
        conf("config: tau .nan", "tau: .nan\n", "threshold", ["--choose-on", L], ("tau", "finite")),
        conf("config: limit as a quoted string", "limit: '5'\n", "label", [*lab, "--input", P, "--output", "o.jsonl"],
             ("run.yaml:1", "limit", "whole number")),
        conf("config: bootstrap 0 from the file", "bootstrap: 0\n", "evaluate", ["bok", "--scores", S],
             ("run.yaml:1", "bootstrap")),
        conf("config: empty file", "", "export", ["--pools", P, "--labels", L, "--output", "t.jsonl"], (), bad=False,
             check=lambda w, d: len(lines(w / "t.jsonl")) == 24),
        conf("config: synth problems from the file", "problems: 7\n", "data",
             ["synth", "--output", "sx.jsonl", "--labels", "sl.jsonl"], (), bad=False,
             check=lambda w, d: len(lines(w / "sx.jsonl")) == 7),
        Case("config: a directory", "generate", [*gen, "--config", "adir"], words=("directory", "adir")),
        Case("config: missing file", "generate", [*gen, "--config", "nope.yaml"], words=("nope.yaml", "no such",
                                                                                         "not found")),
    ]

    # E. paths -----------------------------------------------------------------------------------------------------
    C += [
        Case("verify: a directory as input", "verify", ["adir"], words=("directory",)),
        Case("label: a directory as --input", "label", [*lab, "--input", "adir", "--output", "o.jsonl"],
             words=("directory",)),
        Case("export: a directory as --pools", "export", ["--pools", "adir", "--labels", L, "--output", "t.jsonl"],
             words=("directory",)),
        Case("export: a directory as --labels", "export", ["--pools", P, "--labels", "adir", "--output", "t.jsonl"],
             words=("directory",)),
        Case("score: a directory as --input", "score", ["--model", "ckpt", "--input", "adir", "--output", "s.jsonl"],
             words=("directory",)),
        Case("threshold: a directory", "threshold", ["--choose-on", "adir"], words=("directory",)),
        Case("view: a directory as --pools", "view", ["--pools", "adir", "--output", "v.html"], words=("directory",)),
        Case("data synth --output under a file", "data", ["synth", "--problems", "3", "--output", "file/x.jsonl",
                                                          "--labels", "sl.jsonl"], words=("is a file",),
             inputs=("file",)),
        Case("data synth --labels under a file", "data", ["synth", "--problems", "3", "--output", "sx.jsonl",
                                                          "--labels", "file/x.jsonl"], words=("is a file",),
             inputs=("file",)),
        Case("data synth --output is a directory", "data", ["synth", "--problems", "3", "--output", "adir",
                                                            "--labels", "sl.jsonl"], words=("directory",)),
        Case("data corrupt --output under a file", "data", ["corrupt", "--input", "problems.jsonl", "--output",
                                                            "file/c.jsonl"], words=("is a file",), inputs=("file",)),
        Case("data corrupt --input missing", "data", ["corrupt", "--input", "nope.jsonl", "--output", "c.jsonl"],
             words=("nope.jsonl", "not found", "no such")),
        Case("export --output under a file", "export", ["--pools", P, "--labels", L, "--output", "file/t.jsonl"],
             words=("is a file",), inputs=("file",)),
        Case("export --output is a directory", "export", ["--pools", P, "--labels", L, "--output", "adir"],
             words=("directory",)),
        Case("view --output is a directory", "view", ["--pools", P, "--output", "adir"], words=("directory",)),
        Case("bok --output under a file", "evaluate", ["bok", "--scores", S, "--output", "file/r.json"],
             words=("is a file",), inputs=("file",)),
        Case("bok --plot under a file", "evaluate", ["bok", "--scores", S, "--plot", "file/r.png"],
             words=("is a file",), inputs=("file",)),
        Case("label --output under a file", "label", [*lab, "--input", P, "--output", "file/o.jsonl"],
             words=("is a file",), inputs=("file",)),
        Case("train --output is a file", "train", ["prm", "--pools", P, "--labels", L, "--output", "file", "--model",
                                                   "tiny", "--epochs", "1"], words=("not a directory",),
             inputs=("file",)),
        Case("score --model is a file", "score", ["--model", "file", "--input", P, "--output", "s.jsonl"],
             words=("checkpoint", "not a directory")),
        Case("score --model missing", "score", ["--model", "nope", "--input", P, "--output", "s.jsonl"],
             words=("not found", "checkpoint", "nope")),
        Case("score --model is a base model, not a checkpoint", "score", ["--model", "tiny", "--input", P, "--output",
                                                                         "s.jsonl"], words=("checkpoint",
                                                                                            "prmkit_reward")),
        Case("pum --output-dir under a file", "pum", ["--input", P, "--output-dir", "file/pum", "--students", "tiny"],
             words=("is a file", "not a directory"), inputs=("file",)),
        Case("rl --output under a file", "rl", ["grpo", "--data", "problems.jsonl", "--output", "file/rl", "--model",
                                                "tiny", "--steps", "1", "--heldout-range", "0:1"],
             words=("is a file", "not a directory"),
             inputs=("file",)),
        Case("search --output under a file", "search", ["beam", "--input", P, "--output", "file/s.jsonl", "--model",
                                                        "tiny", "--prm", "ckpt"], words=("is a file",),
             inputs=("file",)),
        Case("rollout --output under a file", "rollout", ["--input", P, "--output", "file/r.jsonl", "--model", "tiny",
                                                          "--k", "1"], words=("is a file",), inputs=("file",)),
        Case("generate --output under a file", "generate", ["--data", "problems.jsonl", "--output", "file/g.jsonl",
                                                            "--model", "tiny", "--k", "1"], words=("is a file",),
             inputs=("file",)),
        Case("label: input file missing", "label", [*lab, "--input", "nope.jsonl", "--output", "o.jsonl"],
             words=("not found", "nope")),
        Case("label: empty input", "label", [*lab, "--input", "e.jsonl", "--output", "o.jsonl"],
             words=("no records", "empty"), setup=lambda w: text(w, "e.jsonl", "")),
        Case("label: binary input", "label", [*lab, "--input", "b.jsonl", "--output", "o.jsonl"],
             words=("utf-8", "binary"), setup=lambda w: text(w, "b.jsonl", b"\x00\xff\xfe")),
        Case("label: unknown method", "label", ["--method", "nosuch", "--input", P, "--output", "o.jsonl"],
             words=("nosuch", "unknown")),
        Case("export: unknown format", "export", ["--pools", P, "--labels", L, "--output", "t.jsonl", "--format",
                                                  "csv"], words=("csv", "format")),
        Case("verify: without --output (a report only)", "verify", [P], bad=False,
             inputs=(P,), check=lambda w, d: "verdicts unchanged" in d.stdout),
    ]

    # F. lengths and memory ----------------------------------------------------------------------------------------
    C += [
        Case("score: a 20 MB step", "score", ["--model", "ckpt", "--input", "big.jsonl", "--output", "s.jsonl"],
             words=LEN_WORDS, setup=jsonl("big.jsonl", big_step(20_000_000)), timeout=300),
        Case("score: a 100k-character step", "score", ["--model", "ckpt", "--input", "big.jsonl", "--output",
                                                       "s.jsonl"], words=LEN_WORDS,
             setup=jsonl("big.jsonl", big_step(100_000)), timeout=300),
        Case("label (ig, tiny model): a 20 MB step", "label", ["--method", "ig", "--quiet", "--model", "tiny",
                                                               "--input", "big.jsonl", "--output", "o.jsonl"],
             words=LEN_WORDS, setup=jsonl("big.jsonl", big_step(20_000_000)), timeout=300),
        Case("label (ig, tiny model): a 20 MB step, --skip-too-long", "label",
             ["--method", "ig", "--quiet", "--model", "tiny", "--input", "big.jsonl", "--output", "o.jsonl",
              "--skip-too-long"], bad=False, setup=jsonl("big.jsonl", lambda: big_step(20_000_000)() + pools(1)),
             check=lambda w, d: "too long" in d.stdout and len(lines(w / "o.jsonl")) == 5, timeout=300),
        Case("rollout: a 20 MB step", "rollout", ["--input", "big.jsonl", "--output", "r.jsonl", "--model", "tiny",
                                                  "--k", "1", "--max-new-tokens", "4"], words=LEN_WORDS,
             setup=jsonl("big.jsonl", big_step(20_000_000)), timeout=300),
        Case("search: a 20 MB question", "search", ["beam", "--input", "big.jsonl", "--output", "s.jsonl", "--model",
                                                    "tiny", "--prm", "ckpt", "--k", "2", "--max-new-tokens", "4"],
             words=LEN_WORDS, setup=jsonl("big.jsonl", lambda: [pool("p0", [(["a"], "1", True)],
                                                                     question="x " * 10_000_000)]), timeout=300),
        Case("generate: a 20 MB question", "generate", ["--data", "big.jsonl", "--output", "g.jsonl", "--model",
                                                        "tiny", "--k", "1", "--max-new-tokens", "4"], words=LEN_WORDS,
             setup=jsonl("big.jsonl", lambda: [{"question": "x " * 10_000_000, "answer": "#### 1"}]), timeout=300),
        Case("rl: a 20 MB question", "rl", ["grpo", "--data", "big.jsonl", "--output", "rl", "--model", "tiny",
                                            "--problems-range", "0:1", "--heldout-range", "1:2", "--steps", "1"],
             words=LEN_WORDS, setup=jsonl("big.jsonl", lambda: [{"question": "x " * 10_000_000, "answer": "#### 1"},
                                                                {"question": "1 + 1?", "answer": "#### 2"}]),
             timeout=300),  # held out: another problem (the same one is refused as a training problem first)
        Case("data synth --problems 100000000", "data", ["synth", "--problems", "100000000", "--output", "sx.jsonl",
                                                         "--labels", "sl.jsonl"], words=("problems", *W),
             timeout=120),
        Case("data synth: normal small run", "data", ["synth", "--problems", "20", "--output", "sx.jsonl",
                                                      "--labels", "sl.jsonl"], bad=False,
             check=lambda w, d: len(lines(w / "sx.jsonl")) == 20 and len(lines(w / "sl.jsonl")) == 80),
    ]

    # G. checkpoints ----------------------------------------------------------------------------------------------
    def ckpt_copy(edit: Callable[[Path], None]) -> Callable[[Path], None]:
        def run(work: Path) -> None:
            import shutil

            shutil.copytree(work / "ckpt", work / "ck2")
            edit(work / "ck2")
        return run

    def set_kind(kind: str) -> Callable[[Path], None]:
        def run(folder: Path) -> None:
            cfg = json.loads((folder / "prmkit_reward.json").read_text())
            cfg["kind"] = kind
            (folder / "prmkit_reward.json").write_text(json.dumps(cfg))
        return run

    def run_record(kind: str) -> Callable[[Path], None]:
        return lambda folder: (folder / "prmkit_run.json").write_text(json.dumps({"kind": kind}))

    sc = ["--input", P, "--output", "s.jsonl", "--model", "ck2"]
    C += [
        Case("score: bt checkpoint without its head file", "score", sc, words=("prmkit_head.pt", "head"),
             setup=ckpt_copy(set_kind("bt"))),
        Case("score: orm config on prm weights (run record says prm)", "score", sc, words=("head", "trained"),
             setup=ckpt_copy(lambda f: (set_kind("orm")(f), run_record("prm")(f)))),
        Case("score: prm3 config on prm weights", "score", sc, words=("prm3", "tokenizer", "head", "<|prm_neu|>")),
        Case("score: a garbage head file", "score", sc, words=("prmkit_head.pt", "head")),
        Case("score: prm config with a foreign head file", "score", sc, words=("prmkit_head.pt", "head")),
        Case("score: unknown head kind", "score", sc, words=("kind", "head", "zzz")),
        Case("score: normal tiny checkpoint", "score", ["--input", P, "--output", "s.jsonl", "--model", "ckpt"],
             bad=False, check=lambda w, d: len(lines(w / "s.jsonl")) == 24),
        Case("score: resumed run adds nothing", "score", ["--input", P, "--output", "s.jsonl", "--model", "ckpt"],
             bad=False, setup=lambda w: subprocess.run(_cmd(w, "score", ["--input", P, "--output", "s.jsonl",
                                                                         "--model", "ckpt"]), cwd=w, env=_ENV,
                                                       capture_output=True, timeout=300),
             check=lambda w, d: len(lines(w / "s.jsonl")) == 24 and "scored 0 traces" in d.stdout),
        Case("score: resume with another aggregation", "score", ["--input", P, "--output", "s.jsonl", "--model",
                                                                  "ckpt", "--aggregation", "min"],
             words=("settings", "aggregation"), inputs=("s.jsonl",),
             setup=lambda w: subprocess.run(_cmd(w, "score", ["--input", P, "--output", "s.jsonl", "--model",
                                                              "ckpt"]), cwd=w, env=_ENV, capture_output=True,
                                            timeout=300)),
    ]
    names = [c.name for c in C]
    C[names.index("score: prm3 config on prm weights")].setup = ckpt_copy(set_kind("prm3"))
    C[names.index("score: a garbage head file")].setup = ckpt_copy(
        lambda f: (set_kind("bt")(f), (f / "prmkit_head.pt").write_bytes(b"garbage")))
    C[names.index("score: prm config with a foreign head file")].setup = ckpt_copy(
        lambda f: (f / "prmkit_head.pt").write_bytes(b"garbage"))
    C[names.index("score: unknown head kind")].setup = ckpt_copy(set_kind("zzz"))

    def nested_ckpt(work: Path) -> None:
        import shutil

        shutil.copytree(work / "ckpt", work / "m" / "ck")

    kept = ("ck2/model.safetensors", "ck2/prmkit_reward.json", "ck2/config.json")
    C += [
        Case("export-hf --output is --model, --overwrite", "export-hf", ["--model", "ck2", "--output", "./ck2/",
                                                                        "--overwrite"],
             words=("checkpoint being exported",), inputs=kept, setup=ckpt_copy(lambda f: None)),
        Case("export-hf --output is --model", "export-hf", ["--model", "ck2", "--output", "ck2"],
             words=("checkpoint being exported",), inputs=kept, setup=ckpt_copy(lambda f: None)),
        Case("export-hf --output inside --model", "export-hf", ["--model", "ck2", "--output", "ck2/hf"],
             words=("checkpoint being exported",), inputs=kept, setup=ckpt_copy(lambda f: None)),
        Case("export-hf --output contains --model, --overwrite", "export-hf", ["--model", "m/ck", "--output", "m",
                                                                              "--overwrite"],
             words=("checkpoint being exported",), inputs=("m/ck/model.safetensors", "m/ck/prmkit_reward.json"),
             setup=nested_ckpt),
        Case("export-hf: normal export beside the model", "export-hf", ["--model", "ckpt", "--output", "ckpt_hf"],
             bad=False, check=lambda w, d: (w / "ckpt_hf" / "config.json").is_file()),
    ]

    def cut(name: str) -> Callable[[Path], None]:
        return lambda f: os.truncate(f / name, (f / name).stat().st_size // 2)

    C += [
        Case("score: model.safetensors cut short", "score", sc, words=("truncated", "model.safetensors"),
             setup=ckpt_copy(cut("model.safetensors"))),
        Case("export-hf: model.safetensors cut short", "export-hf", ["--model", "ck2", "--output", "hf"],
             words=("truncated", "model.safetensors"), setup=ckpt_copy(cut("model.safetensors"))),
        Case("search --prm: model.safetensors cut short", "search", ["beam", "--input", P, "--output", "s.jsonl",
                                                                     "--model", "tiny", "--prm", "ck2", "--k", "2",
                                                                     "--max-new-tokens", "4"],
             words=("truncated", "model.safetensors"), setup=ckpt_copy(cut("model.safetensors"))),
    ]

    # I. empty and unmatched inputs, labels the head cannot take, a killed run's lock, a big OpenR file ----------
    def nan_parquet(work: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = [{"prompt": f"What is {k} + 3 ?", "completions": [f"{k} + 3 = {k + 3}", "so"],
                 "labels": [0.9, float("nan") if k == 2 else 0.3]} for k in range(4)]
        pq.write_table(pa.Table.from_pylist(rows), work / "nan.parquet")

    def openr(work: Path) -> None:
        import random

        rng, q = random.Random(0), "Tom has 3 apples and buys 4 more. How many apples does he have now?"
        nodes, depth, items = [q], {q: 0}, []
        for k in range(20_045):
            parent = rng.choice(nodes[-40:] if rng.random() < 0.5 else nodes[:50])
            parent = q if depth[parent] >= 8 else parent
            prefix = parent + "\n\n" + f"Step {k}: " + " ".join(rng.choice(["3 + 4 = 7", "so", "apples", "more"])
                                                               for _ in range(4))
            nodes.append(prefix)
            depth[prefix] = depth[parent] + 1
            items.append({"solution_prefix": prefix, "mc_value": round(rng.random(), 3)})
        text(work, "question_0.json", json.dumps({"question": q, "final_answer": "7", "reasoning_steps": items}))

    def stale_lock(work: Path) -> None:
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.strip()
        text(work, "old.jsonl.lock", f"{gone}\n")

    all_right = mutate_pools(lambda ps: [t.update(answer="7", correct=True) for p in ps for t in p["traces"]])
    empty_step = mutate_pools(lambda ps: ps[2]["traces"][1].__setitem__("steps", ["3 + 4 = 8", "  "]))
    C += [
        Case("bench --no-label on a folder with no run", "bench",
             ["--no-label", "--output", "newbench", "--model", "tiny", "--problems", "2", "--levels", "1",
              "--policy-k", "1", "--max-new-tokens", "4", "--labelers", "ig", "--quiet"],
             words=("no bench run",), timeout=120),
        Case("train --soft: a NaN label in TRL parquet", "train", ["prm", "--soft", "--labels", "nan.parquet",
                                                                   "--output", "ck", "--model", "tiny", "--epochs",
                                                                   "1"],
             words=("row 3",), inputs=("nan.parquet",), setup=nan_parquet,
             check=lambda w, d: not (w / "ck" / "prmkit_run.json").exists()),
        Case("processbench: empty benchmark", "evaluate", ["processbench", "--benchmark", "e.jsonl", "--scores",
                                                           "X=bench_scores.jsonl", "--choose-on", "0:4",
                                                           "--report-on", "4:"],
             words=("the file is empty",), setup=lambda w: text(w, "e.jsonl", "")),
        Case("data corrupt: empty input", "data", ["corrupt", "--input", "e.jsonl", "--output", "c.jsonl"],
             words=("empty", "no problems"), setup=lambda w: text(w, "e.jsonl", "")),
        Case("label: a trace with an empty step", "label", [*lab, "--input", "bad.jsonl", "--output", "o.jsonl"],
             words=("is empty",), setup=jsonl("bad.jsonl", empty_step)),
        Case("view: labels that match no trace (warned with a count)", "view",
             ["--pools", P, "--labels", "other.jsonl", "--output", "v.html"], bad=False,
             setup=jsonl("other.jsonl", mutate_labels(lambda r: [x.__setitem__("trace_id", "q" + x["trace_id"])
                                                                 for x in r])),
             check=lambda w, d: "none of its 24 records" in d.stderr),
        Case("label mcnig: pools with no wrong answer (warned with a count)", "label",
             ["--method", "mcnig", "--quiet", "--model", "tiny", "--input", "right.jsonl", "--output", "o.jsonl"],
             bad=False, setup=jsonl("right.jsonl", all_right),
             check=lambda w, d: "labeled no trace (skipped: no incorrect answer (4))" in d.stderr
             and "null in all" not in d.stderr),
        Case("export: a killed run's stale lock beside the output is removed", "export",
             ["--pools", P, "--labels", L, "--output", "t.jsonl"], bad=False, setup=stale_lock,
             check=lambda w, d: not (w / "old.jsonl.lock").exists() and len(lines(w / "t.jsonl")) == 24),
        Case("view: a 5 MB one-line OpenR .json (20,045 prefixes) as --pools", "view",
             ["--pools", "question_0.json", "--limit", "5", "--output", "v.html"], bad=False, setup=openr,
             timeout=60, check=lambda w, d: '"problems": 5' in d.stdout),
    ]

    # H. resume with other settings ---------------------------------------------------------------------------------
    first = ["--data", "problems.jsonl", "--output", "g.jsonl", "--model", "tiny", "--max-new-tokens", "4",
             "--limit", "1"]
    C += [
        Case("generate: resume with another K", "generate", [*first, "--k", "2"], words=("settings", "k"),
             setup=lambda w: subprocess.run(_cmd(w, "generate", [*first, "--k", "1"]), cwd=w, env=_ENV,
                                            capture_output=True, timeout=300), timeout=300),
        Case("generate: resume with another temperature", "generate", [*first, "--k", "1", "--temperature", "0.5"],
             words=("settings", "temperature"),
             setup=lambda w: subprocess.run(_cmd(w, "generate", [*first, "--k", "1"]), cwd=w, env=_ENV,
                                            capture_output=True, timeout=300), timeout=300),
        Case("generate: resume with the same settings", "generate", [*first, "--k", "1"], bad=False,
             setup=lambda w: subprocess.run(_cmd(w, "generate", [*first, "--k", "1"]), cwd=w, env=_ENV,
                                            capture_output=True, timeout=300),
             check=lambda w, d: "1 already in" in d.stdout, timeout=300),
        Case("label: resume with other settings (tau)", "label", [*lab, "--input", P, "--output", "o.jsonl",
                                                                  "--tau", "3"], bad=False,
             setup=lambda w: subprocess.run(_cmd(w, "label", [*lab, "--input", P, "--output", "o.jsonl"]), cwd=w,
                                            env=_ENV, capture_output=True, timeout=120),
             check=lambda w, d: all(r["threshold"] == 3.0 for r in lines(w / "o.jsonl"))),
    ]

    # silent results, vague messages and first-hour papercuts ------------------------------------------------------
    def no_gold(problems: int) -> Callable[[], list[dict]]:  # the first `problems` problems without a gold answer
        return mutate_scores(lambda rs: [r.update(correct=None) for r in rs if int(r["problem_id"][1:]) < problems])

    def cut_row(body: str) -> Callable[[Path], None]:
        def setup(work: Path) -> None:
            (work / "row").mkdir()
            text(work, "row/row.json", body)
        return setup

    pools_json = lambda w: text(w, "pools.json", json.dumps(pools(4), indent=1))  # noqa: E731
    sft = ["--output", "sft", "--model", "tiny", "--problems", "4", "--levels", "1", "--quiet"]
    C += [
        Case("bok: 2 of 6 problems without a gold answer (left out, warned with the count)", "evaluate",
             ["bok", "--scores", "nogold.jsonl", "--bootstrap", "10", "--quiet"], bad=False,
             setup=jsonl("nogold.jsonl", no_gold(2)), inputs=("nogold.jsonl",),
             check=lambda w, d: "2 of 6 problems have no gold answer" in d.stderr and "over 4 problems" in d.stdout),
        Case("bok: no problem has a gold answer", "evaluate", ["bok", "--scores", "nogold.jsonl", "--quiet"],
             words=("gold answer",), setup=jsonl("nogold.jsonl", no_gold(6)), inputs=("nogold.jsonl",)),
        Case("bok: --problems-range of problems without a gold answer alone", "evaluate",
             ["bok", "--scores", "nogold.jsonl", "--problems-range", "0:2"], words=("gold answer",),
             setup=jsonl("nogold.jsonl", no_gold(2))),
        Case("sft: an empty --template file", "sft", [*sft, "--template", "empty.txt"], words=("is empty",),
             setup=lambda w: text(w, "empty.txt", "")),
        Case("sft: an empty --exclude file", "sft", [*sft, "--exclude", "empty.jsonl"], words=("is empty",),
             setup=lambda w: text(w, "empty.jsonl", "")),
        Case("data bench: an empty --exclude file", "data", ["bench", "--output", "b.jsonl", "--problems", "4",
                                                              "--exclude", "empty.jsonl"],
             words=("is empty",), setup=lambda w: text(w, "empty.jsonl", "")),
        Case("label ig: an empty --prompt-template file", "label",
             ["--method", "ig", "--model", "tiny", "--input", P, "--output", "o.jsonl", "--prompt-template",
              "empty.txt", "--quiet"], words=("is empty",), setup=lambda w: text(w, "empty.txt", "\n")),
        Case("generate: an empty --template file", "generate",
             ["--data", "problems.jsonl", "--output", "g.jsonl", "--model", "tiny", "--k", "1", "--max-new-tokens",
              "4", "--template", "empty.txt"], words=("is empty",), setup=lambda w: text(w, "empty.txt", "")),
        Case("verify: a .json list of pools (read as one document)", "verify", ["pools.json"], bad=False,
             setup=pools_json, inputs=("pools.json",), check=lambda w, d: "16 traces in 4 pools" in d.stdout),
        Case("verify: a .json holding one pool", "verify", ["one.json"], bad=False,
             setup=lambda w: text(w, "one.json", json.dumps(pools(1)[0], indent=1)),
             check=lambda w, d: "4 traces in 1 pools" in d.stdout),
        Case("data bench: a .json list as --exclude", "data", ["bench", "--output", "b.jsonl", "--problems", "4",
                                                               "--exclude", "pools.json"], bad=False,
             setup=pools_json, check=lambda w, d: len(lines(w / "b.jsonl")) == 4),
        Case("sft: --max-length below the prompt's tokens", "sft", [*sft, "--max-length", "16"],
             words=("--max-length 16 is not above the prompt's length",), timeout=300),
        Case("payoff table: a cut row.json", "payoff", ["table", "row"], words=("row.json: not a whole JSON",),
             setup=cut_row('{"name": "m", "labeler": "mcn')),
        Case("payoff table: a row.json that is no row", "payoff", ["table", "row"],
             words=("not a row of `prmkit payoff run`",), setup=cut_row('{"labeler": "mcnig"}')),
        Case("a mistyped verb: prmkit lable --method mcnig", "lable", ["--method", "mcnig", "--input", P,
                                                                       "--output", "o.jsonl"],
             words=("unknown verb 'lable'; did you mean 'label'?",)),
        Case("a mistyped command: prmkit evaluate bk --scores", "evaluate", ["bk", "--scores", S],
             words=("unknown command 'bk'; did you mean 'bok'?",)),
        Case("train --resume into a new folder: the no-checkpoint line", "train",
             ["prm", "--pools", P, "--labels", L, "--output", "ck2", "--model", "tiny", "--max-steps", "1",
              "--resume", "--quiet"], bad=False, timeout=300,
             check=lambda w, d: "to resume from: training from the start" in d.stdout
             and "--resume: no checkpoint" not in d.stdout + d.stderr),
        Case("view --labels given a score file", "view", ["--pools", P, "--labels", S, "--output", "v.html"],
             words=("give this file as --scores",), inputs=(S,)),
        Case("view --scores given a labels file", "view", ["--pools", P, "--scores", L, "--output", "v.html"],
             words=("give this file as --labels",), inputs=(L,)),
        Case("score --help lists the aggregations", "score", ["--help"], bad=False,
             check=lambda w, d: "prod | min | mean | last | geomean | pspo_wrs" in " ".join(d.stdout.split())),
    ]

    # external scorers: the pooling client and scorer specs -----------------------------------------------------
    server_script = str(TESTS / "models" / "fake_pooling_server.py")

    def port_of(work: Path) -> str:
        return (work / "port").read_text().strip()

    def pick_port(work: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            (work / "port").write_text(str(s.getsockname()[1]))

    def pooled(name: str, mode: str | None, options: str = "", words: tuple[str, ...] = (), mb: int = 8,
               **kw: object) -> Case:
        """`prmkit score` against a fake vLLM /pooling server in `mode` (None: nothing listening on its port)."""
        return Case(f"score: openai-pooling, {name}", "score", lambda w: [
            "--quiet", "--input", P, "--output", "s.jsonl", "--model",
            f"openai-pooling:http://127.0.0.1:{port_of(w)},sep_id=5{options}"], words=words, inputs=(P,),
            setup=pick_port, background=None if mode is None else
            (lambda w: [sys.executable, server_script, mode, port_of(w), str(mb)]), **kw)

    def killed_while_waiting(work: Path) -> None:
        """A score run against a server that never answers, sent SIGTERM once it waits (its lock held); what it
        left is written to after_kill.json for the check of the re-run (the case, against a good server)."""
        pick_port(work)
        hang = subprocess.Popen([sys.executable, server_script, "hang", port_of(work)], env=_ENV,
                                stdout=subprocess.PIPE, text=True)
        hang.stdout.readline()
        spec = f"openai-pooling:http://127.0.0.1:{port_of(work)},sep_id=5"
        run = subprocess.Popen(_cmd(work, "score", ["--quiet", "--input", P, "--output", "s.jsonl", "--model", spec]),
                               cwd=work, env=_ENV, stderr=subprocess.PIPE, text=True)
        time.sleep(8)  # past the imports: waiting on the server
        held = (work / "s.jsonl.lock").exists()
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
        hang.kill()
        hang.wait()
        (work / "after_kill.json").write_text(json.dumps({"held": held, "rc": run.returncode, "err": err,
                                                          "lock_left": (work / "s.jsonl.lock").exists()}))

    def kill_left_nothing(work: Path, done: subprocess.CompletedProcess) -> bool:
        after = json.loads((work / "after_kill.json").read_text())
        return (after["held"] and after["rc"] == 143 and "stopped (SIGTERM)" in after["err"] and not after["lock_left"]
                and "Traceback" not in after["err"] and len(lines(work / "s.jsonl")) == 24)

    def mixed_tokenizer(work: Path) -> None:
        shutil.copytree(work / "tiny", work / "mixed")
        from transformers import AutoTokenizer

        tok = AutoTokenizer.from_pretrained(work / "mixed")
        tok.add_tokens([f"<new_{k}>" for k in range(40)])
        tok.save_pretrained(work / "mixed")

    def scored(work: Path, done: subprocess.CompletedProcess) -> bool:
        return len(lines(work / "s.jsonl")) == 24

    nope = ("no such directory", "local")
    C += [
        pooled("HTTP 500", "500", words=("HTTP 500",)),
        pooled("a reply without 'data'", "no-data", words=("no 'data'",)),
        pooled("an HTML page", "html", words=("HTML page",)),
        pooled("malformed JSON", "malformed", words=("not JSON",)),
        pooled("a 400 MB reply (no length given)", "huge", mb=400, words=("over the cap",)),
        pooled("a reply declaring 400 MB", "huge-declared", words=("over the cap",)),
        pooled("a server that never answers (timeout=3)", "hang", ",timeout=3", words=("no complete reply",)),
        pooled("a server that answers 2 s late", "slow", bad=False, check=scored),
        pooled("the wrong number of rows", "rows", words=("rows for the",)),
        pooled("NaN scores", "nan", words=("not a finite number",)),
        pooled("rows too short for positive=1", "short-row", ",positive=1", words=("positive class",)),
        pooled("HTTP 503 once, then well", "503-once", bad=False, check=scored),
        pooled("connection reset (retries=1)", "reset", ",retries=1", words=("connection was cut",)),
        pooled("nothing listening", None, words=("connection refused",)),
        pooled("an option its kind does not take", "ok", ",timout=5", words=("unknown option", "connect_timeout")),
        Case("score: openai-pooling killed (SIGTERM) while the server hangs, then re-run", "score", lambda w: [
            "--quiet", "--input", P, "--output", "s.jsonl", "--model",
            f"openai-pooling:http://127.0.0.1:{port_of(w)},sep_id=5"], bad=False, inputs=(P,),
            setup=killed_while_waiting, background=lambda w: [sys.executable, server_script, "ok", port_of(w)],
            check=kill_left_nothing),
        Case("score: a URL given without its kind", "score",
             ["--input", P, "--output", "s.jsonl", "--model", "http://127.0.0.1:9"], words=("openai-pooling",)),
        Case("score: token-classification:nope/prm (a hub id's shape)", "score",
             ["--input", P, "--output", "s.jsonl", "--model", "token-classification:nope/prm"], words=nope),
        Case("score: step-tag:nope/prm", "score",
             ["--input", P, "--output", "s.jsonl", "--model", "step-tag:nope/prm"], words=nope),
        Case("score: an unknown scorer kind", "score", ["--input", P, "--output", "s.jsonl", "--model", "foo:ckpt"],
             words=("unknown scorer kind 'foo'",)),
        Case("score: a data file as the model", "score",
             ["--input", P, "--output", "s.jsonl", "--model", f"token-classification:{P}"], words=("is a file",)),
        Case("score: a spec with a key its kind does not take", "score",
             ["--input", P, "--output", "s.jsonl", "--model", "step-tag:tiny,sepp=x"], words=("unknown option",)),
        Case("score: token-classification on a causal LM (no head)", "score",
             ["--quiet", "--input", P, "--output", "s.jsonl", "--model", "token-classification:tiny,sep_id=5"],
             words=("no weights for",)),
        Case("score: a tokenizer larger than the model", "score",
             ["--quiet", "--input", P, "--output", "s.jsonl", "--model", "step-tag:mixed"], setup=mixed_tokenizer,
             words=("not one model's",)),
        Case("bench --scorers with a missing model", "bench",
             ["--output", "b", "--problems", "4", "--levels", "1,2", "--policy-k", "0", "--model", "tiny",
              "--labelers", "ig", "--scorers", "judge=token-classification:nope/prm"], words=("--scorers judge",)),
        Case("bench --scorers with nothing listening", "bench", lambda w: [
            "--output", "b", "--problems", "4", "--levels", "1,2", "--policy-k", "0", "--model", "tiny",
            "--labelers", "ig", "--scorers", f"judge=openai-pooling:http://127.0.0.1:{port_of(w)},sep_id=5"],
             setup=pick_port, words=("connection refused",)),
        Case("search --prm token-classification:nope/prm", "search",
             ["beam", "--input", P, "--output", "s.jsonl", "--model", "tiny", "--prm",
              "token-classification:nope/prm"], words=nope),
        Case("rl --reward with a scorer that is not there", "rl",
             [*RL, "--problems-range", "1:4", "--reward", "outcome+prm_prod:step-tag:nope/prm"], words=nope),
    ]
    return C


# --- running -------------------------------------------------------------------------------------------------------

_ENV: dict[str, str] = {}


def _cmd(work: Path, verb: str, args: list[str]) -> list[str]:
    code = "import label.step_length; from prmkit.cli.main import main; raise SystemExit(main())"
    return [sys.executable, "-c", code, verb, *args]


def _digest(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def run_case(case: Case, assets: Path, root: Path) -> Result:
    work = Path(tempfile.mkdtemp(dir=root, prefix="case-"))
    base_files(work, assets)
    if case.setup:
        case.setup(work)
    args = case.args(work) if callable(case.args) else case.args
    watched = {name: _digest(work / name) for name in case.inputs}
    holder = None
    if case.background:
        holder = subprocess.Popen(case.background(work), cwd=work, env=_ENV, stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()  # "held"
    timing = work / ".time"
    cmd = ["/usr/bin/time", "-f", "%M", "-o", str(timing), *_cmd(work, case.verb, args)]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=work, env=_ENV, capture_output=True, text=True, timeout=case.timeout)
        rc: int | None = done.returncode
    except subprocess.TimeoutExpired as e:
        done = subprocess.CompletedProcess(cmd, -9, e.stdout or "", e.stderr or "")
        if isinstance(done.stdout, bytes):
            done.stdout, done.stderr = done.stdout.decode(errors="replace"), (done.stderr or b"").decode(
                errors="replace")
        rc = None
    seconds = time.perf_counter() - start
    if holder:
        holder.kill()
        holder.wait()
    try:
        rss_kb = float(timing.read_text().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        rss_kb = 0.0
    stderr = re.sub(r"Command exited with non-zero status \d+\n?", "", done.stderr or "")
    message = next((x for x in stderr.splitlines() if "error" in x.lower()), (stderr.strip().splitlines()[-1:] and
                   stderr.strip().splitlines()[-1]) or "")
    changed = [n for n, before in watched.items() if _digest(work / n) != before]
    if rc is None or rss_kb > RSS_LIMIT_KB:
        verdict = "runaway"
    elif changed:
        verdict = "data loss"
    elif "Traceback" in stderr:
        verdict = "traceback"
        message = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    elif case.bad:
        if rc == 0:
            verdict = "silent wrong result"
            message = (done.stdout.strip().splitlines() or [""])[-1][:200]
        elif any(w.lower() in stderr.lower() for w in case.words):
            verdict = "clear error"
        else:
            verdict = "vague message"
    else:
        ok = rc == 0
        try:
            ok = ok and (case.check is None or bool(case.check(work, done)))
        except Exception:
            ok = False
        verdict = "handled well" if ok else ("silent wrong result" if rc == 0 else "clear error"
                                             if "error:" in stderr else "vague message")
    return Result(case.name, case.verb, verdict, rc, round(seconds, 2), round(rss_kb / 1024, 1), message[:300],
                  {"changed": changed} if changed else {})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=str(ROOT / "src"), help="the src folder of the prmkit to test")
    ap.add_argument("--only", default="", help="run the cases whose name or verb contains this text")
    ap.add_argument("--json", default="", help="write the results here")
    ap.add_argument("--start", type=int, default=1, help="run from the case of this number (1-based)")
    ap.add_argument("--assets", default=str(Path(tempfile.gettempdir()) / "prmkit-hostile-assets"))
    ap.add_argument("--markdown", default="", help="write every case as a markdown table here")
    ap.add_argument("--from-json", default="", help="run nothing: the markdown table of a --json file written before "
                                                     "(gzipped or not)")
    args = ap.parse_args()
    if args.from_json:
        write_markdown(read_results(args.from_json), args.markdown or "/dev/stdout")
        return 0
    assets = Path(args.assets)
    assets.mkdir(parents=True, exist_ok=True)
    make_assets(assets)
    _ENV.update(os.environ | {"PYTHONPATH": os.pathsep.join([args.src, str(TESTS)]), "OMP_NUM_THREADS": "1",
                              "TQDM_DISABLE": "1", "TOKENIZERS_PARALLELISM": "false"})
    chosen = [c for c in cases() if args.only in c.name or args.only == c.verb] if args.only else cases()
    chosen = chosen[args.start - 1:]
    results = []
    with tempfile.TemporaryDirectory(prefix="prmkit-hostile-") as root:
        for k, case in enumerate(chosen, 1):
            r = run_case(case, assets, Path(root))
            results.append(r)
            print(f"[{k:3}/{len(chosen)}] {r.verdict:19} rc={r.rc!s:4} {r.seconds:6.1f}s {r.rss_mb:7.1f}MB  "
                  f"{case.verb:9} {case.name}  | {r.message[:140]}", flush=True)
    counts = Counter(r.verdict for r in results)
    print(f"\n{len(results)} cases with {args.src}:")
    for v in VERDICTS:
        print(f"  {v:20} {counts.get(v, 0)}")
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in results], indent=1), encoding="utf-8")
    if args.markdown:
        write_markdown([r.__dict__ for r in results], args.markdown)
    return 0


def read_results(path: str) -> list[dict]:
    """The results of a `--json` file (a .gz one too)."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def write_markdown(results: list[dict], path: str) -> None:
    """Every case a row: what it is, the verdict, what the user sees (one line), wall time and peak RSS; the counts
    by verdict above it."""
    counts = Counter(r["verdict"] for r in results)
    head = ", ".join(f"{v} {counts.get(v, 0)}" for v in VERDICTS)
    rows = [f"| {k} | {r['verb']} | {r['case']} | {r['verdict']} | {r['seconds']:.1f} | {r['rss_mb']:.0f} | "
            f"{' '.join(r['message'].split())[:220].replace('|', '/')} |" for k, r in enumerate(results, 1)]
    Path(path).write_text(f"{len(results)} cases: {head}.\n\n| # | verb | case | verdict | s | peak MB | what the user "
                          "sees |\n|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
