"""Hostile and malformed inputs through the real CLI: each case asserts the message, the exit
code and that no record is lost or duplicated. The labeler is the test labeler `length` (tests/label) or the
tiny model. The verbs run by the CLI's `main` in this process (an interpreter start per case would cost more
than the case); concurrency runs two real processes."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import cli, pool_dict, write_jsonl

TESTS = str(Path(__file__).parents[1])


def _cmd(*args: str) -> list[str]:
    code = "import label.step_length; from prmkit.cli.main import main; raise SystemExit(main())"
    return [sys.executable, "-c", code, *args]


def _env() -> dict[str, str]:
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), TESTS])),
                         "OMP_NUM_THREADS": "1"}


def pools_file(tmp_path: Path, n: int = 6, name: str = "pools.jsonl") -> str:
    pools = [pool_dict(f"p{k}", f"q{k}", "7", [(["x" * (1 + (k + j) % 5), "yy"], "7", j % 2 == 0) for j in range(4)])
             for k in range(n)]
    return write_jsonl(tmp_path / name, pools)


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def label(tmp_path: Path, pools: str, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return cli("label", "--method", "length", "--input", pools, "--output", str(out), "--quiet", *extra)


def test_second_writer_is_refused_and_the_first_writes_exactly_a_lone_run(tmp_path):
    pools = pools_file(tmp_path, 40)
    assert label(tmp_path, pools, tmp_path / "lone.jsonl").returncode == 0
    out = tmp_path / "conc.jsonl"
    first = subprocess.Popen(_cmd("label", "--method", "length", "--input", pools, "--output", str(out), "--quiet",
                                  "--delay", "0.05"), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not out.exists():  # the first holds the lock before it writes a record
        time.sleep(0.02)
    second = label(tmp_path, pools, out)
    assert first.wait(timeout=120) == 0
    assert second.returncode == 2
    assert f"is being written by another process (pid {first.pid})" in second.stderr
    assert lines(out) == lines(tmp_path / "lone.jsonl")  # 160 records, none twice, thresholded once
    third = label(tmp_path, pools, out)  # after the first ends, a re-run resumes everything, adds nothing
    assert third.returncode == 0 and json.loads(third.stdout)["resumed"] == 40
    assert lines(out) == lines(tmp_path / "lone.jsonl")


@pytest.mark.slow
def test_a_step_longer_than_the_context_is_an_error_before_the_model_or_a_counted_skip(tmp_path, tiny_base):
    q = "How many apples ?"
    pools = [pool_dict("p0", q, "7", [(["3 + 4 = 7"], "7", True), (["Tom has 3 apples"], "8", False)]),
             pool_dict("p1", q, "7", [(["3 + 4 = 7", "x " * 100_000], "7", True)])]
    path = write_jsonl(tmp_path / "long.jsonl", pools)
    start = time.time()
    bad = cli("label", "--method", "ig", "--input", path, "--output", str(tmp_path / "l.jsonl"), "--model",
              tiny_base, "--quiet")
    assert bad.returncode == 2, bad.stderr
    assert f"{path}:2: trace p1/0: step 2 has " in bad.stderr and "--skip-too-long" in bad.stderr
    assert time.time() - start < 60 and not (tmp_path / "l.jsonl").exists()
    ok = cli("label", "--method", "ig", "--input", path, "--output", str(tmp_path / "l.jsonl"), "--model",
             tiny_base, "--quiet", "--skip-too-long")
    assert ok.returncode == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert report["skipped"] == {"traces too long": 1} and report["traces"] == 2
    assert [r["trace_id"] for r in lines(tmp_path / "l.jsonl")] == ["p0/0", "p0/1"]
    short = write_jsonl(tmp_path / "short.jsonl", pools[:1])  # under the character guard: the token limit speaks
    small = cli("label", "--method", "ig", "--input", short, "--output", str(tmp_path / "m.jsonl"), "--model",
                tiny_base, "--quiet", "--max-step-tokens", "3")
    assert small.returncode == 2 and "more than the limit of 3" in small.stderr


@pytest.mark.slow
def test_an_output_under_a_file_is_refused_by_every_verb_before_any_work(tmp_path, tiny_base):
    pools = pools_file(tmp_path)
    blocker = tmp_path / "file.jsonl"
    blocker.write_text("x\n")
    labels = tmp_path / "labels.jsonl"
    assert label(tmp_path, pools, labels).returncode == 0
    cases = {
        "label": ["label", "--method", "length", "--input", pools, "--output", f"{blocker}/x.jsonl"],
        "export": ["export", "--pools", pools, "--labels", str(labels), "--output", f"{blocker}/x.jsonl"],
        "verify": ["verify", pools, "--output", f"{blocker}/x.jsonl"],
        "train": ["train", "prm", "--pools", pools, "--labels", str(labels), "--model", tiny_base, "--epochs", "1",
                  "--output", f"{blocker}/ck"],
        "score": ["score", "--model", str(tmp_path / "no-model"), "--input", pools, "--output", f"{blocker}/s.jsonl"],
    }
    for verb, args in cases.items():
        done = cli(*args)
        assert done.returncode == 2, (verb, done.stderr)
        assert f"prmkit {verb}: error: " in done.stderr and f"{blocker} is a file" in done.stderr, verb
        assert "Traceback" not in done.stderr and "saved" not in done.stdout, verb
    assert blocker.read_text() == "x\n"


@pytest.mark.slow
def test_duplicates_are_errors_with_both_lines_unless_allowed(tmp_path):
    pools = pools_file(tmp_path)
    labels = tmp_path / "labels.jsonl"
    assert label(tmp_path, pools, labels).returncode == 0
    dup = tmp_path / "dup.jsonl"
    dup.write_text(labels.read_text() + labels.read_text().splitlines(keepends=True)[2])
    for verb in (["export", "--pools", pools, "--output", str(tmp_path / "t.jsonl")],
                 ["train", "prm", "--pools", pools, "--output", str(tmp_path / "ck")]):
        done = cli(*verb, "--labels", str(dup))
        assert done.returncode == 2, done.stderr
        assert f"{dup}:25: trace id 'p0/2' is labeled again (first at {dup}:3)" in done.stderr
    assert not (tmp_path / "t.jsonl").exists() and not (tmp_path / "ck").exists()
    repeated = tmp_path / "repeated.jsonl"
    repeated.write_text(Path(pools).read_text() + Path(pools).read_text().splitlines(keepends=True)[0])
    for verb in (["label", "--method", "length", "--input", str(repeated), "--output", str(tmp_path / "r.jsonl")],
                 ["export", "--pools", str(repeated), "--labels", str(labels), "--output", str(tmp_path / "t.jsonl")]):
        done = cli(*verb)
        assert done.returncode == 2 and f"{repeated}:7: problem id 'p0' repeats {repeated}:1" in done.stderr
    done = cli("export", "--pools", str(repeated), "--labels", str(labels), "--output", str(tmp_path / "t.jsonl"),
               "--allow-duplicates")
    assert done.returncode == 0 and len(lines(tmp_path / "t.jsonl")) == 24  # the copy is not written twice


def test_unmatched_and_zero_step_traces_are_counted_and_can_be_required(tmp_path):
    pools = [pool_dict("p0", "q", "7", [(["a", "b"], "7", True), ([], "7", False), (["c"], "8", False)])]
    path = write_jsonl(tmp_path / "pools.jsonl", pools)
    labels = tmp_path / "labels.jsonl"
    done = label(tmp_path, path, labels)
    assert done.returncode == 0 and json.loads(done.stdout)["skipped"] == {"traces without steps": 1}
    assert [r["trace_id"] for r in lines(labels)] == ["p0/0", "p0/2"]  # no `scores: []` record
    kept = labels.read_text().splitlines(keepends=True)
    partial = tmp_path / "partial.jsonl"
    partial.write_text(kept[0] + json.dumps({"trace_id": "elsewhere", "method": "length", "scores": [1.0],
                                             "labels": [1]}) + "\n")
    args = ["export", "--pools", path, "--labels", str(partial), "--output", str(tmp_path / "t.jsonl")]
    done = cli(*args)
    assert done.returncode == 0
    assert "wrote 1 trl records" in done.stdout and "unlabeled 1, no steps 1, orphan labels 1" in done.stdout
    done = cli(*args[:-2], "--output", str(tmp_path / "t2.jsonl"), "--require-all-labels")
    assert done.returncode == 2 and "1 traces have no labels and 1 label records match no trace" in done.stderr
    assert not (tmp_path / "t2.jsonl").exists()


def test_empty_and_binary_inputs_and_empty_pools(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    done = cli("verify", str(empty))
    assert done.returncode == 2 and f"{empty}: no pools (the input is empty)" in done.stderr
    done = cli("label", "--method", "length", "--input", str(empty), "--output", str(tmp_path / "e.jsonl"))
    assert done.returncode == 2 and f"{empty}: no records" in done.stderr
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    done = cli("label", "--method", "length", "--input", str(binary), "--output", str(tmp_path / "b.jsonl"))
    assert done.returncode == 2 and f"{binary}:1: not UTF-8 text" in done.stderr
    pools = write_jsonl(tmp_path / "p.jsonl", [{"problem": {"id": "p0", "question": "q", "answer": "1"},
                                               "traces": []}, pool_dict("p1", "q", "1", [(["a"], "1", True)])])
    report = json.loads(label(tmp_path, pools, tmp_path / "z.jsonl").stdout)
    assert report["resumed"] == 0 and report["skipped"] == {"pools without traces": 1} and report["traces"] == 1


def test_export_failing_halfway_leaves_no_file(tmp_path):
    pools = pools_file(tmp_path)
    labels = tmp_path / "labels.jsonl"
    assert label(tmp_path, pools, labels).returncode == 0
    rows = lines(labels)
    rows[-1]["scores"], rows[-1]["labels"] = [1.0], [1]  # the last trace has 2 steps: fails after 23 records
    bad = write_jsonl(tmp_path / "bad.jsonl", rows)
    out = tmp_path / "t.jsonl"
    done = cli("export", "--pools", pools, "--labels", bad, "--output", str(out))
    assert done.returncode == 2 and "trace p5/3: 2 steps but 1 labels" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("t.", ".t."))) == []


def test_sweep_plot_is_named_after_the_output_and_the_same_bytes_every_run(tmp_path):
    pools = pools_file(tmp_path)
    out = tmp_path / "run.jsonl"
    assert label(tmp_path, pools, out).returncode == 0
    first = (tmp_path / "run.sweep.png").read_bytes()
    assert cli("threshold", "--choose-on", str(out)).returncode == 0
    assert (tmp_path / "run.sweep.png").read_bytes() == first
    assert b"Software" not in first and b"matplotlib" not in first
