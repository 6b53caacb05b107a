"""`prmkit bench`: every labeler run on the same traces of problems with exact step truth, scored against it with what
its labels cost (docs/bench.md)."""

import gc
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from prmkit.data.bench import SLIPS, bench_problems, check_difficulty, constructed_pools, truth_labels
from prmkit.data.bench_checker import check_steps, first_wrong
from prmkit.data.jsonl import iter_json, read_clock, read_records, write_records
from prmkit.data.locks import output_lock
from prmkit.data.manifest import fixed_settings, keep_settings, may_change, read_manifest
from prmkit.data.records import Pool, Problem, StepLabels
from prmkit.data.settings import BATCH_SIZE, MAX_NEW_TOKENS, MAX_SAMPLES, SAMPLES, SEED, Range, check_limits, comma_list
from prmkit.data.settings import field_help as _help
from prmkit.data.templates import check_template, prompt_template
from prmkit.experiments.bench_metrics import bench_rows, cost_scaling, paired_differences
from prmkit.experiments.bench_report import format_bench, plot_f1_tokens
from prmkit.experiments.bench_sets import LEVELS_HELP, SIZE_HELP
from prmkit.generate.config import DecodingConfig, SamplerConfig
from prmkit.generate.distributed import progress_bar
from prmkit.generate.sample_pools import GenerationStats, generate_pools
from prmkit.label.pum.labeler import DEFAULT_STUDENTS
from prmkit.label.recipe import LabelConfig, label_pools
from prmkit.label.registry import LABELERS, check_labelers, cost_reference, shared_configs
from prmkit.models.loading import DEFAULT_MODEL, resolve_model
from prmkit.models.scored_steps import pool_traces, scorer_labels_file
from prmkit.models.scorer import ScorerError
from prmkit.models.scorer_spec import load_scorer_spec, parse_named_specs

__all__ = ["BenchConfig", "pass_at_k", "run_bench"]


