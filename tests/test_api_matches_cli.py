"""`prmkit.api.<verb>(...)` runs what `prmkit <verb>` runs: each verb once through the real CLI entry point and once
through the Python API with the same settings, on the demo pools and the tiny model; the outputs must be the same
bytes (records in the same order) and the printed settings the same lines. A verb whose API took another path
(another recipe, another reader, a setting dropped) writes something else and fails here."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import prmkit
from prmkit.cli.main import main

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _volatile_free(value: Any) -> Any:
    """A report without its wall-clock figures (seconds, rates): the only part of a run that differs twice."""
    if isinstance(value, dict):
        return {k: _volatile_free(v) for k, v in value.items()
                if not re.search(r"seconds|per_second|tok_s|elapsed", k)}
    if isinstance(value, list):
        return [_volatile_free(v) for v in value]
    return value


def _same_file(a: Path, b: Path) -> None:
    assert a.read_bytes() == b.read_bytes(), f"{a} and {b} differ"


@pytest.fixture(scope="module")
def labeled(tiny_base, tmp_path_factory) -> tuple[Path, Path]:
    """`prmkit label --method ig,mcnig` on 3 demo problems, by the CLI (cli/) and by the API (api/)."""
    root = tmp_path_factory.mktemp("labeled")
    cli, api = root / "cli", root / "api"
    assert main(["--quiet", "label", "--method", "ig,mcnig", "--input", "demo", "--limit", "3", "--model", tiny_base,
                 "--output", str(cli / "{method}.jsonl")]) == 0
    prmkit.api.label("demo", str(api / "{method}.jsonl"), method="ig,mcnig", limit=3, model=tiny_base, progress=False)
    return cli, api


def test_label(labeled, tiny_base, tmp_path, capsys):
    cli, api = labeled
    for name in ("ig.jsonl", "mcnig.jsonl"):
        _same_file(cli / name, api / name)
    # the report printed by the CLI is the API's return value
    assert main(["--quiet", "label", "--method", "mcnig", "--input", "demo", "--limit", "2", "--model", tiny_base,
                 "--output", str(tmp_path / "c.jsonl")]) == 0
    printed = json.loads(capsys.readouterr().out)
    returned = prmkit.api.label("demo", tmp_path / "a.jsonl", limit=2, model=tiny_base, progress=False)["mcnig"]
    assert _volatile_free(printed) == _volatile_free(returned.to_dict() | {"output": printed["output"]})


def test_threshold(labeled, tmp_path, capsys):
    for side in ("cli", "api"):
        shutil.copytree(labeled[side == "api"], tmp_path / side)
    assert main(["threshold", "--choose-on", str(tmp_path / "cli/ig.jsonl"), "--apply-to",
                 str(tmp_path / "cli/mcnig.jsonl"), "--force"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    returned = prmkit.api.threshold(tmp_path / "api/ig.jsonl", [tmp_path / "api/mcnig.jsonl"], force=True)
    assert json.dumps(printed).replace(str(tmp_path / "cli"), "D") == json.dumps(returned).replace(
        str(tmp_path / "api"), "D")
    _same_file(tmp_path / "cli/mcnig.jsonl", tmp_path / "api/mcnig.jsonl")


def test_export(labeled, tmp_path):
    cli, api = labeled
    for fmt, suffix in (("trl-soft", "jsonl"), ("parquet", "parquet")):
        assert main(["export", "--format", fmt, "--pools", "demo", "--labels", str(cli / "mcnig.jsonl"),
                     "--output", str(tmp_path / f"cli.{suffix}")]) == 0
        prmkit.api.export("demo", api / "mcnig.jsonl", tmp_path / f"api.{suffix}", format=fmt)
        _same_file(tmp_path / f"cli.{suffix}", tmp_path / f"api.{suffix}")


@pytest.fixture(scope="module")
def trained(labeled, tiny_base, tmp_path_factory) -> tuple[Path, Path, list[str], list[str]]:
    """`prmkit train prm` with no training flag (the machine's recipe applies to both) on the labels above."""
    cli_labels, api_labels = labeled
    root = tmp_path_factory.mktemp("trained")
    lines_api: list[str] = []
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--quiet", "train", "prm", "--pools", "demo", "--labels", str(cli_labels / "mcnig.jsonl"),
                     "--model", tiny_base, "--save-strategy", "no", "--output", str(root / "cli")]) == 0
    prmkit.api.train("prm", root / "api", pools="demo", labels=str(api_labels / "mcnig.jsonl"), model=tiny_base,
                 save_strategy="no", log=lines_api.append)
    return root / "cli", root / "api", out.getvalue().splitlines(), lines_api


