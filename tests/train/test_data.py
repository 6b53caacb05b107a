import math

import pytest

from helpers import tiny_training_inputs, write_jsonl
from prmkit.cli.main import main
from prmkit.data.formats import read_pools
from prmkit.data.jsonl import DataError
from prmkit.data.settings import parse_range
from prmkit.train.data import read_training_set


def raw_gsm8k(k: int) -> dict:
    row = {"question": f"q{k}", "ground_truth": "2 + 2 = 4\nA: 4"}
    for j, source in enumerate(("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")):
        row[source] = {"solution": f"step one {j}\nstep two\nA: {j}", "is_correct": j == 0}
    return row


def test_raw_candidates_are_detected_and_joined(tmp_path):
    pools_path = write_jsonl(tmp_path / "cand.jsonl", [raw_gsm8k(k) for k in range(3)])
    assert [p.problem.id for p in read_pools(pools_path)] == ["gsm8k-dev-0", "gsm8k-dev-1", "gsm8k-dev-2"]
    labels = [{"trace_id": "gsm8k-dev-1/6b_finetuning", "method": "ig", "scores": [0.3, 0.8], "labels": [0, 1]}]
    labels_path = write_jsonl(tmp_path / "labels.jsonl", labels)
    [ex] = read_training_set("prm", pools_path, labels_path, "1:3")
    assert ex.steps == ["step one 0", "step two"] and ex.labels == [0.0, 1.0] and ex.problem_id == "gsm8k-dev-1"
    assert read_training_set("prm", pools_path, labels_path, "1:3", soft=True)[0].labels == [0.3, 0.8]
    assert read_training_set("prm", pools_path, labels_path, "2:3") == []
    orm = read_training_set("orm", pools_path, None, "0:2")
    assert [ex.labels for ex in orm] == [[1.0], [0.0], [0.0], [0.0]] * 2


def test_label_count_mismatch_and_trl(tmp_path):
    pools_path = write_jsonl(tmp_path / "cand.jsonl", [raw_gsm8k(0)])
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"trace_id": "gsm8k-dev-0/6b_finetuning", "method": "ig",
                                               "scores": [0.1], "labels": [0]}])
    with pytest.raises(ValueError, match="2 steps but 1 labels"):
        read_training_set("prm", pools_path, bad, None)
    with pytest.raises(ValueError, match="needs --labels"):
        read_training_set("prm", pools_path, None, None)
    trl = write_jsonl(tmp_path / "trl.jsonl", [{"prompt": "q", "completions": ["a", "b"], "labels": [True, False]}])
    [ex] = read_training_set("prm", None, trl, None)
    assert ex.labels == [1.0, 0.0] and ex.question == "q"
    with pytest.raises(DataError):
        list(read_pools(write_jsonl(tmp_path / "x.jsonl", [{"problem": {}, "traces": []}])))
    assert parse_range("500:") == slice(500, None) and parse_range(None) == slice(None)


def test_soft_and_three_class_targets_from_thresholded_scores(tmp_path):
    pools_path = write_jsonl(tmp_path / "cand.jsonl", [raw_gsm8k(0)])
    labels = [{"trace_id": f"gsm8k-dev-0/{s}", "method": "mcnig", "scores": [2.0, -0.4], "labels": [1, 0],
               "threshold": -0.5} for s in ("6b_finetuning", "6b_verification")]
    labels[1]["scores"] = [-3.0, -0.2]
    labels_path = write_jsonl(tmp_path / "labels.jsonl", labels)
    soft = read_training_set("prm", pools_path, labels_path, None, soft=True)[0].labels
    assert soft == pytest.approx([1 / (1 + math.exp(-2.5)), 1 / (1 + math.exp(-0.1))])
    with pytest.raises(ValueError, match="--neutral-band"):
        read_training_set("prm3", pools_path, labels_path, None)
    three = read_training_set("prm3", pools_path, labels_path, None, neutral_band=0.5)
    assert [ex.labels for ex in three] == [[1.0, 0.0], [-1.0, 0.0]]


