"""`prmkit payoff run`: does a labeler's labels pay off? A reward model trained on them, scored in best-of-K and
weighted voting on fresh samples against majority voting (MCNIG sec 4.3, table 2; PUM sec 4.2, fig. 3)."""

import json
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from prmkit.data.jsonl import read_records, write_records
from prmkit.data.manifest import fixed_settings, keep_settings, may_change, read_manifest
from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.records import Pool, PrefixPair, StepLabels
from prmkit.data.settings import COUNT, SEED, THREADS, Range, check_limits
from prmkit.data.settings import field_help as _help
from prmkit.experiments.payoff_kept import keep_row
from prmkit.train.recipe_files import recipe_path

__all__ = ["ROW", "SOURCES", "TRACE_KINDS", "PayoffConfig", "Source", "balance_pools", "check_unfiltered",
           "outcome_fill", "outcome_pairs", "pum_pairs", "run_payoff", "score_row"]


@dataclass(frozen=True)
class Source:
    """A row's signal: the head `prmkit train` fits, its step labels in the bench, whether it trains on `--pairs`."""

    head: str
    labels_file: str | None = None
    given_pairs: bool = False


SOURCES = {"truth": Source("prm", "truth.jsonl"), "outcome": Source("orm"), "outcome-pairs": Source("bt"),
           "pum": Source("bt", given_pairs=True)}
TRACE_KINDS = ("all", "policy", "constructed")
ROW, SETTINGS = "row.json", "settings.json"


@dataclass
class PayoffConfig:
    """`prmkit payoff run`: one labeler's row (docs/payoff.md)."""

    bench: str = field(default="", metadata=_help(
        "a `prmkit bench` output of the training problems (pools.jsonl, truth.jsonl, labels/)", role="input"))
    labeler: str = field(default="", metadata=_help(
        "whose labels: a labeler the bench ran (labels/NAME.jsonl), truth (the exact checker), outcome (an ORM on "
        "the answers), outcome-pairs (a Bradley-Terry head on right/wrong sample pairs of a problem) or pum (the "
        "Bradley-Terry head on --pairs)"))
    pairs_per_problem: int = field(default=8, metadata=_help(
        "labeler outcome-pairs: at most this many (right, wrong) sample pairs a problem, drawn with --seed",
        range=COUNT))
    fresh: str = field(default="", metadata=_help(
        "Pool JSONL of the policy's K samples of fresh problems (`prmkit generate`), none of them a bench problem",
        role="input"))
    output: str = field(default="", metadata=_help("row directory: model/, scores.jsonl, row.json",
                                                   resume="may-change", role="output-dir"))
    pairs: str | None = field(default=None, metadata=_help(
        "labeler pum: the PrefixPair JSONL of `prmkit pum` on the bench's pools, of which the row trains on the pairs "
        "between the traces --train-problems and --traces keep (its manifest gives the students' token cost)",
        role="input"))
    train_config: str = field(default="cpu_verifier", metadata=_help(
        "the reward-model recipe every row shares: a name under recipes/ or a YAML file of `prmkit train`"))
    model: str | None = field(default=None, metadata=_help(
        "base model of the reward model (None: the recipe's, else the embedded default)"))
    traces: str = field(default="all", metadata=_help(
        "training traces of the bench: all | policy (the policy's own samples) | constructed"))
    train_problems: int = field(default=0, metadata=_help(
        "train on the bench's first N problems only (0: all); the bench's problems are a prefix-stable stream spread "
        "evenly over its levels, so the rows of a learning curve train on nested sets",
        range=Range(0, note="0: every problem of the bench")))
    name: str | None = field(default=None, metadata=_help(
        "the row's name in the table (default: the labeler; e.g. truth@300 for a learning curve's point)"))
    fill: str | None = field(default=None, metadata=_help(
        "outcome: a training trace the labeler left without labels (MCNIG: a problem whose samples are all right, "
        "with no wrong answer to gain information against) gets the outcome's, every step the answer's verdict; "
        "default: such traces are left out"))
    balance: bool = field(default=False, metadata=_help(
        "per problem, repeat the training samples of the rarer verdict (right or wrong) until both verdicts count "
        "alike, with their labels (copies `<id>#bN`); a problem of one verdict is kept as it is"))
    soft: bool = field(default=False, metadata=_help(
        "soft targets for IG/MCNIG labels: sigmoid(score - tau) (prmkit train --soft)"))
    threads: int = field(default=0, metadata=_help("torch CPU threads (0 = torch default)", resume="may-change",
                                                   range=THREADS))
    seed: int = field(default=0, metadata=_help("training seed (a row of several seeds: name each NAME#sN)",
                                                range=SEED))
    keep: str | None = field(default=None, metadata=_help(
        "a directory the repository keeps: the row's scores of the fresh samples and its figures go there as "
        "NAME.jsonl.gz (`prmkit.experiments.payoff_kept`), which `payoff table` re-derives the row from",
        resume="may-change"))

    def __post_init__(self) -> None:
        for name in ("bench", "labeler", "fresh", "output"):
            if not getattr(self, name):
                raise ValueError(f"payoff run needs --{name}")
        check_limits(self)
        if self.traces not in TRACE_KINDS:
            raise ValueError(f"unknown --traces {self.traces!r}; choose from {', '.join(TRACE_KINDS)}")
        if self.source.given_pairs and not self.pairs:
            raise ValueError(f"labeler {self.labeler} trains on the pairs of `prmkit pum`: give --pairs")
        if self.pairs and not self.source.given_pairs:
            raise ValueError(f"--pairs is for labeler pum, not {self.labeler!r}")
        if self.fill not in (None, "outcome"):
            raise ValueError(f"unknown --fill {self.fill!r}; choose outcome (or leave it out)")
        if self.fill and self.labeler in SOURCES:
            raise ValueError(f"--fill completes a labeler's step labels; {self.labeler!r} has none to complete")
        if self.balance and self.source.head == "bt":
            raise ValueError(f"--balance repeats training traces; the {self.labeler!r} row trains on pairs")
        if self.fill and self.soft:
            raise ValueError("--fill with --soft: the outcome's labels have no score to soften; use one of them")

    @property
    def source(self) -> Source:
        """The row's source: one of `SOURCES`, else a labeler the bench ran."""
        return SOURCES.get(self.labeler) or Source("prm", f"labels/{self.labeler}.jsonl")

    def labels_path(self) -> Path | None:
        """The step labels of the row (None: the head needs none)."""
        return Path(self.bench, self.source.labels_file) if self.source.labels_file else None


