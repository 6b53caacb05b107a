"""`prmkit export-hf`: a reward model as the decoder's `<Arch>ForTokenClassification` (`score` = the head), or for an
MLP value head as custom code (`modeling_prmkit.py`), with the step format in config.json and a model card."""

import copy
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from prmkit.data.outputs import OutputPathError, atomic_dir, check_output_path, claim_outputs, claims
from prmkit.data.templates import load_template
from prmkit.models.reward import RewardModel

__all__ = ["CARD_NAME", "MLP_CLASS", "MODELING_FILE", "NO_VLLM", "ExportHFConfig", "export_hf", "modeling_code",
           "prmkit_fields", "token_class", "token_classification_model", "transformers_snippet", "vllm_command"]

CARD_NAME = "README.md"
MODELING_FILE = "modeling_prmkit.py"  # prmkit.models.modeling_prmkit, written beside an MLP export's weights
MLP_CLASS = "PrmkitMLPForTokenClassification"


@dataclass
class ExportHFConfig:
    """`prmkit export-hf`: a `prmkit train` checkpoint -> a standard token-classification model directory."""

    model: str = field(default="", metadata={"help": "checkpoint directory written by `prmkit train` (required)",
                                             "role": "input"})
    output: str = field(default="", metadata={"help": "directory to write (required)", "role": "output-dir"})
    overwrite: bool = field(default=False, metadata={"help": "replace a non-empty output directory"})


def prmkit_fields(rm: RewardModel) -> dict[str, Any]:
    names = rm.target_head.label_names
    return {"kind": rm.config.kind, "prompt": rm.layout.prompt, "sep_token": rm.config.sep_token,
            "sep_token_id": rm.sep_id, "class_tokens": rm.config.class_tokens, "class_token_ids": list(rm.class_ids),
            "labels": list(names), "score": ("logit 0 (the utility U, no activation)" if len(names) == 1
                                             else "softmax over the logits, index 0 (p(positive))"),
            "targets": "every separator" if rm.config.kind != "orm" else "the last separator",
            "aggregation": rm.config.aggregation,
            "step_format": "tokenizer(prompt.format(question=q)).input_ids + sum(tokenizer(step, add_special_tokens="
                           "False).input_ids + [sep_token_id] for step in steps)"}


def token_class(rm: RewardModel) -> str:
    """The decoder's `<Arch>ForTokenClassification` name, from its causal LM class (`LlamaForCausalLM` -> ...)."""
    return type(rm.model).__name__.removesuffix("ForCausalLM") + "ForTokenClassification"


def modeling_code(base: str) -> str:
    """The text of `modeling_prmkit.py` for the token-classification class `base` (its `BASE` line set)."""
    source = Path(__file__).with_name(MODELING_FILE).read_text(encoding="utf-8")
    code, n = re.subn(r'^BASE = "\w+"', f'BASE = "{base}"', source, count=1, flags=re.MULTILINE)
    if n != 1:
        raise RuntimeError(f"{MODELING_FILE}: no `BASE = ...` line to set")
    return code


def _mlp_model(config: Any, base: str, dtype: torch.dtype) -> Any:
    """`PrmkitMLPForTokenClassification` from `config`, loaded as transformers loads custom code, so that
    `save_pretrained` copies `modeling_prmkit.py` and keeps `auto_map`."""
    import transformers
    from transformers import AutoModelForTokenClassification

    if not hasattr(transformers, base):
        raise ValueError(f"transformers has no {base}, the class an MLP export of this decoder would extend")
    config.auto_map = {"AutoModelForTokenClassification": f"{Path(MODELING_FILE).stem}.{MLP_CLASS}"}
    with tempfile.TemporaryDirectory() as tmp:
        code = Path(tmp) / f"prmkit_{base}"  # names transformers' cached copy of the module
        code.mkdir()
        (code / MODELING_FILE).write_text(modeling_code(base), encoding="utf-8")
        source, config.name_or_path = config.name_or_path, os.fspath(code)
        try:
            return AutoModelForTokenClassification.from_config(config, trust_remote_code=True, dtype=dtype)
        finally:
            config.name_or_path = source


