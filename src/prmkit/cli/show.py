"""What `prmkit <verb>` prints of its result (`Verb.show`); the Python API returns the result itself."""

from __future__ import annotations

import json
from typing import Any


def nothing(result: Any, *configs: Any) -> None:
    """The verb has said what it did as it went (its log)."""


def one_line(result: Any, *configs: Any) -> str:
    return json.dumps(result)


def lines(result: list[Any], *configs: Any) -> str:
    return "\n".join(json.dumps(item) for item in result)


def report_lines(report: Any, *configs: Any) -> str:
    return "\n".join(report.lines())


def label(reports: dict[str, Any], *configs: Any) -> str:
    return "\n".join(json.dumps(report.to_dict(), indent=2) for report in reports.values())


def export(result: dict[str, Any], cfg: Any) -> str:
    return f"wrote {result['written']} {cfg.format} records to {cfg.output} ({result['joined']})"


def export_hf(result: dict[str, Any], cfg: Any) -> str:
    from prmkit.models.hf_export import NO_VLLM

    text = (f"wrote {result['architecture']} ({result['num_labels']} labels, separator id {result['sep_token_id']}) "
            f"to {result['output']}\n")
    if result["trust_remote_code"]:
        return text + ("load it with AutoModelForTokenClassification.from_pretrained(..., trust_remote_code=True) "
                       f"(custom code: modeling_prmkit.py). {NO_VLLM}")
    return text + f"serve it: {result['vllm']}"


def pum(report: dict[str, Any], cfg: Any) -> str:
    from prmkit.label.pum import format_solve_rates

    if cfg.solve_rates:
        return format_solve_rates(report)
    return json.dumps({k: v for k, v in report.items() if k not in ("config", "gain_by_position")}, indent=2)


def sft(result: dict[str, Any], cfg: Any) -> str:
    return (f"{result['steps']} steps, {result['tokens_trained']} tokens, {result['seconds']:.0f} s, peak "
            f"{result['peak_rss_mib']:.0f} MiB -> {cfg.output}/sft_run.json")


def score(result: dict[str, Any], cfg: Any) -> str:
    rate = result["tokens"] / result["seconds"] if result["seconds"] else 0.0
    return (f"scored {result['written']} traces of {result['problems']} problems -> {cfg.output} "
            f"({result['tokens']} tokens, {rate:.0f} tok/s)")


def processbench(report: dict[str, Any], cfg: Any) -> str:
    from prmkit.evaluate.processbench import format_processbench

    return (f"first-error identification (ProcessBench protocol): tau chosen on problems {cfg.choose_on} "
            f"({report['choose_records']} records), reported on {cfg.report_on} ({report['report_records']} "
            f"records), %\n" + format_processbench(report))


def rl(report: dict[str, Any], cfg: Any) -> str:
    held, text = report["heldout"], ""
    if "before" in held and "after" in held:
        text = (f"held-out accuracy {held['before']['accuracy']:.3f} -> {held['after']['accuracy']:.3f} "
                f"({report['heldout_problems']} problems x {held['after']['samples'] // report['heldout_problems']} "
                "samples)\n")
    return text + f"{report['steps']} steps in {report['train_seconds']:.0f} s -> {cfg.output}"


def bench(report: dict[str, Any], cfg: Any) -> str:
    from prmkit.experiments.bench_report import format_bench

    return (format_bench(report) + f"\nwrote {cfg.output}/report.json, table.md"
            + (", f1_tokens.png" if report["rows"] else ""))


def payoff(row: dict[str, Any], cfg: Any) -> str:
    return (f"{row['labeler']}: {row['kind']} trained on {row['train']['examples']} examples in "
            f"{row['train']['train_seconds']:.0f} s; {row['score']['written']} fresh traces scored -> {cfg.output}")


def payoff_score(row: dict[str, Any], cfg: Any) -> str:
    return f"{row['name']}: {row['score']['written']} fresh traces scored by {cfg.scorer} -> {cfg.output}"
