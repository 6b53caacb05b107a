"""The one-pass block-mask scorer equals naive re-encoding and processes exactly the tokens it should."""

import pytest

from prmkit.label.information_scorer import InformationScorer, build_segments
from prmkit.models.stepwise import encode_steps

QUESTION = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
STEPS = ["Tom has 3 apples .", "he buys 4 more , 3 + 4 = 7", "so the answer is 7"]
ANSWERS = ["7", "12", "30 dollars"]


@pytest.fixture(params=["the answer is {answer}", "{answer}"], ids=["cue", "no-cue"])
def scorer(request, tiny_lm):
    model, tok = tiny_lm
    return InformationScorer(model, tok, "Q: {question}\n", request.param, sep="\n")


def test_one_pass_equals_naive_reencoding(scorer):
    fast = scorer.information(QUESTION, [STEPS, STEPS[:1], []], ANSWERS)
    for steps, table in zip([STEPS, STEPS[:1], []], fast, strict=True):
        naive = scorer.naive_information(QUESTION, steps, ANSWERS)
        batched = scorer.naive_information(QUESTION, steps, ANSWERS, batch_size=5)
        assert [v for row in batched for v in row] == pytest.approx([v for row in naive for v in row], abs=1e-5)
        assert len(table) == len(steps) + 1 and len(table[0]) == len(ANSWERS)
        for row_fast, row_naive in zip(table, naive, strict=True):
            assert row_fast == pytest.approx(row_naive, abs=1e-4)
    assert fast[0][0] == fast[1][0] == fast[2][0]  # I_0 is shared


def test_block_mask_isolates_answers(scorer):
    """Scoring an answer alone or beside others gives the same value: blocks do not see each other."""
    alone = scorer.information(QUESTION, [STEPS], ANSWERS[1:2])[0]
    together = scorer.information(QUESTION, [STEPS], ANSWERS)[0]
    assert [r[1] for r in together] == pytest.approx([r[0] for r in alone], abs=1e-5)


def test_token_count_matches_formula(scorer):
    """Per CoT: |prompt| + sum |r_i + sep| + N * (|cue| + sum_a (|y_a| - 1)); I_0 once per problem."""
    ids_len = len(encode_steps(scorer.tokenizer, scorer.prompt(QUESTION), STEPS, scorer.sep)[0])
    ys = [len(scorer.answer_ids(a)) for a in ANSWERS]
    cue = len(scorer.cue_ids)
    prompt = len(encode_steps(scorer.tokenizer, scorer.prompt(QUESTION), [], scorer.sep)[0])
    before = scorer.tokens_read
    scorer.information(QUESTION, [STEPS], ANSWERS)
    per_boundary = cue + sum(y - 1 for y in ys)
    assert scorer.tokens_read - before == (prompt + per_boundary) + (ids_len + len(STEPS) * per_boundary)


def test_segments_positions_continue_from_boundary():
    seg = build_segments([5, 6, 7, 8], ends=[2, 4], cue_ids=[9], answers=[[1, 2], [3]])
    # boundary 2: cue at position 2, answer [1, 2] holds y_1 only at position 3; answer [3] holds nothing
    assert seg.ids == [5, 6, 7, 8, 9, 1, 9, 1] and seg.positions == [0, 1, 2, 3, 2, 3, 4, 5]
    assert seg.reads[0] == [[(4, 1), (5, 2)], [(4, 3)]] and seg.reads[1] == [[(6, 1), (7, 2)], [(6, 3)]]


