"""The sampling settings have one home, `prmkit.generate.config`: every verb that samples has its fields
(generate, rollout, search, the rollout labelers, PUM, GRPO), with the defaults of its own method's paper. The
decoding settings are a part (`decoding`) of the samplers, and flat settings all the same (flags, keys, keyword
arguments)."""

from __future__ import annotations

import dataclasses

import pytest

from prmkit.data.settings import build_config, config_fields, known_fields
from prmkit.generate.config import (
    DecodingConfig,
    GenerateConfig,
    RolloutConfig,
    SamplerBackendConfig,
    SamplerConfig,
)
from prmkit.label.pum import PumConfig
from prmkit.label.pum.labeler import PumLabelConfig
from prmkit.label.rollout_labeling import RolloutLabelConfig
from prmkit.rl.config import RLConfig
from prmkit.search.config import BeamConfig

SAMPLERS = [GenerateConfig, RolloutConfig, BeamConfig, RolloutLabelConfig, PumConfig, PumLabelConfig, RLConfig]


def _defaults(cls: type) -> dict[str, object]:
    return {s.name: s.default for s in config_fields(cls)}


@pytest.mark.parametrize("cls", SAMPLERS)
def test_every_sampler_has_the_sampling_settings(cls):
    hints = {s.name: s.hint for s in config_fields(SamplerConfig)}
    mine = {s.name: s.hint for s in config_fields(cls)}
    assert known_fields([DecodingConfig]) <= set(mine)
    if "k" in mine or "backend" in mine:  # GRPO's policy samples in TRL: decoding settings only
        assert issubclass(cls, SamplerBackendConfig)
    assert all(tp == hints[name] for name, tp in mine.items() if name in hints)


def test_the_students_carry_the_models_of_pum():
    assert "model" not in known_fields([PumConfig]) | known_fields([PumLabelConfig])
    config = PumLabelConfig(k=3, decoding=DecodingConfig(temperature=0.5), students=["a@1.5", "b"])
    first, second = (config.for_student(spec) for spec in config.student_specs())
    assert (first.model, first.k, first.decoding.temperature, second.model, second.decoding.temperature) == (
        "a", 3, 1.5, "b", 0.5)
    assert config.params("pum") == {k: v for k, v in RolloutLabelConfig(
        k=3, decoding=DecodingConfig(temperature=0.5)).params("pum").items() if k != "model"} | {
        "students": ["a@1.5", "b"]}


def test_each_method_keeps_its_paper_defaults():
    sampler = _defaults(SamplerConfig)
    assert {k: sampler[k] for k in ("k", "temperature", "top_p", "max_new_tokens")} == {
        "k": 8, "temperature": 1.0, "top_p": 0.95, "max_new_tokens": 512}  # MCNIG sec 3.1, 4.2
    assert {k: v for k, v in _defaults(RolloutLabelConfig).items() if k in sampler} == sampler  # the same
    pum = _defaults(PumConfig)
    assert (pum["k"], pum["temperature"], pum["top_p"], pum["max_new_tokens"]) == (8, 0.7, 0.95, 256)  # A.3
    rl = _defaults(RLConfig)
    assert (rl["temperature"], rl["top_p"], rl["max_new_tokens"]) == (1.0, 1.0, 192)  # PUM D.4 (CPU budget)
    beam = _defaults(BeamConfig)
    assert (beam["k"], beam["max_new_tokens"]) == (8, 48)
    assert PumConfig().decoding.temperature == 0.7 and BeamConfig().decoding.max_new_tokens == 48
    assert "A.3: 0.7" in {s.name: s.help for s in config_fields(PumConfig)}["temperature"]
    assert "PUM D.4: 1.0" in RLConfig.__dataclass_fields__["top_p"].metadata["help"]


def test_a_part_is_built_from_flat_settings_and_checked():
    beam = build_config(BeamConfig, {}, {"temperature": 0.5, "k": 4, "width": 2})
    assert (beam.decoding.temperature, beam.decoding.max_new_tokens, beam.k) == (0.5, 48, 4)  # the holder's default
    with pytest.raises(ValueError, match=r"--top-p 0\.0: must be above 0"):
        build_config(GenerateConfig, {}, {"top_p": 0.0})


def test_the_configs_build_their_sampling_from_the_shared_fields():
    from prmkit.label.pum import StudentSpec

    seeded = DecodingConfig(seed=2)
    assert RolloutLabelConfig(k=3, decoding=seeded).sampling() == SamplerConfig(k=3, decoding=seeded).sampling()
    pum = PumConfig(k=4)
    assert (pum.sampling().n, pum.sampling().temperature) == (4, 0.7)
    hot = StudentSpec(name="s", backend="transformers", model="m", temperature=1.3)
    assert pum.student_sampling(hot) == dataclasses.replace(pum.sampling(), temperature=1.3)
    options = RolloutLabelConfig(batch_size=5, dtype="bfloat16", decoding=DecodingConfig(chat=False)).backend_options()
    assert (options.batch_size, options.dtype, options.chat) == (5, "bfloat16", False)
    assert PumConfig(batch_size=5).backend_options().dtype is None  # each student loads its own model
