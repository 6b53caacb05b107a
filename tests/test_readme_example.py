"""The README's Python examples run as written: the pipeline (bench problems with true step labels -> a PRM -> its
scores of held-out problems -> best-of-K) on the tiny random model instead of the embedded one (the only changes: the
model name "smollm2-135m" becomes the tiny model's directory and 200 training problems become 40, for time;
`benchmarks/quickstart_learns.py` runs it as written on the embedded model and checks that the PRM learned), and the
transformers snippet that reads an exported PRM."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_pipeline_makes_data_trains_scores_and_reports(tmp_path, monkeypatch, tiny_base):
    code = readme_block("api.bench_set")
    assert code.count("smollm2-135m") == 1 and code.count("problems=200") == 1 and len(code.strip().splitlines()) == 6
    code = code.replace("smollm2-135m", tiny_base).replace("problems=200", "problems=40")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    table = out.getvalue()
    # three constructed traces a held-out problem: the default K ladder is 1, 2; one row per method
    assert "| method | K=1 | K=2 |" in table
    assert re.search(r"\| PRM \| \d+\.\d \[", table) and re.search(r"\| oracle \| \d+\.\d \[", table)
    scores = [json.loads(line) for line in (tmp_path / "runs/test_scores.jsonl").read_text().splitlines()]
    assert len(scores) == 60 * 3 and (tmp_path / "runs/prm").is_dir()
    train = {json.loads(line)["question"] for line in (tmp_path / "runs/train.jsonl").read_text().splitlines()}
    test = [json.loads(line)["question"] for line in (tmp_path / "runs/test.jsonl").read_text().splitlines()]
    assert len(train) == 40 and not train & set(test)  # held out: no training question among them
    log = json.loads((tmp_path / "runs/prm/train_log.json").read_text())
    assert log["train_config"]["epochs"] == 2  # the recipe, with the example's override


def readme_block(marker: str) -> str:
    """The ```python block of the README that contains `marker`."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"README.md has {len(found)} python blocks with {marker!r}"
    return found[0]


def test_readme_transformers_snippet_reads_the_prmkit_scores(tmp_path, monkeypatch, tiny_base):
    """The README's five lines load `prmkit export-hf`'s output with plain transformers; the probabilities they print
    equal `prmkit score`'s step scores of the same trace (max |delta| printed, within MODEL_ABS)."""
    import ast
    import json

    import torch

    import prmkit
    from helpers import pool_dict, write_jsonl
    from prmkit.cli.main import main
    from prmkit.models.hf_export import transformers_snippet
    from prmkit.models.reward import RewardModel, RewardModelConfig
    from tolerances import MODEL_ABS

    code = readme_block("AutoModelForTokenClassification")
    assert len(code.strip().splitlines()) == 5 and code.strip() == transformers_snippet("runs/prm_hf")
    monkeypatch.chdir(tmp_path)
    rm = RewardModel.from_base(tiny_base, RewardModelConfig(kind="prm"))
    with torch.no_grad():  # a head far from uniform, as a trained one is
        head = rm.model.get_output_embeddings().weight
        head[rm.class_ids] = 0.2 * torch.randn(2, head.shape[1], generator=torch.Generator().manual_seed(1))
    rm.save_pretrained("runs/prm")
    assert main(["--quiet", "export-hf", "--model", "runs/prm", "--output", "runs/prm_hf"]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = ast.literal_eval(out.getvalue().strip().splitlines()[-1])

    question, steps = "Tom has 3 apples and buys 4 more. How many?", ["3 + 4 = 7.", "The answer is 7."]
    pools = write_jsonl(tmp_path / "pools.jsonl", [pool_dict("q", question, "7", [(steps, "7", True)])])
    prmkit.api.score("runs/prm", pools, "runs/scores.jsonl")
    ours = json.loads(Path("runs/scores.jsonl").read_text())["step_scores"]
    delta = max(abs(a - b) for a, b in zip(ours, printed, strict=True))
    print(f"README transformers snippet vs prmkit score: max |delta| = {delta:.2e} over {len(ours)} steps")
    assert len(printed) == len(steps) and delta <= MODEL_ABS
    assert max(ours) - min(ours) > 100 * MODEL_ABS or abs(ours[0] - 0.5) > 100 * MODEL_ABS


def test_quickstart_script_leaves_the_run_in_runs_of_the_current_folder(tmp_path, monkeypatch, capsys):
    """`benchmarks/quickstart_learns.py` ran the README's block in a temporary folder the README does not name, so
    the README's next command (`prmkit export-hf --model runs/prm`) found nothing; it runs it where it is started
    now, as the README does. The block here stands in for the README's (which trains for minutes): it writes what
    the script reads from runs/."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("quickstart_learns", README.parent / "benchmarks" /
                                                  "quickstart_learns.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    truth = [{"trace_id": f"t{k}", "labels": [1, k % 2], "params": {"slip": None if k % 2 else "answer"}}
             for k in range(4)]
    scores = [{"id": f"t{k}", "step_scores": [0.9, 0.8 if k % 2 else 0.1]} for k in range(4)]
    monkeypatch.setattr(script, "readme_pipeline", lambda: (
        "import json, os\nos.makedirs('runs/prm', exist_ok=True)\n"
        f"open('runs/test_truth.jsonl', 'w').write(''.join(json.dumps(r) + '\\n' for r in {truth!r}))\n"
        f"open('runs/test_scores.jsonl', 'w').write(''.join(json.dumps(r) + '\\n' for r in {scores!r}))\n"))
    monkeypatch.chdir(tmp_path)
    assert script.main([]) == 0
    assert (tmp_path / "runs" / "prm").is_dir() and f"in {tmp_path / 'runs'}" in capsys.readouterr().out
