"""`prmkit.data.manifest`: one record per output, written whole beside it; outputs written before manifests read
from their old files; a damaged manifest is an error naming it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from prmkit.data.manifest import ManifestError, manifest_path, read_manifest, write_manifest


@dataclass
class _Config:
    k: int = 4
    filter: bool = True
    template: str | None = None


def test_a_file_and_a_directory_output_each_get_their_manifest(tmp_path):
    pools, raw = tmp_path / "pools.jsonl", tmp_path / "pools.raw.jsonl"
    pools.write_text("")
    where = write_manifest(pools, "generate", _Config(), inputs={"data": "demo"}, outputs={"pools": pools, "raw": raw},
                           cost={"tokens": 12, "seconds": 0.5})
    assert where == manifest_path(pools) == tmp_path / "pools.jsonl.manifest.json"
    made = read_manifest(pools)
    assert (made.kind, made.settings, made.inputs) == ("generate", {"k": 4, "filter": True, "template": None},
                                                        {"data": "demo"})
    assert made.output("raw") == raw and made.output("labels") is None and made.cost["tokens"] == 12
    assert made.prmkit  # the version that wrote it
    assert json.loads(where.read_text())["outputs"] == {"pools": "pools.jsonl", "raw": "pools.raw.jsonl"}

    run = tmp_path / "pum"
    (run / "pairs.jsonl").parent.mkdir()
    (run / "pairs.jsonl").write_text("")
    elsewhere = tmp_path / "other" / "pools.jsonl"
    write_manifest(run, "pum", {"k": 8}, inputs={"pools": ["a.jsonl"]}, outputs={"pairs": run / "pairs.jsonl",
                                                                                  "input": elsewhere})
    assert manifest_path(run) == run / "manifest.json"
    # a file inside a directory output: the directory's manifest, when it names the file
    assert read_manifest(run / "pairs.jsonl").cost == {} and read_manifest(run / "pairs.jsonl").kind == "pum"
    (run / "notes.txt").write_text("")
    assert read_manifest(run / "notes.txt") is None
    assert read_manifest(run).output("input") == elsewhere  # outside the folder: kept absolute


def test_a_moved_output_keeps_its_record(tmp_path):
    run = tmp_path / "a"
    run.mkdir()
    write_manifest(run, "sft", {"template": "generate_math_0shot"}, outputs={"data": run / "sft_data.jsonl"})
    moved = run.rename(tmp_path / "b")
    assert read_manifest(moved).output("data") == moved / "sft_data.jsonl"


def test_the_manifest_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    out = tmp_path / "pools.jsonl"
    out.write_text("")
    write_manifest(out, "generate", {"filter": False})
    before = manifest_path(out).read_text()

    class Unwritable:
        def __str__(self):
            raise RuntimeError("killed while writing")

    with pytest.raises(RuntimeError, match="killed"):
        write_manifest(out, "generate", {"filter": True, "odd": Unwritable()})
    assert manifest_path(out).read_text() == before  # the old record, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, manifest_path(out).name])  # no leftover


def test_no_record_for_a_path_that_is_no_output(tmp_path):
    assert read_manifest("smollm2-135m") is None  # a model's name
    assert read_manifest(tmp_path / "missing.jsonl") is None
    (tmp_path / "plain.jsonl").write_text("{}\n")
    assert read_manifest(tmp_path / "plain.jsonl") is None


def test_an_old_warm_start_is_read_from_its_settings(tmp_path):
    """A `prmkit sft` output written before manifests: its settings file and its data, no manifest."""
    from prmkit.data.templates import check_template, trained_template

    old = tmp_path / "sft"
    old.mkdir()
    (old / "sft_settings.json").write_text(json.dumps({"model": "smollm2-135m", "seed": 1,
                                                       "template": "generate_math_0shot"}))
    (old / "sft_data.jsonl").write_text(json.dumps({"question": "What is 1 + 1?"}) + "\n")
    made = read_manifest(old)
    assert (made.kind, made.settings["template"], made.prmkit) == ("sft", "generate_math_0shot", None)
    assert made.output("data") == old / "sft_data.jsonl"
    assert trained_template(old) == "generate_math_0shot"
    check_template(old, "generate_math_0shot")
    with pytest.raises(ValueError, match="warm-started on template 'generate_math_0shot'"):
        check_template(old, None)
    write_manifest(old, "sft", {"template": None}, outputs={"data": old / "sft_data.jsonl"})  # the manifest wins
    assert trained_template(old) is None


def _pools(path, samples):
    path.write_text("".join(json.dumps({"problem": {"id": f"p{i}"}, "traces": [{}] * n}) + "\n"
                            for i, n in enumerate(samples)))


def test_old_generated_pools_are_filtered_when_their_raw_file_holds_more(tmp_path):
    """`prmkit generate` before manifests: the unfiltered samples beside the output in `<name>.raw.jsonl`."""
    pools, raw = tmp_path / "pools.jsonl", tmp_path / "pools.raw.jsonl"
    _pools(raw, [4, 4])
    _pools(pools, [4, 4])
    made = read_manifest(pools)
    assert (made.kind, made.settings, made.output("raw")) == ("generate", {"filter": False}, raw)
    _pools(pools, [3])
    assert read_manifest(pools).settings == {"filter": True}
    assert read_manifest(raw) is None  # the raw file itself: every sample
    write_manifest(pools, "generate", {"filter": False}, outputs={"pools": pools, "raw": raw})
    assert read_manifest(pools).settings == {"filter": False}  # the manifest wins


def test_an_old_pum_run_is_read_from_its_report(tmp_path):
    run = tmp_path / "pum"
    run.mkdir()
    (run / "pairs.jsonl").write_text("")
    students = {"a": {"tokens_read": 10, "tokens_generated": 3}, "b": {"tokens_read": 5, "tokens_generated": 2}}
    (run / "report.json").write_text(json.dumps({"config": {"k": 8}, "students": students, "seconds": 4.5,
                                                 "pair_counts": {}}))
    made = read_manifest(run / "pairs.jsonl")
    assert made.kind == "pum" and made.cost == {"tokens_read": 15, "tokens_generated": 5, "seconds": 4.5}
    (run / "report.json").write_text(json.dumps({"rows": []}))  # another verb's report: no record
    assert read_manifest(run / "pairs.jsonl") is None


@pytest.mark.parametrize(("text", "why"), [
    ("{not json", "not a readable manifest (Expecting property name"),
    ("[1, 2]", "not a readable manifest (not a JSON object)"),
    ('{"kind": "sft", "settings": {}}', "not a readable manifest (no inputs, outputs, cost)"),
    ('{"kind": "sft", "settings": {}, "inputs": {}, "outputs": {"data": 3}, "cost": {}}',
     "not a readable manifest (output 'data' is not a path)"),
])
def test_a_damaged_manifest_is_an_error_naming_it(tmp_path, text, why):
    run = tmp_path / "sft"
    run.mkdir()
    (run / "sft_settings.json").write_text("{}")  # an old warm start's file does not stand in for a damaged manifest
    (run / "manifest.json").write_text(text)
    with pytest.raises(ManifestError, match=re.escape(f"{run / 'manifest.json'}: {why}")):
        read_manifest(run)


def test_another_tools_manifest_json_is_not_read(tmp_path):
    from prmkit.data.templates import check_template

    (tmp_path / "manifest.json").write_text(json.dumps({"name": "a model", "files": ["model.safetensors"]}))
    assert read_manifest(tmp_path) is None
    check_template(str(tmp_path), "generate_math_0shot")  # a model folder, no warm start: any template