def check_unfiltered(path: str) -> None:
    """The fresh samples must be all the policy drew: `prmkit generate`'s filter (MCNIG sec 3.1) drops the problems
    solved every time and keeps mostly wrong traces, so best-of-K and voting on its output are biased. The pools'
    manifest says whether the filter ran, and which file holds every sample."""
    made = read_manifest(path)
    if made is not None and made.kind == "generate" and made.settings.get("filter"):
        raise ValueError(f"--fresh {path}: it was filtered (MCNIG sec 3.1 drops problems solved every time and "
                         f"favours wrong traces), which biases best-of-K; pass --fresh {made.output('raw')} (every "
                         "sample) or generate with --no-filter")


def _check_inputs(cfg: PayoffConfig) -> tuple[list[Pool], list[Pool]]:
    """The bench's pools and the fresh pools, after every check that needs no model."""
    bench = Path(cfg.bench)
    for name in ("pools.jsonl", "truth.jsonl"):
        if not (bench / name).is_file():
            raise FileNotFoundError(f"--bench {bench}: no {name} (a `prmkit bench` output directory)")
    labels = cfg.labels_path()
    if labels is not None and not labels.is_file():
        ran = sorted(p.stem for p in (bench / "labels").glob("*.jsonl"))
        raise FileNotFoundError(f"the bench {bench} has no labels of {cfg.labeler!r}: it ran {', '.join(ran) or 'none'}"
                                f"; or give {', '.join(SOURCES)}")
    if cfg.pairs and not Path(cfg.pairs).is_file():
        raise FileNotFoundError(f"--pairs {cfg.pairs}: no such file")
    if not Path(cfg.fresh).is_file():
        raise FileNotFoundError(f"--fresh {cfg.fresh}: no such file")
    recipe_path(cfg.train_config)  # a recipe name or file that exists (the error names the recipes there are)
    train = list(read_records(bench / "pools.jsonl", Pool.from_dict))
    fresh = list(read_records(cfg.fresh, Pool.from_dict))
    check_unfiltered(cfg.fresh)
    seen = {p.problem.question.strip() for p in train}
    if shared := [p.problem.id for p in fresh if p.problem.question.strip() in seen]:
        raise ValueError(f"--fresh {cfg.fresh}: {len(shared)} of its problems are training problems of the bench "
                         f"(first: {shared[0]}); the fresh set must be problems no model was trained on")
    if cfg.train_problems:
        ids = list(dict.fromkeys(p.problem.id for p in train))
        if cfg.train_problems > len(ids):
            raise ValueError(f"--train-problems {cfg.train_problems}: the bench {bench} has {len(ids)} problems (grow "
                             f"it: `prmkit bench --problems {cfg.train_problems}` with its other settings resumes)")
        kept = set(ids[: cfg.train_problems])
        train = [p for p in train if p.problem.id in kept]
    return train, fresh


