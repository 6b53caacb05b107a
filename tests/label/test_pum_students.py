"""PUM's students: a prompt template per student (`MODEL#TEMPLATE`: the prompts it renders, the settings that record
it, a resume with another one refused) and the students' solve rates per level (`prmkit pum --solve-rates`: counts
from hand-made records, then end to end on a tiny random student)."""

import dataclasses
import json
import random
from pathlib import Path

import pytest

from helpers import make_embedded_tokenizer_llama, pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.data.bench import bench_problems, constructed_pools, constructed_traces
from prmkit.data.records import Pool, Trace
from prmkit.data.settings import build_config
from prmkit.data.templates import load_template
from prmkit.generate.prompts import build_prompt
from prmkit.generate.rollout_records import Continuation, Rollout
from prmkit.label import LabelConfig, PumLabelConfig, build_labelers, label_pools
from prmkit.label.pum import (
    format_solve_rates,
    parse_student,
    parse_students,
    right_prefix,
    solve_rate_counts,
    solve_rate_requests,
)


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    """A 2-layer random Llama with the embedded tokenizer and a context that holds the few-shot prompt."""
    return str(make_embedded_tokenizer_llama(tmp_path_factory.mktemp("pum-student")))


def test_student_specs_carry_a_template():
    spec = parse_student("ct2:gemma3-270m@1.0#generate_math_0shot", "transformers")
    assert (spec.backend, spec.model, spec.temperature, spec.template) == ("ct2", "gemma3-270m", 1.0,
                                                                           "generate_math_0shot")
    assert spec.name == "gemma3-270m_T1.0_generate_math_0shot" and spec.prompt("generate_math_1shot") == spec.template
    plain = parse_student("gemma3-270m", "ct2")
    assert plain.template is None and plain.prompt("generate_math_1shot") == "generate_math_1shot"
    # one model prompted two ways is two students; the same template twice is one student given twice
    assert len({s.name for s in parse_students(["m#generate_math_0shot", "m"], "ct2")}) == 2
    with pytest.raises(ValueError, match="given twice"):
        parse_students(["m#generate_math_0shot", "m#generate_math_0shot"], "ct2")
    with pytest.raises(ValueError, match="no built-in template 'no_such'"):
        parse_students(["m#no_such"], "ct2")
    with pytest.raises(ValueError, match="no template after"):
        parse_student("m#", "ct2")


def test_the_students_recipe_samples_each_warm_start_with_its_template():
    """recipes/pum_students.yaml: the solve rates of two zero-shot warm starts, each prompted as it was trained."""
    from prmkit.data.settings import build_config, read_config_file
    from prmkit.label.pum import PumConfig

    path = Path(__file__).resolve().parents[2] / "src/prmkit/recipes/pum_students.yaml"
    config = build_config(PumConfig, read_config_file(str(path), (PumConfig,)), {})
    specs = parse_students(config.students, config.backend)
    assert config.solve_rates and config.k == 8 and config.decoding.template is None
    assert [(s.backend, s.model, s.prompt(config.decoding.template)) for s in specs] == [
        ("ct2", "runs/sft/s_smollm2z", "generate_math_0shot"), ("ct2", "runs/sft/s_gemmaz", "generate_math_0shot")]
    text = path.read_text()
    for model in ("smollm2-135m", "gemma3-270m"):  # each warm start's command, zero-shot, evaluation sets left out
        assert f"--model {model} --problems 480 --levels 1,2,3,4,5,6 --seed 3" in text
    assert text.count("--template generate_math_0shot \\\n#       --exclude runs/bench300f/problems.jsonl") == 2


POOL = pool_dict("p0", "Tom has 3 apples and buys 4 more. How many apples?", "7",
                 [(["3 + 4 = 7", "The answer is $7$."], "7", True),
                  (["3 * 4 = 12", "The answer is $12$."], "12", False)])


