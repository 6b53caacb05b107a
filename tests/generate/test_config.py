"""The sampling settings have one home, `prmkit.generate.config`: every verb that samples inherits its fields
(generate, rollout, search, the rollout labelers, PUM, GRPO), with the defaults of its own method's paper."""

from __future__ import annotations

import dataclasses

import pytest

from prmkit.generate.config import (
    DecodingConfig,
    GenerateConfig,
    RolloutConfig,
    SamplerBackendConfig,
    SamplerConfig,
)
from prmkit.label.pum import PumConfig
from prmkit.label.rollout_labeling import RolloutLabelConfig
from prmkit.rl.config import RLConfig
from prmkit.search.config import BeamConfig

SAMPLERS = [GenerateConfig, RolloutConfig, BeamConfig, RolloutLabelConfig, PumConfig, RLConfig]


def _defaults(cls: type) -> dict[str, object]:
    return {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}


@pytest.mark.parametrize("cls", SAMPLERS)
def test_every_sampler_inherits_the_sampling_fields(cls):
    names = {f.name for f in dataclasses.fields(cls)}
    assert issubclass(cls, DecodingConfig)
    if "k" in names or "backend" in names:  # GRPO's policy samples in TRL: decoding settings only
        assert issubclass(cls, SamplerBackendConfig)
    hints = {f.name: f.type for f in dataclasses.fields(SamplerConfig)}
    assert all(f.type == hints[f.name] for f in dataclasses.fields(cls) if f.name in hints)


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
    assert "A.3: 0.7" in PumConfig.__dataclass_fields__["temperature"].metadata["help"]
    assert "PUM D.4: 1.0" in RLConfig.__dataclass_fields__["top_p"].metadata["help"]


def test_the_configs_build_their_sampling_from_the_shared_fields():
    from prmkit.label.pum import StudentSpec

    assert RolloutLabelConfig(k=3, seed=2).sampling() == SamplerConfig(k=3, seed=2).sampling()
    pum = PumConfig(k=4)
    assert (pum.sampling().n, pum.sampling().temperature) == (4, 0.7)
    hot = StudentSpec(name="s", backend="transformers", model="m", temperature=1.3)
    assert pum.sampling(hot) == dataclasses.replace(pum.sampling(), temperature=1.3)
    options = RolloutLabelConfig(batch_size=5, dtype="bfloat16", chat=False).backend_options()
    assert (options.batch_size, options.dtype, options.chat) == (5, "bfloat16", False)
    assert PumConfig(batch_size=5).backend_options().dtype is None  # each student loads its own model
