"""PRMKIT_DEVICE: where prmkit's own inference runs; a bad name or a missing GPU is a clear error."""

from __future__ import annotations

import pytest
import torch

from prmkit.models.device import inference_device


def test_auto_takes_the_gpu_when_there_is_one(monkeypatch):
    monkeypatch.delenv("PRMKIT_DEVICE", raising=False)
    assert inference_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setenv("PRMKIT_DEVICE", "CPU")
    assert inference_device() == "cpu"


def test_a_bad_name_is_an_error(monkeypatch):
    monkeypatch.setenv("PRMKIT_DEVICE", "gpu0")
    with pytest.raises(ValueError, match="choose auto, cpu, cuda or cuda:N"):
        inference_device()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_a_gpu_is_an_error(monkeypatch):
    monkeypatch.setenv("PRMKIT_DEVICE", "cuda:0")
    with pytest.raises(ValueError, match="torch sees no GPU"):
        inference_device()