def test_train_same_recipe_same_model(trained):
    cli, api, lines_cli, lines_api = trained
    # the same settings printed: the recipe line first, then the join and the run's plan
    plan = [line for line in lines_cli if line.startswith(("recipe ", "join:", "prm:"))]
    assert plan[0].startswith("recipe cpu:") and len(plan) == 3
    assert plan == [line for line in lines_api if line.startswith(("recipe ", "join:", "prm:"))]
    logs = [json.loads((d / "train_log.json").read_text()) for d in (cli, api)]
    assert logs[0]["train_config"] == logs[1]["train_config"] and logs[0]["train_config"]["keep_layers"] == 8
    assert [h["loss"] for h in logs[0]["history"]] == [h["loss"] for h in logs[1]["history"]]
    _same_file(cli / "model.safetensors", api / "model.safetensors")


def test_score_and_best_of_k(trained, tmp_path, capsys):
    cli, api, _, _ = trained
    assert main(["score", "--model", str(cli), "--input", "demo", "--problems-range", "0:3",
                 "--output", str(tmp_path / "cli.jsonl")]) == 0
    prmkit.api.score(api, "demo", tmp_path / "api.jsonl", problems_range="0:3")
    _same_file(tmp_path / "cli.jsonl", tmp_path / "api.jsonl")
    capsys.readouterr()
    assert main(["evaluate", "bok", "--scores", f"PRM={tmp_path / 'cli.jsonl'}", "--output",
                 str(tmp_path / "bok.json")]) == 0
    table = capsys.readouterr().out
    report = prmkit.api.best_of_k([f"PRM={tmp_path / 'api.jsonl'}"])
    assert prmkit.api.bok_table(report) in table
    saved = json.loads((tmp_path / "bok.json").read_text())
    assert _volatile_free(saved["rows"]) == _volatile_free(json.loads(json.dumps(report["rows"])))


def test_export_hf(trained, tmp_path, capsys):
    cli, api, _, _ = trained
    assert main(["--quiet", "export-hf", "--model", str(cli), "--output", str(tmp_path / "cli_hf")]) == 0
    result = prmkit.api.export_hf(api, tmp_path / "api_hf")
    assert result["vllm"].replace("api_hf", "cli_hf") in capsys.readouterr().out
    for name in ("model.safetensors", "config.json"):
        _same_file(tmp_path / "cli_hf" / name, tmp_path / "api_hf" / name)


