"""Nothing lost, nothing silent, through the CLI's entry point: an output that names an input (directly, by a
symlink or a hard link) or another output is refused; a busy output is refused whatever its format or name; records are
checked at the reader (booleans, finite numbers, 0/1 labels, ids); every numeric flag is checked before any work;
config files name `file:line`; a text far beyond the model's context is refused before the model loads; a
checkpoint must be what its config declares. Each case: the exit code, the message, and every input's bytes
unchanged. Nearly every case stops before a model loads (the tiny random model where one is needed). The refusals
run `main` in this process (an interpreter start per case would cost more than the case); a real `prmkit`
launch checks that a linked name writes (tests/cli/test_main.py launches `python -m prmkit.cli.main`,
tests/test_wheel.py the installed `prmkit`)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import cli, pool_dict, write_jsonl

TESTS = str(Path(__file__).parents[1])
LOCK_HOLDER = ("import sys, time; from prmkit.data.locks import output_lock\n"
               "with output_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(60)")


def _env() -> dict[str, str]:
    return os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), TESTS])),
                         "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}


def prmkit(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    code = "import label.step_length; from prmkit.cli.main import main; raise SystemExit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], env=_env(), capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def _pools(n: int = 3) -> list[dict]:
    return [pool_dict(f"p{k}", "Tom has 3 apples and buys 4 more . How many apples ?", "7",
                      [(["3 + 4 = 7", "the answer is 7"], "7", True), (["3 + 4 = 8", "so 8"], "8", False)])
            for k in range(n)]


def _labels(pools: list[dict]) -> list[dict]:
    return [{"trace_id": t["id"], "method": "length", "scores": [float(len(s)) for s in t["steps"]],
             "labels": [1, int(t["correct"])], "threshold": 5.0, "correct": t["correct"],
             "problem_id": p["problem"]["id"]} for p in pools for t in p["traces"]]


def _scores(pools: list[dict]) -> list[dict]:
    return [{"id": t["id"], "problem_id": p["problem"]["id"], "index": k, "answer": t["answer"],
             "correct": t["correct"], "kind": "prm", "step_scores": [0.5, 0.5], "aggregation": "prod",
             "score": 0.9 if t["correct"] else 0.1} for p in pools for k, t in enumerate(p["traces"])]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    pools = _pools()
    write_jsonl(tmp_path / "pools.jsonl", pools)
    write_jsonl(tmp_path / "labels.jsonl", _labels(pools))
    write_jsonl(tmp_path / "scores.jsonl", _scores(pools))
    write_jsonl(tmp_path / "problems.jsonl", [{"question": "What is 2 + 3 ?", "answer": "#### 5"}])
    (tmp_path / "file").write_text("a file\n")
    (tmp_path / "adir").mkdir()
    return tmp_path


def snapshot(work: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in work.iterdir() if p.is_file() and not p.is_symlink()}


def refused(work: Path, args: list[str], *words: str) -> subprocess.CompletedProcess:
    """Run `prmkit ARGS` in `work`: exit 2, one `prmkit <verb>: error:` line holding every one of `words`, no
    traceback, and every file that was there keeps its bytes."""
    before = snapshot(work)
    done = cli(*args, cwd=work)
    assert done.returncode == 2, (args, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert f"prmkit {args[0]}: error: " in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)
    after = snapshot(work)
    assert {k: after.get(k) for k in before} == before, args
    return done


SAME = "is the same file as the input"
P, L, S = "pools.jsonl", "labels.jsonl", "scores.jsonl"


# --- one output rule -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["export", "--pools", P, "--labels", L, "--output", L], (SAME, "--labels")),
    (["export", "--pools", P, "--labels", L, "--output", P, "--format", "parquet"], (SAME, "--pools")),
    (["generate", "--data", "problems.jsonl", "--output", "problems.jsonl", "--model", "tiny"], (SAME, "--data")),
    (["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--raw", "g.jsonl"], ("same file",)),
    (["data", "synth", "--problems", "3", "--output", "x.jsonl", "--labels", "x.jsonl"], ("same file",)),
    (["data", "corrupt", "--input", "problems.jsonl", "--output", "problems.jsonl"], (SAME,)),
    (["label", "--method", "length", "--input", P, "--output", P], (SAME, "--input")),
    (["threshold", "--choose-on", L, "--apply-to", L], ("same file",)),
    (["verify", P, "--output", P], (SAME,)),
    (["score", "--model", "adir", "--input", P, "--output", P], (SAME, "--input")),
    (["view", "--pools", P, "--labels", L, "--output", L], (SAME, "--labels")),
    (["evaluate", "bok", "--scores", S, "--output", S], (SAME, "--scores")),
    (["evaluate", "bok", "--scores", S, "--plot", "r.png", "--output", "r.png"], ("same file",)),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_an_output_that_names_an_input_or_another_output_is_refused(work, args, words):
    refused(work, args, *words)


def test_symlinked_and_hard_linked_names_are_the_file_they_name(work):
    os.symlink(work / L, work / "link.jsonl")
    os.link(work / L, work / "hard.jsonl")
    for name in ("link.jsonl", "hard.jsonl"):
        refused(work, ["export", "--pools", P, "--labels", L, "--output", name], SAME)
    os.symlink(work / P, work / "lp.jsonl")
    refused(work, ["label", "--method", "length", "--input", P, "--output", "lp.jsonl"], SAME)
    # a symlinked output that is no input is written through the link, and stays a link
    (work / "real").mkdir()
    os.symlink(work / "real" / "t.jsonl", work / "out.jsonl")
    done = prmkit(work, "export", "--pools", P, "--labels", L, "--output", "out.jsonl")
    assert done.returncode == 0, done.stderr
    assert (work / "out.jsonl").is_symlink() and len((work / "real" / "t.jsonl").read_text().splitlines()) == 6


@pytest.mark.parametrize("args, busy", [
    (["export", "--pools", P, "--labels", L, "--output", "t.parquet", "--format", "parquet"], "t.parquet"),
    (["export", "--pools", P, "--labels", L, "--output", "t.jsonl"], "t.jsonl"),
    (["label", "--method", "length", "--input", P, "--output", "alias.jsonl"], "real.jsonl"),
    (["data", "synth", "--problems", "3", "--output", "x.jsonl", "--labels", "y.jsonl"], "y.jsonl"),
    (["threshold", "--choose-on", L], L),
], ids=lambda v: " ".join(v[:1]) if isinstance(v, list) else v)
def test_a_busy_output_is_refused_whatever_its_format_or_name(work, args, busy):
    (work / busy).write_text("" if busy != L else (work / L).read_text())
    if busy == "real.jsonl":
        os.symlink(work / "real.jsonl", work / "alias.jsonl")
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(work / busy)], env=_env(),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused(work, args, "is being written by another process", f"pid {holder.pid}")
    finally:
        holder.kill()
        holder.wait()


# --- records checked at the reader ---------------------------------------------------------------------------------

def _edit(records: list[dict], k: int, **values) -> list[dict]:
    records[k] = {**records[k], **values}
    return records


@pytest.mark.parametrize("name, records, args, words", [
    ("string bool", lambda: _edit(_scores(_pools()), 1, correct="false"), ["evaluate", "bok", "--scores", "bad.jsonl"],
     ("bad.jsonl:2: ", "'correct' must be bool or null, got str")),
    ("duplicate", lambda: [*_scores(_pools()), _scores(_pools())[0]], ["evaluate", "bok", "--scores", "bad.jsonl"],
     ("bad.jsonl:7: ", "scored again (first at bad.jsonl:1)")),
    ("nan score", lambda: _edit(_scores(_pools()), 0, score=float("nan")), ["evaluate", "bok", "--scores",
                                                                            "bad.jsonl"], ("bad.jsonl:1: ", "nan")),
    ("empty", lambda: [], ["evaluate", "bok", "--scores", "bad.jsonl"], ("no score records (the file is empty)",)),
    ("nan label score", lambda: _edit(_labels(_pools()), 2, scores=[float("nan"), 1.0]),
     ["threshold", "--choose-on", "bad.jsonl"], ("bad.jsonl:3: ", "finite")),
    ("label 7", lambda: _edit(_labels(_pools()), 0, labels=[7, 1]),
     ["export", "--pools", P, "--labels", "bad.jsonl", "--output", "t.jsonl"], ("bad.jsonl:1: ", "must be 0 or 1")),
    ("foreign trace", lambda: [_pools()[0], {**_pools()[1], "traces": [{**_pools()[1]["traces"][0],
                                                                         "problem_id": "p0"}]}],
     ["label", "--method", "length", "--input", "bad.jsonl", "--output", "o.jsonl"],
     ("bad.jsonl:2: ", "has problem_id 'p0', not its pool's problem 'p1'")),
    ("trace id in two pools", lambda: [_pools()[0], {**_pools()[1], "traces": [{**_pools()[1]["traces"][0],
                                                                                  "id": "p0/0"}]}],
     ["export", "--pools", "bad.jsonl", "--labels", L, "--output", "t.jsonl"], ("'p0/0'", "must be unique")),
])
def test_records_are_checked_where_they_are_read(work, name, records, args, words):
    write_jsonl(work / "bad.jsonl", records())
    refused(work, args, *words)
    assert not (work / "t.jsonl").exists() and not (work / "o.jsonl").exists()


# --- settings --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["label", "--method", "length", "--input", P, "--output", "o.jsonl", "--limit", "0"], ("--limit 0: must be",)),
    (["label", "--method", "length", "--input", P, "--output", "o.jsonl", "--limit", "-5"], ("--limit -5",)),
    (["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--k", "0"], ("--k 0: must be at least 1",)),
    (["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--k", "100000"], ("at most 4096",)),
    (["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--temperature", "-1"], ("--temperature",)),
    (["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--batch-size", "0"], ("--batch-size 0",)),
    (["label", "--method", "math-shepherd", "--input", P, "--output", "o.jsonl", "--k", "100000"],
     ("--k 100000", "at most 4096")),
    (["score", "--model", "adir", "--input", P, "--output", "s.jsonl", "--problems-range", "10:5"],
     ("--problems-range '10:5'", "start must be below stop")),
    (["evaluate", "bok", "--scores", S, "--bootstrap", "0"], ("--bootstrap 0: must be at least 1",)),
    (["evaluate", "bok", "--scores", S, "--problems-range", "50:60"], ("selects none",)),
    (["threshold", "--choose-on", L, "--tau", "nan"], ("--tau nan: must be a finite number",)),
    (["data", "synth", "--problems", "100000000", "--output", "x.jsonl", "--labels", "y.jsonl"],
     ("--problems 100000000", "at most 1000000")),
    (["search", "beam", "--input", P, "--output", "s.jsonl", "--k", "0"], ("--k 0",)),
    (["rollout", "--input", P, "--output", "r.jsonl", "--k", "0"], ("--k 0",)),
])
def test_numeric_settings_are_checked_before_any_work(work, args, words):
    refused(work, args, *words)
    assert sorted(p.name for p in work.iterdir()) == sorted(["adir", "file", P, L, S, "problems.jsonl"])


@pytest.mark.parametrize("body, words", [
    ("k: [1, 2\nlimit: 3\n", ("run.yaml:2: invalid YAML",)),
    ("temperature: 1.0\nk: four\n", ("run.yaml:2: k: expected a whole number, got str 'four'",)),
    ("limit: 0\n", ("run.yaml:1: --limit 0: must be at least 1",)),
    (b"\x89PNG\r\n\x1a\n\x00\xff", ("run.yaml:", "not a YAML text file")),
])
def test_a_bad_config_file_names_its_line(work, body, words):
    (work / "run.yaml").write_bytes(body if isinstance(body, bytes) else body.encode())
    refused(work, ["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--config", "run.yaml"], *words)


@pytest.mark.parametrize("args, words", [
    (["verify", "adir"], ("adir: is a directory",)),
    (["evaluate", "bok", "--scores", "adir"], ("adir: is a directory",)),
    (["generate", "--data", "problems.jsonl", "--output", "g.jsonl", "--config", "adir"], ("adir: is a directory",)),
    (["data", "synth", "--problems", "3", "--output", "file/x.jsonl", "--labels", "y.jsonl"], ("file is a file",)),
    (["data", "corrupt", "--input", "problems.jsonl", "--output", "file/c.jsonl"], ("file is a file",)),
])
def test_paths_that_cannot_work_are_one_line(work, args, words):
    refused(work, args, *words)


# --- lengths, memory, checkpoints -------------------------------------------------------------------------------------

def test_a_20_mb_step_is_refused_before_the_model_loads_by_label_and_score(work, tiny_base):
    from prmkit.models.reward import RewardModel, RewardModelConfig

    RewardModel.from_base(tiny_base, RewardModelConfig()).save_pretrained(work / "ck")
    big = write_jsonl(work / "big.jsonl", [pool_dict("p0", "q ?", "7", [(["3 + 4 = 7", "x " * 10_000_000], "7",
                                                                          True)])])
    for args in (["label", "--method", "ig", "--model", tiny_base, "--input", big, "--output", "o.jsonl"],
                 ["score", "--model", "ck", "--input", big, "--output", "s.jsonl"]):
        done = refused(work, args, f"{big}:1: trace p0/0: step 2 has 20000000 characters, more than the limit of "
                                   "5120", "context of 512 tokens")
        assert "loading" not in done.stderr.lower()


def test_a_checkpoint_must_be_what_its_config_declares(work, tiny_base):
    from prmkit.models.reward import RewardModel, RewardModelConfig

    RewardModel.from_base(tiny_base, RewardModelConfig(kind="prm")).save_pretrained(work / "prm")
    bt, orm = work / "bt", work / "orm"
    shutil.copytree(work / "prm", bt)
    shutil.copytree(work / "prm", orm)
    for folder, kind in ((bt, "bt"), (orm, "orm")):
        cfg = json.loads((folder / "prmkit_reward.json").read_text())
        (folder / "prmkit_reward.json").write_text(json.dumps(cfg | {"kind": kind}))
    (orm / "prmkit_run.json").write_text(json.dumps({"kind": "prm"}))
    refused(work, ["score", "--model", "bt", "--input", P, "--output", "s.jsonl"],
            "head 'bt' has weights of its own, but prmkit_head.pt is missing")
    refused(work, ["score", "--model", "orm", "--input", P, "--output", "s.jsonl"],
            "declares head 'orm'", "was trained as 'prm'")
    assert not (work / "s.jsonl").exists()
