"""`prmkit view`: the page builder's formulas, escaping and determinism, and the page in a real headless browser."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from prmkit.cli.main import main
from prmkit.data.jsonl import DataError
from prmkit.evaluate.svg import BAD, GOOD, diverging_colour
from prmkit.evaluate.view import build_view
from prmkit.evaluate.view_data import ViewConfig, predicted_first_error, trajectory

HOSTILE = '<script>document.title="pwned";document.body.setAttribute("data-pwned","1")</script>'
IMG = "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">"


def _pool(pid: str, question: str, traces: list[tuple[str, list[str], str, bool]]) -> dict:
    return {"problem": {"id": pid, "question": question, "answer": "43"},
            "traces": [{"id": tid, "problem_id": pid, "steps": steps, "answer": ans, "correct": ok}
                       for tid, steps, ans, ok in traces]}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """Two problems: p1 has a correct trace (labels 1 1) and a hostile incorrect one (labels 1 0 0, its true first
    error stated at step index 1); p2 (pears) has one incorrect trace. A PRM scores file covers p1 only."""
    pools = [_pool("p1", "Grace has 29 apples and buys 14. </p><b>bold</b>", [
                 ("p1/t0", ["29 + 14 = 43.", "The answer is 43."], "43", True),
                 ("p1/t1", ["29 - 14 = 15.", HOSTILE, IMG], "15", False)]),
             _pool("p2", "Tom has 5 pears.", [("p2/t0", ["5 * 2 = 10.", "The answer is 10."], "10", False)])]
    labels = [("p1/t0", [2.0, 3.0], [1, 1], True, "p1", None), ("p1/t1", [1.0, -2.0, -4.0], [1, 0, 0], False, "p1", 1),
              ("p2/t0", [-1.0, -3.0], [0, 0], False, "p2", None)]
    out = {"pools": tmp_path / "pools.jsonl", "labels": tmp_path / "mcnig.jsonl", "scores": tmp_path / "prm.jsonl"}
    out["pools"].write_text("".join(json.dumps(p) + "\n" for p in pools))
    out["labels"].write_text("".join(json.dumps(
        {"trace_id": t, "method": "mcnig", "scores": s, "labels": lab, "threshold": 0.0, "correct": c,
         "problem_id": p} | ({} if fe is None else {"first_error": fe})) + "\n" for t, s, lab, c, p, fe in labels))
    out["scores"].write_text("".join(json.dumps(
        {"id": t, "problem_id": "p1", "index": k, "answer": a, "correct": k == 0, "step_scores": s, "score": 0.0})
        + "\n"
        for k, (t, a, s) in enumerate([("p1/t0", "43", [0.9, 0.8]), ("p1/t1", "15", [0.7, 0.2, 0.1])])))
    return {k: str(v) for k, v in out.items()}


def _cfg(files: dict[str, str], **kw) -> ViewConfig:
    return ViewConfig(pools=files["pools"], labels=[f"MCNIG={files['labels']}"], scores=[f"PRM={files['scores']}"],
                      **kw)


def test_trajectories_first_error_and_colours():
    assert trajectory([2.0, -1.5], "step0") == [(0, 0.0), (1, 2.0), (2, -1.5)]
    assert trajectory([2.0, -1.5], "previous") == [(0, 0.0), (1, 2.0), (2, 0.5)]
    assert trajectory([0.9, 0.2], "probability") == [(1, 0.9), (2, 0.2)]
    assert predicted_first_error([1, 0, 0]) == 1 and predicted_first_error([1, 1]) == -1
    assert diverging_colour(1.0, 0.0, 2.0) == "#88c8a4"
    assert diverging_colour(9.0, 0.0, 2.0) == GOOD and diverging_colour(-9.0, 0.0, 2.0) == BAD


def test_page_escapes_text_marks_errors_and_is_deterministic(files):
    page = build_view(_cfg(files))
    assert page == build_view(_cfg(files))
    assert page.count("<script") == 1 and HOSTILE not in page and "<img" not in page and "<b>bold" not in page
    assert "&lt;script&gt;document.title=&quot;pwned&quot;" in page
    assert page.count('class="true-error"') == 1  # only p1/t1 states its first error
    assert page.count('class="cell pred"') == 3  # MCNIG on p1/t1 and p2/t0, PRM (0.2 < 0.5) on p1/t1
    assert "https://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_ig_labels_are_plotted_as_they_are_whatever_reference_their_run_had(tmp_path):
    """`prmkit label --method ig,mcnig --reference previous` writes IG records whose params say reference previous
    (the run's MCNIG setting); IG is I_i - I_0 all the same, so its trajectory is its scores, not their running sum
    (which the page drew), and its tau line is drawn; the MCNIG file of that run is the running sum."""
    from prmkit.evaluate.view_data import read_source

    for method, reading in (("ig", "step0"), ("mcnig", "previous")):
        path = tmp_path / f"{method}.jsonl"
        path.write_text(json.dumps({"trace_id": "t", "method": method, "scores": [2.0, -1.5], "labels": [1, 0],
                                    "threshold": 0.0, "params": {"method": method, "reference": "previous"}}) + "\n")
        assert read_source("labels", str(path)).reading == reading


def test_limit_and_bad_records(files, tmp_path):
    assert 'id="p2/t0"' not in build_view(_cfg(files, limit=1))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"trace_id": "x", "method": "mcnig", "scores": "high"}) + "\n")
    with pytest.raises(DataError, match=r"bad.jsonl:1: .*scores"):
        build_view(ViewConfig(pools=files["pools"], labels=[str(bad)]))


def test_cli_repeats_labels_and_writes_the_page(files, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["view", "--pools", files["pools"], "--labels", f"A={files['labels']}", "--labels",
                 f"B={files['labels']}", "--output", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["sources"] == 2
    assert '<option value="A">' in out.read_text() and '<option value="B">' in out.read_text()


# --- in a real browser -----------------------------------------------------------------------------------------

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary on PATH (apt-get install chromium)")


def _chromium(tmp_path: Path, *args: str) -> str:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
           f"--user-data-dir={tmp_path / 'chromium'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


class _Elements(HTMLParser):
    """(tag, attributes, text) of every element, and the body's attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[list] = []
        self.title = ""
        self._open: list[list] = []

    def handle_starttag(self, tag, attrs):
        el = [tag, dict(attrs), ""]
        self.elements.append(el)
        if tag not in ("br", "img", "input", "meta", "line", "circle", "rect", "polyline"):
            self._open.append(el)

    def handle_endtag(self, tag):
        while self._open and self._open.pop()[0] != tag:
            pass

    def handle_data(self, data):
        for el in self._open:
            el[2] += data

    def select(self, tag: str, **attrs: str) -> list[list]:
        return [e for e in self.elements if e[0] == tag and all(attrs[k] in e[1].get(k, "").split() if k == "class"
                                                                 else e[1].get(k) == attrs[k] for k in attrs)]


def _dom(tmp_path: Path, page: Path, fragment: str = "") -> _Elements:
    parser = _Elements()
    parser.feed(_chromium(tmp_path, "--dump-dom", page.as_uri() + fragment))
    return parser


@needs_browser
def test_browser_filters_and_hostile_text(files, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(build_view(_cfg(files)))
    dom = _dom(tmp_path, page)
    body = dom.select("body")[0][1]
    assert "data-pwned" not in body and body["data-shown"] == "3"  # the script ran; the hostile steps did not
    assert dom.select("title")[0][2] == "prmkit view"
    texts = [e[2] for e in dom.select("td", **{"class": "text"})]
    assert HOSTILE in texts and IMG in texts  # shown as text, verbatim

    dom = _dom(tmp_path, page, "#correct=incorrect")
    hidden = {e[1]["id"]: "hidden" in e[1] for e in dom.select("div", **{"class": "trace"})}
    assert hidden == {"p1/t0": True, "p1/t1": False, "p2/t0": False}
    assert dom.select("body")[0][1]["data-shown"] == "2"

    dom = _dom(tmp_path, page, "#q=pears&labeler=PRM")  # p2 has no PRM scores: nothing left
    assert dom.select("body")[0][1]["data-shown"] == "0"
    dom = _dom(tmp_path, page, "#labeler=PRM")
    cells = dom.select("td", **{"class": "cell"})
    assert {c[1]["data-labeler"] for c in cells if "hidden" not in c[1]} == {"PRM"}
    assert {e[1]["id"]: "hidden" in e[1] for e in dom.select("div", **{"class": "trace"})}["p2/t0"]


def _colour_pixels(tmp_path: Path, page: Path, fragment: str, **extra: str) -> dict[str, int]:
    """Pixels within 12 per channel of the label colours (and `extra` ones), distinct colours, non-white pixels."""
    import numpy as np
    from PIL import Image

    shot = tmp_path / "shot.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1100,1500", page.as_uri() + fragment)
    image = np.asarray(Image.open(shot).convert("RGB")).astype(int)  # (H, W, 3)
    near = {name: int((np.abs(image - [int(h[i:i + 2], 16) for i in (1, 3, 5)]).max(axis=2) <= 12).sum())
            for name, h in ({"good": GOOD, "bad": BAD} | extra).items()}
    return near | {"colours": len(np.unique(image.reshape(-1, 3), axis=0)), "ink": int((image.min(axis=2) < 245).sum())}


@needs_browser
def test_browser_screenshot_shows_label_colours_where_expected(files, tmp_path):
    page = tmp_path / "page.html"
    page.write_text(build_view(ViewConfig(pools=files["pools"], labels=[f"MCNIG={files['labels']}"])))
    half = diverging_colour(-1.0, 0.0, 2.0)  # p2's step 1 by score: |score - tau| has median 2 in this file
    every = _colour_pixels(tmp_path, page, "", half=half)
    wrong = _colour_pixels(tmp_path, page, "#correct=incorrect")
    right = _colour_pixels(tmp_path, page, "#correct=correct")
    assert every["colours"] > 50 and every["ink"] > 50_000  # not blank
    # label cells: the correct trace holds 2 green cells, the incorrect ones 1 green and 4 red
    cell = (every["good"] - wrong["good"]) / 2  # pixels of one cell (the legend is in every shot)
    assert cell > 300
    assert right["bad"] < wrong["bad"] - 3 * cell and every["bad"] == pytest.approx(wrong["bad"], rel=0.05)
    assert every["good"] - right["good"] == pytest.approx(cell, rel=0.1)
    by_score = _colour_pixels(tmp_path, page, "#colour=score", half=half)
    assert every["half"] < cell / 10 < cell / 2 < by_score["half"]  # the -1.00 cell turns pale red
    assert by_score["bad"] < every["bad"] - cell  # it left the full red


@pytest.mark.parametrize("body,words", [("", "no records (the file is empty)"),
                                        (None, "none of its 3 records is a trace of the 3 on the page")])
def test_a_source_that_marks_no_trace_is_warned(files, tmp_path, capsys, body, words):
    """Labels of other traces (or none) would render a page with no mark of them and no word: a warning names the
    file and the counts; the page is still written."""
    other = tmp_path / "other.jsonl"
    lines = [json.loads(x) for x in Path(files["labels"]).read_text().splitlines()]
    other.write_text(body if body is not None else "".join(json.dumps(r | {"trace_id": "q" + r["trace_id"]}) + "\n"
                                                          for r in lines))
    out = tmp_path / "page.html"
    assert main(["view", "--pools", files["pools"], "--labels", f"X={other}", "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"prmkit view: warning: {other}: {words}" in err and "shows no X marks" in err and out.is_file()
    main(["view", "--pools", files["pools"], "--labels", f"X={files['labels']}", "--output", str(out)])
    assert "warning" not in capsys.readouterr().err  # a source that marks traces: no word


def test_a_score_file_as_labels_and_a_label_file_as_scores_are_named(files, capsys):
    """A score file given as --labels failed on its first field ("StepLabels: unknown field 'answer'"): now the
    error says what the file is and which flag takes it, and the reverse too."""
    assert main(["view", "--pools", files["pools"], "--labels", files["scores"], "--output", "v.html"]) == 2
    err = capsys.readouterr().err
    assert "prm.jsonl:1: a `prmkit score` record (id, step_scores), not step labels: give this file as --scores" in err
    assert main(["view", "--pools", files["pools"], "--scores", files["labels"], "--output", "v.html"]) == 2
    assert "mcnig.jsonl:1: a `prmkit label` record (trace_id, scores, labels), not step scores: give this file as " \
           "--labels" in capsys.readouterr().err
