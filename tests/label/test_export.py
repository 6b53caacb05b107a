"""`prmkit export` / `prmkit.to_dataset`: TRL stepwise records with 0/1 or soft labels in [0, 1], JSONL or parquet."""

import json
import math

import pytest

import prmkit
from helpers import pool_dict, write_jsonl
from prmkit.cli.main import main


@pytest.fixture
def files(tmp_path):
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p", "q?", "3", [(["a", "b"], "3", True),
                                                                             (["c"], "4", False)])])
    labels = write_jsonl(tmp_path / "mcnig.jsonl", [
        {"trace_id": "p/0", "method": "mcnig", "scores": [1.0, 3.0], "labels": [0, 1], "threshold": 1.0},
        {"trace_id": "p/1", "method": "mcnig", "scores": [-2.0], "labels": [0], "threshold": 1.0}])
    return pools, labels


def test_trl_soft_writes_sigmoid_of_score_minus_tau_and_keeps_the_scores(tmp_path, files):
    out = tmp_path / "soft.jsonl"
    args = ["export", "--format", "trl-soft", "--pools", files[0], "--labels", files[1], "--output", str(out)]
    assert main(args) == 0
    first, second = (json.loads(x) for x in out.read_text().splitlines())
    assert first["labels"] == pytest.approx([0.5, 1 / (1 + math.exp(-2))]) and first["scores"] == [1.0, 3.0]
    assert second["labels"] == pytest.approx([1 / (1 + math.exp(3))]) and second["threshold"] == 1.0
    assert all(0 <= v <= 1 for r in (first, second) for v in r["labels"])


def test_soft_export_of_raw_nats_without_a_tau_is_an_error(tmp_path, files, capsys):
    labels = write_jsonl(tmp_path / "raw.jsonl", [{"trace_id": "p/0", "method": "mcnig", "scores": [1.0, 3.0]}])
    assert main(["export", "--format", "trl-soft", "--pools", files[0], "--labels", labels,
                 "--output", str(tmp_path / "x.jsonl")]) == 2
    assert "outside [0, 1] and no threshold" in capsys.readouterr().err


def test_to_dataset_and_parquet(tmp_path, files):
    ds = prmkit.api.to_dataset(*files)
    assert ds.column_names[:3] == ["prompt", "completions", "labels"] and ds["labels"] == [[0, 1], [0]]
    assert prmkit.api.to_dataset(*files, soft=True)["scores"] == [[1.0, 3.0], [-2.0]]
    conf = tmp_path / "export.yaml"
    conf.write_text(f"pools: {files[0]}\nlabels: {files[1]}\nformat: parquet\n")
    assert main(["export", "--config", str(conf), "--output", str(tmp_path / "trl.parquet")]) == 0
    from datasets import Dataset

    back = Dataset.from_parquet(str(tmp_path / "trl.parquet"))
    assert back["completions"] == [["a", "b"], ["c"]] and back["labels"] == [[0, 1], [0]]
    conf.write_text("pools: x\nlabel: y\n")
    assert main(["export", "--config", str(conf), "--output", "z"]) == 2


def test_labels_of_other_pools_are_an_error_and_write_nothing(tmp_path, files, capsys):
    labels = write_jsonl(tmp_path / "other.jsonl", [{"trace_id": "q/0", "method": "mcnig", "scores": [1.0, 3.0],
                                                     "labels": [0, 1], "threshold": 1.0}])
    out = tmp_path / "x.jsonl"
    assert main(["export", "--pools", files[0], "--labels", labels, "--output", str(out)]) == 2
    assert "no labeled trace matches a pool trace (traces 2, labeled 0, unlabeled 2" in capsys.readouterr().err
    assert not out.exists()