def test_generate(tiny_base, tmp_path):
    common = {"data": "demo", "limit": 2, "k": 2, "max_new_tokens": 12, "model": tiny_base}
    flags = [x for k, v in common.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    assert main(["--quiet", "generate", *flags, "--output", str(tmp_path / "cli.jsonl")]) == 0
    prmkit.api.generate(tmp_path / "api.jsonl", progress=False, **common)
    _same_file(tmp_path / "cli.raw.jsonl", tmp_path / "api.raw.jsonl")
    _same_file(tmp_path / "cli.jsonl", tmp_path / "api.jsonl")


def test_a_config_file_means_the_same_in_both(trained, tmp_path, capsys):
    cli, _, _, _ = trained
    config = tmp_path / "score.yaml"
    config.write_text("problems_range: '1:2'\n")
    assert main(["score", "--model", str(cli), "--input", "demo", "--config", str(config),
                 "--output", str(tmp_path / "cli.jsonl")]) == 0
    prmkit.api.score(cli, "demo", tmp_path / "api.jsonl", config=config)
    _same_file(tmp_path / "cli.jsonl", tmp_path / "api.jsonl")
    assert len((tmp_path / "api.jsonl").read_text().splitlines()) == 4
    with pytest.raises(TypeError, match="unknown settings"):
        prmkit.api.score(cli, "demo", tmp_path / "x.jsonl", problem_range="1:2")


@pytest.fixture(scope="module")
def long_tiny(tmp_path_factory) -> str:
    """The tiny model with a context long enough for the few-shot prompts of rollouts and search."""
    from helpers import make_tiny_base

    return str(make_tiny_base(tmp_path_factory.mktemp("long_tiny"), context=2048))


def test_rollout_verify_and_view(labeled, long_tiny, tmp_path, capsys):
    tiny_base = long_tiny
    cli, api = labeled
    common = ["--input", "demo", "--limit", "1", "--k", "2", "--max-new-tokens", "6", "--model", tiny_base]
    assert main(["--quiet", "rollout", *common, "--output", str(tmp_path / "cli_rollouts.jsonl")]) == 0
    prmkit.api.rollout(tmp_path / "api_rollouts.jsonl", progress=False, input="demo", limit=1, k=2, max_new_tokens=6,
                   model=tiny_base)
    _same_file(tmp_path / "cli_rollouts.jsonl", tmp_path / "api_rollouts.jsonl")
    pools = tmp_path / "pools.jsonl"
    pools.write_text("".join(json.dumps(p.to_dict()) + "\n" for p in prmkit.api.read_pools("demo")[:3]))
    assert main(["verify", str(pools), "--output", str(tmp_path / "cli_verified.jsonl")]) == 0
    prmkit.api.verify(pools, output=str(tmp_path / "api_verified.jsonl"))
    _same_file(tmp_path / "cli_verified.jsonl", tmp_path / "api_verified.jsonl")
    assert main(["view", "--pools", "demo", "--labels", f"MCNIG={cli / 'mcnig.jsonl'}", "--limit", "3",
                 "--output", str(tmp_path / "cli.html")]) == 0
    prmkit.api.view(pools="demo", labels=[f"MCNIG={api / 'mcnig.jsonl'}"], limit=3, output=str(tmp_path / "api.html"))
    _same_file(tmp_path / "cli.html", tmp_path / "api.html")


def test_search(trained, long_tiny, tmp_path):
    cli, api, _, _ = trained
    tiny_base = long_tiny
    flags = ["--input", "demo", "--limit", "1", "--k", "2", "--width", "1", "--max-steps", "2",
             "--max-new-tokens", "6", "--model", tiny_base]
    assert main(["--quiet", "search", "beam,bon", *flags, "--prm", str(cli),
                 "--output", str(tmp_path / "cli_{method}.jsonl")]) == 0
    prmkit.api.search("beam,bon", tmp_path / "api_{method}.jsonl", progress=False, input="demo", limit=1, k=2, width=1,
                  max_steps=2, max_new_tokens=6, model=tiny_base, prm=str(api))
    for method in ("beam", "bon"):
        rows = [[_volatile_free(json.loads(line)) for line in (tmp_path / f"{side}_{method}.jsonl").read_text()
                 .splitlines()] for side in ("cli", "api")]
        assert rows[0] == rows[1] and len(rows[0]) == 1


def test_pum(long_tiny, tmp_path):
    tiny_base = long_tiny
    flags = ["--problems-range", "0:1", "--students", tiny_base, "--k", "2", "--max-new-tokens", "4"]
    assert main(["--quiet", "pum", "--input", "demo", *flags, "--output-dir", str(tmp_path / "cli")]) == 0
    prmkit.api.pum("demo", tmp_path / "api", problems_range="0:1", students=[tiny_base], k=2, max_new_tokens=4,
               progress=False)
    for name in ("prefixes.jsonl", "pairs.jsonl"):
        _same_file(tmp_path / "cli" / name, tmp_path / "api" / name)


def test_pum_sources_are_an_api_keyword_too(tmp_path, capsys):
    """`--sources` keeps only the traces of those sources, from the CLI and the API alike: a source no trace has is
    the same error from both, before any student loads."""
    assert main(["--quiet", "pum", "--input", "demo", "--sources", "policy", "--output-dir", str(tmp_path / "c")]) == 2
    said = capsys.readouterr().err
    with pytest.raises(ValueError) as err:
        prmkit.api.pum("demo", tmp_path / "a", sources=["policy"], progress=False)
    assert str(err.value) in said and "'demo'" in said


def test_data_synth_corrupt_and_processbench(long_tiny, tmp_path, capsys):
    tiny_base = long_tiny
    assert main(["data", "synth", "--problems", "6", "--output", str(tmp_path / "cli_pools.jsonl"),
                 "--labels", str(tmp_path / "cli_labels.jsonl")]) == 0
    prmkit.api.synth(problems=6, output=str(tmp_path / "api_pools.jsonl"), labels=str(tmp_path / "api_labels.jsonl"))
    for name in ("pools.jsonl", "labels.jsonl"):
        _same_file(tmp_path / f"cli_{name}", tmp_path / f"api_{name}")
    gsm8k = Path(__file__).resolve().parents[2] / "shared/data/gsm8k/train.jsonl"
    if not gsm8k.is_file():
        pytest.skip("../shared/data/gsm8k is not beside the checkout")
    for side in ("cli", "api"):
        settings = {"input": str(gsm8k), "limit": 8, "output": str(tmp_path / f"{side}_bench.jsonl"),
                    "pools": str(tmp_path / f"{side}_bench_pools.jsonl")}
        if side == "cli":
            assert main(["data", "corrupt", *[x for k, v in settings.items() for x in (f"--{k}", str(v))]]) == 0
        else:
            prmkit.api.corrupt(**settings)
    _same_file(tmp_path / "cli_bench.jsonl", tmp_path / "api_bench.jsonl")
    assert main(["--quiet", "label", "--method", "ig", "--input", str(tmp_path / "cli_bench_pools.jsonl"),
                 "--model", tiny_base, "--output", str(tmp_path / "ig.jsonl")]) == 0
    capsys.readouterr()
    args = {"benchmark": str(tmp_path / "cli_bench.jsonl"), "choose_on": "0:4", "report_on": "4:"}
    assert main(["evaluate", "processbench", *[x for k, v in args.items() for x in (f"--{k.replace('_', '-')}", v)],
                 "--scores", f"IG={tmp_path / 'ig.jsonl'}", "--output", str(tmp_path / "cli_pb.json")]) == 0
    report = prmkit.api.processbench(scores=[f"IG={tmp_path / 'ig.jsonl'}"], **args)
    assert json.loads((tmp_path / "cli_pb.json").read_text()) == json.loads(json.dumps(report))


def test_train_bt_on_pum_pairs(tiny_base, tmp_path):
    """`prmkit.api.train("bt", pairs=...)` (and its alias "pum") is `prmkit train pum --pairs`: the recipe, the head's
    own aggregation ("last") and the pair trainer in both."""
    from helpers import write_jsonl

    question = "Tom has 3 apples and buys 4 more . How many apples does he have now ?"
    good, bad = ["3 + 4 = 7", "so the answer is 7"], ["3 + 4 = 8 wrong step", "so the answer is 8 mistake"]
    pairs = [{"problem_id": f"p{k}", "question": question, "prefix_a": good[: 1 + k % 2], "prefix_b": bad[: 1 + k % 2],
              "label": 1 if k % 3 else -1, "id_a": f"p{k}/a@1", "id_b": f"p{k}/b@1", "kind": "horizontal"}
             for k in range(6)]
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs)
    assert main(["--quiet", "train", "pum", "--pairs", path, "--model", tiny_base, "--save-strategy", "no",
                 "--output", str(tmp_path / "cli")]) == 0
    prmkit.api.train("bt", tmp_path / "api", pairs=path, model=tiny_base, save_strategy="no", log=lambda _: None)
    logs = [json.loads((tmp_path / d / "train_log.json").read_text()) for d in ("cli", "api")]
    assert logs[0]["model_config"] == logs[1]["model_config"] and logs[0]["model_config"]["aggregation"] == "last"
    assert [h["loss"] for h in logs[0]["history"]] == [h["loss"] for h in logs[1]["history"]]
    _same_file(tmp_path / "cli" / "model.safetensors", tmp_path / "api" / "model.safetensors")