def _training_set(cfg: PayoffConfig, pools: list[Pool]) -> tuple[list[Pool], list[StepLabels], list[StepLabels], bool]:
    """(the traces `--traces` keeps, their label records with `--fill`'s and `--balance`'s, the records whose cost
    the row counts, whether that differs from the bench's whole)."""
    labels_path = cfg.labels_path()
    records = list(read_records(labels_path, StepLabels.from_dict)) if labels_path else []
    problems = {p.problem.id for p in pools}  # a bench read at fewer problems than it labeled holds more labels
    records = [r for r in records if r.problem_id in problems]
    filled = outcome_fill(pools, records) if cfg.fill else []
    records += filled
    if cfg.traces != "all":
        policy = {t.trace_id: t.params.get("slip") == "policy"
                  for t in read_records(Path(cfg.bench, "truth.jsonl"), StepLabels.from_dict)}
        pools = [Pool(p.problem, [t for t in p.traces if policy.get(t.id, False) == (cfg.traces == "policy")])
                 for p in pools]
        pools = [p for p in pools if p.traces]
        if not pools:
            raise ValueError(f"the bench {cfg.bench} has no {cfg.traces} traces")
        records = [r for r in records if policy.get(r.trace_id, False) == (cfg.traces == "policy")]
    used = records  # what the labels cost: the copies of --balance cost nothing more
    if cfg.balance:
        pools, records = balance_pools(pools, records)
    return pools, records, used, bool(cfg.traces != "all" or cfg.train_problems or filled or cfg.balance)


def balance_pools(pools: Sequence[Pool], records: Sequence[StepLabels]) -> tuple[list[Pool], list[StepLabels]]:
    """Per problem, the traces of the rarer verdict repeated (copies `<id>#b1`, `#b2`, ... with their label records)
    until right and wrong count alike; a problem of one verdict is kept as it is."""
    by_trace: dict[str, list[StepLabels]] = {}
    for r in records:
        by_trace.setdefault(r.trace_id, []).append(r)
    out_pools, out_records = [], list(records)
    for pool in pools:
        right = [t for t in pool.traces if t.correct]
        wrong = [t for t in pool.traces if t.correct is False]
        few, many = sorted((right, wrong), key=len)
        copies = []
        for k in range(len(many) - len(few) if few else 0):
            trace = few[k % len(few)]
            copies.append(replace(trace, id=f"{trace.id}#b{k // len(few) + 1}"))
            out_records += [replace(r, trace_id=copies[-1].id) for r in by_trace.get(trace.id, ())]
        out_pools.append(Pool(pool.problem, [*pool.traces, *copies]))
    return out_pools, out_records


def pum_pairs(path: str, pools: Sequence[Pool]) -> list[PrefixPair]:
    """The pairs of `prmkit pum` (`path`) between prefixes of the training traces in `pools`."""
    traces = {t.id for p in pools for t in p.traces}
    pairs = list(read_records(path, PrefixPair.from_dict))
    kept = [q for q in pairs if q.id_a.rsplit("@", 1)[0] in traces and q.id_b.rsplit("@", 1)[0] in traces]
    if not kept:
        raise ValueError(f"--pairs {path}: none of its {len(pairs)} pairs is between prefixes of the bench's "
                         f"training traces ({len(traces)} traces of {len(pools)} problems)")
    return kept


