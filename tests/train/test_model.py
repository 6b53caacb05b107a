from dataclasses import replace

import pytest
import torch

from prmkit.models.reward import RewardModel as PRM
from prmkit.models.reward import RewardModelConfig
from prmkit.train import TrainConfig
from prmkit.train.batches import encode_examples
from prmkit.train.data import Example
from prmkit.train.recipe import build_trainer
from prmkit.train.trainer import prepare_parameters
from tolerances import MODEL_ABS

Q = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
GOOD = ["3 + 4 = 7", "so the answer is 7"]
BAD = ["3 + 4 = 8 wrong step", "so the answer is 8 mistake"]


def examples(n: int = 6) -> list[Example]:
    out = []
    for i in range(n):
        out.append(Example(f"p{i}/good", f"p{i}", Q, GOOD, [1.0, 1.0]))
        out.append(Example(f"p{i}/bad", f"p{i}", Q, BAD, [0.0, 0.0]))
    return out


def test_targets_are_at_the_separators_only(tiny_base):
    prm = PRM.from_base(tiny_base, RewardModelConfig())
    with torch.no_grad():  # distinct class rows: the neutral start has no gradient towards the hidden states
        prm.model.get_output_embeddings().weight[prm.class_ids] = torch.randn(2, prm.model.config.hidden_size)
    ids, positions = prm.encode(Q, GOOD)
    assert [i for i, t in enumerate(ids) if t == prm.sep_id] == positions
    batch = prm.collate([(ids, positions)])
    hidden = prm.hidden(batch["input_ids"], batch["attention_mask"]).detach().requires_grad_(True)
    logits = prm.head(hidden, batch["positions"])
    torch.nn.functional.cross_entropy(logits, torch.tensor([0, 1])).backward()
    touched = hidden.grad[0].abs().sum(-1).nonzero().flatten().tolist()
    assert touched == positions


def test_a_new_head_starts_neutral(tiny_base):
    """Fresh class rows are near-equal: every step starts near p = 0.5 (loss ln 2), not at a random confident class."""
    probs = [p for ps in PRM.from_base(tiny_base, RewardModelConfig()).step_probs([(Q, GOOD), (Q, BAD)]) for p in ps]
    assert probs == pytest.approx([0.5] * 4, abs=0.1) and len(set(probs)) > 1


def test_separator_count_must_equal_label_count(tiny_base):
    prm = PRM.from_base(tiny_base, RewardModelConfig())
    with pytest.raises(AssertionError, match="2 separators but 3 labels"):
        encode_examples(prm, [Example("t", "p", Q, GOOD, [1, 1, 0])], 512)
    with pytest.raises(AssertionError, match="3 separators for 2 steps"):
        prm.encode(Q, ["3 + 4 <|prm_sep|> = 7", "so 7"])


def test_reserved_tokens_are_single_tokens(tiny_base):
    prm = PRM.from_base(tiny_base, RewardModelConfig(kind="prm3"))
    assert len({prm.sep_id, *prm.class_ids}) == 4 and len(prm.class_ids) == 3
    with pytest.raises(ValueError, match="must be one token"):
        PRM(prm.model, prm.tokenizer, RewardModelConfig(sep_token="apples and"))


def test_batched_scores_equal_one_at_a_time(tiny_base):
    prm = PRM.from_base(tiny_base, RewardModelConfig())
    items = [(Q, GOOD), (Q, BAD[:1]), ("Sam eats one", ["10 - 2 = 8", "5 * 6 = 30", "the price is 12"])]
    batched = prm.step_probs(items)
    for item, probs in zip(items, batched, strict=True):
        assert prm.step_probs([item])[0] == pytest.approx(probs, abs=MODEL_ABS)
    assert [len(p) for p in batched] == [2, 1, 3]


def train(prm, config, output, data=None):
    """Train on `data` with the same traces as the held-out check; the checks' (loss, accuracy) per epoch."""
    data = data or examples()
    config = replace(config, max_length=512, save_strategy="no", report_to="none")
    trainer = build_trainer(prm, data, data, config, output, log=lambda _: None)
    trainer.train()
    return [{"loss": r["eval_loss"], "accuracy": r["eval_accuracy"]} for r in trainer.state.log_history
            if "eval_loss" in r]


