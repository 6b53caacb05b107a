"""One writer per output: a second live process is refused with the holder's pid; a killed holder's lock is
taken over; whole-file writes are atomic. Real processes, real flock."""

import os
import signal
import subprocess
import sys

import pytest

from prmkit.data import AppendOnlyWriter, OutputBusy, output_lock, read_records, write_records
from prmkit.data.jsonl import DataError, iter_json

HOLD = """
import sys, time
from prmkit.data import AppendOnlyWriter
w = AppendOnlyWriter(sys.argv[1])
w.write({"id": "a"})
print("ready", flush=True)
time.sleep(60)
"""


def _holder(path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_a_second_writer_is_refused_naming_the_holder_and_a_killed_holder_is_taken_over(tmp_path):
    out = tmp_path / "out.jsonl"
    proc = _holder(out)
    try:
        with pytest.raises(OutputBusy, match=f"pid {proc.pid}"):
            AppendOnlyWriter(out)
        with pytest.raises(OutputBusy):
            write_records(out, [{"id": "b"}])
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert (tmp_path / "out.jsonl.lock").exists()  # left by the kill, but no longer locked
    with AppendOnlyWriter(out) as w:
        assert w.done == {"a"} and w.write({"id": "b"})
    assert [r["id"] for r in read_records(out, dict)] == ["a", "b"]
    assert not (tmp_path / "out.jsonl.lock").exists()


def test_a_killed_runs_lock_is_removed_by_the_next_lock_taken_beside_it(tmp_path):
    """A kill leaves `<output>.lock` (its pid gone, no one holding it): the next run that takes any lock in that
    folder removes it; a live holder's lock, and a `.lock` file of other content, stay."""
    killed, live = _holder(tmp_path / "killed.jsonl"), _holder(tmp_path / "live.jsonl")
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    (tmp_path / "uv.lock").write_text("version = 1\n")
    (tmp_path / "numbers.lock").write_text("12 34\n")
    try:
        assert (tmp_path / "killed.jsonl.lock").read_text() == f"{killed.pid}\n"
        with output_lock(tmp_path / "other.jsonl"):
            assert not (tmp_path / "killed.jsonl.lock").exists()
            assert (tmp_path / "live.jsonl.lock").read_text() == f"{live.pid}\n"
        with pytest.raises(OutputBusy, match=f"pid {live.pid}"):
            AppendOnlyWriter(tmp_path / "live.jsonl")
    finally:
        os.kill(live.pid, signal.SIGKILL)
        live.wait()
    assert (tmp_path / "uv.lock").read_text() == "version = 1\n" and (tmp_path / "numbers.lock").exists()
    assert sorted(p.name for p in tmp_path.glob("*.lock")) == ["live.jsonl.lock", "numbers.lock", "uv.lock"]


def test_the_lock_is_reentrant_in_one_process(tmp_path):
    out = tmp_path / "x.jsonl"
    with output_lock(out), AppendOnlyWriter(out) as w:
        w.write({"id": "1"})
        w.close()
        write_records(out, [{"id": "1", "v": 2}])
    assert [r for _, r in iter_json(out)] == [{"id": "1", "v": 2}]


def test_a_failed_whole_file_write_keeps_the_previous_file(tmp_path):
    out = tmp_path / "y.jsonl"
    write_records(out, [{"id": 1}])

    def broken():
        yield {"id": 2}
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_records(out, broken())
    assert [r for _, r in iter_json(out)] == [{"id": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["y.jsonl"]


def test_binary_input_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"id": 1}\n\x8e\x01\x02\n')
    with pytest.raises(DataError, match=r"bad.jsonl:2: not UTF-8 text \(byte 0x8e"):
        list(iter_json(bad))
