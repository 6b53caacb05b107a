"""`prmkit threshold` and `prmkit label --tau-from` say what they did: a class missing from a file, a tau taken
from labels made another way (an error unless forced)."""

import json

import pytest

from helpers import write_jsonl
from label.step_length import StepLengthConfig
from prmkit.cli.main import main
from prmkit.data.records import Pool
from prmkit.data.warn import PrmkitWarning
from prmkit.label import LabelConfig, apply_threshold, label_pools, missing_classes


def labels(method: str, correct: list[bool], params: dict | None = None) -> list[dict]:
    return [{"trace_id": f"p/{k}", "method": method, "scores": [float(k), 1.0], "correct": c,
             "params": {"method": method} | (params or {}), "problem_id": "p"} for k, c in enumerate(correct)]


def test_missing_classes():
    assert missing_classes([False, False]) == ["correct"]
    assert missing_classes([True]) == ["incorrect"]
    assert missing_classes([True, False]) == [] and missing_classes([]) == ["correct", "incorrect"]


def test_a_file_without_a_correct_cot_warns_in_the_report_and_on_stderr(tmp_path, capsys):
    path = write_jsonl(tmp_path / "mcnig.jsonl", labels("mcnig", [False, False, False]))
    with pytest.warns(PrmkitWarning, match="no correct CoT among its 3 judged traces"):
        result = apply_threshold(path, plot=False)
    assert result["final_excluded"]["balanced_accuracy"] == 0.75  # the figure that needs the caveat
    assert main(["threshold", "--choose-on", path]) == 0
    out, err = capsys.readouterr()
    assert "prmkit threshold: warning: " in err and "counts the correct class as 0.5" in err
    assert "no correct CoT" in json.loads(out)["warnings"][0]


def test_a_tau_from_other_labels_is_an_error_unless_forced(tmp_path, capsys):
    ig = write_jsonl(tmp_path / "ig.jsonl", labels("ig", [True, False, True]))
    mcnig = write_jsonl(tmp_path / "mcnig.jsonl", labels("mcnig", [True, False, True]))
    before = (tmp_path / "ig.jsonl").read_text()
    assert main(["threshold", "--choose-on", ig, "--apply-to", mcnig]) == 2
    err = capsys.readouterr().err
    assert "method 'ig' vs 'mcnig'" in err and "--force" in err
    assert (tmp_path / "ig.jsonl").read_text() == before  # nothing written
    assert main(["threshold", "--choose-on", ig, "--apply-to", mcnig, "--force"]) == 0
    out, err = capsys.readouterr()
    assert "warning: tau of" in err and json.loads(out.splitlines()[1])["warnings"][0].endswith("(forced)")
    other = write_jsonl(tmp_path / "other.jsonl", labels("ig", [True, False, True], {"model": "big"}))
    assert main(["threshold", "--choose-on", ig, "--apply-to", other]) == 2
    assert "model: None vs 'big'" in capsys.readouterr().err


def test_label_tau_from_checks_the_settings(tmp_path):
    pools = [Pool.from_dict({"problem": {"id": "p", "question": "q", "answer": "7"},
                             "traces": [{"id": f"p/{k}", "problem_id": "p", "steps": ["ab", "c"], "answer": "7",
                                         "correct": k == 0} for k in range(2)]})]
    ig = write_jsonl(tmp_path / "ig.jsonl", [r | {"threshold": 0.5} for r in labels("ig", [True, False])])
    with pytest.raises(ValueError, match="method 'ig' vs 'length'"):
        label_pools(pools, LabelConfig(method="length", tau_from=ig), tmp_path / "a.jsonl", [StepLengthConfig()],
                    progress=False)
    with pytest.warns(PrmkitWarning, match="forced"):
        report = label_pools(pools, LabelConfig(method="length", tau_from=ig, force_tau=True), tmp_path / "b.jsonl",
                             [StepLengthConfig()], progress=False)["length"]
    assert report.sweeps["applied"]["tau"] == 0.5 and "(forced)" in report.warnings[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\nnot a label record\n")  # a blank line, then a line that is not JSON
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: invalid JSON"):
        label_pools(pools, LabelConfig(method="length", tau_from=str(bad)), tmp_path / "c.jsonl", [StepLengthConfig()],
                    progress=False)