def token_classification_model(rm: RewardModel) -> Any:
    """The `<Arch>ForTokenClassification` of `rm` (`score` = the head's linear layer), or for an MLP head its
    `PrmkitMLPForTokenClassification`; ValueError when the head is neither."""
    from transformers import AutoModelForTokenClassification

    causal, head = rm.model, rm.target_head
    linear = head.linear_head(causal.get_output_embeddings())
    mlp = head.mlp_head() if linear is None else None
    if linear is None and mlp is None:
        raise ValueError(f"a {rm.config.kind} head is neither one linear layer nor a Linear-GELU-Linear MLP: no "
                         "token-classification model holds it")
    names, base = head.label_names, token_class(rm)
    config = copy.deepcopy(causal.config)
    config.update({"architectures": [base], "num_labels": len(names), "id2label": dict(enumerate(names)),
                   "label2id": {name: i for i, name in enumerate(names)}, "classifier_dropout": 0.0,
                   "prmkit": prmkit_fields(rm)})
    if linear is not None:
        weight, bias = linear
        config.token_classification_bias = bias is not None
        model = AutoModelForTokenClassification.from_config(config, dtype=weight.dtype)
        score = {"weight": weight} if bias is None else {"weight": weight, "bias": bias}
    else:
        model, score = _mlp_model(config, base, mlp["0.weight"].dtype), mlp
    body = getattr(model, model.base_model_prefix)
    missing, unexpected = body.load_state_dict(causal.get_decoder().state_dict(), strict=False)
    if missing or unexpected:
        raise ValueError(f"the decoder of {type(causal).__name__} does not fit {type(model).__name__}: missing "
                         f"{missing}, unexpected {unexpected}")
    model.score.load_state_dict(score)
    return model.eval()


def vllm_command(path: str, fields: dict[str, Any]) -> str:
    """The `vllm serve` line of an export: pooling runner, classifier conversion, STEP pooler at the separator."""
    pooler = json.dumps({"pooling_type": "STEP", "step_tag_id": fields["sep_token_id"]})
    return f"vllm serve {path} --runner pooling --convert classify --pooler-config '{pooler}'"


def transformers_snippet(path: str, trust_remote_code: bool = False) -> str:
    """Five lines that load the export at `path` with plain transformers and print one trace's step scores (an MLP
    export, `trust_remote_code`: the logits U)."""
    remote = ", trust_remote_code=True" if trust_remote_code else ""
    read = "logits[0, :, 0][" if trust_remote_code else "logits[0].softmax(-1)["
    index = "]" if trust_remote_code else ", 0]"
    return "\n".join([
        "import torch; from transformers import AutoModelForTokenClassification, AutoTokenizer",
        f'model, tok = AutoModelForTokenClassification.from_pretrained("{path}"{remote}), '
        f'AutoTokenizer.from_pretrained("{path}")',
        'q, steps, p = "Tom has 3 apples and buys 4 more. How many?", ["3 + 4 = 7.", "The answer is 7."], '
        "model.config.prmkit",
        'ids = tok(p["prompt"].format(question=q)).input_ids + sum((tok(s, add_special_tokens=False).input_ids + '
        '[p["sep_token_id"]] for s in steps), [])',
        f'print(model(torch.tensor([ids])).{read}torch.tensor(ids) == p["sep_token_id"]{index}.tolist())',
    ])


NO_VLLM = ("vLLM cannot serve this model: its head is an MLP defined by custom code, and vLLM's pooling "
           "classifier (`--convert classify`) is one linear `score` layer. vLLM serves only prmkit's linear "
           "export: train with `prmkit train pum --value-head linear`, then run `prmkit export-hf` on that model.")


