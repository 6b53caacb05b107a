"""What `prmkit <verb>` prints of its result (`Verb.show`); the Python API returns the result itself."""

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


def pum(report: dict[str, Any], cfg: Any) -> str:
    from prmkit.label.pum import format_solve_rates

    if cfg.solve_rates:
        return format_solve_rates(report)
    return json.dumps({k: v for k, v in report.items() if k not in ("config", "gain_by_position")}, indent=2)
