import os
import stat

import pytest

from prmkit.data.join import JoinReport, join_labels, read_labels
from prmkit.data.jsonl import DataError
from prmkit.data.outputs import OutputPathError, atomic_dir, atomic_path, check_output_path
from prmkit.data.records import Pool, Problem, StepLabels, Trace


def test_check_output_path_names_the_file_in_the_way(tmp_path):
    (tmp_path / "f.jsonl").write_text("x")
    assert check_output_path(tmp_path / "new/deeper/out.jsonl") == tmp_path / "new/deeper/out.jsonl"
    with pytest.raises(OutputPathError, match=f"cannot be created, {tmp_path / 'f.jsonl'} is a file"):
        check_output_path(tmp_path / "f.jsonl/a/ck", directory=True)
    with pytest.raises(OutputPathError, match="is a directory"):
        check_output_path(tmp_path)
    with pytest.raises(OutputPathError, match="not a directory"):
        check_output_path(tmp_path / "f.jsonl", directory=True)
    if os.geteuid() != 0:  # root may write anywhere
        (tmp_path / "ro").mkdir(mode=0o500)
        with pytest.raises(OutputPathError, match="not writable"):
            check_output_path(tmp_path / "ro/x.jsonl")
    assert not (tmp_path / "new").exists()  # a check creates nothing


def test_atomic_dir_keeps_the_previous_checkpoint_when_writing_fails(tmp_path):
    ck = tmp_path / "ck"
    with atomic_dir(ck) as d:
        (d / "w.bin").write_text("v1")
    with pytest.raises(RuntimeError), atomic_dir(ck) as d:
        (d / "w.bin").write_text("half")
        raise RuntimeError("disk full")
    assert (ck / "w.bin").read_text() == "v1" and sorted(p.name for p in tmp_path.iterdir()) == ["ck"]
    with atomic_dir(ck) as d:
        (d / "w.bin").write_text("v2")
    assert (ck / "w.bin").read_text() == "v2" and sorted(p.name for p in tmp_path.iterdir()) == ["ck"]
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "f.txt") as tmp:
        tmp.write_text("half")
        raise RuntimeError
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck"]


def test_read_labels_refuses_a_repeated_trace_id_naming_both_lines(tmp_path):
    rec = '{"trace_id": "t1", "method": "ig", "scores": [0.5]}\n'
    path = tmp_path / "l.jsonl"
    path.write_text(rec + rec.replace("t1", "t2") + rec)
    with pytest.raises(DataError, match=f"{path}:3: trace id 't1' is labeled again \\(first at {path}:1\\)"):
        read_labels(path)
    assert [r.trace_id for r in read_labels(path, allow_duplicates=True)] == ["t1", "t2"]
    path.write_text("\n")
    with pytest.raises(DataError, match="no label records"):
        read_labels(path)


def test_join_counts_what_it_leaves_out():
    pool = Pool(Problem("p", "q", "1"), [Trace("a", "p", ["s"], "1"), Trace("b", "p", [], "1"),
                                         Trace("c", "p", ["s"], "1")])
    labels = [StepLabels("a", "ig", [0.1], [0]), StepLabels("zz", "ig", [0.1], [0])]
    report = JoinReport()
    assert [(t.id, lab is not None) for _, t, lab in join_labels([pool], labels, report)] == [("a", True),
                                                                                               ("c", False)]
    assert report == JoinReport(traces=3, labeled=1, unlabeled=1, no_steps=1, orphan_labels=1)
    with pytest.raises(ValueError, match="1 traces have no labels and 1 label records match no trace"):
        list(join_labels([pool], labels, require_all=True))


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_follow_the_umask(tmp_path, umask):
    """Whole-file outputs are written through private temporaries: the final file or folder must still get the
    mode that a plain `open` / `mkdir` gives under the user's umask (as appended outputs do)."""
    from prmkit.data.jsonl import write_records

    old = os.umask(umask)
    try:
        write_records(tmp_path / "records.jsonl", [{"id": 1}])
        with atomic_dir(tmp_path / "model") as d:
            (d / "w.bin").write_bytes(b"x")
        (tmp_path / "plain").write_text("x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "records.jsonl").stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((tmp_path / "records.jsonl").stat().st_mode) == stat.S_IMODE(
        (tmp_path / "plain").stat().st_mode)
    assert stat.S_IMODE((tmp_path / "model").stat().st_mode) == 0o777 & ~umask


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_model_files_written_private_follow_the_umask(tmp_path, umask):
    """safetensors' `save_file` leaves model.safetensors 0600; a checkpoint (`atomic_dir`) and a model converted
    once into the cache (`convert_once`) still get the umask's modes, an executable file keeps its x bits."""
    import torch
    from safetensors.torch import save_file

    from prmkit.models.loading import convert_once

    def write(folder):
        save_file({"w": torch.zeros(2)}, folder / "model.safetensors")
        (folder / "config.json").write_text("{}")
        (folder / "run.sh").write_text("")
        (folder / "run.sh").chmod(0o700)

    old = os.umask(umask)
    try:
        with atomic_dir(tmp_path / "checkpoint") as d:
            write(d)
        convert_once(tmp_path / "cache" / "models" / "tiny", "config.json", write)
    finally:
        os.umask(old)
    for folder in (tmp_path / "checkpoint", tmp_path / "cache" / "models" / "tiny"):
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.iterdir()]}
        assert modes == {folder.name: 0o777 & ~umask, "model.safetensors": 0o666 & ~umask,
                         "config.json": 0o666 & ~umask, "run.sh": 0o777 & ~umask}


def test_a_verbs_claims_come_from_its_fields_roles():
    from prmkit.data.outputs import claims
    from prmkit.label.export import ExportConfig
    from prmkit.rl.config import RLConfig

    assert claims(ExportConfig(pools="p.jsonl", labels="l.jsonl", output="o.jsonl")) == {
        "outputs": {"--output": "o.jsonl"}, "inputs": {"--pools": "p.jsonl", "--labels": "l.jsonl"}, "directories": ()}
    made = claims(RLConfig(output="runs/rl", data="d.jsonl", model="m"), outputs={"extra": "x"})
    assert made["outputs"] == {"--output": "runs/rl", "extra": "x"} and made["directories"] == ("--output",)
    assert made["inputs"] == {"--model": "m", "--data": "d.jsonl", "--heldout-data": None}
