"""The information I_i(y) = sum_t log p(y_t | q, R_{1:i}, y_<t) of every answer y after every step prefix, in one
forward pass per CoT through a block attention mask (MCNIG paper sec 3.2.1, 3.2.4, appendix A)."""

from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import torch

from prmkit.models.step_inputs import length_batches
from prmkit.models.stepwise import encode_steps, encode_text

__all__ = ["CPU_FORWARD_TOKENS", "InformationScorer", "Segments", "build_segments", "pack_rows"]

# padded tokens per forward pass on a CPU: ~20% faster than 16,384 on 2 cores (SmolLM2-135M, benchmarks/gpu_check.py)
CPU_FORWARD_TOKENS = 2048


@dataclass
class Segments:
    """One packed sequence: shared prefix + per-boundary (cue, answers) blocks, with what to read back."""

    ids: list[int]
    positions: list[int]
    # For each block: (context_end, cue_start, cue_len, block_start, block_end): rows block_start:block_end
    # attend to ids[:context_end], to their cue ids[cue_start:cue_start+cue_len], and causally to themselves.
    blocks: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    # reads[i][a] = list of (position whose logits predict the token, token id) for answer a at boundary i
    reads: list[list[list[tuple[int, int]]]] = field(default_factory=list)
    prefix_len: int = 0


def build_segments(prefix_ids: list[int], ends: list[int], cue_ids: list[int], answers: list[list[int]]) -> Segments:
    """Pack a prefix and, for each boundary `ends[i]` (prefix length after step i), a cue block and one block per
    answer y holding y_1..y_{T-1}, its position ids continuing from the boundary:

        [prompt][r_1 sep]...[r_N sep] | [cue]_1 [y_a]_1 [y_b]_1 ... | [cue]_2 [y_a]_2 ... | ...
        block i attends to prefix[:end_i] + its own cue + itself
    """
    seg = Segments(ids=list(prefix_ids), positions=list(range(len(prefix_ids))), prefix_len=len(prefix_ids))
    for end in ends:
        if end < 1:
            raise ValueError("a prefix must hold at least one token before the first answer")
        cue_start = len(seg.ids)
        seg.ids += cue_ids
        seg.positions += range(end, end + len(cue_ids))
        anchor = len(seg.ids) - 1 if cue_ids else end - 1
        row = []
        for y in answers:
            if not y:
                raise ValueError("an answer must have at least one token")
            start = len(seg.ids)
            seg.ids += y[:-1]
            seg.positions += range(end + len(cue_ids), end + len(cue_ids) + len(y) - 1)
            seg.blocks.append((end, cue_start, len(cue_ids), start, len(seg.ids)))
            row.append([(anchor, y[0])] + [(start + t - 1, y[t]) for t in range(1, len(y))])
        if cue_ids:
            seg.blocks.append((end, cue_start, 0, cue_start, cue_start + len(cue_ids)))
        seg.reads.append(row)
    return seg


def pack_rows(lengths: list[int], capacity: int) -> list[list[int]]:
    """Indices of sequences in rows of at most `capacity` tokens (a longer one alone), first fit, longest first.
    Example: lengths (5, 2, 3, 4), capacity 7 -> [[0, 1], [3, 2]]."""
    rows: list[list[int]] = []
    room: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        fit = next((r for r, free in enumerate(room) if lengths[i] <= free), None)
        if fit is None:
            rows.append([i])
            room.append(capacity - lengths[i])
        else:
            rows[fit].append(i)
            room[fit] -= lengths[i]
    return rows


def _block_mask(seg: Segments) -> torch.Tensor:
    """Boolean (L, L) mask of one packed sequence, True = may attend."""
    allowed = torch.zeros(len(seg.ids), len(seg.ids), dtype=torch.bool)
    p = seg.prefix_len
    allowed[:p, :p] = torch.ones(p, p, dtype=torch.bool).tril()
    for context_end, cue_start, cue_len, start, end in seg.blocks:
        allowed[start:end, :context_end] = True
        allowed[start:end, cue_start : cue_start + cue_len] = True
        allowed[start:end, start:end] = torch.ones(end - start, end - start, dtype=torch.bool).tril()
    return allowed


