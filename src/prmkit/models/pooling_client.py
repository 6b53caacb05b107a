"""`openai-pooling`: a PRM served by vLLM (STEP pooler), scored through its `/pooling` endpoint (task
`token_classify`) from prmkit's own step-wise token ids; options in docs/reward_models.md."""

import math
from collections.abc import Iterator
from functools import partial
from typing import Any

from prmkit.models.bounded_http import HttpLimits, excerpt, post_json
from prmkit.models.scorer import ScorerError
from prmkit.models.step_inputs import CHAT, LayoutScorer, check_options, layout_for, local_dir, options_layout
from prmkit.models.stepwise import StepLayout, encode_text

__all__ = ["OPTIONS", "PoolingScorer", "load"]

KIND = "openai-pooling"
OPTIONS = ("model", "tokenizer", "sep", "sep_id", "positive", "prompt", "system", "max_batch", "request",
           "connect_timeout", "timeout", "max_reply_mb", "retries")


class PoolingScorer(LayoutScorer):
    """Step scores = row[positive] of a vLLM `/pooling` reply, one row per separator (or per token: the
    separators' kept); ids from the server's `/tokenize` unless `load` gives it a local tokenizer."""

    def __init__(self, url: str, positive: int | None = None, model: str | None = None, max_batch: int = 32,
                 limits: HttpLimits | None = None, request: dict[str, Any] | None = None):
        self.url, self.layout, self._encode = url.rstrip("/"), StepLayout("{question}", ()), self.tokenize
        self._ids: dict[tuple[str, bool], list[int]] = {}
        self.positive, self.model, self.max_batch = positive, model, max_batch
        self.limits, self.request = limits or HttpLimits(), request or {}
        self.scored_tokens = 0

    def tokenize(self, text: str, special: bool) -> list[int]:
        """Token ids of `text` from the server's /tokenize, each text asked once."""
        if text and (text, special) not in self._ids:
            answer = self.post("tokenize", {"prompt": text, "add_special_tokens": special})
            tokens = answer.get("tokens") if isinstance(answer, dict) else None
            if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
                self.fail("tokenize", f"the reply has no list of token ids 'tokens' ({excerpt(str(answer))})",
                          "is this vLLM's /tokenize? or give a local tokenizer (option tokenizer)")
            self._ids[text, special] = tokens
        return self._ids.get((text, special), [])

    def post(self, route: str, body: dict[str, Any]) -> Any:
        """The JSON reply of POST `body` to URL/route (`bounded_http.post_json`)."""
        return post_json(f"{self.url}/{route}", ({"model": self.model} if self.model else {}) | body, self.limits,
                         KIND)

    def fail(self, route: str, what: str, todo: str) -> None:
        raise ScorerError(f"{KIND} {self.url}/{route}: {what}; {todo}")

    def score_many(self, items: list[tuple[str, list[str]]]) -> Iterator[tuple[int, list[float]]]:
        encoded = [self.encode(q, steps) for q, steps in items]
        for start in range(0, len(encoded), self.max_batch):
            chunk = encoded[start : start + self.max_batch]
            answer = self.post("pooling", {"input": [ids for ids, _ in chunk], "task": "token_classify"}
                               | self.request)
            rows = self._results(answer, len(chunk))
            for k, (ids, positions) in enumerate(chunk):
                yield start + k, self._step_scores(rows[k], ids, positions, start + k)
            self.scored_tokens += sum(len(ids) for ids, _ in chunk)

    def _results(self, answer: Any, n: int) -> dict[int, list]:
        """{index: rows} of a /pooling reply for `n` traces, each trace once."""
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            keys = ", ".join(map(str, answer)) if isinstance(answer, dict) else type(answer).__name__
            self.fail("pooling", f"the reply has no 'data' list (it holds: {keys or 'nothing'})",
                      "is this vLLM's /pooling endpoint (`vllm serve MODEL --runner pooling`)?")
        try:
            rows = {int(d["index"]): d["data"] for d in data}
        except (TypeError, KeyError, ValueError):
            rows = {}
        if sorted(rows) != list(range(n)) or not all(isinstance(r, list) for r in rows.values()):
            self.fail("pooling", f"the reply has {len(data)} results for {n} traces, or results without an index "
                      "and a list 'data'", "is this vLLM's /pooling endpoint with task token_classify?")
        return rows

    def _step_scores(self, rows: list, ids: list[int], positions: list[int], item: int) -> list[float]:
        if len(rows) == len(ids) and len(ids) != len(positions):  # a row per token: keep the separators'
            rows = [rows[p] for p in positions]
        if len(rows) != len(positions):
            self.fail("pooling", f"{len(rows)} rows for the {len(positions)} steps of trace {item}",
                      f"serve with the STEP pooler at the separator {list(self.layout.sep_ids)}")
        rows = [r if isinstance(r, list) else [r] for r in rows]
        positive = self.positive if self.positive is not None else (0 if rows and len(rows[0]) == 1 else 1)
        if short := next((r for r in rows if len(r) <= positive), None):
            self.fail("pooling", f"a row of {len(short)} value(s), but the positive class is {positive}",
                      "set the option positive (0 for a one-label head)")
        try:
            scores = [float(r[positive]) for r in rows]
        except (TypeError, ValueError):
            scores = [math.nan]
        if bad := next((s for s in scores if not math.isfinite(s)), None):
            self.fail("pooling", f"a step score of trace {item} is {bad} (not a finite number)",
                      "check the served model's dtype and outputs (e.g. --dtype float32)")
        return scores


