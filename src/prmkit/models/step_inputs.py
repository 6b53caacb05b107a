"""Step inputs of a PRM read at a separator token (a `StepLayout` from the scorer's options), and the batched
forward pass the local scorers share."""

from collections.abc import Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from prmkit.models.scorer import StepScorer
from prmkit.models.stepwise import Encoder, StepLayout, encode_text

__all__ = ["CHAT", "LayoutScorer", "LocalStepScorer", "chat_prompt", "check_options", "layout_for",
           "load_local", "local_dir", "options_layout", "separator_ids"]

CHAT = "chat"  # the prompt option that means: the tokenizer's chat template, the question as the user's turn
_SLOT = "\x00question\x00"


def check_options(kind: str, options: dict[str, Any], known: tuple[str, ...]) -> None:
    if unknown := sorted(set(options) - set(known)):
        raise ValueError(f"scorer '{kind}': unknown option(s) {', '.join(unknown)}; it takes {', '.join(known)}")


def local_dir(kind: str, path: str, what: str = "model", config: bool = True) -> str:
    """`path` when it is a local directory (with a config.json, unless `config` is False), else ValueError: no hub."""
    where = Path(path).expanduser()
    if not where.exists():
        raise ValueError(f"{kind}: no such directory {path} (prmkit loads local {what}s only; download a hub "
                         "model to a directory first and give that directory)")
    if not where.is_dir():
        raise ValueError(f"{kind}: {path} is a file, not a {what} directory (a data file? give the directory that "
                         "holds the model's config.json)")
    if config and not (where / "config.json").is_file():
        raise ValueError(f"{kind}: {path} holds no config.json, so it is not a saved transformers {what}")
    return str(where)


def load_local(auto: Any, kind: str, path: str, tokenizer: Any, missing_hint: str, **kwargs: Any) -> Any:
    """`auto.from_pretrained(path)` from local files only; ValueError when weights are missing (they would be
    random) or the tokenizer has more tokens than the embeddings."""
    model, info = auto.from_pretrained(path, local_files_only=True, output_loading_info=True, **kwargs)
    if missing := list(info.get("missing_keys") or []):
        names = ", ".join(sorted(missing)[:4]) + (f" (+{len(missing) - 4} more)" if len(missing) > 4 else "")
        raise ValueError(f"{kind}: {path} has no weights for {names}; transformers would initialise them at "
                         f"random and every score would be noise. {missing_hint}")
    rows = model.get_input_embeddings().num_embeddings
    if len(tokenizer) > rows:
        raise ValueError(f"{kind}: the tokenizer of {path} has {len(tokenizer)} tokens, the model's embeddings "
                         f"{rows} rows: they are not one model's (save the model's own tokenizer beside it)")
    return model


def chat_prompt(tokenizer: Any, system: str | None = None) -> str:
    """The tokenizer's chat template rendered for a user turn `{question}` (and a `system` turn), up to the start
    of the assistant's turn, as a format string."""
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError("prompt 'chat': the tokenizer has no chat template; give a prompt format string instead")
    turns = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": _SLOT}]
    text = tokenizer.apply_chat_template(turns, tokenize=False, add_generation_prompt=True)
    return text.replace("{", "{{").replace("}", "}}").replace(_SLOT, "{question}")


def layout_for(tokenizer: Any, prompt: str, sep_ids: list[int], system: str | None = None) -> StepLayout:
    """The layout of `prompt` (a format string, or CHAT) with separator ids `sep_ids`."""
    if prompt == CHAT:
        return StepLayout(chat_prompt(tokenizer, system), tuple(sep_ids), special=False)
    if "{question}" not in prompt:
        raise ValueError(f"prompt {prompt!r} has no {{question}}: give a format string, or 'chat'")
    return StepLayout(prompt, tuple(sep_ids))


def options_layout(tokenizer: Any, options: dict[str, Any], export: dict[str, Any]) -> StepLayout:
    """The layout of a scorer's `options`, else of an export's config.json `prmkit`, else the chat template, else
    `{question}\\n`."""
    sep_id = options.get("sep_id", None if "sep" in options else export.get("sep_token_id"))
    sep = separator_ids(tokenizer, options.get("sep"), sep_id)
    chat = CHAT if getattr(tokenizer, "chat_template", None) else "{question}\n"
    return layout_for(tokenizer, options.get("prompt") or export.get("prompt") or chat, sep, options.get("system"))