def _card(fields: dict[str, Any], source: str, output: str, arch: str, base: str, remote: bool) -> str:
    """The model card: `templates/model_card.md` with `model_card_intro[_mlp].md` and `model_card_vllm.md`."""
    activation = "" if remote else "; vLLM applies a sigmoid unless the request sets `use_activation: false`"
    read = (f"logits[0, i, 0] at each separator position i is the prefix utility U(x, r_1..r_i) (Bradley-Terry "
            f"scale{activation})" if len(fields["labels"]) == 1
            else "softmax(logits[0, i], -1)[0] at each separator position i is p(step correct)")
    serve = (f"## vLLM\n\n{NO_VLLM}" if remote
             else load_template("model_card_vllm.md").format(command=vllm_command(output, fields), output=output))
    intro = load_template("model_card_intro_mlp.md" if remote else "model_card_intro.md").format(
        source=source, arch=arch, base=base, labels=", ".join(fields["labels"]), modeling=MODELING_FILE)
    return load_template("model_card.md").format(  # the template's last line: {serve}
        kind=fields["kind"], arch=arch, intro=intro.removesuffix("\n"),
        prompt=json.dumps(fields["prompt"]), sep=fields["sep_token"], sep_id=fields["sep_token_id"],
        targets=fields["targets"], read=read, aggregation=fields["aggregation"],
        snippet=transformers_snippet(output, trust_remote_code=remote), serve=serve.removesuffix("\n"))


def _check_not_the_model(model: str, output: str) -> None:
    """Refuse an output that is, lies inside, or contains the checkpoint being exported, whatever `overwrite` says."""
    src, dst = Path(model).expanduser().resolve(), Path(output).expanduser().resolve()
    same = src == dst or (src.exists() and dst.exists() and os.path.samefile(src, dst))
    how = "is" if same else "is inside" if src in dst.parents else "contains" if dst in src.parents else ""
    if how:
        name = Path(model) if Path(model).name else src
        raise OutputPathError(f"--output {output} {how} the checkpoint being exported (--model {model}): an export "
                              "never writes over, into or around the model it reads, whatever --overwrite says; "
                              f"choose a directory outside it, e.g. --output {name.with_name(name.name + '_hf')}")


def export_hf(config: ExportHFConfig | None = None, **settings: Any) -> dict[str, Any]:
    """Write the checkpoint `model` as a token-classification model directory `output`, whole or not at all.
    Returns a summary: `vllm` is the serve command, None where vLLM cannot serve the export."""
    config = config or ExportHFConfig(**settings)
    if not (config.model and config.output):
        raise ValueError("export-hf needs --model (a prmkit train checkpoint) and --output (a directory)")
    _check_not_the_model(config.model, config.output)
    with claim_outputs(**claims(config)):  # one writer, from before the load
        out = check_output_path(config.output, directory=True)
        if out.is_dir() and any(out.iterdir()) and not config.overwrite:
            raise OutputPathError(f"output {out}: not empty; pass --overwrite to replace it")
        rm = RewardModel.from_pretrained(config.model)
        model = token_classification_model(rm)
        fields, output, remote = model.config.prmkit, os.fspath(config.output), model.is_remote_code()
        with atomic_dir(config.output) as tmp:
            model.save_pretrained(tmp)  # sets architectures; custom code: copies modeling_prmkit.py, writes auto_map
            rm.tokenizer.save_pretrained(tmp)
            arch = model.config.architectures[0]
            card = _card(fields, os.fspath(config.model), output, arch, token_class(rm), remote)
            (tmp / CARD_NAME).write_text(card, encoding="utf-8")
        return {"output": os.fspath(Path(config.output)), "architecture": arch,
                "num_labels": model.config.num_labels, "sep_token_id": fields["sep_token_id"],
                "trust_remote_code": remote, "vllm": None if remote else vllm_command(output, fields)}


def format_export(result: dict[str, Any], cfg: Any) -> str:
    text = (f"wrote {result['architecture']} ({result['num_labels']} labels, separator id {result['sep_token_id']}) "
            f"to {result['output']}\n")
    if result["trust_remote_code"]:
        return text + ("load it with AutoModelForTokenClassification.from_pretrained(..., trust_remote_code=True) "
                       f"(custom code: modeling_prmkit.py). {NO_VLLM}")
    return text + f"serve it: {result['vllm']}"