def outcome_fill(pools: Sequence[Pool], records: Sequence[StepLabels]) -> list[StepLabels]:
    """Outcome labels (every step the answer's verdict; method `outcome-fill`, no cost) for the verified traces of
    `pools` that `records` leave unlabelled."""
    method = next((r.method for r in records), "")
    have = {r.trace_id for r in records}
    return [StepLabels(t.id, method, [float(t.correct)] * len(t.steps), [int(t.correct)] * len(t.steps), 0.5,
                       {"method": "outcome-fill"}, t.correct, p.problem.id)
            for p in pools for t in p.traces if t.id not in have and t.correct is not None and t.steps]


def outcome_pairs(pools: Sequence[Pool], per_problem: int, seed: int = 0) -> list[PrefixPair]:
    """Bradley-Terry pairs from the answers alone: per problem up to `per_problem` (right, wrong) whole-trace pairs,
    seeded by the problem, the right one preferred, `prefix_a` alternating so that the labels are balanced."""
    import random

    out = []
    for pool in pools:
        right = [t for t in pool.traces if t.correct and t.steps]
        wrong = [t for t in pool.traces if t.correct is False and t.steps]
        combos = [(r, w) for r in right for w in wrong]
        random.Random(f"{seed}-{pool.problem.id}").shuffle(combos)
        for i, (r, w) in enumerate(combos[:per_problem]):
            a, b, label = (r, w, 1) if i % 2 == 0 else (w, r, -1)
            out.append(PrefixPair(pool.problem.id, pool.problem.question, list(a.steps), list(b.steps), label,
                                  f"{a.id}@{len(a.steps)}", f"{b.id}@{len(b.steps)}", kind="outcome"))
    if not out:
        raise ValueError("no problem has both a right and a wrong sample: no outcome pairs to train on")
    return out


def _label_cost(cfg: PayoffConfig, records: list[StepLabels]) -> dict[str, Any]:
    """Tokens and seconds the labels cost: the labeler's ledger over the records the row trained on and the bench's
    seconds ledger; PUM: its students' rollouts (the manifest of --pairs); truth and outcome cost none."""
    from prmkit.data.jsonl import read_clock

    if cfg.source.given_pairs:
        made = read_manifest(cfg.pairs or "")
        if made is None or made.kind != "pum":
            return {"tokens_read": 0, "tokens_generated": 0, "seconds": None, "known": False}
        costs, seconds = [made.cost], made.cost.get("seconds")
    else:
        clock = read_clock(Path(cfg.bench, "labels", "seconds.jsonl")).get(cfg.labeler, {})
        costs, seconds = [r.cost for r in records], round(sum(clock.get(r.trace_id, 0.0) for r in records), 3)
    tokens = {k: sum(int(c.get(k, 0)) for c in costs) for k in ("tokens_read", "tokens_generated")}
    return tokens | {"seconds": seconds, "known": True}