def test_sft(long_tiny, tmp_path):
    """`prmkit.api.sft(...)` is `prmkit sft`: the same rows, the same losses, the same policy."""
    flags = {"model": long_tiny, "problems": 4, "levels": "1", "max_steps": 2, "batch_size": 2, "holdout": 4,
             "max_length": 2048, "logging_steps": 1}
    assert main(["--quiet", "sft", *[x for k, v in flags.items() for x in (f"--{k.replace('_', '-')}", str(v))],
                 "--output", str(tmp_path / "cli")]) == 0
    returned = prmkit.api.sft(output=str(tmp_path / "api"), progress=False, log=lambda _: None, **flags)
    written = json.loads((tmp_path / "cli" / "sft_run.json").read_text())
    volatile = ("peak_rss_mib", "peak_gpu_mib")
    assert {k: v for k, v in _volatile_free(written).items() if k not in volatile} == {
        k: v for k, v in _volatile_free(returned).items() if k not in volatile}
    for name in ("sft_data.jsonl", "sft_settings.json", "model.safetensors"):
        _same_file(tmp_path / "cli" / name, tmp_path / "api" / name)


@pytest.mark.parametrize("verb", ["generate", "label", "train", "score", "best_of_k", "rl", "bench"])
def test_the_readme_table_states_the_functions_parameters(verb):
    """The README's Python API row of `verb` names the function's parameters in their order: a positional call as
    the table shows reaches the parameter it names."""
    import inspect
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    [shown] = re.findall(rf"`api\.{verb}\(([^`]*?)\)", readme)
    stated = str(inspect.signature(getattr(prmkit.api, verb)))[1:-1]
    assert shown == stated