@dataclass
class BenchConfig:
    """`prmkit bench`: problems with exact step truth, every labeler scored against it."""

    output: str | None = field(default=None, metadata=_help("run directory (required); a re-run resumes.",
                                                            resume="may-change"))
    problems: int = field(default=60, metadata=_help("problems, spread evenly over the levels; half choose tau, "
                                                     "half report.", resume="may-change"))
    levels: str = field(default="1,2,3,4,5,6", metadata=_help(LEVELS_HELP))
    size: str = field(default="small", metadata=_help(SIZE_HELP))
    seed: int = field(default=0, metadata=_help("seed of the problems, slips and samples.", range=SEED))
    slips: list[str] = field(default_factory=lambda: list(SLIPS), metadata=_help(
        "constructed slip kinds, one trace each per problem, comma-separated: " + " | ".join(SLIPS) + "; empty: "
        "none."))
    policy_k: int = field(default=4, metadata=_help("policy samples per problem (0: constructed traces only).",
                                                    range=Range(0, MAX_SAMPLES, note="0: constructed traces only")))
    labelers: list[str] = field(default_factory=lambda: ["ig", "mcnig", "math-shepherd"], metadata=_help(
        "labelers, comma-separated: prmkit label methods (" + " | ".join(LABELERS) + ").", resume="may-change"))
    scorers: list[str] = field(default_factory=list, metadata=_help(
        "step scorers judged beside the labelers, NAME=SPEC (models.scorer_spec: a prmkit checkpoint, "
        "token-classification:PATH, step-tag:PATH, openai-pooling:URL, with ,KEY=VALUE options); their step "
        "scores are kept in OUTPUT/scorers/NAME.jsonl; no cost ledger.", resume="may-change"))
    model: str = field(default=DEFAULT_MODEL, metadata=_help("every labeler's model, and the policy's unless "
                                                             "--policy is given."))
    policy: str | None = field(default=None, metadata=_help(
        "the model whose samples are labeled, e.g. a warm start of `prmkit sft`; unset: --model."))
    k: int = field(default=4, metadata=_help("rollouts per prefix of Math-Shepherd, OmegaPRM and PUM (per student).",
                                             range=SAMPLES))
    students: list[str] = field(default_factory=lambda: list(DEFAULT_STUDENTS), metadata=_help(
        "PUM's students, comma-separated [BACKEND:]MODEL[@T][#TEMPLATE] (gemma3-270m: pip install 'prmkit[gemma]').",
        resume="may-change"))
    max_new_tokens: int = field(default=96, metadata=_help("new tokens per policy sample and per rollout.",
                                                           range=MAX_NEW_TOKENS))
    temperature: float = field(default=0.7, metadata=_help("temperature of the policy and the rollouts.",
                                                           range=Range(0, 100, open_low=True)))
    batch_size: int = field(default=32, metadata=_help("rows per sampling batch.", range=BATCH_SIZE))
    dtype: str | None = field(default=None, metadata=_help("rollout and policy weights dtype (e.g. bfloat16)."))
    template: str | None = field(default=None, metadata=_help(
        "prompt template of every sampler (policy, rollouts, PUM's students unless MODEL#TEMPLATE): a built-in name "
        "(generate_math_0shot) or a file; None: the few-shot prompt. A warm start is sampled with its own."))
    bootstrap: int = field(default=1000, metadata=_help("bootstrap resamples of the F1 interval (0: none).",
                                                        resume="may-change",
                                                        range=Range(0, 1_000_000, note="0: no interval")))
    label: bool = field(default=True, metadata=_help(
        "--no-label: sample and label nothing more and report on the traces every labeler has labeled so far (a run "
        "stopped partway); no model loads.", resume="may-change"))

    def __post_init__(self) -> None:
        check_limits(self)
        levels = check_difficulty(self.levels, self.size)
        for name in ("slips", "labelers", "students"):  # "ig,mcnig", or a flag's ["ig,mcnig"]
            items = getattr(self, name)
            items = [items] if isinstance(items, str) else items
            setattr(self, name, [x for item in items for x in comma_list(item)])
        if unknown := [s for s in self.slips if s not in SLIPS]:
            raise ValueError(f"unknown slip kind(s) {unknown}; choose from {', '.join(SLIPS)}")
        if unknown := [n for n in self.labelers if n not in LABELERS]:
            raise ValueError(f"unknown labeler(s) {unknown}; choose from {', '.join(LABELERS)}")
        if clash := set(parse_named_specs(self.scorers)) & set(self.labelers):
            raise ValueError(f"scorer name(s) {sorted(clash)} are labelers' names: name the scorers otherwise")
        if self.problems < 2 * len(levels):
            raise ValueError(f"need at least two problems per level ({2 * len(levels)}): one half chooses tau, "
                             "the other reports")
        if not self.slips and not self.policy_k:
            raise ValueError("no traces: give slips or a policy_k above 0")
        prompt_template(self.template)  # an unknown template is an error before any model loads

    def level_list(self) -> list[int]:
        return check_difficulty(self.levels, self.size)

    def policy_model(self) -> str:
        return self.policy or self.model

    def sampler(self) -> SamplerConfig:
        decoding = DecodingConfig(temperature=self.temperature, max_new_tokens=self.max_new_tokens, seed=self.seed,
                                  template=self.template)
        return SamplerConfig(decoding=decoding, k=self.policy_k or 1, batch_size=self.batch_size,
                             model=self.policy_model(), dtype=self.dtype)


