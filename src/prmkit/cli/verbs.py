"""Every verb, declared once: its help, its typed configs, its run function and how the CLI shows its result.

The CLI's flags (`prmkit.cli.main`) and the `prmkit.api` functions are derived from this table; each verb's configs
hold every input and output (field metadata: help, range, `positional`, `required`, `resume`).
"""

import importlib
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any

from prmkit.data.settings import build_configs


@dataclass(frozen=True)
class Verb:
    """A verb of `prmkit`. Names are of `module` unless given as "other.module:NAME". `configs`: its config classes
    (or a tuple of them, or a function returning them); `run`: called with the configs (and `progress`, `log`, ...
    where it takes them); `show`: the CLI's text of the result (`show(result, *configs)`; None: JSON); `api`: its
    `prmkit.api` name; `args`: the fields that function takes by position; `names`: what `prmkit --help` lists;
    `settings`: `run` takes the given settings and the `--config` file itself (train: its recipe depends on them)."""

    help: str
    module: str
    configs: tuple[str, ...]
    run: str
    show: str | None = None
    api: str = ""
    args: tuple[str, ...] = ()
    names: str | tuple[str, ...] = ()
    settings: bool = False

    def load(self, ref: str) -> Any:
        module, _, name = ref.rpartition(":")
        return getattr(importlib.import_module(module or f"prmkit.{self.module}"), name)


_S, _LABELERS = "prmkit.cli.show:", "prmkit.label.registry:LABELERS"
VERBS: dict[str, Verb] = {
    "data corrupt": Verb("GSM8K reference solutions -> first-error benchmark + pools", "data.corrupt",
                         ("CorruptConfig",), "write_benchmark", api="corrupt"),
    "data synth": Verb("synthetic arithmetic problems with checkable slips + true labels", "data.synthetic",
                       ("SynthConfig",), "write_synthetic", api="synth"),
    "data bench": Verb("bench problems for training or held-out use, disjoint by question from other sets",
                       "experiments.bench_sets", ("BenchSetConfig",), "write_bench_set", api="bench_set"),
    "label": Verb("label every step of step-delimited CoTs, by method", "label.recipe",
                  ("LabelConfig", "prmkit.label.registry:labeler_configs"), "run_label", _S + "label",
                  args=("input", "output"), names=_LABELERS),
    "threshold": Verb("choose tau by balanced accuracy and apply it to label files", "label.threshold_files",
                      ("ThresholdConfig",), "threshold_files", _S + "lines", args=("choose_on", "apply_to")),
    "export": Verb("export pools + labels to TRL stepwise (JSONL or parquet)", "label.export", ("ExportConfig",),
                   "export_labels", _S + "export", args=("pools", "labels", "output")),
    "export-hf": Verb("export a reward model as a standard token-classification model (transformers, vLLM)",
                      "models.hf_export", ("ExportHFConfig",), "export_hf", "format_export", args=("model", "output")),
    "generate": Verb("sample K step-delimited CoTs per problem and validate them", "generate.generation_recipe",
                     ("prmkit.generate.config:GenerateConfig",), "run_generation", _S + "report_lines",
                     args=("output",)),
    "rollout": Verb("sample K validated continuations after each step prefix of each trace", "generate.rollout_recipe",
                    ("prmkit.generate.config:RolloutConfig",), "run_rollout", _S + "report_lines", args=("output",)),
    "verify": Verb("re-validate the answers of a pool file", "generate.reverify", ("VerifyConfig",), "reverify_file",
                   _S + "nothing", args=("pools",)),
    "pum": Verb("PUM preference pairs from student rollouts (prefix gain, pum_paper sec 3)", "label.pum.pipeline",
                ("PumConfig",), "run_pum", _S + "pum", args=("input", "output_dir")),
    "train": Verb("train a reward model", "train.run", ("prmkit.train.config:TrainTarget", "SETTINGS"), "train_verb",
                  _S + "nothing", args=("kind", "output"), names=("prm", "orm", "prm3", "bt", "pum"), settings=True),
    "sft": Verb("supervised warm start of the bench's policy on right traces of bench problems (TRL SFTTrainer)",
                "experiments.sft", ("SFTRunConfig",), "run_sft", "format_sft"),
    "score": Verb("score candidate traces with a reward model", "evaluate.score", ("ScoreConfig",), "score_file",
                  "format_score", args=("model", "input", "output")),
    "search": Verb("beam search guided by a step scorer (PUM sec 4.3), or best-of-N at its budget", "search.run",
                   ("prmkit.search.config:BeamConfig",), "run_search", _S + "nothing", args=("methods", "output"),
                   names="prmkit.search:METHODS"),
    "evaluate bok": Verb("best-of-K table (+ rank robustness) from score files, and an accuracy-vs-K plot",
                         "evaluate.run", ("BokConfig",), "best_of_k", "prmkit.evaluate.report:format_table",
                         api="best_of_k", args=("scores",)),
    "evaluate processbench": Verb("first-error identification (error acc, correct acc, F1) on a step-level benchmark",
                                  "evaluate.run", ("ProcessBenchConfig",), "processbench",
                                  "prmkit.evaluate.processbench:format_processbench_run", api="processbench"),
    "view": Verb("one self-contained HTML page of step labels and scores per trace", "evaluate.view",
                 ("prmkit.evaluate.view_data:ViewConfig",), "write_view", _S + "one_line"),
    "rl grpo": Verb("train a policy with GRPO on outcome and process rewards (PSPO-WRS, PUM/PRM)", "rl.run",
                    ("prmkit.rl.config:RLConfig",), "run_grpo", "format_rl", api="rl", args=("output",)),
    "rl compare": Verb("RL runs of several settings, seeds each: held-out curves, final accuracy against the first "
                       "setting with intervals over problems and over seeds, steps to its final accuracy, hacking "
                       "checks", "rl.compare", ("CompareConfig",), "compare_from_config", "format_compare",
                       api="rl_compare", args=("runs", "output")),
    "bench": Verb("the step-label bench: every labeler against exact step truth, with its cost", "experiments.bench",
                  ("BenchConfig",), "run_bench", "prmkit.experiments.bench_report:format_bench_run", names=_LABELERS),
    "payoff run": Verb("one labeler's row: its labels of the bench's training traces -> a reward model -> scores of "
                       "the policy's samples of fresh problems", "experiments.payoff", ("PayoffConfig",),
                       "run_payoff", "format_row", api="payoff"),
    "payoff score": Verb("an untrained scorer's row (the exact checker, the rule verifier) on the fresh samples",
                         "experiments.payoff_score", ("PayoffScoreConfig",), "score_payoff", "format_score_row",
                         api="payoff_score"),
    "payoff table": Verb("every row's best-of-K and weighted voting minus majority voting (paired bootstrap), "
                         "beside its label and training cost", "experiments.payoff_report", ("PayoffTableConfig",),
                         "table_from_config", "format_payoff", api="payoff_table", args=("rows", "output")),
}
GROUPS = {"data": "build data sets", "evaluate": "evaluate score files",
          "rl": "train a policy on outcome and process rewards (PSPO-WRS, PUM/PRM); compare runs",
          "payoff": "do a labeler's labels pay off: its reward model in best-of-K on fresh problems"}


def config_classes(verb: Verb) -> tuple[type, ...]:
    out: list[type] = []
    for ref in verb.configs:
        obj = verb.load(ref)
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
    run = verb.load(verb.run)
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
    fn = as_json if verb.show is None else verb.load(verb.show)
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return fn
    return lambda result, *configs: fn(result, *configs[: len(params) - 1])
