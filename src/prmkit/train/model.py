"""A reward model on a causal LM: the logits of reserved class tokens at step delimiters (MCNIG sec 3.3).

Input: q, r_1, <sep>, r_2, <sep>, ..., r_N, <sep>; each step tokenised on its own with the separator ids
appended (`encode_steps`). At every <sep> the softmax over the <pos>/<neg> logits (or <pos>/<neu>/<neg> for
the 3-class PSPO head) gives p(step correct). Only the class rows of the LM head are computed, at the delimiter
positions only, so scoring costs one forward pass of the decoder body.

A checkpoint is an ordinary HF directory (weights + tokenizer, LoRA merged) plus `prmkit_reward.json`.

    >>> prm = PRM.from_base("smollm2-135m", RewardModelConfig(kind="prm"))  # doctest: +SKIP
    >>> prm.step_probs([("2+3*4?", ["3*4 = 12", "2 + 12 = 14"])])          # doctest: +SKIP
    [[0.61, 0.58]]
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from prmkit.models.stepwise import encode_steps
from prmkit.train.config import RewardModelConfig

__all__ = ["CONFIG_NAME", "PRM"]

CONFIG_NAME = "prmkit_reward.json"


def _template(name: str) -> str:
    return resources.files("prmkit.templates").joinpath(f"{name}.txt").read_text(encoding="utf-8")


def _add_rows(model: Any, size: int) -> None:
    """Grow the embeddings; new rows = mean + per-dimension-std noise of the old rows, so that <pos> and <neg>
    differ even when the head stays frozen (LoRA, frozen layers)."""
    old = model.get_input_embeddings().weight.shape[0]
    model.resize_token_embeddings(size, mean_resizing=False)
    for module in {id(m): m for m in (model.get_input_embeddings(), model.get_output_embeddings())}.values():
        with torch.no_grad():
            w = module.weight
            w[old:] = w[:old].mean(0) + w[:old].std(0) * torch.randn(size - old, w.shape[1], dtype=w.dtype)


class PRM:
    """(model, tokenizer, config) with the delimiter/class token ids resolved and checked."""

    def __init__(self, model: Any, tokenizer: Any, config: RewardModelConfig):
        self.model, self.tokenizer, self.config = model, tokenizer, config
        self.sep_id = self._single_id(config.sep_token)
        self.class_ids = [self._single_id(t) for t in config.class_tokens]
        self.prefix = _template(config.prefix_template)

    def _single_id(self, token: str) -> int:
        ids = self.tokenizer(token, add_special_tokens=False)["input_ids"]
        if len(ids) != 1:
            raise ValueError(f"reserved token {token!r} must be one token, the tokenizer gives {ids}")
        return ids[0]

    # --- construction and checkpoints -----------------------------------------------------------------
    @classmethod
    def from_base(cls, name_or_path: str, config: RewardModelConfig, dtype: str = "float32") -> PRM:
        """Load a base LM (fresh, not the shared cache) and add the reserved tokens it lacks."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from prmkit.models.loading import resolve_model

        path = resolve_model(name_or_path)
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
        wanted = [config.sep_token, *config.class_tokens]
        vocab = tokenizer.get_vocab()
        missing = [t for t in wanted if t not in vocab]
        if missing:
            tokenizer.add_special_tokens({"additional_special_tokens": missing})
            _add_rows(model, len(tokenizer))
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        return cls(model, tokenizer, config)

    def truncate_layers(self, keep: int) -> None:
        """Keep the lowest `keep` decoder layers (a smaller, cheaper backbone); the config follows."""
        body, cfg = self.model.get_decoder(), self.model.config
        if not 0 < keep <= len(body.layers):
            raise ValueError(f"keep_layers must be in 1..{len(body.layers)}, got {keep}")
        body.layers = body.layers[:keep]
        cfg.num_hidden_layers = keep
        if getattr(cfg, "layer_types", None):
            cfg.layer_types = cfg.layer_types[:keep]

    def save_pretrained(self, directory: str | os.PathLike[str]) -> None:
        """Write HF weights + tokenizer (LoRA adapters merged into a plain copy) and the prmkit config."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        model = self.model
        if hasattr(model, "merge_and_unload"):  # a peft model: save plain merged weights, keep training copy
            import copy

            model = copy.deepcopy(model).merge_and_unload()
        model.save_pretrained(out)
        self.tokenizer.save_pretrained(out)
        (out / CONFIG_NAME).write_text(json.dumps(self.config.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike[str], dtype: str = "float32") -> PRM:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = Path(directory)
        if not (path / CONFIG_NAME).is_file():
            raise FileNotFoundError(f"{path} is not a prmkit reward model ({CONFIG_NAME} missing)")
        config = RewardModelConfig.from_dict(json.loads((path / CONFIG_NAME).read_text(encoding="utf-8")))
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
        model.eval()
        return cls(model, tokenizer, config)

    # --- inputs ------------------------------------------------------------------------------------------
    def encode(self, question: str, steps: list[str]) -> tuple[list[int], list[int]]:
        """(ids, target positions): every delimiter for prm/prm3, only the last one for orm."""
        ids, ends = encode_steps(self.tokenizer, self.prefix.format(question=question), steps,
                                 self.config.sep_token)
        seps = [e - 1 for e in ends[1:]]
        if ids.count(self.sep_id) != len(steps) or any(ids[p] != self.sep_id for p in seps):
            raise AssertionError(f"{ids.count(self.sep_id)} separators for {len(steps)} steps: a step or the "
                                 f"question contains the separator {self.config.sep_token!r}")
        return ids, (seps[-1:] if self.config.kind == "orm" else seps)

    def collate(self, encoded: list[tuple[list[int], list[int]]]) -> dict[str, torch.Tensor]:
        """Right-pad; `positions` is (P, 2) of (row, token) for every target, in input order."""
        width = max(len(ids) for ids, _ in encoded)
        pad = self.tokenizer.pad_token_id or 0
        input_ids = torch.full((len(encoded), width), pad, dtype=torch.long)
        mask = torch.zeros((len(encoded), width), dtype=torch.long)
        rows = []
        for b, (ids, pos) in enumerate(encoded):
            input_ids[b, : len(ids)] = torch.tensor(ids)
            mask[b, : len(ids)] = 1
            rows += [(b, p) for p in pos]
        return {"input_ids": input_ids, "attention_mask": mask, "positions": torch.tensor(rows).view(-1, 2)}

    # --- forward -----------------------------------------------------------------------------------------
    def hidden(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Final hidden states of the decoder body, without the full-vocabulary head."""
        body = self.model.get_decoder()
        return body(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state  # (B, T, H)

    def head(self, hidden: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """Class logits at `positions`: rows of the LM head for the class tokens only."""
        h = hidden[positions[:, 0], positions[:, 1]]  # (P, H)
        lm_head = self.model.get_output_embeddings()
        logits = h @ lm_head.weight[self.class_ids].T  # (P, C)
        if getattr(lm_head, "bias", None) is not None:
            logits = logits + lm_head.bias[self.class_ids]
        return logits

    def class_logits(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.hidden(batch["input_ids"], batch["attention_mask"]), batch["positions"])

    @torch.inference_mode()
    def step_probs(self, items: list[tuple[str, list[str]]]) -> list[list[float]]:
        """p(positive class) at each target of each (question, steps), from one batched forward pass."""
        self.model.eval()
        encoded = [self.encode(q, steps) for q, steps in items]
        if not any(pos for _, pos in encoded):
            return [[] for _ in encoded]
        probs = self.class_logits(self.collate(encoded)).float().softmax(-1)[:, 0].tolist()
        out, k = [], 0
        for _, pos in encoded:
            out.append(probs[k : k + len(pos)])
            k += len(pos)
        return out
