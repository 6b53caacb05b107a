"""`prmkit export-hf`: a reward model as a standard token-classification model. Plain transformers loads it with
nothing missing or unexpected, and its scores at the separators equal `prmkit score`'s step scores (prm, orm,
prm3, and bt with a linear value head); config.json holds what vLLM's STEP pooler needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import prmkit
from helpers import pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.models.hf_export import vllm_command
from prmkit.models.reward import RewardModel, RewardModelConfig
from tolerances import MODEL_ABS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

TRACES = [(["3 + 4 = 7", "so the answer is 7"], "7", True), (["3 * 4 = 12", "wrong step", "the answer is 12"], "12",
                                                             False)]


def _checkpoint(tiny_base: str, directory: Path, kind: str, **config) -> Path:
    """A reward model of head `kind` whose head is random and far from uniform (scores spread over (0, 1)), so a
    wrong row, order or offset in the export changes the scores by far more than MODEL_ABS."""
    rm = RewardModel.from_base(tiny_base, RewardModelConfig(kind=kind, **config))
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        if kind == "bt":
            for p in rm.target_head.parameters():
                p.copy_(0.2 * torch.randn(p.shape, generator=gen))
        else:
            head = rm.model.get_output_embeddings().weight
            head[rm.class_ids] = 0.2 * torch.randn(len(rm.class_ids), head.shape[1], generator=gen)
    rm.save_pretrained(directory)
    return directory


def _hf_step_scores(path: Path, question: str, steps: list[str]) -> list[float]:
    """Step scores read from the export with transformers only, as the model card says."""
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    model = AutoModelForTokenClassification.from_pretrained(path).eval()
    tok = AutoTokenizer.from_pretrained(path)
    p = model.config.prmkit
    ids = tok(p["prompt"].format(question=question)).input_ids
    for step in steps:
        ids += [*tok(step, add_special_tokens=False).input_ids, p["sep_token_id"]]
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0][torch.tensor(ids) == p["sep_token_id"]]
    scores = logits[:, 0] if model.config.num_labels == 1 else logits.softmax(-1)[:, 0]
    return scores.tolist()[-1:] if p["targets"] == "the last separator" else scores.tolist()


@pytest.mark.parametrize("kind,config", [("prm", {}), ("orm", {}), ("prm3", {}), ("bt", {"value_head": "linear"})])
def test_export_loads_in_transformers_and_scores_like_prmkit(kind, config, tiny_base, tmp_path):
    from safetensors import safe_open
    from transformers import AutoModelForTokenClassification

    ckpt = _checkpoint(tiny_base, tmp_path / kind, kind, **config)
    out = tmp_path / f"{kind}_hf"
    result = prmkit.export_hf(ckpt, out)
    _, info = AutoModelForTokenClassification.from_pretrained(out, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"], info

    question = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", question, "7", TRACES)])
    prmkit.score(ckpt, pools, tmp_path / "scores.jsonl")
    records = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    deltas = []
    for (steps, _, _), record in zip(TRACES, records, strict=True):
        ours, theirs = record["step_scores"], _hf_step_scores(out, question, steps)
        assert len(ours) == len(theirs) == (1 if kind == "orm" else len(steps))
        deltas += [abs(a - b) for a, b in zip(ours, theirs, strict=True)]
    print(f"{kind}: max |delta| export vs prmkit score = {max(deltas):.2e}")
    assert max(deltas) <= MODEL_ABS
    spread = [s for r in records for s in r["step_scores"]]
    assert max(spread) - min(spread) > 100 * MODEL_ABS  # the comparison sees a wrong head

    # what vLLM reads: the architecture (converted as a classifier), num_labels, a score layer without bias (vLLM's
    # converted classifier has none), the separator id for the STEP pooler
    cfg = json.loads((out / "config.json").read_text())
    labels = {"prm": 2, "orm": 2, "prm3": 3, "bt": 1}[kind]
    assert cfg["architectures"] == ["LlamaForTokenClassification"] and result["num_labels"] == labels
    assert len(cfg["id2label"]) == labels and cfg["token_classification_bias"] is False  # num_labels = len(id2label)
    with safe_open(out / "model.safetensors", "pt") as f:
        names = set(f.keys())
        assert f.get_tensor("score.weight").shape == (labels, 64)
    assert "score.bias" not in names and not any(n.startswith("lm_head") for n in names)
    rm = RewardModel.from_pretrained(ckpt)
    assert cfg["prmkit"]["sep_token_id"] == rm.sep_id == rm.tokenizer.convert_tokens_to_ids(rm.config.sep_token)
    assert cfg["prmkit"]["prompt"] == "{question}\n" and cfg["prmkit"]["kind"] == kind
    card = (out / "README.md").read_text()
    command = vllm_command(str(out), cfg["prmkit"])
    assert command in card and command == result["vllm"]
    assert "--runner pooling" in command and f'"step_tag_id": {rm.sep_id}' in command
    assert '"pooling_type": "STEP"' in command and f"(id\n  {rm.sep_id})" in card


def test_the_mlp_value_head_is_refused_with_the_way_out(tiny_base, tmp_path):
    ckpt = _checkpoint(tiny_base, tmp_path / "bt", "bt")
    with pytest.raises(ValueError, match="--value-head linear"):
        prmkit.export_hf(ckpt, tmp_path / "bt_hf")
    assert not (tmp_path / "bt_hf").exists()


def test_cli_and_api_write_the_same_model(tiny_base, tmp_path, capsys):
    ckpt = _checkpoint(tiny_base, tmp_path / "prm", "prm")
    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli")]) == 0
    assert "--runner pooling" in capsys.readouterr().out
    prmkit.export_hf(ckpt, tmp_path / "api")
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "api" / name).read_bytes(), name
    # a second export into the same directory needs --overwrite
    assert main(["export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli")]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli"), "--overwrite"]) == 0


def test_a_pum_model_trained_with_a_linear_value_head_exports(tiny_base, tmp_path):
    """`prmkit train pum --value-head linear` learns (its value layer leaves zero) and exports as a one-label model
    whose logits at the separators are the utilities `prmkit score` writes."""
    from helpers import write_jsonl

    question = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
    good, bad = ["3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 8 wrong step", "so the answer is 8 mistake"]
    pairs = [{"problem_id": f"p{k}", "question": question, "prefix_a": good[: 1 + k % 2], "prefix_b": bad[: 1 + k % 2],
              "label": 1, "id_a": f"p{k}/a@1", "id_b": f"p{k}/b@1", "kind": "horizontal"} for k in range(6)]
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs)
    assert main(["--quiet", "train", "pum", "--pairs", path, "--model", tiny_base, "--value-head", "linear",
                 "--lr", "1e-3", "--epochs", "2", "--save-strategy", "no", "--output", str(tmp_path / "pum")]) == 0
    rm = RewardModel.from_pretrained(tmp_path / "pum")
    assert rm.config.value_head == "linear" and rm.target_head.value[0].weight.abs().max() > 0
    prmkit.export_hf(tmp_path / "pum", tmp_path / "pum_hf")
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", question, "7", TRACES)])
    prmkit.score(tmp_path / "pum", pools, tmp_path / "scores.jsonl")
    records = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    for (steps, _, _), record in zip(TRACES, records, strict=True):
        theirs = _hf_step_scores(tmp_path / "pum_hf", question, steps)
        assert max(abs(a - b) for a, b in zip(record["step_scores"], theirs, strict=True)) <= MODEL_ABS