def _upgrade(old: dict[str, Any]) -> dict[str, Any]:
    """A bench's settings file written before: its policy was --model, its prompt the few-shot one, its slips one
    comma-separated text."""
    slips = old.get("slips")
    return {"policy": old.get("model"), "template": None} | old | (
        {"slips": comma_list(slips)} if isinstance(slips, str) else {})


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c are right (Chen et al., 2021): 1 - C(n-c, k) / C(n, k)."""
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def _policy_truth(pool: Pool) -> list[StepLabels]:
    """The checker's truth of each policy sample, its verdict counts in `params`."""
    out = []
    for t in pool.traces:
        verdicts = check_steps(pool.problem, t.steps)
        first = first_wrong(verdicts)
        labels = truth_labels(len(t.steps), first)
        out.append(StepLabels(t.id, "truth", [float(x) for x in labels], labels, 0.5,
                              {"slip": "policy", "first_error": first, "level": pool.problem.meta["level"],
                               "undecided": sum(v.verdict == "undecided" for v in verdicts),
                               "reasons": [v.reason for v in verdicts]},
                              t.correct, t.problem_id))
    return out


def _policy_pools(cfg: BenchConfig, problems: list[Problem], out: Path, log: Callable[[str], None],
                  progress: bool) -> tuple[list[Pool], dict[str, Any]]:
    """The policy's samples (append-only, resumable), and its solve rate and pass@k per level."""
    raw = out / "policy.raw.jsonl"
    sampler = cfg.sampler()
    start = time.perf_counter()
    stats = GenerationStats()
    if cfg.label:  # --no-label: every problem was sampled (`_check_sampled`), and the policy does not load
        with progress_bar(progress, len(problems), "problem", "policy samples") as tick:
            stats = generate_pools(problems, sampler.make_backend(), sampler.sampling(), raw,
                                   max(1, cfg.batch_size // sampler.k), f"policy:{cfg.policy_model()}",
                                   progress=tick)
    wanted = {p.id for p in problems}
    pools = [p for p in read_records(raw, Pool.from_dict) if p.problem.id in wanted]
    counts: dict[str, list[tuple[int, int]]] = {}  # level -> (samples, right ones) of each problem
    for pool in pools:
        counts.setdefault(str(pool.problem.meta["level"]), []).append(
            (len(pool.traces), sum(bool(t.correct) for t in pool.traces)))
    levels = {level: {"problems": len(nc), "samples": sum(n for n, _ in nc), "right": sum(c for _, c in nc),
                      "pass_at_1": sum(pass_at_k(n, c, 1) for n, c in nc) / len(nc),
                      "pass_at_k": sum(pass_at_k(n, c, n) for n, c in nc) / len(nc),
                      "solve_rate": sum(c for _, c in nc) / sum(n for n, _ in nc)} for level, nc in counts.items()}
    seconds = time.perf_counter() - start
    log(f"policy: {stats.tokens} tokens generated in {seconds:.1f}s")
    return pools, {"model": cfg.policy_model(), "k": cfg.policy_k, "tokens": stats.tokens,
                   "seconds": round(seconds, 1), "levels": dict(sorted(levels.items(), key=lambda kv: int(kv[0])))}


def _labeler_settings(cfg: BenchConfig) -> list[Any]:
    """Every registered labeler's config, with the settings the bench shares (model, K, sampling, students)."""
    return shared_configs(asdict(cfg))


def run_bench(cfg: BenchConfig, progress: bool = True, log: Callable[[str], None] = lambda _: None
              ) -> dict[str, Any]:
    """Make (or resume) the bench in `cfg.output` and return its report (report.json)."""
    if not cfg.output:
        raise ValueError("set --output (the run directory)")
    if not cfg.label:
        _check_run_to_report(cfg)
    resolve_model(cfg.model)  # an unknown model is an error before anything is written
    settings = _labeler_settings(cfg)
    check_labelers(cfg.labelers, settings)
    problems = bench_problems(cfg.problems, cfg.seed, tuple(cfg.level_list()), cfg.size)
    out = Path(cfg.output)
    if cfg.policy_k:
        _check_held_out(cfg, problems)
        if not cfg.label:
            _check_sampled(out / "policy.raw.jsonl", problems)
    if cfg.label:
        _check_scorers(cfg)
    out.mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(exist_ok=True)
    # --problems may change: the problems are a prefix-stable stream, so a bench grows (or is read at fewer)
    mine = fixed_settings(cfg) | {"policy": cfg.policy_model()}  # --policy given or not, the same bench
    with output_lock(out / "report.json"):
        # a settings file without them: its policy was --model, its prompt the few-shot one
        keep_settings(out / "settings.json", mine, "a bench", skip=may_change(cfg),
                      upgrade=_upgrade)
        return _run(cfg, out, problems, settings, progress, log)


def _check_run_to_report(cfg: BenchConfig) -> None:
    """--no-label: a folder with no run, or no labels of these labelers, is an error before any model loads."""
    out = Path(cfg.output or "")
    scorers = list(parse_named_specs(cfg.scorers))
    held = [n for n in cfg.labelers if (out / "labels" / f"{n}.jsonl").is_file()]
    held += [n for n in scorers if (out / "scorers" / f"{n}.jsonl").is_file()]  # a scorer's scores report too
    if not (out / "settings.json").is_file() or not held:
        what = ("no bench run" if not (out / "settings.json").is_file() else
                f"no labels of {', '.join(cfg.labelers + scorers) or 'any labeler (--labelers is empty)'}")
        raise ValueError(f"--no-label reports on a bench run's labels, but {out} holds {what}: run `prmkit bench "
                         f"--output {out}` without --no-label first, or give the folder of a run")


def _check_scorers(cfg: BenchConfig) -> None:
    """Load each of --scorers once before the policy samples, so that a bad spec fails in seconds."""
    for name, spec in parse_named_specs(cfg.scorers).items():
        try:
            load_scorer_spec(spec)
        except (OSError, ValueError, ScorerError) as e:
            raise ValueError(f"--scorers {name}: {e}") from None
        gc.collect()


def _check_sampled(raw: Path, problems: list[Problem]) -> None:
    """--no-label samples nothing: the policy's samples of every problem must already be in `raw`."""
    held = {str(obj["problem"]["id"]) for _, obj in iter_json(raw)} if raw.is_file() else set()
    if missing := [p.id for p in problems if p.id not in held]:
        have = len(problems) - len(missing)
        raise ValueError(f"--no-label samples nothing, but {raw} holds the policy's samples of {have} of the "
                         f"{len(problems)} problems (the first missing: {missing[0]}): give --problems {have}, as "
                         "the run had, or run without --no-label to sample and label the rest")


def _check_held_out(cfg: BenchConfig, problems: list[Problem]) -> None:
    """A warm-started policy must not have trained on the bench's problems and must be sampled with its own template."""
    policy = resolve_model(cfg.policy_model())
    check_template(policy, cfg.template)
    trained = _trained_questions(policy)
    if seen := [p.question for p in problems if p.question in trained]:
        raise ValueError(f"the policy {cfg.policy_model()} was trained on {len(seen)} of this bench's problems (e.g. "
                         f"'{seen[0]}'): choose another --seed")


def _trained_questions(policy: str) -> set[str]:
    """The questions a warm start (`prmkit sft`) trained on, from the data its manifest names; none for any other
    model."""
    made = read_manifest(policy)
    return {row["question"] for row in made.rows("data")} if made is not None and made.kind == "sft" else set()


def _run(cfg: BenchConfig, out: Path, problems: list[Problem], settings: list[Any], progress: bool,
         log: Callable[[str], None]) -> dict[str, Any]:
    write_records(out / "problems.jsonl", problems)
    pools, truth = constructed_pools(problems, tuple(cfg.slips), cfg.seed)
    policy: dict[str, Any] = {}
    if cfg.policy_k:
        sampled, policy = _policy_pools(cfg, problems, out, log, progress)
        by_id = {p.problem.id: p for p in sampled}
        for pool in sampled:
            truth += _policy_truth(pool)
        pools = [Pool(p.problem, [*p.traces, *by_id[p.problem.id].traces]) for p in pools] if pools else sampled
    write_records(out / "pools.jsonl", pools)
    write_records(out / "truth.jsonl", truth)
    labels: dict[str, dict[str, StepLabels]] = {}
    runs: dict[str, Any] = {}
    names = list(cfg.labelers)
    paths = {n: str(out / "labels" / f"{n}.jsonl") for n in names}
    log(f"labelers {', '.join(names)}")
    clock = out / "labels" / "seconds.jsonl"
    reports = label_pools(pools, LabelConfig(method=names, skip_too_long=True), paths,
                          settings, progress=progress, clock=clock) if cfg.label and names else {}
    for name in names:
        held = Path(paths[name]).exists()  # --no-label: a labeler that never ran has no file
        labels[name] = {r.trace_id: r for r in read_records(paths[name], StepLabels.from_dict)} if held else {}
        shared = [m for m in names if LABELERS[m] is LABELERS[name]]
        if name not in reports:  # --no-label: what earlier runs labeled, nothing spent by this one
            runs[name] = {"seconds": 0.0, "run_seconds": 0.0, "skipped": {}, "shared_with": shared,
                          "tokens_read": 0, "tokens_generated": 0, "resumed": len(labels[name])}
            continue
        rep = reports[name]
        runs[name] = {"seconds": round(rep.labeler_seconds, 3), "run_seconds": round(rep.seconds, 3),
                      "skipped": rep.skipped, "shared_with": shared,
                      "tokens_read": rep.tokens_read, "tokens_generated": rep.tokens_generated,
                      "resumed": rep.resumed}
    for name, spec in parse_named_specs(cfg.scorers).items():  # a PRM's step scores, judged as a labeler's
        labels[name] = scorer_labels_file(spec, pool_traces(pools), out / "scorers" / f"{name}.jsonl", name,
                                          score=cfg.label)
        runs[name] = {"seconds": 0.0, "run_seconds": 0.0, "skipped": {}, "shared_with": [name], "tokens_read": 0,
                      "tokens_generated": 0, "resumed": 0, "scorer": spec}
    excluded = {n: runs[n]["skipped"] for n, got in labels.items() if not got}
    for name in excluded:
        log(f"{name} labeled no trace (skipped: {excluded[name]}): left out of the comparison")
        del labels[name]
    rows, coverage = bench_rows(truth, labels, cfg.bootstrap, cfg.seed, read_clock(clock)) if labels else ([], {})
    coverage["excluded"] = excluded
    report = {"settings": asdict(cfg), "problems": len(problems), "traces": len(truth),
              "traces_by_kind": _kinds(truth), "policy": policy, "labelers": runs, "coverage": coverage,
              "checker": {"policy_steps": sum(len(t.labels) for t in truth if t.params["slip"] == "policy"),
                          "undecided_steps": sum(t.params.get("undecided", 0) for t in truth)},
              "cost_scaling": cost_scaling(rows, base) if (base := cost_reference()) in labels else {}, "rows": rows,
              "differences": paired_differences(truth, labels, rows, n_boot=cfg.bootstrap, seed=cfg.seed)
              if rows else []}
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "table.md").write_text(format_bench(report) + "\n")
    if rows:
        plot_f1_tokens(rows, out / "f1_tokens.png")
    else:  # no labeler scored (--labelers ''): an earlier run's plot would contradict this table
        (out / "f1_tokens.png").unlink(missing_ok=True)
    return report


def _kinds(truth: list[StepLabels]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for t in truth:
        row = out.setdefault(t.params["slip"] or "right", {"traces": 0, "answer_right": 0, "process_error": 0})
        row["traces"] += 1
        row["answer_right"] += bool(t.correct)
        row["process_error"] += t.params["first_error"] >= 0
    return out