def _limits(options: dict[str, Any]) -> HttpLimits:
    d = HttpLimits()
    limits = HttpLimits(float(options.get("connect_timeout", d.connect)), float(options.get("timeout", d.read)),
                        float(options.get("max_reply_mb", d.max_mb)), int(options.get("retries", d.retries)))
    if min(limits.connect, limits.read, limits.max_mb) <= 0 or limits.retries < 0:
        raise ValueError(f"{KIND}: connect_timeout, timeout and max_reply_mb must be > 0, retries >= 0")
    return limits


def load(url: str, **options: Any) -> PoolingScorer:
    """The scorer of the vLLM server at `url` (http://host:port), checked with one one-step trace."""
    check_options(KIND, options, OPTIONS)
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"{KIND}: '{url}' is not an http(s) URL of a vLLM server")
    positive = options.get("positive")
    scorer = PoolingScorer(url, None if positive is None else int(positive), options.get("model"),
                           int(options.get("max_batch", 32)), _limits(options), options.get("request"))
    if options.get("tokenizer"):
        from transformers import AutoConfig, AutoTokenizer

        path = local_dir(f"{KIND} (option tokenizer)", str(options["tokenizer"]), "tokenizer", config=False)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        try:
            fields = getattr(AutoConfig.from_pretrained(path, local_files_only=True), "prmkit", None) or {}
        except (OSError, ValueError):
            fields = {}
        scorer._encode = partial(encode_text, tokenizer)
        scorer.layout = options_layout(tokenizer, options, fields)
        if fields and positive is None:
            scorer.positive = 0
    else:
        sep = [int(options["sep_id"])] if options.get("sep_id") is not None else \
            scorer.tokenize(str(options.get("sep") or ""), False)
        if not sep:
            raise ValueError(f"{KIND} without a tokenizer: give the option sep or sep_id")
        prompt = options.get("prompt") or "{question}\n"
        if prompt == CHAT:
            raise ValueError(f"{KIND}: prompt 'chat' needs a local tokenizer (option tokenizer)")
        scorer.layout = layout_for(None, prompt, sep)  # a prompt without {question} is refused, as with a tokenizer
    scorer.score_steps("1 + 1 = ?", [["1 + 1 = 2"]])  # the server answers, on this route, in this shape
    return scorer