class InformationScorer:
    """Computes I_i(y) for a model, a `{question}` prompt template and an `{answer}` cue template; a space before
    `{answer}` moves into the answer so that BPE tokenises " 42" as in running text."""

    def __init__(self, model: Any, tokenizer: Any, prompt_template: str, cue_template: str, sep: str = "\n"):
        if "{answer}" not in cue_template:
            raise ValueError("the answer cue template must contain '{answer}'")
        self.model, self.tokenizer, self.sep = model, tokenizer, sep
        self.prompt_template = prompt_template
        cue, self.answer_suffix = cue_template.split("{answer}", 1)
        self.answer_prefix = " " if cue.endswith(" ") else ""
        self.cue_ids = encode_text(tokenizer, cue.rstrip(" ") if self.answer_prefix else cue)
        self.tokens_read = 0  # input tokens fed to the model (excluding padding)
        self.max_tokens = 16384  # padded tokens per forward pass of `run_batched`
        self.row_tokens = 256  # `run_batched` packs short sequences into rows of up to this many tokens
        self.forward_tokens = 0  # padded tokens per forward pass, at most max_tokens (0: CPU_FORWARD_TOKENS on a CPU)
        self._head64: tuple[torch.Tensor, torch.Tensor, torch.Tensor | None] | None = None

    def prompt(self, question: str) -> str:
        return self.prompt_template.format(question=question)

    def answer_ids(self, answer: str) -> list[int]:
        return encode_text(self.tokenizer, f"{self.answer_prefix}{answer}{self.answer_suffix}")

    def segments(self, question: str, steps: list[str], answers: list[str], with_step0: bool) -> Segments:
        ids, ends = encode_steps(self.tokenizer, self.prompt(question), steps, self.sep)
        return build_segments(ids, ends if with_step0 else ends[1:], self.cue_ids,
                              [self.answer_ids(a) for a in answers])

    @torch.inference_mode()
    def run(self, segs: list[Segments], rows: list[list[int]] | None = None) -> list[list[list[float]]]:
        """One batched forward pass; returns I[seq][boundary][answer]. `rows`: which sequences share a row (default
        one a row), each under its own block mask."""
        rows = [[i] for i in range(len(segs))] if rows is None else rows
        lengths = [sum(len(segs[i].ids) for i in row) for row in rows]
        length = max(lengths)
        pad_id = self.tokenizer.pad_token_id or 0
        ids = torch.full((len(rows), length), pad_id, dtype=torch.long)
        pos = torch.zeros((len(rows), length), dtype=torch.long)
        mask = torch.zeros((len(rows), 1, length, length), dtype=torch.bool)
        where: dict[int, tuple[int, int]] = {}  # sequence -> (its row, its offset in the row)
        for b, row in enumerate(rows):
            at = 0
            for i in row:
                s, n, where[i] = segs[i], len(segs[i].ids), (b, at)
                ids[b, at : at + n] = torch.tensor(s.ids)
                pos[b, at : at + n] = torch.tensor(s.positions)
                mask[b, 0, at : at + n, at : at + n] = _block_mask(s)
                self.tokens_read += n
                at += n
            pad = torch.arange(lengths[b], length)
            mask[b, 0, pad, pad] = True  # padding attends to itself only
        decoder = getattr(self.model, self.model.base_model_prefix)
        device = self.model.device
        hidden = decoder(input_ids=ids.to(device), attention_mask=self._attention_bias(mask.to(device)),
                         position_ids=pos.to(device))
        hidden = hidden.last_hidden_state  # (B, L, H)
        flat = [(where[i][0], where[i][1] + p, tok) for i, s in enumerate(segs) for row in s.reads for y in row
                for p, tok in y]
        bi, pi, ti = torch.tensor(flat, dtype=torch.long, device=device).reshape(-1, 3).T
        logp = iter(self._token_logprobs(hidden[bi, pi], ti).tolist())  # in `flat`'s order
        return [[[float(sum(islice(logp, len(y)))) for y in row] for row in s.reads] for s in segs]

    def run_batched(self, segs: list[Segments]) -> list[list[list[float]]]:
        """`run` over batches of at most `max_tokens` padded tokens, sequences packed into rows of up to
        `row_tokens` (or the longest); results in input order."""
        out: list[list[list[float]]] = [[] for _ in segs]
        lengths = [len(s.ids) for s in segs]
        cpu = self.model.device.type == "cpu"
        budget = min(self.max_tokens, self.forward_tokens or (CPU_FORWARD_TOKENS if cpu else self.max_tokens))
        packed = pack_rows(lengths, min(max(max(lengths, default=1), self.row_tokens), budget))
        for batch in length_batches([sum(lengths[i] for i in row) for row in packed], budget, len(packed)):
            members = [i for r in batch for i in packed[r]]
            local = {i: n for n, i in enumerate(members)}
            results = self.run([segs[i] for i in members], [[local[i] for i in packed[r]] for r in batch])
            for i, res in zip(members, results, strict=True):
                out[i] = res
        return out

    def _attention_bias(self, allowed: torch.Tensor) -> torch.Tensor:
        """The block mask as the attention takes it: boolean for SDPA, additive (0 / dtype min) for eager."""
        if getattr(self.model.config, "_attn_implementation", "sdpa") == "sdpa":
            return allowed
        dtype = self.model.dtype
        return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill(~allowed,
                                                                                          torch.finfo(dtype).min)

    def _token_logprobs(self, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """log p(target | hidden) for rows (R, H); the LM head runs in float64 to add no rounding to the sums."""
        head = self.model.get_output_embeddings()
        if self._head64 is None or self._head64[0] is not head.weight:
            bias = head.bias.double() if getattr(head, "bias", None) is not None else None
            self._head64 = (head.weight, head.weight.detach().double().T.contiguous(), bias)  # (H, V)
        _, weight, bias = self._head64
        logits = hidden.double() @ weight  # (R, V)
        if bias is not None:
            logits = logits + bias
        return logits.gather(1, targets[:, None])[:, 0] - logits.logsumexp(-1)

    def information(self, question: str, traces: list[list[str]], answers: list[str]) -> list[list[list[float]]]:
        """I[c][i][a] (nats, <= 0) for every trace c, i = 0..N_c and answer a; I_0 computed once and shared.
        Example: 1 step, answers ["4", "5"] -> [[I_0("4"), I_0("5")], [I_1("4"), I_1("5")]]."""
        return self.tables(traces, self.run_batched(self.pool_segments(question, traces, answers)))

    def pool_segments(self, question: str, traces: list[list[str]], answers: list[str]) -> list[Segments]:
        """The packed sequences of one problem: I_0's (no steps), then one per trace with steps."""
        segs = [self.segments(question, [], answers, with_step0=True)]
        return segs + [self.segments(question, steps, answers, with_step0=False) for steps in traces if steps]

    @staticmethod
    def tables(traces: list[list[str]], results: list[list[list[float]]]) -> list[list[list[float]]]:
        """`information`'s tables from `run_batched`'s results on `pool_segments` (I_0 shared by the traces)."""
        step0, rest = results[0][0], iter(results[1:])
        return [[step0] + (next(rest) if steps else []) for steps in traces]

    def naive_information(self, question: str, steps: list[str], answers: list[str],
                          batch_size: int = 1) -> list[list[float]]:
        """Reference: re-encode prompt + r_1..r_i + cue + y for every (i, y), O(N^2) tokens, `batch_size` a pass."""
        ids, ends = encode_steps(self.tokenizer, self.prompt(question), steps, self.sep)
        ys = [self.answer_ids(a) for a in answers]
        jobs = [(ids[:end] + self.cue_ids + y, len(y)) for end in ends for y in ys]
        values: list[float] = []
        for k in range(0, len(jobs), batch_size):
            chunk = jobs[k : k + batch_size]
            length = max(len(seq) for seq, _ in chunk)
            batch = torch.zeros((len(chunk), length), dtype=torch.long)
            for b, (seq, _) in enumerate(chunk):
                batch[b, : len(seq)] = torch.tensor(seq)
            attention = (torch.arange(length)[None, :] < torch.tensor([len(q) for q, _ in chunk])[:, None]).long()
            decoder = getattr(self.model, self.model.base_model_prefix)
            device = self.model.device
            with torch.inference_mode():
                hidden = decoder(input_ids=batch.to(device), attention_mask=attention.to(device)).last_hidden_state
                for b, (seq, n) in enumerate(chunk):
                    first = len(seq) - n
                    rows = torch.arange(first - 1, len(seq) - 1, device=device)
                    target = torch.tensor(seq[first:], device=device)
                    values.append(float(self._token_logprobs(hidden[b, rows], target).sum()))
            self.tokens_read += sum(len(seq) for seq, _ in chunk)
        return [values[i * len(answers) : (i + 1) * len(answers)] for i in range(len(ends))]