def test_prm3_refuses_labels_without_a_negative_class(tmp_path):
    binary = write_jsonl(tmp_path / "trl.jsonl", [{"prompt": "q", "completions": ["a", "b"], "labels": [1, 0]}])
    with pytest.raises(ValueError, match="no step is labeled -1"):
        read_training_set("prm3", None, binary, None)
    three = write_jsonl(tmp_path / "trl3.jsonl", [{"prompt": "q", "completions": ["a", "b"], "labels": [1, -1]}])
    assert read_training_set("prm3", None, three, None)[0].labels == [1.0, -1.0]


def test_a_soft_target_outside_0_1_names_the_file_and_row(tmp_path):
    """--soft trains on the file's scores as they are: one outside [0, 1] is refused where the data is read (file,
    row, trace, which target), not by the head once the model has loaded."""
    rows = [{"prompt": "q", "completions": ["a", "b"], "labels": [0.2, 0.9]},
            {"prompt": "q2", "completions": ["a", "b"], "labels": [0.2, 1.5]}]
    path = write_jsonl(tmp_path / "trl.jsonl", rows)
    assert len(read_training_set("prm", None, path, None)) == 2  # hard labels: 1.5 >= 0.5 reads as 1
    with pytest.raises(DataError, match=r"trl\.jsonl:2: trace trl-2: target 2 is 1\.5; .* lies in \[0, 1\] \(--soft"):
        read_training_set("prm", None, path, None, soft=True)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_label_that_is_not_a_finite_number_names_the_file_and_row(bad, tmp_path):
    from datasets import Dataset

    path = tmp_path / "train.parquet"
    Dataset.from_list([{"prompt": "q", "completions": ["a", "b"], "labels": [0.5, 0.5]},
                       {"prompt": "q2", "completions": ["a", "b"], "labels": [0.5, bad]}]).to_parquet(str(path))
    with pytest.raises(DataError, match=rf"train\.parquet:row 2: label 2 \(of 2\) is {bad}; every label is a finite"):
        read_training_set("prm", None, str(path), None, soft=True)


def test_train_soft_on_nan_labels_stops_before_the_model_loads(tiny_base, tmp_path, capsys):
    from datasets import Dataset

    from prmkit.cli.main import main

    path = tmp_path / "train.parquet"
    Dataset.from_list([{"prompt": "q", "completions": ["a", "b"], "labels": [0.5, math.nan]}]).to_parquet(str(path))
    out = tmp_path / "prm"
    assert main(["--quiet", "train", "prm", "--soft", "--labels", str(path), "--model", tiny_base, "--output",
                 str(out), "--epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:row 1: label 2 (of 2) is nan" in err and "binary" not in err
    assert not (out / "prmkit_run.json").exists()


def test_neutral_band_on_labels_without_a_threshold_is_refused(tmp_path):
    """--neutral-band splits thresholded scores; a TRL or Math-Shepherd file's scores are the labels as they are, so
    the band cannot apply there: refused, not silently left unused (the error used to ask for --neutral-band)."""
    binary = write_jsonl(tmp_path / "trl.jsonl", [{"prompt": "q", "completions": ["a", "b"], "labels": [1, 0]}])
    with pytest.raises(ValueError, match=r"--neutral-band splits thresholded .* trace trl-1 have no threshold"):
        read_training_set("prm3", None, binary, None, neutral_band=0.5)


@pytest.mark.parametrize(("kind", "flags", "unused"), [
    ("prm", ["--neutral-band", "0.5"], "--neutral-band"),
    ("prm", ["--pairs", "PAIRS"], "--pairs"),
    ("prm3", ["--soft", "--neutral-band", "0.5"], "--soft"),
    ("orm", ["--soft"], "--soft"),
    ("pum", ["--pairs", "PAIRS", "--soft"], "--pools, --labels, --soft"),
])
def test_a_setting_the_head_does_not_read_is_refused(kind, flags, unused, tmp_path, capsys):
    """`prmkit train` refuses an input setting its head never reads (it used to train and ignore it), before any
    model loads (the model named here does not exist)."""
    inputs = tiny_training_inputs(tmp_path)
    flags = [str(tmp_path / "labels.jsonl") if f == "PAIRS" else f for f in flags]
    out = tmp_path / "out"
    assert main(["--quiet", "train", kind, *inputs, *flags, "--model", str(tmp_path / "no_model"),
                 "--max-steps", "1", "--output", str(out)]) == 2
    assert f"train {kind if kind != 'pum' else 'bt'} does not use {unused} (it reads" in capsys.readouterr().err
    assert not out.exists()