def test_each_labeling_student_renders_its_own_template(student, tmp_path):
    pool = Pool.from_dict(POOL)
    cfg = build_config(PumLabelConfig, {}, {"k": 2, "max_new_tokens": 3, "chat": False,
                                            "students": [f"{student}#generate_math_0shot", student]})
    (labeler,) = build_labelers(["pum"], [cfg])
    prompts = {}
    for spec in labeler.specs:  # record what each student's backend is asked to continue
        backend = labeler.roller(spec).backend
        prompts[spec.name] = seen = []
        backend.generate_rendered = (lambda texts, c, seeds, inner=backend.generate_rendered, seen=seen:
                                     seen.extend(texts) or inner(texts, c, seeds))
    labeler.label(pool, {"pum": {t.id for t in pool.traces}})
    zero, few = (prompts[s.name] for s in labeler.specs)
    assert zero[0] == build_prompt(pool.problem, load_template("generate_math_0shot"))  # the baseline, question alone
    assert few[0] == build_prompt(pool.problem)  # the run's template: the few-shot one
    assert zero[0] != few[0] and all(z.startswith(zero[0]) for z in zero) and all(f.startswith(few[0]) for f in few)
    # the labels' params record the students with their templates: another template is refused on resume
    out = tmp_path / "pum.jsonl"
    label_pools([pool], LabelConfig(method="pum"), out, [cfg], progress=False)
    assert json.loads(out.read_text().splitlines()[0])["params"]["students"] == cfg.students
    other = dataclasses.replace(cfg, students=[f"{student}#generate_math_1shot", student])
    with pytest.raises(ValueError, match=r"labeled with other settings .*students"):
        label_pools([pool], LabelConfig(method="pum"), out, [other], progress=False)


def test_pum_records_each_students_template_and_refuses_another(student, tmp_path, capsys):
    pools = write_jsonl(tmp_path / "pools.jsonl", [POOL])
    for folder in ("a", "b"):  # two prompt files of one name: the same student name, other prompts
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "prompt.txt").write_text(f"{folder}: solve it.\n\nQuestion: {{question}}\nAnswer:")
    out, a, b = tmp_path / "pum", str(tmp_path / "a" / "prompt.txt"), str(tmp_path / "b" / "prompt.txt")
    argv = ["pum", "--input", pools, "--output-dir", str(out), "--k", "2", "--max-new-tokens", "3", "--batch-size",
            "4", "--no-chat", "--quiet", "--students"]
    assert main([*argv, f"{student}#{a}", student]) == 0
    name = Path(student).name
    settings = json.loads((out / "settings.json").read_text())
    assert settings[f"{name}_prompt"]["template"] == a and settings[name]["template"] is None
    report = json.loads((out / "report.json").read_text())
    assert report["students"][f"{name}_prompt"]["template"] == a
    baselines = {n: json.loads((out / f"rollouts-{n}.jsonl").read_text().splitlines()[0]) for n in settings}
    assert baselines[f"{name}_prompt"]["tokens_read"] < baselines[name]["tokens_read"]  # its short prompt
    assert main([*argv, f"{student}#{b}", student]) == 2
    assert f"student {name}_prompt was rolled out with other settings (template: '{a}' -> '{b}')" in \
        capsys.readouterr().err


def _rollout(prefix_id: str, n: int, flags: list[bool]) -> Rollout:
    return Rollout(prefix_id, prefix_id.split("/")[0].split("@")[0], n, 0, 1,
                   [Continuation("x", ["x"], None, ok, "", 1) for ok in flags])