def _train(cfg: PayoffConfig, kind: str, examples: list, model: Path, log: Callable[[str], None]) -> dict[str, Any]:
    """Train the row's reward model with `prmkit train`'s call and the shared recipe (the row's seed, threads and
    base model in place of the recipe's); returns what training cost."""
    from prmkit.train.run import resolve_configs, train_configs

    train_config, model_config, inputs = resolve_configs(kind, {}, cfg.train_config, log)
    train_config = replace(train_config, resume=True, seed=cfg.seed, threads=cfg.threads,
                           model=cfg.model or train_config.model)
    start = time.perf_counter()
    record = train_configs(model, (train_config, model_config, inputs), log=log, examples=examples)
    return {"seconds": round(time.perf_counter() - start, 1),
            "train_seconds": round(record.get("train_seconds", 0.0), 1), "examples": record.get("train_traces"),
            "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}


def _check_same_training_set(figures: dict[str, Any], now: dict[str, int], cfg: PayoffConfig, trained: Path) -> None:
    """A kept model must have trained on the training set the row names now (the bench may have grown since)."""
    if changed := {k: (figures[k], n) for k, n in now.items() if figures.get(k, n) != n}:
        what = ", ".join(f"{k.replace('_', ' ')} {a} -> {b}" for k, (a, b) in changed.items())
        hint = f", with --train-problems {figures['problems']} for this row's problems" if "problems" in changed else ""
        raise ValueError(f"{trained}: the bench {cfg.bench} gives this row another training set than its model "
                         f"trained on ({what}): give a new --output{hint}")


def run_payoff(cfg: PayoffConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """One labeler's row: train its reward model on the bench's traces, score the fresh samples; returns row.json."""
    from prmkit.data.join import JoinReport
    from prmkit.train.data import build_examples
    from prmkit.train.pum_pairs import pair_examples

    out, kind = Path(cfg.output), cfg.source.head  # the head `prmkit train` fits: prm, orm or bt
    with claim_outputs(**claims(cfg)):
        pools, fresh = _check_inputs(cfg)
        out.mkdir(parents=True, exist_ok=True)
        # a row directory holds one row: a re-run with other settings is refused (threads may change)
        keep_settings(out / SETTINGS, fixed_settings(cfg), "a row", skip=may_change(cfg))
        kept, records, used, subset = _training_set(cfg, pools)
        labeled = cfg.labels_path() is not None
        if subset:  # the row's training set, for the record
            write_records(out / "train_pools.jsonl", kept)
            if labeled:
                write_records(out / "train_labels.jsonl", records)
        problems, chosen = len({p.problem.id for p in pools}), []
        if kind == "bt":  # the pairs between the kept traces: PUM's given ones, or right/wrong samples'
            if cfg.source.given_pairs:  # its problems: those of the pairs kept
                chosen = pum_pairs(cfg.pairs or "", kept)
                problems = len({q.problem_id for q in chosen})
            else:
                chosen = outcome_pairs(kept, cfg.pairs_per_problem, cfg.seed)
            write_records(out / "train_pairs.jsonl", chosen)
        model, trained = out / "model", out / "train.json"
        trained_on = {"problems": problems, "label_records": len(used), "pairs": len(chosen)}  # kept in train.json
        if not trained.is_file():  # the examples are built only for a model still to train
            if kind == "bt":
                examples = pair_examples(chosen)
            else:
                report = JoinReport()
                examples = build_examples(kept, records if labeled else None, kind, cfg.soft, report=report)
                log(f"join: {report.line()}")
            figures = _train(cfg, kind, examples, model, log) | trained_on
            with atomic_path(trained) as tmp:
                tmp.write_text(json.dumps(figures, indent=1) + "\n")
        else:
            _check_same_training_set(json.loads(trained.read_text()), trained_on, cfg, trained)
            log(f"{model}: trained before ({trained}), kept")
        head = {"name": cfg.name or cfg.labeler, "labeler": cfg.labeler, "kind": kind, "traces": cfg.traces,
                "train_problems": problems, "seed": cfg.seed, "label_cost": _label_cost(cfg, used),
                "train": json.loads(trained.read_text())}
        return score_row(head, str(model), str(model), fresh, cfg.fresh, out, cfg.threads, cfg.keep)


def score_row(head: dict[str, Any], scorer: str, model: str | None, fresh: list[Pool], fresh_path: str, out: Path,
              threads: int, keep: str | None) -> dict[str, Any]:
    """Score the fresh pools with `scorer` into OUT/scores.jsonl and write the row (`head`, what was scored, the
    trained `model`) to OUT/row.json and its kept file into `keep`; `payoff run` and `payoff score` alike."""
    from prmkit.evaluate.score import ScoreConfig, score_to_file

    start = time.perf_counter()
    scored = score_to_file(scorer, fresh, out / "scores.jsonl", ScoreConfig(threads=threads))
    row = head | {"fresh": {"path": fresh_path, "problems": len(fresh), "traces": sum(len(p.traces) for p in fresh)},
                  "score": {"written": scored["written"], "seconds": round(time.perf_counter() - start, 1)},
                  "scores": str(out / "scores.jsonl"), "model": model}
    with atomic_path(out / ROW) as tmp:
        tmp.write_text(json.dumps(row, indent=1) + "\n")
    if keep:
        keep_row(row, out / "scores.jsonl", fresh, keep)
    return row


def format_row(row: dict[str, Any], cfg: Any) -> str:
    return (f"{row['labeler']}: {row['kind']} trained on {row['train']['examples']} examples in "
            f"{row['train']['train_seconds']:.0f} s; {row['score']['written']} fresh traces scored -> {cfg.output}")
