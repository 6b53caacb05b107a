"""`openai-pooling`: a PRM served by vLLM, scored through its `/pooling` endpoint (task `token_classify`), so a
PRM on a GPU scores from a CPU client (`prmkit score`, `search`, `bench`, RL rewards alike).

The server runs the model with the STEP pooler, e.g.

    vllm serve Qwen/Qwen2.5-Math-PRM-7B --runner pooling --trust-remote-code
    vllm serve runs/prm_hf --runner pooling --convert classify \\
        --pooler-config '{"pooling_type": "STEP", "step_tag_id": 256}'       # prmkit export-hf prints this line

and the client sends token ids, built as every local scorer builds them (prompt, then each step tokenised on its own
followed by the separator's ids; `models.stepwise`):

    POST URL/pooling  {"model": M, "input": [[ids of trace 1], [ids of trace 2]], "task": "token_classify"}
    ->  {"data": [{"index": 0, "object": "pooling", "data": [[p_0, p_1], ...]}, ...], ...}

one row of class probabilities per separator (the STEP pooler keeps the rows at `step_tag_id`; a server pooling
every token returns a row per token, of which the separators' are kept). The step score is row[positive].

The ids come from a local tokenizer (option `tokenizer`: a directory; a `prmkit export-hf` output also gives the
prompt, separator and positive class from its config.json) or, without one, from the server's `/tokenize`
endpoint (each text on its own). Options: `model` (the served name; default: none sent), `tokenizer`, `sep` /
`sep_id`, `positive` (default: 0 for a prmkit export or a one-value row, else 1: Qwen2.5-Math-PRM's class; 0 for
Math-Shepherd served with `returned_token_ids` [good, bad]), `prompt`, `system`, `max_batch` (traces a request),
`timeout` (seconds), `request` (a JSON object merged into every request, e.g. {"use_activation": false} for a
one-label model's raw logit). Requests go only to `URL`.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from functools import partial
from typing import Any

from prmkit.models.step_inputs import CHAT, LayoutScorer, check_options, layout_for, options_layout
from prmkit.models.stepwise import StepLayout, encode_text

__all__ = ["OPTIONS", "PoolingScorer", "load"]

OPTIONS = ("model", "tokenizer", "sep", "sep_id", "positive", "prompt", "system", "max_batch", "timeout", "request")


class PoolingScorer(LayoutScorer):
    """A `BatchStepScorer` whose step scores come from a vLLM `/pooling` endpoint (module doc); its ids come from
    the server's `/tokenize` (`tokenize`) unless `load` gives it a local tokenizer."""

    def __init__(self, url: str, positive: int | None = None, model: str | None = None, max_batch: int = 32,
                 timeout: float = 600.0, request: dict[str, Any] | None = None):
        self.url, self.layout, self._encode = url.rstrip("/"), StepLayout("{question}", ()), self.tokenize
        self._ids: dict[tuple[str, bool], list[int]] = {}
        self.positive, self.model, self.max_batch, self.timeout = positive, model, max_batch, timeout
        self.request = request or {}
        self.scored_tokens = 0

    def tokenize(self, text: str, special: bool) -> list[int]:
        """Token ids of `text` from the server's /tokenize, each text asked once."""
        if text and (text, special) not in self._ids:
            self._ids[text, special] = self.post("tokenize", {"prompt": text, "add_special_tokens": special})["tokens"]
        return self._ids.get((text, special), [])

    def post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST `body` as JSON to URL/route; the decoded JSON answer (an HTTP error names the route and status)."""
        data = json.dumps(({"model": self.model} if self.model else {}) | body).encode("utf-8")
        req = urllib.request.Request(f"{self.url}/{route}", data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as answer:
                return json.loads(answer.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{self.url}/{route}: HTTP {e.code}: {e.read().decode('utf-8', 'replace')[:300]}") \
                from None

    def score_many(self, items: list[tuple[str, list[str]]]) -> Iterator[tuple[int, list[float]]]:
        encoded = [self.encode(q, steps) for q, steps in items]
        for start in range(0, len(encoded), self.max_batch):
            chunk = encoded[start : start + self.max_batch]
            answer = self.post("pooling", {"input": [ids for ids, _ in chunk], "task": "token_classify"}
                               | self.request)
            rows = {int(d["index"]): d["data"] for d in answer["data"]}
            for k, (ids, positions) in enumerate(chunk):
                yield start + k, self._step_scores(rows[k], ids, positions)
            self.scored_tokens += sum(len(ids) for ids, _ in chunk)

    def _step_scores(self, rows: list, ids: list[int], positions: list[int]) -> list[float]:
        if len(rows) == len(ids) and len(ids) != len(positions):  # a row per token: keep the separators'
            rows = [rows[p] for p in positions]
        if len(rows) != len(positions):
            raise ValueError(f"the server returned {len(rows)} rows for {len(positions)} steps: is it serving "
                             f"with the STEP pooler at the separator {list(self.layout.sep_ids)}?")
        rows = [r if isinstance(r, list) else [r] for r in rows]
        positive = self.positive if self.positive is not None else (0 if rows and len(rows[0]) == 1 else 1)
        return [float(r[positive]) for r in rows]


def load(url: str, **options: Any) -> PoolingScorer:
    """The scorer of the vLLM server at `url` (http://host:port; module doc for the options)."""
    check_options("openai-pooling", options, OPTIONS)
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"openai-pooling: '{url}' is not an http(s) URL of a vLLM server")
    positive = options.get("positive")
    scorer = PoolingScorer(url, None if positive is None else int(positive), options.get("model"),
                           int(options.get("max_batch", 32)), float(options.get("timeout", 600.0)),
                           options.get("request"))
    if options.get("tokenizer"):
        from transformers import AutoConfig, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(options["tokenizer"])
        try:
            fields = getattr(AutoConfig.from_pretrained(options["tokenizer"]), "prmkit", None) or {}
        except (OSError, ValueError):
            fields = {}
        scorer._encode = partial(encode_text, tokenizer)
        scorer.layout = options_layout(tokenizer, options, fields)
        if fields and positive is None:
            scorer.positive = 0
        return scorer
    sep = [int(options["sep_id"])] if options.get("sep_id") is not None else \
        scorer.tokenize(str(options.get("sep") or ""), False)
    if not sep:
        raise ValueError("openai-pooling without a tokenizer: give the option sep or sep_id")
    prompt = options.get("prompt") or "{question}\n"
    if prompt == CHAT:
        raise ValueError("openai-pooling: prompt 'chat' needs a local tokenizer (option tokenizer)")
    scorer.layout = layout_for(None, prompt, sep)  # a prompt without {question} is refused, as with a tokenizer
    return scorer