def test_block_mask_works_with_eager_attention(tiny_base):
    """Eager attention adds the mask to its scores: the scorer must hand it an additive mask, not booleans."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny_base, attn_implementation="eager").eval()
    scorer = InformationScorer(model, AutoTokenizer.from_pretrained(tiny_base), "Q: {question}\n", "{answer}")
    fast = scorer.information(QUESTION, [STEPS], ANSWERS)[0]
    naive = scorer.naive_information(QUESTION, STEPS, ANSWERS)
    assert [v for row in fast for v in row] == pytest.approx([v for row in naive for v in row], abs=1e-4)


def _pools():
    from helpers import pool_dict
    from prmkit.data.records import Pool

    right, wrong = ["Tom has 3 apples .", "3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 12", "12"]
    return [Pool.from_dict(pool_dict(f"p{k}", QUESTION + " " * k, "7",
                                     [([*right[: 1 + k % 3], "7"], "7", True), (wrong * (1 + k % 2), "12", False),
                                      (["5 * 6 = 30", "30 dollars"], "30 dollars", False)]))
            for k in range(5)]


def test_many_problems_per_forward_pass_score_as_one_problem_per_pass(tiny_lm):
    from prmkit.label.information import InformationConfig, InformationLabeler, make_scorer

    model, tok = tiny_lm
    methods = ["ig", "mcnig"]
    pools = _pools()
    items = [(p, {m: {t.id for t in p.traces[k % 2:]} for m in methods}) for k, p in enumerate(pools)]

    def labeler(max_batch_tokens):
        config = InformationConfig(model="unused", max_batch_tokens=max_batch_tokens, forward_tokens=max_batch_tokens)
        lab = InformationLabeler(config, methods, scorer=make_scorer(model, tok, config))
        passes, run = [], lab.scorer.run
        lab.scorer.run = lambda segs, rows=None: passes.append(len(segs)) or run(segs, rows)
        return lab, passes

    one, one_passes = labeler(16384)
    alone = [one.label(pool, todo) for pool, todo in items]
    many, many_passes = labeler(16384)
    assert len(one_passes) == len(pools)
    _same(alone, list(many.label_stream(items)), methods)
    assert len(many_passes) == 1  # every problem in one forward pass
    small, small_passes = labeler(1)  # a budget below one problem: one problem at a time, one sequence a pass
    _same(alone, list(small.label_stream(items)), methods)
    assert len(small_passes) == sum(len(many._prepare(*item).segs) for item in items)


def _same(alone, together, methods):
    """The same records (scores within float rounding) and costs, problem by problem."""
    assert len(alone) == len(together)
    for a, b in zip(alone, together, strict=True):
        assert (a.cost.tokens_read, a.cost.paper_tokens) == (b.cost.tokens_read, b.cost.paper_tokens)
        for m in methods:
            assert len(a.records[m]) == len(b.records[m])
            for ra, rb in zip(a.records[m], b.records[m], strict=True):
                assert rb.scores == pytest.approx(ra.scores, abs=1e-5)
                assert {**ra.to_dict(), "scores": None} == {**rb.to_dict(), "scores": None}


def test_pack_rows_places_every_sequence_once_within_capacity():
    from prmkit.label.information_scorer import pack_rows

    lengths = [50, 132, 61, 70, 49, 80, 130, 12, 200]
    rows = pack_rows(lengths, 132)
    assert sorted(i for row in rows for i in row) == list(range(len(lengths)))
    for row in rows:
        assert len(row) == 1 or sum(lengths[i] for i in row) <= 132  # 200 alone: longer than a row
    assert len(rows) < len(lengths)  # short ones share rows


def test_sequences_sharing_a_row_score_as_one_a_row(scorer):
    """Several packed sequences side by side in a row, each under its own block mask, score as if alone."""
    segs = scorer.pool_segments(QUESTION, [STEPS, STEPS[:1], STEPS[:2]], ANSWERS)
    alone = scorer.run(segs)
    shared = scorer.run(segs, rows=[[0, 2], [3, 1]])
    flat = lambda tables: [v for table in tables for row in table for v in row]  # noqa: E731
    assert flat(shared) == pytest.approx(flat(alone), abs=1e-5)
    assert flat(scorer.run_batched(segs)) == pytest.approx(flat(alone), abs=1e-5)


def test_a_cpu_forward_pass_holds_at_most_its_token_budget(scorer):
    """On a CPU (forward_tokens 0) a pass holds at most CPU_FORWARD_TOKENS padded tokens; the scores are the same."""
    from prmkit.label import information_scorer as mod

    segs = scorer.pool_segments(QUESTION, [STEPS, STEPS[:1], STEPS[:2]] * 8, ANSWERS)
    shapes, run = [], scorer.run
    scorer.run = lambda s, rows=None: shapes.append(len(rows) * max(sum(len(s[i].ids) for i in r) for r in rows)) \
        or run(s, rows)
    wide = scorer.run_batched(segs)
    scorer.max_tokens, scorer.forward_tokens = 16384, 0
    old, mod.CPU_FORWARD_TOKENS = mod.CPU_FORWARD_TOKENS, 300
    try:
        shapes.clear()
        narrow = scorer.run_batched(segs)
    finally:
        mod.CPU_FORWARD_TOKENS = old
    assert len(shapes) > 1 and max(shapes) <= max(300, max(len(s.ids) for s in segs))
    flat = lambda tables: [v for table in tables for row in table for v in row]  # noqa: E731
    assert flat(narrow) == pytest.approx(flat(wide), abs=1e-5)
