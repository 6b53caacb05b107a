"""The README's Python example runs as written, on the tiny random model instead of the embedded one (the only
change: the model name "smollm2-135m" becomes the tiny model's directory), in a temporary working directory."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_example() -> str:
    """The first ```python block of the README."""
    found = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert found, "README.md has no ```python block"
    return found.group(1)


def test_readme_example_labels_trains_scores_and_reports(tmp_path, monkeypatch, tiny_base):
    code = readme_example()
    assert code.count("smollm2-135m") == 2 and len(code.strip().splitlines()) == 5
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.replace("smollm2-135m", tiny_base), "README.md", "exec"), {})
    table = out.getvalue()
    # the demo pools hold 4 traces each: the default K ladder is 1, 2, 4; one row per method
    assert "| method | K=1 | K=2 | K=4 |" in table
    assert re.search(r"\| PRM \| \d+\.\d \[", table) and re.search(r"\| oracle \| \d+\.\d \[", table)
    scores = (tmp_path / "runs/demo_scores.jsonl").read_text().splitlines()
    assert len(scores) == 80 and (tmp_path / "runs/demo_prm").is_dir()

