"""`prmkit view`: one self-contained HTML page of what labelers and reward models decided about each step
(docs/view.md)."""

import re
import statistics
from html import escape
from importlib import resources

from prmkit.data.outputs import atomic_path, claim_outputs, claims
from prmkit.data.records import Pool, Trace
from prmkit.evaluate.svg import BAD, GOOD, MIDDLE, diverging_colour, line_plot
from prmkit.evaluate.view_data import Source, ViewConfig, load_view, predicted_first_error, trajectory

__all__ = ["build_view", "render_page", "write_view"]

CORRECTNESS = {True: ("correct", "\u2713 correct"), False: ("incorrect", "\u2717 incorrect"),
               None: ("unknown", "? not validated")}
TRACE_COLOURS = {"correct": "#2166ac", "incorrect": "#b35806", "unknown": "#888888"}
UNITS: dict[str, dict[str, str]] = {"nats": {"format": "{:+.2f}", "axis": "nats vs step 0", "center": "tau = {:.4g}"},
                                    "probability": {"format": "{:.2f}", "axis": "P(step correct)", "center": "{:.2g}"}}
_TRUE_ERROR = "#7b3294"


def _spread(source: Source) -> float:
    """Half-width of the colour scale: 0.5 for probabilities, else the median of |score - tau|."""
    if source.unit == "probability":
        return 0.5
    dev = [abs(s - m.threshold) for m in source.marks.values() for s in m.scores]
    return statistics.median_low(dev) if dev else 1.0


def _hline(source: Source) -> float | None:
    return None if source.reading == "previous" else source.center  # a running sum is not compared with tau


def _summary(source: Source, pools: list[Pool]) -> str:
    """All traces' trajectories of one source (thin) and the mean by position of correct / incorrect (thick)."""
    series, by_kind = [], {}
    for trace in (t for p in pools for t in p.traces if t.id in source.marks):
        kind = CORRECTNESS[trace.correct][0]
        points = trajectory(source.marks[trace.id].scores, source.reading)
        series.append({"points": points, "colour": TRACE_COLOURS[kind], "opacity": 0.25})
        for x, y in points:
            by_kind.setdefault(kind, {}).setdefault(x, []).append(y)
    for kind, cols in by_kind.items():
        mean = [(x, sum(v) / len(v)) for x, v in sorted(cols.items())]
        series.append({"points": mean, "colour": TRACE_COLOURS[kind], "width": 2.5})
    unit = UNITS[source.unit]
    center = _hline(source)
    tau = "" if center is None else "; dashed: " + unit["center"].format(center)
    caption = (f"<b>{escape(source.name)}</b>: {len(series) - len(by_kind)} traces by step position "
               f"({escape(unit['axis'])}); thin: each trace, thick: mean of correct (blue) and incorrect (orange)"
               f"{escape(tau)}")
    plot = line_plot(series, (420, 200), center, labels=True, x_label="step", y_label=unit["axis"])
    return f'<figure data-labeler="{escape(source.name)}">{plot}<figcaption>{caption}</figcaption></figure>'


def _sparkline(trace: Trace, source: Source, true_error: int | None) -> str:
    mark = source.marks[trace.id]
    points = trajectory(mark.scores, source.reading)
    at = dict(points)
    pred = predicted_first_error(mark.labels)
    dots = [(pred + 1, at[pred + 1], BAD)] if pred >= 0 and pred + 1 in at else []
    if true_error is not None and true_error >= 0 and true_error + 1 in at:
        dots.append((true_error + 1, at[true_error + 1], _TRUE_ERROR))
    series = [{"points": points, "colour": TRACE_COLOURS[CORRECTNESS[trace.correct][0]], "width": 1.5, "dots": dots}]
    verdict = ("no labels (no threshold)" if not mark.labels else "no step labeled 0" if pred < 0
               else f"\u25B6 first 0 at step {pred + 1}")
    return (f'<figure data-labeler="{escape(source.name)}">{line_plot(series, (150, 44), _hline(source))}'
            f"<figcaption>{escape(source.name)}: {escape(verdict)}</figcaption></figure>")


def _cell(source: Source, trace_id: str, k: int, spread: float) -> str:
    name = escape(source.name)
    mark = source.marks.get(trace_id)
    if mark is None or k >= len(mark.scores):
        return f'<td class="cell none" data-labeler="{name}"></td>'
    score = mark.scores[k]
    label = mark.labels[k] if k < len(mark.labels) else None
    lc = {1: GOOD, 0: BAD}.get(label, "#eeeeee")
    sc = diverging_colour(score, mark.threshold, spread)
    pred = " pred" if predicted_first_error(mark.labels) == k else ""
    value = UNITS[source.unit]["format"].format(score)
    title = f"{source.name}: score {score:.4g}, label {label}, threshold {mark.threshold:.4g}"
    return (f'<td class="cell{pred}" data-labeler="{name}" data-label="{label}" style="--lc:{lc};--sc:{sc}" '
            f'title="{escape(title)}">{escape(value)}</td>')


