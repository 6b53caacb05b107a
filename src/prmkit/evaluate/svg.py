"""Colours and small inline SVG line plots for `prmkit view`; every number is rounded so the same inputs give the
same bytes."""

from html import escape

__all__ = ["BAD", "GOOD", "MIDDLE", "diverging_colour", "line_plot"]

GOOD, BAD, MIDDLE = "#1a9850", "#d73027", "#f7f7f7"  # label 1, label 0, score at the threshold


def diverging_colour(value: float, center: float, spread: float) -> str:
    """Hex colour of `value` on a red-white-green scale: white at `center`, full GOOD/BAD at center +/- spread.
    diverging_colour(1.0, 0.0, 2.0) -> "#88c8a4"."""
    t = max(-1.0, min(1.0, (value - center) / spread)) if spread > 0 else float(value > center) - float(value < center)
    mid, end = bytes.fromhex(MIDDLE[1:]), bytes.fromhex((GOOD if t > 0 else BAD)[1:])  # (r, g, b)
    return "#" + "".join(f"{round(m + abs(t) * (e - m)):02x}" for m, e in zip(mid, end, strict=True))


def _scale(lo: float, hi: float, a: float, b: float):
    span = (hi - lo) or 1.0
    return lambda v: round(a + (v - lo) / span * (b - a), 1)


def line_plot(series: list[dict], size: tuple[int, int], hline: float | None = None, labels: bool = False,
              x_label: str = "", y_label: str = "") -> str:
    """An SVG of polylines. Each series: {"points": [(x, y), ...], "colour", "width", "opacity"}, and optional
    "dots": [(x, y, colour)]. `hline` draws a dashed horizontal line (the threshold); `labels` adds axis ticks."""
    w, h = size
    pad_l, pad_b = (44, 22) if labels else (3, 3)
    xs = [x for s in series for x, _ in s["points"]] or [0]
    ys = [y for s in series for _, y in s["points"]] + ([hline] if hline is not None else []) or [0.0]
    lo, hi = min(ys), max(ys)
    fx, fy = _scale(min(xs), max(xs), pad_l, w - 4), _scale(lo, hi, h - pad_b, 4)
    out = [f'<svg class="plot" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img">']
    out.append(f'<rect x="{pad_l}" y="2" width="{w - pad_l - 2}" height="{h - pad_b - 1}" fill="#fff" stroke="#ccc"/>')
    if hline is not None:
        out.append(f'<line x1="{pad_l}" x2="{w - 2}" y1="{fy(hline)}" y2="{fy(hline)}" stroke="#555" '
                   f'stroke-dasharray="3 2" stroke-width="1"/>')
    for s in series:
        pts = " ".join(f"{fx(x)},{fy(y)}" for x, y in s["points"])
        out.append(f'<polyline points="{pts}" fill="none" stroke="{s["colour"]}" stroke-width="{s.get("width", 1)}"'
                   f' stroke-opacity="{s.get("opacity", 1)}"/>')
        for x, y, colour in s.get("dots", []):
            out.append(f'<circle cx="{fx(x)}" cy="{fy(y)}" r="3" fill="{colour}"/>')
    if labels:
        t = 'font-size="10" fill="#333"'
        out.append(f'<text x="{pad_l - 3}" y="12" text-anchor="end" {t}>{hi:.2g}</text>'
                   f'<text x="{pad_l - 3}" y="{h - pad_b}" text-anchor="end" {t}>{lo:.2g}</text>'
                   f'<text x="{pad_l}" y="{h - 8}" {t}>{min(xs):g}</text>'
                   f'<text x="{w - 4}" y="{h - 8}" text-anchor="end" {t}>{max(xs):g}</text>'
                   f'<text x="{(pad_l + w) // 2}" y="{h - 8}" text-anchor="middle" {t}>{escape(x_label)}</text>'
                   f'<text x="10" y="{(h - pad_b) // 2}" text-anchor="middle" {t} '
                   f'transform="rotate(-90 10 {(h - pad_b) // 2})">{escape(y_label)}</text>')
    out.append("</svg>")
    return "".join(out)
