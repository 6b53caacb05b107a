"""PUM's students: a prompt template per student (`MODEL#TEMPLATE`: the prompts it renders, the settings that record
it, a resume with another one refused)."""

import json
from pathlib import Path

import pytest

from helpers import embedded_tokenizer_or_skip, pool_dict, write_jsonl
from prmkit.cli.main import main
from prmkit.data.records import Pool
from prmkit.data.templates import load_template
from prmkit.generate.prompts import build_prompt
from prmkit.label import LabelConfig, PumLabelConfig, build_labelers, label_pools
from prmkit.label.pum import parse_student, parse_students


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    """A 2-layer random Llama with the embedded tokenizer and a context that holds the few-shot prompt."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = embedded_tokenizer_or_skip()
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    path = tmp_path_factory.mktemp("pum-student")
    LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


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


POOL = pool_dict("p0", "Tom has 3 apples and buys 4 more. How many apples?", "7",
                 [(["3 + 4 = 7", "The answer is $7$."], "7", True),
                  (["3 * 4 = 12", "The answer is $12$."], "12", False)])


def test_each_labeling_student_renders_its_own_template(student, tmp_path):
    pool = Pool.from_dict(POOL)
    cfg = PumLabelConfig(model=student, k=2, max_new_tokens=3, chat=False,
                         students=[f"{student}#generate_math_0shot", student])
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
    other = PumLabelConfig(**{**vars(cfg), "students": [f"{student}#generate_math_1shot", student]})
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
