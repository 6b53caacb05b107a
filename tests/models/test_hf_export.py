"""`prmkit export-hf`: a reward model as a standard token-classification model. Plain transformers loads it with
nothing missing or unexpected, and its scores at the separators equal `prmkit score`'s step scores (prm, orm,
prm3, and bt with a linear value head); config.json holds what vLLM's STEP pooler needs. bt with the paper's MLP
value head exports with its own modeling file, which transformers loads with `trust_remote_code=True` (its scores
equal prmkit's too); its model card and the CLI say that vLLM cannot serve it."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import prmkit
from helpers import pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.models.hf_export import MLP_CLASS, MODELING_FILE, NO_VLLM, vllm_command
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


def _hf_step_scores(path: Path, question: str, steps: list[str], **load) -> list[float]:
    """Step scores read from the export with transformers only, as the model card says."""
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    model = AutoModelForTokenClassification.from_pretrained(path, **load).eval()
    tok = AutoTokenizer.from_pretrained(path)
    p = model.config.prmkit
    ids = tok(p["prompt"].format(question=question)).input_ids
    for step in steps:
        ids += [*tok(step, add_special_tokens=False).input_ids, p["sep_token_id"]]
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0][torch.tensor(ids) == p["sep_token_id"]]
    scores = logits[:, 0] if model.config.num_labels == 1 else logits.softmax(-1)[:, 0]
    return scores.tolist()[-1:] if p["targets"] == "the last separator" else scores.tolist()


def _assert_scores_like_prmkit(ckpt: Path, out: Path, tmp_path: Path, kind: str, **load) -> None:
    """The export's scores at the separators (transformers only) equal `prmkit score`'s step scores within
    MODEL_ABS, and those spread by far more, so a wrong head could not pass."""
    question = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", question, "7", TRACES)])
    prmkit.api.score(ckpt, pools, tmp_path / "scores.jsonl")
    records = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    deltas = []
    for (steps, _, _), record in zip(TRACES, records, strict=True):
        ours, theirs = record["step_scores"], _hf_step_scores(out, question, steps, **load)
        assert len(ours) == len(theirs) == (1 if kind == "orm" else len(steps))
        deltas += [abs(a - b) for a, b in zip(ours, theirs, strict=True)]
    print(f"{kind}{' (custom code)' if load else ''}: max |delta| export vs prmkit score = {max(deltas):.2e}")
    assert max(deltas) <= MODEL_ABS
    spread = [s for r in records for s in r["step_scores"]]
    assert max(spread) - min(spread) > 20 * MODEL_ABS  # the comparison sees a wrong head (ORM: two scores, ~1e-3 apart)


@pytest.mark.parametrize("kind,config", [("prm", {}), ("orm", {}), ("prm3", {}), ("bt", {"value_head": "linear"})])
def test_export_loads_in_transformers_and_scores_like_prmkit(kind, config, tiny_base, tmp_path):
    from safetensors import safe_open
    from transformers import AutoModelForTokenClassification

    ckpt = _checkpoint(tiny_base, tmp_path / kind, kind, **config)
    out = tmp_path / f"{kind}_hf"
    result = prmkit.api.export_hf(ckpt, out)
    _, info = AutoModelForTokenClassification.from_pretrained(out, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"], info
    _assert_scores_like_prmkit(ckpt, out, tmp_path, kind)

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


def test_the_mlp_value_head_exports_as_custom_code_and_scores_like_prmkit(tiny_base, tmp_path, capsys):
    """PUM's MLP value head (Linear-GELU-Linear): `modeling_prmkit.py` beside the weights, named by `auto_map`;
    AutoModelForTokenClassification with trust_remote_code loads it with nothing missing or unexpected, and its
    logits at the separators are prmkit's utilities. Without trust_remote_code the score is random, and the load
    report says so."""
    import ast

    from safetensors import safe_open
    from transformers import AutoModelForTokenClassification, LlamaForTokenClassification

    ckpt = _checkpoint(tiny_base, tmp_path / "bt", "bt", value_head="mlp")
    out = tmp_path / "bt_hf"
    result = prmkit.api.export_hf(ckpt, out)
    assert result["architecture"] == MLP_CLASS and result["trust_remote_code"] and result["vllm"] is None
    model, info = AutoModelForTokenClassification.from_pretrained(out, trust_remote_code=True,
                                                                  output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"], info
    assert type(model).__name__ == MLP_CLASS and isinstance(model, LlamaForTokenClassification)
    assert [type(m).__name__ for m in model.score] == ["Linear", "GELU", "Linear"]
    with capsys.disabled():  # its max |delta| in the log, as the other kinds'
        _assert_scores_like_prmkit(ckpt, out, tmp_path, "bt", trust_remote_code=True)

    cfg = json.loads((out / "config.json").read_text())
    assert cfg["auto_map"] == {"AutoModelForTokenClassification": f"modeling_prmkit.{MLP_CLASS}"}
    assert cfg["architectures"] == [MLP_CLASS] and cfg["model_type"] == "llama" and cfg["prmkit"]["kind"] == "bt"
    with safe_open(out / "model.safetensors", "pt") as f:
        names = f.keys()
        shapes = {n: tuple(f.get_tensor(n).shape) for n in names if n.startswith("score")}
    assert shapes == {"score.0.weight": (64, 64), "score.0.bias": (64,), "score.2.weight": (1, 64),
                      "score.2.bias": (1,)}
    code = (out / MODELING_FILE).read_text()  # self-contained: torch and transformers only, never prmkit
    imports = {name.split(".")[0] for n in ast.walk(ast.parse(code))
               for name in ([a.name for a in n.names] if isinstance(n, ast.Import) else
                            [n.module or "."] if isinstance(n, ast.ImportFrom) else [])}
    assert imports == {"torch", "transformers"} and 'BASE = "LlamaForTokenClassification"' in code
    _, info = AutoModelForTokenClassification.from_pretrained(out, output_loading_info=True)
    assert "score.weight" in info["missing_keys"]


def test_the_mlp_export_card_and_cli_say_trust_remote_code_and_no_vllm(tiny_base, tmp_path, capsys):
    """The card's transformers lines (with trust_remote_code) print prmkit's utilities; neither the card nor the
    CLI gives a vLLM command, both say vLLM cannot serve the export; the CLI writes what the API writes."""
    import ast

    ckpt = _checkpoint(tiny_base, tmp_path / "bt", "bt", value_head="mlp")
    out = tmp_path / "bt_hf"
    prmkit.api.export_hf(ckpt, out)
    card = (out / "README.md").read_text()
    assert "trust_remote_code=True" in card and NO_VLLM in card and "vllm serve" not in card
    snippet = re.search(r"```python\n(.*?)```", card, re.S).group(1)
    with contextlib.redirect_stdout(io.StringIO()) as stdout:
        exec(compile(snippet, "README.md", "exec"), {})
    read = ast.literal_eval(stdout.getvalue().strip().splitlines()[-1])
    question, steps = "Tom has 3 apples and buys 4 more. How many?", ["3 + 4 = 7.", "The answer is 7."]
    utilities = RewardModel.from_pretrained(ckpt).score_steps(question, [steps])[0]
    assert len(read) == len(steps) and max(abs(a - b) for a, b in zip(utilities, read, strict=True)) <= MODEL_ABS

    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli")]) == 0
    printed = capsys.readouterr().out
    assert "trust_remote_code=True" in printed and "vLLM cannot serve" in printed and "vllm serve" not in printed
    for name in ("model.safetensors", "config.json", MODELING_FILE):
        assert (tmp_path / "cli" / name).read_bytes() == (out / name).read_bytes(), name


def test_cli_and_api_write_the_same_model(tiny_base, tmp_path, capsys):
    ckpt = _checkpoint(tiny_base, tmp_path / "prm", "prm")
    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli")]) == 0
    assert "--runner pooling" in capsys.readouterr().out
    prmkit.api.export_hf(ckpt, tmp_path / "api")
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "api" / name).read_bytes(), name
    # a second export into the same directory needs --overwrite
    assert main(["export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli")]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(tmp_path / "cli"), "--overwrite"]) == 0


def test_an_output_another_process_writes_is_refused_before_the_model_loads(tiny_base, tmp_path, capsys):
    """export-hf holds its output's lock like every verb that writes: a second writer of the same directory stops
    (exit 2, naming the holder's pid) and writes nothing; it once went on and replaced the other's export."""
    ckpt = _checkpoint(tiny_base, tmp_path / "prm", "prm")
    out = tmp_path / "hf"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from prmkit.data.locks import output_lock\n"
                               "with output_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(60)",
                               str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(out)]) == 2
        assert f"is being written by another process (pid {holder.pid})" in capsys.readouterr().err
        assert not out.exists()
    finally:
        holder.kill()
        holder.wait()
    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", str(out)]) == 0  # once it is free


@pytest.mark.parametrize("output", ["{ckpt}/", "{ckpt}/../prm", "{ckpt}/hf", "{root}"])
def test_export_never_writes_over_into_or_around_its_own_model(output, tiny_base, tmp_path, capsys):
    """--output that is, lies inside or contains --model is refused whatever --overwrite says: the trained
    checkpoint keeps every file and byte."""
    ckpt = _checkpoint(tiny_base, tmp_path / "prm", "prm")
    (ckpt / "train_log.json").write_text("{}\n")
    before = {p.name: p.read_bytes() for p in ckpt.iterdir()}
    target = output.format(ckpt=ckpt, root=tmp_path)
    assert main(["--quiet", "export-hf", "--model", str(ckpt), "--output", target, "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert "the checkpoint being exported" in err and "_hf" in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in ckpt.iterdir()} == before


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
    prmkit.api.export_hf(tmp_path / "pum", tmp_path / "pum_hf")
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("p0", question, "7", TRACES)])
    prmkit.api.score(tmp_path / "pum", pools, tmp_path / "scores.jsonl")
    records = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    for (steps, _, _), record in zip(TRACES, records, strict=True):
        theirs = _hf_step_scores(tmp_path / "pum_hf", question, steps)
        assert max(abs(a - b) for a, b in zip(record["step_scores"], theirs, strict=True)) <= MODEL_ABS
