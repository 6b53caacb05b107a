"""Weight files checked before a model loads (`prmkit.models.weight_files`): the size a safetensors header describes
is the file's; a file cut short is one line naming it from every verb that loads a checkpoint, not a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from helpers import pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.models.reward import RewardModel, RewardModelConfig
from prmkit.models.weight_files import check_weight_files, safetensors_size

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_the_header_describes_the_whole_file(tmp_path):
    path = tmp_path / "model.safetensors"
    save_file({"a": torch.zeros(3, 5), "b": torch.ones(7, dtype=torch.int64)}, str(path))
    assert safetensors_size(path) == path.stat().st_size
    check_weight_files(tmp_path)  # whole: no error


@pytest.mark.parametrize("keep", [0, 5, 40, -1], ids=["empty", "in-length", "in-header", "in-data"])
def test_a_file_cut_short_anywhere_names_itself(keep, tmp_path):
    path = tmp_path / "model.safetensors"
    save_file({"a": torch.zeros(3, 5)}, str(path))
    os.truncate(path, keep if keep >= 0 else path.stat().st_size - 4)
    with pytest.raises(ValueError, match=r"model\.safetensors: truncated or damaged weights"):
        check_weight_files(tmp_path)


@pytest.fixture
def cut_checkpoint(tiny_base, tmp_path) -> Path:
    whole = tmp_path / "whole"
    RewardModel.from_base(tiny_base, RewardModelConfig(kind="prm")).save_pretrained(whole)
    cut = tmp_path / "cut"
    shutil.copytree(whole, cut)
    os.truncate(cut / "model.safetensors", (cut / "model.safetensors").stat().st_size // 2)
    return cut


@pytest.mark.parametrize("verb", ["score", "export-hf", "search"])
def test_every_verb_that_loads_a_cut_checkpoint_says_so_in_one_line(verb, cut_checkpoint, tiny_base, tmp_path,
                                                                     capsys):
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", "Tom has 3 apples", "7", [(["3 + 4 = 7"], "7",
                                                                                               True)])])
    args = {"score": ["--model", str(cut_checkpoint), "--input", pools, "--output", str(tmp_path / "s.jsonl")],
            "export-hf": ["--model", str(cut_checkpoint), "--output", str(tmp_path / "hf")],
            "search": ["beam", "--input", pools, "--output", str(tmp_path / "s.jsonl"), "--model", tiny_base,
                       "--prm", str(cut_checkpoint), "--k", "2", "--max-new-tokens", "4"]}[verb]
    assert main(["--quiet", verb, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert f"{cut_checkpoint / 'model.safetensors'}: truncated or damaged weights" in err
