"""K is `k` in every config, `--k` its one flag: `rollouts`, an old name in the rollout labelers and PUM, is no
longer taken (flag, `--config` key or keyword); the records of the rollout labelers keep `rollouts` as K's key."""

from __future__ import annotations

import pytest

from prmkit.cli.common import config_from_args
from prmkit.cli.main import build_parser
from prmkit.data.settings import build_configs
from prmkit.label.pum import PumConfig
from prmkit.label.rollout_labeling import RolloutLabelConfig

VERBS = {"label": (RolloutLabelConfig, ["--input", "demo", "--output", "o.jsonl", "--method", "math-shepherd"]),
         "pum": (PumConfig, ["--input", "demo", "--output-dir", "out"])}


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_k_is_the_one_name_of_k(verb, tmp_path):
    cls, required = VERBS[verb]
    assert config_from_args(cls, build_parser(verb).parse_args([verb, *required, "--k", "5"])).k == 5
    assert config_from_args(cls, build_parser(verb).parse_args([verb, *required])).k == 8  # the default as before
    with pytest.raises(SystemExit):
        build_parser(verb).parse_args([verb, *required, "--rollouts", "3"])
    conf = tmp_path / "run.yaml"
    conf.write_text("rollouts: 4\n")
    with pytest.raises(ValueError, match="unknown keys \\['rollouts'\\]"):
        build_configs([cls], {}, str(conf))
    with pytest.raises(TypeError, match="unknown settings \\['rollouts'\\]"):
        build_configs([cls], {"rollouts": 2})
    assert RolloutLabelConfig(k=2).params("math-shepherd")["rollouts"] == 2  # the records' name of K is kept
