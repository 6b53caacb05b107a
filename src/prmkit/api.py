"""prmkit's Python API: one plain function per CLI verb (`prmkit label` = `prmkit.api.label(...)`), each taking the
verb's config fields as keyword arguments (and `config=` for a YAML file, as `--config`), built by the CLI's own
builder (`prmkit.data.settings.build_configs`), then calling the same layer function the verb calls
(`tests/test_api_matches_cli.py` runs each both ways and compares the outputs byte for byte).

`prmkit/__init__.py` re-exports the verbs whose names are not a subpackage's. Each imports its layer when called, so
`import prmkit` stays fast; this module and `prmkit/__init__.py` are the only ones allowed to import every layer
(tests/test_layering.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prmkit.data.records import Pool, StepLabels

__all__ = ["bench", "bench_set", "best_of_k", "bok_table", "corrupt", "export", "export_hf", "generate", "label",
           "payoff", "payoff_score", "payoff_table", "processbench", "pum", "read_pools", "rl", "rl_compare", "rollout",
           "score", "search", "sft", "synth", "threshold", "to_dataset", "train", "verify", "view"]

PathLike = str | os.PathLike[str]


def _configs(classes: Sequence[type], settings: Mapping[str, Any], fixed: Mapping[str, Any] | None = None
             ) -> list[Any]:
    """One instance of each dataclass (the CLI's builder): defaults <- the YAML file `settings["config"]` (as
    `--config`) <- the other keyword `settings` <- `fixed`."""
    from prmkit.data.settings import build_configs

    settings = dict(settings)
    return build_configs(classes, settings, settings.pop("config", None), fixed)


def _config(cls: type, settings: Mapping[str, Any], fixed: Mapping[str, Any] | None = None) -> Any:
    """The instance of the one dataclass `cls` (`_configs`)."""
    return _configs([cls], settings, fixed)[0]


def read_pools(source: PathLike, format: str = "auto") -> list[Pool]:
    """The pools of a file (prmkit Pool JSONL, GSM8K, GSM8K candidates, TRL JSONL or parquet, Math-Shepherd,
    PRM800K, OpenR OmegaPRM; detected) or of `"demo"`."""
    from prmkit.data.formats import read_pools as read

    return list(read(source, format))


def generate(output: PathLike, raw: PathLike | None = None, progress: bool = True, **settings: Any) -> Any:
    """`prmkit generate`: K CoTs per problem, validated and filtered; settings are GenerateConfig fields."""
    from prmkit.generate import GenerateConfig, run_generation

    return run_generation(_config(GenerateConfig, settings), output, raw, progress=progress)


def label(pools: PathLike | Iterable[Pool], output: PathLike | Mapping[str, str], method: str = "mcnig",
          progress: bool = True, format: str = "auto", allow_duplicates: bool = False,
          **settings: Any) -> dict[str, Any]:
    """`prmkit label`: step labels of every trace into `output` (`{method}` in it for several methods), then tau.

    `settings`: LabelConfig fields (limit, tau, tau_from, ...) and the labelers' (model: that of every labeler,
    aggregation, k, ...), or a YAML file of them as `config=`. Returns {method: LabelReport}; each report's
    `warnings` says what its figures need to be read correctly."""
    from prmkit.data.formats import read_pools as read
    from prmkit.label import LabelConfig, label_pools, labeler_configs

    config, *labeler_settings = _configs([LabelConfig, *labeler_configs()], settings | {"method": method})
    if isinstance(pools, str | os.PathLike):
        pools = read(pools, format, allow_duplicates)
    return label_pools(pools, config, output, labeler_settings, progress=progress)


def threshold(choose_on: PathLike, apply_to: Sequence[PathLike] = (), **settings: Any) -> list[dict[str, Any]]:
    """`prmkit threshold`: tau chosen on one label file (ThresholdConfig fields: tau, include_final, force)."""
    from prmkit.label import ThresholdConfig, threshold_files

    return threshold_files(_config(ThresholdConfig, settings, {"choose_on": str(choose_on),
                                                               "apply_to": [str(p) for p in apply_to]}))


def to_dataset(pools: PathLike | Iterable[Pool], labels: PathLike | Iterable[StepLabels], soft: bool = False):
    """A `datasets.Dataset` in TRL's stepwise format (`prompt, completions, labels`); `soft`: sigmoid(score - tau)
    labels in [0, 1] and the raw `scores`. Write it with `.to_parquet(path)`; `prmkit train` reads such parquet."""
    from prmkit.label.export import to_dataset as build

    return build(pools, labels, soft)


def export(pools: PathLike, labels: PathLike, output: PathLike, format: str = "trl") -> int:
    """`prmkit export`: write TRL stepwise records (trl, trl-soft, parquet, parquet-soft); returns the count."""
    from prmkit.label.export import ExportConfig, export_labels

    return export_labels(ExportConfig(str(pools), str(labels), str(output), format))


def export_hf(model: PathLike, output: PathLike, **settings: Any) -> dict[str, Any]:
    """`prmkit export-hf`: the checkpoint `model` as a standard token-classification model in `output` (`bt`'s MLP
    value head as custom code); settings are ExportHFConfig fields (overwrite). Returns the architecture, label
    count, separator id, `trust_remote_code` and the vLLM command (None where vLLM cannot serve it)."""
    from prmkit.models.hf_export import ExportHFConfig
    from prmkit.models.hf_export import export_hf as run

    return run(_config(ExportHFConfig, settings, {"model": str(model), "output": str(output)}))


def train(kind: str, output: PathLike, config: PathLike | None = None, log: Callable[[str], None] = print,
          **settings: Any) -> dict[str, Any]:
    """`prmkit train prm|orm|prm3|bt|pum`: a reward model trained on `labels` joined to `pools` (or a TRL file as
    `labels`, or PUM `pairs`), saved to `output`; the CLI's call (`prmkit.train.run.train`). `settings`:
    TrainInputs, TrainConfig and RewardModelConfig fields; `config`: a YAML file of them. Returns the run's record."""
    from prmkit.train.run import train as run

    return run(kind, output, settings, None if config is None else str(config), log=log)


