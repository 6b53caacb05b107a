"""A sampling loop where a row leaves the batch and the KV cache as soon as it is done (`transformers.generate`
keeps it to the longest row's end). Each row draws from its own counter-based stream (`row_sampling`), so it does not
depend on its batch; the host reads the tokens every `check_every` steps (each read stalls a GPU)."""

import functools
from typing import Any

from prmkit.generate.backends.base import SamplingConfig
from prmkit.generate.backends.row_sampling import sample_rows, seed_keys, step_keys

__all__ = ["decode_rows", "grow_layers", "growing_layer_class", "stop_tail_tokens"]


def stop_tail_tokens(tokenizer: Any, stop: tuple[str, ...]) -> int:
    """How many last tokens of a row must be decoded to see any stop string end there: the longest stop string's
    token count plus 2 (a stop string may start inside a token and end inside another)."""
    return max((len(tokenizer(s, add_special_tokens=False)["input_ids"]) for s in stop), default=0) + 2


def decode_rows(model: Any, tokenizer: Any, last: Any, mask: Any, cache: Any, cfg: SamplingConfig,
                seeds: list[int], cache_name: str = "past_key_values",
                check_every: int | None = None, keep_rows: bool = False) -> list[list[int]]:
    """Sample up to `cfg.max_new_tokens` tokens per row; returns each row's new tokens. `last` (R,): each row's last
    prompt token; `mask` (R, T): the prompt's attention mask (left padding 0); `cache`: the KV cache of the first T - 1
    columns; `seeds` (R,); `check_every`: steps between reads (None: 1 on a CPU, 8 on a GPU); `keep_rows`: finished
    rows stay in the batch and `cache` (for the prefix cache). A row ends after its end of sequence (kept), the token
    completing a stop string, or the token limit; finished rows leave once they are an eighth of the batch."""
    import torch

    rows, device = len(seeds), mask.device
    every = check_every or (1 if device.type == "cpu" else 8)
    out: list[list[int]] = [[] for _ in range(rows)]
    slots = list(range(rows))  # row index of each batch position
    done = [False] * rows
    tail = stop_tail_tokens(tokenizer, cfg.stop) if cfg.stop else 0
    grow_layers(cache, mask.shape[1] + cfg.max_new_tokens)
    base = seed_keys(seeds, device)  # (R,): each row's key, per batch position
    positions = mask.sum(-1, keepdim=True) - 1  # (R, 1): the position of each row's last prompt token
    current = last[:, None]  # (R, 1)
    width = mask.shape[1]
    columns = torch.cat([mask, mask.new_ones(rows, cfg.max_new_tokens)], dim=1)  # (R, T + max_new)
    unread: list[Any] = []  # the picks (B,) of the steps since the last read
    with torch.inference_mode():
        for step in range(cfg.max_new_tokens):
            logits = model(input_ids=current, attention_mask=columns[:, : width + step], position_ids=positions,
                           use_cache=True, **{cache_name: cache}).logits[:, -1]  # (B, V)
            picks = sample_rows(logits, cfg.temperature, cfg.top_p, step_keys(base, step))  # (B,), on the device
            unread.append(picks)
            current, positions = picks[:, None], positions + 1
            if len(unread) < every and step + 1 < cfg.max_new_tokens:
                continue
            _read(torch.stack(unread, 1).tolist(), slots, out, done, tokenizer, cfg, tail)  # one host read
            unread = []
            still = [b for b, r in enumerate(slots) if not done[r]]
            if not still:
                break
            if not keep_rows and (len(slots) - len(still)) * 8 >= len(slots):  # compact: finished rows leave
                index = torch.tensor(still, device=device)
                cache.batch_select_indices(index)
                columns, positions, current, base = columns[index], positions[index], current[index], base[index]
                slots = [slots[b] for b in still]
    return out


def _read(steps: list[list[int]], slots: list[int], out: list[list[int]], done: list[bool], tokenizer: Any,
          cfg: SamplingConfig, tail: int) -> None:
    """Append the picks of the steps since the last read (`steps[b]`: batch position b's) to each live row, one step
    at a time, ending a row at its end of sequence, stop string or token limit."""
    eos = tokenizer.eos_token_id
    for b, r in enumerate(slots):
        for token in steps[b]:
            if done[r]:
                break
            out[r].append(token)
            done[r] = (token == eos or len(out[r]) >= cfg.max_new_tokens
                       or bool(tail and _ends_in_stop(tokenizer, out[r][-tail:], cfg.stop)))


def grow_layers(cache: Any, capacity: int) -> None:
    """Give each layer of a `DynamicCache` room for `capacity` positions, so that a decoding step writes its key
    and value in place instead of concatenating the whole cache again (`GrowingLayer`)."""
    for i, layer in enumerate(cache.layers):
        if type(layer).__name__ == "DynamicLayer" and getattr(layer, "is_initialized", False):
            cache.layers[i] = growing_layer_class()(layer.keys, layer.values, capacity)


@functools.cache
def growing_layer_class() -> type:
    """`GrowingLayer`, defined on first use (transformers is imported only then)."""
    from transformers.cache_utils import DynamicLayer

    class GrowingLayer(DynamicLayer):
        """A `DynamicLayer` whose keys and values live in preallocated buffers (B, H, capacity, D): `update` writes
        in place and returns views of the filled part."""

        def __init__(self, keys: Any, values: Any, capacity: int) -> None:
            super().__init__()
            self.device, self.is_initialized = keys.device, True
            self.length = keys.shape[-2]
            shape = (*keys.shape[:2], max(capacity, self.length), keys.shape[-1])
            self.key_buffer, self.value_buffer = keys.new_empty(shape), values.new_empty(shape)
            self.key_buffer[:, :, : self.length] = keys
            self.value_buffer[:, :, : self.length] = values
            self._views()

        def _views(self) -> None:
            self.keys = self.key_buffer[:, :, : self.length]
            self.values = self.value_buffer[:, :, : self.length]

        def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
            import torch

            end = self.length + key_states.shape[-2]
            if end > self.key_buffer.shape[-2]:  # beyond the room given: double it
                more = (*self.key_buffer.shape[:2], end, self.key_buffer.shape[-1])
                self.key_buffer = torch.cat([self.key_buffer, self.key_buffer.new_empty(more)], dim=-2)
                self.value_buffer = torch.cat([self.value_buffer, self.value_buffer.new_empty(more)], dim=-2)
            self.key_buffer[:, :, self.length : end] = key_states
            self.value_buffer[:, :, self.length : end] = value_states
            self.length = end
            self._views()
            return self.keys, self.values

        def get_seq_length(self) -> int:
            return self.length

        def batch_select_indices(self, indices: Any) -> None:
            self.key_buffer, self.value_buffer = self.key_buffer[indices], self.value_buffer[indices]
            self._views()

    return GrowingLayer


def _ends_in_stop(tokenizer: Any, tokens: list[int], stop: tuple[str, ...]) -> bool:
    """Whether the text of a row's last tokens holds a stop string (the row is done: the rest would be cut)."""
    text = tokenizer.decode(tokens, skip_special_tokens=True)
    return any(s in text for s in stop)
