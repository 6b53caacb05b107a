"""The output rule (`claim_outputs`), settings checks (`check_limits`, `parse_range`, typed config files), the
length guard and the record checks, as functions."""

import math
import os
from dataclasses import dataclass, field

import pytest

from prmkit.data.lengths import check_lengths
from prmkit.data.locks import OutputBusy, lock_path, output_lock
from prmkit.data.outputs import OutputPathError, claim_outputs, same_file
from prmkit.data.records import Pool, RecordError, StepLabels, check_score_record
from prmkit.data.settings import (
    LIMIT,
    SAMPLES,
    Range,
    SettingError,
    build_config,
    check_limits,
    config_fields,
    config_values,
    parse_range,
    part,
    read_config_file,
)


def test_an_output_naming_an_input_or_another_output_is_refused_and_locks_follow_symlinks(tmp_path):
    data = tmp_path / "in.jsonl"
    data.write_text("x\n")
    link = tmp_path / "link.jsonl"
    os.symlink(data, link)
    with pytest.raises(OutputPathError, match="is the same file as the input --data"), \
            claim_outputs({"--output": link}, {"--data": str(data)}):
        pass
    with pytest.raises(OutputPathError, match="are the same file"), \
            claim_outputs({"--output": tmp_path / "a.jsonl", "--raw": tmp_path / "." / "a.jsonl"}):
        pass
    assert lock_path(link) == lock_path(data) and same_file(link, data)
    with claim_outputs({"--output": tmp_path / "out.jsonl"}, {"--data": ["demo", f"NAME={data}"]}):
        assert (tmp_path / "out.jsonl.lock").exists()
    assert not (tmp_path / "out.jsonl.lock").exists()
    assert data.read_text() == "x\n"


def test_a_lock_held_through_one_name_refuses_the_other(tmp_path):
    real = tmp_path / "real.jsonl"
    os.symlink(real, tmp_path / "alias.jsonl")
    with output_lock(real):
        assert lock_path(tmp_path / "alias.jsonl") == lock_path(real)


def test_limits_types_and_ranges():
    @dataclass
    class Cfg:
        k: int = field(default=8, metadata={"range": SAMPLES})
        limit: int | None = field(default=None, metadata={"range": LIMIT})
        temperature: float = 1.0
        problems_range: str | None = None

        def __post_init__(self) -> None:
            check_limits(self)

    for bad, text in [({"k": 0}, "--k 0: must be at least 1"), ({"limit": -5}, "--limit -5"),
                      ({"temperature": math.nan}, "--temperature nan: must be a finite number"),
                      ({"problems_range": "10:5"}, "start must be below stop"),
                      ({"problems_range": "a:b"}, "expected START:STOP")]:
        with pytest.raises(SettingError, match=text):
            Cfg(**bad)
    with pytest.raises(SettingError, match="k: expected a whole number, got str 'four'"):
        build_config(Cfg, {}, {"k": "four"})
    assert build_config(Cfg, {}, {"temperature": 1}).temperature == 1.0  # an int where a float goes
    assert parse_range("3:") == slice(3, None) and parse_range(None) == slice(None)


def test_a_part_is_flat_settings_of_its_holder(tmp_path):
    @dataclass
    class Inner:
        t: float = field(default=1.0, metadata={"range": Range(0, 2)})

        def __post_init__(self) -> None:
            check_limits(self)

    @dataclass
    class Outer:
        inner: Inner = part(Inner, t=0.5, helps={"t": "the holder's help"})
        n: int = 3

    assert [(c.name, c.default, c.help) for c in config_fields(Outer)] == [("t", 0.5, "the holder's help"),
                                                                            ("n", 3, "")]
    path = tmp_path / "run.yaml"
    path.write_text("n: 4\nt: 3.0\n")
    with pytest.raises(SettingError, match=f"{path}:2: --t 3.0: must be at least 0 and at most 2"):
        build_config(Outer, read_config_file(str(path), (Outer,)), {})
    built = build_config(Outer, read_config_file(str(path), (Outer,)), {"t": 1})
    assert built == Outer(Inner(1.0), 4) and config_values(built) == {"t": 1.0, "n": 4}

    @dataclass
    class Clash:
        inner: Inner = part(Inner)
        t: int = 0

    with pytest.raises(TypeError, match=r"settings \['t'\] named twice"):
        config_fields(Clash)


def test_a_config_file_names_the_line_of_a_bad_value(tmp_path):
    @dataclass
    class Cfg:
        k: int = field(default=8, metadata={"range": SAMPLES})

        def __post_init__(self) -> None:
            check_limits(self)

    path = tmp_path / "run.yaml"
    path.write_text("# a comment\nk: 0\n")
    with pytest.raises(SettingError, match=f"{path}:2: --k 0"):
        build_config(Cfg, read_config_file(str(path), (Cfg,)), {})
    assert build_config(Cfg, read_config_file(str(path), (Cfg,)), {"k": 3}).k == 3  # the flag wins, no error
    path.write_text("k: [1\n")
    with pytest.raises(ValueError, match=f"{path}:2: invalid YAML"):
        read_config_file(str(path), (Cfg,))


def test_records_refuse_strings_for_booleans_nan_and_labels_out_of_range():
    with pytest.raises(RecordError, match="'correct' must be bool or null"):
        check_score_record({"id": "a", "problem_id": "p", "index": 0, "answer": "1", "correct": "false",
                            "score": 0.5})
    with pytest.raises(RecordError, match="finite"):
        check_score_record({"id": "a", "problem_id": "p", "index": 0, "answer": "1", "correct": True,
                            "score": math.inf})
    with pytest.raises(RecordError, match="finite"):
        StepLabels.from_dict({"trace_id": "t", "method": "m", "scores": [math.nan]})
    with pytest.raises(RecordError, match="must be 0 or 1"):
        StepLabels.from_dict({"trace_id": "t", "method": "m", "scores": [1.0], "labels": [-3]})
    pool = {"problem": {"id": "p", "question": "q", "answer": "1"},
            "traces": [{"id": "t", "problem_id": "x", "steps": ["a"], "answer": "1"}]}
    with pytest.raises(RecordError, match="not its pool's problem 'p'"):
        Pool.from_dict(pool)


def test_the_length_guard_counts_or_refuses_before_any_tokenizer():
    pool = Pool.from_dict({"problem": {"id": "p", "question": "q", "answer": "1"},
                           "traces": [{"id": "p/0", "problem_id": "p", "steps": ["a", "b" * 5121], "answer": "1"},
                                      {"id": "p/1", "problem_id": "p", "steps": ["a"], "answer": "1"}]})
    with pytest.raises(ValueError, match="trace p/0: step 2 has 5121 characters, more than the limit of 5120"):
        check_lengths([pool], 512)
    kept, skipped = check_lengths([pool], 512, skip=True)
    assert skipped == 1 and [t.id for t in kept[0].traces] == ["p/1"]
    assert check_lengths([pool], 1024) == ([pool], 0)


def test_a_busy_claim_is_refused(tmp_path):
    out = tmp_path / "o.jsonl"
    with output_lock(out), claim_outputs({"--output": out}):  # re-entrant: a run does not block itself
        pass
    import subprocess
    import sys

    code = ("import sys; from prmkit.data.outputs import claim_outputs\n"
            "with claim_outputs({'--output': sys.argv[1]}): pass")
    with output_lock(out):
        done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True,
                              env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode != 0 and OutputBusy.__name__ in done.stderr