def _trace(trace: Trace, sources: list[Source], spreads: list[float], true_error: int | None) -> str:
    kind, badge = CORRECTNESS[trace.correct]
    mine = [s for s in sources if trace.id in s.marks]
    head = [f'<span class="badge {kind}">{escape(badge)}</span>',
            f"<span>answer: <b>{escape('none' if trace.answer is None else trace.answer)}</b></span>",
            f'<span class="tid">{escape(trace.id)}</span>']
    if true_error is not None:
        text = "no error" if true_error < 0 else f"step {true_error + 1}"
        head.append(f'<span class="fe">\u2716 true first error: {escape(text)}</span>')
    plots = "".join(_sparkline(trace, s, true_error) for s in mine)
    cols = "".join(f'<th data-labeler="{escape(s.name)}">{escape(s.name)}</th>' for s in sources)
    rows = []
    for k, step in enumerate(trace.steps):
        cls = ' class="true-error"' if true_error == k else ""
        cells = "".join(_cell(s, trace.id, k, sp) for s, sp in zip(sources, spreads, strict=True))
        rows.append(f'<tr{cls}><td class="pos">{k + 1}</td>{cells}<td class="text">{escape(step)}</td></tr>')
    return (f'<div class="trace" data-correct="{kind}" id="{escape(trace.id)}">'
            f'<div class="trace-head">{"".join(head)}</div><div class="trace-body"><div class="plots">{plots}</div>'
            f'<table class="steps"><thead><tr><th>#</th>{cols}<th>step</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></div>')


def _problem(pool: Pool, sources: list[Source], spreads: list[float], first_errors: dict[str, int]) -> str:
    p = pool.problem
    search = f"{p.id} {p.question}".lower()
    traces = "".join(_trace(t, sources, spreads, first_errors.get(t.id)) for t in pool.traces)
    return (f'<article class="problem" data-search="{escape(search)}"><h2>{escape(p.id)}</h2>'
            f'<p class="question">{escape(p.question)}</p>'
            f'<p class="ref">reference answer: <b>{escape(p.answer)}</b> &middot; {len(pool.traces)} traces</p>'
            f"{traces}</article>")


def render_page(pools: list[Pool], sources: list[Source], first_errors: dict[str, int],
                title: str = "prmkit view") -> str:
    """The HTML page for these pools and sources (the template is `prmkit/templates/view.html`)."""
    template = resources.files("prmkit.templates").joinpath("view.html").read_text(encoding="utf-8")
    spreads = [_spread(s) for s in sources]
    legend = (f'<span class="by-label" style="background:{GOOD};color:#fff">label 1</span>'
              f'<span class="by-label" style="background:{BAD};color:#fff">label 0</span>'
              f'<span class="by-score" style="background:linear-gradient(90deg,{BAD},{MIDDLE},{GOOD})">'
              "score below \u00b7 at \u00b7 above \u03c4 (PRM: 0.5)</span>"
              f'<span style="outline:2px solid #000">\u25B6 predicted first error</span>'
              f'<span style="color:{_TRUE_ERROR}">\u2716 true first error</span>')
    parts = {"TITLE": escape(title),
             "LABELER_OPTIONS": "".join(f'<option value="{escape(s.name)}">{escape(s.name)}</option>' for s in sources),
             "LEGEND": legend, "SUMMARY": "".join(_summary(s, pools) for s in sources),
             "PROBLEMS": "".join(_problem(p, sources, spreads, first_errors) for p in pools)}
    return re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: parts[m.group(1)], template)  # one pass: inserted text stays


def build_view(cfg: ViewConfig) -> str:
    """Read `cfg.pools` and the labels/scores files, and return the page."""
    return render_page(*load_view(cfg), cfg.title)


def write_view(cfg: ViewConfig) -> dict[str, int | str]:
    """Write the page to `cfg.output`; return what it holds (problems, traces, sources, bytes)."""
    with claim_outputs(**claims(cfg)):
        pools, sources, first_errors = load_view(cfg)
        page = render_page(pools, sources, first_errors, cfg.title)
        with atomic_path(cfg.output) as tmp:
            tmp.write_text(page, encoding="utf-8")
    return {"output": cfg.output, "problems": len(pools), "traces": sum(len(p.traces) for p in pools),
            "sources": len(sources), "bytes": len(page.encode("utf-8"))}
