"""Every verb, declared once: its help, its typed configs, its run function and how the CLI shows its result.

The CLI's flags (`prmkit.cli.main`) and the `prmkit.api` functions are derived from this table; each verb's configs
hold every input and output (field metadata: help, range, `positional`, `required`, `resume`).
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any

from prmkit.data.settings import build_configs


@dataclass(frozen=True)
class Verb:
    """`configs`: "module:NAME" of each config class (or of a tuple of them, or of a function returning them);
    `run`: "module:function" called with the configs (and `progress`, `log` where it takes them); `show`:
    "module:function" of the CLI's text of the result (None: the result as JSON); `api`: its `prmkit.api` name;
    `names`: "module:NAME" of the names it takes, for `prmkit --help`; `settings`: `run` takes the given settings
    and the `--config` file itself (a verb whose defaults depend on a setting, as train's recipe on its kind);
    `args`: the fields its `prmkit.api` function takes by position (its positional CLI arguments among them)."""

    help: str
    configs: tuple[str, ...]
    run: str
    show: str | None = None
    api: str = ""
    names: str | tuple[str, ...] = ()
    settings: bool = False
    args: tuple[str, ...] = ()


_S = "prmkit.cli.show:"
VERBS: dict[str, Verb] = {
    "data corrupt": Verb("GSM8K reference solutions -> first-error benchmark + pools",
                         ("prmkit.data.corrupt:CorruptConfig",), "prmkit.data.corrupt:write_benchmark", api="corrupt"),
    "data synth": Verb("synthetic arithmetic problems with checkable slips + true labels",
                       ("prmkit.data.synthetic:SynthConfig",), "prmkit.data.synthetic:write_synthetic", api="synth"),
    "data bench": Verb("bench problems for training or held-out use, disjoint by question from other sets",
                       ("prmkit.experiments.bench_sets:BenchSetConfig",),
                       "prmkit.experiments.bench_sets:write_bench_set", api="bench_set"),
    "label": Verb("label every step of step-delimited CoTs, by method",
                  ("prmkit.label.recipe:LabelConfig", "prmkit.label.registry:labeler_configs"),
                  "prmkit.label.recipe:run_label", _S + "label", names="prmkit.label.registry:LABELERS",
                  args=("input", "output")),
    "threshold": Verb("choose tau by balanced accuracy and apply it to label files",
                      ("prmkit.label.threshold_files:ThresholdConfig",), "prmkit.label.threshold_files:threshold_files",
                      _S + "lines", args=("choose_on", "apply_to")),
    "export": Verb("export pools + labels to TRL stepwise (JSONL or parquet)", ("prmkit.label.export:ExportConfig",),
                   "prmkit.label.export:export_labels", _S + "export",
                   args=("pools", "labels", "output")),
    "export-hf": Verb("export a reward model as a standard token-classification model (transformers, vLLM)",
                      ("prmkit.models.hf_export:ExportHFConfig",), "prmkit.models.hf_export:export_hf",
                      _S + "export_hf", args=("model", "output")),
    "generate": Verb("sample K step-delimited CoTs per problem and validate them",
                     ("prmkit.generate.config:GenerateConfig",), "prmkit.generate.generation_recipe:run_generation",
                     _S + "report_lines", args=("output",)),
    "rollout": Verb("sample K validated continuations after each step prefix of each trace",
                    ("prmkit.generate.config:RolloutConfig",), "prmkit.generate.rollout_recipe:run_rollout",
                    _S + "report_lines", args=("output",)),
    "verify": Verb("re-validate the answers of a pool file", ("prmkit.generate.reverify:VerifyConfig",),
                   "prmkit.generate.reverify:reverify_file", _S + "nothing",
                   args=("pools",)),
    "pum": Verb("PUM preference pairs from student rollouts (prefix gain, pum_paper sec 3)",
                ("prmkit.label.pum.pipeline:PumConfig",), "prmkit.label.pum.pipeline:run_pum", _S + "pum",
                args=("input", "output_dir")),
    "train": Verb("train a reward model", ("prmkit.train.config:TrainTarget", "prmkit.train.run:SETTINGS"),
                  "prmkit.train.run:train_verb", _S + "nothing",
                  names=("prm", "orm", "prm3", "bt", "pum"), settings=True, args=("kind", "output")),
    "sft": Verb("supervised warm start of the bench's policy on right traces of bench problems (TRL SFTTrainer)",
                ("prmkit.experiments.sft:SFTRunConfig",), "prmkit.experiments.sft:run_sft", _S + "sft"),
    "score": Verb("score candidate traces with a reward model", ("prmkit.evaluate.score:ScoreConfig",),
                  "prmkit.evaluate.score:score_file", _S + "score",
                  args=("model", "input", "output")),
    "search": Verb("beam search guided by a step scorer (PUM sec 4.3), or best-of-N at its budget",
                   ("prmkit.search.config:BeamConfig",), "prmkit.search.run:run_search", _S + "nothing",
                   names="prmkit.search:METHODS", args=("methods", "output")),
    "evaluate bok": Verb("best-of-K table (+ rank robustness) from score files, and an accuracy-vs-K plot",
                         ("prmkit.evaluate.run:BokConfig",), "prmkit.evaluate.run:best_of_k",
                         "prmkit.evaluate.report:format_table", api="best_of_k", args=("scores",)),
    "evaluate processbench": Verb("first-error identification (error acc, correct acc, F1) on a step-level benchmark",
                                  ("prmkit.evaluate.run:ProcessBenchConfig",), "prmkit.evaluate.run:processbench",
                                  _S + "processbench", api="processbench"),
    "view": Verb("one self-contained HTML page of step labels and scores per trace",
                 ("prmkit.evaluate.view_data:ViewConfig",), "prmkit.evaluate.view:write_view", _S + "one_line"),
    "rl grpo": Verb("train a policy with GRPO on outcome and process rewards (PSPO-WRS, PUM/PRM)",
                    ("prmkit.rl.config:RLConfig",), "prmkit.rl.run:run_grpo", _S + "rl", api="rl",
                    args=("output",)),
    "rl compare": Verb("RL runs of several settings, seeds each: held-out curves, final accuracy against the first "
                       "setting with intervals over problems and over seeds, steps to its final accuracy, hacking "
                       "checks", ("prmkit.rl.compare:CompareConfig",), "prmkit.rl.compare:compare_from_config",
                       "prmkit.rl.compare_report:format_compare", api="rl_compare", args=("runs",)),
    "bench": Verb("the step-label bench: every labeler against exact step truth, with its cost",
                  ("prmkit.experiments.bench:BenchConfig",), "prmkit.experiments.bench:run_bench", _S + "bench",
                  names="prmkit.label.registry:LABELERS"),
    "payoff run": Verb("one labeler's row: its labels of the bench's training traces -> a reward model -> scores of "
                       "the policy's samples of fresh problems", ("prmkit.experiments.payoff:PayoffConfig",),
                       "prmkit.experiments.payoff:run_payoff", _S + "payoff", api="payoff"),
    "payoff score": Verb("an untrained scorer's row (the exact checker, the rule verifier) on the fresh samples",
                         ("prmkit.experiments.payoff_score:PayoffScoreConfig",),
                         "prmkit.experiments.payoff_score:score_payoff", _S + "payoff_score", api="payoff_score"),
    "payoff table": Verb("every row's best-of-K and weighted voting minus majority voting (paired bootstrap), "
                         "beside its label and training cost", ("prmkit.experiments.payoff_report:PayoffTableConfig",),
                         "prmkit.experiments.payoff_report:table_from_config", "prmkit.experiments.payoff_report:"
                         "format_payoff", api="payoff_table", args=("rows",)),
}
GROUPS = {"data": "build data sets", "evaluate": "evaluate score files",
          "rl": "train a policy on outcome and process rewards (PSPO-WRS, PUM/PRM); compare runs",
          "payoff": "do a labeler's labels pay off: its reward model in best-of-K on fresh problems"}


def load(ref: str) -> Any:
    """The object "module:NAME" names (imported now)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def config_classes(verb: Verb) -> tuple[type, ...]:
    out: list[type] = []
    for ref in verb.configs:
        obj = load(ref)
        out += [obj] if isinstance(obj, type) else list(obj() if callable(obj) else obj)
    return tuple(out)


def check_required(configs: list[Any]) -> None:
    """A field whose metadata says `required` and that is unset: an error naming its flag."""
    for cfg in configs:
        for f in fields(cfg):
            if f.metadata.get("required") and getattr(cfg, f.name) in (None, "", []):
                raise ValueError(f"--{f.name.replace('_', '-')} is required")


def run_verb(name: str, settings: Mapping[str, Any], config: str | None = None, **passed: Any) -> tuple[Any, list]:
    """Run verb `name`, CLI and API alike: its configs from defaults <- the YAML file `config` <- `settings`, then
    its run function with them and with those of `passed` (progress, log, ...) that it takes. Returns (the result,
    the configs)."""
    verb = VERBS[name]
    run = load(verb.run)
    takes = inspect.signature(run).parameters
    if unknown := set(passed) - set(takes) - {"progress", "log"}:  # the CLI passes both to every verb
        raise TypeError(f"unknown settings {sorted(unknown)} for prmkit {name}")
    passed = {k: v for k, v in passed.items() if k in takes}
    if verb.settings:
        return run(dict(settings), config, **passed), []
    configs = build_configs(config_classes(verb), settings, config)
    check_required(configs)
    return run(*configs, **passed), configs


def as_json(result: Any) -> str:
    """A result as the CLI prints it by default: JSON (a dataclass by its `to_dict` or fields)."""
    def plain(x: Any) -> Any:
        if hasattr(x, "to_dict"):
            return x.to_dict()
        return asdict(x) if is_dataclass(x) and not isinstance(x, type) else str(x)

    return json.dumps(result, indent=2, default=plain)


def show(verb: Verb) -> Callable[..., str | None]:
    """The CLI's text of `verb`'s result: `show(result, *configs)`, each config passed where the function takes it."""
    fn = as_json if verb.show is None else load(verb.show)
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return fn
    return lambda result, *configs: fn(result, *configs[: len(params) - 1])