@pytest.mark.slow
@pytest.mark.parametrize("lora", [0, 4])
def test_learns_and_reload_gives_the_same_scores(tiny_base, tmp_path, lora):
    torch.manual_seed(0)
    prm = PRM.from_base(tiny_base, RewardModelConfig())
    history = train(prm, TrainConfig(epochs=6, lr=1e-2, batch_traces=4, lora_r=lora), tmp_path / "run")
    if lora:  # the reserved tokens' rows (added at random) train beside the adapters
        assert any("trainable_tokens" in n for n, p in prm.model.named_parameters() if p.requires_grad)
    assert history[-1]["accuracy"] == 1.0 and history[-1]["loss"] < min(0.3, history[0]["loss"])
    before = prm.step_probs([(Q, GOOD), (Q, BAD)])
    assert min(before[0]) > 0.5 > max(before[1])
    prm.save_pretrained(tmp_path / "ckpt")
    again = PRM.from_pretrained(tmp_path / "ckpt")
    assert again.config == prm.config
    after = again.step_probs([(Q, GOOD), (Q, BAD)])
    for b, a in zip(before, after, strict=True):
        assert a == pytest.approx(b, abs=MODEL_ABS)


def test_orm_has_one_target_and_prm3_scores_positive_class(tiny_base, tmp_path):
    orm = PRM.from_base(tiny_base, RewardModelConfig(kind="orm"))
    assert len(orm.encode(Q, GOOD)[1]) == 1 and len(orm.step_probs([(Q, GOOD)])[0]) == 1
    torch.manual_seed(0)
    prm3 = PRM.from_base(tiny_base, RewardModelConfig(kind="prm3"))
    data = [Example("a", "a", Q, GOOD, [1, 1]), Example("b", "a", Q, BAD, [-1, 0])]
    train(prm3, TrainConfig(epochs=16, lr=1e-2, batch_traces=2), tmp_path, data)
    good, bad = prm3.step_probs([(Q, GOOD), (Q, BAD)])
    assert min(good) > 0.5 > max(bad)


def test_freeze_and_keep_layers(tiny_base, tmp_path):
    prm = PRM.from_base(tiny_base, RewardModelConfig())
    prm.truncate_layers(1)
    prepare_parameters(prm, TrainConfig(freeze_layers=1))
    trainable = {n for n, p in prm.model.named_parameters() if p.requires_grad}
    assert trainable == {"model.embed_tokens.weight", "model.norm.weight"}  # the one layer frozen
    prm.save_pretrained(tmp_path / "c")
    assert PRM.from_pretrained(tmp_path / "c").model.config.num_hidden_layers == 1


def test_frozen_embeddings_keep_the_class_token_rows_training(tiny_base, tmp_path):
    """freeze_layers freezes the embeddings but not the reserved rows: they are the (tied) head itself."""
    torch.manual_seed(0)
    prm = PRM.from_base(tiny_base, RewardModelConfig())
    before = prm.model.get_input_embeddings().weight.detach().clone()
    train(prm, TrainConfig(epochs=2, lr=1e-2, batch_traces=4, freeze_layers=1), tmp_path)
    after = prm.model.get_input_embeddings().weight.detach().cpu()  # the Trainer ran it on the GPU, if any
    changed = set((after - before).abs().sum(-1).nonzero().flatten().tolist())
    assert set(prm.class_ids) <= changed <= {prm.sep_id, *prm.class_ids}
    with pytest.raises(ValueError, match="weight_decay"):
        prepare_parameters(prm, TrainConfig(freeze_layers=1, weight_decay=0.01))


def test_loss_is_the_same_whatever_the_micro_batches(tiny_base, tmp_path):
    """The paper's L of a step does not depend on how the step is cut for gradient accumulation (MCNIG sec 3.3)."""
    data = [*examples(4), Example("p0/extra", "p0", Q, GOOD[:1], [1.0])]  # problems of unequal size
    runs = []
    for micro in (1, 3, 16):
        torch.manual_seed(0)
        prm = PRM.from_base(tiny_base, RewardModelConfig())
        runs.append(train(prm, TrainConfig(epochs=2, lr=1e-2, batch_traces=5, micro_batch=micro), tmp_path / f"{micro}",
                          data))
    assert runs[0][0]["loss"] != pytest.approx(runs[0][1]["loss"], abs=1e-3)  # it did train
    for other in runs[1:]:
        # equal up to float rounding (Adam rescales the rounding of small gradients): a wrong weighting is ~1e-2
        assert [r["loss"] for r in other] == pytest.approx([r["loss"] for r in runs[0]], abs=1e-4)