def separator_ids(tokenizer: Any, token: str | None, token_id: int | None) -> list[int]:
    """The ids appended after each step: [`token_id`] when given, else the ids of `token`."""
    if token_id is not None:
        return [int(token_id)]
    if not token:
        raise ValueError("no separator: give the option sep (a token) or sep_id")
    if not (ids := encode_text(tokenizer, token)):
        raise ValueError(f"sep {token!r} encodes to no token")
    return ids


def length_batches(lengths: list[int], max_tokens: int, max_batch: int) -> Iterator[list[int]]:
    """Indices of items with these token lengths, sorted by length, in batches of at most max_tokens padded
    tokens and max_batch items. Example: lengths (5, 2, 4), max_tokens 8 -> [1, 2], [0]."""
    current: list[int] = []
    for idx in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if (current and (len(current) + 1) * lengths[idx] > max_tokens) or len(current) >= max_batch:
            yield current
            current = []
        current.append(idx)
    if current:
        yield current


class LayoutScorer(StepScorer):
    """A `BatchStepScorer` whose traces are encoded by `layout` with `_encode`; a subclass gives `score_many`."""

    layout: StepLayout
    _encode: Encoder

    def encode(self, question: str, steps: list[str]) -> tuple[list[int], list[int]]:
        return self.layout.encode(self._encode, question, steps)

    def score_steps(self, question: str, step_lists: list[list[str]]) -> list[list[float]]:
        return [scores for _, scores in sorted(self.score_many([(question, steps) for steps in step_lists]))]


class LocalStepScorer(LayoutScorer):
    """A `LayoutScorer` over a local model, batched by length and right-padded; a subclass gives `values`."""

    def __init__(self, model: Any, tokenizer: Any, layout: StepLayout, max_tokens: int = 4096, max_batch: int = 64):
        self.model, self.tokenizer, self.layout = model.eval(), tokenizer, layout
        self.max_tokens, self.max_batch = max_tokens, max_batch
        self.scored_tokens = 0
        self._encode = partial(encode_text, tokenizer)

    def hidden(self, input_ids: Any, attention_mask: Any) -> Any:
        """Final hidden states (B, T, H) of the decoder body, without the full-vocabulary head."""
        return self.model.get_decoder()(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    def collate(self, encoded: list[tuple[list[int], list[int]]]) -> dict[str, Any]:
        """Right-padded `input_ids`, `attention_mask` (B, T) and `positions` (P, 2) as (row, token) pairs."""
        import torch

        width = max(len(ids) for ids, _ in encoded)
        input_ids = torch.full((len(encoded), width), self.tokenizer.pad_token_id or 0, dtype=torch.long)  # (B, T)
        mask = torch.zeros((len(encoded), width), dtype=torch.long)  # (B, T)
        for b, (ids, _) in enumerate(encoded):
            input_ids[b, : len(ids)], mask[b, : len(ids)] = torch.tensor(ids), 1
        positions = torch.tensor([(b, p) for b, (_, pos) in enumerate(encoded) for p in pos]).view(-1, 2)  # (P, 2)
        return {"input_ids": input_ids, "attention_mask": mask, "positions": positions}

    def values(self, input_ids: Any, attention_mask: Any, positions: Any) -> list[float]:
        """The score at each (row, token) of `positions` (P, 2)."""
        raise NotImplementedError

    def score_many(self, items: list[tuple[str, list[str]]]) -> Iterator[tuple[int, list[float]]]:
        """(index, step scores) of (question, steps) items, batched by length across questions, as each is done."""
        encoded = [self.encode(q, steps) for q, steps in items]
        for batch in length_batches([len(ids) for ids, _ in encoded], self.max_tokens, self.max_batch):
            scores = self._scores([encoded[i] for i in batch])
            self.scored_tokens += sum(len(encoded[i][0]) for i in batch)
            yield from zip(batch, scores, strict=True)

    def _scores(self, encoded: list[tuple[list[int], list[int]]]) -> list[list[float]]:
        import torch

        if not any(pos for _, pos in encoded):
            return [[] for _ in encoded]
        device = next(self.model.parameters()).device
        with torch.inference_mode():
            flat = iter(self.values(**{k: v.to(device) for k, v in self.collate(encoded).items()}))
        return [list(islice(flat, len(pos))) for _, pos in encoded]