def test_solve_rate_counts_are_those_of_the_records():
    p1, p2, p3, p4 = bench_problems(4, seed=3, levels=(1, 2))  # levels 1, 2, 1, 2

    def right(p):
        return constructed_traces(p, (), random.Random(0))[0].trace

    r2 = right(p2)  # 3 steps; the policy's sample of p2 goes wrong at its second step
    partial = Trace(f"{p2.id}/s0", p2.id, [r2.steps[0], "5 + 5 = 1234.", "The answer is $1234$."], "1234", False,
                    "policy")
    wrong = Trace(f"{p3.id}/s0", p3.id, ["1 + 1 = 99.", "The answer is $99$."], "99", False, "policy")
    pools = [Pool(p1, [right(p1)]), Pool(p2, [partial, r2]), Pool(p3, [wrong]), Pool(p4, [right(p4)])]
    assert right_prefix(pools[1]) == (r2.id, 2) and right_prefix(pools[2]) is None
    assert right_prefix(Pool(p2, [partial])) == (partial.id, 1)
    requests, chosen = solve_rate_requests(pools)
    assert chosen == {p1.id: f"{p1.id}/c0@1", p2.id: f"{r2.id}@2", p3.id: None, p4.id: f"{p4.id}/c0@2"}
    assert [r.prefix_id for r in requests][:4] == [f"{p1.id}@0", f"{p1.id}/c0@1", f"{p2.id}@0", f"{r2.id}@2"]
    assert requests[3].steps == tuple(r2.steps[:2])
    rolled = {r.prefix_id: r for r in [  # p4 has no baseline record (a run stopped partway): left out
        _rollout(f"{p1.id}@0", 0, [True, False, False, False]),
        _rollout(f"{p1.id}/c0@1", 1, [True, True, False, False]),
        _rollout(f"{p2.id}@0", 0, [False] * 4), _rollout(f"{r2.id}@2", 2, [True, True, True, False]),
        _rollout(f"{p3.id}@0", 0, [True, True, False, False]), _rollout(f"{p4.id}/c0@2", 2, [True] * 4)]}
    counts = solve_rate_counts(pools, chosen, rolled)
    assert list(counts) == ["1", "2", "all"]
    assert counts["1"] == {"problems": 2, "question": [3, 8], "prefix": [2, 4], "no_right_prefix": 1,
                           "prefix_share": 0.5}
    assert counts["2"] == {"problems": 1, "question": [0, 4], "prefix": [3, 4], "no_right_prefix": 0,
                           "prefix_share": 0.667}
    assert counts["all"] == {"problems": 3, "question": [3, 12], "prefix": [5, 8], "no_right_prefix": 1,
                             "prefix_share": 0.583}
    table = format_solve_rates({"k": 4, "students": {"s": {"template": None, "levels": counts}}})
    assert "| s | few-shot | 1 | 2 | 3/8 (37.5%) | 2/4 (50.0%) | 1 | 0.50 |" in table
    assert "| s | few-shot | all | 3 | 3/12 (25.0%) | 5/8 (62.5%) | 1 | 0.58 |" in table


def test_pum_solve_rates_end_to_end(student, tmp_path, capsys):
    problems = bench_problems(4, seed=5, levels=(1, 2))
    pools, _ = constructed_pools(problems, ("arithmetic",), seed=5)
    path = write_jsonl(tmp_path / "pools.jsonl", [p.to_dict() for p in pools])
    out = tmp_path / "rates"
    argv = ["pum", "--input", path, "--output-dir", str(out), "--solve-rates", "--students",
            f"{student}#generate_math_0shot", "--k", "3", "--max-new-tokens", "4", "--no-chat", "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    report = json.loads((out / "solve_rates.json").read_text())
    name = f"{Path(student).name}_generate_math_0shot"
    lines = [json.loads(x) for x in (out / f"rollouts-{name}.jsonl").read_text().splitlines()]
    # a baseline and the right trace's longest proper prefix per problem (the constructed right trace wins)
    assert {r["prefix_id"] for r in lines} == {f"{p.id}@{k}" for p in problems for k in (0,)} | {
        f"{p.id}/c0@{len(p.meta['graph'])}" for p in problems}
    levels = report["students"][name]["levels"]
    solved = sum(c["correct"] for r in lines if r["prefix_steps"] == 0 for c in r["continuations"])
    assert levels["all"]["question"] == [solved, 12] and levels["all"]["prefix"][1] == 12
    assert levels["1"]["problems"] == levels["2"]["problems"] == 2 and report["sources"] == {"bench-constructed": 4}
    assert report["students"][name]["template"] == "generate_math_0shot"
    assert f"| {name} | generate_math_0shot | all | 4 |" in printed
    assert not (out / "pairs.jsonl").exists()
    text = (out / f"rollouts-{name}.jsonl").read_text()
    assert main(argv) == 0 and (out / f"rollouts-{name}.jsonl").read_text() == text  # resumed: nothing new
    assert main([*argv, "--no-rollout"]) == 0
    assert json.loads((out / "solve_rates.json").read_text())["students"] == report["students"]
    demo = ["pum", "--input", "demo", "--output-dir", str(tmp_path / "demo"), "--solve-rates", "--students", student,
            "--no-rollout", "--quiet"]
    assert main(demo) == 2 and "no bench problem" in capsys.readouterr().err