def score(model: PathLike, pools: PathLike, output: PathLike, **settings: Any) -> dict[str, Any]:
    """`prmkit score`: every trace of `pools` scored by the checkpoint `model` into `output` (input order,
    resumable); settings are ScoreConfig fields (problems_range, aggregation, ...)."""
    from prmkit.evaluate.score import ScoreConfig, score_file

    return score_file(model, pools, output, _config(ScoreConfig, settings))


def best_of_k(scores: Mapping[str, PathLike] | Sequence[str] | PathLike, ks: str | Sequence[int] = "",
              **settings: Any) -> dict[str, Any]:
    """`prmkit evaluate bok`: best-of-K of score files ({name: path} or "NAME=PATH" items) at each K (default
    1, 2, 4, ... up to the pools); settings are BokConfig fields. Returns the report ("rows", "warnings", ...)."""
    from prmkit.evaluate.run import BokConfig
    from prmkit.evaluate.run import best_of_k as run

    if isinstance(scores, Mapping):
        scores = [f"{name}={path}" for name, path in scores.items()]
    items = [str(scores)] if isinstance(scores, str | os.PathLike) else [str(item) for item in scores]
    ks_text = ks if isinstance(ks, str) else ",".join(map(str, ks))
    return run(_config(BokConfig, settings, {"scores": items, "ks": ks_text}))


def processbench(**settings: Any) -> dict[str, Any]:
    """`prmkit evaluate processbench`: first-error identification (error acc, correct acc, F1) of score or label
    files on a step-level benchmark, tau chosen on `choose_on` and reported on `report_on`; settings are
    ProcessBenchConfig fields (benchmark, scores, choose_on, report_on, output, ...)."""
    from prmkit.evaluate.run import ProcessBenchConfig
    from prmkit.evaluate.run import processbench as run

    return run(_config(ProcessBenchConfig, settings))


def rollout(output: PathLike, progress: bool = True, log: Callable[[str], None] = print,
            **settings: Any) -> Any:
    """`prmkit rollout`: K validated continuations after each step prefix of each trace into `output`
    (append-only, resumable); settings are RolloutConfig fields (input, k, max_new_tokens, ...)."""
    from prmkit.generate import RolloutConfig, run_rollout

    return run_rollout(_config(RolloutConfig, settings), output, progress=progress, log=log)


