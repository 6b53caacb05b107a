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


def _cpuinfo(tmp_path, name, flags):
    path = tmp_path / name
    path.write_text(f"processor\t: 0\nflags\t\t: fpu sse2 avx2 {flags}\n\n"
                    f"processor\t: 1\nflags\t\t: fpu avx2 {flags}\n")
    return path


def test_bf16_on_a_cpu_without_bf16_instructions_warns(tmp_path):
    import warnings

    from prmkit.models.device import cpu_has_bf16, warn_slow_dtype

    plain, amx = _cpuinfo(tmp_path, "plain", ""), _cpuinfo(tmp_path, "amx", "avx512f amx_bf16")
    assert cpu_has_bf16(plain) is False and cpu_has_bf16(amx) is True
    assert cpu_has_bf16(tmp_path / "missing") is None
    with pytest.warns(UserWarning, match="emulated: about 4x slower"):
        warn_slow_dtype("bfloat16", "cpu", plain)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_slow_dtype("bfloat16", "cpu", amx)  # bf16 units: no warning
        warn_slow_dtype("bfloat16", "cuda", plain)  # not the CPU's business
        warn_slow_dtype("float32", "cpu", plain)
        warn_slow_dtype("bfloat16", "cpu", tmp_path / "missing")  # unknown: no guess