def verify(pools: PathLike, log: Callable[[str], None] = print, **settings: Any) -> int:
    """`prmkit verify`: re-validate the answers of a pool file (into `output`, or show the changes); settings are
    VerifyConfig fields. Returns the number of changed verdicts."""
    from prmkit.generate import VerifyConfig, reverify_file

    cfg = _config(VerifyConfig, settings)
    return reverify_file(pools, cfg.output, show=cfg.show, reextract=cfg.reextract, log=log,
                         allow_duplicates=cfg.allow_duplicates)


def pum(pools: PathLike, output_dir: PathLike, problems_range: str | None = None, allow_duplicates: bool = False,
        sources: Sequence[str] | None = None, progress: bool = True, log: Callable[[str], None] = print,
        **settings: Any) -> dict[str, Any]:
    """`prmkit pum`: PUM prefix-utility preference pairs from student rollouts (pum_paper sec 3) into
    `output_dir`; settings are PumConfig fields (students, k, ...); `sources` keeps only the traces whose source
    starts with one of them (e.g. `["policy"]`). Returns the report."""
    from prmkit.data.formats import read_chosen_pools
    from prmkit.label.pum import PumConfig, label_pum

    config = _config(PumConfig, settings)
    chosen = read_chosen_pools(pools, problems_range, sources, allow_duplicates)
    return label_pum(chosen, config, output_dir, progress=progress, log=log)


def search(methods: str | Sequence[str], output: PathLike, progress: bool = True,
           log: Callable[[str], None] = print, **settings: Any) -> list[Any]:
    """`prmkit search beam|bon`: beam search with a step scorer and/or best-of-N (`{method}` in `output` for
    several); settings are BeamConfig fields (input, prm, k, width, ...). Returns one report per method."""
    from prmkit.search import BeamConfig, run_search

    return run_search(_config(BeamConfig, settings), methods, str(output), progress=progress, log=log)


def view(**settings: Any) -> dict[str, Any]:
    """`prmkit view`: one self-contained HTML page of the step labels and scores of every trace; settings are
    ViewConfig fields (pools, labels, scores, output, ...). Returns what the page holds."""
    from prmkit.evaluate import ViewConfig, write_view

    return write_view(_config(ViewConfig, settings))


def corrupt(**settings: Any) -> dict[str, Any]:
    """`prmkit data corrupt`: a first-error benchmark (and its pools) from GSM8K reference solutions; settings
    are CorruptConfig fields. Returns the report."""
    from prmkit.data.corrupt import CorruptConfig, write_benchmark

    return write_benchmark(_config(CorruptConfig, settings))


def synth(**settings: Any) -> dict[str, Any]:
    """`prmkit data synth`: arithmetic problems with right and slipped traces and their true step labels;
    settings are SynthConfig fields (problems, style, output, labels, ...). Returns the report."""
    from prmkit.data.synthetic import SynthConfig, write_synthetic

    return write_synthetic(_config(SynthConfig, settings))


def bench_set(**settings: Any) -> dict[str, Any]:
    """`prmkit data bench`: bench problems for training or held-out use, none of whose questions is in the
    `exclude` files; settings are BenchSetConfig fields (output, problems, levels, seed, exclude, ...). Returns the
    summary."""
    from prmkit.experiments.bench_sets import BenchSetConfig, write_bench_set

    return write_bench_set(_config(BenchSetConfig, settings))


def bench(progress: bool = True, **settings: Any) -> dict[str, Any]:
    """`prmkit bench`: the step-label bench (problems with exact step truth, constructed and policy traces, every
    labeler scored against the truth with its cost); settings are BenchConfig fields (output, problems, levels,
    labelers, ...). Returns the report (also written to OUTPUT/report.json)."""
    from prmkit.experiments.bench import BenchConfig, run_bench

    return run_bench(_config(BenchConfig, settings), progress=progress)


def sft(progress: bool = True, log: Callable[[str], None] = print, **settings: Any) -> dict[str, Any]:
    """`prmkit sft`: a supervised warm start of the bench's policy on right traces of bench problems (TRL
    SFTTrainer) into `output`, a model directory for `prmkit.api.bench(policy=...)`; settings are SFTRunConfig fields
    (output, model, problems, levels, lr, max_steps, ...). Returns the run's record (also OUTPUT/sft_run.json)."""
    from prmkit.experiments.sft import SFTRunConfig, run_sft

    return run_sft(_config(SFTRunConfig, settings), progress=progress, log=log)


def payoff(log: Callable[[str], None] = print, **settings: Any) -> dict[str, Any]:
    """`prmkit payoff run`: one labeler's row (its labels of a bench's training traces -> a reward model -> scores
    of the policy's samples of fresh problems); settings are PayoffConfig fields (bench, labeler, fresh, output,
    train_config, ...). Returns the row (also OUTPUT/row.json)."""
    from prmkit.experiments.payoff import PayoffConfig, run_payoff

    return run_payoff(_config(PayoffConfig, settings), log=log)


def payoff_score(**settings: Any) -> dict[str, Any]:
    """`prmkit payoff score`: an untrained scorer's row (the exact checker `truth:PROBLEMS`, the rule verifier
    `rule:`) on the fresh samples; settings are PayoffScoreConfig fields (scorer, fresh, output, name, keep).
    Returns the row (also OUTPUT/row.json)."""
    from prmkit.experiments.payoff_score import PayoffScoreConfig, score_payoff

    return score_payoff(_config(PayoffScoreConfig, settings))


def payoff_table(rows: Sequence[PathLike], output: PathLike | None = None, ks: Sequence[int] = (),
                 bootstrap: int = 1000, seed: int = 0, summary: PathLike | None = None, against: str | None = None,
                 fresh: PathLike | None = None) -> dict[str, Any]:
    """`prmkit payoff table`: every row's best-of-K and weighted voting minus majority voting (paired bootstrap
    intervals) beside its label and training cost; `summary` a JSON file of a row per (row, K); `against` a row's
    name: every other row minus that row, paired by problem. A row is a `payoff run` directory or a kept file
    (NAME.jsonl.gz), which needs `fresh`, the fresh pools it scored."""
    from prmkit.experiments.payoff_report import payoff_table as table

    return table([str(r) for r in rows], None if output is None else str(output), list(ks), bootstrap, seed,
                 None if summary is None else str(summary), against, None if fresh is None else str(fresh))


def bok_table(report: Mapping[str, Any]) -> str:
    """The markdown table `prmkit evaluate bok` prints for a `best_of_k` report."""
    from prmkit.evaluate.report import format_table

    return format_table(dict(report))


def rl(algorithm: str, output: PathLike, scorers: Mapping[str, Any] | None = None,
       log: Callable[[str], None] = print, **settings: Any) -> dict[str, Any]:
    """`prmkit rl grpo`: train a policy with TRL's GRPO on the reward spec (`reward="outcome+pspo_wrs:runs/prm"`)
    and optional step-level process advantages (`process="pum:runs/pum"`); settings are RLConfig fields.
    `scorers`: ready StepScorers by the model names used in the specs (else checkpoints are loaded). Returns the
    run's report (held-out accuracy before/after, steps, seconds)."""
    from prmkit.rewards.spec import Scorers
    from prmkit.rl.config import RLConfig
    from prmkit.rl.run import run_grpo

    if algorithm != "grpo":
        raise ValueError(f"unknown RL algorithm '{algorithm}'; prmkit has grpo (TRL 1.16 has no PPO trainer)")
    return run_grpo(_config(RLConfig, settings), output, Scorers(scorers or {}), log=log)


def rl_compare(runs: Mapping[str, Sequence[str]] | Sequence[str], output: PathLike | None = None,
               bootstrap: int = 1000) -> dict[str, Any]:
    """`prmkit rl compare`: RL runs of several settings ({name: [run dirs]} or ["name=dir,dir", ...]; the first
    setting is the baseline) on their held-out curves; writes compare.json/.md/.png and hacking.png into
    `output` when given."""
    from prmkit.rl.compare import compare_runs, parse_groups

    groups = runs if isinstance(runs, Mapping) else parse_groups(list(runs))
    return compare_runs(groups, output, bootstrap)
